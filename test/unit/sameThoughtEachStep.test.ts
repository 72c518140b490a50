/**
 * Class 8 of issue 33: the same message word for word on consecutive steps while each step's tool
 * brings back something new is a model that does not read what came back. Look-alikes: a short
 * stock phrase before each call, a message repeated only a couple of times, messages that share
 * an opening but go on to say what was learnt.
 */
import * as assert from "node:assert/strict";
import type { TraceEvent } from "../../src/engine/events";
import { LoopSession } from "../../src/engine/session";
import { streamOf } from "./streamTestKit";

const feed = (events: TraceEvent[]) => { const s = new LoopSession(); return events.flatMap((e) => s.push(e)); };

/** Steps that each read a new part of a file (new content every time), each said with `say(i)`. */
function paging(steps: number, say: (i: number) => string, channel: "text" | "reasoning" = "text"): TraceEvent[] {
  const evs: TraceEvent[] = [{ t: "user", text: "Find why the export fails." }];
  for (let i = 0; i < steps; i++) {
    evs.push({ t: "request" }, ...streamOf(channel, say(i), 1 + (i % 7) * 5));
    evs.push({ t: "tool_call", id: `r${i}`, name: "read_file", input: { path: "src/exporter.ts", offset: i * 200, limit: 200 } }, { t: "end" });
    evs.push({ t: "tool_result", id: `r${i}`, ok: true, output: `export function part${i}(rows${i}: Row[]) {\n  return rows${i}.filter((r) => r.kind === "k${i}").map(write${i});\n}` });
  }
  return evs;
}

const SAME = "I still have not found where the export fails, so I will read the next part of the exporter and look for the place where the rows are written out.";

describe("the same message on every step, whatever the tools brought", () => {
  it("catches it on the fourth step, in the text and in the thinking", () => {
    for (const channel of ["text", "reasoning"] as const) {
      const evs = paging(7, () => SAME, channel);
      const ivs = feed(evs);
      assert.ok(ivs.length > 0, channel);
      const fourthCall = evs.findIndex((e) => e.t === "tool_call" && e.id === "r3");
      assert.ok(ivs[0].event <= fourthCall + 2, `${channel}: caught by the fourth step (at ${ivs[0].event})`);
      assert.match(ivs[0].summary, /word for word/);
    }
  });

  it("lets a status said alike at each check of a build whose answer moves through (a poll, not a new question)", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Get the deploy status." }];
    const answer = "The deployment is still rolling out and the health check on port 8080 does not answer yet; I will query the status endpoint again to see whether it is up.";
    for (let i = 0; i < 6; i++) {
      evs.push({ t: "request" }, ...streamOf("text", answer, 11), { t: "tool_call", id: `s${i}`, name: "Bash", input: { command: "curl -s http://localhost:8080/status" } }, { t: "end" });
      evs.push({ t: "tool_result", id: `s${i}`, ok: true, output: `{"rolled_out": ${i * 2}, "of": 12}` });
    }
    assert.deepEqual(feed(evs), []);
  });

  it("lets a short stock phrase before each new read through", () => {
    assert.deepEqual(feed(paging(10, () => "Reading the next part of the file.")), []);
  });

  it("lets a long message said twice or three times through", () => {
    const evs = paging(8, (i) => (i < 3 ? SAME : `Part ${i} writes rows of kind k${i}; the failure must come from a later writer than write${i - 1}, so I read on from offset ${i * 200}.`));
    assert.deepEqual(feed(evs), []);
  });

  it("lets messages that open alike but say what was learnt through", () => {
    assert.deepEqual(feed(paging(8, (i) => `I still have not found where the export fails. Part ${i} only filters rows of kind k${i} and hands them to write${i}, which looks right, so I read the next part.`)), []);
  });
});
