/** Tasks in editor tabs (no API events) are still watched from their files. */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { HostSessionEvent } from "../../src/hosts/hostAdapter";
import { TaskFolderWatcher } from "../../src/hosts/roo/taskFiles";
import type { RooMessage } from "../../src/hosts/roo/messages";
import { createRooHostAdapters, type ExtensionLike, type RooHostAdapter } from "../../src/hosts/roo/adapter";
import { fakeRoo, waitUntil } from "./rooTestKit";

function writeTask(dir: string, id: string, messages: RooMessage[]): void {
  fs.mkdirSync(path.join(dir, id), { recursive: true });
  // As Roo does: write a temp file, rename it into place.
  const tmp = path.join(dir, id, `.ui_messages.json.new_${Date.now()}.tmp`);
  fs.writeFileSync(tmp, JSON.stringify(messages));
  fs.renameSync(tmp, path.join(dir, id, "ui_messages.json"));
}

/** Makes sure a rewrite gets a new mtime even on coarse clocks. */
function bumpMtime(dir: string, id: string, seconds: number): void {
  const t = new Date(Date.now() + seconds * 1000);
  fs.utimesSync(path.join(dir, id, "ui_messages.json"), t, t);
}

describe("Roo task files (editor-tab tasks)", () => {
  let dir: string;
  let events: HostSessionEvent[];
  let apiTasks: Set<string>;
  let watcher: TaskFolderWatcher;
  const now = Date.now();

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "roo-tasks-"));
    events = [];
    apiTasks = new Set();
    watcher = new TaskFolderWatcher({ hostId: "roo-code", label: "Roo Code", tasksDir: dir, emit: (e) => events.push(e), log: () => undefined, isApiTask: (id) => apiTasks.has(id), pollMs: 60_000, now: () => now });
  });
  afterEach(() => watcher.dispose());

  it("history present at startup is not replayed; a new task's messages are, in order", async () => {
    writeTask(dir, "old-task", [{ ts: now - 50_000, type: "say", say: "text", text: "old" }]);
    await watcher.poll();
    assert.equal(events.length, 0);
    writeTask(dir, "tab-task", [
      { ts: now + 1, type: "say", say: "text", text: "Refactor the cart" },
      { ts: now + 2, type: "say", say: "api_req_started", text: "{}" },
      { ts: now + 3, type: "ask", ask: "tool", text: JSON.stringify({ tool: "readFile", path: "src/cart.ts" }) },
    ]);
    await watcher.poll();
    assert.deepEqual(events.map((e) => `${e.taskId}:${e.event.t}`), ["tab-task:user", "tab-task:request", "tab-task:tool_call"]);
    assert.equal(events[0].title, "Refactor the cart");
  });

  it("a rewrite passes on only what is new or changed since the last read", async () => {
    await watcher.poll();
    const first: RooMessage[] = [
      { ts: now + 1, type: "say", say: "text", text: "go" },
      { ts: now + 2, type: "say", say: "api_req_started", text: "{}" },
      { ts: now + 3, type: "say", say: "reasoning", text: "I'll mention that I verified with tests.\n", partial: true },
    ];
    writeTask(dir, "t", first);
    await watcher.poll();
    const before = events.length;
    writeTask(dir, "t", [...first.slice(0, 2), { ...first[2], text: "I'll mention that I verified with tests.\nI'll mention that I reverted the tests.\n", partial: false }]);
    bumpMtime(dir, "t", 5);
    await watcher.poll();
    const added = events.slice(before);
    assert.deepEqual(added.map((e) => e.event.t), ["reasoning"]);
    assert.equal(added[0].event.t === "reasoning" && added[0].event.delta, "I'll mention that I reverted the tests.\n");
  });

  it("tasks the API reports are not read from files; a file caught mid-rewrite is retried", async () => {
    await watcher.poll();
    apiTasks.add("sidebar-task");
    writeTask(dir, "sidebar-task", [{ ts: now + 1, type: "say", say: "text", text: "go" }]);
    fs.mkdirSync(path.join(dir, "tab"));
    fs.writeFileSync(path.join(dir, "tab", "ui_messages.json"), "[{\"ts\":");
    await watcher.poll();
    assert.equal(events.length, 0);
    writeTask(dir, "tab", [{ ts: now + 1, type: "say", say: "text", text: "go" }]);
    bumpMtime(dir, "tab", 5);
    await watcher.poll();
    assert.deepEqual(events.map((e) => e.taskId), ["tab"]);
  });

  it("through the adapter: file-only tasks are watched, and never acted on", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "globalStorage-"));
    const tasks = path.join(root, "rooveterinaryinc.roo-cline", "tasks");
    fs.mkdirSync(tasks, { recursive: true });
    const api = fakeRoo();
    const ext: ExtensionLike = { id: "RooVeterinaryInc.roo-cline", isActive: true, exports: api, packageJSON: { displayName: "Roo Code" }, activate: () => Promise.resolve(api) };
    const [roo] = createRooHostAdapters({ extensions: { all: [ext], onDidChange: () => ({ dispose() {} }) }, log: () => undefined, globalStorageRoot: root, taskPollMs: 20 }) as RooHostAdapter[];
    const seen: HostSessionEvent[] = [];
    roo.onEvent((e) => seen.push(e));
    await roo.start();
    assert.match(roo.status().detail, /task files for tasks open in editor tabs/);
    await new Promise((r) => setTimeout(r, 60));
    writeTask(tasks, "tab-task", [{ ts: Date.now() + 1, type: "say", say: "text", text: "From a tab" }]);
    await waitUntil(() => seen.some((e) => e.taskId === "tab-task"), 3000);
    const outcome = await roo.act("tab-task", { event: 0, detector: "line-repeat", action: "abort", message: "m", evidence: { events: [], count: 1 }, key: "k", summary: "s" });
    assert.equal(outcome.ok, false);
    assert.match(outcome.done, /editor tab/);
    assert.equal(api.__test.calls.filter((c) => c.method === "cancelCurrentTask").length, 0);
    roo.dispose();
  });
});
