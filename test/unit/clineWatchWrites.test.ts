/**
 * `watch` over a Cline task file written non-atomically: in pieces, emptied and rewritten, briefly
 * invalid, rolled back. Whatever the writer does between two reads, the watcher must end with the
 * findings replay gives on the final file (checkClineLive compares them).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import { checkClineLive, clineChunkedWritesArb } from "../fuzz/fuzzKit";

const FIX = path.resolve(__dirname, "../../../test/fixtures/cline");

describe("Cline watch equals replay over partial writes, truncation, invalid interludes and rollbacks", function () {
  this.timeout(120_000);
  const classic = JSON.parse(fs.readFileSync(path.join(FIX, "classic/tasks/1795332497258/ui_messages.json"), "utf8")) as unknown[];
  const v4 = JSON.parse(fs.readFileSync(path.join(FIX, "v4/sessions/1795332070724_oh9x4/1795332070724_oh9x4.messages.json"), "utf8")) as Record<string, unknown>;

  it("classic ui_messages.json (an identical-command loop: each `ls` result the same)", () => {
    fc.assert(fc.property(clineChunkedWritesArb(classic.length), (writes) => { checkClineLive("classic", classic, writes); }), { numRuns: 150, seed: 24 });
  });

  it("the SDK session file", () => {
    const n = (v4.messages as unknown[]).length;
    fc.assert(fc.property(clineChunkedWritesArb(n), (writes) => { checkClineLive("v4", v4, writes); }), { numRuns: 100, seed: 24 });
  });

  it("with hooks on (recorded from CLI 2.18.0): the hook row spliced in before a command row after it was written", () => {
    const rows = JSON.parse(fs.readFileSync(path.join(FIX, "../cline-hook/classic-cli-2.18.0-hook-rows.ui_messages.json"), "utf8")) as Record<string, unknown>[];
    /**
     * The first `count` rows as Cline shows them between two writes: the last hook row perhaps not
     * yet spliced in before its command row (Cline writes the command row first), unless a read
     * already showed it (Cline never takes a hook row out again).
     */
    const shownHooks = new Set<number>();
    const version = (count: number, unspliced: boolean, cutAt: number | undefined): string => {
      let list = rows.slice(0, count);
      const hook = list.map((r) => r.say).lastIndexOf("hook_status");
      if (unspliced && hook >= 0 && hook >= count - 2 && !shownHooks.has(hook)) list = [...list.slice(0, hook), ...list.slice(hook + 1)];
      else if (hook >= 0 && cutAt === undefined) shownHooks.add(hook);
      const text = JSON.stringify(list);
      return cutAt === undefined ? text : text.slice(0, cutAt % (text.length + 1));
    };
    const step = fc.record({ count: fc.integer({ min: 0, max: rows.length }), unspliced: fc.boolean(), cutAt: fc.option(fc.nat(), { nil: undefined }), empty: fc.boolean() });
    fc.assert(fc.property(fc.array(step, { minLength: 1, maxLength: 14 }), (steps) => {
      shownHooks.clear();
      const writes = steps.map((w) => ({ count: 0, garbage: w.empty ? "" : version(w.count, w.unspliced, w.cutAt) }));
      checkClineLive("classic", rows, writes);
    }), { numRuns: 150, seed: 24 });
  });

  it("the sequences the issue names: two chunks, emptied and rewritten, invalid, rolled back", () => {
    const n = classic.length;
    const text = JSON.stringify(classic);
    for (const writes of [
      [{ count: n, cutAt: Math.floor(text.length / 2) }],
      [{ count: 6 }, { count: 0, garbage: "" }, { count: 6 }],
      [{ count: 6 }, { count: 0, garbage: "[{\"ts\":" }, { count: 11 }],
      [{ count: 16 }, { count: 6 }, { count: 0, garbage: "" }, { count: 11, cutAt: 900 }, { count: 16 }],
    ]) checkClineLive("classic", classic, writes);
  });
});
