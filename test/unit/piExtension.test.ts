/**
 * The pi extension on the events the real pi 0.73.1 sent it (test/fixtures/pi-extension/*.jsonl,
 * recorded by `RECORD_PI_FIXTURES=1 npm run test:e2e:pi`), replayed in their order through the
 * guard with fake actions: the verdicts it reached live, warn-only, productive sessions left
 * alone, bad input that must never reach pi as a throw, and the shipped bundle as pi loads it.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { defaultConfig, resolveConfig } from "../../src/engine/config";
import { cutMarker, PiGuard, type PiActions, type PiRecord } from "../../src/hosts/pi/guard";
import { PiTranslator } from "../../src/hosts/pi/translator";
import type { PiContext, PiExtensionApi, PiMessage } from "../../src/hosts/pi/piApi";

const FIXTURES = path.resolve(__dirname, "../../../test/fixtures/pi-extension");
const BUNDLE = path.resolve(__dirname, "../../../dist/pi-extension.js");

interface Recorded { at: number; event: string; data: Record<string, unknown> }

function load(name: string): Recorded[] {
  return fs.readFileSync(path.join(FIXTURES, `${name}.jsonl`), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}

interface Done {
  steered: string[];
  resumed: string[];
  notes: string[];
  notified: string[];
  aborts: number;
  records: PiRecord[];
  /** Per tool_call: the call id and the refusal, if any. */
  calls: [string, string | undefined][];
  replaced: PiMessage[];
}

function fakeActions(done: Done): PiActions {
  return {
    async abortAndWait() { done.aborts++; return true; },
    steer(text) { done.steered.push(text); },
    resume(text) { done.resumed.push(text); },
    leaveNote(text) { done.notes.push(text); },
    notify(text) { done.notified.push(text); },
    status() { /* footer */ },
  };
}

/** Replays a recording through a fresh guard; resolves once the actions it started have run. */
async function replay(name: string, settings: Record<string, unknown> = {}): Promise<Done> {
  const done: Done = { steered: [], resumed: [], notes: [], notified: [], aborts: 0, records: [], calls: [], replaced: [] };
  let now = 0;
  const engine = resolveConfig(settings).config;
  const guard = new PiGuard({ actions: fakeActions(done), settings: () => ({ engine, warnings: [] }), report: (r) => done.records.push(r), now: () => now });
  for (const { at, event, data } of load(name)) {
    now = at;
    switch (event) {
      case "before_agent_start": guard.prompt(data.prompt); break;
      case "message_start": guard.messageStart(data.message as PiMessage); break;
      case "message_update": guard.messageUpdate(data.assistantMessageEvent as never); break;
      case "message_end": { const r = guard.messageEnd(data.message as PiMessage); if (r) done.replaced.push(r); break; }
      case "tool_call": done.calls.push([String(data.toolCallId), guard.toolCall(data as never)?.reason]); break;
      case "tool_result": guard.toolResult(data as never); break;
    }
  }
  await new Promise((r) => setImmediate(r));
  return done;
}

const actions = (d: Done) => d.records.filter((r) => r.type === "intervention").map((r) => (r as { action: string }).action);

describe("pi extension: the guard on what the real pi sent it", () => {
  it("identical calls: warned at the 3rd, the 5th and 6th refused with the reason, the 7th refused by the stop", async () => {
    const d = await replay("identical-calls");
    assert.deepEqual(actions(d), ["warn", "block", "block", "stop"]);
    assert.equal(d.steered.length, 1);
    assert.match(d.steered[0], /^Loop Sentinel: bash ls called 3 times/);
    const refused = d.calls.map(([, r], i) => (r === undefined ? undefined : i + 1)).filter((n) => n !== undefined);
    assert.deepEqual(refused, [5, 6, 7]);
    assert.match(d.calls[4][1]!, /^Loop Sentinel refused this call/);
    assert.match(d.calls[6][1]!, /^Loop Sentinel stopped the task/);
    // The stop ends the run (one abort) and leaves its reason in the session; nothing resumes it.
    assert.equal(d.aborts, 1);
    assert.equal(d.notes.length, 1);
    assert.deepEqual(d.resumed, []);
  });

  it("a reasoning loop: the stream is cut, the cut response replaced by a marker, the guidance starts the next turn", async () => {
    const d = await replay("reasoning-loop");
    assert.deepEqual(actions(d), ["abort"]);
    assert.equal(d.aborts, 1);
    assert.equal(d.replaced.length, 1);
    assert.deepEqual(d.replaced[0].content, [{ type: "text", text: cutMarker((d.records.find((r) => r.type === "intervention") as { summary: string }).summary) }]);
    assert.equal(d.resumed.length, 1);
    assert.match(d.resumed[0], /^Loop Sentinel stopped your last response/);
  });

  it("the same answer after each \"continue\": cut whole at the 2nd answer's end (marked aborted), stopped at the 3rd", async () => {
    const d = await replay("nudged-same-answer");
    assert.deepEqual(actions(d), ["abort", "stop"]);
    assert.equal(d.replaced.length, 2);
    assert.ok(d.replaced.every((m) => m.stopReason === "aborted" && /Loop Sentinel cut this response/.test(JSON.stringify(m.content))));
    assert.equal(d.resumed.length, 1);
    assert.equal(d.notes.length, 1);
  });

  it("a failing command retried: warned, refused, then stopped", async () => {
    const d = await replay("failing-command");
    assert.deepEqual(actions(d), ["warn", "block", "stop"]);
  });

  it("re-reads of an unchanged file: warned, refused, then stopped", async () => {
    const d = await replay("rereads");
    assert.equal(actions(d)[0], "warn");
    assert.equal(actions(d).at(-1), "stop");
  });

  for (const name of ["retests-after-edits", "polling", "paging"]) {
    it(`${name} (productive): no intervention, nothing sent`, async () => {
      const d = await replay(name);
      assert.deepEqual(actions(d), []);
      assert.deepEqual([d.steered, d.resumed, d.notes, d.aborts], [[], [], [], 0]);
      assert.ok(d.calls.length >= 6 && d.calls.every(([, r]) => r === undefined));
    });
  }

  it("warn-only: every verdict only told to the user; nothing refused, cut or sent", async () => {
    const d = await replay("warn-only", { mode: "warnOnly" });
    assert.ok(actions(d).length > 0 && actions(d).every((a) => a === "warn"));
    assert.deepEqual([d.steered, d.resumed, d.notes, d.aborts], [[], [], [], 0]);
    assert.ok(d.calls.every(([, r]) => r === undefined));
    assert.ok(d.notified.some((n) => /warn-only/.test(n)));
  });

  it("a loop seen only as a response ends (the same answer again): it is marked aborted in place, kept out of the next request, and the guidance resumes", async () => {
    const done: Done = { steered: [], resumed: [], notes: [], notified: [], aborts: 0, records: [], calls: [], replaced: [] };
    const guard = new PiGuard({ actions: fakeActions(done), settings: () => ({ engine: defaultConfig(), warnings: [] }), report: (r) => done.records.push(r), now: () => 0 });
    guard.prompt("Fix the bug in total.js.");
    const text = "I need to look at total.js again and work out why the sum is wrong before I change anything in it.";
    const answer = (): PiMessage | undefined => {
      guard.messageStart({ role: "assistant", content: [] });
      for (let i = 0; i < text.length; i += 9) guard.messageUpdate({ type: "text_delta", delta: text.slice(i, i + 9) });
      return guard.messageEnd({ role: "assistant", content: [{ type: "text", text }], stopReason: "stop" });
    };
    assert.equal(answer(), undefined);
    assert.equal(done.aborts, 0);
    // The second answer says the same: only its end shows it (stagnation judges whole responses).
    const replaced = answer();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(actions(done), ["abort"]);
    assert.equal(replaced?.stopReason, "aborted");
    assert.match(JSON.stringify(replaced?.content), /\[Loop Sentinel cut this response/);
    assert.equal(done.aborts, 1);
    assert.equal(done.resumed.length, 1);
    assert.match(done.resumed[0], /^Loop Sentinel stopped your last response/);
  });

  it("bad input never throws into pi; a failing engine lets the call through and says why", async () => {
    const records: PiRecord[] = [];
    const done: Done = { steered: [], resumed: [], notes: [], notified: [], aborts: 0, records, calls: [], replaced: [] };
    const guard = new PiGuard({ actions: fakeActions(done), settings: () => ({ engine: defaultConfig(), warnings: [] }), report: (r) => records.push(r), now: () => 0 });
    guard.prompt(undefined);
    guard.prompt(42);
    guard.messageStart(undefined);
    guard.messageUpdate(undefined);
    guard.messageUpdate({ type: "thinking_delta", delta: { not: "text" } });
    assert.equal(guard.messageEnd({ role: "assistant", content: "not a list", stopReason: 7 }), undefined);
    assert.equal(guard.toolCall({ type: "tool_call", toolCallId: undefined as never, toolName: "bash", input: null as never }), undefined);
    guard.toolResult({ type: "tool_result", toolCallId: 5 as never, toolName: "bash", input: {}, content: [{ nope: 1 }], isError: "yes" as never });
    const hostile = { get command(): string { throw new Error("boom"); } };
    assert.equal(guard.toolCall({ type: "tool_call", toolCallId: "c1", toolName: "bash", input: hostile }), undefined);
    assert.ok(records.some((r) => r.type === "error" && /while handling tool_call: Error: boom/.test(r.message)));
  });

  it("the translator: thinking and text deltas are the stream, tool-call deltas are not; usage from pi's fields", () => {
    const t = new PiTranslator();
    assert.deepEqual(t.messageUpdate({ type: "thinking_delta", delta: "hm" }, 1), [{ t: "request", ts: 1 }, { t: "reasoning", delta: "hm", ts: 1 }]);
    assert.deepEqual(t.messageUpdate({ type: "toolcall_delta", delta: "{\"a\"" }, 2), []);
    assert.deepEqual(t.messageUpdate({ type: "text_delta", delta: "ok" }, 3), [{ t: "text", delta: "ok", ts: 3 }]);
    assert.deepEqual(t.messageEnd({ role: "assistant", usage: { input: 10, cacheRead: 5, cacheWrite: 0, output: 3, cost: { total: 0.5 } } }, 4), [{ t: "end", usage: { tokensIn: 15, tokensOut: 3, cost: 0.5 }, ts: 4 }]);
    // A refused call with nothing answered before it tells nothing; after an answer it stands for it.
    t.toolCall({ type: "tool_call", toolCallId: "a", toolName: "bash", input: { command: "ls" } }, 5);
    assert.deepEqual(t.refused("a", 6), []);
    t.toolResult({ type: "tool_result", toolCallId: "a", toolName: "bash", input: {}, content: [{ type: "text", text: "x.txt" }], isError: false }, 7);
    t.toolCall({ type: "tool_call", toolCallId: "b", toolName: "bash", input: { command: "ls" } }, 8);
    assert.deepEqual(t.refused("b", 9), [{ t: "tool_result", id: "b", ok: true, output: "x.txt", ts: 9 }]);
  });
});

describe("pi extension: the shipped bundle as pi loads it", () => {
  let dir: string;
  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-pi-")); });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  function load(): { handlers: Map<string, (e: unknown, c: PiContext) => unknown>; command: { handler: (a: string, c: PiContext) => Promise<void> }; sent: unknown[] } {
    const factory = require(BUNDLE);
    // pi's loader (jiti) takes the module itself as the factory: not an object with `default`.
    assert.equal(typeof factory, "function");
    const handlers = new Map<string, (e: unknown, c: PiContext) => unknown>();
    let command: { handler: (a: string, c: PiContext) => Promise<void> } | undefined;
    const sent: unknown[] = [];
    const pi: PiExtensionApi = {
      on: (event, handler) => { handlers.set(event, handler as never); },
      registerCommand: (name, options) => { assert.equal(name, "loop-sentinel"); command = options; },
      sendMessage: (m, o) => { sent.push([m, o]); },
    };
    factory(pi);
    return { handlers, command: command!, sent };
  }

  it("registers its events and /loop-sentinel; the command switches it off, warn-only and on, and says so", async () => {
    process.env.LOOP_SENTINEL_PI_REPORT = path.join(dir, "report.jsonl");
    process.env.LOOP_SENTINEL_CONFIG = path.join(dir, "absent.json");
    try {
      const { handlers, command } = load();
      for (const e of ["before_agent_start", "message_start", "message_update", "message_end", "tool_call", "tool_result"]) assert.ok(handlers.has(e), e);
      const told: string[] = [];
      const ctx: PiContext = { ui: { notify: (m) => told.push(m), setStatus: () => {} }, hasUI: true, cwd: dir, isIdle: () => true, abort: () => undefined };
      await command.handler("off", ctx);
      await command.handler("warn-only", ctx);
      await command.handler("", ctx);
      await command.handler("bogus", ctx);
      assert.match(told[0], /^Loop Sentinel: off/);
      assert.match(told[1], /^Loop Sentinel: on, warn-only/);
      assert.match(told[2], /^Loop Sentinel: on, warn-only/);
      assert.match(told[3], /expected one of status, on, off, warn-only, reset/);
      // A throw from tool_call would refuse the call in pi: garbage gets undefined (the call runs).
      assert.equal(await handlers.get("tool_call")!(undefined, ctx), undefined);
    } finally {
      delete process.env.LOOP_SENTINEL_PI_REPORT;
      delete process.env.LOOP_SENTINEL_CONFIG;
    }
  });
});
