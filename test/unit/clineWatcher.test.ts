import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ClineWatcher, type ClineTaskEvent } from "../../src/hosts/cline/watcher";

function tempRoot(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "ls-cline-watch-"));
}

/** Writes like Cline's atomicWriteFile: a temporary file beside it, then a rename. */
function atomicWrite(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp.${Date.now()}.${Math.random().toString(36).slice(2, 8)}.json`;
  fs.writeFileSync(tmp, JSON.stringify(value));
  fs.renameSync(tmp, file);
}

/** A new mtime for every write, even within one clock tick. */
let clock = Date.now() / 1000;
function touch(file: string): void { clock += 1; fs.utimesSync(file, clock, clock); }

function watcherOn(root: string, extra: Partial<ConstructorParameters<typeof ClineWatcher>[0]> = {}) {
  const events: ClineTaskEvent[] = [];
  const errors: string[] = [];
  const w = new ClineWatcher({ roots: [root], onEvent: (e) => events.push(e), onError: (m) => errors.push(m), ...extra });
  return { w, events, errors };
}

describe("ClineWatcher (live task files)", () => {
  it("follows a classic task rewritten per chunk through temporary files, emitting only what is new", () => {
    const root = tempRoot();
    const file = path.join(root, "data", "tasks", "1700000000000", "ui_messages.json");
    const { w, events, errors } = watcherOn(root);
    w.poll(); // nothing there yet: no error
    const thought = "Let me check the listing again before answering. ";
    const messages: Record<string, unknown>[] = [
      { ts: 1, type: "say", say: "task", text: "List the files" },
      { ts: 2, type: "say", say: "api_req_started", text: JSON.stringify({ request: "<task>List the files</task>" }) },
      { ts: 3, type: "say", say: "reasoning", text: "", partial: true },
    ];
    for (let i = 1; i <= 6; i++) {
      messages[2].text = thought.repeat(i);
      atomicWrite(file, messages);
      touch(file);
      // A leftover temporary file from an interrupted write must be ignored.
      fs.writeFileSync(`${file}.tmp.123.abc.json`, "[{");
      w.poll();
    }
    const reasoning = events.filter((e) => e.event.t === "reasoning");
    assert.ok(!events.some((e) => e.taskId.includes("tmp")));
    assert.equal(reasoning.length, 6);
    assert.equal(reasoning.map((e) => (e.event.t === "reasoning" ? e.event.delta : "")).join(""), thought.repeat(6));
    assert.ok(reasoning.every((e) => e.source.partial && e.source.kind === "say:reasoning"));
    assert.deepEqual(events.filter((e) => e.event.t !== "reasoning").map((e) => e.event.t), ["user", "request"]);
    assert.equal(events[0].title, "List the files");
    assert.deepEqual(errors, []);
  });

  it("tolerates a half-written file and a file that vanishes between polls", () => {
    const root = tempRoot();
    const file = path.join(root, "tasks", "1", "ui_messages.json");
    const { w, events, errors } = watcherOn(root);
    const full = JSON.stringify([{ ts: 1, type: "say", say: "task", text: "hello" }, { ts: 2, type: "say", say: "text", text: "Hi there" }]);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, full.slice(0, full.length - 12));
    w.poll();
    assert.deepEqual(events.map((e) => e.event.t), ["user"]);
    fs.rmSync(file);
    w.poll();
    fs.writeFileSync(file, full);
    touch(file);
    w.poll();
    assert.deepEqual(events.map((e) => e.event.t), ["user", "request", "text"]);
    assert.deepEqual(errors, []);
  });

  it("reports a file that is not Cline's once, and goes on watching the others", () => {
    const root = tempRoot();
    fs.mkdirSync(path.join(root, "tasks", "bad"), { recursive: true });
    fs.writeFileSync(path.join(root, "tasks", "bad", "ui_messages.json"), '{"not":"an array"}');
    const { w, errors } = watcherOn(root);
    w.poll(); w.poll();
    assert.equal(errors.length, 1);
    assert.match(errors[0], /ui_messages\.json/);
  });

  it("reads history without emitting it, then emits what a resumed task adds", () => {
    const root = tempRoot();
    const file = path.join(root, "tasks", "9", "ui_messages.json");
    const start = Date.now();
    const old = [{ ts: start - 86_400_000, type: "say", say: "task", text: "old task" }, { ts: start - 86_399_000, type: "say", say: "command", text: "ls" }];
    atomicWrite(file, old);
    fs.utimesSync(file, (start - 86_000_000) / 1000, (start - 86_000_000) / 1000);
    const { w, events } = watcherOn(root, { historyBefore: start });
    w.poll();
    assert.equal(events.length, 0);
    atomicWrite(file, [...old, { ts: start + 5, type: "say", say: "user_feedback", text: "go on" }, { ts: start + 6, type: "say", say: "command", text: "ls" }]);
    touch(file);
    // An idle task is checked less often than a busy one: within a few polls.
    for (let i = 0; i < 25; i++) w.poll();
    assert.deepEqual(events.map((e) => e.event.t), ["user", "tool_call"]);
    assert.equal(w.snapshot("9")?.digest.title, "old task");
  });

  it("follows a v4 session file rewritten per turn and tells when Cline waits (classic asks)", () => {
    const root = tempRoot();
    const id = "1700000000000_abcde";
    const file = path.join(root, "sessions", id, `${id}.messages.json`);
    const { w, events } = watcherOn(root);
    const messages: Record<string, unknown>[] = [
      { id: "u", role: "user", ts: 1, content: [{ type: "text", text: '<user_input mode="act">List files</user_input>' }] },
      { id: "a1", role: "assistant", ts: 2, content: [{ type: "tool_use", id: "c1", name: "run_commands", input: { commands: ["ls"] } }] },
    ];
    atomicWrite(file, { version: 1, sessionId: id, messages });
    w.poll();
    messages.push({ id: "r1", role: "user", ts: 3, content: [{ type: "tool_result", tool_use_id: "c1", content: [{ query: "ls", result: "README.txt\n", success: true }] }] });
    atomicWrite(file, { version: 1, sessionId: id, updated_at: "later", messages });
    touch(file);
    w.poll();
    assert.deepEqual(events.map((e) => e.event.t), ["user", "request", "tool_call", "end", "tool_result"]);
    assert.equal(events[0]?.layout, "v4");
    assert.equal(w.latestTaskId(), id);

    const classicFile = path.join(root, "tasks", "5", "ui_messages.json");
    atomicWrite(classicFile, [{ ts: 1, type: "say", say: "task", text: "t" }, { ts: 2, type: "ask", ask: "followup", text: JSON.stringify({ question: "Which folder?" }) }]);
    touch(classicFile);
    w.poll();
    assert.equal(w.snapshot("5")?.lastMessage?.ask, "followup");
  });
});

describe("Cline data folders", () => {
  it("watches configured folders first, then the extension's storage, CLINE_DATA_DIR and ~/.cline/data, once each", () => {
    const { clineDataRoots } = require("../../src/hosts/cline/locations") as typeof import("../../src/hosts/cline/locations");
    const roots = clineDataRoots("/gs", { CLINE_DATA_DIR: "/custom/data" }, ["/mine", "/mine/"], "/home/u");
    assert.deepEqual(roots, ["/mine", "/gs/saoudrizwan.claude-dev", "/custom/data", "/home/u/.cline/data"]);
  });
});
