/**
 * Code spans as facts: a case analysis walks the same few words through different expressions (a
 * sign flipped, arguments swapped); read as words alone it brings nothing new, read with its spans
 * it does. Recorded DeepSeek runs from the corpus (productive) show the margin this buys; the same
 * analysis said over and over is still a loop.
 */
import * as assert from "node:assert/strict";
import type { TraceEvent } from "../../src/engine/events";
import { ContentTokens, NAME_TOKEN, SPAN_TOKEN } from "../../src/engine/words";
import { prose, readTrace, request, runOnly, streamOf } from "./streamTestKit";

const user = (text: string): TraceEvent => ({ t: "user", text });
const tp = (events: TraceEvent[]) => runOnly(["text-progress"], events);

describe("code spans as facts", () => {
  const spans = (text: string) => {
    const t = new ContentTokens();
    t.read(text);
    return Array.from(t.hashes.subarray(0, t.count)).filter((_, k) => t.kinds[k] === SPAN_TOKEN);
  };
  it("read a code span whole, by its exact text: a sign flipped or arguments swapped is another fact", () => {
    const [minus] = spans("Order by `-pk` here."), [plain] = spans("Order by `pk` here.");
    assert.ok(minus !== undefined && plain !== undefined && minus !== plain);
    const [a] = spans("`get_order_dir('-pk', 'DESC')` returns it"), [b] = spans("`get_order_dir('pk', 'DESC')` returns it");
    assert.notEqual(a, b);
    // the same span in other prose, or in text that is not ASCII, is the same fact
    assert.deepEqual(spans("Then `-pk` again, café."), [minus]);
    // two spans on a line are two; the text between them is none
    assert.equal(spans("`a` and then `b`").length, 2);
  });
  it("find no span in a fence, an unclosed backtick, or one closed on another line", () => {
    assert.deepEqual(spans("```python\nx = 1\n```"), []);
    assert.deepEqual(spans("a lone ` backtick and more words"), []);
    assert.deepEqual(spans("`opened here\nclosed` there"), []);
  });
  it("leave the words inside a span to count as words", () => {
    const t = new ContentTokens();
    t.read("`parse_snapshot` deadline");
    const kinds = Array.from(t.kinds.subarray(0, t.count));
    assert.deepEqual(kinds.sort(), [0, NAME_TOKEN, SPAN_TOKEN].sort());
  });
});

describe("code spans in the progress measure and reworded repetition", () => {
  it("stays quiet on a recorded case analysis over code expressions, with a run one passage shorter than the default", () => {
    // DeepSeek on django 12470 weighs `-pk` against `pk`, `'ASC'` against `'DESC'`: read as words
    // alone, four passages in a row brought nothing new (the default needs five)
    const events = readTrace("corpus/msa_deepseek_django12470.trace.jsonl");
    assert.deepEqual(runOnly(["text-progress"], events, { minRun: 4 }).map((i) => i.summary), []);
  });
  // A case analysis like the recorded one, said over and over: its spans are no longer new.
  const cases = [["`author`", "`-pk`", "`pk` DESC"], ["`-author`", "`-pk`", "`pk` ASC"], ["`author`", "`pk`", "`pk` ASC"], ["`-author`", "`pk`", "`-pk` DESC"],
    ["`author__name`", "`-pk`", "`name` ASC"], ["`-author__name`", "`-pk`", "`-name` DESC"], ["`pk`", "`-id`", "`-id` DESC"], ["`-pk`", "`-id`", "`id` ASC"]];
  const analysis = cases.map(([by, ordering, result]) => `If we order the queryset by ${by} and the related model has its ordering set to ${ordering}, the compiler should resolve the ordering to ${result} for the query.`);
  it("still catches a case analysis said over and over, spans and all", () => {
    const again = Array.from({ length: 6 }, () => analysis.slice(0, 2).join(" ")).join("\n\n");
    const found = tp([user("Fix the ordering of inherited models."), ...request(streamOf("reasoning", prose(60, 5) + "\n\n" + again + "\n"))]);
    assert.equal(found[0]?.action, "warn");
  });

  it("keeps a recorded plan weighing where to insert a line an enumeration, with a looser likeness than the default", () => {
    // DeepSeek reasoner on marshmallow 1343 weighs inserting the guard after `errors = {}`, after
    // `data = {}`, ...: alike sentences that each name their own line of code
    const events = readTrace("corpus/msa_deepseek_reasoner_marshmallow1343.trace.jsonl");
    assert.deepEqual(runOnly(["near-duplicate"], events, { minWordSetSimilarity: 0.35 }).map((i) => i.summary), []);
  });
});
