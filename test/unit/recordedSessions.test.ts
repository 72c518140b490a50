/**
 * The readers on session files written by the real agents (recorded by `npm run fixtures:record`
 * against the scripted model in test/recording), and the one rule every reader follows:
 * a user event only when a person or the harness sent a message; a tool result never resets counts
 * and is counted once; failures are failures whatever the tool's status says; interrupted turns
 * end the request; unknown records are counted, never a crash.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { main } from "../../src/cli/main";
import type { CliIO } from "../../src/cli/io";
import type { ToolCallEvent, ToolResultEvent, TraceEvent } from "../../src/engine/events";
import { replayEvents } from "../../src/engine/replay";
import { readSessions } from "../../src/formats";
import { parseClaudeCode } from "../../src/formats/claudeCode";
import { geminiShellFailed, parseGeminiCli } from "../../src/formats/geminiCli";
import { parseOpencode } from "../../src/formats/opencode";
import { parsePi } from "../../src/formats/pi";
import { SessionFormatError, type RecordedSession } from "../../src/formats/reader";
import { PROMPTS, SCENARIOS, type ScenarioName } from "../recording/scenarios";

const RECORDED = path.resolve(__dirname, "../../../test/fixtures/recorded");
const AGENT_FORMATS: Record<string, string> = { "gemini-cli": "gemini-cli", "claude-code": "claude-code", pi: "pi", opencode: "opencode", codex: "codex", "copilot-cli": "copilot-cli" };

const calls = (events: TraceEvent[]) => events.filter((e): e is ToolCallEvent => e.t === "tool_call");
const results = (events: TraceEvent[]) => events.filter((e): e is ToolResultEvent => e.t === "tool_result");
const users = (events: TraceEvent[]) => events.filter((e): e is Extract<TraceEvent, { t: "user" }> => e.t === "user");
// Codex's one shell tool takes `cmd`, and it reads with sed and edits with apply_patch through it.
const commandOf = (c: ToolCallEvent) => String(c.input.command ?? c.input.cmd ?? "");
const isRead = (c: ToolCallEvent) => /^(read_file|Read|read|view)$/.test(c.name) || /^sed -n /.test(commandOf(c));
const isEdit = (c: ToolCallEvent) => /^(replace|Edit|edit)$/.test(c.name) || /^apply_patch\b/.test(commandOf(c));

function sessionFiles(agent: string, scenario: string): string[] {
  const dir = path.join(RECORDED, agent, scenario);
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /\.jsonl?$/.test(f)).map((f) => path.join(dir, f)) : [];
}

function readOne(file: string): RecordedSession {
  const sessions = readSessions([file], { lenient: false });
  assert.equal(sessions.length, 1, file);
  return sessions[0];
}

function capture(): CliIO & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (t) => stdout.push(t), err: (t) => stderr.push(t) };
}

describe("sessions recorded from the real agents", () => {
  for (const agent of Object.keys(AGENT_FORMATS)) {
    describe(agent, () => {
      it("has a recording of every scenario, with the version it was recorded from", () => {
        const meta = JSON.parse(fs.readFileSync(path.join(RECORDED, agent, "RECORDED.json"), "utf8"));
        assert.match(meta.version, /^\d+\.\d+\.\d+/);
        for (const scenario of SCENARIOS) assert.ok(sessionFiles(agent, scenario).length > 0, `${agent}/${scenario}: no session file`);
      });

      // Variants are a scenario run with the agent's settings changed (e.g. its own loop guard on).
      const meta = JSON.parse(fs.readFileSync(path.join(RECORDED, agent, "RECORDED.json"), "utf8")) as { variants?: string[]; scenarios: ScenarioName[] };
      const runs: [string, ScenarioName][] = [
        ...meta.scenarios.map((s): [string, ScenarioName] => [s, s]),
        ...(meta.variants ?? []).map((v): [string, ScenarioName] => [v, SCENARIOS.find((s) => v.startsWith(s)) as ScenarioName]),
      ];
      for (const [run, scenario] of runs) {
        for (const file of sessionFiles(agent, run)) {
          const label = `${run}/${path.basename(file)}`;
          const loop = scenario.endsWith("-loop");

          it(`${label}: one user event (the prompt), every call answered once, results after their calls`, () => {
            const s = readOne(file);
            assert.equal(s.format, AGENT_FORMATS[agent]);
            // `opencode run` sends its argument wrapped in quotes: that is the message as the model got it.
            assert.deepEqual(users(s.events).map((u) => u.text.trim().replace(/^"(.*)"$/s, "$1")), [PROMPTS[scenario]]);
            const cs = calls(s.events);
            const rs = results(s.events);
            assert.ok(cs.length > 0);
            assert.deepEqual(rs.map((r) => r.id).sort(), cs.map((c) => c.id).sort());
            s.events.forEach((e, i) => {
              if (e.t !== "tool_result") return;
              const at = s.events.findIndex((c) => c.t === "tool_call" && c.id === e.id);
              assert.ok(at >= 0 && at < i, `result ${e.id} before its call`);
            });
          });

          it(`${label}: ${loop ? "the loop is caught by its 3rd or 4th repeat" : "stays silent"}`, () => {
            const s = readOne(file);
            const { interventions } = replayEvents(s.events);
            if (!loop) { assert.deepEqual(interventions.map((iv) => `${iv.detector}/${iv.action}@${iv.event}`), []); return; }
            assert.ok(interventions.length > 0, "loop missed");
            const first = interventions[0].event;
            const repeated = scenario === "build-loop" ? (c: ToolCallEvent) => commandOf(c) === "npm run build"
              : scenario === "listing-loop" ? (c: ToolCallEvent) => commandOf(c) === "ls src"
              : scenario === "edit-loop" ? isEdit : isRead;
            const before = calls(s.events.slice(0, first + 1)).filter(repeated).length;
            assert.ok(before >= 3 && before <= 4, `first intervention (${interventions[0].detector}) after ${before} repeats`);
          });

          if (scenario === "build-loop") {
            it(`${label}: ${run === scenario ? "seven builds" : "the builds the agent let through"}, each a failure whatever the tool's status said, caught by tool-failure`, () => {
              const s = readOne(file);
              const builds = calls(s.events).filter((c) => commandOf(c) === "npm run build");
              // With its own guard on, Gemini CLI stops the turn before the 5th identical call runs.
              if (run === scenario) assert.equal(builds.length, 7); else assert.ok(builds.length >= 3 && builds.length < 7, `${builds.length} builds`);
              for (const b of builds) {
                const r = results(s.events).find((x) => x.id === b.id);
                assert.equal(r?.ok, false, `build ${b.id} not read as a failure`);
              }
              const { interventions } = replayEvents(s.events);
              assert.equal(interventions[0].detector, "tool-failure");
              assert.equal(interventions[0].action, "warn");
            });
          }

          if (scenario === "edit-loop") {
            it(`${label}: six edits whose search text is not in the file, each a failure`, () => {
              const s = readOne(file);
              const edits = calls(s.events).filter(isEdit);
              assert.equal(edits.length, 6);
              for (const e of edits) assert.equal(results(s.events).find((r) => r.id === e.id)?.ok, false, `edit ${e.id} not read as a failure`);
            });
          }

          if (scenario === "productive-parallel") {
            it(`${label}: a search and two reads in one response, then the build and the tests in one, all answered`, () => {
              const s = readOne(file);
              const batches: string[][] = [];
              for (const e of s.events) {
                if (e.t === "request") batches.push([]);
                else if (e.t === "tool_call") batches[batches.length - 1].push(commandOf(e) || e.name);
              }
              assert.deepEqual(batches.filter((b) => b.length > 0).map((b) => b.length), [3, 1, 2]);
              assert.ok(results(s.events).every((r) => r.ok), "every call of the productive run succeeded");
            });
          }

          if (scenario === "productive") {
            it(`${label}: the failing build fails, the rebuild after the fix passes`, () => {
              const s = readOne(file);
              const outcomes = calls(s.events).filter((c) => /^npm (run build|test)$/.test(commandOf(c)))
                .map((c) => `${commandOf(c)}:${results(s.events).find((r) => r.id === c.id)?.ok}`);
              assert.deepEqual(outcomes, ["npm run build:false", "npm run build:true", "npm test:true"]);
            });
          }
        }
      }
    });
  }

  it("replay --explain says per file the format, the events by kind and what was set aside", async () => {
    const io = capture();
    const file = sessionFiles("gemini-cli", "build-loop")[0];
    assert.equal(await main(["replay", "--explain", file], io), 0, io.stderr.join("\n"));
    const out = io.stdout.join("\n");
    assert.match(out, /read as: gemini-cli \(Gemini CLI/);
    assert.match(out, /events: user 1, request 8, reasoning 7, text 8, tool_call 7, tool_result 7, end 8/);
    assert.match(out, /7 × tool result recorded twice \(counted once\)/);
    assert.match(out, /1 × context injected by the CLI, not a user message/);
    const json = capture();
    assert.equal(await main(["replay", "--explain", "--json", file], json), 0);
    const line = JSON.parse(json.stdout.join("\n").trim());
    assert.equal(line.eventsByKind.tool_result, 7);
    assert.equal(line.ignored["tool result recorded twice (counted once)"], 7);
  });
});

/** A recorded file's text with one more line (JSONL) appended. */
const withLine = (file: string, record: unknown) => fs.readFileSync(file, "utf8") + JSON.stringify(record) + "\n";
const first = (agent: string, scenario: ScenarioName, ext = /\.jsonl$/) => sessionFiles(agent, scenario).find((f) => ext.test(f) && !/pi-mode-json/.test(f)) as string;

describe("one rule for every reader", () => {
  describe("unknown records are counted, never a crash", () => {
    it("Gemini CLI, Claude Code, pi: an unknown record type is set aside and named", () => {
      const g = first("gemini-cli", "productive");
      const gs = parseGeminiCli(withLine(g, { id: "x1", type: "hologram", content: "?" }), g, false);
      assert.equal(gs.ignored?.['unknown message type "hologram"'], 1);
      const gs2 = parseGeminiCli(withLine(g, { $future: true }), g, false);
      assert.equal(gs2.ignored?.["unknown record (no id, $set, $rewindTo or session metadata)"], 1);
      const c = first("claude-code", "productive");
      const cs = parseClaudeCode(withLine(c, { type: "hologram", sessionId: "s" }), c, false);
      assert.equal(cs?.ignored?.['unknown line type "hologram"'], 1);
      const p = first("pi", "productive");
      const leaf = fs.readFileSync(p, "utf8").trim().split("\n").map((l) => JSON.parse(l)).pop();
      const ps = parsePi(withLine(p, { type: "hologram", id: "zz", parentId: leaf.id }), p, false);
      assert.equal(ps.ignored?.['unknown entry type "hologram"'], 1);
      assert.equal(ps.events.length, parsePi(fs.readFileSync(p, "utf8"), p, false).events.length);
    });

    it("opencode: an unknown part type and an unknown role are set aside and named", () => {
      const f = first("opencode", "productive", /\.json$/);
      const doc = JSON.parse(fs.readFileSync(f, "utf8"));
      doc.messages[1].parts.push({ id: "prt_x", type: "hologram" });
      doc.messages.push({ info: { id: "msg_x", role: "narrator" }, parts: [] });
      const s = parseOpencode(JSON.stringify(doc), f, false);
      assert.equal(s.ignored?.['unknown part type "hologram"'], 1);
      assert.equal(s.ignored?.['unknown message role "narrator"'], 1);
      assert.equal(s.events.length, parseOpencode(fs.readFileSync(f, "utf8"), f, false).events.length);
    });

    it("a file its reader claims but cannot replay at all is a clear error naming the guess", () => {
      const dir = fs.mkdtempSync(path.join(require("node:os").tmpdir(), "ls-guess-"));
      try {
        const file = path.join(dir, "session.jsonl");
        fs.writeFileSync(file, [{ type: "session", version: 3, id: "s", cwd: "/w" }, { type: "hologram", id: "a" }, { type: "hologram", id: "b", parentId: "a" }].map((r) => JSON.stringify(r)).join("\n") + "\n");
        assert.throws(() => readSessions([file], { lenient: false }), (err: unknown) =>
          err instanceof SessionFormatError && err.format === "pi" && /detected as pi session .* none of its records .*unknown entry type "hologram".*another format\?/.test(err.message));
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe("tool results are not the user speaking, and count once", () => {
    it("Gemini CLI: a functionResponse record is the result of its call, also when the model record has none", () => {
      const f = first("gemini-cli", "build-loop");
      // Strip the results the model records carry: the user records alone must still give them.
      const text = fs.readFileSync(f, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => {
        const v = JSON.parse(l);
        if (v.type === "gemini" && Array.isArray(v.toolCalls)) for (const c of v.toolCalls) delete c.result;
        return JSON.stringify(v);
      }).join("\n") + "\n";
      const s = parseGeminiCli(text, f, false);
      assert.equal(users(s.events).length, 1);
      assert.equal(results(s.events).length, 7);
      assert.ok(results(s.events).every((r) => !r.ok), "Exit Code: 2 read as a failure from the user record too");
      assert.equal(replayEvents(s.events).interventions[0]?.detector, "tool-failure");
    });

    it("Gemini CLI: $rewindTo drops the message and all after it; $set messages replaces them all", () => {
      const f = first("gemini-cli", "build-loop");
      const lines = fs.readFileSync(f, "utf8").trim().split("\n").map((l) => JSON.parse(l));
      // Model records are rewritten in place as their calls finish: the third distinct id is the third response.
      const third = [...new Set(lines.filter((v) => v.type === "gemini").map((v) => v.id as string))][2];
      const rewound = parseGeminiCli(withLine(f, { $rewindTo: third }), f, false);
      assert.equal(calls(rewound.events).length, 2);
      const prompt = lines.find((v) => v.type === "user" && Array.isArray(v.content) && v.content[0]?.text === PROMPTS["build-loop"]);
      const replaced = parseGeminiCli(withLine(f, { $set: { messages: [prompt] } }), f, false);
      assert.deepEqual(replaced.events.map((e) => e.t), ["user"]);
    });

    it("Gemini CLI: a shell result fails on a non-zero exit code or a signal, not on exit codes quoted in output", () => {
      assert.equal(geminiShellFailed("<untrusted_context>\nOutput: boom\nExit Code: 2\nProcess Group PGID: 1\n</untrusted_context>"), true);
      assert.equal(geminiShellFailed("Output: fine\nProcess Group PGID: 7"), false);
      assert.equal(geminiShellFailed("Command: make\nDirectory: (root)\nOutput: ok\nError: (none)\nExit Code: 0\nSignal: (none)"), false);
      assert.equal(geminiShellFailed("Command: make\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: (none)\nSignal: 15"), true);
      assert.equal(geminiShellFailed("Command was cancelled by user before it could complete. There was no output before it was cancelled."), true);
      assert.equal(geminiShellFailed("The log says:\nExit Code: 2\n"), false);
    });
  });

  describe("interrupted turns end the request and are not user messages", () => {
    it("Claude Code: the interruption marker is not a user event", () => {
      const f = first("claude-code", "productive");
      const s = parseClaudeCode(withLine(f, { type: "user", sessionId: "s", isSidechain: false, message: { role: "user", content: [{ type: "text", text: "[Request interrupted by user]" }] } }), f, false);
      assert.equal(users(s!.events).length, 1);
      assert.equal(s!.ignored?.["interruption marker (ends the request)"], 1);
    });

    it("Claude Code: a prompt typed while the agent works (queued_command attachment) is a user event; a meta one is not", () => {
      const f = first("claude-code", "productive");
      const queued = (prompt: string, isMeta?: boolean) => ({ type: "attachment", sessionId: "s", isSidechain: false, timestamp: "2026-11-24T16:00:00.000Z", attachment: { type: "queued_command", prompt, origin: { kind: "unclassified" }, ...(isMeta ? { isMeta } : {}) } });
      const s = parseClaudeCode(withLine(f, queued("Also update the README.")) + JSON.stringify(queued("forwarded note", true)) + "\n", f, false);
      assert.deepEqual(users(s!.events).map((u) => u.text).slice(1), ["Also update the README."]);
    });

    it("Gemini CLI: a cancelled call is a failure, and the CLI's note ends the request", () => {
      const f = first("gemini-cli", "productive");
      const call = { id: "g-x", type: "gemini", timestamp: "2026-11-24T16:00:00.000Z", content: "Building.", model: "gemini-2.5-pro", toolCalls: [{ id: "c-x", name: "run_shell_command", args: { command: "npm run build" }, status: "cancelled" }] };
      const note = { id: "i-x", type: "info", timestamp: "2026-11-24T16:00:01.000Z", content: "Request cancelled." };
      const s = parseGeminiCli(withLine(f, call) + JSON.stringify(note) + "\n", f, false);
      assert.equal(results(s.events).find((r) => r.id === "c-x")?.ok, false);
      assert.equal(s.ignored?.['CLI note ("info" record)'], 1);
      assert.equal(s.events[s.events.length - 1].t, "tool_result");
      assert.equal(users(s.events).length, 1);
    });

    it("pi: an aborted response ends its request; the user's own shell command is not the agent's", () => {
      const f = first("pi", "productive");
      const lines = fs.readFileSync(f, "utf8").trim().split("\n").map((l) => JSON.parse(l));
      const last = lines[lines.length - 1];
      const aborted = { type: "message", id: "ab1", parentId: last.id, timestamp: last.timestamp, message: { role: "assistant", content: [{ type: "text", text: "Let me" }], stopReason: "aborted", timestamp: 1 } };
      const bash = { type: "message", id: "ab2", parentId: "ab1", timestamp: last.timestamp, message: { role: "bashExecution", command: "ls", output: "x", exitCode: 0, timestamp: 2 } };
      const s = parsePi(withLine(f, aborted) + JSON.stringify(bash) + "\n", f, false);
      assert.deepEqual(s.events.slice(-3).map((e) => e.t), ["request", "text", "end"]);
      assert.equal(users(s.events).length, 1);
      assert.equal(s.ignored?.['response ended by stopReason "aborted"'], 1);
      assert.equal(s.ignored?.["the user's own shell command (bashExecution), not the agent's"], 1);
    });

    it("opencode: an aborted message ends its request; a call still running at export has no result", () => {
      const f = first("opencode", "build-loop", /\.json$/);
      const doc = JSON.parse(fs.readFileSync(f, "utf8"));
      const m = doc.messages[doc.messages.length - 2];
      m.info.error = { name: "MessageAbortedError", data: { message: "aborted" } };
      const tool = m.parts.find((p: { type: string }) => p.type === "tool");
      tool.state = { status: "running", input: tool.state.input, time: { start: tool.state.time.start } };
      const s = parseOpencode(JSON.stringify(doc), f, false);
      assert.equal(s.ignored?.["response ended by MessageAbortedError"], 1);
      assert.equal(s.ignored?.["tool call still running at export (no result)"], 1);
      assert.equal(results(s.events).some((r) => r.id === tool.callID), false);
      assert.equal(s.events[s.events.length - 1].t, "end");
    });

    it("opencode: a completed bash call with a non-zero exit is a failure", () => {
      const f = first("opencode", "build-loop", /\.json$/);
      const s = parseOpencode(fs.readFileSync(f, "utf8"), f, false);
      assert.ok(results(s.events).length === 7 && results(s.events).every((r) => !r.ok));
    });
  });
});
