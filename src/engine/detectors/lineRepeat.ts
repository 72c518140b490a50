/**
 * b. The same line or paragraph again and again in one request's thinking or text, adjacent or
 * not (A x A y A): normalised (case, spacing, list markers, emphasis, opening "Wait,"/"Hmm,")
 * so small drift in layout does not hide it. Short lines are ignored ("Let me check."), and so are code, tables,
 * dividers and headings. A shorter sentence (two words or more) counts only while little else
 * stands between its copies. A line counts per heading: the same sentence under different headings
 * is a per-item report, not a loop; a list item counts within its list and under its parent
 * item (the same steps traced again in a new list, or one note under each file, are work).
 *
 * count = catches of this line since the user last spoke (one per request): the first aborts the
 * stream, a second catch of the same line stops the task.
 */
import type { Detector, DetectorDefinition, DetectorSettings, DetectorStatus, Finding } from "../detector";
import { STREAM_STRENGTH } from "../detector";
import { BoundedMap } from "../boundedMap";
import { excerpt } from "../guidance";
import { CatchCounter, SHORT_PHRASE_CHARS, isItemLabel, normalizedLine, numberSetting, stripOpeners, type StreamChannel, type StreamLine, type StreamParagraph } from "../streamText";
import { textKey } from "../words";
import { channelName } from "./streamRepeat";
import { SectionScopes } from "./sectionScope";

export const LINE_REPEAT_DEFAULTS: DetectorSettings = {
  enabled: true,
  warnAt: 0,
  blockAt: 1,
  stopAt: 2,
  /** Copies of one line (or paragraph) in one request that make a loop... */
  minCopies: 3,
  /**
   * ...unless every copy comes after new material: the same verdict line closing each of several
   * different analyses ("That one is safe to run online.") is a report; it takes this many copies.
   */
  minSpreadCopies: 5,
  /** Lines shorter than this (normalised) are never counted. */
  minLineChars: 40,
  /** Paragraphs of several lines count as a whole from this length. */
  minParagraphChars: 80,
  /**
   * A shorter line (two words or more) counts only while little else stands between its copies:
   * at most this many characters of other lines ("Hmm.", "Okay.") from one copy to the next (0: never).
   */
  shortLineGapChars: 80,
};

/** A short line of fewer words than this, or fewer characters, is an interjection, never counted. */
const SHORT_LINE_MIN_WORDS = 2;
const SHORT_LINE_MIN_CHARS = 8;


/** Whether a normalised line holds n words or more (as norm.split(" ").length >= n), without splitting it. */
function hasWords(norm: string, n: number): boolean {
  for (let k = 1, from = 0; k < n; k++) {
    const at = norm.indexOf(" ", from);
    if (at < 0) return false;
    from = at + 1;
  }
  return true;
}

/** Copies of one sentence on one line looked for at most. */
const MAX_COPIES_IN_LINE = 4;

/**
 * The sentence a normalised line says several times over and nothing else ("x is y. x is y."), and
 * how many times; undefined for any other line. Only where the line's length and the stop before a
 * space at each copy's end allow a split are the copies compared: most lines cost a few lookups.
 */
export function repeatedSentence(norm: string, minChars: number): { sentence: string; times: number } | undefined {
  for (let times = 2; times <= MAX_COPIES_IN_LINE; times++) {
    const length = (norm.length - (times - 1)) / times;
    if (length < minChars) break;
    if (!Number.isInteger(length)) continue;
    const last = norm.charCodeAt(length - 1);
    if (norm.charCodeAt(length) !== 32 || (last !== 46 && last !== 33 && last !== 63)) continue;
    const sentence = norm.slice(0, length);
    let same = true;
    for (let k = 1; k < times && same; k++) same = norm.startsWith(sentence, k * (length + 1)) && (k === times - 1 || norm.charCodeAt(k * (length + 1) + length) === 32);
    if (same) return { sentence, times };
  }
  return undefined;
}

/** Longest line whose sentences are compared one by one, openers aside (a few short sentences). */
const MAX_SPLIT_LINE = 4 * 80;

/**
 * The sentence a normalised line says several times over and nothing else, each copy perhaps
 * with an opener of its own ("hmm, x. x. so x."), without its opener, and how many times.
 */
export function sentenceSaidAgain(full: string, minChars: number): { sentence: string; times: number } | undefined {
  const exact = repeatedSentence(full, minChars);
  if (exact) return { sentence: stripOpeners(exact.sentence), times: exact.times };
  if (full.length > MAX_SPLIT_LINE || full.length < 2 * minChars) return undefined;
  const end = firstSentenceEnd(full);
  if (end < minChars) return undefined;
  const sentence = stripOpeners(full.slice(0, end));
  // each copy ends as the first does (an opener is only ever cut from a copy's start): most lines are
  // told apart here, before any split
  if (sentence.length < minChars || !full.endsWith(sentence)) return undefined;
  const pieces = full.split(/(?<=[.!?]) (?=\S)/);
  if (pieces.length < 2 || pieces.length > MAX_COPIES_IN_LINE) return undefined;
  for (let k = 1; k < pieces.length; k++) if (stripOpeners(pieces[k]) !== sentence) return undefined;
  return { sentence, times: pieces.length };
}

/** Where the first sentence of a normalised line ends, as the split cuts it: after the first stop a space and more follow (-1: none). */
function firstSentenceEnd(text: string): number {
  for (let i = 0; i < text.length - 2; i++) {
    const c = text.charCodeAt(i);
    if ((c === 46 || c === 33 || c === 63) && text.charCodeAt(i + 1) === 32 && text.charCodeAt(i + 2) !== 32) return i + 1;
  }
  return -1;
}

/** Normalised lengths below this are marked as counted (countedLengths); a longer line so far is always looked up. */
const MAX_LENGTH_MARKED = 1024;

/** Characters of a counted unit's end marked in countedEnds (no shorter unit is ever counted: see countShort). */
const END_CHARS = SHORT_LINE_MIN_CHARS;
/** Slots of a channel's countedEnds (a power of two). */
const END_SLOTS = 4096;

/** The hash of END_CHARS character codes, ending at index end of the text (lowercased when the text is not yet). */
function endHash(text: string, end: number, lower: boolean): number {
  let h = 0;
  for (let i = end - END_CHARS; i < end; i++) {
    const c = text.charCodeAt(i);
    h = (Math.imul(h, 31) + (lower && c >= 65 && c <= 90 ? c + 32 : c)) | 0;
  }
  return (h ^ (h >>> 13)) & (END_SLOTS - 1);
}

/**
 * Whether a raw line's last END_CHARS characters are as normalizeLine leaves them (lowercasing
 * aside): ASCII, no emphasis mark, no whitespace but single spaces, not ending in one. What comes
 * before them (a list marker, emphasis, runs of spaces) does not reach them: the normalised line
 * ends with them lowercased, or is shorter than END_CHARS.
 */
function endIsNormal(text: string): boolean {
  const n = text.length;
  if (n < END_CHARS || text.charCodeAt(n - 1) === 32) return false;
  let afterSpace = false;
  for (let i = n - END_CHARS; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 32) {
      if (afterSpace) return false;
      afterSpace = true;
      continue;
    }
    if (c < 33 || c > 126 || c === 42 || c === 95 || c === 96) return false;
    afterSpace = false;
  }
  return true;
}

/** Distinct lines remembered per channel and request; the least recent are forgotten first. */
const MAX_TRACKED_LINES = 1024;
const MAX_EVENTS = 32;

interface Seen {
  count: number;
  events: number[];
  text: string;
  /** The unit's tally (see Tally) just before the first copy. */
  unitsBefore: number;
  repeatsBefore: number;
  /** The tally just after the latest copy, to judge the stretch since it on its own. */
  unitsAtLast: number;
  repeatsAtLast: number;
  /**
   * Whether some stretch between two copies held nothing new (A B A: only a line said before): the
   * loop is judged on its latest stretch, not on all the new work since the first copy.
   */
  staleGap: boolean;
  /** The channel's count of names first given (see Names) at the latest copy, and whether every gap between copies gave a new one. */
  namesAtLast: number;
  newNamesEachGap: boolean;
}

/** Whether nothing new came since the unit's latest copy: only units said before, or none at all. */
function staleSince(s: Seen, tally: { units: number; repeats: number }): boolean {
  return tally.units - s.unitsAtLast - (tally.repeats - s.repeatsAtLast) <= 0;
}

/** Letters, digits, `_` and `-`: the characters of a word run. */
function isWordCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45;
}

/**
 * The word run starting at text[i] (letters, digits, `_`, `-`, joined by `.` or `/`; a path may
 * start with `/`): where it ends if it is a name, minus that end minus 2 if it is not, -1 if no run
 * starts there. A name is an identifier or a path: a run that starts with a letter, `_` or `/` and
 * holds a `_`, an inner capital, or a `.` or `/` between word characters (`src/core_1.py`,
 * `parseLimit`, `/w/app.ts`). Plain numbers are not names: a counter that climbs ("attempt 14") is no
 * new fact. (words.ts's ContentTokens, the facts near-duplicate compares, counts numbers as names,
 * rightly for two sentences set side by side; here a number new at every copy is what a loop's own
 * counter looks like.) One pass, no regex: it reads every line said after a line said again.
 */
function nameRun(text: string, i: number): number {
  const first = text.charCodeAt(i);
  const slash = first === 47 && i + 1 < text.length && isWordCode(text.charCodeAt(i + 1));
  if (!slash && !isWordCode(first)) return -1;
  let named = slash || first === 95;
  const letterStart = slash || (first >= 97 && first <= 122) || (first >= 65 && first <= 90) || first === 95;
  let previous = first;
  let k = i + 1;
  for (; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (isWordCode(c)) {
      if (c === 95 || (c >= 65 && c <= 90 && previous >= 97 && previous <= 122)) named = true;
      previous = c;
      continue;
    }
    // a dot or slash joins two word runs
    if ((c === 46 || c === 47) && isWordCode(previous) && k + 1 < text.length && isWordCode(text.charCodeAt(k + 1))) { named = true; previous = c; continue; }
    break;
  }
  return letterStart && named ? k : -k - 2;
}
/** Names remembered per channel and request (past it, a name is new each time it is given). */
const MAX_NAMES = 1024;
interface Names { seen: Set<string>; fresh: number }

/** The opening lines of a request followed, and the fewest lines of a block whose second copy counts. */
const MAX_OPENING_LINES = 32;
const MIN_OPENING_BLOCK = 3;

/** A request's opening lines while they may be one block said twice: the block, then how much of its copy has come. */
interface Opening { lines: string[]; period: number; matched: number; done: boolean }

/** A short line's copies in a row with little between them, and where (in characters of the channel) the last one ended. */
interface Close { streak: number; end: number; events: number[]; text: string }

/** Units counted so far in one channel and unit kind, and how many of them were repeats. */
interface Tally { units: number; repeats: number }

/** The most copies of one unit so far, kept raw: the status line is only written when asked for. */
interface Strongest { count: number; channel?: StreamChannel; unit?: string; text?: string }

class LineRepeatDetector implements Detector {
  readonly id = "line-repeat" as const;
  private seen = new Map<StreamChannel, BoundedMap<string, Seen>>();
  private counter = new CatchCounter();
  private readonly minCopies: number;
  private readonly minSpreadCopies: number;
  private tallies = new Map<StreamChannel, Record<"line" | "paragraph", Tally>>();
  private readonly minLineChars: number;
  private readonly minParagraphChars: number;
  private readonly shortLineGapChars: number;
  /** Short lines by channel, and the characters of lines read so far per channel. */
  private close = new Map<StreamChannel, BoundedMap<string, Close>>();
  /**
   * Per channel, the normalised lengths of the lines this request counted, each marked with the
   * request's stamp: a line so far of another length completes no copies, and is let go before its
   * key is built and looked up (most are).
   */
  private countedLengths = new Map<StreamChannel, Int32Array>();
  /**
   * Per channel, the ends (END_CHARS characters, hashed) of the normalised lines this request
   * counted, marked with the request's stamp as countedLengths is. A unit counted is a suffix of its
   * normalised line (openers and a repeat are cut from its start), so a line so far can complete
   * copies only if its normalised line ends as one of them: told from its raw end, before it is
   * normalised (most lines so far end otherwise).
   */
  private countedEnds = new Map<StreamChannel, Int32Array>();
  private lengthStamp = 1;
  private flow = new Map<StreamChannel, number>();
  private strongest: Strongest = { count: 0 };
  /** Per channel, the names (identifiers, paths, files) the request's lines gave since one of its lines was said again, and how many were new. */
  private names = new Map<StreamChannel, Names>();
  /** Per channel, the request's opening lines, while they may yet be one block said twice. */
  private openings = new Map<StreamChannel, Opening>();

  constructor(settings: DetectorSettings) {
    this.minCopies = Math.max(2, numberSetting(settings, "minCopies", LINE_REPEAT_DEFAULTS));
    this.minSpreadCopies = Math.max(this.minCopies, numberSetting(settings, "minSpreadCopies", LINE_REPEAT_DEFAULTS));
    this.minLineChars = numberSetting(settings, "minLineChars", LINE_REPEAT_DEFAULTS);
    this.minParagraphChars = numberSetting(settings, "minParagraphChars", LINE_REPEAT_DEFAULTS);
    this.shortLineGapChars = numberSetting(settings, "shortLineGapChars", LINE_REPEAT_DEFAULTS);
  }

  onRequestStart(): void {
    // New maps rather than clear(): a cleared Map keeps its old table, linked to the new one, and a
    // table that has grown old keeps what it held alive through every young-generation collection
    // until a full one, which then has it all promoted (a request's units, lines and texts). A new
    // map's garbage dies young. (An empty map is left as it is: most requests have no short line said twice.)
    if (this.seen.size > 0) this.seen = new Map();
    if (this.close.size > 0) this.close = new Map();
    if (this.flow.size > 0) this.flow = new Map();
    if (this.tallies.size > 0) this.tallies = new Map();
    if (this.openings.size > 0) this.openings = new Map();
    if (this.names.size > 0) this.names = new Map();
    this.lengthStamp++;
    this.counter.newRequest();
    this.sections.clear();
    this.strongest = { count: 0 };
  }

  onLine(line: StreamLine): Finding[] | void {
    this.readLine(line);
    return this.takeFound();
  }

  /**
   * A line so far, its last sentence just ended: if ending here would make it a loop, it is
   * caught now, with its last chunk. Nothing is counted: the line is counted once, whole, at its
   * newline (and a catch is not repeated there: one per request).
   */
  onLineSoFar(line: StreamLine): Finding[] | void {
    // given to every reader once one could use it (near-duplicate, say): with nothing counted it completes nothing
    // (and, by its raw end, before it is normalised: most lines so far end as nothing counted did)
    if (!this.wantsLineSoFar(line.channel) || !this.mayEndAsCounted(line)) return;
    this.readLine(line, true);
    return this.takeFound();
  }

  /** Marks a normalised length as counted in this request (lengths past the table are never ruled out). */
  private noteCounted(channel: StreamChannel, length: number): void {
    if (length >= MAX_LENGTH_MARKED) return;
    let marks = this.countedLengths.get(channel);
    if (!marks) { marks = new Int32Array(MAX_LENGTH_MARKED); this.countedLengths.set(channel, marks); }
    marks[length] = this.lengthStamp;
  }

  private mayHaveCounted(channel: StreamChannel, length: number): boolean {
    return length >= MAX_LENGTH_MARKED || this.countedLengths.get(channel)?.[length] === this.lengthStamp;
  }

  /** Marks the end of a counted unit's normalised text (a shorter one is never counted). */
  private noteCountedEnd(channel: StreamChannel, norm: string): void {
    if (norm.length < END_CHARS) return;
    let marks = this.countedEnds.get(channel);
    if (!marks) { marks = new Int32Array(END_SLOTS); this.countedEnds.set(channel, marks); }
    marks[endHash(norm, norm.length, false)] = this.lengthStamp;
  }

  /**
   * Whether a line so far may end as a unit counted in this request (false only when it cannot).
   * Lines shorter than END_CHARS can be counted only with a minLineChars below it: then every line may.
   */
  private mayEndAsCounted(line: StreamLine): boolean {
    if (this.minLineChars < END_CHARS || !endIsNormal(line.text)) return true;
    return this.countedEnds.get(line.channel)?.[endHash(line.text, line.text.length, true)] === this.lengthStamp;
  }

  /** A line so far can only complete copies this request already counted. */
  wantsLineSoFar(channel: StreamChannel): boolean {
    return (this.seen.get(channel)?.size ?? 0) > 0 || (this.close.get(channel)?.size ?? 0) > 0;
  }

  onParagraph(p: StreamParagraph): Finding[] | void {
    this.readParagraph(p);
    return this.takeFound();
  }

  /** This unit's findings, gathered in a list made only when there is one (nearly every line has none). */
  private found: Finding[] | undefined;

  private takeFound(): Finding[] | undefined {
    const found = this.found;
    this.found = undefined;
    return found;
  }

  /** The heading each line counts under, connectors ("To be sure:") passed over. */
  private sections = new SectionScopes();

  private readLine(line: StreamLine, soFar = false): void {
    const before = this.flow.get(line.channel) ?? 0;
    if (!soFar) this.flow.set(line.channel, before + line.text.length + 1);
    if (!soFar && this.names.size > 0) this.readNames(line);
    if (line.kind !== "prose" && line.kind !== "list") {
      if (!soFar && line.text.trim() !== "") this.breakOpening(line.channel);
      return;
    }
    if (!soFar) this.readOpening(line);
    const section = this.sections.of(line.channel, line.section);
    // A label (a file path heading each edit block, "Files changed:") names what follows; saying it
    // again before each item is structure, like a repeated heading.
    if (line.itemLabel === true) return;
    // normalised once, kept on the line for its paragraph
    const full = normalizedLine(line);
    // the same sentence said twice or more on one line is that many copies of it ("X. X." then "X."),
    // each copy with its opener ("Hmm, X. Hmm, X."), whatever its length
    const repeated = line.kind === "prose" ? sentenceSaidAgain(full, SHORT_LINE_MIN_CHARS) : undefined;
    const norm = repeated ? repeated.sentence : stripOpeners(full);
    if (soFar && !this.mayHaveCounted(line.channel, norm.length)) return;
    // (a line so far does not know yet whether it is a label)
    if (line.itemLabel === undefined && isItemLabel(line.text)) return;
    if (!soFar) {
      this.noteCounted(line.channel, norm.length);
      this.noteCountedEnd(line.channel, norm);
    }
    if (norm.length < this.minLineChars) {
      if (line.kind === "prose" && !line.continuation) this.countShort(line, section, norm, before, soFar, repeated?.times ?? 1);
      return;
    }
    // list items count within their own list: steps re-traced in a new list are work, not a loop
    // (a list item's wrapped text belongs to its item: the same words under each item are a per-item note)
    const scope = line.kind === "list" ? `${section}\u0000list ${line.list}\u0000${line.parent}` : line.continuation ? `${section}\u0000item\u0000${line.parent}` : section;
    if (repeated) this.count(line.channel, "line", scope, norm, norm, line.endEvent, soFar, repeated.times);
    else this.count(line.channel, "line", scope, norm, line.text, line.endEvent, soFar);
  }

  private readParagraph(p: StreamParagraph): void {
    if (p.lines.length < 2) return; // a one-line paragraph is its line
    const norm = stripOpeners(p.lines.map(normalizedLine).join(" "));
    if (norm.length < this.minParagraphChars) return;
    this.count(p.channel, "paragraph", this.sections.of(p.channel, p.section), norm, p.text, p.endEvent);
  }

  /** Counts copies of a unit (soFar: only reports what counting them would make a loop, counting nothing). */
  private count(channel: StreamChannel, unit: "line" | "paragraph", section: string, norm: string, text: string, event: number, soFar = false, times = 1): void {
    let seen = this.seen.get(channel);
    if (!seen) { seen = new BoundedMap(MAX_TRACKED_LINES); this.seen.set(channel, seen); }
    const id = `${unit}\u0000${section}\u0000${norm}`;
    let tallies = this.tallies.get(channel);
    if (!tallies) { tallies = { line: { units: 0, repeats: 0 }, paragraph: { units: 0, repeats: 0 } }; this.tallies.set(channel, tallies); }
    const tally = tallies[unit];
    if (soFar) {
      const s = seen.peek(id);
      if (!s) return;
      const copies = s.count + times;
      if (copies < this.minCopies || (!s.staleGap && !staleSince(s, tally) && (copies < this.minSpreadCopies || (s.newNamesEachGap && this.namesGiven(channel) > s.namesAtLast)) && this.spread(s, copies, tally.units + times, tally.repeats + times))) return;
      this.report(channel, section, norm, s.text, [...s.events, event], copies, `the same ${unit} ${copies} times`);
      return;
    }
    let s = seen.get(id);
    const names = this.namesGiven(channel);
    if (!s) { s = { count: 0, events: [], text, unitsBefore: tally.units, repeatsBefore: tally.repeats, unitsAtLast: tally.units, repeatsAtLast: tally.repeats, staleGap: false, namesAtLast: names, newNamesEachGap: true }; seen.set(id, s); }
    else {
      if (staleSince(s, tally)) s.staleGap = true;
      // (a gap read before names were followed is not held against the refrain)
      if (names >= 0 && s.namesAtLast >= 0 && names === s.namesAtLast) s.newNamesEachGap = false;
    }
    s.namesAtLast = names;
    for (let k = 0; k < times; k++) {
      s.count++;
      tally.units++;
      if (s.count > 1) tally.repeats++;
    }
    // names are followed from a request's first line said again: most requests never say one twice
    if (s.count > 1 && names < 0) s.namesAtLast = this.namesOf(channel).fresh;
    s.unitsAtLast = tally.units;
    s.repeatsAtLast = tally.repeats;
    if (s.events.length < MAX_EVENTS) s.events.push(event);
    if (s.count > this.strongest.count) this.strongest = { count: s.count, channel, unit, text };
    if (s.count < this.minCopies) return;
    // A refrain of a passage that gives new names each time (a new file, test or identifier between
    // every two copies: "I need to look at the next failing test more carefully." before each) is
    // corroborated by nothing: the work it frames moves on. Without new names it counts at minSpreadCopies.
    if ((s.count < this.minSpreadCopies || s.newNamesEachGap) && !s.staleGap && this.spread(s, s.count, tally.units, tally.repeats)) return;
    this.report(channel, section, norm, s.text, s.events, s.count, `the same ${unit} ${s.count} times`);
  }

  /** A finding for copies of one line or paragraph, once per catch of its key (section and text). */
  private report(channel: StreamChannel, section: string, norm: string, text: string, events: number[], copies: number, what: string): void {
    const key = `${this.id}:${channel}:${textKey(section + "\u0000" + norm)}`;
    const count = this.counter.catch(key, channel);
    if (count === undefined) return;
    const span = excerpt(text, 200);
    (this.found ??= []).push({
      detector: this.id,
      key,
      count,
      summary: `your ${channelName(channel)} says ${what} ("${span}")`,
      suggestion: "It is already said: do not write it again. Decide on the next step and take it, or give the final answer.",
      evidence: { events: [...events], count: copies, span },
    });
  }

  /**
   * A short sentence said again and again with little else between ("I need to check the config
   * file." / "Hmm." / the same sentence): the same line spread through work ("Let me check." before
   * each new step) has that work between its copies and starts over each time.
   */
  private countShort(line: StreamLine, section: string, norm: string, before: number, soFar = false, times = 1): void {
    if (this.shortLineGapChars <= 0 || norm.length < SHORT_LINE_MIN_CHARS || !hasWords(norm, SHORT_LINE_MIN_WORDS)) return;
    let close = this.close.get(line.channel);
    if (!close) { close = new BoundedMap(MAX_TRACKED_LINES); this.close.set(line.channel, close); }
    const id = `${section}\u0000${norm}`;
    const end = before + line.text.length + 1;
    if (soFar) {
      const c = close.peek(id);
      if (!c || before - c.end > this.shortLineGapChars) return;
      const streak = c.streak + times;
      if (streak < this.minCopies + (norm.length < SHORT_PHRASE_CHARS ? 1 : 0)) return;
      this.report(line.channel, section, norm, c.text, [...c.events, line.endEvent], streak, `the same line ${streak} times with almost nothing between`);
      return;
    }
    const c = close.get(id);
    if (!c || before - c.end > this.shortLineGapChars) {
      close.set(id, { streak: times, end, events: [line.endEvent], text: line.text });
      return;
    }
    c.streak += times;
    c.end = end;
    if (c.events.length < MAX_EVENTS) c.events.push(line.endEvent);
    if (c.streak > this.strongest.count) this.strongest = { count: c.streak, channel: line.channel, unit: "line", text: line.text };
    if (c.streak < this.minCopies + (norm.length < SHORT_PHRASE_CHARS ? 1 : 0)) return;
    this.report(line.channel, section, norm, c.text, c.events, c.streak, `the same line ${c.streak} times with almost nothing between`);
  }

  /**
   * A response (or thinking block) that is, from its first line, nothing but one block of lines said
   * again: a degenerate stream ("Generating." / "Go." / "Done.", then the same) is judged line by
   * line, at its second copy, however short its lines; the copy counts only while nothing else was said.
   */
  private readOpening(line: StreamLine): void {
    let o = this.openings.get(line.channel);
    if (o === undefined) { o = { lines: [], period: 0, matched: 0, done: false }; this.openings.set(line.channel, o); }
    if (o.done) return;
    const norm = normalizedLine(line);
    if (norm === "") return;
    if (o.period === 0) {
      if (o.lines.length > 0 && norm === o.lines[0]) { o.period = o.lines.length; o.matched = 1; }
      else if (o.lines.length >= MAX_OPENING_LINES) o.done = true;
      else o.lines.push(norm);
    } else if (norm !== o.lines[o.matched]) o.done = true;
    else if (++o.matched === o.period) {
      o.done = true;
      if (o.period >= MIN_OPENING_BLOCK) this.report(line.channel, "\u0000opening", o.lines.join("\n"), o.lines.join(" / "), [line.endEvent], 2, `nothing but the same ${o.period} lines twice`);
    }
    if (o.done) o.lines = [];
  }

  /** Names a line gives that the request had not given (a copy of a line gives none). */
  private readNames(line: StreamLine): void {
    const n = this.names.get(line.channel);
    if (n === undefined) return;
    const text = line.text;
    for (let i = 0; i < text.length;) {
      const run = nameRun(text, i);
      if (run === -1) { i++; continue; }
      if (run < -1) { i = -run - 2; continue; }
      const name = text.slice(i, run);
      if (!n.seen.has(name)) {
        n.fresh++;
        if (n.seen.size < MAX_NAMES) n.seen.add(name);
      }
      i = run;
    }
  }

  private namesOf(channel: StreamChannel): Names {
    let n = this.names.get(channel);
    if (n === undefined) { n = { seen: new Set(), fresh: 0 }; this.names.set(channel, n); }
    return n;
  }

  /** Names first given in the channel since they were followed; -1 while they are not. */
  private namesGiven(channel: StreamChannel): number {
    return this.names.get(channel)?.fresh ?? -1;
  }

  /** Code, a table or a heading in the opening: the response is more than a block said twice. */
  private breakOpening(channel: StreamChannel): void {
    const o = this.openings.get(channel);
    if (o === undefined) this.openings.set(channel, { lines: [], period: 0, matched: 0, done: true });
    else { o.done = true; o.lines = []; }
  }

  /**
   * Whether new material (units never seen before) stands between every two copies: in a loop the
   * text around the copies repeats too (A B A B), or there is none (A A A).
   */
  private spread(s: Seen, copies: number, units: number, repeats: number): boolean {
    const since = units - s.unitsBefore;
    const repeatsSince = repeats - s.repeatsBefore;
    const others = since - copies;
    const novelOthers = others - (repeatsSince - (copies - 1));
    return novelOthers >= copies - 1;
  }

  reset(): void {
    this.openings.clear();
    this.names.clear();
    this.sections.clear();
    this.close.clear();
    this.flow.clear();
    this.tallies.clear();
    this.seen.clear();
    this.lengthStamp++;
    this.counter.reset();
    this.strongest = { count: 0 };
  }

  status(): DetectorStatus {
    const { count, channel, unit, text } = this.strongest;
    const detail = channel && text !== undefined ? `${channelName(channel)} ${unit} ×${count}: ${excerpt(text, 40)}` : "";
    return { id: this.id, enabled: true, progress: Math.min(1, count / this.minCopies), detail };
  }
}

export const lineRepeat: DetectorDefinition = {
  id: "line-repeat",
  title: "Repeated lines and paragraphs",
  description: "The same line or paragraph (normalised) several times in one response or thinking block, adjacent or not.",
  channel: "stream",
  defaults: LINE_REPEAT_DEFAULTS,
  create: (settings) => new LineRepeatDetector(settings),
  shortTitle: "Repeated lines",
  strength: STREAM_STRENGTH,
  parameters: {
    minCopies: {
      description: "Copies of one line or paragraph in one response that count, adjacent or not. Example: `3` (the default): the same sentence written three times in one answer is caught.",
      tuning: true,
    },
    minSpreadCopies: {
      description: "Copies needed when each copy comes after new material (the same verdict closing each of several different analyses reads like a report). Example: `5` (the default).",
      tuning: true,
    },
    minLineChars: {
      description: "Lines of at least this many characters (after spacing and list markers are taken out) count wherever their copies are; shorter lines count only when their copies come close together (see *Short Line Gap Chars*). Example: `40` (the default).",
      tuning: true,
    },
    minParagraphChars: {
      description: "Paragraphs of several lines count as a whole from this many characters. Example: `80` (the default).",
      tuning: true,
    },
    shortLineGapChars: {
      description: "A line shorter than *Min Line Chars* counts only while at most this many characters of other lines stand between its copies (`0`: never counts short lines). Example: `80` (the default): \"Wait, that is wrong.\" said again after a `Hmm.` is caught.",
      tuning: true,
    },
  },
};
