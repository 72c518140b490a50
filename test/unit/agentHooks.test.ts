import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { defaultConfig, resolveConfig } from "../../src/engine/config";
import { LoopSession } from "../../src/engine/session";
import { agentOutput, parseAgentCall, type AgentCall, type AgentName } from "../../src/hosts/hookAgents/dialect";
import { decideAgentCall, newSessionState, type AgentSessionState } from "../../src/hosts/hookAgents/guard";
import type { TraceEvent } from "../../src/engine/events";
import { boundedLog, decideHeadless, logFileFor, MAX_LOG_EVENTS, sessionsDir } from "../../src/hosts/hookAgents/headlessState";
import { fromChannelQuery, toChannelQuery } from "../../src/hosts/hookAgents/channelQuery";
import { parseHookArgs, runAgentHook } from "../../src/hosts/hookAgents/hookMain";
import { AgentHookService } from "../../src/hosts/hookAgents/service";
import { permissionFromState, stateFileFor } from "../../src/hosts/hookAgents/sessionFiles";
import { agentHookStatus, installAgentHook, uninstallAgentHook, uninstallAllAgentHooks, hookFileFor } from "../../src/hosts/hookAgents/install";
import { parseClaudeCode } from "../../src/formats/claudeCode";

const REPO = path.resolve(__dirname, "../../..");
const SAMPLES = path.join(REPO, "test/fixtures/hook-agents");
const sample = (name: string) => fs.readFileSync(path.join(SAMPLES, name), "utf8");
const tempDir = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

describe("agent hooks: each CLI's hook input, as captured from the real programs", () => {
  it("reads Claude Code's PreToolUse and PostToolUse", () => {
    const pre = parseAgentCall("claude", undefined, sample("claude-PreToolUse.stdin.json"))!;
    assert.equal(pre.point, "pre");
    assert.equal(pre.toolName, "Bash");
    assert.equal(pre.toolCallId, "toolu_fake_3");
    assert.deepEqual(pre.input, { command: "ls", description: "List files" });
    assert.match(pre.transcriptPath!, /\.jsonl$/);
    const post = parseAgentCall("claude", undefined, sample("claude-PostToolUse.stdin.json"))!;
    assert.equal(post.point, "post");
    assert.deepEqual(post.result, { ok: true, text: "a.txt" });
  });

  it("reads Copilot's camelCase inputs (point from the command line) and strips its shell's run-numbering trailer", () => {
    const pre = parseAgentCall("copilot", "pre", sample("copilot-preToolUse.stdin.json"))!;
    assert.equal(pre.point, "pre");
    assert.equal(pre.claudeShaped, false);
    assert.equal(pre.toolCallId, undefined);
    const post = parseAgentCall("copilot", "post", sample("copilot-postToolUse.stdin.json"))!;
    assert.deepEqual(post.result, { ok: true, text: "a.txt" });
    const failed = parseAgentCall("copilot", "post", JSON.stringify({ sessionId: "s", toolName: "bash", toolArgs: { command: "false" }, toolResult: { resultType: "success", textResultForLlm: "oops\n<shellId: 3 completed with exit code 1>" } }))!;
    assert.deepEqual(failed.result, { ok: false, text: "oops" });
    const perm = parseAgentCall("copilot", "permission", sample("copilot-permissionRequest.stdin.json"))!;
    assert.equal(perm.point, "permission");
    assert.deepEqual(perm.input, { command: "ls" });
    const pascal = parseAgentCall("copilot", undefined, sample("copilot-PreToolUse-pascalcase.stdin.json"))!;
    assert.equal(pascal.claudeShaped, true);
    assert.equal(pascal.point, "pre");
  });

  it("reads Codex's input: its turn, its transcript, a string tool response", () => {
    const pre = parseAgentCall("codex", undefined, sample("codex-PreToolUse.stdin.json"))!;
    assert.equal(pre.turnId, "01a21781-8cd8-74d2-8415-082b95339206");
    assert.equal(pre.toolName, "Bash");
    const post = parseAgentCall("codex", undefined, sample("codex-PostToolUse.stdin.json"))!;
    assert.deepEqual(post.result, { ok: true, text: "a.txt\n" });
  });

  it("lets through anything that is not a tool call it can name", () => {
    for (const text of ["", "not json", "[]", "{}", JSON.stringify({ session_id: "s", hook_event_name: "PreToolUse" })]) {
      assert.equal(parseAgentCall("claude", undefined, text), undefined, text);
    }
  });

  it("answers in each agent's words", () => {
    const call = (agent: AgentName, point: AgentCall["point"], claudeShaped = agent !== "copilot"): AgentCall => ({ agent, point, sessionId: "s", toolName: "Bash", input: {}, claudeShaped });
    assert.equal(agentOutput(call("claude", "pre"), { action: "allow" }), undefined);
    assert.equal(agentOutput(call("claude", "pre"), { action: "warn", message: "m" }), undefined, "context waits for the result");
    assert.deepEqual(agentOutput(call("claude", "pre"), { action: "block", message: "m" }), { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "Loop Sentinel: m" } });
    const stop = agentOutput(call("claude", "pre"), { action: "stop", message: "m" })!;
    assert.equal(stop.continue, false, "Claude: the run ends");
    assert.equal((stop.hookSpecificOutput as Record<string, unknown>).permissionDecision, "deny", "and the call does not run");
    assert.deepEqual(agentOutput(call("copilot", "pre"), { action: "block", message: "m" }), { permissionDecision: "deny", permissionDecisionReason: "Loop Sentinel: m" });
    assert.deepEqual(agentOutput(call("copilot", "post"), { action: "warn", message: "m" }), { additionalContext: "Loop Sentinel: m" });
    assert.deepEqual(agentOutput(call("copilot", "permission"), { action: "stop", message: "m" }), { behavior: "deny", message: "Loop Sentinel: m", interrupt: true });
    assert.deepEqual(agentOutput(call("codex", "post"), { action: "warn", message: "m" }), { hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "Loop Sentinel: m" } });
    assert.equal(agentOutput(call("codex", "pre"), { action: "stop", message: "m" })!.continue, undefined, "Codex ignores continue:false: a refusal only");
  });

  it("carries a call over the channel and back unchanged", () => {
    const call = parseAgentCall("claude", undefined, sample("claude-PostToolUse.stdin.json"))!;
    assert.deepEqual(fromChannelQuery(JSON.parse(JSON.stringify(toChannelQuery(call)))), call);
    assert.equal(fromChannelQuery({ engine: "sdk", taskId: "conv_1", toolName: "x", input: {} }), undefined, "a Cline query is not an agent's");
  });
});

/** One agent's identical loop through the guard with a live engine session; the verdict of every hook call. */
function identicalLoop(agent: AgentName, calls: number, config = defaultConfig()): { verdicts: string[]; state: AgentSessionState } {
  const session = new LoopSession(config);
  const state = newSessionState(agent, "s1");
  const verdicts: string[] = [];
  const feed = (e: Parameters<LoopSession["push"]>[0]) => session.push(e);
  let now = 1_000_000;
  for (let i = 1; i <= calls; i++) {
    const base = { agent, sessionId: "s1", toolName: agent === "copilot" ? "bash" : "Bash", input: { command: "ls" }, claudeShaped: agent !== "copilot" };
    const id = agent === "copilot" ? undefined : `call_${i}`;
    const pre = decideAgentCall({ ...base, point: "pre", toolCallId: id, turnId: agent === "codex" ? "t1" : undefined }, state, feed, now += 1000);
    let line = `${i}:pre=${pre.action}`;
    if (agent === "copilot") line += `,perm=${decideAgentCall({ ...base, point: "permission" }, state, feed, now).action}`;
    if (pre.action === "allow" || pre.action === "warn") {
      const post = decideAgentCall({ ...base, point: "post", toolCallId: id, result: { ok: true, text: "a.txt" } }, state, feed, now += 100);
      line += `,post=${post.action}`;
    }
    verdicts.push(line);
  }
  return { verdicts, state };
}

describe("agent hooks: the ladder on an identical-call loop", () => {
  it("Claude: guidance after the 3rd result, the 5th and 6th refused, the 7th refused and the run ended", () => {
    const { verdicts } = identicalLoop("claude", 7);
    assert.deepEqual(verdicts, [
      "1:pre=allow,post=allow", "2:pre=allow,post=allow", "3:pre=allow,post=warn", "4:pre=allow,post=allow",
      "5:pre=block", "6:pre=block", "7:pre=stop",
    ]);
  });

  it("Copilot: the stop lets the call reach permissionRequest, which interrupts the run", () => {
    const { verdicts } = identicalLoop("copilot", 7);
    assert.deepEqual(verdicts.slice(4), ["5:pre=block,perm=allow", "6:pre=block,perm=allow", "7:pre=allow,perm=stop,post=allow"]);
  });

  it("Copilot: a call after the interrupt is the user resuming the session: counts start afresh", () => {
    const { state } = identicalLoop("copilot", 7);
    const session = new LoopSession();
    const v = decideAgentCall({ agent: "copilot", point: "pre", sessionId: "s1", toolName: "bash", input: { command: "ls" }, claudeShaped: false }, state, (e) => session.push(e));
    assert.equal(v.action, "allow");
    assert.equal(state.stop, undefined);
  });

  it("Codex: after the stop every further call of the turn is refused, saying so; a new turn starts afresh", () => {
    const { verdicts, state } = identicalLoop("codex", 9);
    assert.deepEqual(verdicts.slice(6), ["7:pre=stop", "8:pre=stop", "9:pre=stop"]);
    assert.match(state.stop!.message, /every further tool call of this turn is refused/);
    const session = new LoopSession();
    const fresh = decideAgentCall({ agent: "codex", point: "pre", sessionId: "s1", turnId: "t2", toolCallId: "c10", toolName: "Bash", input: { command: "ls" }, claudeShaped: true }, state, (e) => session.push(e));
    assert.equal(fresh.action, "allow");
  });

  it("warn-only: guidance only, never a refusal or a stop", () => {
    const { verdicts } = identicalLoop("claude", 9, resolveConfig({ mode: "warnOnly" }).config);
    assert.ok(verdicts.every((v) => !/block|stop/.test(v)), verdicts.join(" "));
    assert.ok(verdicts.some((v) => v.includes("post=warn")));
  });
});

function transcriptLine(o: Record<string, unknown>): string { return JSON.stringify({ sessionId: "s1", timestamp: "2026-11-26T10:00:00.000Z", ...o }) + "\n"; }

describe("agent hooks: Claude's transcript read as it grows", () => {
  const loopThought = "Wait, maybe I should double-check whether the file really exists before I answer. Let me think about it again from the start, because I want to be completely sure. ".repeat(30);

  it("a reasoning loop in the transcript refuses the next call, and the call the transcript already showed is not counted twice", () => {
    const dir = tempDir("lsa-");
    const file = path.join(dir, "t.jsonl");
    fs.writeFileSync(file, transcriptLine({ type: "user", message: { role: "user", content: "Fix the test." } }));
    fs.appendFileSync(file, transcriptLine({ type: "assistant", message: { id: "m1", role: "assistant", model: "x", content: [{ type: "thinking", thinking: loopThought }] } }));
    fs.appendFileSync(file, transcriptLine({ type: "assistant", message: { id: "m1", role: "assistant", model: "x", content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }] } }));
    // A line still being written is not read yet.
    fs.appendFileSync(file, '{"type":"user","message":');
    const session = new LoopSession();
    const fed: string[] = [];
    const state = newSessionState("claude", "s1");
    const v = decideAgentCall({ agent: "claude", point: "pre", sessionId: "s1", toolCallId: "toolu_1", toolName: "Bash", input: { command: "ls" }, transcriptPath: file, claudeShaped: true }, state, (e) => { fed.push(e.t); return session.push(e); });
    assert.equal(v.action, "block");
    assert.match(v.message!, /thinking|repeat/i);
    assert.deepEqual(fed, ["user", "request", "reasoning", "tool_call"], "the hook's copy of toolu_1 was not fed again");
    assert.equal(state.transcript!.offset, fs.statSync(file).size - '{"type":"user","message":'.length);
  });

  it("the formats reader reads the same lines into the same events it did before the translation moved", () => {
    const text = [
      transcriptLine({ type: "user", message: { role: "user", content: "Hi" } }),
      transcriptLine({ type: "assistant", message: { id: "m1", role: "assistant", model: "x", content: [{ type: "thinking", thinking: "hmm" }], usage: { input_tokens: 3, output_tokens: 1 } } }),
      transcriptLine({ type: "assistant", message: { id: "m1", role: "assistant", model: "x", content: [{ type: "tool_use", id: "t1", name: "Read", input: { file_path: "a" } }], usage: { input_tokens: 3, output_tokens: 9 } } }),
      transcriptLine({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "x" }] } }),
    ].join("");
    const s = parseClaudeCode(text, "t.jsonl", false)!;
    assert.deepEqual(s.events.map((e) => e.t), ["user", "request", "reasoning", "tool_call", "end", "tool_result"]);
    assert.deepEqual((s.events[1] as { usage?: unknown }).usage, { tokensIn: 3, tokensOut: 9 }, "a later line of the message updates its usage");
  });
});

const RECORDED = path.join(REPO, "test/fixtures/recorded");
const recordedLines = (rel: string) => fs.readFileSync(path.join(RECORDED, rel), "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => l + "\n");
const codexRollout = (run: string) => { const dir = path.join(RECORDED, "codex", run); return path.join("codex", run, fs.readdirSync(dir).find((f) => f.endsWith(".jsonl"))!); };

describe("agent hooks: Codex's rollout file and Copilot's events.jsonl read as they grow", () => {
  const loopThought = "Wait, maybe I should double-check whether the file really exists before I answer. Let me think about it again from the start, because I want to be completely sure. ".repeat(30);
  const partial = '{"timestamp":"2026-11-26T13:01:58.000Z","type":"response_item","payload":{"type":"reas';
  let savedHome: string | undefined;
  beforeEach(() => { savedHome = process.env.COPILOT_HOME; });
  afterEach(() => { if (savedHome === undefined) delete process.env.COPILOT_HOME; else process.env.COPILOT_HOME = savedHome; });

  function codexLine(payload: Record<string, unknown>): string {
    return JSON.stringify({ timestamp: "2026-11-26T13:01:55.671Z", type: "response_item", payload }) + "\n";
  }
  /** The recorded run's lines before the model's first step: session metadata, context, the user's message. */
  function codexPreamble(): string[] {
    const lines = recordedLines(codexRollout("listing-loop"));
    return lines.slice(0, lines.findIndex((l) => l.includes('"type":"reasoning"')));
  }

  it("Codex: a reasoning loop in the rollout refuses the next call; the call the file shows is fed once; a partial line waits", () => {
    const file = path.join(tempDir("lsa-codex-"), "rollout.jsonl");
    fs.writeFileSync(file, codexPreamble().join(""));
    fs.appendFileSync(file, codexLine({ type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: loopThought }], content: null, encrypted_content: "eA==" }));
    fs.appendFileSync(file, codexLine({ type: "function_call", status: "completed", id: "fc_1", name: "exec_command", arguments: '{"cmd":"ls src"}', call_id: "call_fake_1" }));
    fs.appendFileSync(file, partial);
    const session = new LoopSession();
    const fed: TraceEvent[] = [];
    const state = newSessionState("codex", "s1");
    const call: AgentCall = { agent: "codex", point: "pre", sessionId: "s1", turnId: "t1", toolCallId: "call_fake_1", toolName: "Bash", input: { command: "ls src" }, transcriptPath: file, claudeShaped: true };
    const v = decideAgentCall(call, state, (e) => { fed.push(e); return session.push(e); });
    assert.equal(v.action, "block");
    assert.match(v.message!, /thinking|repeat/i);
    assert.deepEqual(fed.filter((e) => e.t === "tool_call").map((e) => (e as { id: string }).id), ["call_fake_1"], "the hook's copy of the call was not fed again");
    assert.ok(fed.some((e) => e.t === "user"), "the user's message was read from the file");
    assert.equal(state.transcript!.offset, fs.statSync(file).size - partial.length);
    assert.deepEqual(JSON.parse(JSON.stringify(state.transcript)), state.transcript, "the cursor is plain JSON");
  });

  it("Codex: an output read after its call (a later hook call) is paired with it, once, and nothing is read twice", () => {
    const file = path.join(tempDir("lsa-codex-"), "rollout.jsonl");
    fs.writeFileSync(file, codexPreamble().join(""));
    fs.appendFileSync(file, codexLine({ type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "List the folder." }], content: null }));
    fs.appendFileSync(file, codexLine({ type: "function_call", name: "exec_command", arguments: '{"cmd":"ls src"}', call_id: "call_a" }));
    const fed: TraceEvent[] = [];
    const session = new LoopSession();
    const state = newSessionState("codex", "s1");
    const feed = (e: TraceEvent) => { fed.push(e); return session.push(e); };
    const pre = (id: string, cmd: string): AgentCall => ({ agent: "codex", point: "pre", sessionId: "s1", turnId: "t1", toolCallId: id, toolName: "Bash", input: { command: cmd }, transcriptPath: file, claudeShaped: true });
    assert.equal(decideAgentCall(pre("call_a", "ls src"), state, feed).action, "allow");
    assert.deepEqual(state.transcript!.open, ["call_a"]);
    // The next call: its file now shows the first call's output and the second call (no post hook ran between).
    fs.appendFileSync(file, codexLine({ type: "function_call_output", call_id: "call_a", output: "Chunk ID: fa2310\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 3\nOutput:\ntotal.js\n" }));
    fs.appendFileSync(file, codexLine({ type: "reasoning", id: "rs_2", summary: [{ type: "summary_text", text: "Now read it." }], content: null }));
    fs.appendFileSync(file, codexLine({ type: "function_call", name: "exec_command", arguments: '{"cmd":"cat src/total.js"}', call_id: "call_b" }));
    assert.equal(decideAgentCall(pre("call_b", "cat src/total.js"), state, feed).action, "allow");
    const results = fed.filter((e) => e.t === "tool_result");
    assert.equal(results.length, 1);
    assert.deepEqual(results[0], { t: "tool_result", id: "call_a", ok: true, output: "total.js\n", ts: results[0].ts });
    assert.deepEqual(fed.filter((e) => e.t === "tool_call").map((e) => (e as { id: string }).id), ["call_a", "call_b"]);
    assert.deepEqual(state.transcript!.open, ["call_b"]);
    assert.equal(fed.filter((e) => e.t === "request").length, 2, "the first response was not opened again");
  });

  /** Replays a recorded Copilot run through the hook: at each requested call, its pre (and post once the file shows the result). */
  function replayCopilot(lines: string[], sessionId: string, lagResponses = 0): { verdicts: string[]; fed: TraceEvent[]; found: string[] } {
    const home = tempDir("lsa-copilot-");
    process.env.COPILOT_HOME = home;
    const file = path.join(home, "session-state", sessionId, "events.jsonl");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, "");
    const session = new LoopSession();
    const state = newSessionState("copilot", sessionId);
    const fed: TraceEvent[] = [];
    const verdicts: string[] = [];
    // What the engine found, and at which call of the run: the same whenever the file's lines arrive.
    const found: string[] = [];
    const feed = (e: TraceEvent) => {
      fed.push(e);
      const ivs = session.push(e);
      for (const iv of ivs) found.push(`${iv.detector} ${iv.action} at call ${fed.filter((f) => f.t === "tool_call").length}`);
      return ivs;
    };
    const args = new Map<string, { name: string; input: Record<string, unknown> }>();
    // With a lag, the file holds only the lines before the latest `lagResponses` assistant messages
    // when a hook runs: Copilot writes events.jsonl behind its hooks under load.
    const responseStarts = lines.map((l, i) => (l.startsWith('{"type":"assistant.message"') ? i : -1)).filter((i) => i >= 0);
    let written = 0;
    const writeUpTo = (i: number) => {
      const before = responseStarts.filter((r) => r <= i);
      // (a negative lag counts lines instead: the file that many lines behind)
      const limit = lagResponses === 0 ? i + 1 : lagResponses < 0 ? Math.max(0, i + 1 + lagResponses) : before.length > lagResponses ? before[before.length - lagResponses] : 0;
      for (; written < limit; written++) fs.appendFileSync(file, lines[written]);
    };
    for (const [i, line] of lines.entries()) {
      writeUpTo(i);
      const ev = JSON.parse(line) as { type: string; data: Record<string, unknown>; timestamp: string };
      // The hook's clock at the call, as it was in the recorded run (the file's lines carry their times).
      const now = Date.parse(ev.timestamp);
      if (ev.type === "assistant.message") {
        for (const r of (ev.data.toolRequests as { toolCallId: string; name: string; arguments: Record<string, unknown> }[] | undefined) ?? []) args.set(r.toolCallId, { name: r.name, input: r.arguments });
      }
      if (ev.type === "tool.execution_start") {
        const a = args.get(ev.data.toolCallId as string)!;
        verdicts.push(decideAgentCall({ agent: "copilot", point: "pre", sessionId, toolName: a.name, input: a.input, claudeShaped: false }, state, feed, now).action);
      }
      if (ev.type === "tool.execution_complete") {
        const a = args.get(ev.data.toolCallId as string)!;
        const result = ev.data.result as { content?: string } | undefined;
        // As the hook reads it: Copilot's postToolUse input, through the dialect (its shell trailer taken off).
        const post = parseAgentCall("copilot", "post", JSON.stringify({ sessionId, toolName: a.name, toolArgs: a.input, toolResult: { resultType: ev.data.success !== false ? "success" : "failure", textResultForLlm: result?.content ?? "" } }))!;
        verdicts.push(decideAgentCall(post, state, feed, now).action);
      }
    }
    return { verdicts, fed, found };
  }

  /** The recorded listing loop's lines up to its first response, that response thinking in a loop; and a session file in a fresh Copilot home. */
  function loopingCopilotRun(sessionId: string): { opening: string; file: string } {
    const lines = recordedLines("copilot-cli/listing-loop/events.jsonl");
    const first = lines.findIndex((l) => l.startsWith('{"type":"assistant.message"'));
    const looping = JSON.parse(lines[first]) as { data: Record<string, unknown> };
    looping.data.reasoningText = loopThought;
    const home = tempDir("lsa-copilot-");
    process.env.COPILOT_HOME = home;
    const file = path.join(home, "session-state", sessionId, "events.jsonl");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    return { opening: lines.slice(0, first).join("") + JSON.stringify(looping) + "\n", file };
  }

  it("Copilot: a reasoning loop in events.jsonl refuses the next call; the call the file shows is fed once; a partial line waits", () => {
    const { opening, file } = loopingCopilotRun("sess-1");
    const copilotPartial = '{"type":"tool.execution_start","data":{"toolCallId":"call_38_0","toolName":"ba';
    fs.writeFileSync(file, opening + copilotPartial);
    const session = new LoopSession();
    const fed: TraceEvent[] = [];
    const state = newSessionState("copilot", "sess-1");
    const v = decideAgentCall({ agent: "copilot", point: "pre", sessionId: "sess-1", toolName: "bash", input: { command: "ls src", description: "Run ls src" }, claudeShaped: false }, state, (e) => { fed.push(e); return session.push(e); });
    assert.equal(v.action, "block");
    assert.match(v.message!, /thinking|repeat/i);
    assert.equal(fed.filter((e) => e.t === "tool_call").length, 1, "the file's copy of the call was not fed beside the hook's");
    assert.ok(fed.some((e) => e.t === "reasoning"), "the reasoning was read from the file");
    assert.equal(state.transcript!.path, file);
    assert.equal(state.transcript!.offset, fs.statSync(file).size - copilotPartial.length);
  });

  it("Copilot: events.jsonl written behind the hooks gives the verdicts it gives on time (a response or three lines late, the opening message too)", () => {
    let loops = 0;
    // (Only a lag of one response or a few lines is held to the on-time answers. Further behind, and
    // for reread-loop at one response, a refusal still comes a call later: a response's lines then
    // land after the calls they preceded. Left for the hook to mark response boundaries itself.)
    for (const run of ["listing-loop", "build-loop", "productive", "productive-retest"]) {
      const lines = recordedLines(`copilot-cli/${run}/events.jsonl`);
      const onTime = replayCopilot(lines, `sess-${run}`);
      if (onTime.found.some((f) => f.startsWith("tool-"))) loops++;
      for (const lag of [1, -3]) {
        const late = replayCopilot(lines, `sess-${run}-${lag}`, lag);
        const behind = `${run}, ${lag > 0 ? `${lag} response(s)` : `${-lag} lines`} behind`;
        assert.deepEqual(late.verdicts, onTime.verdicts, behind);
        assert.deepEqual(late.found.filter((f) => f.startsWith("tool-")), onTime.found.filter((f) => f.startsWith("tool-")), behind);
        assert.equal(late.fed.filter((e) => e.t === "tool_result").length, onTime.fed.filter((e) => e.t === "tool_result").length, `${run}: every result fed`);
      }
    }
    assert.equal(loops, 2, "the two loops were found on time");
  });

  it("Copilot: a reasoning loop the file shows only after the call began reaches the model with its result (not lost at permissionRequest)", () => {
    const { opening, file } = loopingCopilotRun("sess-late");
    fs.writeFileSync(file, "");
    const session = new LoopSession();
    const state = newSessionState("copilot", "sess-late");
    const feed = (e: TraceEvent) => session.push(e);
    const input = { command: "ls src", description: "Run ls src" };
    assert.equal(decideAgentCall({ agent: "copilot", point: "pre", sessionId: "sess-late", toolName: "bash", input, claudeShaped: false }, state, feed).action, "allow");
    // Copilot wrote the response's lines while the call waited for permission.
    fs.appendFileSync(file, opening);
    assert.equal(decideAgentCall({ agent: "copilot", point: "permission", sessionId: "sess-late", toolName: "bash", input, claudeShaped: false }, state, feed).action, "allow");
    const post = decideAgentCall({ agent: "copilot", point: "post", sessionId: "sess-late", toolName: "bash", input, result: { ok: true, text: "total.js" }, claudeShaped: false }, state, feed);
    assert.equal(post.action, "warn");
    assert.match(post.message!, /thinking|repeat/i);
    assert.equal(decideAgentCall({ agent: "copilot", point: "pre", sessionId: "sess-late", toolName: "bash", input, claudeShaped: false }, state, feed).action, "block", "the next call is refused");
  });

  it("Copilot: a session id that is not a plain name reads no file", () => {
    process.env.COPILOT_HOME = tempDir("lsa-copilot-");
    const state = newSessionState("copilot", "..");
    decideAgentCall({ agent: "copilot", point: "pre", sessionId: "..", toolName: "bash", input: { command: "ls" }, claudeShaped: false }, state, () => []);
    assert.equal(state.transcript, undefined);
  });

  it("productive recorded runs read as they grow are let through, each call and result fed once", () => {
    const copilot = replayCopilot(recordedLines("copilot-cli/productive/events.jsonl"), "sess-p");
    assert.ok(copilot.verdicts.length >= 4);
    assert.deepEqual(copilot.verdicts.filter((v) => v !== "allow"), []);
    assert.equal(copilot.fed.filter((e) => e.t === "tool_call").length, copilot.verdicts.length / 2);
    assert.equal(copilot.fed.filter((e) => e.t === "tool_result").length, copilot.verdicts.length / 2);
    assert.ok(copilot.fed.some((e) => e.t === "reasoning" || e.t === "text"));

    const file = path.join(tempDir("lsa-codex-"), "rollout.jsonl");
    fs.writeFileSync(file, "");
    const session = new LoopSession();
    const state = newSessionState("codex", "s1");
    const fed: TraceEvent[] = [];
    const verdicts: string[] = [];
    for (const line of recordedLines(codexRollout("productive"))) {
      fs.appendFileSync(file, line);
      const rec = JSON.parse(line) as { type: string; payload: Record<string, unknown> };
      if (rec.type === "response_item" && rec.payload.type === "function_call") {
        const input = JSON.parse(rec.payload.arguments as string) as Record<string, unknown>;
        verdicts.push(decideAgentCall({ agent: "codex", point: "pre", sessionId: "s1", turnId: "t1", toolCallId: rec.payload.call_id as string, toolName: "Bash", input: { command: input.cmd }, transcriptPath: file, claudeShaped: true }, state, (e) => { fed.push(e); return session.push(e); }).action);
      }
    }
    assert.ok(verdicts.length >= 3);
    assert.deepEqual(verdicts.filter((v) => v !== "allow"), []);
    const callIds = fed.filter((e) => e.t === "tool_call").map((e) => (e as { id: string }).id);
    assert.equal(new Set(callIds).size, callIds.length);
    assert.equal(callIds.length, verdicts.length);
  });
});

describe("agent hooks: headless state between hook processes", () => {
  it("keeps counts across calls in a private folder, and bounds the log", () => {
    const channel = path.join(tempDir("lsa-"), "ch");
    const config = defaultConfig();
    const call = (i: number, point: "pre" | "post"): AgentCall => ({ agent: "claude", point, sessionId: "sess", toolCallId: `c${i}`, toolName: "Bash", input: { command: "ls" }, claudeShaped: true, ...(point === "post" ? { result: { ok: true, text: "a.txt" } } : {}) });
    const actions: string[] = [];
    for (let i = 1; i <= 5; i++) {
      actions.push(decideHeadless(call(i, "pre"), { channel, config, now: 1000 * i }).action);
      if (i < 5) actions.push(decideHeadless(call(i, "post"), { channel, config, now: 1000 * i + 10 }).action);
    }
    assert.deepEqual(actions, ["allow", "allow", "allow", "allow", "allow", "warn", "allow", "allow", "block"]);
    if (process.platform !== "win32") {
      assert.equal(fs.statSync(channel).mode & 0o777, 0o700);
      assert.equal(fs.statSync(sessionsDir(channel)).mode & 0o777, 0o700);
    }
  });

  it("keeps the newest events of a long session, within its event and character bounds", () => {
    const calls: TraceEvent[] = Array.from({ length: MAX_LOG_EVENTS + 50 }, (_, i) => ({ t: "tool_call", id: `c${i}`, name: "Bash", input: { command: `echo ${i}` } }));
    const kept = boundedLog(calls);
    assert.equal(kept.length, MAX_LOG_EVENTS);
    assert.equal((kept[kept.length - 1] as { id: string }).id, `c${MAX_LOG_EVENTS + 49}`);
    const big: TraceEvent[] = Array.from({ length: 200 }, () => ({ t: "reasoning", delta: "x".repeat(8000) }));
    assert.ok(boundedLog(big).length < 200);
  });

  it("the bundled hook fails open on garbage and answers a loop in Claude's words", function () {
    this.timeout(30_000);
    const script = path.join(REPO, "dist", "agent-hook.js");
    const env = { ...process.env, LOOP_SENTINEL_CHANNEL_DIR: path.join(tempDir("lsa-"), "ch") };
    const run = (input: string) => spawnSync(process.execPath, [script, "claude"], { input, env, encoding: "utf8" });
    const garbage = run("{{{");
    assert.equal(garbage.status, 0);
    assert.equal(garbage.stdout, "");
    let out = "";
    const sessions = sessionsDir(env.LOOP_SENTINEL_CHANNEL_DIR);
    for (let i = 1; i <= 5; i++) {
      if (i === 5) {
        // The counts come back from the engine's snapshot, not from replaying the log: without the log the loop is still known.
        const [file] = fs.readdirSync(sessions).filter((f) => f.endsWith(".json"));
        const doc = JSON.parse(fs.readFileSync(path.join(sessions, file), "utf8")) as { engine?: { snapshot: unknown } };
        assert.ok(doc.engine?.snapshot, "the bundled engine wrote its session as data");
        const log = logFileFor(path.join(sessions, file));
        assert.equal(fs.readFileSync(log, "utf8").trim().split("\n").length, 4, "one event a call in the log");
        fs.writeFileSync(log, "");
      }
      out = run(JSON.stringify({ session_id: "x", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: `t${i}` })).stdout;
    }
    assert.equal(JSON.parse(out).hookSpecificOutput.permissionDecision, "deny");
  });
});

describe("agent hooks: Copilot's permissionRequest answered from the session file alone", () => {
  const perm = (sessionId: string, extra: Partial<AgentCall> = {}): AgentCall => ({ agent: "copilot", point: "permission", sessionId, toolName: "bash", input: { command: "ls" }, claudeShaped: false, ...extra });

  it("lets the call through without the engine only when the state says so; any doubt goes to the engine path", () => {
    const channel = path.join(tempDir("lsa-"), "ch");
    assert.deepEqual(permissionFromState(perm("s1"), channel), { action: "allow" }, "no session file yet: what a first call answers");
    assert.ok(!fs.existsSync(sessionsDir(channel)), "and nothing is written");
    fs.mkdirSync(sessionsDir(channel), { recursive: true });
    const write = (doc: unknown) => fs.writeFileSync(stateFileFor(sessionsDir(channel), { agent: "copilot", sessionId: "s1" }), typeof doc === "string" ? doc : JSON.stringify(doc));
    const state = { agent: "copilot", sessionId: "s1", calls: [], results: [], open: [], pendingWarn: [], nextId: 0 };
    write({ v: 2, state, engine: { key: "k", snapshot: { nodes: [] } } });
    assert.deepEqual(permissionFromState(perm("s1"), channel), { action: "allow" }, "no stop held");
    write({ v: 2, state: { ...state, stop: { message: "m", delivered: true } } });
    assert.deepEqual(permissionFromState(perm("s1"), channel), { action: "allow" }, "a stop already delivered");
    write({ v: 2, state: { ...state, stop: { message: "m", delivered: false } } });
    assert.equal(permissionFromState(perm("s1"), channel), undefined, "a stop to deliver: the engine path ends the run");
    write({ v: 2, state: { ...state, sessionId: "other" } });
    assert.equal(permissionFromState(perm("s1"), channel), undefined, "a file of another session: the engine path starts afresh");
    write({ v: 1, state });
    assert.equal(permissionFromState(perm("s1"), channel), undefined, "another format");
    write(`{"v":2,"state":{"agent":"copilot","sessionId":"s1"`);
    assert.equal(permissionFromState(perm("s1"), channel), undefined, "a file being written: the engine path waits on the lock");
    write({ v: 2, state });
    assert.equal(permissionFromState(perm("s1", { turnId: "t" }), channel), undefined, "a turn id may start the counts afresh");
    assert.equal(permissionFromState(perm("s1", { point: "pre" }), channel), undefined, "only permissionRequest");
  });

  it("the whole hook still ends a stopped Copilot run at permissionRequest", async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, LOOP_SENTINEL_CHANNEL_DIR: path.join(tempDir("lsa-"), "ch"), COPILOT_HOME: tempDir("lsa-copilot-") };
    delete env.XDG_RUNTIME_DIR;
    const bundle = path.join(REPO, "dist", "agent-hook-engine.js");
    const args = (point: string) => parseHookArgs(["copilot", point])!;
    const input = (extra: Record<string, unknown> = {}) => JSON.stringify({ sessionId: "cp-stop", timestamp: Date.now(), cwd: "/w", toolName: "bash", toolArgs: { command: "ls", description: "list" }, ...extra });
    let interrupted: Record<string, unknown> | undefined;
    for (let i = 0; i < 12 && !interrupted; i++) {
      assert.equal(await runAgentHook(args("permission"), input(), env, bundle), undefined, `permission ${i}: nothing held yet, or the stop was not reached`);
      const pre = await runAgentHook(args("pre"), input(), env, bundle);
      if (pre === undefined) {
        const out = await runAgentHook(args("permission"), input(), env, bundle);
        if (out) { interrupted = out; break; }
      }
      await runAgentHook(args("post"), input({ toolResult: { resultType: "success", textResultForLlm: "a.txt" } }), env, bundle);
    }
    assert.equal(interrupted?.interrupt, true, "the held stop went out at permissionRequest");
    assert.equal(await runAgentHook(args("permission"), input(), env, bundle), undefined, "and once only");
  });
});

describe("agent hooks: a running Loop Sentinel answers over the channel", () => {
  it("the hook takes the running guard's answer, keeps no session file, and the guard's sessions hold the calls", async () => {
    const channel = path.join(tempDir("lsa-"), "ch");
    // A generous deadline: a loaded machine must not make the hook fall back to deciding alone.
    const env = { ...process.env, LOOP_SENTINEL_CHANNEL_DIR: channel, LOOP_SENTINEL_HOOK_DEADLINE_MS: "10000" };
    const fedKeys = new Set<string>();
    const sessions = new Map<string, LoopSession>();
    const service = new AgentHookService({
      feed: (key, e) => { fedKeys.add(key); let s = sessions.get(key); if (!s) { s = new LoopSession(); sessions.set(key, s); } return s.push(e); },
    });
    const server = await service.serve(env);
    try {
      const args = parseHookArgs(["codex"])!;
      let out: Record<string, unknown> | undefined;
      for (let i = 1; i <= 5; i++) {
        out = await runAgentHook(args, JSON.stringify({ session_id: "cx", turn_id: "t", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: `c${i}` }), env);
      }
      assert.equal((out!.hookSpecificOutput as Record<string, unknown>).permissionDecision, "deny");
      assert.deepEqual([...fedKeys], ["codex:cx"]);
      assert.ok(!fs.existsSync(sessionsDir(channel)), "no headless state: the guard answered");
    } finally {
      await server.close();
    }
  });

  it("off or warn-only in the window: refusals are held, guidance still goes", () => {
    const service = new AgentHookService({ feed: () => [{ event: 0, detector: "tool-repeat", action: "block", message: "m", evidence: { events: [] } as never, key: "k", summary: "s", toolCallId: "c1" }], mayAct: () => false });
    const reply = service.answer(toChannelQuery({ agent: "claude", point: "pre", sessionId: "s", toolCallId: "c1", toolName: "Bash", input: {}, claudeShaped: true }));
    assert.deepEqual(reply, { known: true, action: "allow" });
  });
});

describe("agent hooks: install and uninstall", () => {
  function sandbox() {
    const root = tempDir("lsa-inst-");
    const env = { ...process.env, HOME: root, LOOP_SENTINEL_HOME: path.join(root, "ls"), CLAUDE_CONFIG_DIR: path.join(root, "claude"), COPILOT_HOME: path.join(root, "copilot"), CODEX_HOME: path.join(root, "codex") };
    const script = path.join(root, "agent-hook.js");
    fs.writeFileSync(script, "// hook\n");
    return { root, env, script };
  }

  it("merges beside the user's own hooks and puts the file back byte for byte", () => {
    const { env, script } = sandbox();
    const file = hookFileFor("claude", undefined, env);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const original = '{\n\t"model": "opus",  \n\t"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}]}\n}';
    fs.writeFileSync(file, original);
    assert.equal(installAgentHook({ agent: "claude", script, runtime: "/usr/bin/node", env }).state, "installed");
    const doc = JSON.parse(fs.readFileSync(file, "utf8"));
    assert.equal(doc.model, "opus");
    assert.equal(doc.hooks.PreToolUse.length, 2, "the user's entry and ours");
    assert.equal(doc.hooks.PreToolUse[0].hooks[0].command, "echo mine");
    assert.equal(agentHookStatus("claude", undefined, env).state, "installed");
    assert.equal(installAgentHook({ agent: "claude", script, runtime: "/usr/bin/node", env }).state, "installed", "again: refreshed, not doubled");
    assert.equal(JSON.parse(fs.readFileSync(file, "utf8")).hooks.PreToolUse.length, 2);
    uninstallAgentHook("claude", undefined, env);
    assert.equal(fs.readFileSync(file, "utf8"), original);
  });

  it("a file changed after the install keeps the change and loses only our entries", () => {
    const { env, script } = sandbox();
    installAgentHook({ agent: "codex", script, env });
    const file = hookFileFor("codex", undefined, env);
    const doc = JSON.parse(fs.readFileSync(file, "utf8"));
    doc.hooks.Stop = [{ hooks: [{ type: "command", command: "echo bye" }] }];
    fs.writeFileSync(file, JSON.stringify(doc));
    uninstallAgentHook("codex", undefined, env);
    assert.deepEqual(JSON.parse(fs.readFileSync(file, "utf8")), { hooks: { Stop: [{ hooks: [{ type: "command", command: "echo bye" }] }] } });
  });

  it("leaves a file that does not parse alone and says so", () => {
    const { env, script } = sandbox();
    const file = hookFileFor("claude", undefined, env);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, "{ not json");
    const r = installAgentHook({ agent: "claude", script, env });
    assert.equal(r.state, "unreadable");
    assert.match(r.detail, /left it alone/);
    assert.equal(fs.readFileSync(file, "utf8"), "{ not json");
  });

  it("honours the agents' homes and a project, and the extension's uninstall undoes every install, removing what it created", () => {
    const { root, env, script } = sandbox();
    const project = path.join(root, "proj");
    fs.mkdirSync(project);
    installAgentHook({ agent: "copilot", script, env });
    installAgentHook({ agent: "claude", project, script, env });
    assert.ok(fs.existsSync(path.join(root, "copilot", "hooks", "loop-sentinel.json")));
    assert.ok(fs.existsSync(path.join(project, ".claude", "settings.json")));
    const reports = uninstallAllAgentHooks(env);
    assert.equal(reports.length, 2);
    assert.ok(!fs.existsSync(path.join(root, "copilot", "hooks")), "the folders we made are gone");
    assert.deepEqual(fs.readdirSync(project), []);
    assert.ok(!fs.existsSync(path.join(root, "ls")), "Loop Sentinel's copies of the hook, its records and its folder are gone");
  });

  it("removing the last hook removes Loop Sentinel's copies of the hook and its records; before that, and with records it cannot read, they stay", () => {
    const { root, env, script } = sandbox();
    fs.writeFileSync(path.join(root, "agent-hook-engine.js"), "// engine\n");
    installAgentHook({ agent: "claude", script, env });
    installAgentHook({ agent: "codex", script, env });
    const home = path.join(root, "ls");
    assert.deepEqual(fs.readdirSync(home).sort(), ["hook-installs.json", "loop-sentinel-agent-hook-engine.js", "loop-sentinel-agent-hook.js"]);
    uninstallAgentHook("claude", undefined, env);
    assert.ok(fs.existsSync(path.join(home, "loop-sentinel-agent-hook.js")), "Codex still runs the copy");
    uninstallAgentHook("codex", undefined, env);
    assert.ok(!fs.existsSync(home), "nothing left behind");
    // another file of Loop Sentinel's in its folder keeps the folder; unreadable records keep the copies
    installAgentHook({ agent: "claude", script, env });
    fs.writeFileSync(path.join(home, "other.json"), "{}");
    uninstallAgentHook("claude", undefined, env);
    assert.deepEqual(fs.readdirSync(home), ["other.json"]);
    installAgentHook({ agent: "claude", script, env });
    fs.writeFileSync(path.join(home, "hook-installs.json"), "{ cut mid-wri");
    uninstallAgentHook("codex", undefined, env);
    assert.ok(fs.existsSync(path.join(home, "loop-sentinel-agent-hook.js")), "no proof that no hook is left: the copy stays");
  });
});
