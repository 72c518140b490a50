import * as assert from "node:assert/strict";
import { LoopSession } from "../../src/engine/session";
import type { TraceEvent } from "../../src/engine/events";

function feed(events: TraceEvent[]) {
  const s = new LoopSession();
  return events.flatMap((e) => s.push(e));
}

function readCycle(n: number, output: (i: number) => string, between: (i: number) => TraceEvent[] = () => []): TraceEvent[] {
  const evs: TraceEvent[] = [{ t: "user", text: "go" }];
  for (let i = 0; i < n; i++) {
    evs.push({ t: "request" }, { t: "tool_call", id: `c${i}`, name: "read_file", input: { path: "src/a.ts" } }, { t: "end" });
    evs.push({ t: "tool_result", id: `c${i}`, ok: true, output: output(i) }, ...between(i));
  }
  return evs;
}

describe("tool-repeat", () => {
  it("warns on the third identical read with identical output, then blocks", () => {
    const ivs = feed(readCycle(6, () => "same"));
    assert.equal(ivs[0].action, "warn");
    assert.equal(ivs[0].detector, "tool-repeat");
    assert.equal(ivs[0].evidence.count, 3);
    assert.ok(ivs.some((iv) => iv.action === "block"));
  });

  it("stays quiet while a polled output changes", () => {
    assert.deepEqual(feed(readCycle(8, (i) => `progress ${i * 10}%`)), []);
  });

  it("stays quiet when every repeat follows an edit", () => {
    const evs = readCycle(5, () => "same", (i) => [
      { t: "request" }, { t: "tool_call", id: `e${i}`, name: "apply_diff", input: { path: `src/f${i}.ts`, diff: "x" } }, { t: "end" },
      { t: "tool_result", id: `e${i}`, ok: true, output: "ok" },
    ]);
    assert.deepEqual(feed(evs), []);
  });
});
