/**
 * The line translators for Codex's rollout files and Copilot CLI's events.jsonl (src/hosts/codex,
 * src/hosts/copilot), on the sessions recorded from the real CLIs (test/fixtures/recorded) and on
 * the record shapes those recordings do not hold (an argv shell, update_plan, a free-text
 * apply_patch, a refused call). The loops-caught and productive-stays-silent checks on the
 * recordings are in recordedSessions.test.ts with every other agent's.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { ToolCallEvent, ToolResultEvent, TraceEvent } from "../../src/engine/events";
import { replayEvents } from "../../src/engine/replay";
import { createToolKnowledge } from "../../src/engine/toolKnowledge";
import { parseCodex } from "../../src/formats/codex";
import { parseCopilotCli } from "../../src/formats/copilotCli";
import { readerFor, readSessions } from "../../src/formats";
import { SessionFormatError } from "../../src/formats/reader";
import { codexOutput, CodexRolloutTranslator } from "../../src/hosts/codex/rolloutTranslator";
import { CopilotEventsTranslator } from "../../src/hosts/copilot/eventsTranslator";
import { feedLineText, type LineTranslator } from "../../src/hosts/lineTranslation";

const RECORDED = path.resolve(__dirname, "../../../test/fixtures/recorded");
const knowledge = createToolKnowledge();

function recordedFiles(agent: string): string[] {
  return fs.readdirSync(path.join(RECORDED, agent), { withFileTypes: true }).filter((d) => d.isDirectory()).flatMap((d) =>
    fs.readdirSync(path.join(RECORDED, agent, d.name)).filter((f) => f.endsWith(".jsonl")).map((f) => path.join(RECORDED, agent, d.name, f)));
}

/** The events of lines fed one at a time, as a host tailing the file does. */
function tail(translator: LineTranslator, lines: string[]): { events: TraceEvent[]; errors: number; ignored: number } {
  const events: TraceEvent[] = [];
  let errors = 0;
  let ignored = 0;
  for (const line of lines) {
    const o = feedLineText(translator, line);
    events.push(...o.events);
    if (o.error) errors++;
    if (o.ignored) ignored++;
  }
  events.push(...translator.finish());
  return { events, errors, ignored };
}

const calls = (events: TraceEvent[]) => events.filter((e): e is ToolCallEvent => e.t === "tool_call");
const results = (events: TraceEvent[]) => events.filter((e): e is ToolResultEvent => e.t === "tool_result");
const jsonl = (...records: unknown[]) => records.map((r) => JSON.stringify(r)).join("\n") + "\n";

const AGENTS = [
  { agent: "codex", format: "codex", parse: parseCodex, make: () => new CodexRolloutTranslator() },
  { agent: "copilot-cli", format: "copilot-cli", parse: parseCopilotCli, make: () => new CopilotEventsTranslator() },
];

describe("Codex and Copilot CLI session files", () => {
  for (const { agent, format, parse, make } of AGENTS) {
    describe(agent, () => {
      const files = recordedFiles(agent);

      it("finds the recorded sessions and reads each as its format, not as a Claude Code transcript", () => {
        assert.ok(files.length >= 8, `${files.length} recordings`);
        for (const f of files) assert.equal(readerFor(f, false)?.format, format, f);
      });

      it("a live tail fed one line at a time gives the same events as the reader, and every line is understood", () => {
        for (const f of files) {
          const text = fs.readFileSync(f, "utf8");
          const lines = text.split("\n");
          const live = tail(make(), lines);
          assert.equal(live.errors, 0, f);
          assert.deepEqual(live.events, parse(text, f, false).events, f);
          // Streamed (the replay of a large file) is the same again.
          const streamed: TraceEvent[] = [];
          readerFor(f, false)!.stream!(f, { lenient: false }, (e) => streamed.push(e));
          assert.deepEqual(streamed, live.events, f);
        }
      });

      it("keeps the model's thinking and text: one reasoning and one text event per step with thoughts", () => {
        const f = files.find((x) => x.includes(`${path.sep}productive${path.sep}`))!;
        const events = parse(fs.readFileSync(f, "utf8"), f, false).events;
        assert.deepEqual(events.filter((e) => e.t === "reasoning").map((e) => (e as { delta: string }).delta)[0], "First, see how the build fails.");
        assert.equal(events.filter((e) => e.t === "text").length, events.filter((e) => e.t === "request").length);
      });

      it("a malformed line is an error naming the file and line; lenient, it is skipped and nothing else is lost", () => {
        const f = files.find((x) => x.includes(`${path.sep}build-loop${path.sep}`))!;
        const lines = fs.readFileSync(f, "utf8").trimEnd().split("\n");
        const good = parse(lines.join("\n") + "\n", f, false);
        const bad = [...lines.slice(0, 5), "{not json", "[1, 2]", ...lines.slice(5)].join("\n") + "\n";
        assert.throws(() => parse(bad, f, false), (err: unknown) => err instanceof SessionFormatError && err.line === 6 && err.format === format && err.message.startsWith(`${f}:6: (${format}) not valid JSON`));
        const withShape = [...lines.slice(0, 5), "[1, 2]", ...lines.slice(5)].join("\n") + "\n";
        assert.throws(() => parse(withShape, f, false), (err: unknown) => err instanceof SessionFormatError && err.line === 6 && /expected/.test(err.detail));
        const lenient = parse(bad, f, true);
        assert.equal(lenient.skipped, 2);
        assert.deepEqual(lenient.events, good.events);
        assert.deepEqual(replayEvents(lenient.events).interventions.map((i) => i.detector), replayEvents(good.events).interventions.map((i) => i.detector));
      });

      it("through a folder walk: replay finds the session file under the agent's own folder layout", () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-hook-agents-"));
        try {
          const src = files[0];
          const nested = agent === "codex" ? path.join(dir, "sessions", "2026", "11", "26", path.basename(src)) : path.join(dir, "session-state", "5d6c0a47", "events.jsonl");
          fs.mkdirSync(path.dirname(nested), { recursive: true });
          fs.copyFileSync(src, nested);
          const sessions = readSessions([dir], { lenient: false });
          assert.deepEqual(sessions.map((s) => [s.file, s.format]), [[nested, format]]);
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      });
    });
  }

  it("Copilot CLI: what `copilot -p --output-format json` printed replays as its events.jsonl (less the usage, which it does not print)", () => {
    const dirs = fs.readdirSync(path.join(RECORDED, "copilot-cli"), { withFileTypes: true }).filter((d) => d.isDirectory());
    assert.ok(dirs.length >= 8);
    const shape = (events: TraceEvent[]) => events.map((e) => { const { ts: _ts, ...rest } = e; if (rest.t === "request") delete rest.usage; return rest; });
    for (const d of dirs) {
      const dir = path.join(RECORDED, "copilot-cli", d.name);
      const saved = parseCopilotCli(fs.readFileSync(path.join(dir, "events.jsonl"), "utf8"), "events.jsonl", false);
      const printed = parseCopilotCli(fs.readFileSync(path.join(dir, "copilot-output.jsonl"), "utf8"), "copilot-output.jsonl", false);
      assert.deepEqual(shape(printed.events), shape(saved.events), d.name);
    }
  });

  describe("Codex records the recordings do not hold", () => {
    const at = "2026-11-26T12:00:00.000Z";
    const item = (payload: Record<string, unknown>) => ({ timestamp: at, type: "response_item", payload });
    const user = (text: string) => item({ type: "message", role: "user", content: [{ type: "input_text", text }] });

    it("an argv shell call (older Codex `shell`) is the script it runs; update_plan is neither a command nor an edit", () => {
      const text = jsonl(
        { timestamp: at, type: "session_meta", payload: { id: "s" } },
        user("List the files"),
        item({ type: "function_call", name: "shell", arguments: JSON.stringify({ command: ["bash", "-lc", "ls -la"], workdir: "/w" }), call_id: "c1" }),
        item({ type: "function_call", name: "update_plan", arguments: JSON.stringify({ plan: [{ step: "List", status: "in_progress" }] }), call_id: "c2" }),
        item({ type: "function_call_output", call_id: "c1", output: JSON.stringify({ output: "a.txt\n", metadata: { exit_code: 0 } }) }),
        item({ type: "function_call_output", call_id: "c2", output: "Plan updated" }),
        item({ type: "function_call", name: "shell", arguments: JSON.stringify({ command: ["bash", "-lc", "make"] }), call_id: "c3" }),
        item({ type: "function_call_output", call_id: "c3", output: JSON.stringify({ output: "Error 2\n", metadata: { exit_code: 2 } }) }),
      );
      const s = parseCodex(text, "rollout.jsonl", false);
      const [shell, plan] = calls(s.events);
      assert.equal(knowledge.kindOfCall(shell.name, shell.input), "command");
      assert.equal(knowledge.commandOf(shell.input), "ls -la");
      assert.equal(knowledge.kindOfCall(plan.name, plan.input), "other");
      assert.deepEqual(results(s.events).map((r) => [r.ok, r.output ?? r.error]), [[true, "a.txt\n"], [true, "Plan updated"], [false, "Error 2\n"]]);
    });

    it("apply_patch as a free-text tool is an edit of the file its envelope names; a patch that does not apply failed", () => {
      const patch = "*** Begin Patch\n*** Update File: src/total.js\n@@\n-a\n+b\n*** End Patch";
      const text = jsonl(
        user("Fix it"),
        item({ type: "custom_tool_call", name: "apply_patch", input: patch, call_id: "p1" }),
        item({ type: "custom_tool_call_output", call_id: "p1", output: "apply_patch verification failed: Failed to find expected lines in src/total.js:\na" }),
      );
      const s = parseCodex(text, "rollout.jsonl", false);
      const [call] = calls(s.events);
      assert.equal(knowledge.kindOfCall(call.name, call.input), "edit");
      assert.equal(knowledge.pathOf(call.input), "src/total.js");
      assert.equal(results(s.events)[0].ok, false);
    });

    it("a command's outcome: a non-zero exit in Codex's header or its completion report fails; the header is not the output", () => {
      assert.deepEqual(codexOutput("Chunk ID: a1\nWall time: 2.2 seconds\nProcess exited with code 2\nOriginal token count: 4\nOutput:\nboom\n"), { output: "boom\n", exitCode: 2 });
      assert.deepEqual(codexOutput("Wall time: 0.0000 seconds\nOutput:\nExit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM a.js\n"), { output: "Success. Updated the following files:\nM a.js\n", exitCode: 0 });
      // An exit line inside the command's own output is the command's text, not its status.
      assert.deepEqual(codexOutput("log line\nProcess exited with code 1\n"), { output: "log line\nProcess exited with code 1\n", exitCode: undefined });
      const text = jsonl(
        user("Build"),
        item({ type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd: "make" }), call_id: "m1" }),
        { timestamp: at, type: "event_msg", payload: { type: "item_completed", item: { type: "CommandExecution", id: "m1", exit_code: 2, status: "completed" } } },
        item({ type: "function_call_output", call_id: "m1", output: "make: *** [all] Error 2" }),
        item({ type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd: "ls" }), call_id: "m2" }),
        item({ type: "function_call_output", call_id: "m2", output: "Command blocked by PreToolUse hook: looping. Command: ls" }),
      );
      assert.deepEqual(results(parseCodex(text, "rollout.jsonl", false).events).map((r) => r.ok), [false, false]);
    });

    it("an output counts once, and only for a call the file holds", () => {
      const text = jsonl(
        user("List"),
        item({ type: "function_call_output", call_id: "earlier", output: "from before the file began" }),
        item({ type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd: "ls" }), call_id: "l1" }),
        item({ type: "function_call_output", call_id: "l1", output: "a.txt\n" }),
        item({ type: "function_call_output", call_id: "l1", output: "a.txt\n" }),
      );
      const s = parseCodex(text, "rollout.jsonl", false);
      assert.deepEqual(results(s.events).map((r) => r.id), ["l1"]);
      assert.equal(s.ignored?.["output of a call not in the file (answered already, or before the file began)"], 2);
    });

    it("context the CLI sends as a user message is not the user speaking; a developer message is instructions", () => {
      const text = jsonl(
        item({ type: "message", role: "developer", content: [{ type: "input_text", text: "<permissions instructions>...</permissions instructions>" }] }),
        user("<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"),
        user("# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nBe brief.\n</INSTRUCTIONS>"),
        user("Why does <b>bold</b> not render?"),
      );
      const s = parseCodex(text, "rollout.jsonl", false);
      assert.deepEqual(s.events.map((e) => e.t === "user" ? e.text : e.t), ["Why does <b>bold</b> not render?"]);
      assert.equal(s.ignored?.["context the CLI sends (environment, instructions), not a user message"], 2);
    });

    it("a response ends at its usage record, which gives its tokens", () => {
      const text = jsonl(
        user("Hi"),
        item({ type: "reasoning", summary: [], content: [{ type: "reasoning_text", text: "raw thought" }], encrypted_content: "x" }),
        item({ type: "message", role: "assistant", content: [{ type: "output_text", text: "Hello." }] }),
        { timestamp: at, type: "token_usage_record", payload: { usage: { input_tokens: 100, output_tokens: 7 } } },
      );
      const s = parseCodex(text, "rollout.jsonl", false);
      assert.deepEqual(s.events.map((e) => e.t), ["user", "request", "reasoning", "text", "end"]);
      assert.deepEqual((s.events[4] as { usage?: unknown }).usage, { tokensIn: 100, tokensOut: 7 });
      assert.equal((s.events[2] as { delta: string }).delta, "raw thought");
    });
  });

  describe("Copilot CLI records the recordings do not hold", () => {
    const at = "2026-11-26T12:00:00.000Z";
    const ev = (type: string, data: Record<string, unknown>) => ({ type, data, id: type, timestamp: at, parentId: null });

    it("a failed tool, a failing command and a refused call fail; the bash tool's shell note is not output", () => {
      const text = jsonl(
        ev("user.message", { content: "Check" }),
        ev("assistant.message", { content: "", toolRequests: [
          { toolCallId: "t1", name: "bash", arguments: { command: "npm test", description: "test" } },
          { toolCallId: "t2", name: "view", arguments: { path: "/w/missing.js" } },
          { toolCallId: "t3", name: "bash", arguments: { command: "ls", description: "list" } },
        ] }),
        ev("tool.execution_complete", { toolCallId: "t1", success: true, shellExecution: { exitCode: 1 }, result: { content: "1 failing\n<shellId: 4 completed with exit code 1>" } }),
        ev("tool.execution_complete", { toolCallId: "t2", success: false, error: { message: "Path does not exist" } }),
        ev("tool.execution_complete", { toolCallId: "t3", success: false, error: { message: "Denied by preToolUse hook: looping" } }),
      );
      const s = parseCopilotCli(text, "events.jsonl", false);
      assert.deepEqual(results(s.events).map((r) => [r.ok, r.error]), [[false, "1 failing"], [false, "Path does not exist"], [false, "Denied by preToolUse hook: looping"]]);
    });

    it("a sub-agent's events (with an agentId) are not the main agent's steps", () => {
      const text = jsonl(
        ev("user.message", { content: "Review" }),
        { ...ev("assistant.message", { content: "", toolRequests: [{ toolCallId: "s1", name: "bash", arguments: { command: "ls" } }] }), agentId: "sub-1" },
        { ...ev("tool.execution_complete", { toolCallId: "s1", success: true, result: { content: "a" } }), agentId: "sub-1" },
        ev("assistant.message", { content: "Reviewed.", toolRequests: [] }),
      );
      const s = parseCopilotCli(text, "events.jsonl", false);
      assert.deepEqual(s.events.map((e) => e.t), ["user", "request", "text", "end"]);
      assert.equal(s.ignored?.["sub-agent event"], 2);
    });

    it("a tool start whose request the file does not hold still makes its call", () => {
      const text = jsonl(
        ev("tool.execution_start", { toolCallId: "x1", toolName: "grep", arguments: { pattern: "TODO", paths: "src" } }),
        ev("tool.execution_complete", { toolCallId: "x1", success: true, result: { content: "src/a.ts" } }),
      );
      const s = parseCopilotCli(text, "events.jsonl", false);
      assert.deepEqual(s.events.map((e) => e.t), ["request", "tool_call", "end", "tool_result"]);
      const [call] = calls(s.events);
      assert.equal(knowledge.kindOfCall(call.name, call.input), "search");
      assert.equal(knowledge.searchScopeOf(call.input), "src");
    });

    it("Copilot's file tools map to the engine's kinds and paths", () => {
      assert.equal(knowledge.kindOf("view"), "read");
      assert.equal(knowledge.kindOf("create"), "write");
      assert.equal(knowledge.kindOf("edit"), "edit");
      assert.equal(knowledge.kindOf("glob"), "search");
      assert.equal(knowledge.kindOf("bash"), "command");
      assert.equal(knowledge.pathOf({ path: "/w/src/a.ts", old_str: "a", new_str: "b" }), "/w/src/a.ts");
      assert.equal(knowledge.kindOf("exec_command"), "command");
      assert.equal(knowledge.commandOf({ cmd: "rg -n total src" }), "rg -n total src");
    });
  });
});
