/**
 * A fuzz campaign: `total` inputs split over the readers (mutated fixtures and arbitrary text), the
 * Cline watcher (files rewritten, rolled back, cut mid-write) and Roo's translator (message updates).
 * Shared by the short run in `npm test` and the long run (`npm run fuzz -- COUNT`).
 */
import fc from "fast-check";
import { checkClineLive, checkReaderInput, checkRooLongText, LONG_TEXT_KINDS, longText, withLongText, checkWalk, walkTreeArb, checkRooLive, clineWritesArb, loadSeeds, mutate, mutationArb, mutationKind, rooMessagesOf, rooUpdatesArb } from "./fuzzKit";
import * as fs from "node:fs";
import * as path from "node:path";

export interface CampaignResult {
  /** Inputs tried by target ("input: reader trace", "input: live cline-classic") and mutations applied by kind ("mutation: truncate"). */
  tried: Record<string, number>;
  /** Failing inputs by class (property and error, numbers and paths masked): how many, and one input. */
  failures: Record<string, { count: number; example: string }>;
}

function failureClass(name: string, err: unknown): string {
  const first = String((err as Error)?.message ?? err).split("\n")[0];
  return `${name}: ${first.replace(/\/tmp\/\S+/g, "<path>").replace(/\d+/g, "N").slice(0, 160)}`;
}

const FIX = path.resolve(__dirname, "../../../test/fixtures");

export function runCampaign(total: number, seed: number): CampaignResult {
  const tried: Record<string, number> = {};
  const failures: CampaignResult["failures"] = {};
  const count = (k: string) => { tried[k] = (tried[k] ?? 0) + 1; };
  const seeds = loadSeeds();
  const run = <T>(name: string, arb: fc.Arbitrary<T>, numRuns: number, check: (v: T) => void) => {
    if (numRuns <= 0) return;
    // Every input is tried and every failure counted (no stop at the first): the figures of a run.
    fc.assert(fc.property(arb, (v) => {
      try { check(v); } catch (err) {
        const k = failureClass(name, err);
        const f = (failures[k] ??= { count: 0, example: JSON.stringify(v).slice(0, 400) });
        f.count++;
      }
    }), { numRuns, seed });
  };
  // Readers: 65% of the inputs, mutated fixtures of every format.
  const readerRuns = Math.round(total * 0.65);
  run("readers", fc.tuple(fc.nat({ max: seeds.length - 1 }), fc.array(mutationArb, { minLength: 1, maxLength: 3 })), readerRuns, ([i, ms]) => {
    const s = seeds[i];
    let content: Buffer = Buffer.from(s.files[s.main], "utf8");
    for (const m of ms) content = mutate(content.toString("utf8"), m);
    count(`input: reader ${s.kind}`);
    for (const m of ms) count(`mutation: ${mutationKind(m)}`);
    checkReaderInput(s, content);
  });
  // Long texts without spaces or newlines (a "!!!!" loop, CJK reasoning, base64) in every reader's
  // prose: a reader that scans to the text's end for every chunk takes seconds per megabyte.
  const longChars = 2 * 1024 * 1024;
  const kinds = [...new Set(seeds.map((s) => s.kind))];
  kinds.forEach((kind, i) => {
    const s = seeds.find((x) => x.kind === kind)!;
    const textKind = LONG_TEXT_KINDS[(i + seed) % LONG_TEXT_KINDS.length];
    count(`input: long unbroken text (${textKind}) in ${kind}`);
    try { checkReaderInput(s, withLongText(s, longText(textKind, longChars))); } catch (err) {
      const k = failureClass(`long text ${kind}`, err);
      (failures[k] ??= { count: 0, example: `${textKind}, ${longChars} characters` }).count++;
    }
  });
  for (const textKind of LONG_TEXT_KINDS) {
    count(`input: live roo long unbroken text (${textKind})`);
    try { checkRooLongText(longText(textKind, 1024 * 1024), 40); } catch (err) {
      const k = failureClass("live roo long text", err);
      (failures[k] ??= { count: 0, example: textKind }).count++;
    }
  }
  // Folder walks: link loops, broken links, FIFOs and bad files beside good sessions.
  const walkRuns = Math.round(total * 0.05);
  run("walk", walkTreeArb, walkRuns, (entries) => {
    count("input: folder walk (links, loops, FIFOs, bad files)");
    checkWalk(entries);
  });
  // Live Cline: the two layouts, their fixture with fields of other types now and then.
  const classic = JSON.parse(fs.readFileSync(path.join(FIX, "cline/classic/tasks/1795332497258/ui_messages.json"), "utf8")) as unknown[];
  const v4 = JSON.parse(fs.readFileSync(path.join(FIX, "cline/v4/sessions/1795332070724_oh9x4/1795332070724_oh9x4.messages.json"), "utf8")) as Record<string, unknown>;
  const liveRuns = Math.round(total * 0.1);
  const swapped = (messages: unknown[]) => fc.array(fc.record({ at: fc.nat({ max: messages.length - 1 }), field: fc.constantFrom("text", "ts", "type", "say", "partial", "content", "role", "id"), value: fc.constantFrom(42, true, null, ["x"], { a: 1 }, "", 1e308) }), { maxLength: 2 });
  const withSwaps = (messages: unknown[], swaps: { at: number; field: string; value: unknown }[]) => {
    const copy = messages.map((m) => (typeof m === "object" && m !== null ? { ...(m as object) } : m));
    for (const s of swaps) { const m = copy[s.at] as Record<string, unknown>; if (typeof m === "object" && m !== null) m[s.field] = s.value; }
    return copy;
  };
  run("live cline-classic", fc.tuple(clineWritesArb(classic.length), swapped(classic)), liveRuns, ([writes, swaps]) => {
    count(`input: live cline-classic${swaps.length ? " (fields of other types)" : ""}`);
    checkClineLive("classic", withSwaps(classic, swaps), writes);
  });
  const v4messages = v4.messages as unknown[];
  run("live cline-v4", fc.tuple(clineWritesArb(v4messages.length), swapped(v4messages)), liveRuns, ([writes, swaps]) => {
    count(`input: live cline-v4${swaps.length ? " (fields of other types)" : ""}`);
    checkClineLive("v4", { ...v4, messages: withSwaps(v4messages, swaps) }, writes);
  });
  // Live Cline over task files whose prose is one long unbroken text, written whole and in prefixes.
  for (const [layout, doc] of [["classic", classic], ["v4", v4]] as const) {
    const withText = JSON.parse(withLongText({ kind: layout, files: { f: JSON.stringify(doc) }, main: "f", target: "f" }, longText("bang", 1024 * 1024)).toString("utf8"));
    const n = layout === "classic" ? (withText as unknown[]).length : ((withText as Record<string, unknown>).messages as unknown[]).length;
    count(`input: live cline-${layout} long unbroken text`);
    try { checkClineLive(layout, withText, [{ count: Math.floor(n / 2) }, { count: n, partialChars: 300 }, { count: n, cutAt: 5000 }]); } catch (err) {
      const k = failureClass(`live cline-${layout} long text`, err);
      (failures[k] ??= { count: 0, example: "1 MB of !" }).count++;
    }
  }
  // Live Roo: message updates, created or updated, partial, with fields of other types.
  const roo = rooMessagesOf(seeds);
  run("live roo", fc.nat({ max: roo.length - 1 }).chain((i) => fc.tuple(fc.constant(i), rooUpdatesArb(roo[i]))), total - readerRuns - walkRuns - 2 * liveRuns, ([i, updates]) => {
    count("input: live roo message updates");
    checkRooLive(roo[i], updates);
  });
  return { tried, failures };
}
