import * as assert from "node:assert/strict";
import type { TraceEvent } from "../../src/engine/events";
import type { Intervention } from "../../src/engine/session";
import { defaultConfig, type EngineConfig } from "../../src/engine/config";
import { replayEvents } from "../../src/engine/replay";
import { Emitter, type Remedy, type ActionOutcome, type HostAdapter, type HostSessionEvent, type HostStatus } from "../../src/hosts/hostAdapter";
import { MAX_SESSIONS, MAX_TIMELINE, SessionManager, type ConfirmAnswer, type InterventionRecord } from "../../src/extension/sessionManager";
import type { ActionPolicy } from "../../src/extension/settings";

class FakeAdapter implements HostAdapter {
  readonly hostId = "fake";
  readonly label = "Fake Host";
  readonly acts: Array<{ taskId: string; action: string; message: string }> = [];
  state: HostStatus["state"] = "watching";
  failWith: Error | undefined;
  /** When set, act() reports guidance sent and settles its delivery with this later. */
  deliveryOf: ((iv: Intervention) => Promise<ActionOutcome>) | undefined;
  readonly events = new Emitter<HostSessionEvent>();
  private readonly statuses = new Emitter<HostStatus>();
  readonly onEvent = this.events.subscribe;
  readonly onStatusChange = this.statuses.subscribe;
  async start(): Promise<void> { this.statuses.fire(this.status()); }
  status(): HostStatus { return { hostId: this.hostId, label: this.label, state: this.state, detail: "test", sessions: 0 }; }
  async act(taskId: string, iv: Intervention): Promise<ActionOutcome> {
    if (this.failWith) throw this.failWith;
    this.acts.push({ taskId, action: iv.action, message: iv.message });
    if (this.deliveryOf) return { done: `sent ${iv.action}; waiting`, ok: true, delivery: this.deliveryOf(iv) };
    return { done: `did ${iv.action}`, ok: true };
  }
  emit(taskId: string, event: TraceEvent): void { this.events.fire({ hostId: this.hostId, taskId, event }); }
  handledByHost?: (taskId: string, iv: Intervention) => ActionOutcome | undefined;
  cannotAct?: (taskId: string, iv: Intervention) => Remedy | undefined;
  dispose(): void { this.events.dispose(); this.statuses.dispose(); }
}

const quietLog = { info() {}, warn() {}, error() {}, debug() {} };

function setup(opts: { mode?: EngineConfig["mode"]; policy?: ActionPolicy; answer?: ConfirmAnswer; now?: () => number } = {}) {
  const adapter = new FakeAdapter();
  const asked: Intervention[] = [];
  const errors: string[] = [];
  const notified: InterventionRecord[] = [];
  const manager = new SessionManager({
    log: { ...quietLog, error: (m: string) => errors.push(m) },
    confirm: async (_s, iv) => { asked.push(iv); return opts.answer ?? "dismiss"; },
    notify: (_s, r) => { notified.push({ ...r }); },
    now: opts.now,
  });
  const engine = defaultConfig();
  if (opts.mode) engine.mode = opts.mode;
  manager.configure({ engine, actionPolicy: opts.policy ?? "automatic" });
  manager.addAdapters([adapter]);
  return { adapter, manager, asked, errors, notified };
}

/** One identical read per request, identical output: tool-repeat warns at 3, blocks at 5, stops at 7. */
function readLoop(adapter: FakeAdapter, taskId: string, calls: number, from = 0, usage = 0): void {
  for (let i = from; i < from + calls; i++) {
    adapter.emit(taskId, { t: "request" });
    adapter.emit(taskId, { t: "tool_call", id: `${taskId}-c${i}`, name: "read_file", input: { path: "src/config.ts" } });
    adapter.emit(taskId, { t: "end", usage: usage ? { tokensIn: usage, tokensOut: 10, cost: 0.01 } : undefined });
    adapter.emit(taskId, { t: "tool_result", id: `${taskId}-c${i}`, ok: true, output: "1 | export const x = 1\n" });
  }
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe("session manager", () => {
  it("keeps one engine session per host task", () => {
    const { adapter, manager } = setup();
    adapter.emit("A", { t: "user", text: "fix config" });
    readLoop(adapter, "A", 2);
    readLoop(adapter, "B", 2);
    const snaps = manager.snapshots();
    assert.deepEqual(snaps.map((s) => s.key).sort(), ["fake:A", "fake:B"]);
    assert.equal(manager.snapshot("fake:A")!.title, "fix config");
    // Two calls in each task: neither reaches the warning at 3.
    assert.ok(snaps.every((s) => s.interventions.length === 0));
  });

  it("automatic policy: carries out exactly the engine's interventions, in order", async () => {
    const { adapter, manager } = setup();
    const seen: TraceEvent[] = [];
    const sub = adapter.onEvent((e) => seen.push(e.event));
    readLoop(adapter, "A", 7);
    sub.dispose();
    await settle();
    const expected = replayEvents(seen).interventions.map((i) => i.action);
    assert.ok(expected.includes("warn") && expected.includes("stop"), `the loop escalates: ${expected.join(",")}`);
    assert.deepEqual(adapter.acts.map((a) => a.action), expected);
    assert.ok(adapter.acts.every((a) => a.taskId === "A"));
    const snap = manager.snapshot("fake:A")!;
    assert.equal(snap.alert, "intervened");
    assert.deepEqual(snap.interventions.map((i) => i.outcome), expected.map((a) => `did ${a}`));
    assert.equal(manager.overall().kind, "intervened");
  });

  it("warn-only: never touches the task, only records the warnings", async () => {
    const { adapter, manager } = setup({ mode: "warnOnly" });
    readLoop(adapter, "A", 7);
    await settle();
    assert.deepEqual(adapter.acts, []);
    const snap = manager.snapshot("fake:A")!;
    assert.ok(snap.interventions.length > 0);
    assert.ok(snap.interventions.every((i) => i.action === "warn" && /warn-only/.test(i.outcome)));
    assert.equal(manager.overall().kind, "warning");
  });

  it("ask first: nothing is sent when the user dismisses", async () => {
    const { adapter, manager, asked } = setup({ policy: "ask", answer: "dismiss" });
    readLoop(adapter, "A", 3);
    await settle();
    assert.equal(asked.length, 1);
    assert.deepEqual(adapter.acts, []);
    assert.match(manager.snapshot("fake:A")!.interventions[0].outcome, /dismissed/);
  });

  it("phases: asking until answered (past tense only once the host confirmed), from the panel as well as the notification", async () => {
    const { adapter, manager } = setup({ policy: "ask", answer: "later" });
    readLoop(adapter, "A", 3);
    await settle();
    const [asking] = manager.snapshot("fake:A")!.interventions;
    assert.equal(asking.phase, "asking");
    assert.equal(adapter.acts.length, 0, "nothing sent while asking");
    const overall = manager.overall();
    assert.ok(overall.kind === "warning" && overall.latest.intervention.phase === "asking");
    assert.equal(manager.answer("fake:A", asking.id, "act"), true);
    assert.equal(manager.answer("fake:A", asking.id, "dismiss"), false, "the first answer counts");
    await settle();
    assert.deepEqual(adapter.acts.map((a) => a.action), ["warn"]);
    assert.equal(manager.snapshot("fake:A")!.interventions[0].phase, "done");
    // A later step replaces the open question at once (one question per task, always the latest).
    readLoop(adapter, "B", 5);
    await settle();
    const [first, ...later] = manager.snapshot("fake:B")!.interventions;
    assert.ok(later.length > 0 && later.at(-1)!.phase === "asking" && first.phase === "superseded", [first, ...later].map((r) => r.phase).join(","));
    assert.equal(manager.answer("fake:B", later.at(-1)!.id, "act"), true);
    await settle();
    const after = manager.snapshot("fake:B")!.interventions;
    assert.ok(after.slice(0, -1).every((r) => r.phase === "superseded"), after.map((r) => r.phase).join(","));
    assert.equal(after.at(-1)!.phase, "done");
  });

  it("phases: a question replaced by a stronger one, a failure, guidance held by the host, a replay", async () => {
    const { adapter, manager } = setup({ policy: "ask", answer: "superseded" });
    readLoop(adapter, "A", 3);
    await settle();
    assert.equal(manager.snapshot("fake:A")!.interventions[0].phase, "superseded");

    const auto = setup();
    auto.adapter.failWith = new Error("host went away");
    readLoop(auto.adapter, "B", 3);
    await settle();
    assert.equal(auto.manager.snapshot("fake:B")!.interventions[0].phase, "failed");

    const held = setup();
    held.adapter.act = async () => ({ done: "guidance held until the agent waits", ok: true, deferred: true });
    readLoop(held.adapter, "C", 7);
    await settle();
    assert.ok(held.manager.snapshot("fake:C")!.interventions.every((i) => i.phase === "pending"), "held guidance is not a step taken");
    assert.equal(held.manager.snapshot("fake:C")!.savedEstimate.requests, 0, "nothing saved by a stop not carried out");

    const key = manager.addReplay("loop.jsonl", Array.from({ length: 7 }, (_, i) => [
      { t: "request" } as TraceEvent,
      { t: "tool_call", id: `c${i}`, name: "read_file", input: { path: "a.ts" } } as TraceEvent,
      { t: "end", usage: { tokensIn: 100, tokensOut: 10 } } as TraceEvent,
      { t: "tool_result", id: `c${i}`, ok: true, output: "same" } as TraceEvent,
    ]).flat());
    const replay = manager.snapshot(key)!;
    assert.ok(replay.interventions.length > 0 && replay.interventions.every((i) => i.phase === "replay"));
    assert.ok(replay.savedEstimate.tokens > 0, "a replay's stop counts in what would have been saved");
  });

  it("a host's own policy overrides the global one (Cline asks first while others act)", async () => {
    const { adapter, manager, asked } = setup({ policy: "automatic", answer: "dismiss" });
    manager.configure({ engine: defaultConfig(), actionPolicy: "automatic", hostPolicies: { [adapter.hostId]: "ask" } });
    readLoop(adapter, "A", 3);
    await settle();
    assert.equal(asked.length, 1);
    assert.deepEqual(adapter.acts, []);
  });

  it("ask first: the action is carried out when the user agrees", async () => {
    const { adapter, asked } = setup({ policy: "ask", answer: "act" });
    readLoop(adapter, "A", 3);
    await settle(); await settle();
    assert.equal(asked.length, 1);
    assert.deepEqual(adapter.acts.map((a) => a.action), ["warn"]);
  });

  it("ask first: 'ignore this pattern' silences that pattern for the rest of the session", async () => {
    const { adapter, manager, asked } = setup({ policy: "ask", answer: "ignore" });
    readLoop(adapter, "A", 3);
    await settle();
    readLoop(adapter, "A", 5, 3);
    await settle();
    assert.equal(asked.length, 1, "no further question about the ignored pattern");
    assert.deepEqual(adapter.acts, []);
    assert.equal(manager.snapshot("fake:A")!.interventions.length, 1);
  });

  it("our own guidance echoed back as a user message does not reset the counts; a real user message does", async () => {
    const run = async (between: (guidance: string) => TraceEvent | undefined) => {
      const { adapter, manager } = setup();
      readLoop(adapter, "A", 3);
      await settle();
      const ev = between(adapter.acts[0].message);
      if (ev) adapter.emit("A", ev);
      readLoop(adapter, "A", 4, 3);
      await settle();
      return { acts: adapter.acts.map((a) => a.action), snap: manager.snapshot("fake:A")! };
    };
    const uninterrupted = await run(() => undefined);
    assert.ok(uninterrupted.acts.length > 1, "seven identical calls escalate past the warning");
    // The host shows the guidance as user feedback: if it were taken for the user, counting would restart.
    const echoed = await run((guidance) => ({ t: "user", text: guidance }));
    assert.deepEqual(echoed.acts, uninterrupted.acts, "the echo changes nothing");
    assert.ok(echoed.snap.timeline.some((e) => e.kind === "echo"));
    const userSpoke = await run(() => ({ t: "user", text: "Please look at src/loader.ts instead." }));
    assert.ok(userSpoke.acts.length < uninterrupted.acts.length, `counts start afresh after the user spoke: ${userSpoke.acts.join(",")}`);
  });

  it("an adapter whose act() throws gives a failed outcome, not a crash", async () => {
    const { adapter, manager } = setup();
    adapter.failWith = new Error("host went away");
    readLoop(adapter, "A", 3);
    await settle(); await settle();
    const iv = manager.snapshot("fake:A")!.interventions[0];
    assert.equal(iv.ok, false);
    assert.match(iv.outcome, /host went away/);
  });

  it("reports whether the model got the guidance once the host shows it, without holding up the next action", async () => {
    const { adapter, manager } = setup();
    const deliveries: Array<(o: ActionOutcome) => void> = [];
    adapter.deliveryOf = () => new Promise<ActionOutcome>((r) => { deliveries.push(r); });
    readLoop(adapter, "A", 3);
    await settle(); await settle();
    let iv = manager.snapshot("fake:A")!.interventions[0];
    assert.equal(iv.delivery, "pending");
    assert.match(iv.outcome, /waiting/);
    readLoop(adapter, "A", 2, 3); // the block rung acts while the warning's delivery is still open
    await settle(); await settle();
    assert.deepEqual(adapter.acts.map((a) => a.action), ["warn", "block"]);
    deliveries[0]({ ok: false, done: "not delivered: the next request started without it" });
    await settle();
    iv = manager.snapshot("fake:A")!.interventions[0];
    assert.equal(iv.delivery, "undelivered");
    assert.equal(iv.ok, false);
    assert.match(iv.outcome, /not delivered/);
  });

  it("a malformed event is logged and skipped", () => {
    const { adapter, manager, errors } = setup();
    adapter.emit("A", { t: "tool_call", id: "x", name: "read_file", input: null } as unknown as TraceEvent);
    adapter.emit("A", { t: "user", text: "still alive" });
    assert.equal(errors.length, 1);
    assert.equal(manager.snapshot("fake:A")!.timeline.at(-1)!.label, "still alive");
  });

  it("counts the tokens and cost of the requests inside a loop, and estimates the saving of a stop", async () => {
    const { adapter, manager } = setup();
    adapter.emit("A", { t: "request" });
    adapter.emit("A", { t: "end", usage: { tokensIn: 5000, tokensOut: 100, cost: 0.5 } }); // productive, before the loop
    readLoop(adapter, "A", 7, 0, 1000);
    await settle();
    const snap = manager.snapshot("fake:A")!;
    assert.equal(snap.stats.tokensIn, 5000 + 7 * 1000);
    // The first read was work; the six identical reads after it are the loop.
    assert.equal(snap.spentInLoops.requests, 6);
    assert.equal(snap.spentInLoops.tokens, 6 * 1010);
    assert.ok(Math.abs(snap.spentInLoops.cost - 0.06) < 1e-9);
    assert.ok(snap.savedEstimate.tokens > 0, "the stop saved something");
    assert.ok(snap.savedEstimate.tokens <= snap.spentInLoops.tokens);
  });

  it("replayed sessions never reach a host and do not light the status", async () => {
    const { adapter, manager } = setup();
    const events: TraceEvent[] = [];
    for (let i = 0; i < 7; i++) events.push({ t: "tool_call", id: `c${i}`, name: "read_file", input: { path: "a.ts" } }, { t: "tool_result", id: `c${i}`, ok: true, output: "same" });
    const key = manager.addReplay("loop.trace.jsonl", events);
    await settle();
    assert.ok(manager.snapshot(key)!.interventions.length > 0);
    assert.deepEqual(adapter.acts, []);
    assert.equal(manager.overall().kind, "watching");
  });

  it("overall state: no host, watching, disabled", () => {
    const manager = new SessionManager({ log: quietLog, confirm: async () => "dismiss" });
    assert.equal(manager.overall().kind, "no-host");
    const adapter = new FakeAdapter();
    manager.addAdapters([adapter]);
    const watching = manager.overall();
    assert.equal(watching.kind, "watching");
    adapter.emit("A", { t: "user", text: "hi" });
    assert.deepEqual(manager.overall().kind === "watching" && manager.overall(), { ...watching, sessions: 1 });
    const off = defaultConfig();
    off.enabled = false;
    manager.configure({ engine: off, actionPolicy: "automatic" });
    assert.equal(manager.overall().kind, "disabled");
  });

  it("reset clears the alert and the counts", async () => {
    const { adapter, manager } = setup();
    readLoop(adapter, "A", 4);
    await settle();
    manager.reset("fake:A");
    assert.equal(manager.snapshot("fake:A")!.alert, "none");
    assert.equal(manager.overall().kind, "watching");
    readLoop(adapter, "A", 2, 4);
    await settle();
    assert.deepEqual(adapter.acts.map((a) => a.action), ["warn"], "two more calls after the reset do not warn again");
  });

  it("memory stays bounded: timeline per session and number of sessions", () => {
    let t = 0;
    const { adapter, manager } = setup({ now: () => t++ });
    for (let i = 0; i < 3000; i++) {
      adapter.emit("long", { t: "request" });
      adapter.emit("long", { t: "tool_call", id: `c${i}`, name: "read_file", input: { path: `f${i}.ts` } });
      adapter.emit("long", { t: "tool_result", id: `c${i}`, ok: true, output: String(i) });
    }
    assert.equal(manager.snapshot("fake:long")!.timeline.length, MAX_TIMELINE);
    for (let i = 0; i < MAX_SESSIONS + 10; i++) adapter.emit(`t${i}`, { t: "user", text: "x" });
    assert.equal(manager.snapshots().length, MAX_SESSIONS);
    assert.equal(manager.snapshot("fake:long"), undefined, "the least recently active session went first");
  });
});

describe("session manager and a host's own guard (Cline's PreToolUse hook)", () => {
  it("hands each event's interventions to the host at once, and does not ask about or send what the host already did", async () => {
    const { adapter, manager, asked } = setup({ policy: "ask", answer: "act" });
    const caused: Intervention[][] = [];
    const carried = new Set<Intervention>();
    adapter.handledByHost = (_taskId: string, iv: Intervention) => (carried.has(iv) ? { done: "carried by the hook", ok: true } : undefined);
    const emitWithReply = (event: TraceEvent) => adapter.events.fire({
      hostId: adapter.hostId, taskId: "T", event,
      onInterventions: (ivs) => { caused.push(ivs); for (const iv of ivs) if (iv.action === "warn") carried.add(iv); },
    });
    for (let i = 0; i < 5; i++) {
      emitWithReply({ t: "request" });
      emitWithReply({ t: "tool_call", id: `c${i}`, name: "read_file", input: { path: "src/config.ts" } });
      emitWithReply({ t: "end" });
      emitWithReply({ t: "tool_result", id: `c${i}`, ok: true, output: "same\n" });
    }
    await settle();
    const actions = caused.flat().map((iv) => iv.action);
    assert.deepEqual(actions, ["warn", "block"]);
    const records = manager.snapshot("fake:T")!.interventions;
    assert.equal(records[0].outcome, "carried by the hook");
    assert.equal(records[0].delivery, "delivered");
    // The block was not carried by the host: the usual policy applies (asked, then acted).
    assert.deepEqual(asked.map((iv) => iv.action), ["block"]);
    assert.deepEqual(adapter.acts.map((a) => a.action), ["block"]);
  });

  describe("a host that cannot act on a task here (Cline seen only through its files)", () => {
    const remedy: Remedy = { why: "seen only through its files", fix: "Install the Cline hook.", offer: "install-cline-hook" };
    for (const policy of ["ask", "automatic"] as const) {
      it(`${policy}: nothing is asked or tried, every rung is 'unavailable', and the remedy is told once`, async () => {
        const { adapter, manager, asked, notified } = setup({ policy });
        adapter.cannotAct = () => remedy;
        readLoop(adapter, "A", 8);
        await settle();
        const snap = manager.snapshot("fake:A")!;
        assert.ok(snap.interventions.length >= 3, "warn, block and stop were raised");
        assert.deepEqual([...new Set(snap.interventions.map((r) => r.phase))], ["unavailable"]);
        assert.ok(snap.interventions.every((r) => r.ok === undefined && r.remedy === remedy));
        assert.equal(asked.length, 0, "no question whose answer could not be carried out");
        assert.equal(adapter.acts.length, 0, "no action attempted");
        assert.deepEqual(notified.map((r) => r.phase), ["unavailable"], "one notification for the task, with the remedy");
        assert.equal(snap.canResume, false, "no resume offered for a task nothing stopped");
      });
    }
    it("a task the host can reach is acted on as before; resuming is offered only after a confirmed stop", async () => {
      const { adapter, manager } = setup();
      adapter.cannotAct = (taskId) => (taskId === "B" ? remedy : undefined);
      readLoop(adapter, "A", 7);
      await settle();
      assert.ok(adapter.acts.some((a) => a.action === "stop"));
      assert.equal(manager.snapshot("fake:A")!.canResume, true);
    });
  });

  it("ask: a later step replaces the open question at once, so an earlier one's button does nothing (notifications off too)", async () => {
    const adapter = new FakeAdapter();
    const manager = new SessionManager({ log: quietLog, confirm: () => new Promise<ConfirmAnswer>(() => {}) });
    manager.configure({ engine: defaultConfig(), actionPolicy: "ask" });
    manager.addAdapters([adapter]);
    readLoop(adapter, "A", 7);
    await settle();
    const ivs = manager.snapshot("fake:A")!.interventions;
    assert.ok(ivs.length >= 3);
    assert.deepEqual(ivs.slice(0, -1).map((r) => r.phase), ivs.slice(0, -1).map(() => "superseded"));
    assert.equal(ivs.at(-1)!.phase, "asking");
    assert.equal(manager.answer("fake:A", ivs[0].id, "act"), false, "the old rung is not carried out");
    assert.equal(adapter.acts.length, 0);
    assert.equal(manager.answer("fake:A", ivs.at(-1)!.id, "act"), true);
    await settle();
    assert.deepEqual(adapter.acts.map((a) => a.action), [ivs.at(-1)!.action]);
  });
});
