/**
 * d. An endless list: item after item built from one template with one slot changing ("Fix bug
 * where the app crashes when the user denies <X> permissions.") far past what any task asks
 * for. Lists are not loops by themselves: ten files with the same note are a report. What
 * counts is a long unbroken run (minItems) of items that share most of their words, in the same
 * order, around a short changing slot, most of whose slots come from nowhere: a slot whose
 * words appear in this turn's tool output or tool input (release notes listing the bumped
 * packages, a report per file found) is grounded. Code, tables, dividers and headings end a run;
 * items that break the template start a new one.
 *
 * count = catches since the user last spoke (one per request): the first aborts the stream,
 * a second catch of the same template stops the task.
 */
import type { Detector, DetectorDefinition, DetectorSettings, DetectorStatus, Finding } from "../detector";
import { STREAM_STRENGTH } from "../detector";
import type { CallRecord } from "../ledger";
import { excerpt } from "../guidance";
import { listMarker } from "../structure";
import { CatchCounter, isSpaceCode, numberSetting, type StreamChannel, type StreamLine } from "../streamText";
import { textKey, wordsOf } from "../words";
import { channelName } from "./streamRepeat";

export const LIST_TEMPLATE_DEFAULTS: DetectorSettings = {
  enabled: true,
  warnAt: 0,
  blockAt: 1,
  stopAt: 2,
  /** Items in one unbroken run on one template that make a loop. */
  minItems: 15,
  /** Words every item of the run shares, in place, before and after the slot. */
  minSharedWords: 4,
  /** Share of an item's words that must be template (0..1). */
  minSharedRatio: 0.6,
  /** Longest changing slot, in words. */
  maxSlotWords: 5,
  /** Share of the run's items whose slot is not found in any tool output of the turn (0..1). */
  minUngroundedShare: 0.5,
};

/** Tool input and output text kept for grounding (the most recent), and per source at most. */
const MAX_SOURCE_CHARS = 256 * 1024;
const MAX_CHARS_PER_SOURCE = 64 * 1024;
/** Slots remembered per run (the grounding verdict is taken over these). */
const MAX_SLOTS = 256;

const MAX_EVENTS = 32;

interface Run {
  /** The template's words before and after the slot; none yet for a run of one item (its words are the template). */
  prefix?: string[];
  suffix?: string[];
  items: number;
  /** The changing words of each item, to judge against the turn's tool text once the run is long. */
  slots: string[][];
  first: string;
  last: string;
  events: number[];
  lastItem: Item;
}

function commonPrefix(a: readonly string[], b: readonly string[], limit: number): number {
  let n = 0;
  while (n < limit && a[n] === b[n]) n++;
  return n;
}

function commonSuffix(a: readonly string[], b: readonly string[], limit: number): number {
  let n = 0;
  while (n < limit && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

/**
 * text.split(/\s+/, max) in one char pass (raw), and the same words with every digit run made "#"
 * (words: the very array when no word holds a digit, as nothing mutates either).
 */
function splitWords(text: string, max: number): { raw: string[]; words: string[] } {
  const raw: string[] = [];
  let words: string[] | undefined;
  let from = 0;
  while (raw.length < max) {
    let to = from, digit = false;
    for (let c: number; to < text.length && !isSpaceCode((c = text.charCodeAt(to))); to++) if (c >= 48 && c <= 57) digit = true;
    const word = text.slice(from, to);
    if (digit && !words) words = raw.slice();
    raw.push(word);
    words?.push(digit ? word.replace(/\d+/g, "#") : word);
    if (to >= text.length) break;
    // a run of whitespace is one separator
    while (to < text.length && isSpaceCode(text.charCodeAt(to))) to++;
    from = to;
  }
  return { raw, words: words ?? raw };
}

/** Words of an item kept at most. */
const MAX_ITEM_WORDS = 64;

/** The word as the template reads it: digit runs are "#". */
function digitsAsHash(word: string): string {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 48 && c <= 57) return word.replace(/\d+/g, "#");
  }
  return word;
}

/**
 * A word of the line as written lowercased, as that word of the lowercased body reads, if it is
 * ASCII (undefined if not): lowercasing never makes or removes whitespace, so the body has the
 * same words in the same places, and an ASCII word lowercases alone as it does in its line (other
 * letters can depend on their neighbours, as a final sigma does).
 */
function lowerAscii(word: string): string | undefined {
  for (let i = 0; i < word.length; i++) if (word.charCodeAt(i) >= 0x80) return undefined;
  return word.toLowerCase();
}

/**
 * From the first word of a body on (sticky), the word splitWords(body, MAX_ITEM_WORDS) ends with:
 * up to MAX_ITEM_WORDS - 1 words each followed by whitespace and another word (so trailing
 * whitespace past the trimmed body is never taken), then the word after them. \s is what
 * isSpaceCode and trim() take for whitespace. Native matching, several times faster than a loop.
 */
const LAST_WORD = new RegExp(`(?:\\S+\\s+(?=\\S)){0,${MAX_ITEM_WORDS - 1}}(\\S*)`, "y");

/**
 * One item's words, split only when a template check needs them all: most lines share neither
 * their first nor their last word with the line or template before them, and then no check can
 * pass (see mayFit), so most lines are never split, nor even lowercased: those two words are read
 * from the line as written.
 */
export class Item {
  private split?: { raw: string[]; words: string[] };
  private lowered?: string;
  private first?: string;
  private last?: string;
  /** Where the body lies in the line: past the marker and the whitespace trim() strips (isSpaceCode is what it strips). */
  private readonly start: number;
  private readonly end: number;

  /**
   * line: the line as written; from: where its body starts (after the list marker); lineWords: the
   * words of the trimmed line if known (StreamLine.words), at least as many as its body holds.
   */
  constructor(private readonly line: string, private readonly from: number, private readonly lineWords?: number) {
    let start = from, end = line.length;
    while (start < end && isSpaceCode(line.charCodeAt(start))) start++;
    while (end > start && isSpaceCode(line.charCodeAt(end - 1))) end--;
    this.start = start;
    this.end = end;
  }

  /** The body the words are read from: the line after its marker, trimmed and lowercased. */
  private get body(): string { return (this.lowered ??= this.line.slice(this.from).trim().toLowerCase()); }

  /** The words, digit runs made "#". */
  get words(): string[] { return (this.split ??= splitWords(this.body, MAX_ITEM_WORDS)).words; }
  /** The words as written. */
  get raw(): string[] { return (this.split ??= splitWords(this.body, MAX_ITEM_WORDS)).raw; }

  /** words[0], without splitting. */
  firstWord(): string {
    if (this.first === undefined) {
      const end = this.end;
      let to = this.start;
      while (to < end && !isSpaceCode(this.line.charCodeAt(to))) to++;
      this.first = digitsAsHash(lowerAscii(this.line.slice(this.start, to)) ?? this.firstOfBody());
    }
    return this.first;
  }

  /** words[words.length - 1], without splitting: the word splitWords ends with, found by LAST_WORD. */
  lastWord(): string {
    if (this.last === undefined) {
      let word: string;
      if (this.lineWords !== undefined && this.lineWords <= MAX_ITEM_WORDS) {
        // no more words than are kept: the last is the body's own, read back from its end
        let from = this.end;
        while (from > this.start && !isSpaceCode(this.line.charCodeAt(from - 1))) from--;
        word = this.line.slice(from, this.end);
      } else {
        LAST_WORD.lastIndex = this.start;
        word = LAST_WORD.exec(this.line)![1];
      }
      this.last = digitsAsHash(lowerAscii(word) ?? this.lastOfBody());
    }
    return this.last;
  }

  private firstOfBody(): string {
    const body = this.body;
    let to = 0;
    while (to < body.length && !isSpaceCode(body.charCodeAt(to))) to++;
    return body.slice(0, to);
  }

  private lastOfBody(): string {
    const text = this.body;
    let from = 0, to = 0;
    for (let count = 1; ; count++) {
      to = from;
      while (to < text.length && !isSpaceCode(text.charCodeAt(to))) to++;
      if (count >= MAX_ITEM_WORDS || to >= text.length) break;
      while (to < text.length && isSpaceCode(text.charCodeAt(to))) to++;
      from = to;
    }
    return text.slice(from, to);
  }
}

class ListTemplateDetector implements Detector {
  readonly id = "list-template" as const;
  private runs = new Map<StreamChannel, Run | undefined>();
  private counter = new CatchCounter();
  private readonly minItems: number;
  private readonly minShared: number;
  private readonly minRatio: number;
  private readonly maxSlot: number;
  private readonly minUngrounded: number;
  /** Recent tool text, kept raw: words are only extracted once a run gets long (rare), not per call. */
  private sources: string[] = [];
  /**
   * Where the kept sources start in the array: the ones before were let go ("" now). shift() would
   * move every string after the first, each time; the array is cut only once half of it was let go.
   */
  private sourcesFrom = 0;
  private sourceChars = 0;
  private sourceWords: Set<string> | undefined;
  /** The longest run so far, kept raw: the status line is only written when asked for. */
  private strongest: { items: number; channel?: StreamChannel; first?: string } = { items: 0 };

  constructor(settings: DetectorSettings) {
    this.minItems = Math.max(3, numberSetting(settings, "minItems", LIST_TEMPLATE_DEFAULTS));
    this.minShared = Math.max(1, numberSetting(settings, "minSharedWords", LIST_TEMPLATE_DEFAULTS));
    this.minRatio = numberSetting(settings, "minSharedRatio", LIST_TEMPLATE_DEFAULTS);
    this.maxSlot = numberSetting(settings, "maxSlotWords", LIST_TEMPLATE_DEFAULTS);
    this.minUngrounded = numberSetting(settings, "minUngroundedShare", LIST_TEMPLATE_DEFAULTS);
  }

  onRequestStart(): void {
    // (a new map, not clear(): see LineRepeatDetector.onRequestStart)
    if (this.runs.size > 0) this.runs = new Map();
    this.counter.newRequest();
    this.strongest = { items: 0 };
  }

  /** Items from a list the user pasted are grounded too. */
  onUser(text: string): void {
    this.learn(text);
  }

  onToolCall(call: CallRecord): void {
    for (const v of Object.values(call.input)) if (typeof v === "string") this.learn(v);
  }

  onToolResult(call: CallRecord): void {
    if (call.result) this.learn(call.result.text);
  }

  private learn(text: string): void {
    if (!text) return;
    const kept = text.slice(0, MAX_CHARS_PER_SOURCE);
    this.sources.push(kept);
    this.sourceChars += kept.length;
    while (this.sourceChars > MAX_SOURCE_CHARS && this.sources.length - this.sourcesFrom > 1) {
      this.sourceChars -= this.sources[this.sourcesFrom].length;
      this.sources[this.sourcesFrom++] = "";
    }
    if (this.sourcesFrom > 64 && 2 * this.sourcesFrom > this.sources.length) {
      this.sources = this.sources.slice(this.sourcesFrom);
      this.sourcesFrom = 0;
    }
    this.sourceWords = undefined;
  }

  /** Whether most words of an item's slot appear in the turn's tool input or output. */
  private grounded(slot: readonly string[]): boolean {
    if (slot.length === 0) return false;
    if (!this.sourceWords) {
      this.sourceWords = new Set();
      for (let k = this.sourcesFrom; k < this.sources.length; k++) for (const w of wordsOf(this.sources[k], Infinity)) this.sourceWords.add(w);
    }
    let found = 0;
    for (const w of slot) if (this.sourceWords.has(w)) found++;
    return found * 2 >= slot.length;
  }

  /** The words of an item's changing part (numbers left out: they are part of the template). */
  private static slotOf(raw: readonly string[], prefix: number, suffix: number): string[] {
    return wordsOf(raw.slice(prefix, raw.length - suffix).join(" "), 16).filter((w) => !/^\d[\d.]*$/.test(w));
  }

  onLine(line: StreamLine): Finding[] | void {
    const found = this.readLine(line);
    // a list made only for a finding: nearly every line has none
    return found && [found];
  }

  /**
   * Whether an item whose template starts with `first` and ends with `last` can fit it at all:
   * with both ends different no word is shared in place (shared = 0, below minSharedWords ≥ 1),
   * so fit would say no; this tells it from two words, before the item is split.
   */
  private static mayFit(first: string | undefined, last: string | undefined, item: Item): boolean {
    return first === item.firstWord() || last === item.lastWord();
  }

  /** fit against a run's template (a run of one item: that item's words). */
  private fitRun(run: Run, item: Item): { prefix: string[]; suffix: string[] } | undefined {
    const first = run.prefix ? run.prefix[0] : run.lastItem.firstWord();
    const last = run.suffix ? run.suffix[run.suffix.length - 1] : run.lastItem.lastWord();
    if (!ListTemplateDetector.mayFit(first, last, item)) return undefined;
    return this.fit(run.prefix ?? run.lastItem.words, run.suffix ?? run.lastItem.words, item.words);
  }

  /** fit of an item against the one before it (both ends of the template are that item's). */
  private fitPair(previous: Item, item: Item): { prefix: string[]; suffix: string[] } | undefined {
    if (!ListTemplateDetector.mayFit(previous.firstWord(), previous.lastWord(), item)) return undefined;
    return this.fit(previous.words, previous.words, item.words);
  }

  /** Whether `words` fits a template of this prefix and suffix, and the template that remains. */
  private fit(prefix: readonly string[], suffix: readonly string[], words: readonly string[]): { prefix: string[]; suffix: string[] } | undefined {
    const p = commonPrefix(prefix, words, Math.min(prefix.length, words.length));
    const s = commonSuffix(suffix, words, Math.min(suffix.length, words.length - p));
    const shared = p + s;
    const slot = words.length - shared;
    if (shared < this.minShared || shared < this.minRatio * words.length || slot > this.maxSlot) return undefined;
    return { prefix: prefix.slice(0, p), suffix: suffix.slice(suffix.length - s) };
  }

  private readLine(line: StreamLine): Finding | undefined {
    if (line.kind === "blank") return undefined; // items may be spaced out
    const run = this.runs.get(line.channel);
    if (line.kind !== "list" && line.kind !== "prose") { this.runs.set(line.channel, undefined); return undefined; }
    // whitespace tokens (at least one: an empty line is one empty word); digits are "#": "Step 12: ...", "item 3 of 40" share a template
    const item = new Item(line.text, listMarker(line.text).length, line.words);
    const text = line.text.trim();
    const continued = run && this.fitRun(run, item);
    if (run && continued) {
      run.prefix = continued.prefix;
      run.suffix = continued.suffix;
      run.items++;
      if (run.slots.length < MAX_SLOTS) run.slots.push(ListTemplateDetector.slotOf(item.raw, continued.prefix.length, continued.suffix.length));
      run.last = text;
      if (run.events.length < MAX_EVENTS) run.events.push(line.endEvent);
    } else {
      // a new run: this item alone, or with the previous one if the two share a template
      const pair = run && this.fitPair(run.lastItem, item);
      const slots = pair ? [run.lastItem.raw, item.raw].map((r) => ListTemplateDetector.slotOf(r, pair.prefix.length, pair.suffix.length)) : [];
      this.runs.set(line.channel, pair
        ? { prefix: pair.prefix, suffix: pair.suffix, items: 2, slots, first: run.last, last: text, events: [run.events[run.events.length - 1], line.endEvent], lastItem: item }
        : { items: 1, slots: [], first: text, last: text, events: [line.endEvent], lastItem: item });
    }
    const current = this.runs.get(line.channel)!;
    current.lastItem = item;
    if (current.items > this.strongest.items) this.strongest = { items: current.items, channel: line.channel, first: current.first };
    if (current.items < this.minItems) return undefined;
    const ungrounded = current.slots.filter((slot) => !this.grounded(slot)).length;
    if (ungrounded < this.minUngrounded * current.slots.length) return undefined;
    const template = `${(current.prefix ?? item.words).join(" ")} … ${(current.suffix ?? item.words).join(" ")}`;
    const key = `${this.id}:${line.channel}:${textKey(template)}`;
    const count = this.counter.catch(key, line.channel);
    if (count === undefined) return undefined;
    return {
      detector: this.id,
      key,
      count,
      summary: `your ${channelName(line.channel)} keeps listing items on one template, ${current.items} so far, ${ungrounded} of them found in no file or tool output ("${excerpt(current.first, 90)}" … "${excerpt(current.last, 90)}")`,
      suggestion: "The list has gone past what the sources hold: stop it, keep only the items you actually found (in files or tool output), and continue with the task.",
      evidence: { events: [...current.events], count: current.items, span: excerpt(template, 200), similarity: Math.round((ungrounded / Math.max(1, current.slots.length)) * 100) / 100 },
    };
  }

  reset(): void {
    this.runs.clear();
    this.sources = [];
    this.sourcesFrom = 0;
    this.sourceChars = 0;
    this.sourceWords = undefined;
    this.counter.reset();
    this.strongest = { items: 0 };
  }

  status(): DetectorStatus {
    const { items, channel, first } = this.strongest;
    const detail = channel && first !== undefined ? `${channelName(channel)}: ${items} items like "${excerpt(first, 40)}"` : "";
    return { id: this.id, enabled: true, progress: Math.min(1, items / this.minItems), detail };
  }
}

export const listTemplate: DetectorDefinition = {
  id: "list-template",
  title: "Endless templated list",
  description: "A long unbroken list whose items repeat one template with one slot changing, far beyond what the task asked for.",
  channel: "stream",
  defaults: LIST_TEMPLATE_DEFAULTS,
  create: (settings) => new ListTemplateDetector(settings),
  shortTitle: "Templated lists",
  strength: STREAM_STRENGTH,
  parameters: {
    minItems: {
      description: "Items in one unbroken list on one template that count. Example: `15` (the default): a list of 15 \"Fix the bug where ... crashes\" items with one slot changing is caught, a list of 10 files is not.",
      tuning: true,
    },
    minSharedWords: {
      description: "Words every item of the list shares, in place, around the changing slot. Example: `4` (the default).",
      tuning: true,
    },
    minSharedRatio: {
      description: "Share of each item's words (0 to 1) that must belong to the template. Example: `0.6` (the default): 6 of an item's 10 words are the same in every item.",
      tuning: true,
    },
    maxSlotWords: {
      description: "Longest changing slot, in words; items that differ by more are not one template. Example: `5` (the default).",
      tuning: true,
    },
    minUngroundedShare: {
      description: "Share of the items (0 to 1) whose slot appears in no file or tool output of this turn: a list of things actually found (packages bumped, files changed) is a report. Example: `0.5` (the default): at least half the items must come from nowhere.",
      tuning: true,
    },
  },
};
