import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Intervention } from "../../src/engine/session";
import { ClineActions, STOP_AND_RESTART_LABEL, type ClineApi } from "../../src/hosts/cline/actions";
import { ClineWatcher, type ClineTaskEvent } from "../../src/hosts/cline/watcher";

class FakeCline implements ClineApi {
  calls: string[] = [];
  async startNewTask(task?: string) { this.calls.push(`startNewTask ${task}`); }
  async sendMessage(message?: string) { this.calls.push(`sendMessage ${message}`); }
  async pressPrimaryButton() { this.calls.push("pressPrimaryButton"); }
  async pressSecondaryButton() { this.calls.push("pressSecondaryButton"); }
}

function iv(action: Intervention["action"], message: string, toolCallId?: string): Intervention {
  return { event: 0, detector: "tool-repeat", action, message, evidence: { events: [], count: 3 }, key: "k", summary: "s", toolCallId };
}

let mtime = Date.now() / 1000;
function setup() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "ls-cline-act-"));
  const file = path.join(root, "tasks", "100", "ui_messages.json");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const api = new FakeCline();
  const events: ClineTaskEvent[] = [];
  let actions: ClineActions;
  const watcher = new ClineWatcher({
    roots: [root],
    onEvent: (e) => events.push(e),
    isEcho: (id, text) => actions.isEcho(id, text),
    onTaskChange: (id) => { void actions.onTaskChange(id); },
  });
  actions = new ClineActions({ api: () => api, snapshot: (id) => watcher.snapshot(id), currentTaskId: () => watcher.latestTaskId(), log: () => {} });
  const write = (messages: unknown[]) => { fs.writeFileSync(file, JSON.stringify(messages)); mtime += 1; fs.utimesSync(file, mtime, mtime); watcher.poll(); };
  return { api, actions, watcher, write, events };
}

const base = [
  { ts: 1, type: "say", say: "task", text: "List the files" },
  { ts: 2, type: "say", say: "api_req_started", text: JSON.stringify({ request: "<task>List the files</task>" }) },
];

describe("Cline actions (through its four-function API)", () => {
  it("holds a warning while Cline streams, sends it when Cline waits, and ignores it when it comes back", async () => {
    const { api, actions, write, events } = setup();
    write([...base, { ts: 3, type: "say", say: "text", text: "Working", partial: true }]);
    const outcome = await actions.act("100", iv("warn", "Loop Sentinel: stop listing"));
    assert.deepEqual([outcome.ok, api.calls], [true, []]);
    assert.match(outcome.done, /held/);
    write([...base, { ts: 3, type: "say", say: "text", text: "Working" }, { ts: 4, type: "ask", ask: "followup", text: JSON.stringify({ question: "Go on?" }) }]);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(api.calls, ["sendMessage Loop Sentinel: stop listing"]);
    // Cline writes the reply into the task as user feedback: not a new user turn.
    write([...base, { ts: 3, type: "say", say: "text", text: "Working" }, { ts: 4, type: "ask", ask: "followup", text: "{}" }, { ts: 5, type: "say", say: "user_feedback", text: "Loop Sentinel: stop listing" }]);
    assert.equal(events.filter((e) => e.event.t === "user").length, 1);
  });

  it("refuses a pending command approval by replying with the feedback", async () => {
    const { api, actions, write } = setup();
    write([...base, { ts: 7, type: "ask", ask: "command", text: "ls" }]);
    const outcome = await actions.act("100", iv("block", "Loop Sentinel refused this call", "cline-7"));
    assert.deepEqual([outcome.ok, api.calls], [true, ["sendMessage Loop Sentinel refused this call"]]);
  });

  it("does not refuse a different call than the one pending, and holds the guidance instead", async () => {
    const { api, actions, write } = setup();
    write([...base, { ts: 7, type: "say", say: "command", text: "ls" }, { ts: 8, type: "ask", ask: "command", text: "rm -rf build" }]);
    const outcome = await actions.act("100", iv("block", "no", "cline-7"));
    assert.deepEqual(api.calls, []);
    assert.match(outcome.done, /held/);
  });

  it("stops by starting a new task that carries the task so far and the guidance", async () => {
    const { api, actions, write } = setup();
    write([...base, { ts: 3, type: "say", say: "command", text: "ls" }, { ts: 4, type: "ask", ask: "command_output", text: "README.txt" }]);
    const outcome = await actions.act("100", iv("stop", "Try something else."));
    assert.ok(outcome.ok);
    assert.ok(outcome.done.startsWith(STOP_AND_RESTART_LABEL));
    assert.equal(api.calls.length, 1);
    const prompt = api.calls[0];
    assert.match(prompt, /^startNewTask /);
    assert.match(prompt, /Original task: List the files/);
    assert.match(prompt, /- execute_command ls/);
    assert.match(prompt, /Guidance: Try something else\./);
  });

  it("acts only on Cline's current task and never throws", async () => {
    const { actions, write } = setup();
    write(base);
    assert.equal((await actions.act("other", iv("warn", "x"))).ok, false);
    const failing = new FakeCline();
    failing.sendMessage = async () => { throw new Error("webview gone"); };
    const broken = new ClineActions({ api: () => failing, snapshot: () => ({ taskId: "1", layout: "classic", file: "", changedAt: 0, digest: undefined as never, lastMessage: { type: "ask", ask: "followup" } }), currentTaskId: () => "1", log: () => {} });
    const outcome = await broken.act("1", iv("warn", "x"));
    assert.deepEqual([outcome.ok, /webview gone/.test(outcome.done)], [false, true]);
  });
});

describe("Cline actions after the PreToolUse hook refused a call (classic engine)", () => {
  it("holds the guidance until Cline asks to resume the cancelled task, then answers with it", async () => {
    const { api, actions, write } = setup();
    const command = { ts: 3, type: "say", say: "command", text: "ls" };
    const hookRows = [
      { ts: 4, type: "say", say: "hook_status", text: JSON.stringify({ hookName: "PreToolUse", status: "cancelled" }) },
      { ts: 5, type: "say", say: "hook_output_stream", text: "[global stdout Cline/Hooks/PreToolUse] {\"cancel\":true}" },
    ];
    write([...base, command, ...hookRows]);
    const outcome = await actions.act("100", iv("block", "Loop Sentinel refused this call: stop listing", "cline-3"), true);
    assert.match(outcome.done, /PreToolUse hook refused the call.*held/);
    assert.deepEqual(api.calls, []);
    write([...base, command, ...hookRows, { ts: 6, type: "ask", ask: "resume_task" }]);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(api.calls, ["sendMessage Loop Sentinel refused this call: stop listing"]);
  });
});
