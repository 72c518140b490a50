/** The ladder, modes and resets of LoopSession, driven through the tool-repeat detector. */
import * as assert from "node:assert/strict";
import { resolveConfig, type PartialEngineConfig } from "../../src/engine/config";
import type { TraceEvent } from "../../src/engine/events";
import { LoopSession } from "../../src/engine/session";

function sessionWith(settings: PartialEngineConfig | Record<string, unknown> = {}) {
  const { config, warnings } = resolveConfig(settings);
  assert.deepEqual(warnings, []);
  return new LoopSession(config);
}

/** n identical reads of one file with identical output, one request each, ts 1 s apart. */
function identicalReads(n: number, name = "read_file", startTs = 0): TraceEvent[] {
  const evs: TraceEvent[] = [];
  for (let i = 0; i < n; i++) {
    const ts = startTs + i * 1000;
    evs.push({ t: "request", ts }, { t: "tool_call", id: `${name}${startTs}-${i}`, name, input: { path: "a.ts" }, ts }, { t: "end", ts });
    evs.push({ t: "tool_result", id: `${name}${startTs}-${i}`, ok: true, output: "same", ts });
  }
  return evs;
}

const run = (s: LoopSession, evs: TraceEvent[]) => evs.flatMap((e) => s.push(e));

describe("LoopSession ladder", () => {
  it("escalates warn → block → stop once per rung, blocking every call at the block rung", () => {
    const ivs = run(sessionWith(), identicalReads(9));
    assert.deepEqual(ivs.map((i) => i.action), ["warn", "block", "block", "stop"]);
    assert.deepEqual(ivs.map((i) => i.evidence.count), [3, 5, 6, 7]);
    assert.ok(ivs.every((i) => i.message.includes("read_file a.ts")), "guidance names what repeats");
    assert.ok(ivs[1].toolCallId, "a block names the call it refuses");
  });

  it("in warn-only mode only warns, once per rung, and never blocks or stops", () => {
    const ivs = run(sessionWith({ mode: "warnOnly" }), identicalReads(9));
    assert.deepEqual(ivs.map((i) => i.action), ["warn", "warn", "warn"]);
  });

  it("does nothing when disabled", () => {
    assert.deepEqual(run(sessionWith({ enabled: false }), identicalReads(9)), []);
  });

  it("starts counting afresh on a new user message", () => {
    const s = sessionWith();
    const evs = [...identicalReads(2), { t: "user", text: "keep going" } as TraceEvent, ...identicalReads(2, "read_file", 10_000)];
    assert.deepEqual(run(s, evs), []);
  });

  it("can keep counting across user messages when told to", () => {
    const s = sessionWith({ resetOnUserMessage: false });
    const evs = [...identicalReads(2), { t: "user", text: "keep going" } as TraceEvent, ...identicalReads(2, "read_file", 10_000)];
    assert.equal(run(s, evs)[0]?.action, "warn");
  });

  it("starts afresh after a long silence between events", () => {
    const s = sessionWith({ idleResetMs: 60_000 });
    assert.deepEqual(run(s, [...identicalReads(2), ...identicalReads(2, "read_file", 3_600_000)]), []);
  });

  it("applies per-tool thresholds and exemptions by tool name", () => {
    assert.equal(run(sessionWith({ perTool: { read_file: { warnAt: 2 } } }), identicalReads(2))[0]?.evidence.count, 2);
    assert.deepEqual(run(sessionWith({ perTool: { read_file: { exempt: true } } }), identicalReads(9)), []);
  });

  it("switches a detector off", () => {
    assert.deepEqual(run(sessionWith({ detectors: { "tool-repeat": { enabled: false } } }), identicalReads(9)), []);
  });

  it("never intervenes again on an ignored pattern, and resets on demand", () => {
    const s = sessionWith();
    const first = run(s, identicalReads(3));
    assert.equal(first.length, 1);
    s.ignore(first[0].key);
    assert.deepEqual(run(s, identicalReads(6, "read_file", 50_000)), []);
    s.reset();
    assert.deepEqual(s.detectorStatus().find((d) => d.id === "tool-repeat")?.progress, 0);
  });

  it("is deterministic: the same events give the same interventions", () => {
    const evs = identicalReads(8);
    assert.deepEqual(run(sessionWith(), evs), run(sessionWith(), evs));
  });

  it("keeps stats of what it saw", () => {
    const s = sessionWith();
    run(s, [{ t: "request", usage: { tokensIn: 100, tokensOut: 20, cost: 0.01 } }, { t: "reasoning", delta: "abc" }, { t: "end", usage: { tokensOut: 5 } }]);
    const st = s.stats();
    assert.equal(st.reasoningChars, 3);
    assert.equal(st.tokensIn, 100);
    assert.equal(st.tokensOut, 25);
    assert.equal(st.requests, 1);
  });
});

describe("resolveConfig", () => {
  it("keeps the default and says why for every invalid value", () => {
    const { config, warnings } = resolveConfig({
      mode: "loud", idleResetMs: -1, detectors: { "tool-repeat": { warnAt: "three", nonsense: 1 }, "no-such": {} },
      perTool: { bash: { blockAt: -2 } }, toolNames: { read: "cat" }, surprise: true,
    });
    assert.equal(config.mode, "intervene");
    assert.equal(config.detectors["tool-repeat"].warnAt, 3);
    assert.equal(warnings.length, 8, warnings.join("\n"));
    assert.ok(warnings.some((w) => w.startsWith("detectors.tool-repeat.warnAt")));
  });

  it("is never thrown off by a non-object", () => {
    for (const bad of [42, "x", [], true]) assert.equal(resolveConfig(bad).warnings.length, 1);
  });
});

describe("LoopSession across detectors", () => {
  it("acts once on a chanted stream: one abort for the response, not one per detector", () => {
    const s = sessionWith();
    const chant = "I have added all the requested logs to the file and verified the output is correct now. ";
    const evs: TraceEvent[] = [{ t: "user", text: "add logs" }, { t: "request" }];
    for (let i = 0; i < 12; i++) for (let j = 0; j < chant.length; j += 17) evs.push({ t: "text", delta: chant.slice(j, j + 17) });
    evs.push({ t: "end" });
    const ivs = run(s, evs);
    assert.deepEqual(ivs.map((i) => i.action), ["abort"]);
  });

  it("the same loop in the next response after an abort stops the task", () => {
    const s = sessionWith();
    const chant = "Let me check the configuration file again to be sure about the value. ";
    const ivs: string[] = [];
    ivs.push(...run(s, [{ t: "user", text: "why" }]).map((i) => i.action));
    for (let r = 0; r < 3; r++) {
      const evs: TraceEvent[] = [{ t: "request" }];
      for (let i = 0; i < 8; i++) evs.push({ t: "reasoning", delta: chant });
      evs.push({ t: "end" });
      ivs.push(...run(s, evs).map((i) => i.action));
    }
    assert.deepEqual(ivs, ["abort", "stop"]);
  });
});
