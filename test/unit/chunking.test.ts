/**
 * Chunking invariance over the whole engine: every labelled stream re-cut into 1-character and
 * 40-character chunks must give the same verdicts (same detectors, actions and keys, at the same
 * character of the stream) as the original chunking.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import type { TraceEvent } from "../../src/engine/events";
import { DETECTOR_DEFINITIONS } from "../../src/engine/detectors";
import { replayEvents } from "../../src/engine/replay";
import { readSessions } from "../../src/formats";

/** Re-cuts every run of same-channel stream chunks into pieces of `size` characters. */
export function rechunk(events: readonly TraceEvent[], size: number): TraceEvent[] {
  const out: TraceEvent[] = [];
  let pending: { t: "reasoning" | "text"; text: string; ts?: number } | undefined;
  const flush = () => {
    if (!pending) return;
    for (let i = 0; i < pending.text.length; i += size) out.push({ t: pending.t, delta: pending.text.slice(i, i + size), ts: pending.ts });
    pending = undefined;
  };
  for (const e of events) {
    if (e.t === "reasoning" || e.t === "text") {
      if (pending && pending.t !== e.t) flush();
      pending = pending ?? { t: e.t, text: "", ts: e.ts };
      pending.text += e.delta;
    } else {
      flush();
      out.push(e);
    }
  }
  flush();
  return out;
}

interface Verdict { what: string; others: number; chars: number }

const STREAM_DETECTORS = new Set(DETECTOR_DEFINITIONS.filter((d) => d.channel === "stream").map((d) => d.id as string));

/** What fired and where, independent of chunking: non-stream events before it and stream characters so far. */
function verdicts(events: readonly TraceEvent[]): Verdict[] {
  const others: number[] = [], chars: number[] = [];
  let o = 0, c = 0;
  for (const e of events) {
    if (e.t === "reasoning" || e.t === "text") c += e.delta.length; else o++;
    others.push(o); chars.push(c);
  }
  return replayEvents(events).interventions.map((iv) => ({ what: `${iv.detector}:${iv.action}:${iv.key}`, others: others[iv.event], chars: chars[iv.event] }));
}

describe("chunking invariance", () => {
  const dir = path.resolve(__dirname, "../../../test/fixtures/scenarios");
  const traces = fs.readdirSync(dir).filter((f) => f.endsWith(".trace.jsonl")).sort();
  for (const f of traces) {
    it(`${f}: same verdicts at 1 and 40 characters per chunk`, () => {
      const [s] = readSessions([path.join(dir, f)], { lenient: false });
      const one = verdicts(rechunk(s.events, 1));
      const forty = verdicts(rechunk(s.events, 40));
      // Two stream detectors can see one chant complete within the same few characters; which one
      // is credited may depend on where a chunk ends, the verdict (action, place) may not.
      const comparable = (v: Verdict) => (STREAM_DETECTORS.has(v.what.split(":")[0]) ? `stream:${v.what.split(":")[1]}` : v.what);
      assert.deepEqual(one.map(comparable), forty.map(comparable), "different detectors, actions or keys");
      for (let i = 0; i < one.length; i++) {
        assert.equal(one[i].others, forty[i].others, `${one[i].what} fired after a different event`);
        // A finding inside a chunk is reported with that chunk: 40-character chunks may end up to 39 characters later.
        assert.ok(forty[i].chars >= one[i].chars && forty[i].chars - one[i].chars < 40, `${one[i].what} at character ${one[i].chars} vs ${forty[i].chars}`);
      }
    });
  }
});
