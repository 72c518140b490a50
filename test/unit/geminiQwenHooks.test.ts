/**
 * Loop Sentinel's hook in Gemini CLI's and Qwen Code's dialects, on hook input recorded from the
 * real CLIs (Gemini CLI 0.61.0, Qwen Code 0.24.4: test/fixtures/hook-agents/<agent>/, numbered in
 * the order the hooks ran; `node out/test/e2e/agents/recordHookInput.js` records them again).
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { defaultConfig, resolveConfig } from "../../src/engine/config";
import type { TraceEvent } from "../../src/engine/events";
import { LoopSession } from "../../src/engine/session";
import { agentOutput, parseAgentCall, shellEnvelope, type AgentCall, type AgentName } from "../../src/hosts/hookAgents/dialect";
import { decideAgentCall, newSessionState, readChatTail, type AgentSessionState, type TranscriptCursor } from "../../src/hosts/hookAgents/guard";
import { agentHookStatus, hookFileFor, installAgentHook, uninstallAgentHook } from "../../src/hosts/hookAgents/install";
import { fromChannelQuery, toChannelQuery } from "../../src/hosts/hookAgents/channelQuery";

const REPO = path.resolve(__dirname, "../../..");
const FIXTURES = path.join(REPO, "test/fixtures/hook-agents");
const tempDir = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/** A recorded session's hook inputs, in the order the CLI ran its hooks. */
function recorded(agent: "gemini" | "qwen"): { file: string; text: string }[] {
  const dir = path.join(FIXTURES, agent);
  return fs.readdirSync(dir).filter((f) => /^\d+-.*\.json$/.test(f)).sort().map((f) => ({ file: f, text: fs.readFileSync(path.join(dir, f), "utf8") }));
}

/** The session file the agent wrote in the same run, line by line, each with the time it was written (a line without one: its predecessor's). */
function sessionLines(agent: "gemini" | "qwen"): { line: string; at: number }[] {
  let at = 0;
  return fs.readFileSync(path.join(FIXTURES, agent, "session.jsonl"), "utf8").split("\n").filter((l) => l !== "").map((line) => {
    const t = Date.parse((JSON.parse(line) as { timestamp?: string }).timestamp ?? "");
    if (Number.isFinite(t)) at = t;
    return { line: line + "\n", at };
  });
}
const one = (agent: "gemini" | "qwen", name: string) => recorded(agent).find((r) => r.file === name)!.text;

describe("Gemini CLI and Qwen Code hooks: their recorded input", () => {
  it("Gemini: BeforeAgent is a prompt; BeforeTool a call without an id; AfterTool its result, the shell's envelope and process group set aside", () => {
    const prompt = parseAgentCall("gemini", undefined, one("gemini", "01-BeforeAgent.json"))!;
    assert.equal(prompt.point, "prompt");
    assert.equal(prompt.prompt, "Fix the failing test in this folder.");
    const pre = parseAgentCall("gemini", undefined, one("gemini", "02-BeforeTool.json"))!;
    assert.equal(pre.point, "pre");
    assert.equal(pre.toolName, "run_shell_command");
    assert.equal(pre.toolCallId, undefined, "Gemini names no call id");
    assert.equal(pre.claudeShaped, false);
    assert.deepEqual(pre.input, { command: "ls", description: "run a command" });
    const post = parseAgentCall("gemini", undefined, one("gemini", "03-AfterTool.json"))!;
    assert.equal(post.point, "post");
    assert.deepEqual(post.result, { ok: true, text: "Output: a.txt\ncalc.js\ntest.js" });
    const failed = parseAgentCall("gemini", undefined, one("gemini", "11-AfterTool.json"))!;
    assert.deepEqual(failed.result, { ok: false, text: "Output: (empty)\nExit Code: 3" });
    const read = parseAgentCall("gemini", undefined, one("gemini", "05-AfterTool.json"))!;
    assert.deepEqual(read.result, { ok: true, text: "exports.add = (a, b) => a - b;\n" });
  });

  it("Qwen: the model's call id, the prompt id as the turn, and a failed call's PostToolUseFailure", () => {
    const pre = parseAgentCall("qwen", undefined, one("qwen", "01-PreToolUse.json"))!;
    assert.equal(pre.point, "pre");
    assert.equal(pre.toolCallId, "call_fake_1", "the id the model gave, as Qwen's session file names it");
    assert.match(pre.turnId!, /########0$/);
    assert.equal(pre.claudeShaped, true);
    const post = parseAgentCall("qwen", undefined, one("qwen", "02-PostToolUse.json"))!;
    assert.equal(post.toolCallId, "call_fake_1");
    assert.deepEqual(post.result, { ok: true, text: "Command: ls\nDirectory: (root)\nOutput: a.txt\ncalc.js\ntest.js\nError: (none)\nExit Code: 0\nSignal: (none)" });
    const failure = parseAgentCall("qwen", undefined, one("qwen", "10-PostToolUseFailure.json"))!;
    assert.equal(failure.point, "post");
    assert.equal(failure.event, "PostToolUseFailure");
    assert.equal(failure.result!.ok, false);
    assert.match(failure.result!.text, /Exit Code: 3/);
  });

  it("identical shell runs read identical though each ran in its own process group; a signal or cancel is a failure", () => {
    const run = (pgid: number) => `<untrusted_context>\nOutput: a.txt\nProcess Group PGID: ${pgid}\n</untrusted_context>`;
    assert.deepEqual(shellEnvelope(run(101)), shellEnvelope(run(202)));
    assert.equal(shellEnvelope("Output: (empty)\nSignal: 9\n")!.failed, true);
    assert.equal(shellEnvelope("Command was cancelled by user before it could complete.")?.failed, undefined, "not a shell envelope");
    assert.equal(shellEnvelope("Output: x\nBackground PIDs: 1234\nExit Code: 0")!.text, "Output: x\nExit Code: 0");
    assert.equal(shellEnvelope("a plain tool result"), undefined);
  });

  it("lets through what is not a call it can name", () => {
    for (const agent of ["gemini", "qwen"] as const) {
      for (const text of ["", "{", "null", "[]", JSON.stringify({ hook_event_name: "BeforeTool", tool_name: "x" }), JSON.stringify({ session_id: "s", hook_event_name: "BeforeTool" }),
        JSON.stringify({ session_id: "s", hook_event_name: "SessionStart", source: "startup" }), JSON.stringify({ session_id: "s", hook_event_name: "Notification" })]) {
        assert.equal(parseAgentCall(agent, undefined, text), undefined, `${agent}: ${text}`);
      }
    }
  });

  it("answers in each one's words", () => {
    const call = (agent: AgentName, point: AgentCall["point"], event?: string): AgentCall => ({ agent, point, sessionId: "s", toolName: "run_shell_command", input: {}, claudeShaped: agent !== "gemini", ...(event ? { event } : {}) });
    assert.deepEqual(agentOutput(call("gemini", "pre"), { action: "block", message: "m" }), { decision: "deny", reason: "Loop Sentinel: m" });
    assert.equal(agentOutput(call("gemini", "pre"), { action: "warn", message: "m" }), undefined, "context waits for the result");
    assert.deepEqual(agentOutput(call("gemini", "post"), { action: "warn", message: "m" }), { hookSpecificOutput: { hookEventName: "AfterTool", additionalContext: "Loop Sentinel: m" } });
    assert.deepEqual(agentOutput(call("gemini", "pre"), { action: "stop", message: "m" }), { continue: false, stopReason: "Loop Sentinel: m", decision: "deny", reason: "Loop Sentinel: m" });
    assert.equal(agentOutput(call("gemini", "prompt"), { action: "stop", message: "m" }), undefined, "a prompt is never answered");
    assert.deepEqual(agentOutput(call("qwen", "pre"), { action: "block", message: "m" }), { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "Loop Sentinel: m" } });
    assert.equal(agentOutput(call("qwen", "pre"), { action: "stop", message: "m" })!.continue, undefined, "Qwen: no answer ends a run, the stop is a refusal");
    assert.deepEqual(agentOutput(call("qwen", "post", "PostToolUseFailure"), { action: "warn", message: "m" }), { hookSpecificOutput: { hookEventName: "PostToolUseFailure", additionalContext: "Loop Sentinel: m" } });
  });

  it("a prompt and a call go over the channel and back unchanged", () => {
    for (const [agent, name] of [["gemini", "01-BeforeAgent.json"], ["gemini", "03-AfterTool.json"], ["qwen", "10-PostToolUseFailure.json"]] as const) {
      const call = parseAgentCall(agent, undefined, one(agent, name))!;
      assert.deepEqual(fromChannelQuery(JSON.parse(JSON.stringify(toChannelQuery(call)))), call);
    }
  });
});

/** The verdicts of an identical loop, hook call by hook call, with a live engine session. */
function identicalLoop(agent: "gemini" | "qwen", calls: number, config = defaultConfig(), state: AgentSessionState = newSessionState(agent, "s1"), turn = "s1########0"): string[] {
  const session = new LoopSession(config);
  const verdicts: string[] = [];
  let now = 1_000_000;
  for (let i = 1; i <= calls; i++) {
    // Only the description differs, as in the e2e loop: Loop Sentinel sets it aside.
    const base = { agent, sessionId: "s1", toolName: "run_shell_command", input: { command: "ls", description: `try ${i}` }, claudeShaped: agent !== "gemini" };
    const ids = agent === "qwen" ? { toolCallId: `call_${i}`, turnId: turn } : {};
    const pre = decideAgentCall({ ...base, ...ids, point: "pre" }, state, (e) => session.push(e), now += 1000);
    let line = `${i}:pre=${pre.action}`;
    if (pre.action === "allow") {
      const post = decideAgentCall({ ...base, ...ids, point: "post", result: { ok: true, text: "Output: a.txt" } }, state, (e) => session.push(e), now += 100);
      line += `,post=${post.action}`;
    }
    verdicts.push(line);
  }
  return verdicts;
}

describe("Gemini CLI and Qwen Code hooks: the ladder", () => {
  it("Gemini: guidance after the 3rd result, the 5th and 6th refused, the 7th ends the run; a new prompt starts afresh", () => {
    const state = newSessionState("gemini", "s1");
    assert.deepEqual(identicalLoop("gemini", 7, defaultConfig(), state), [
      "1:pre=allow,post=allow", "2:pre=allow,post=allow", "3:pre=allow,post=warn", "4:pre=allow,post=allow",
      "5:pre=block", "6:pre=block", "7:pre=stop",
    ]);
    const session = new LoopSession();
    const fed: TraceEvent[] = [];
    decideAgentCall(parseAgentCall("gemini", undefined, JSON.stringify({ session_id: "s1", hook_event_name: "BeforeAgent", prompt: "Try again." }))!, state, (e) => { fed.push(e); return session.push(e); });
    assert.deepEqual(fed.map((e) => e.t), ["user"]);
    assert.equal(state.stop, undefined);
    const next = decideAgentCall({ agent: "gemini", point: "pre", sessionId: "s1", toolName: "run_shell_command", input: { command: "ls" }, claudeShaped: false }, state, (e) => session.push(e));
    assert.equal(next.action, "allow");
  });

  it("Qwen: after the stop every further call of the prompt is refused, saying so; the next prompt starts afresh", () => {
    const state = newSessionState("qwen", "s1");
    const verdicts = identicalLoop("qwen", 9, defaultConfig(), state);
    assert.deepEqual(verdicts.slice(4), ["5:pre=block", "6:pre=block", "7:pre=stop", "8:pre=stop", "9:pre=stop"]);
    assert.match(state.stop!.message, /every further tool call of this turn is refused/);
    assert.deepEqual(identicalLoop("qwen", 1, defaultConfig(), state, "s1########1"), ["1:pre=allow,post=allow"]);
  });

  it("Gemini: a refused call, which gets no AfterTool, leaves no call waiting to take the next identical call's result", () => {
    const state = newSessionState("gemini", "s1");
    identicalLoop("gemini", 6, defaultConfig(), state);
    assert.deepEqual(state.open, [], "the 5th and 6th were refused: nothing waits for them");
  });

  it("warn-only: guidance, never a refusal or a stop", () => {
    for (const agent of ["gemini", "qwen"] as const) {
      const verdicts = identicalLoop(agent, 9, resolveConfig({ mode: "warnOnly" }).config);
      assert.ok(verdicts.every((v) => !/block|stop/.test(v)), verdicts.join(" "));
      assert.ok(verdicts.some((v) => v.includes("post=warn")), verdicts.join(" "));
    }
  });

  /** A recorded session replayed: the session file grown as it was when each hook ran, or `lag` hook calls behind. */
  function replay(agent: "gemini" | "qwen", lag: number): { verdicts: string[]; fed: TraceEvent[]; state: AgentSessionState } {
    const session = new LoopSession();
    const state = newSessionState(agent, "x");
    const fed: TraceEvent[] = [];
    const file = path.join(tempDir("lsa-gq-"), "session.jsonl");
    fs.writeFileSync(file, "");
    const lines = sessionLines(agent);
    const inputs = recorded(agent);
    const times = inputs.map(({ text }) => Date.parse((JSON.parse(text) as { timestamp: string }).timestamp));
    const verdicts = inputs.map(({ text }, k) => {
      const call = parseAgentCall(agent, undefined, text)!;
      const at = k - lag >= 0 ? times[k - lag] : 0;
      while (lines.length > 0 && lines[0].at <= at) fs.appendFileSync(file, lines.shift()!.line);
      return decideAgentCall({ ...call, transcriptPath: file }, state, (e) => { fed.push(e); return session.push(e); }).action;
    });
    return { verdicts, fed, state };
  }

  for (const lag of [0, 1, 2]) {
    it(`the recorded sessions replayed${lag ? ` with the session file ${lag} hook call${lag > 1 ? "s" : ""} behind the hooks` : " in their real order (hook inputs and session file by time)"}: every call allowed, each paired with its own result and nothing between them, the thinking read once`, () => {
      for (const agent of ["gemini", "qwen"] as const) {
        const { verdicts, fed, state } = replay(agent, lag);
        assert.ok(verdicts.length >= 10);
        assert.deepEqual(verdicts.filter((v) => v !== "allow"), [], agent);
        const calls = fed.filter((e) => e.t === "tool_call").map((e) => (e as { id: string }).id);
        const results = fed.filter((e) => e.t === "tool_result") as Extract<TraceEvent, { t: "tool_result" }>[];
        assert.equal(calls.length, 5, agent);
        assert.deepEqual(results.map((r) => r.id), calls, `${agent}: each result paired with its call, in order`);
        assert.deepEqual(results.map((r) => r.ok), [true, true, true, true, false], agent);
        for (const id of calls) {
          const from = fed.findIndex((e) => e.t === "tool_call" && e.id === id);
          const to = fed.findIndex((e) => e.t === "tool_result" && e.id === id);
          assert.deepEqual(fed.slice(from + 1, to), [], `${agent}: nothing read between call ${id} and its result`);
        }
        assert.equal(state.open.length, 0, `${agent}: no call left waiting`);
        assert.deepEqual(fed.filter((e) => e.t === "reasoning").map((e) => (e as { delta: string }).delta), ["The test fails; first I want to see which files are here."], `${agent}: the thinking, once`);
        if (lag === 0) assert.ok(fed.findIndex((e) => e.t === "reasoning") < fed.findIndex((e) => e.t === "tool_call"), `${agent}: the thinking before the call it led to`);
        assert.equal(fed.filter((e) => e.t === "user").length, 1, `${agent}: the prompt, once`);
      }
    });
  }
});

describe("Gemini CLI and Qwen Code hooks: their session files read as they grow", () => {
  it("the whole recorded file: each response's thinking and text once (Gemini writes a message again as its calls finish), Qwen's prompt (Gemini's comes from BeforeAgent), no tool results", () => {
    for (const agent of ["gemini", "qwen"] as const) {
      const file = path.join(FIXTURES, agent, "session.jsonl");
      const cursor: TranscriptCursor = { path: file, offset: 0, inRequest: false };
      const events: TraceEvent[] = [];
      readChatTail(agent, cursor, (e) => events.push(e));
      assert.deepEqual(events.filter((e) => e.t === "user").map((e) => (e as { text: string }).text), agent === "qwen" ? ["Fix the failing test in this folder."] : [], agent);
      assert.equal(events.filter((e) => e.t === "request").length, 6, `${agent}: six responses`);
      assert.deepEqual(events.filter((e) => e.t === "text").map((e) => (e as { delta: string }).delta),
        ["Listing the folder.", "Reading the code.", "The sign is wrong.", "Writing a note.", "A command that fails.", "Done."], agent);
      assert.equal(events.filter((e) => e.t === "reasoning").length, 1, agent);
      assert.ok(!events.some((e) => e.t === "tool_call" || e.t === "tool_result"), `${agent}: calls and results come from the hooks`);
      assert.equal(cursor.offset, fs.statSync(file).size);
      const again: TraceEvent[] = [];
      readChatTail(agent, cursor, (e) => again.push(e));
      assert.deepEqual(again, [], `${agent}: nothing new, nothing read`);
    }
  });

  it("a line still being written waits; a message written again is not read twice; a tool result's text is not the user speaking", () => {
    const dir = tempDir("lsa-gq-");
    const file = path.join(dir, "s.jsonl");
    const msg = { id: "m1", timestamp: "2026-11-28T10:00:00.000Z", type: "gemini", content: "Looking.", thoughts: [{ subject: "Plan", description: "read it" }], model: "g" };
    fs.writeFileSync(file, JSON.stringify(msg) + "\n" + '{"id":"m1","type":"gem');
    const cursor: TranscriptCursor = { path: file, offset: 0, inRequest: false };
    const events: TraceEvent[] = [];
    readChatTail("gemini", cursor, (e) => events.push(e));
    assert.deepEqual(events.map((e) => e.t), ["request", "reasoning", "text"]);
    assert.equal((events[1] as { delta: string }).delta, "Plan: read it");
    fs.writeFileSync(file, JSON.stringify(msg) + "\n" + JSON.stringify({ ...msg, toolCalls: [{ id: "c", name: "read_file", args: {} }] }) + "\n" +
      JSON.stringify({ id: "u1", type: "user", content: [{ functionResponse: { id: "c", name: "read_file", response: { output: "x" } } }, { text: "file text" }] }) + "\n" +
      JSON.stringify({ id: "u2", type: "user", content: [{ text: "<hook_context>Loop Sentinel: ...</hook_context>" }] }) + "\n");
    const more: TraceEvent[] = [];
    readChatTail("gemini", cursor, (e) => more.push(e));
    assert.deepEqual(more.map((e) => e.t), ["end"], "the rewritten message is not read again; the tool results close the response");
    const qwen = path.join(dir, "q.jsonl");
    fs.writeFileSync(qwen, [
      { type: "assistant", message: { role: "model", parts: [{ text: "thinking", thought: true }, { text: "Reading." }, { functionCall: { id: "c1", name: "read_file", args: {} } }] } },
      { type: "tool_result", message: { role: "user", parts: [{ functionResponse: { id: "c1", name: "read_file", response: { output: "x" } } }] } },
      { type: "user", message: { role: "user", parts: [{ functionResponse: { id: "c1", name: "read_file", response: { output: "x" } } }, { text: "file text" }] } },
      { type: "system", subtype: "ui_telemetry", systemPayload: {} },
    ].map((r) => JSON.stringify(r) + "\n").join(""));
    const q: TraceEvent[] = [];
    readChatTail("qwen", { path: qwen, offset: 0, inRequest: false }, (e) => q.push(e));
    assert.deepEqual(q.map((e) => e.t), ["request", "reasoning", "text"], "Qwen: thinking and text; a tool result's text and the CLI's own records are not read");
  });
});

describe("Gemini CLI and Qwen Code hooks: install and uninstall", () => {
  function sandbox() {
    const root = tempDir("lsa-gq-");
    const env = { ...process.env, HOME: path.join(root, "home"), LOOP_SENTINEL_HOME: path.join(root, "ls"), GEMINI_CLI_HOME: path.join(root, "gemini"), QWEN_HOME: path.join(root, "qwen") };
    const script = path.join(root, "agent-hook.js");
    fs.writeFileSync(script, "// hook\n");
    return { root, env, script };
  }

  it("homes: GEMINI_CLI_HOME stands for the home folder, QWEN_HOME for ~/.qwen; without them, the user's home", () => {
    const { root, env } = sandbox();
    assert.equal(hookFileFor("gemini", undefined, env), path.join(root, "gemini", ".gemini", "settings.json"));
    assert.equal(hookFileFor("qwen", undefined, env), path.join(root, "qwen", "settings.json"));
    const bare = { HOME: "/h" };
    assert.equal(hookFileFor("gemini", undefined, bare), path.join("/h", ".gemini", "settings.json"));
    assert.equal(hookFileFor("qwen", undefined, bare), path.join("/h", ".qwen", "settings.json"));
    assert.equal(hookFileFor("gemini", "/p", bare), path.join("/p", ".gemini", "settings.json"));
    assert.equal(hookFileFor("qwen", "/p", bare), path.join("/p", ".qwen", "settings.json"));
  });

  it("merges into the agent's own settings beside the user's hooks, each agent's events and time units, and puts the file back byte for byte", () => {
    const { env, script } = sandbox();
    const originals: Record<string, string> = {
      gemini: '{\n    "general": {"vimMode": true},\n    "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "echo mine", "timeout": 5000}]}]}\n}\n',
      qwen: '{"security": {"auth": {"selectedType": "openai"}}, "hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "echo mine"}]}]}}',
    };
    for (const agent of ["gemini", "qwen"] as const) {
      const file = hookFileFor(agent, undefined, env);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, originals[agent]);
      assert.equal(installAgentHook({ agent, script, runtime: "/usr/bin/node", env }).state, "installed");
      const doc = JSON.parse(fs.readFileSync(file, "utf8"));
      const events = agent === "gemini" ? ["BeforeTool", "AfterTool", "BeforeAgent"] : ["PreToolUse", "PostToolUse", "PostToolUseFailure"];
      assert.deepEqual(Object.keys(doc.hooks).sort(), [...events].sort(), agent);
      const first = agent === "gemini" ? "BeforeTool" : "PreToolUse";
      assert.equal(doc.hooks[first].length, 2, `${agent}: the user's entry and ours`);
      assert.equal(doc.hooks[first][0].hooks[0].command, "echo mine");
      const ours = doc.hooks[first][1].hooks[0];
      assert.match(ours.command, new RegExp(`loop-sentinel-agent-hook\\.js' ${agent}$`));
      assert.equal(ours.timeout, agent === "gemini" ? 30_000 : 30, "Gemini counts milliseconds, Qwen seconds");
      assert.equal(agentHookStatus(agent, undefined, env).state, "installed");
      installAgentHook({ agent, script, runtime: "/usr/bin/node", env });
      assert.equal(JSON.parse(fs.readFileSync(file, "utf8")).hooks[first].length, 2, "installed again: refreshed, not doubled");
      uninstallAgentHook(agent, undefined, env);
      assert.equal(fs.readFileSync(file, "utf8"), originals[agent], agent);
      assert.equal(agentHookStatus(agent, undefined, env).state, "absent");
    }
  });

  it("Gemini rewrites its own settings (it migrates old keys): uninstall then keeps its changes and takes out only our entries", () => {
    const { env, script } = sandbox();
    installAgentHook({ agent: "gemini", script, env });
    const file = hookFileFor("gemini", undefined, env);
    const doc = JSON.parse(fs.readFileSync(file, "utf8"));
    doc.general = { enableAutoUpdate: false };
    fs.writeFileSync(file, JSON.stringify(doc, null, 2));
    uninstallAgentHook("gemini", undefined, env);
    assert.deepEqual(JSON.parse(fs.readFileSync(file, "utf8")), { general: { enableAutoUpdate: false } });
  });

  it("a settings file with comments (Gemini allows them) is left alone and reported", () => {
    const { env, script } = sandbox();
    const file = hookFileFor("gemini", undefined, env);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '{\n  // mine\n  "general": {}\n}\n');
    const r = installAgentHook({ agent: "gemini", script, env });
    assert.equal(r.state, "unreadable");
    assert.equal(fs.readFileSync(file, "utf8"), '{\n  // mine\n  "general": {}\n}\n');
  });

  it("`loop-sentinel hooks install|status|uninstall gemini|qwen --project` in a project's own folder, which is left as it was", function () {
    this.timeout(60_000);
    const { root, env } = sandbox();
    const project = path.join(root, "proj");
    fs.mkdirSync(project);
    const cli = (...args: string[]) => spawnSync(process.execPath, [path.join(REPO, "dist", "cli.js"), "hooks", ...args], { env, encoding: "utf8" });
    for (const agent of ["gemini", "qwen"]) {
      const install = cli("install", agent, "--project", project);
      assert.equal(install.status, 0, install.stderr);
      const status = cli("status", agent, "--project", project);
      assert.equal(status.status, 0);
      assert.match(status.stdout, agent === "gemini" ? /Gemini CLI is installed/ : /Qwen Code is installed/);
      assert.ok(fs.existsSync(path.join(project, `.${agent}`, "settings.json")));
      assert.equal(cli("uninstall", agent, "--project", project).status, 0);
    }
    assert.deepEqual(fs.readdirSync(project), [], "the folders the install made are gone");
    const bad = cli("install", "gemini-cli");
    assert.equal(bad.status, 2, "an agent it does not know is a usage error");
    assert.match(bad.stderr, /claude, copilot, codex, gemini, qwen/);
  });
});

describe("Gemini CLI and Qwen Code hooks: the bundled hook", () => {
  it("fails open on garbage and answers an identical loop in each one's words", function () {
    this.timeout(60_000);
    const script = path.join(REPO, "dist", "agent-hook.js");
    for (const agent of ["gemini", "qwen"] as const) {
      const env = { ...process.env, LOOP_SENTINEL_CHANNEL_DIR: path.join(tempDir("lsa-gq-"), "ch") };
      const run = (input: string) => spawnSync(process.execPath, [script, agent], { input, env, encoding: "utf8" });
      const garbage = run("{{{");
      assert.equal(garbage.status, 0);
      assert.equal(garbage.stdout, "");
      const pre = JSON.parse(one(agent, agent === "gemini" ? "02-BeforeTool.json" : "01-PreToolUse.json")) as Record<string, unknown>;
      const post = JSON.parse(one(agent, agent === "gemini" ? "03-AfterTool.json" : "02-PostToolUse.json")) as Record<string, unknown>;
      // The session file the recording named is not on every machine: none is read here.
      pre.transcript_path = post.transcript_path = path.join(os.tmpdir(), "no-such-session.jsonl");
      const outs: string[] = [];
      for (let i = 1; i <= 5; i++) {
        const ids = agent === "qwen" ? { tool_call_id: `call_${i}`, tool_use_id: `toolu_${i}` } : {};
        outs.push(run(JSON.stringify({ ...pre, ...ids })).stdout.trim());
        if (i < 5) outs.push(run(JSON.stringify({ ...post, ...ids })).stdout.trim());
      }
      // Pre and post of calls 1-4, then the 5th call: guidance after the 3rd result, the 5th refused.
      assert.deepEqual(outs.map((o) => o === "" ? "-" : "answer"), ["-", "-", "-", "-", "-", "answer", "-", "-", "answer"], `${agent}: ${outs.join(" | ")}`);
      const refusal = JSON.parse(outs[8]) as Record<string, unknown>;
      if (agent === "gemini") assert.equal(refusal.decision, "deny");
      else assert.equal((refusal.hookSpecificOutput as Record<string, unknown>).permissionDecision, "deny");
    }
  });
});
