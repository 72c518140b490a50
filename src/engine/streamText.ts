/**
 * Shared mechanics of the stream detectors: streamed chunks of one request turned into complete
 * lines and paragraphs per channel (reasoning and visible text apart), each with its markdown
 * kind and the heading it sits under; plus the word and shingle helpers the similarity checks
 * share. Work is O(chunk) and memory is bounded by the longest line kept (maxLineChars).
 */
import type { StreamEvent } from "./events";
import { StructureTracker, listMarker, type LineKind } from "./structure";

export type StreamChannel = StreamEvent["t"];

/** Longest line read as an item label. */
const MAX_LABEL_CHARS = 80;

/**
 * A line that only names the item that follows: a file or path (optionally in backticks or bold),
 * or a short phrase ending in a colon, after an optional list marker.
 */
export function isItemLabel(line: string): boolean {
  const body = line.trim().replace(/^(?:[-*+]|\d+[.)])\s+/, "").replace(/^\*\*(.*)\*\*:?$/, "$1").replace(/^`(.*)`:?$/, "$1").trim();
  if (body === "" || body.length > MAX_LABEL_CHARS) return false;
  if (/^[\w.@~-]*\/[\w./@~-]*[\w]:?$/.test(body) || /^[\w@~-][\w.@~-]*\.[A-Za-z][A-Za-z0-9]{0,5}:?$/.test(body)) return true; // a path or file name
  return /^[^.!?]{3,60}:$/.test(body); // "Summary:", "Files changed:"
}

export interface StreamLine {
  channel: StreamChannel;
  /** The line without its newline, cut to maxLineChars. */
  text: string;
  kind: LineKind;
  /** Normalised text of the heading this line sits under ("" before the first heading). */
  section: string;
  /** For list items: which list of the channel they belong to (a new list starts after any other non-blank line). */
  list: number;
  /** For nested list items: the normalised text of the item they sit under ("" at the top level); for a continuation, the item it continues. */
  parent: string;
  /** Events in which the line started and ended. */
  startEvent: number;
  endEvent: number;
  /** An indented prose line right after a list item: the item's text wrapped onto a new line. */
  continuation?: boolean;
}

export interface StreamParagraph {
  channel: StreamChannel;
  lines: StreamLine[];
  text: string;
  section: string;
  startEvent: number;
  endEvent: number;
}

/** Longest line kept whole; the rest of a longer line is dropped (stream-repeat sees it all). */
export const MAX_LINE_CHARS = 4000;
/** Lines gathered into one paragraph at most; a longer paragraph is cut into pieces. */
const MAX_PARAGRAPH_LINES = 64;

interface ChannelState {
  partial: string;
  partialStart: number;
  structure: StructureTracker;
  section: string;
  list: number;
  inList: boolean;
  /** Open list items by indent, to name a nested item's parent. */
  listStack: Array<{ indent: number; text: string }>;
  paragraph: StreamLine[];
  /** Where the current sentence of the partial line starts, and whether the last char ended one. */
  sentenceFrom: number;
  afterStop: boolean;
  /** Sentence starts before LONG_LINE_CHARS, reported once the line proves long (a few at most). */
  earlyStarts: number[];
  /** The last line was a list item or its wrapped continuation. */
  inItem: boolean;
  /** Whether the partial line reads as prose, decided once it is long (its head no longer changes). */
  proseLine?: boolean;
}

/** A sentence inside a long line (a paragraph written as one line, or a run-on loop). */
export interface StreamSentence {
  channel: StreamChannel;
  text: string;
  /** The start of the line the sentence sits in (what the line opens with: a label names its subject). */
  lineHead: string;
  section: string;
  event: number;
}

/** Below this length a phrase said three times in a row can still be emphasis: the fourth copy makes it a chant. */
export const SHORT_PHRASE_CHARS = 24;

/** Characters of a line's start given with each of its sentences. */
const LINE_HEAD_CHARS = 80;

/** Sentences are reported only from lines at least this long: short lines are judged whole. */
export const LONG_LINE_CHARS = 200;

/** Lowercase, no list marker, no markdown emphasis, single spaces: what two copies of a line share. */
export function normalizeLine(text: string): string {
  return text.slice(listMarker(text).length).toLowerCase().replace(/[*_`]+/g, "").replace(/\s+/g, " ").trim();
}

/** Words a restated thought often opens with ("Wait, ...", "Hmm, actually ..."): not part of what it says. */
const OPENER = /^(?:(?:wait|hmm+|actually|ok(?:ay)?|alright|so|but|now|well|oh|right|again|also|and|then)\b[\s,.:;!—-]*)+/i;

/** The text without its leading discourse words, so "Wait, X" and "Hmm, X" are the same X. */
export function stripOpeners(text: string): string {
  const t = text.trimStart();
  const m = OPENER.exec(t);
  return m && m[0].length < t.length ? t.slice(m[0].length) : t;
}

const WORD = /[\p{L}\p{N}_]+(?:['’.-][\p{L}\p{N}_]+)*/gu;
/** The same for plain ASCII text, which is most text and much faster to match. */
const ASCII_WORD = /[a-z0-9_]+(?:['.-][a-z0-9_]+)*/g;
const NON_ASCII = /[^\x00-\x7f]/;
/** Characters looked at per word wanted, so a cap on words also caps the work. */
const CHARS_PER_WORD = 40;

export function wordsOf(text: string, max = 600): string[] {
  if (!isWordCap(max)) return regexWordsOf(text, max);
  const words: string[] = [];
  return scanAsciiWords(text, scannedChars(text, max), max, words) >= 0 ? words : regexWordsOf(text, max);
}

/** wordsOf(text, max).length, without building the words. */
export function wordCount(text: string, max: number): number {
  const n = isWordCap(max) ? scanAsciiWords(text, scannedChars(text, max), max, undefined) : -1;
  return n >= 0 ? n : regexWordsOf(text, max).length;
}

/** A cap the hand scan honours exactly as regexWordsOf does (odd ones take regexWordsOf itself). */
function isWordCap(max: number): boolean {
  return max === Infinity || (Number.isInteger(max) && max >= 0);
}

function scannedChars(text: string, max: number): number {
  return Number.isFinite(max) && text.length > max * CHARS_PER_WORD ? max * CHARS_PER_WORD : text.length;
}

function regexWordsOf(text: string, max: number): string[] {
  const part = (Number.isFinite(max) && text.length > max * CHARS_PER_WORD ? text.slice(0, max * CHARS_PER_WORD) : text).toLowerCase();
  const words = part.match(NON_ASCII.test(part) ? WORD : ASCII_WORD) ?? [];
  return words.length > max ? words.slice(0, max) : words;
}

function isAsciiWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

/**
 * ASCII_WORD's matches in the lowercased text[0, end), by hand (no lowercased copy, no regex):
 * pushed to out if given, counted, at most max. -1 as soon as a non-ASCII character is read:
 * then the caller takes the regex path. Stopping at max words is exact even when non-ASCII text
 * follows: every character read so far was ASCII, and on ASCII the Unicode WORD matches what
 * ASCII_WORD matches.
 */
function scanAsciiWords(text: string, end: number, max: number, out: string[] | undefined): number {
  let n = 0;
  let i = 0;
  while (i < end && n < max) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return -1;
    if (!isAsciiWordChar(c)) { i++; continue; }
    const start = i;
    let upper = false;
    for (;;) {
      while (i < end) {
        const d = text.charCodeAt(i);
        if (!isAsciiWordChar(d)) break;
        if (d <= 90 && d >= 65) upper = true;
        i++;
      }
      if (i >= end) break;
      const sep = text.charCodeAt(i);
      if (sep >= 0x80) return -1;
      // a joiner ('.-) continues the word only when a word character follows it
      if (sep !== 39 && sep !== 46 && sep !== 45) break;
      if (i + 1 >= end) break;
      const next = text.charCodeAt(i + 1);
      if (next >= 0x80) return -1;
      if (!isAsciiWordChar(next)) break;
      i++;
    }
    if (out) {
      const w = text.slice(start, i);
      out.push(upper ? w.toLowerCase() : w);
    }
    n++;
  }
  return n;
}

function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The hash a word takes in shingles. */
export const wordHash = hash32;

/** The hash of the n-gram of words from..from+take, from its words' hashes. */
function ngramHash(hashes: ArrayLike<number>, from: number, take: number): number {
  let h = 0x9e3779b9;
  for (let k = 0; k < take; k++) h = Math.imul(h ^ hashes[from + k], 0x85ebca6b) ^ (h >>> 13);
  return h >>> 0;
}

/** Hashed word n-grams (all words when fewer than n), combined from per-word hashes: no string building. */
export function shingles(words: readonly string[], n = 3): Set<number> {
  const out = new Set<number>();
  const hashes = words.map(hash32);
  const take = Math.min(n, hashes.length);
  for (let i = 0; i + take <= hashes.length && take > 0; i++) {
    out.add(ngramHash(hashes, i, take));
    if (take < n) break;
  }
  return out;
}

/** shingles of the words whose wordHash values are hashes[0..length), as a sorted array without repeats (for sortedJaccard). */
export function sortedShingles(hashes: ArrayLike<number>, length: number, n = 3): Uint32Array {
  const take = Math.min(n, length);
  const count = take === 0 ? 0 : take < n ? 1 : length - take + 1;
  const all = new Uint32Array(count);
  for (let i = 0; i < count; i++) all[i] = ngramHash(hashes, i, take);
  all.sort();
  let unique = 0;
  for (let i = 0; i < count; i++) if (i === 0 || all[i] !== all[i - 1]) all[unique++] = all[i];
  return unique === count ? all : all.slice(0, unique);
}

export function jaccard(a: ReadonlySet<number>, b: ReadonlySet<number>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let common = 0;
  for (const x of small) if (large.has(x)) common++;
  return common / (a.size + b.size - common);
}

/** jaccard of two sets given as sorted arrays without repeats (the same value for the same sets). */
export function sortedJaccard(a: Uint32Array, b: Uint32Array): number {
  if (a.length === 0 && b.length === 0) return 1;
  let i = 0, j = 0, common = 0;
  while (i < a.length && j < b.length) {
    const x = a[i], y = b[j];
    if (x === y) { common++; i++; j++; } else if (x < y) i++; else j++;
  }
  return common / (a.length + b.length - common);
}

/** Stable short id of a text, for finding keys. */
export function textKey(s: string): string { return hash32(s).toString(36) + s.length.toString(36); }

/** textKey(words.slice(0, n).join(" ")), without building the string. */
export function wordsKey(words: readonly string[], n: number): string {
  let h = 0x811c9dc5, length = 0;
  const count = Math.min(n, words.length);
  for (let k = 0; k < count; k++) {
    if (k > 0) { h ^= 32; h = Math.imul(h, 0x01000193); length++; }
    const w = words[k];
    for (let i = 0; i < w.length; i++) {
      h ^= w.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    length += w.length;
  }
  return (h >>> 0).toString(36) + length.toString(36);
}

/**
 * Turns the chunks of one request into lines and paragraphs, per channel. Call push for every
 * chunk and flush when the request ends; start afresh with reset (new request).
 */
export class StreamLines {
  private channels = new Map<StreamChannel, ChannelState>();

  constructor(private readonly maxLineChars = MAX_LINE_CHARS) {}

  private state(channel: StreamChannel): ChannelState {
    let s = this.channels.get(channel);
    if (!s) {
      s = { partial: "", partialStart: -1, structure: new StructureTracker(), section: "", list: 0, inList: false, listStack: [], paragraph: [], sentenceFrom: 0, afterStop: false, earlyStarts: [], inItem: false };
      this.channels.set(channel, s);
    }
    return s;
  }

  /** Complete lines of this chunk, and the paragraphs they close (and sentences of long prose lines, if asked). */
  push(channel: StreamChannel, delta: string, eventIndex: number, onLine: (l: StreamLine) => void, onParagraph?: (p: StreamParagraph) => void, onSentence?: (s: StreamSentence) => void): void {
    const s = this.state(channel);
    let from = 0;
    while (from <= delta.length) {
      const nl = delta.indexOf("\n", from);
      const piece = nl < 0 ? delta.slice(from) : delta.slice(from, nl);
      if (piece.length > 0) {
        if (s.partialStart < 0) s.partialStart = eventIndex;
        const start = s.partial.length;
        if (s.partial.length < this.maxLineChars) s.partial += piece.slice(0, this.maxLineChars - s.partial.length);
        if (onSentence) this.sentences(channel, s, start, eventIndex, onSentence);
      }
      if (nl < 0) break;
      if (s.partialStart < 0) s.partialStart = eventIndex;
      this.emit(channel, s, eventIndex, onLine, onParagraph);
      from = nl + 1;
    }
  }

  /** The request ended: the unfinished last line and paragraph of every channel count too. */
  flush(eventIndex: number, onLine: (l: StreamLine) => void, onParagraph?: (p: StreamParagraph) => void): void {
    for (const [channel, s] of this.channels) {
      if (s.partial.length > 0) this.emit(channel, s, eventIndex, onLine, onParagraph);
      this.closeParagraph(channel, s, onParagraph);
    }
  }

  reset(): void { this.channels.clear(); }

  /** Sentence ends ([.!?] then a space) among the characters just added to the partial line. */
  private sentences(channel: StreamChannel, s: ChannelState, start: number, eventIndex: number, onSentence: (x: StreamSentence) => void): void {
    const line = s.partial;
    for (let k = start; k < line.length; k++) {
      const c = line.charCodeAt(k);
      if (s.afterStop && (c === 32 || c === 9)) {
        if (k >= LONG_LINE_CHARS && (s.proseLine ??= this.isProseLine(s))) {
          // the line just proved long: its first sentences are sentences too (once per line)
          if (s.earlyStarts.length) {
            const starts = [...s.earlyStarts, s.sentenceFrom];
            s.earlyStarts = [];
            for (let i = 0; i + 1 < starts.length; i++) onSentence({ channel, text: line.slice(starts[i], starts[i + 1] - 1), lineHead: line.slice(0, LINE_HEAD_CHARS), section: s.section, event: eventIndex });
          }
          onSentence({ channel, text: line.slice(s.sentenceFrom, k), lineHead: line.slice(0, LINE_HEAD_CHARS), section: s.section, event: eventIndex });
        } else if (k < LONG_LINE_CHARS && s.earlyStarts.length < 32) s.earlyStarts.push(s.sentenceFrom);
        s.sentenceFrom = k + 1;
      }
      s.afterStop = c === 46 || c === 33 || c === 63; // . ! ?
    }
  }

  /** Whether the partial line reads as prose (not code, a table, a list item or a heading). */
  private isProseLine(s: ChannelState): boolean {
    if (s.structure.inFence) return false;
    const head = s.partial.trimStart();
    return !/^[|+#>\u2500-\u259f]/.test(head) && listMarker(s.partial) === "" && !/^( {4,}|\t)/.test(s.partial);
  }

  private emit(channel: StreamChannel, s: ChannelState, eventIndex: number, onLine: (l: StreamLine) => void, onParagraph?: (p: StreamParagraph) => void): void {
    const text = s.partial;
    const kind = s.structure.lineKind(text);
    // numbers in headings are one section ("Attempt 1", "Attempt 2"): a loop that numbers its copies is still one loop
    // (a dotted number is a name, not a count: "6.11.1" and "6.11.0" head two releases)
    if (kind === "heading") s.section = normalizeLine(text.replace(/^\s*#+\s*/, "")).replace(/(?<![\d.])\d+(?![\d]|\.\d)/g, "#");
    // A short label line ("1. lib/jobs/mail.js", "**Summary:**") introduces one item of a report,
    // like a heading: the same verdict sentence under each file is a per-item report, not a loop.
    else if ((kind === "list" || kind === "prose") && isItemLabel(text)) s.section = "item\u0000" + normalizeLine(text).replace(/\d+/g, "#");
    if (kind === "list" && !s.inList) { s.list++; s.inList = true; s.listStack = []; } else if (kind !== "list" && kind !== "blank") s.inList = false;
    let parent = "";
    if (kind === "list") {
      const indent = text.length - text.trimStart().length;
      while (s.listStack.length && s.listStack[s.listStack.length - 1].indent >= indent) s.listStack.pop();
      parent = s.listStack.length ? s.listStack[s.listStack.length - 1].text : "";
      if (s.listStack.length < 16) s.listStack.push({ indent, text: normalizeLine(text).slice(0, 200) });
    }
    const line: StreamLine = { channel, text, kind, section: s.section, list: s.list, parent, startEvent: s.partialStart < 0 ? eventIndex : s.partialStart, endEvent: eventIndex };
    if (kind === "prose" && s.inItem && /^\s{2,}\S/.test(text)) {
      line.continuation = true;
      line.parent = s.listStack.length ? s.listStack[s.listStack.length - 1].text : "";
    }
    s.inItem = kind === "list" || line.continuation === true;
    s.partial = "";
    s.partialStart = -1;
    s.sentenceFrom = 0;
    s.afterStop = false;
    s.proseLine = undefined;
    s.earlyStarts = [];
    onLine(line);
    if (kind === "prose" || kind === "list") {
      s.paragraph.push(line);
      if (s.paragraph.length >= MAX_PARAGRAPH_LINES) this.closeParagraph(channel, s, onParagraph);
    } else this.closeParagraph(channel, s, onParagraph);
  }

  private closeParagraph(channel: StreamChannel, s: ChannelState, onParagraph?: (p: StreamParagraph) => void): void {
    const lines = s.paragraph;
    if (lines.length === 0) return;
    s.paragraph = [];
    onParagraph?.({ channel, lines, text: lines.map((l) => l.text).join("\n"), section: lines[0].section, startEvent: lines[0].startEvent, endEvent: lines[lines.length - 1].endEvent });
  }
}

/**
 * A numeric detector setting (settings hold numbers and switches side by side). A missing or
 * non-numeric value falls back to the detector's default: a bad setting never breaks a session.
 */
export function numberSetting(settings: Record<string, number | boolean>, key: string, defaults: Record<string, number | boolean>): number {
  const v = settings[key];
  if (typeof v === "number" && Number.isFinite(v) && v >= 0) return v;
  const d = defaults[key];
  if (typeof d !== "number") throw new Error(`no numeric default for setting ${key}`);
  return d;
}

/**
 * How many times each looping pattern was caught since the user last spoke, at most once per
 * request: the finding count of the stream detectors (1 → abort, 2 → stop with the defaults).
 */
export class CatchCounter {
  private catches = new Map<string, number>();
  private thisRequest = new Set<string>();

  /**
   * The new count, or undefined when this detector already caught something in this scope (a
   * channel) of this request: the stream is being aborted, what still arrives is the same loop.
   */
  catch(key: string, scope = ""): number | undefined {
    const scopeKey = `\u0000scope:${scope}`;
    if (this.thisRequest.has(key) || this.thisRequest.has(scopeKey)) return undefined;
    this.thisRequest.add(key);
    this.thisRequest.add(scopeKey);
    const n = (this.catches.get(key) ?? 0) + 1;
    this.catches.delete(key);
    this.catches.set(key, n);
    if (this.catches.size > 256) this.catches.delete(this.catches.keys().next().value as string);
    return n;
  }

  newRequest(): void { this.thisRequest.clear(); }
  reset(): void { this.catches.clear(); this.thisRequest.clear(); }
}
