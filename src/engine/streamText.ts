/**
 * Shared mechanics of the stream detectors: streamed chunks of one request turned into complete
 * lines and paragraphs per channel (reasoning and visible text apart), each with its markdown
 * kind and the heading it sits under (words, and the word and shingle helpers the similarity checks
 * share, are ./words'). Work is O(chunk) and memory is bounded by the longest line kept (maxLineChars).
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
  // a label ends on a word character or a colon, once a wrapper's closing ** or ` is taken off: a line
  // that ends on any other character (most prose: a stop) is none, and is let go before the replaces
  const last = trimmed.charCodeAt(trimmed.length - 1);
  if (!(isWordCode(last) || last === 58 || last === 42 || last === 96)) return false;
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
  /** normalizeLine of the text once a reader asked for it (see normalizedLine): undefined until then. */
  normalized?: string;
  /**
   * The text holds no whitespace but single spaces (around its trimmed part) and no emphasis mark,
   * as the split found while classifying it: normalizeLine has nothing to replace (undefined: not known).
   */
  plain?: boolean;
  /** How many words (whitespace-separated) the trimmed text holds, known for a plain line only. */
  words?: number;
  /** Which line of the split this is, as its sentences name it (StreamSentence.line); undefined if not split by StreamLines. */
  id?: number;
  /**
   * A line so far (onLineSoFar) cut at a stop that a space or tab follows in the line: no word runs
   * across its end, so the words read of it are the whole line's first words.
   */
  followedBySpace?: boolean;
}

/** normalizeLine(line.text), computed once per line however many readers ask (kept on the line, which goes when its readers are done). */
export function normalizedLine(line: StreamLine): string {
  return (line.normalized ??= normalizeLine(line.text, line.plain === true));
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
  channel: StreamChannel;
  /** The request (StreamLines' count of resets) the state is of: a state of an earlier one is started afresh. */
  request: number;
  /** The line so far, as its chunks' pieces. */
  partial: PieceString;
  partialStart: number;
  /** The id the partial line will have (StreamLine.id). */
  lineId: number;
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
   * Once the partial line proved to be long prose: its text from sentenceFrom to the chunk being
   * read, and its first LINE_HEAD_CHARS. A sentence is joined from this tail and the chunk, so a
   * sentence end costs the sentence's length, not the line's (cutting from the partial line
   * re-copies all of it each time).
   */
  tail: PieceString;
  lineHead: string;
  /** The last line was a list item or its wrapped continuation. */
  inItem: boolean;
  /** Whether the partial line reads as prose, decided once it is long (its head no longer changes). */
  proseLine?: boolean;
  /** How long the partial line was when last given so far (onLineSoFar; 0: not yet). */
  soFarLength: number;
  /** How long the partial line was when last given so far at a stop inside a chunk (0: not yet). */
  stopSoFarLength: number;
}

/** A sentence inside a long line (a paragraph written as one line, or a run-on loop). */
export interface StreamSentence {
  channel: StreamChannel;
  text: string;
  /** The start of the line the sentence sits in (what the line opens with: a label names its subject). */
  lineHead: string;
  section: string;
  event: number;
  /**
   * The id of the line it sits in (StreamLine.id) and where it starts there: the sentence is
   * line.text.slice(at, at + text.length), followed in the line by the space or tab that ended it.
   */
  line: number;
  at: number;
}

/** Below this length a phrase said three times in a row can still be emphasis: the fourth copy makes it a chant. */
export const SHORT_PHRASE_CHARS = 24;

/** Characters of a line's start given with each of its sentences. */
const LINE_HEAD_CHARS = 80;

/** Sentences are reported only from lines at least this long: short lines are judged whole. */
export const LONG_LINE_CHARS = 200;

/** Lines given so far (onLineSoFar) only up to this long: a stop costs at most this much. */
const SO_FAR_MAX_CHARS = 600;

/**
 * Whitespace that single spacing changes: a run of two or more, or one that is not a plain space.
 * The same as replacing every /\s+/ run with " ", without rebuilding a line whose words are
 * already single-spaced (nearly every line): a run starts a match at its first character.
 */
const SPACING = /\s{2,}|[^\S ]/g;

/**
 * Lowercase, no list marker, no markdown emphasis, single spaces: what two copies of a line share.
 * plain: the text is known to hold no emphasis mark and, between its first and last visible
 * characters, no whitespace but single spaces (StreamLine.plain): then neither replace changes
 * anything trim keeps (lowercasing makes no whitespace or mark), and the two scans are skipped.
 */
export function normalizeLine(text: string, plain = false): string {
  const body = text.slice(listMarker(text).length).toLowerCase();
  return (plain ? body : body.replace(/[*_`]+/g, "").replace(SPACING, " ")).trim();
}

/** Whitespace by character code, for the detectors' character loops (kept with the line structure). */
export { isSpaceCode };

/** Words a restated thought often opens with ("Wait, ...", "Hmm, actually ..."): not part of what it says. */
const OPENER = /^(?:(?:wait|hmm+|actually|ok(?:ay)?|alright|so|but|now|well|oh|right|again|also|and|then)\b[\s,.:;!—-]*)+/i;

/**
 * The letters an opener starts with, either case: OPENER matches no text that opens with another
 * character (its case-insensitive match never takes a non-ASCII letter for an ASCII one).
 */
const OPENER_FIRST = new Uint8Array(128).map((_, c) => ("wWhHaAoOsSbBnNrRtT".includes(String.fromCharCode(c)) ? 1 : 0));

/** The text without its leading discourse words, so "Wait, X" and "Hmm, X" are the same X. */
export function stripOpeners(text: string): string {
  const t = text.trimStart();
  const first = t.charCodeAt(0);
  if (!(first < 128 && OPENER_FIRST[first] === 1)) return t;
  const m = OPENER.exec(t);
  return m && m[0].length < t.length ? t.slice(m[0].length) : t;
}

/**
 * Turns the chunks of one request into lines and paragraphs, per channel. Call push for every
 * chunk and flush when the request ends; start afresh with reset (new request).
 */
export class StreamLines {
  /** Each channel's state, kept from request to request and started afresh (not made anew: garbage per request). */
  private channels = new Map<StreamChannel, ChannelState>();
  /** The states of this request, in the order their channels first came in it (flush reads them so). */
  private active: ChannelState[] = [];
  private request = 0;
  /** Ids given to lines so far (of all channels, across resets): a line's id is never another's. */
  private lineIds = 0;
  /** The channel of the last chunk: a stream runs long on one channel, so most chunks skip the map. */
  private lastChannel: StreamChannel | undefined;
  private lastState: ChannelState | undefined;

  /** Whether some reader could use a line so far of the channel now (none asked: always); see lineSoFar. */
  wantsLineSoFar: ((channel: StreamChannel) => boolean) | undefined;

  constructor(private readonly maxLineChars = MAX_LINE_CHARS) {}

  private state(channel: StreamChannel): ChannelState {
    let s = this.channels.get(channel);
    if (!s) {
      s = { channel, request: this.request, partial: new PieceString(), partialStart: -1, lineId: ++this.lineIds, structure: new StructureTracker(), section: "", list: 0, inList: false, listStack: [], paragraph: [], sentenceFrom: 0, afterStop: false, earlyStarts: [], tail: new PieceString(), lineHead: "", inItem: false, proseLine: undefined, soFarLength: 0, stopSoFarLength: 0 };
      this.channels.set(channel, s);
      this.active.push(s);
    } else if (s.request !== this.request) {
      restartState(s);
      // the partial line is dropped: the next line is another one (its sentences name it by id)
      s.lineId = ++this.lineIds;
      s.request = this.request;
      this.active.push(s);
    }
    this.lastChannel = channel;
    this.lastState = s;
    return s;
  }

  /**
   * Complete lines of this chunk, and the paragraphs they close (and sentences of long prose lines, if asked).
   * onLineSoFar, if given: the unfinished prose line (up to 600 characters), when the chunk ends on the stop of a
   * sentence, and as it stood at a stop inside the chunk (see lineSoFar).
   */
  push(channel: StreamChannel, delta: string, eventIndex: number, onLine: (l: StreamLine) => void, onParagraph?: (p: StreamParagraph) => void, onSentence?: (s: StreamSentence) => void, onLineSoFar?: (l: StreamLine) => void): void {
    const s = channel === this.lastChannel ? this.lastState! : this.state(channel);
    let from = 0;
    while (from <= delta.length) {
      const nl = delta.indexOf("\n", from);
      const end = nl < 0 ? delta.length : nl;
      if (end > from) {
        if (s.partialStart < 0) s.partialStart = eventIndex;
        const room = this.maxLineChars - s.partial.length;
        if (room > 0) {
          // a whole chunk is its own piece (slice(0, length) is the string itself)
          const added = end - from > room ? delta.slice(from, from + room) : delta.slice(from, end);
          s.partial.push(added);
          if (onSentence || onLineSoFar) this.sentences(channel, s, added, eventIndex, onSentence, onLineSoFar);
        }
      }
      if (nl < 0) break;
      if (s.partialStart < 0) s.partialStart = eventIndex;
      this.emit(channel, s, eventIndex, onLine, onParagraph);
      from = nl + 1;
    }
    // (again only once the line grew by a quarter since it was last given: a line costs at most five times its length)
    if (onLineSoFar && s.partial.length > 0 && 4 * s.partial.length >= 5 * s.soFarLength && isStop(delta.charCodeAt(delta.length - 1))) {
      if (this.lineSoFar(channel, s, s.partial.length, eventIndex, onLineSoFar)) s.soFarLength = s.partial.length;
    }
  }

  /**
   * The unfinished line up to end, a sentence's stop (the chunk's last character, or one a space
   * follows inside the chunk): a thought that ends there is judged with the chunk that holds its
   * stop, not one chunk later with the newline (or at the request's end). Only a prose line of up to
   * SO_FAR_MAX_CHARS (each stop costs the line so far), outside code and list items; the line comes
   * again, whole, at its newline (same id). Whether it was given.
   */
  private lineSoFar(channel: StreamChannel, s: ChannelState, end: number, eventIndex: number, onLineSoFar: (l: StreamLine) => void): boolean {
    if (end >= SO_FAR_MAX_CHARS) return false;
    // nothing to compare it with yet: the joins (isProseLine's too) and the judging wait for the whole line
    if (this.wantsLineSoFar && !this.wantsLineSoFar(channel)) return false;
    // (a long line already decided whether it is prose)
    if (s.inItem || s.inList || !(s.proseLine ?? this.isProseLine(s))) return false;
    const partial = s.partial.text();
    const text = end === partial.length ? partial : partial.slice(0, end);
    if (!endsSentence(text)) return false;
    onLineSoFar({ channel, text, kind: "prose", section: s.section, list: s.list, parent: "", startEvent: s.partialStart < 0 ? eventIndex : s.partialStart, endEvent: eventIndex, itemLabel: undefined, normalized: undefined, plain: undefined, words: undefined, id: s.lineId, followedBySpace: end < partial.length });
    return true;
  }

  /** The request ended: the unfinished last line and paragraph of every channel count too. */
  flush(eventIndex: number, onLine: (l: StreamLine) => void, onParagraph?: (p: StreamParagraph) => void): void {
    for (const s of this.active) {
      if (s.partial.length > 0) this.emit(s.channel, s, eventIndex, onLine, onParagraph);
      this.closeParagraph(s.channel, s, onParagraph);
    }
  }

  reset(): void {
    this.request++;
    if (this.active.length > 0) this.active = [];
    this.lastChannel = undefined;
    this.lastState = undefined;
  }

  /**
   * Sentence ends ([.!?] then a space) among the characters just added to the partial line (they
   * end it; the scan reads them, never the partial line, so a chunk costs its own length).
   */
  private sentences(channel: StreamChannel, s: ChannelState, added: string, eventIndex: number, onSentence: ((x: StreamSentence) => void) | undefined, onLineSoFar?: (l: StreamLine) => void): void {
    // a line found not to be prose has no sentences: its sentence state is dropped with it at its end
    if (s.proseLine === false) return;
    const start = s.partial.length - added.length;
    const first = added.charCodeAt(0);
    if (s.afterStop && (first === 32 || first === 9)) this.sentenceEnd(channel, s, start, added, eventIndex, onSentence);
    // the space after each later stop ([.!?][ \t], by hand from the first stop: most chunks have none); a space is never a stop, so matches cannot overlap
    const n = added.length - 1;
    for (let i = firstStop(added); i >= 0 && i < n; i++) {
      const c = added.charCodeAt(i);
      if (c !== 46 && c !== 33 && c !== 63) continue;
      const next = added.charCodeAt(i + 1);
      if (next !== 32 && next !== 9) continue;
      const k = start + i + 1;
      this.sentenceEnd(channel, s, k, added, eventIndex, onSentence);
      // the line as it stood at this stop, inside the chunk: where chunks happen to be cut does not decide
      // whether a line is judged at its stops (its own bound: again once the line doubled since the last such stop)
      if (onLineSoFar && k >= 2 * s.stopSoFarLength && this.lineSoFar(channel, s, k, eventIndex, onLineSoFar)) s.stopSoFarLength = k;
    }
    // what follows the last sentence end waits in the tail (a prose line's)
    if (s.proseLine === true) {
      const rest = s.sentenceFrom - start;
      if (rest <= 0) s.tail.push(added);
      else if (rest < added.length) s.tail.push(added.slice(rest));
    }
    const last = added.charCodeAt(n);
    s.afterStop = last === 46 || last === 33 || last === 63; // . ! ?
  }

  /**
   * A sentence of the partial line ends before its index k (a space after a stop), k in the chunk
   * just added (the partial line ends with it; the tail holds what came before it).
   */
  private sentenceEnd(channel: StreamChannel, s: ChannelState, k: number, added: string, eventIndex: number, onSentence: ((x: StreamSentence) => void) | undefined): void {
    if (s.proseLine === true) {
      const start = s.partial.length - added.length;
      // the sentence started in this chunk (the tail is empty then), or in the tail
      const within = s.sentenceFrom - start;
      let text: string;
      if (within >= 0) text = added.slice(within, k - start);
      else {
        if (k > start) s.tail.push(added.slice(0, k - start));
        text = s.tail.text();
      }
      s.tail.clear();
      onSentence?.({ channel, text, lineHead: s.lineHead, section: s.section, event: eventIndex, line: s.lineId, at: s.sentenceFrom });
    } else if (k >= LONG_LINE_CHARS && (s.proseLine ??= this.isProseLine(s))) {
      // the line just proved long: its first sentences are sentences too (once per line)
      const line = s.partial.text();
      s.lineHead = line.slice(0, LINE_HEAD_CHARS);
      const early = s.earlyStarts;
      if (early.length) {
        early.push(s.sentenceFrom);
        for (let j = 0; j + 1 < early.length; j++) onSentence?.({ channel, text: line.slice(early[j], early[j + 1] - 1), lineHead: s.lineHead, section: s.section, event: eventIndex, line: s.lineId, at: early[j] });
        early.length = 0;
      }
      onSentence?.({ channel, text: line.slice(s.sentenceFrom, k), lineHead: s.lineHead, section: s.section, event: eventIndex, line: s.lineId, at: s.sentenceFrom });
      // the tail starts after k, in this chunk: sentences() adds the rest of it
    } else if (k < LONG_LINE_CHARS && s.earlyStarts.length < 32) s.earlyStarts.push(s.sentenceFrom);
    s.sentenceFrom = k + 1;
  }

  /** Whether the partial line reads as prose (not code, a table, a list item or a heading). */
  private isProseLine(s: ChannelState): boolean {
    if (s.structure.inFence) return false;
    const partial = s.partial.text();
    const head = partial.trimStart();
    return !/^[|+#>\u2500-\u259f]/.test(head) && listMarker(partial) === "" && !/^( {4,}|\t)/.test(partial);
  }

  private emit(channel: StreamChannel, s: ChannelState, eventIndex: number, onLine: (l: StreamLine) => void, onParagraph?: (p: StreamParagraph) => void): void {
    const text = s.partial.text();
    const kind = s.structure.lineKind(text);
    const plain = s.structure.lastPlain, words = plain ? s.structure.lastWords : undefined;
    // numbers in headings are one section ("Attempt 1", "Attempt 2"): a loop that numbers its copies is still one loop
    // (a dotted number is a name, not a count: "6.11.1" and "6.11.0" head two releases)
    if (kind === "heading") s.section = normalizeLine(text.replace(/^\s*#+\s*/, "")).replace(/(?<![\d.])\d+(?![\d]|\.\d)/g, "#");
    // A short label line ("1. lib/jobs/mail.js", "**Summary:**") introduces one item of a report,
    // like a heading: the same verdict sentence under each file is a per-item report, not a loop.
    const itemLabel = (kind === "list" || kind === "prose") && isItemLabel(text);
    if (itemLabel) s.section = "item\u0000" + normalizeLine(text, plain).replace(/\d+/g, "#");
    if (kind === "list" && !s.inList) { s.list++; s.inList = true; s.listStack = []; } else if (kind !== "list" && kind !== "blank") s.inList = false;
    let parent = "";
    if (kind === "list") {
      const indent = text.length - text.trimStart().length;
      while (s.listStack.length && s.listStack[s.listStack.length - 1].indent >= indent) s.listStack.pop();
      parent = s.listStack.length ? s.listStack[s.listStack.length - 1].text : "";
      if (s.listStack.length < 16) s.listStack.push({ indent, text: normalizeLine(text, plain).slice(0, 200) });
    }
    const line: StreamLine = { channel, text, kind, section: s.section, list: s.list, parent, startEvent: s.partialStart < 0 ? eventIndex : s.partialStart, endEvent: eventIndex, itemLabel, normalized: undefined, plain, words, id: s.lineId, followedBySpace: undefined };
    if (kind === "prose" && s.inItem && /^\s{2,}\S/.test(text)) {
      line.continuation = true;
      line.parent = s.listStack.length ? s.listStack[s.listStack.length - 1].text : "";
    }
    s.inItem = kind === "list" || line.continuation === true;
    s.partial.clear();
    s.partialStart = -1;
    s.lineId = ++this.lineIds;
    s.sentenceFrom = 0;
    s.afterStop = false;
    s.proseLine = undefined;
    s.soFarLength = 0;
    s.stopSoFarLength = 0;
    // (setting an array's length is a runtime call even when it is 0 already: most lines have no early starts)
    if (s.earlyStarts.length !== 0) s.earlyStarts.length = 0;
    s.tail.clear();
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

/** An ASCII character \w matches: a letter, a digit or an underscore. */
function isWordCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

/** A Latin letter, or any character past ASCII (a letter of another script, as far as a stop after it goes). */
function isLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c > 0x7f;
}

/** [.!?] or a CJK 。！？ */
function isStop(c: number): boolean {
  return c === 46 || c === 33 || c === 63 || c === 0x3002 || c === 0xff01 || c === 0xff1f;
}

/**
 * Whether the text ends on a sentence's stop ([.!?] or a CJK 。！？) after a word: not a number's
 * point or a version's ("3.", "v1."), not an abbreviation's ("e.g.", "i.e.", a single letter's).
 */
function endsSentence(text: string): boolean {
  const n = text.length - 1;
  const last = text.charCodeAt(n);
  if (!isStop(last)) return false;
  if (last > 0x7f) return true; // a CJK stop ends its sentence whatever comes before it
  if (n < 2) return false;
  const before = text.charCodeAt(n - 1);
  if (!isLetter(before) && before !== 41 && before !== 34 && before !== 39 && before !== 96) return false;
  // a single letter before the stop ("e.g.", "i.e.", "U.S."): an abbreviation, not a sentence's end
  const twoBack = text.charCodeAt(n - 2);
  if (isLetter(before) && (twoBack === 46 || twoBack === 32 || twoBack === 9)) return false;
  return true;
}

/** Where the first [.!?] of the text is (-1: none): most chunks have none, and indexOf finds that faster than a loop. */
function firstStop(text: string): number {
  let first = text.indexOf(".");
  const bang = text.indexOf("!"), question = text.indexOf("?");
  if (bang >= 0 && (first < 0 || bang < first)) first = bang;
  if (question >= 0 && (first < 0 || question < first)) first = question;
  return first;
}

/** A channel's state as a new one is, for a new request. */
function restartState(s: ChannelState): void {
  s.partial.clear();
  s.partialStart = -1;
  s.structure.reset();
  s.section = "";
  s.list = 0;
  s.inList = false;
  if (s.listStack.length > 0) s.listStack = [];
  // a paragraph not flushed is dropped with its lines
  if (s.paragraph.length > 0) s.paragraph = [];
  s.sentenceFrom = 0;
  s.afterStop = false;
  if (s.earlyStarts.length > 0) s.earlyStarts.length = 0;
  s.tail.clear();
  s.lineHead = "";
  s.inItem = false;
  s.proseLine = undefined;
  s.soFarLength = 0;
  s.stopSoFarLength = 0;
}

/**
 * Most strings come in a few dozen pieces: after one that came in more, the array is made anew
 * rather than joined through its empty slots ever after (a join walks them all).
 */
const MAX_IDLE_PIECE_SLOTS = 64;

/**
 * A string built from pieces (a line from its chunks), joined once when read: appending with +=
 * makes a cons string per piece, garbage that lives as long as the string grows and that its
 * first reader flattens anyway.
 */
export class PieceString {
  /** Pieces in use; the slots after them hold "" (kept, not truncated: a shortened array gives up its storage, and regrows). */
  private pieces: string[] = [];
  private count = 0;
  length = 0;

  push(piece: string): void {
    this.pieces[this.count++] = piece;
    this.length += piece.length;
  }

  /** The string so far, kept joined (later pieces go after it). */
  text(): string {
    if (this.count === 0) return "";
    if (this.count === 1) return this.pieces[0];
    // (only the pieces in use: a join walks every slot of its array, the "" ones after count too, at a
    // cost per slot that outweighs the copy of a short slice of the array)
    const text = (this.count === this.pieces.length ? this.pieces : this.pieces.slice(0, this.count)).join("");
    this.clear();
    this.push(text);
    return text;
  }

  clear(): void {
    if (this.pieces.length > MAX_IDLE_PIECE_SLOTS) this.pieces = [];
    else for (let k = 0; k < this.count; k++) this.pieces[k] = "";
    this.count = 0;
    this.length = 0;
  }
}

/** A paragraph whose text is joined only when a reader asks for it (most stop at its lines). */
export class Paragraph implements StreamParagraph {
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

  /** (most requests catch nothing; a new set rather than clear(): see LineRepeatDetector.onRequestStart) */
  newRequest(): void { if (this.thisRequest.size > 0) this.thisRequest = new Set(); }
  reset(): void { this.catches.clear(); this.thisRequest.clear(); }
}
