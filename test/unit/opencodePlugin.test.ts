/**
 * The OpenCode plugin (opencode, Kilo 7) on the hook calls the real servers made to it
 * (test/fixtures/opencode-plugin/<agent>/*.jsonl, recorded by `RECORD_OPENCODE_FIXTURES=1 npm run
 * test:e2e:opencode`), replayed in their real order: the translator's events, the guard's verdicts
 * against what happened live, warn-only and a session whose start was not seen, the settings
 * file, installation, and the shipped bundle itself.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import type { TraceEvent } from "../../src/engine/events";
import { replayEvents } from "../../src/engine/replay";
import { OpencodeGuard, RefusedCall, type GuardRecord, type GuardSettings, type SessionActions } from "../../src/hosts/opencode/guard";
import { installedVersion, installPlugin, pluginFolder, PLUGIN_FILE_NAME, removePlugin } from "../../src/hosts/opencode/install";
import { JsonLinesFile, SettingsFile, settingsFromJson, writeSettingsFile } from "../../src/hosts/opencode/settingsFile";
import { PluginReportAdapter, PLUGIN_HOST_ID } from "../../src/hosts/opencode/reportAdapter";
import { defaultConfig } from "../../src/engine/config";
import { SessionManager } from "../../src/extension/sessionManager";
import { readShellSettings } from "../../src/extension/settings";
import { OpencodeTranslator, type HookCall } from "../../src/hosts/opencode/translator";
import { SseParser } from "../../src/hosts/opencode/eventStream";
import { main } from "../../src/cli/main";
import { LoopSentinel } from "../../src/hosts/opencode/plugin";

const FIXTURES = path.resolve(__dirname, "../../../test/fixtures/opencode-plugin");
const DIST_PLUGIN = path.resolve(__dirname, "../../../dist/opencode-plugin.js");
const AGENTS = ["opencode", "kilo"];

interface Recorded { at: number; hook: string; input: Record<string, unknown>; output?: Record<string, unknown> }

function load(agent: string, scenario: string): Recorded[] {
  return fs.readFileSync(path.join(FIXTURES, agent, `${scenario}.jsonl`), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}

/** Parts as the server last described them, by call id: what happened to each call live. */
function finalToolParts(hooks: Recorded[]): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const h of hooks) {
    const e = h.input.event as { type?: string; properties?: { part?: Record<string, unknown> } } | undefined;
    const part = e?.type === "message.part.updated" ? e.properties?.part : undefined;
    if (part?.type === "tool") out.set(part.callID as string, part.state as Record<string, unknown>);
  }
  return out;
}

function translate(hooks: Recorded[]): TraceEvent[] {
  const t = new OpencodeTranslator();
  return hooks.flatMap((h) => t.take(h as unknown as HookCall, h.at)).flatMap((x) => (x.kind === "event" ? [x.event] : []));
}

class FakeActions implements SessionActions {
  readonly done: string[] = [];
  async abort(id: string): Promise<void> { this.done.push(`abort ${id}`); }
  async prompt(id: string, text: string, o: { noReply: boolean }): Promise<void> { this.done.push(`prompt ${id}${o.noReply ? " noReply" : ""}: ${text}`); }
}

function settings(raw: Record<string, unknown> = {}): GuardSettings { return settingsFromJson(raw); }

/** Replays the hooks through a guard; returns what it refused, did and reported. */
async function replay(hooks: Recorded[], raw: Record<string, unknown> = {}) {
  const actions = new FakeActions();
  const report: GuardRecord[] = [];
  let now = 0;
  const guard = new OpencodeGuard({ actions, settings: () => settings(raw), report: (r) => report.push(r), now: () => now });
  const refused: string[] = [];
  /** Calls whose result the plugin appended a warning to. */
  const warnedWith: string[] = [];
  for (const h of hooks) {
    now = h.at;
    if (h.hook === "tool.execute.before") {
      try { guard.beforeTool(h.input, h.output ?? {}); } catch (err) {
        assert.ok(err instanceof RefusedCall);
        refused.push(h.input.callID as string);
      }
    } else if (h.hook === "tool.execute.after") {
      // A call refused on replay but run live: the live server ran it, this replay would not have.
      if (refused.includes(h.input.callID as string)) continue;
      const output = { ...(h.output ?? {}) };
      const before = output.output;
      guard.afterTool(h.input, output);
      if (output.output !== before) warnedWith.push(h.input.callID as string);
    } else if (h.hook === "event" || h.hook === "chat.message") guard.take(h as unknown as HookCall);
  }
  await guard.idle();
  return { actions, report, refused, warnedWith };
}

for (const agent of AGENTS) {
  describe(`OpenCode plugin on the hooks the real ${agent} server made`, () => {
    it("translates every step, call and result once, the stream without doubling", () => {
      for (const scenario of ["build-loop", "productive", "reasoning-loop"]) {
        const hooks = load(agent, scenario);
        const events = translate(hooks);
        const befores = hooks.filter((h) => h.hook === "tool.execute.before");
        const calls = events.filter((e) => e.t === "tool_call");
        assert.deepEqual(calls.map((c) => (c as { id: string }).id), befores.map((b) => b.input.callID), `${scenario}: one call per tool.execute.before, same order`);
        calls.forEach((c, i) => assert.deepEqual((c as { input: unknown }).input, befores[i].output!.args, `${scenario}: the call's arguments`));
        const results = events.filter((e) => e.t === "tool_result");
        assert.equal(results.length, finalToolParts(hooks).size, `${scenario}: one result per call`);
        // The last text each reasoning part had is exactly what was streamed for it.
        const finalText = new Map<string, string>();
        for (const h of hooks) {
          const e = h.input.event as { type?: string; properties?: { part?: Record<string, unknown> } } | undefined;
          const p = e?.type === "message.part.updated" ? e.properties?.part : undefined;
          if (p?.type === "reasoning") finalText.set(p.id as string, p.text as string);
        }
        const streamed = events.filter((e) => e.t === "reasoning").map((e) => (e as { delta: string }).delta).join("");
        assert.equal(streamed, [...finalText.values()].join(""), `${scenario}: reasoning streamed once`);
        const steps = hooks.filter((h) => (h.input.event as { properties?: { part?: { type?: string } } } | undefined)?.properties?.part?.type === "step-start").length;
        assert.equal(events.filter((e) => e.t === "request").length, steps, `${scenario}: a request per model step`);
        assert.ok(events.filter((e) => e.t === "end").length >= steps - 1, `${scenario}: steps end`);
      }
    });

    it("warns with the 3rd failure's own result, refuses the 4th build and stops at the 5th (tool-failure's ladder)", async () => {
      const hooks = load(agent, "build-loop");
      const { actions, refused, report, warnedWith } = await replay(hooks);
      const calls = hooks.filter((h) => h.hook === "tool.execute.before").map((h) => h.input.callID as string);
      assert.deepEqual(warnedWith, [calls[2]], "the warning went out with the 3rd build's result");
      // The 4th is refused; its refusal is not judged as an answer, so the 5th reaches the top rung.
      assert.deepEqual(refused, [calls[3], calls[4]]);
      assert.equal(actions.done.length, 2, actions.done.join("\n"));
      assert.match(actions.done[0], /^abort ses_/);
      assert.match(actions.done[1], /noReply: Loop Sentinel stopped the task/);
      const ladder = report.filter((r) => r.type === "intervention").map((r) => (r as { action: string }).action);
      assert.deepEqual(ladder, ["warn", "block", "stop"]);
    });

    it("a stubborn identical listing: warned with the 3rd result, the 5th and 6th refused, the 7th refused and the session stopped", async () => {
      const hooks = load(agent, "ls-loop");
      const { actions, refused, report, warnedWith } = await replay(hooks);
      const calls = hooks.filter((h) => h.hook === "tool.execute.before").map((h) => h.input.callID as string);
      assert.equal(calls.length, 7, "the live run ended at the 7th call");
      assert.deepEqual(warnedWith, [calls[2]]);
      assert.deepEqual(refused, calls.slice(4, 7));
      assert.deepEqual(report.filter((r) => r.type === "intervention").map((r) => (r as { action: string }).action), ["warn", "block", "block", "stop"]);
      assert.match(actions.done[actions.done.length - 1] ?? "", /noReply: Loop Sentinel stopped the task/);
      // Replayed as the live run went: the same calls refused live.
      const refusedLive = [...finalToolParts(hooks)].filter(([, st]) => st.status === "error" && String(st.error).includes("Loop Sentinel")).map(([id]) => id);
      assert.deepEqual(refused, refusedLive);
    });

    it("judges the tool's own output: what the plugin appended, and its refusals, are never a result the engine reads", async () => {
      const hooks = load(agent, "build-loop");
      const { report } = await replay(hooks);
      // Up to the replay's own stop (the recording goes on as the live run, which stopped later).
      const upToStop = new Set(hooks.filter((h) => h.hook === "tool.execute.before").slice(0, 5).map((h) => h.input.callID as string));
      const results = report.filter((r) => r.type === "event" && r.event.t === "tool_result").map((r) => (r as { event: { id: string; output?: string; error?: string } }).event).filter((e) => upToStop.has(e.id));
      assert.equal(results.length, 5, JSON.stringify(results));
      for (const r of results) assert.ok(!`${r.output ?? ""}${r.error ?? ""}`.includes("Loop Sentinel"), JSON.stringify(r));
      // The live run appended its warning to a result the server stored: that text is not what was judged.
      const stored = [...finalToolParts(hooks).values()].filter((s) => s.status === "completed" && String(s.output).includes("Loop Sentinel:"));
      assert.ok(stored.length >= 1, "the recording holds a result with the warning appended");
    });

    it("aborts the reasoning loop once, and its guidance coming back is not the user speaking", async () => {
      const hooks = load(agent, "reasoning-loop");
      const { actions, report } = await replay(hooks);
      assert.equal(actions.done.length, 2, actions.done.join("\n"));
      assert.match(actions.done[0], /^abort ses_/);
      assert.match(actions.done[1], /^prompt ses_\S+: Loop Sentinel stopped your last response/);
      // The live server echoed the guidance as a user message: the same text the replay sends.
      const echoed = hooks.filter((h) => h.hook === "chat.message").map((h) => ((h.output!.parts as { text?: string }[])[0]?.text ?? ""));
      assert.ok(echoed.some((t) => actions.done[1].endsWith(t)), "the live echo is the guidance");
      const t = new OpencodeTranslator();
      let users = 0;
      for (const h of hooks) {
        for (const x of t.take(h as unknown as HookCall, h.at)) if (x.kind === "event" && x.event.t === "user") users++;
        if (h.hook === "event" && (h.input.event as { type?: string }).type === "session.created") t.expectEcho((h.input.event as { properties: { info: { id: string } } }).properties.info.id, actions.done[1].replace(/^prompt \S+: /, ""));
      }
      assert.equal(users, 1, "only the person's prompt is a user event");
      assert.equal(report.filter((r) => r.type === "intervention").length, 1);
    });

    it("leaves the productive session alone", async () => {
      const { actions, report, refused } = await replay(load(agent, "productive"));
      assert.deepEqual(actions.done, []);
      assert.deepEqual(refused, []);
      assert.deepEqual(report.filter((r) => r.type === "intervention"), []);
      assert.ok(report.some((r) => r.type === "started"));
    });

    it("in warn-only mode or switched off, refuses nothing and sends nothing", async () => {
      for (const raw of [{ "loopSentinel.mode": "warnOnly" }, { loopSentinel: { enabled: false } }]) {
        const { actions, refused, report } = await replay(load(agent, "build-loop"), raw);
        assert.deepEqual(actions.done, [], JSON.stringify(raw));
        assert.deepEqual(refused, [], JSON.stringify(raw));
        const kinds = report.filter((r) => r.type === "intervention").map((r) => (r as { action: string }).action);
        if ("loopSentinel.mode" in raw) assert.ok(kinds.length > 0 && kinds.every((k) => k === "warn"), kinds.join());
        else assert.deepEqual(kinds, []);
      }
    });

    it("never acts on a session whose start it did not see", async () => {
      // Loaded mid-turn: the hooks from the third model step on, without the creation and the prompt.
      const hooks = load(agent, "build-loop");
      const steps = hooks.map((h, i) => ((h.input.event as { properties?: { part?: { type?: string } } } | undefined)?.properties?.part?.type === "step-start" ? i : -1)).filter((i) => i >= 0);
      const { actions, refused, report } = await replay(hooks.slice(steps[2]));
      assert.deepEqual(actions.done, []);
      assert.deepEqual(refused, []);
      // The live stop's message is a user message: from there on the session is followed, quietly.
      assert.deepEqual(report.filter((r) => r.type === "intervention" || r.type === "outcome"), []);
    });

    it("from the event stream alone (watch --opencode) reads the same session, and a block becomes abort + guidance", async () => {
      for (const scenario of ["build-loop", "productive", "reasoning-loop"]) {
        const hooks = load(agent, scenario);
        const events = hooks.filter((h) => h.hook === "event");
        const t = new OpencodeTranslator("parts");
        const fromStream = events.flatMap((h) => t.take(h as unknown as HookCall, h.at)).flatMap((x) => (x.kind === "event" ? [x.event] : []));
        const withHooks = translate(hooks);
        const ids = (list: TraceEvent[]) => list.filter((e) => e.t === "tool_call").map((e) => (e as { id: string }).id);
        // A call refused before it ran still shows, by its error update.
        assert.deepEqual(ids(fromStream), ids(withHooks), scenario);
        const users = (list: TraceEvent[]) => list.filter((e) => e.t === "user").map((e) => (e as { text: string }).text);
        assert.deepEqual(users(fromStream), users(withHooks), `${scenario}: the same user messages`);
      }
      const actions = new FakeActions();
      const report: GuardRecord[] = [];
      const guard = new OpencodeGuard({ actions, settings: () => settings(), report: (r) => report.push(r), now: () => 0, hooks: false });
      for (const h of load(agent, "build-loop")) if (h.hook === "event") guard.take(h as unknown as HookCall);
      await guard.idle();
      assert.match(actions.done[0] ?? "", /^abort ses_/, actions.done.join("\n"));
      assert.match(actions.done[1] ?? "", /^prompt ses_\S+: Loop Sentinel refused this call/);
    });

    it("the events the plugin judged, replayed through the engine, give the live verdicts", async () => {
      for (const scenario of ["build-loop", "ls-loop"]) {
        const { report } = await replay(load(agent, scenario));
        const judged = report.filter((r) => r.type === "event").map((r) => (r as { event: TraceEvent }).event);
        const live = report.filter((r) => r.type === "intervention").map((r) => (r as { action: string }).action);
        assert.deepEqual(replayEvents(judged).interventions.map((iv) => iv.action), live, scenario);
      }
      assert.equal(replayEvents(translate(load(agent, "productive"))).interventions.length, 0);
    });
  });
}

describe("Kilo / opencode sessions in the extension, from the plugin's report", () => {
  const quietLog = { info() {}, warn() {}, error() {}, debug() {} };

  it("shows the plugin's session with the same interventions, and what the plugin did, without asking", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-oc-report-"));
    const reportFile = path.join(dir, "opencode.jsonl");
    const adapter = new PluginReportAdapter({ reportFile, installedIn: () => ["/home/u/.config/kilo/plugin"], log: () => {}, outcomeWaitMs: 3000 });
    const asked: string[] = [];
    const manager = new SessionManager({ log: quietLog, confirm: async (_s, iv) => { asked.push(iv.action); return "dismiss"; } });
    try {
      await adapter.start();
      // "ask" for every host: the plugin's sessions are still not asked about (it has acted already).
      manager.configure({ engine: defaultConfig(), actionPolicy: "ask", hostPolicies: readShellSettings(() => undefined).hostPolicies });
      manager.addAdapters([adapter]);
      // The plugin as it runs in the server: its guard writing the report through the same file writer.
      const file = new JsonLinesFile(reportFile);
      let now = 0;
      const guard = new OpencodeGuard({ actions: new FakeActions(), settings: () => settings(), report: (r) => file.append(r, { soon: r.type === "event" }), now: () => now });
      const hooks = load("kilo", "build-loop");
      for (const h of hooks) {
        now = h.at;
        if (h.hook === "tool.execute.before") { try { guard.beforeTool(h.input, h.output ?? {}); } catch { /* refused */ } } else if (h.hook === "tool.execute.after") guard.afterTool(h.input, { ...(h.output ?? {}) });
        else guard.take(h as unknown as HookCall);
        // The extension reads while the plugin writes: polls between the plugin's writes.
        if (Math.random() < 0.3) adapter.poll();
      }
      await guard.idle();
      file.flush();
      adapter.poll();
      const snapshot = () => manager.snapshots().find((x) => x.hostId === PLUGIN_HOST_ID);
      for (let i = 0; i < 40 && !/plugin/.test(snapshot()?.interventions.find((iv) => iv.action === "stop")?.outcome ?? ""); i++) await new Promise((r) => setTimeout(r, 25));
      const snap = snapshot();
      assert.ok(snap, "the plugin's session is shown");
      assert.deepEqual(snap!.interventions.map((i) => i.action), ["warn", "block", "stop"]);
      assert.deepEqual(asked, []);
      const stop = snap!.interventions.find((i) => i.action === "stop")!;
      assert.match(stop.outcome, /stopped the session.*\(the plugin in the agent's server\)/);
      assert.equal(adapter.status().state, "watching");
      assert.equal(adapter.status().sessions, 1);
    } finally {
      adapter.dispose();
      manager.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("follows a report rotated under it, and a line split across two reads", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-oc-rotate-"));
    const reportFile = path.join(dir, "opencode.jsonl");
    const adapter = new PluginReportAdapter({ reportFile, installedIn: () => [], log: () => {} });
    const seen: string[] = [];
    adapter.onEvent((e) => seen.push(`${e.taskId}:${e.event.t}`));
    try {
      fs.writeFileSync(reportFile, JSON.stringify({ type: "event", sessionId: "old", event: { t: "user", text: "before the window opened" } }) + "\n");
      void adapter.start();
      const line = (id: string, t: string) => JSON.stringify({ type: "event", sessionId: id, event: t === "user" ? { t, text: "go" } : { t } });
      const two = line("a", "user") + "\n" + line("a", "request");
      fs.appendFileSync(reportFile, two.slice(0, two.length - 10));
      adapter.poll();
      fs.appendFileSync(reportFile, two.slice(two.length - 10) + "\n");
      adapter.poll();
      // Rotated: the plugin renamed the file and began a shorter one.
      fs.renameSync(reportFile, reportFile + ".1");
      fs.writeFileSync(reportFile, line("b", "user") + "\n");
      adapter.poll();
      assert.deepEqual(seen, ["a:user", "a:request", "b:user"]);
      assert.equal(adapter.status().state, "not-found");
      assert.match(adapter.status().detail, /Connect Kilo Code/);
    } finally {
      adapter.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("OpenCode guard when the top rung lands on a call being asked for", () => {
  it("refuses that call too, then aborts the session and leaves the reason without a reply", async () => {
    // Seven identical reads of an unchanged file, in the hook shapes the servers use.
    const hooks: HookCall[] = [
      { hook: "event", input: { event: { type: "session.created", properties: { info: { id: "s" } } } } },
      { hook: "chat.message", input: { sessionID: "s" }, output: { message: { id: "u1" }, parts: [{ type: "text", text: "What does src/total.js export?" }] } },
    ];
    const part = (p: Record<string, unknown>): HookCall => ({ hook: "event", input: { event: { type: "message.part.updated", properties: { part: { sessionID: "s", messageID: "m", ...p } } } } });
    for (let i = 0; i < 7; i++) {
      hooks.push(part({ id: `st${i}`, type: "step-start" }));
      hooks.push(part({ id: `t${i}`, type: "tool", tool: "read", callID: `c${i}`, state: { status: "pending", input: {} } }));
      hooks.push({ hook: "tool.execute.before", input: { tool: "read", sessionID: "s", callID: `c${i}` }, output: { args: { filePath: "/w/src/total.js" } } });
      hooks.push(part({ id: `t${i}`, type: "tool", tool: "read", callID: `c${i}`, state: { status: "completed", input: { filePath: "/w/src/total.js" }, output: "1\texports.total = () => 0;\n" } }));
      hooks.push(part({ id: `sf${i}`, type: "step-finish", tokens: { input: 100, output: 10, reasoning: 0, cache: { read: 0, write: 0 } }, cost: 0 }));
    }
    const actions = new FakeActions();
    const report: GuardRecord[] = [];
    const guard = new OpencodeGuard({ actions, settings: () => settings(), report: (r) => report.push(r), now: () => 0 });
    const refusals: string[] = [];
    for (const h of hooks) {
      if (h.hook === "tool.execute.before") { try { guard.beforeTool(h.input, h.output); } catch (err) { refusals.push(`${String(h.input.callID)}: ${(err as Error).message.split(":")[0]}`); } } else guard.take(h);
    }
    await guard.idle();
    const ladder = report.filter((r) => r.type === "intervention").map((r) => (r as { action: string }).action);
    assert.deepEqual(ladder, ["warn", "block", "block", "stop"]);
    assert.deepEqual(refusals, ["c4: Loop Sentinel refused this call", "c5: Loop Sentinel refused this call", "c6: Loop Sentinel stopped the task"]);
    assert.deepEqual(actions.done.map((d) => d.split(":")[0]), ["abort s", "prompt s noReply"]);
    assert.match(actions.done[1], /: Loop Sentinel stopped the task/);
  });
});

describe("Kilo running a call's tool.execute.before ahead of its step's step-start", () => {
  it("keeps the call in its own request, so the warning still goes out with the 3rd failure's result", async () => {
    // Recorded from Kilo 7.7.7: the 2nd build's before hook came before the step-start of its message;
    // read as the end of one request and the start of another, the warning went out a call late.
    const hooks = load("kilo", "build-loop-late-step");
    const calls = hooks.filter((h) => h.hook === "tool.execute.before").map((h) => h.input.callID as string);
    const lateStart = hooks.findIndex((h) => h.hook === "tool.execute.before" && h.input.callID === calls[1]);
    assert.ok(hooks.slice(lateStart).findIndex((h) => h.hook === "event" && JSON.stringify(h.input).includes('"type":"step-start"')) > 0, "the recording has the late step-start");
    const { refused, warnedWith, report } = await replay(hooks);
    assert.deepEqual(warnedWith, [calls[2]], "the warning went out with the 3rd build's result");
    assert.equal(refused[0], calls[3], "the 4th build is refused");
    const ladder = report.filter((r) => r.type === "intervention").map((r) => (r as { action: string }).action);
    assert.deepEqual(ladder.slice(0, 2), ["warn", "block"]);
  });
});

describe("OpenCode plugin hook when a stop refuses the call being asked for", () => {
  it("hands the refusal back only once the stop's abort has reached the server, so the agent is not asked again first", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-oc-stop-"));
    const saved = { report: process.env.LOOP_SENTINEL_REPORT, config: process.env.LOOP_SENTINEL_CONFIG };
    process.env.LOOP_SENTINEL_REPORT = path.join(dir, "report.jsonl");
    process.env.LOOP_SENTINEL_CONFIG = path.join(dir, "settings.json");
    try {
      const order: string[] = [];
      // The server answers an abort after a while, as a busy one does.
      const client = {
        session: {
          abort: async () => { await new Promise((r) => setTimeout(r, 150)); order.push("abort landed"); return {}; },
          prompt: async () => { order.push("reason posted"); return {}; },
        },
      };
      const hooks = (await LoopSentinel({ client, directory: dir })) as Record<string, (i: never, o: never) => Promise<void>>;
      const call = (name: string, i: unknown, o?: unknown) => hooks[name](i as never, (o ?? {}) as never);
      const part = (p: Record<string, unknown>) => call("event", { event: { type: "message.part.updated", properties: { part: { sessionID: "s", messageID: "m", ...p } } } });
      await call("event", { event: { type: "session.created", properties: { info: { id: "s" } } } });
      await call("chat.message", { sessionID: "s" }, { message: { id: "u1" }, parts: [{ type: "text", text: "What does src/total.js export?" }] });
      for (let i = 0; i < 7; i++) {
        await part({ id: `st${i}`, type: "step-start" });
        await part({ id: `t${i}`, type: "tool", tool: "read", callID: `c${i}`, state: { status: "pending", input: {} } });
        try {
          await call("tool.execute.before", { tool: "read", sessionID: "s", callID: `c${i}` }, { args: { filePath: "/w/src/total.js" } });
        } catch (err) {
          order.push(`c${i} refused: ${(err as Error).message.split(":")[0]}`);
        }
        await part({ id: `t${i}`, type: "tool", tool: "read", callID: `c${i}`, state: { status: "completed", input: { filePath: "/w/src/total.js" }, output: "1\texports.total = () => 0;\n" } });
        await part({ id: `sf${i}`, type: "step-finish", tokens: { input: 100, output: 10, reasoning: 0, cache: { read: 0, write: 0 } }, cost: 0 });
      }
      const stopAt = order.indexOf("c6 refused: Loop Sentinel stopped the task");
      assert.ok(stopAt > 0, order.join(" | "));
      const landed = order.indexOf("abort landed");
      assert.ok(landed >= 0 && landed < stopAt, `the abort landed before the refusal went back: ${order.join(" | ")}`);
      assert.deepEqual(order.slice(0, 2), ["c4 refused: Loop Sentinel refused this call", "c5 refused: Loop Sentinel refused this call"], "a block is handed back at once");
      await new Promise((r) => setTimeout(r, 300)); // the report's buffered lines are written
    } finally {
      process.env.LOOP_SENTINEL_REPORT = saved.report;
      process.env.LOOP_SENTINEL_CONFIG = saved.config;
      if (saved.report === undefined) delete process.env.LOOP_SENTINEL_REPORT;
      if (saved.config === undefined) delete process.env.LOOP_SENTINEL_CONFIG;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("OpenCode translator on look-alikes of the real stream", () => {
  const created = (id: string): HookCall => ({ hook: "event", input: { event: { type: "session.created", properties: { info: { id } } } } });
  const part = (p: Record<string, unknown>): HookCall => ({ hook: "event", input: { event: { type: "message.part.updated", properties: { part: { sessionID: "s", messageID: "m", ...p } } } } });
  const delta = (partID: string, text: string): HookCall => ({ hook: "event", input: { event: { type: "message.part.delta", properties: { sessionID: "s", messageID: "m", partID, field: "text", delta: text } } } });

  it("keeps text streamed in chunks of any size whole, and a final update adds only what is new", () => {
    const text = "Let me look at the build output once more and compare it with the last run. ".repeat(6);
    for (const size of [1, 7, 40, 400]) {
      const t = new OpencodeTranslator();
      const out: TraceEvent[] = [];
      const take = (c: HookCall) => { for (const x of t.take(c, 0)) if (x.kind === "event") out.push(x.event); };
      take(created("s"));
      take(part({ id: "p0", type: "step-start" }));
      take(part({ id: "p1", type: "reasoning", text: "" }));
      // Deltas for most of the text, the last stretch only in the final update (as a late flush would).
      const cut = Math.floor(text.length * 0.8);
      for (let i = 0; i < cut; i += size) take(delta("p1", text.slice(i, Math.min(i + size, cut))));
      take(part({ id: "p1", type: "reasoning", text }));
      take(part({ id: "p1", type: "reasoning", text }));
      assert.equal(out.filter((e) => e.t === "reasoning").map((e) => (e as { delta: string }).delta).join(""), text, `chunks of ${size}`);
    }
  });

  it("counts a call once across its pending, running and completed updates, and a failed command as failed", () => {
    const t = new OpencodeTranslator();
    const out: TraceEvent[] = [];
    const take = (c: HookCall) => { for (const x of t.take(c, 0)) if (x.kind === "event") out.push(x.event); };
    take(created("s"));
    take(part({ id: "p0", type: "step-start" }));
    take(part({ id: "t", type: "tool", tool: "bash", callID: "c1", state: { status: "pending", input: {} } }));
    take({ hook: "tool.execute.before", input: { tool: "bash", sessionID: "s", callID: "c1" }, output: { args: { command: "npm test" } } });
    for (let i = 0; i < 3; i++) take(part({ id: "t", type: "tool", tool: "bash", callID: "c1", state: { status: "running", input: { command: "npm test" } } }));
    take(part({ id: "t", type: "tool", tool: "bash", callID: "c1", state: { status: "completed", input: { command: "npm test" }, output: "1 failing", metadata: { exit: 1 } } }));
    take(part({ id: "t", type: "tool", tool: "bash", callID: "c1", state: { status: "completed", input: { command: "npm test" }, output: "1 failing", metadata: { exit: 1 } } }));
    assert.deepEqual(out.filter((e) => e.t === "tool_call" || e.t === "tool_result").map((e) => e.t === "tool_result" ? `result ok=${e.ok}` : "call"), ["call", "result ok=false"]);
  });

  it("follows a session from a user message when its creation came before the plugin", () => {
    const t = new OpencodeTranslator();
    assert.deepEqual(t.take(part({ id: "p0", type: "step-start" }), 0), []);
    const r = t.take({ hook: "chat.message", input: { sessionID: "s" }, output: { message: { id: "m1" }, parts: [{ type: "text", text: "Fix the build" }, { type: "text", text: "<file contents>", synthetic: true }] } }, 5);
    assert.deepEqual(r.map((x) => (x.kind === "event" ? x.event.t : x.kind)), ["started", "user"]);
    assert.equal((r[1] as { event: { text: string } }).event.text, "Fix the build");
  });
});

describe("server-sent events from an OpenCode server", () => {
  it("gives each data payload whole, however the chunks fall", () => {
    const stream = `data: {"payload":{"type":"server.connected"}}\n\n: keep-alive\n\ndata: {"directory":"/w","payload":{"type":"session.idle","properties":{"sessionID":"s"}}}\r\n\r\n`;
    for (const size of [1, 3, 17, stream.length]) {
      const p = new SseParser();
      const out: string[] = [];
      for (let i = 0; i < stream.length; i += size) out.push(...p.push(stream.slice(i, i + size)));
      assert.deepEqual(out.map((d) => JSON.parse(d).payload.type), ["server.connected", "session.idle"], `chunks of ${size}`);
    }
  });
});

describe("loop-sentinel watch --opencode / install-plugin arguments", () => {
  const run = async (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
    return { code, out: out.join("\n"), err: err.join("\n") };
  };
  it("names what is wrong with a bad URL, an unset password variable, or a missing agent", async () => {
    assert.match((await run(["watch", "--opencode", "127.0.0.1:4096"])).err, /needs the server's URL/);
    const unset = await run(["watch", "--opencode", "http://127.0.0.1:4096", "--password-env", "LS_TEST_SURELY_UNSET"]);
    assert.equal(unset.code, 2);
    assert.match(unset.err, /LS_TEST_SURELY_UNSET: that variable is not set/);
    assert.match((await run(["watch", "--opencode", "http://x", "--cline-data", "/tmp"])).err, /one kind of agent at a time/);
    assert.match((await run(["install-plugin"])).err, /--opencode, --kilo or both/);
  });
});

describe("OpenCode plugin settings file", () => {
  it("reads the extension's keys, a loopSentinel block and bare keys alike", () => {
    assert.equal(settingsFromJson({ "loopSentinel.mode": "warnOnly" }).engine.mode, "warnOnly");
    assert.equal(settingsFromJson({ loopSentinel: { enabled: false } }).engine.enabled, false);
    const bare = settingsFromJson({ idleResetMinutes: 1, detectors: { "tool-repeat": { blockAt: 6 } } });
    assert.equal(bare.engine.idleResetMs, 60_000);
    assert.equal(bare.engine.detectors["tool-repeat"].blockAt, 6);
    assert.deepEqual(bare.warnings, []);
    const bad = settingsFromJson({ "loopSentinel.mode": "loud" });
    assert.equal(bad.engine.mode, "intervene");
    assert.match(bad.warnings.join(), /mode/);
  });

  it("reads what the extension writes: the user's values, the rest the defaults", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-oc-written-"));
    try {
      const file = path.join(dir, "sub", "settings.json");
      const user: Record<string, unknown> = { mode: "warnOnly", idleResetMinutes: 5, detectors: { "tool-repeat": { warnAt: 2 } }, notifications: false };
      writeSettingsFile(file, (k) => user[k]);
      const written = JSON.parse(fs.readFileSync(file, "utf8"));
      assert.deepEqual(Object.keys(written).sort(), ["loopSentinel.detectors", "loopSentinel.idleResetMinutes", "loopSentinel.mode"], "only the plugin's keys, only those set");
      const read = new SettingsFile(file).get();
      assert.equal(read.engine.mode, "warnOnly");
      assert.equal(read.engine.idleResetMs, 300_000);
      assert.equal(read.engine.detectors["tool-repeat"].warnAt, 2);
      assert.equal(read.engine.detectors["tool-repeat"].blockAt, settingsFromJson({}).engine.detectors["tool-repeat"].blockAt);
      assert.deepEqual(read.warnings, []);
    } finally { fs.rmSync(dir, { recursive: true, force: true }); }
  });

  it("picks up a change to the file, and a broken file means the defaults and a warning", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-oc-settings-"));
    try {
      const file = path.join(dir, "settings.json");
      const s = new SettingsFile(file);
      assert.equal(s.get().engine.mode, "intervene");
      fs.writeFileSync(file, JSON.stringify({ "loopSentinel.mode": "warnOnly" }));
      assert.equal(s.get().engine.mode, "warnOnly");
      fs.writeFileSync(file, "{ not json, longer than before");
      assert.equal(s.get().engine.mode, "intervene");
      assert.match(s.get().warnings.join(), /settings\.json/);
    } finally { fs.rmSync(dir, { recursive: true, force: true }); }
  });
});

describe("OpenCode plugin installation", () => {
  it("goes to the agent's global or project plugin folder", () => {
    assert.equal(pluginFolder("kilo", { env: { XDG_CONFIG_HOME: "/x/cfg" } }), path.join("/x/cfg", "kilo", "plugin"));
    assert.equal(pluginFolder("opencode", { env: { XDG_CONFIG_HOME: "/x/cfg" } }), path.join("/x/cfg", "opencode", "plugin"));
    assert.equal(pluginFolder("kilo", { project: "/w/p" }), path.join("/w/p", ".kilo", "plugin"));
  });

  it("installs, replaces its own copy, removes it, and never touches someone else's file", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-oc-install-"));
    try {
      const bundle = path.join(dir, "bundle.js");
      fs.writeFileSync(bundle, "// loop-sentinel opencode plugin 9.9.9\nexport const LoopSentinel = async () => ({});\n");
      const folder = path.join(dir, "plugin");
      assert.equal(installPlugin(bundle, folder).previous, undefined);
      assert.equal(installedVersion(folder), "9.9.9");
      assert.equal(installPlugin(bundle, folder).previous, "9.9.9");
      assert.deepEqual(removePlugin(folder), { file: path.join(folder, PLUGIN_FILE_NAME), removed: true });
      assert.equal(removePlugin(folder).removed, false);
      fs.writeFileSync(path.join(folder, PLUGIN_FILE_NAME), "export const Mine = async () => ({});\n");
      assert.throws(() => installPlugin(bundle, folder), /not Loop Sentinel's/);
      assert.equal(removePlugin(folder).removed, false);
      assert.ok(fs.existsSync(path.join(folder, PLUGIN_FILE_NAME)));
    } finally { fs.rmSync(dir, { recursive: true, force: true }); }
  });
});

describe("the shipped bundle dist/opencode-plugin.js", () => {
  it("exports one plugin function whose hooks refuse and stop the recorded loop", async () => {
    // A real dynamic import: the bundle is ESM, as the agents load it.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-oc-bundle-"));
    const saved = { ...process.env };
    try {
      // The agents load it as ESM from a .js file; Node needs the .mjs name to do the same quietly.
      const copy = path.join(dir, "plugin.mjs");
      fs.copyFileSync(DIST_PLUGIN, copy);
      const importEsm = new Function("url", "return import(url)") as (url: string) => Promise<Record<string, unknown>>;
      const mod = await importEsm(pathToFileURL(copy).href);
      assert.deepEqual(Object.keys(mod), ["LoopSentinel"]);
      process.env.LOOP_SENTINEL_CONFIG = path.join(dir, "absent.json");
      process.env.LOOP_SENTINEL_REPORT = path.join(dir, "report.jsonl");
      delete process.env.LOOP_SENTINEL_OPENCODE_TRACE;
      const sent: string[] = [];
      const client = { session: {
        abort: async (o: { path: { id: string } }) => { sent.push(`abort ${o.path.id}`); return {}; },
        promptAsync: async (o: { body: { noReply?: boolean } }) => { sent.push(`prompt${o.body.noReply ? " noReply" : ""}`); return {}; },
        prompt: async () => ({}),
      } };
      const hooks = await (mod.LoopSentinel as (i: unknown) => Promise<Record<string, (i: unknown, o?: unknown) => Promise<void>>>)({ client, directory: dir });
      let refused = 0;
      const recorded = load("opencode", "build-loop");
      const refusedLive = [...finalToolParts(recorded)].filter(([, st]) => st.status === "error" && String(st.error).includes("Loop Sentinel")).length;
      assert.ok(refusedLive >= 1, "the live run refused a call");
      for (const h of recorded) {
        const fn = hooks[h.hook];
        if (!fn) continue;
        try { await (h.hook === "event" ? fn(h.input) : fn(h.input, { ...(h.output ?? {}) })); } catch { refused++; }
      }
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(refused, refusedLive, "the bundle refuses what the plugin refused live");
      assert.equal(sent.length, 2, sent.join());
      assert.match(sent[0], /^abort ses_/);
      assert.equal(sent[1], "prompt noReply");
      const report = fs.readFileSync(path.join(dir, "report.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
      assert.ok(report.some((r) => r.type === "outcome" && r.action === "stop" && r.ok === true));
    } finally {
      process.env = saved;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
