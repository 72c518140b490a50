/**
 * Shared mechanics of the stream detectors: streamed chunks of one request turned into complete
 * lines and paragraphs per channel (reasoning and visible text apart), each with its markdown
 * kind and the heading it sits under; plus the word and shingle helpers the similarity checks
 * share. Work is O(chunk) and memory is bounded by the longest line kept (maxLineChars).
 */
import type { StreamEvent } from "./events";
import { StructureTracker, isSpaceCode, listMarker, type LineKind } from "./structure";

export type StreamChannel = StreamEvent["t"];

/** Longest line read as an item label. */
const MAX_LABEL_CHARS = 80;

/**
 * A line that only names the item that follows: a file or path (optionally in backticks or bold),
 * or a short phrase ending in a colon, after an optional list marker.
 */
export function isItemLabel(line: string): boolean {
  const trimmed = line.trim();
  // a long line opening with none of "-*+`" or a digit has no marker or wrapper to strip: too long as it is
  const first = trimmed.charCodeAt(0);
  if (trimmed.length > MAX_LABEL_CHARS && first !== 45 && first !== 42 && first !== 43 && first !== 96 && !(first >= 48 && first <= 57)) return false;
  const body = trimmed.replace(/^(?:[-*+]|\d+[.)])\s+/, "").replace(/^\*\*(.*)\*\*:?$/, "$1").replace(/^`(.*)`:?$/, "$1").trim();
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
  /** isItemLabel of the text, as the split already knows it (undefined: not known). */
  itemLabel?: boolean;
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
  /**
   * Once the partial line proved to be long prose: its text from sentenceFrom on, and its first
   * LINE_HEAD_CHARS. Sentences are cut from this tail, so a sentence end costs the sentence's
   * length, not the line's (cutting from the partial line re-copies all of it each time).
   */
  tail: string;
  lineHead: string;
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

/** A stop and the space after it: a sentence ends there. */
const SENTENCE_END = /[.!?][ \t]/g;

/** Sentences are reported only from lines at least this long: short lines are judged whole. */
export const LONG_LINE_CHARS = 200;

/**
 * Whitespace that single spacing changes: a run of two or more, or one that is not a plain space.
 * The same as replacing every /\s+/ run with " ", without rebuilding a line whose words are
 * already single-spaced (nearly every line): a run starts a match at its first character.
 */
const SPACING = /\s{2,}|[^\S ]/g;

/** Lowercase, no list marker, no markdown emphasis, single spaces: what two copies of a line share. */
export function normalizeLine(text: string): string {
  return text.slice(listMarker(text).length).toLowerCase().replace(/[*_`]+/g, "").replace(SPACING, " ").trim();
}

/** Whitespace by character code, for the detectors' character loops (kept with the line structure). */
export { isSpaceCode };

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
  const part = (Number.isFinite(max) && text.length > max * CHARS_PER_WORD ? text.slice(0, max * CHARS_PER_WORD) : text).toLowerCase();
  const words = part.match(NON_ASCII.test(part) ? WORD : ASCII_WORD) ?? [];
  return words.length > max ? words.slice(0, max) : words;
}

function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Hashed word n-grams (all words when fewer than n), combined from per-word hashes: no string building. */
export function shingles(words: readonly string[], n = 3): Set<number> {
  const out = new Set<number>();
  const hashes = words.map(hash32);
  const take = Math.min(n, hashes.length);
  for (let i = 0; i + take <= hashes.length && take > 0; i++) {
    let h = 0x9e3779b9;
    for (let k = 0; k < take; k++) h = Math.imul(h ^ hashes[i + k], 0x85ebca6b) ^ (h >>> 13);
    out.add(h >>> 0);
    if (take < n) break;
  }
  return out;
}

export function jaccard(a: ReadonlySet<number>, b: ReadonlySet<number>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let common = 0;
  for (const x of small) if (large.has(x)) common++;
  return common / (a.size + b.size - common);
}

/** Stable short id of a text, for finding keys. */
export function textKey(s: string): string { return hash32(s).toString(36) + s.length.toString(36); }

/**
 * Turns the chunks of one request into lines and paragraphs, per channel. Call push for every
 * chunk and flush when the request ends; start afresh with reset (new request).
 */
export class StreamLines {
  private channels = new Map<StreamChannel, ChannelState>();
  /** The channel of the last chunk: a stream runs long on one channel, so most chunks skip the map. */
  private lastChannel: StreamChannel | undefined;
  private lastState: ChannelState | undefined;

  constructor(private readonly maxLineChars = MAX_LINE_CHARS) {}

  private state(channel: StreamChannel): ChannelState {
    let s = this.channels.get(channel);
    if (!s) {
      s = { partial: "", partialStart: -1, structure: new StructureTracker(), section: "", list: 0, inList: false, listStack: [], paragraph: [], sentenceFrom: 0, afterStop: false, earlyStarts: [], tail: "", lineHead: "", inItem: false };
      this.channels.set(channel, s);
    }
    this.lastChannel = channel;
    this.lastState = s;
    return s;
  }

  /** Complete lines of this chunk, and the paragraphs they close (and sentences of long prose lines, if asked). */
  push(channel: StreamChannel, delta: string, eventIndex: number, onLine: (l: StreamLine) => void, onParagraph?: (p: StreamParagraph) => void, onSentence?: (s: StreamSentence) => void): void {
    const s = channel === this.lastChannel ? this.lastState! : this.state(channel);
    let from = 0;
    while (from <= delta.length) {
      const nl = delta.indexOf("\n", from);
      const end = nl < 0 ? delta.length : nl;
      if (end > from) {
        if (s.partialStart < 0) s.partialStart = eventIndex;
        const room = this.maxLineChars - s.partial.length;
        if (room > 0) {
          const added = end - from > room ? delta.slice(from, from + room) : delta.slice(from, end);
          s.partial += added;
          if (onSentence) this.sentences(channel, s, added, eventIndex, onSentence);
        }
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

  reset(): void {
    this.channels.clear();
    this.lastChannel = undefined;
    this.lastState = undefined;
  }

  /**
   * Sentence ends ([.!?] then a space) among the characters just added to the partial line (they
   * end it; the scan reads them, never the partial line, so a chunk costs its own length).
   */
  private sentences(channel: StreamChannel, s: ChannelState, added: string, eventIndex: number, onSentence: (x: StreamSentence) => void): void {
    // a line found not to be prose has no sentences: its sentence state is dropped with it at its end
    if (s.proseLine === false) return;
    const start = s.partial.length - added.length;
    if (s.proseLine === true) s.tail += added;
    const first = added.charCodeAt(0);
    if (s.afterStop && (first === 32 || first === 9)) this.sentenceEnd(channel, s, start, eventIndex, onSentence);
    // the space after each later stop; a match's space cannot be the next match's stop
    SENTENCE_END.lastIndex = 0;
    while (SENTENCE_END.test(added)) this.sentenceEnd(channel, s, start + SENTENCE_END.lastIndex - 1, eventIndex, onSentence);
    const last = added.charCodeAt(added.length - 1);
    s.afterStop = last === 46 || last === 33 || last === 63; // . ! ?
  }

  /** A sentence of the partial line ends before its index k (a space after a stop). */
  private sentenceEnd(channel: StreamChannel, s: ChannelState, k: number, eventIndex: number, onSentence: (x: StreamSentence) => void): void {
    if (s.proseLine === true) {
      const text = s.tail.slice(0, k - s.sentenceFrom);
      s.tail = s.tail.slice(k + 1 - s.sentenceFrom);
      onSentence({ channel, text, lineHead: s.lineHead, section: s.section, event: eventIndex });
    } else if (k >= LONG_LINE_CHARS && (s.proseLine ??= this.isProseLine(s))) {
      // the line just proved long: its first sentences are sentences too (once per line)
      const line = s.partial;
      s.lineHead = line.slice(0, LINE_HEAD_CHARS);
      const early = s.earlyStarts;
      if (early.length) {
        early.push(s.sentenceFrom);
        for (let j = 0; j + 1 < early.length; j++) onSentence({ channel, text: line.slice(early[j], early[j + 1] - 1), lineHead: s.lineHead, section: s.section, event: eventIndex });
        early.length = 0;
      }
      onSentence({ channel, text: line.slice(s.sentenceFrom, k), lineHead: s.lineHead, section: s.section, event: eventIndex });
      s.tail = line.slice(k + 1);
    } else if (k < LONG_LINE_CHARS && s.earlyStarts.length < 32) s.earlyStarts.push(s.sentenceFrom);
    s.sentenceFrom = k + 1;
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
    const itemLabel = (kind === "list" || kind === "prose") && isItemLabel(text);
    if (itemLabel) s.section = "item\u0000" + normalizeLine(text).replace(/\d+/g, "#");
    if (kind === "list" && !s.inList) { s.list++; s.inList = true; s.listStack = []; } else if (kind !== "list" && kind !== "blank") s.inList = false;
    let parent = "";
    if (kind === "list") {
      const indent = text.length - text.trimStart().length;
      while (s.listStack.length && s.listStack[s.listStack.length - 1].indent >= indent) s.listStack.pop();
      parent = s.listStack.length ? s.listStack[s.listStack.length - 1].text : "";
      if (s.listStack.length < 16) s.listStack.push({ indent, text: normalizeLine(text).slice(0, 200) });
    }
    const line: StreamLine = { channel, text, kind, section: s.section, list: s.list, parent, startEvent: s.partialStart < 0 ? eventIndex : s.partialStart, endEvent: eventIndex, itemLabel };
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
    s.earlyStarts.length = 0;
    s.tail = "";
    s.lineHead = "";
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
    onParagraph?.(new Paragraph(channel, lines));
  }
}

/** A paragraph whose text is joined only when a reader asks for it (most stop at its lines). */
class Paragraph implements StreamParagraph {
  readonly section: string;
  readonly startEvent: number;
  readonly endEvent: number;
  private joined: string | undefined;

  constructor(readonly channel: StreamChannel, readonly lines: StreamLine[]) {
    this.section = lines[0].section;
    this.startEvent = lines[0].startEvent;
    this.endEvent = lines[lines.length - 1].endEvent;
  }

  get text(): string { return (this.joined ??= this.lines.map((l) => l.text).join("\n")); }
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
