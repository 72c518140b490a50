/**
 * c. Paragraphs, long lines, or sentences of long lines, whose wording drifts a little between
 * copies: the same thought restated again and again in other words, which exact matching
 * misses. Openers ("Wait,", "Hmm, actually") are not part of a unit. Each unit is compared
 * with the recent units of the same channel and heading by word 3-gram Jaccard similarity; a
 * unit alike to minCopies - 1 earlier ones is a loop. Code, tables, dividers and list items are
 * not units (lists are list-template's), and the same text under different headings is a
 * per-item report, not a loop; so are units that differ in one short slot only when they are
 * short or the slot names a file or identifier ("Updated a.ts to use the logger." / "Updated
 * b.ts ...").
 *
 * Cost per unit: O(window × unit words), units being ≥ minWords words; memory: window units.
 * count = catches since the user last spoke (one per request): the first aborts, a second stops.
 */
import type { Detector, DetectorDefinition, DetectorSettings, DetectorStatus, Finding } from "../detector";
import { excerpt } from "../guidance";
import { CatchCounter, jaccard, numberSetting, shingles, stripOpeners, textKey, wordsOf, type StreamChannel, type StreamLine, type StreamParagraph, type StreamSentence } from "../streamText";
import { channelName } from "./streamRepeat";

export const NEAR_DUPLICATE_DEFAULTS: DetectorSettings = {
  enabled: true,
  warnAt: 0,
  blockAt: 1,
  stopAt: 2,
  /** Alike units (this one included) that make a loop. */
  minCopies: 3,
  /** Word 3-gram Jaccard similarity from which two units are alike (0..1). */
  minSimilarity: 0.5,
  /** Units shorter than this many words are not compared. */
  minWords: 12,
  /** Recent units each new one is compared with, per channel. */
  window: 12,
  /** Also compare the sentences of long prose lines (a paragraph written as one line, a run-on loop). */
  sentenceUnits: true,
};

/** Words of a unit compared at most (a long paragraph is judged on its first part). */
const MAX_UNIT_WORDS = 300;

/** Units shorter than this that differ from each other in one short slot are template instances... */
const TEMPLATE_MAX_WORDS = 30;
const TEMPLATE_MAX_SLOT = 3;
/** ...and so are longer ones whose slot names something: a file, a path, a version, an identifier. */
const ENTITY = /[\d._/-]/;

/**
 * Whether two units are one template with one slot filled differently ("Updated a.ts to use the
 * logger." / "Updated b.ts to use the logger."): a per-item report, not a thought restated.
 */
function oneSlotApart(a: readonly string[], b: readonly string[]): boolean {
  const limit = Math.min(a.length, b.length);
  let p = 0;
  while (p < limit && a[p] === b[p]) p++;
  let q = 0;
  while (q < limit - p && a[a.length - 1 - q] === b[b.length - 1 - q]) q++;
  if (a.length - p - q > TEMPLATE_MAX_SLOT || b.length - p - q > TEMPLATE_MAX_SLOT || p + q >= limit) return false;
  if (a.length < TEMPLATE_MAX_WORDS && b.length < TEMPLATE_MAX_WORDS) return true;
  return [...a.slice(p, a.length - q), ...b.slice(p, b.length - q)].some((w) => ENTITY.test(w));
}

/** Whether the text has at least n spaces (a cheap lower bound on its word count). */
function hasSpaces(text: string, n: number): boolean {
  let found = 0;
  for (let i = text.indexOf(" "); i >= 0 && found < n; i = text.indexOf(" ", i + 1)) found++;
  return found >= n;
}

interface Unit {
  words: string[];
  shingles: Set<number>;
  section: string;
  event: number;
  text: string;
  /** Key of the drifting thought this unit belongs to, inherited from the earliest alike unit. */
  cluster: string;
}

class NearDuplicateDetector implements Detector {
  readonly id = "near-duplicate" as const;
  private recent = new Map<string, Unit[]>();
  private counter = new CatchCounter();
  private readonly minCopies: number;
  private readonly minSimilarity: number;
  private readonly minWords: number;
  private readonly window: number;
  private readonly sentenceUnits: boolean;
  private strongest = { alike: 0, detail: "" };

  constructor(settings: DetectorSettings) {
    this.minCopies = Math.max(2, numberSetting(settings, "minCopies", NEAR_DUPLICATE_DEFAULTS));
    this.minSimilarity = numberSetting(settings, "minSimilarity", NEAR_DUPLICATE_DEFAULTS);
    this.minWords = Math.max(3, numberSetting(settings, "minWords", NEAR_DUPLICATE_DEFAULTS));
    this.window = Math.max(this.minCopies, Math.min(64, numberSetting(settings, "window", NEAR_DUPLICATE_DEFAULTS)));
    this.sentenceUnits = settings.sentenceUnits !== false;
  }

  onRequestStart(): void {
    this.recent.clear();
    this.counter.newRequest();
    this.strongest = { alike: 0, detail: "" };
  }

  onLine(line: StreamLine): Finding[] | void {
    const out: Finding[] = [];
    this.readLine(line, out);
    return out.length ? out : undefined;
  }

  onParagraph(p: StreamParagraph): Finding[] | void {
    const out: Finding[] = [];
    this.readParagraph(p, out);
    return out.length ? out : undefined;
  }

  onSentence(x: StreamSentence): Finding[] | void {
    if (!this.sentenceUnits) return;
    const out: Finding[] = [];
    this.compare(x.channel, "sentence", x.text, x.section, x.event, out);
    return out.length ? out : undefined;
  }

  private readLine(line: StreamLine, out: Finding[]): void {
    if (line.kind !== "prose") return;
    this.compare(line.channel, "line", line.text, line.section, line.endEvent, out);
  }

  private readParagraph(p: StreamParagraph, out: Finding[]): void {
    if (p.lines.length < 2 || p.lines.some((l) => l.kind === "list")) return;
    // a paragraph of long lines is judged line by line already; of short lines, as a whole
    if (p.lines.some((l) => wordsOf(l.text, this.minWords).length >= this.minWords)) return;
    this.compare(p.channel, "paragraph", p.text, p.section, p.endEvent, out);
  }

  private compare(channel: StreamChannel, unitKind: "line" | "paragraph" | "sentence", text: string, section: string, event: number, out: Finding[]): void {
    if (!hasSpaces(text, this.minWords - 1)) return; // too short to be a unit: skip the word split
    const words = wordsOf(stripOpeners(text), MAX_UNIT_WORDS);
    if (words.length < this.minWords) return;
    const unit: Unit = { words, shingles: shingles(words, 3), section, event, text, cluster: `${this.id}:${channel}:${textKey(words.slice(0, 30).join(" "))}` };
    const bucket = `${channel}:${unitKind}`;
    let recent = this.recent.get(bucket);
    if (!recent) { recent = []; this.recent.set(bucket, recent); }
    const alike: Array<{ unit: Unit; similarity: number }> = [];
    for (const u of recent) {
      if (u.section !== section) continue;
      const similarity = jaccard(u.shingles, unit.shingles);
      if (similarity >= this.minSimilarity && !oneSlotApart(u.words, words)) alike.push({ unit: u, similarity });
    }
    // one key per drifting thought however far it drifts: the earliest alike unit names it
    if (alike.length) unit.cluster = alike[0].unit.cluster;
    recent.push(unit);
    if (recent.length > this.window) recent.shift();
    const copies = alike.length + 1;
    if (copies > this.strongest.alike) this.strongest = { alike: copies, detail: `${channelName(channel)}: ${copies} alike ${unitKind}s` };
    if (copies < this.minCopies) return;
    const key = unit.cluster;
    const count = this.counter.catch(key, channel);
    if (count === undefined) return;
    const similarity = Math.min(...alike.map((a) => a.similarity));
    const span = excerpt(text, 200);
    out.push({
      detector: this.id,
      key,
      count,
      summary: `your ${channelName(channel)} restates the same ${unitKind} in other words ${copies} times (${Math.round(similarity * 100)}%+ alike: "${span}")`,
      suggestion: "Rewording it does not move the task: settle on one conclusion and act on it, or try a genuinely different approach.",
      evidence: { events: [...alike.map((a) => a.unit.event), event], count: copies, span, similarity: Math.round(similarity * 100) / 100 },
    });
  }

  reset(): void {
    this.recent.clear();
    this.counter.reset();
    this.strongest = { alike: 0, detail: "" };
  }

  status(): DetectorStatus {
    return { id: this.id, enabled: true, progress: Math.min(1, this.strongest.alike / this.minCopies), detail: this.strongest.detail };
  }
}

export const nearDuplicate: DetectorDefinition = {
  id: "near-duplicate",
  title: "Reworded repetition",
  description: "Paragraphs whose wording drifts between copies: the same thought restated again and again.",
  channel: "stream",
  defaults: NEAR_DUPLICATE_DEFAULTS,
  create: (settings) => new NearDuplicateDetector(settings),
};
