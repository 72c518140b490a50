/**
 * The headless hook's engine snapshot (hosts/hookAgents/engineSnapshot.ts): a session written out
 * and read back in a new process must decide exactly as the one that went on in memory. Checked on
 * the loop generator's text and tool families and their look-alikes, cut at every few events (as
 * hook calls cut a session), through JSON as the session file carries it.
 */
import * as assert from "node:assert/strict";
import { defaultConfig, resolveConfig, type EngineConfig } from "../../src/engine/config";
import type { TraceEvent } from "../../src/engine/events";
import { LoopSession } from "../../src/engine/session";
import { restoreSession, snapshotSession, type EngineSnapshot } from "../../src/hosts/hookAgents/engineSnapshot";
import { seedOf, seededRng } from "../../scripts/generator/kit";
import { textClasses } from "../../scripts/generator/textClasses";
import { toolClasses } from "../../scripts/generator/toolClasses";

const through = (s: LoopSession, config: EngineConfig): LoopSession => {
  const snap = snapshotSession(s);
  assert.ok(snap, "the session could be written");
  const back = restoreSession(JSON.parse(JSON.stringify(snap)) as EngineSnapshot, config);
  assert.ok(back, "the session could be read back");
  return back;
};

/** Each event's interventions, once in one session and once with the session written and read back every `every` events. */
function both(events: TraceEvent[], every: number, config: EngineConfig = defaultConfig()): { live: unknown[]; cut: unknown[]; liveEnd: LoopSession; cutEnd: LoopSession } {
  const live = new LoopSession(config);
  let cut = new LoopSession(config);
  const a: unknown[] = [], b: unknown[] = [];
  events.forEach((e, i) => {
    a.push(live.push(structuredClone(e)));
    if (i % every === every - 1) cut = through(cut, config);
    b.push(cut.push(structuredClone(e)));
  });
  return { live: a, cut: b, liveEnd: live, cutEnd: cut };
}

describe("agent hooks: the engine session carried between hook processes", () => {
  for (const g of [...textClasses, ...toolClasses]) {
    it(`${g.kind} ${g.family}: decides as one session in memory would`, () => {
      for (let i = 0; i < 1; i++) {
        const c = g.draw(seededRng(seedOf(`snapshot:${g.family}:${i}`)));
        // Hook calls cut a session every few events (a response's stream, a call, its result).
        const every = 1 + (g.family.length % 4) + (c.events.length > 200 ? 4 : 0);
        const r = both(c.events, every);
        assert.deepEqual(r.cut, r.live, `case ${i}, cut every ${every} events`);
        assert.deepEqual(r.cutEnd.stats(), r.liveEnd.stats());
        assert.deepEqual(r.cutEnd.detectorStatus(), r.liveEnd.detectorStatus());
      }
    });
  }

  it("with other settings (warn-only, lower thresholds) it decides as one session would", () => {
    const config = resolveConfig({ mode: "warnOnly", detectors: { "tool-repeat": { warnAt: 2, blockAt: 3, stopAt: 4 } } }).config;
    const call = (i: number): TraceEvent[] => [
      { t: "request", ts: i * 10 },
      { t: "reasoning", delta: "I will run the tests again to see whether they pass now.\n", ts: i * 10 + 1 },
      { t: "tool_call", id: `c${i}`, name: "execute_command", input: { command: "npm test" }, ts: i * 10 + 2 },
      { t: "tool_result", id: `c${i}`, ok: false, error: "1 failing", ts: i * 10 + 3 },
      { t: "end", ts: i * 10 + 4 },
    ];
    const events = [{ t: "user", text: "make the tests pass", ts: 0 } as TraceEvent, ...Array.from({ length: 8 }, (_, i) => call(i + 1)).flat()];
    const r = both(events, 2, config);
    assert.ok(r.live.some((ivs) => (ivs as unknown[]).length > 0), "the loop was acted on");
    assert.deepEqual(r.cut, r.live);
  });

  it("gives up, rather than writing something it cannot read back, on what it does not know", () => {
    const held = new LoopSession();
    (held as unknown as Record<string, unknown>).extra = new Map([["k", () => 1]]);
    assert.equal(snapshotSession(held), undefined, "a function no fresh session has at a known place");
    const added = new LoopSession();
    (added as unknown as Record<string, unknown>).extra = { f: () => 1 };
    assert.equal(restoreSession(snapshotSession(added)!, defaultConfig()), undefined, "a function the fresh session does not have");
    const ok = snapshotSession(new LoopSession())!;
    const renamed: EngineSnapshot = { nodes: ok.nodes.map((n) => (n[0] === "o" && typeof n[1] === "string" && n[1].length > 1 ? ["o", `${n[1]}Gone`, ...n.slice(2)] : n)) };
    assert.equal(restoreSession(renamed, defaultConfig()), undefined, "a class this engine does not have");
    assert.ok(restoreSession(ok, defaultConfig()));
  });
});
