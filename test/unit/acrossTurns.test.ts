/**
 * Class 2 of issue 33: memory across user turns. The same answer given again word for word after a
 * reply it ignores is the loop going on, not a fresh start. Look-alikes: new answers to new
 * questions, and short courtesies said again.
 */
import * as assert from "node:assert/strict";
import type { TraceEvent } from "../../src/engine/events";
import { LoopSession } from "../../src/engine/session";
import { streamOf } from "./streamTestKit";

const feed = (events: TraceEvent[]) => { const s = new LoopSession(); return events.flatMap((e) => s.push(e)); };
const answer = (text: string, chunk = 9): TraceEvent[] => [{ t: "request" }, ...streamOf("text", text, chunk), { t: "end" }];

const SAME = "The timeout comes from the default in src/http/client.ts, which sets it to 30 seconds; raising it there will make the upload of large files succeed.";

describe("across user turns", () => {
  it("catches the same answer given again word for word after a reply that it ignores", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Why do large uploads time out?" }, ...answer(SAME), { t: "user", text: "No, that default is overridden in config/upload.yaml. Look there." }, ...answer(SAME, 13)];
    const ivs = feed(evs);
    assert.ok(ivs.length > 0, "caught at the second copy");
    assert.equal(ivs[0].detector, "stagnation");
  });

  it("lets new answers to new questions, and a courtesy said again, through", () => {
    const evs: TraceEvent[] = [
      { t: "user", text: "Why do large uploads time out?" }, ...answer(SAME),
      { t: "user", text: "And where is the retry count set?" }, ...answer("The retry count is set in src/http/retry.ts: three attempts with a doubling back-off, starting at 500 milliseconds."),
      { t: "user", text: "Thanks!" }, ...answer("You're welcome, glad it helped."),
      { t: "user", text: "Great, thanks again." }, ...answer("You're welcome, glad it helped."),
    ];
    assert.deepEqual(feed(evs), []);
  });

  it("forgets on a manual reset", () => {
    const s = new LoopSession();
    const ivs = [{ t: "user", text: "Why do large uploads time out?" } as TraceEvent, ...answer(SAME)].flatMap((e) => s.push(e));
    s.reset();
    ivs.push(...[{ t: "user", text: "No, look in config/upload.yaml." } as TraceEvent, ...answer(SAME)].flatMap((e) => s.push(e)));
    assert.deepEqual(ivs, []);
  });

  it("judges the visible answer apart from the thinking: the same answer word for word with nothing done is caught at its second copy", () => {
    const think = (i: number) => streamOf("reasoning", [`The user wants a summary of the conversation so far; let me write it.`, `The user wants me to update the anchored summary with what changed since.`][i], 8);
    const evs: TraceEvent[] = [{ t: "user", text: "Which file is changed?" }];
    for (let i = 0; i < 2; i++) evs.push({ t: "request" }, ...think(i), ...streamOf("text", "Goal\n  Find which files are modified.\nProgress\n  Ran git status.\nRelevant files\n  src/deploy/service.cs: modified, not staged for commit", 9), { t: "end" });
    const ivs = feed(evs);
    assert.equal(ivs.length, 1);
    assert.equal(ivs[0].event, evs.length - 1, "at the end of the second copy");
  });

  it("lets a short answer said again under new thinking through at its second copy", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Update the changelog." }];
    for (const t of ["I added the entry under Unreleased.", "The entry is in; the links at the bottom are fine."]) evs.push({ t: "request" }, ...streamOf("reasoning", t, 6), ...streamOf("text", "Done.", 3), { t: "end" });
    assert.deepEqual(feed(evs), []);
  });
});
