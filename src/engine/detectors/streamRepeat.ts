/**
 * a. Exact adjacent repetition of a block in the thinking or visible text of one request: a
 * phrase, a sentence, a paragraph or a whole analysis (minPeriod..maxPeriod characters) emitted
 * again and again back to back.
 *
 * Amortised O(1) work per character, bounded memory however long the stream:
 * - nominate: a rolling hash of the last ANCHOR characters indexes a fixed table of last
 *   positions; when that anchor was last seen d characters ago (d ≤ maxPeriod), d is a candidate
 *   period (the ANCHOR characters are compared, so a hash collision nominates nothing);
 * - verify: each live candidate keeps a match run (characters in a row equal to the one d back);
 *   the first mismatch drops it. At most MAX_CANDIDATES live at once.
 * A phrase (a unit of two words or more, shorter than 160 characters) is a chant at its 3rd copy,
 * its 4th below 24 characters, whatever its length; a line break and a space count alike. Other
 * short units (a word, a token) need more copies: a unit of d characters fires after
 * clamp(ceil(minSpanChars / d), minCopies, maxCopies) copies, and at least 3 below shortUnitChars
 * (16 chars × 10, 28 × 6, 59 × 3, 105 × 3, 190 × 3, 300+ × 2).
 * Inside a code fence or a table row the span needed is codeSpanFactor times longer (repetitive
 * code and tables are normal), and an indented statement is no phrase; a block that holds a whole
 * fence (a diff shown again and again) counts at fencedBlockCopies copies, and one that holds a
 * whole table and more counts as text.
 * Units without letters or digits (dividers, box drawing, whitespace) never count.
 *
 * count = how many times this block was caught looping since the user last spoke (one per
 * request): the first catch aborts the stream, a second catch of the same block stops the task.
 */
import type { Detector, DetectorContext, DetectorDefinition, DetectorSettings, DetectorStatus, Finding } from "../detector";
import { STREAM_STRENGTH } from "../detector";
import type { StreamEvent } from "../events";
import { excerpt } from "../guidance";
import { CatchCounter, SHORT_PHRASE_CHARS, isSpaceCode, numberSetting, type StreamChannel } from "../streamText";
import { textKey } from "../words";

export const STREAM_REPEAT_DEFAULTS: DetectorSettings = {
  enabled: true,
  warnAt: 0,
  blockAt: 1,
  stopAt: 2,
  /** Shortest unit counted as such; shorter units ("the the ") are judged as this long. */
  minPeriod: 16,
  /** Longest repeated block looked for. Memory grows linearly with it. */
  maxPeriod: 4000,
  /** Characters the repetition must cover (copies × unit) before it counts... */
  minSpanChars: 160,
  /** ...but never fewer than minCopies copies nor more than maxCopies are asked for... */
  minCopies: 2,
  /**
   * ...and a unit shorter than this needs at least 3 copies: a sentence or a short list said twice
   * is often a host logging one message twice or two near-identical list items, a paragraph
   * said twice in a row is a loop.
   */
  shortUnitChars: 300,
  maxCopies: 10,
  /** Inside fenced code and table rows the span needed is this many times longer. */
  codeSpanFactor: 4,
  /** A block that holds a whole fence (a diff or snippet shown again) counts from this many copies. */
  fencedBlockCopies: 3,
};

/** Characters of the anchor whose recurrence nominates a period. */
const ANCHOR = 16;
const MAX_CANDIDATES = 24;
/** Units shorter than this are checked for words once, when nominated: a chanted phrase counts in copies. */
const PHRASE_MAX_CHARS = 160;
/** Rolling hash in 32-bit integer arithmetic (mod 2^32): cheap, and collisions are verified anyway. */
const HASH_BASE = 0x01000193;
/** Events listed as evidence at most. */
const MAX_EVIDENCE_EVENTS = 64;
/** Chunks remembered for evidence, in units of maxPeriod characters back. */
const EVIDENCE_WINDOW_PERIODS = 8;

export interface RepeatHit {
  channel: StreamChannel;
  period: number;
  copies: number;
  unit: string;
  /** Absolute character position (0-based, in this channel of this request) where it fired. */
  position: number;
  /** First character of the repeated span. */
  spanStart: number;
}

/** What almost every chunk returns: one shared empty list, not a new one per chunk. */
const NO_HITS: readonly RepeatHit[] = Object.freeze([]);

function pow32(base: number, exp: number): number {
  let r = 1;
  for (let i = 0; i < exp; i++) r = Math.imul(r, base);
  return r;
}
const ANCHOR_POW = pow32(HASH_BASE, ANCHOR - 1);

/** Booth's algorithm: start of the lexicographically least rotation, so one loop has one key whatever phase it was caught in. */
export function leastRotation(s: string): number {
  const n = s.length;
  const f = new Int32Array(2 * n).fill(-1);
  let k = 0;
  for (let j = 1; j < 2 * n; j++) {
    const sj = s.charCodeAt(j % n);
    let i = f[j - k - 1];
    while (i !== -1 && sj !== s.charCodeAt((k + i + 1) % n)) {
      if (sj < s.charCodeAt((k + i + 1) % n)) k = j - i - 1;
      i = f[i];
    }
    if (i === -1 && sj !== s.charCodeAt((k + i + 1) % n)) {
      if (sj < s.charCodeAt((k + i + 1) % n)) k = j;
      f[j - k] = -1;
    } else f[j - k] = i + 1;
  }
  return k;
}

/**
 * The code a character is kept as: a line break and a tab are spaces (they separate the same words:
 * a chant whose lines wander between the two is one chant). Past 13 first: nearly every character is.
 */
function spacedCode(raw: number): number {
  return raw > 13 || (raw !== 10 && raw !== 13 && raw !== 9) ? raw : 32;
}

function isTextUnit(unit: string): boolean {
  const distinct = new Set<string>();
  let alnum = 0, visible = 0;
  for (const ch of unit) {
    if (/\s/.test(ch)) continue;
    visible++;
    if (/[\p{L}\p{N}]/u.test(ch)) { alnum++; distinct.add(ch.toLowerCase()); }
  }
  return distinct.size >= 2 && alnum >= 0.3 * visible;
}

export interface RepeatParams {
  minPeriod: number;
  maxPeriod: number;
  minSpanChars: number;
  minCopies: number;
  shortUnitChars: number;
  maxCopies: number;
  codeSpanFactor: number;
  fencedBlockCopies: number;
}

export function repeatParams(settings: DetectorSettings): RepeatParams {
  const n = (k: keyof RepeatParams) => numberSetting(settings, k, STREAM_REPEAT_DEFAULTS);
  return {
    minPeriod: Math.max(1, n("minPeriod")),
    maxPeriod: Math.max(ANCHOR, Math.min(1 << 16, n("maxPeriod"))),
    minSpanChars: n("minSpanChars"),
    minCopies: Math.max(2, n("minCopies")),
    shortUnitChars: n("shortUnitChars"),
    maxCopies: Math.max(2, n("maxCopies")),
    codeSpanFactor: Math.max(1, n("codeSpanFactor")),
    fencedBlockCopies: Math.max(2, n("fencedBlockCopies")),
  };
}

/** Characters of a line's head read for its kind (fence, table row, indented code). */
const LINE_HEAD_CHARS = 6;

/**
 * The repetition finder of one channel of one request. Exported for tests and the benchmark.
 * Every character of the stream passes through scanQuiet's loop or take: the live candidates are parallel
 * typed arrays (no object per candidate, no array resizing per character) and the line-head state
 * is a few numbers (no string built per line).
 */
export class RepeatTracker {
  private readonly size: number;
  private readonly mask: number;
  private readonly buf: Uint16Array;
  private pos = 0;
  private hash = 0;
  /**
   * Last position + 1 of each anchor hash bucket, plus epoch (epoch or less: not in this request);
   * fixed size, no purging needed.
   */
  private readonly lastSeen: Int32Array;
  /**
   * Characters of the earlier requests since the table was last rebased: a new request moves it
   * on instead of zeroing the whole table, so every entry of an earlier request reads as never seen.
   */
  private epoch = 0;
  private readonly tableMask: number;
  /** Live candidates, oldest first, in parallel arrays: */
  private count = 0;
  /** their period; */
  private readonly period = new Int32Array(MAX_CANDIDATES);
  /** characters in a row equal to the character `period` back; */
  private readonly run = new Int32Array(MAX_CANDIDATES);
  /**
   * the run below which the span cannot be reached in any line state (requiredSpan's least value
   * for this candidate, less its period): shorter runs skip requiredSpan;
   */
  private readonly quietRun = new Float64Array(MAX_CANDIDATES);
  /** settled: fired, or its unit is not text (dividers); never checked again; */
  private readonly done = new Uint8Array(MAX_CANDIDATES);
  /** a short unit of two words or more (a chanted line): counted in copies, not in characters; */
  private readonly phrase = new Uint8Array(MAX_CANDIDATES);
  /**
   * of a short phrase: characters from the start of the repeated span to its first word. Text just
   * before a chant can end like each copy (". " before "Thinking... Done. "): its four copies count
   * from a word.
   */
  private readonly lead = new Int32Array(MAX_CANDIDATES);
  /** Fence state from line starts: ``` or ~~~ at the head of a line toggles it. */
  private inFence = false;
  /** Position of the newline of the last fence line (opening or closing). */
  private lastFenceLine = -1;
  /** The current line is a table or box-drawing row (known from its first visible character). */
  private inTable = false;
  /** Position of the newline of the last line that was not a table row (a blank line included). */
  private lastOtherLine = -1;
  /** The current line is indented like code (four spaces or a tab). */
  private inCode = false;
  /** The current line's first LINE_HEAD_CHARS characters (as many as came), whether all are blank, whether one is a tab. */
  private readonly head = new Uint16Array(LINE_HEAD_CHARS);
  private headLength = 0;
  private headBlank = true;
  private headTab = false;

  constructor(readonly channel: StreamChannel, private readonly s: RepeatParams) {
    let size = 1;
    while (size < s.maxPeriod + ANCHOR + 2) size <<= 1;
    this.size = size;
    this.mask = size - 1;
    this.buf = new Uint16Array(size);
    // ~4 buckets per position in reach keeps overwrites by collisions rare
    this.lastSeen = new Int32Array(size * 4);
    this.tableMask = size * 4 - 1;
  }

  /** Slots held (buffer, anchor table, candidates): fixed by maxPeriod, for the memory test. */
  get held(): number { return this.buf.length + this.lastSeen.length + this.count; }

  /** Starts afresh (a new request), keeping the buffers: no reallocation per request. */
  clear(): void {
    this.epoch += this.pos;
    this.pos = 0;
    this.hash = 0;
    // the characters before the first one, which the rolling hash lets go of as its first ANCHOR come in, are none
    this.buf.fill(0, this.size - ANCHOR);
    this.count = 0;
    this.inFence = false;
    this.lastFenceLine = -1;
    this.inTable = false;
    this.inCode = false;
    this.lastOtherLine = -1;
    this.headLength = 0;
    this.headBlank = true;
    this.headTab = false;
  }

  /** Characters seen so far. */
  get length(): number { return this.pos; }

  /** Span (copies × unit) needed before a unit of this period counts. */
  requiredSpan(period: number, phrase = false, lead = 0): number {
    const unit = Math.max(period, this.s.minPeriod);
    const floor = unit < this.s.shortUnitChars ? Math.max(3, this.s.minCopies) : this.s.minCopies;
    // a line or sentence of words said three times in a row is a chant however short it is (four
    // times below SHORT_PHRASE_CHARS: thrice can be emphasis); a lone word or token ("the the the",
    // "0x00"), and a statement in code, still need the span
    const holdsFence = this.lastFenceLine >= 0 && this.pos - 1 - this.lastFenceLine < period;
    // rows of one table repeating are a table; a block that holds a whole table and more (a summary
    // shown again and again) is a block
    const inTable = this.inTable && !(this.lastOtherLine >= 0 && this.pos - 1 - this.lastOtherLine < period);
    if (phrase && !this.inFence && !inTable && !this.inCode && !holdsFence) return this.phraseSpan(period, floor, lead);
    const copies = this.plainCopies(unit, floor);
    // the unit holds a fence line: a whole fenced block shown again and again (showing it twice can be a slip)
    if (holdsFence) return unit * Math.max(copies, this.s.fencedBlockCopies);
    return unit * copies * (this.inFence || inTable ? this.s.codeSpanFactor : 1);
  }

  private phraseSpan(period: number, floor: number, lead: number): number {
    return lead + period * (floor + (period < SHORT_PHRASE_CHARS ? 1 : 0));
  }

  private plainCopies(unit: number, floor: number): number {
    return Math.min(this.s.maxCopies, Math.max(floor, Math.ceil(this.s.minSpanChars / unit)));
  }

  /**
   * The least span requiredSpan can ask of this candidate whatever the line state: unit × copies
   * (the fence and table branches multiply it by factors ≥ 1), or the phrase span for a phrase.
   */
  private leastSpan(period: number, phrase: boolean, lead: number): number {
    const unit = Math.max(period, this.s.minPeriod);
    const floor = unit < this.s.shortUnitChars ? Math.max(3, this.s.minCopies) : this.s.minCopies;
    const plain = unit * this.plainCopies(unit, floor);
    return phrase ? Math.min(plain, this.phraseSpan(period, floor, lead)) : plain;
  }

  /** How close the strongest live candidate is (0..1), and its period. */
  strongest(): { progress: number; period: number } {
    let best = { progress: 0, period: 0 };
    for (let i = 0; i < this.count; i++) {
      if (this.done[i]) continue;
      const period = this.period[i];
      const p = (this.run[i] + period) / this.requiredSpan(period, this.phrase[i] === 1, this.lead[i]);
      if (p > best.progress) best = { progress: Math.min(1, p), period };
    }
    return best;
  }

  private charAt(p: number): number { return this.buf[p & this.mask]; }

  /** The text of [from, to) if still buffered. */
  textOf(from: number, to: number): string {
    const start = Math.max(from, this.pos - this.size + 1, 0);
    let out = "";
    for (let p = start; p < to; p++) out += String.fromCharCode(this.charAt(p));
    return out;
  }

  /** Feeds a chunk; returns the repetitions that reached their span during it (at most one per character). */
  push(delta: string): readonly RepeatHit[] {
    if (this.epoch + this.pos + delta.length >= 0x7fffffff) this.rebase();
    let hits: RepeatHit[] | undefined;
    for (let i = 0; i < delta.length;) {
      // inside a line's body with no live candidate (nearly every character), in a loop that calls nothing
      // (take reads a request's first ANCHOR - 1 characters: they complete no anchor)
      if (this.count === 0 && this.headLength === LINE_HEAD_CHARS && this.pos >= ANCHOR - 1) {
        i = this.scanQuiet(delta, i);
        if (i === delta.length) break;
        // stopped after a nomination that made no candidate (nearly all: a bucket another anchor shares),
        // not before a line break: the quiet scan goes on
        if (this.count === 0 && delta.charCodeAt(i) !== 10) continue;
      }
      const hit = this.take(delta.charCodeAt(i));
      if (hit) (hits ??= []).push(hit);
      i++;
    }
    return hits ?? NO_HITS;
  }

  /**
   * One character, with all it can touch: the line's head state, the live candidates, a nomination.
   * The repetition it completes, if any.
   */
  private take(raw: number): RepeatHit | undefined {
    const p = this.pos;
    // (the ANCHOR slots before position 0 hold 0: see clear)
    const outgoing = this.buf[(p - ANCHOR) & this.mask];
    if (raw === 10) this.endLine(p);
    else if (this.headLength < LINE_HEAD_CHARS) this.readHead(raw);
    const code = spacedCode(raw);
    this.buf[p & this.mask] = code;
    const hit = this.count !== 0 ? this.verify(p, code) : undefined;
    this.pos = p + 1;
    // nominate: the anchor ending here was last seen d characters ago
    const hash = (this.hash = (Math.imul(this.hash - Math.imul(outgoing, ANCHOR_POW), HASH_BASE) + code) | 0);
    if (p >= ANCHOR - 1) {
      const bucket = (hash ^ (hash >>> 15)) & this.tableMask;
      const seen = this.lastSeen[bucket] - this.epoch - 1;
      this.lastSeen[bucket] = this.epoch + p + 1;
      if (seen >= 0 && p - seen <= this.s.maxPeriod) this.nominate(p, p - seen);
    }
    return hit;
  }

  /**
   * take's work for delta[from, ...) while it needs no call: no line break, the line's head already
   * read, no live candidate, the anchor's first ANCHOR characters in. Stops before a line break, or
   * after the character whose anchor nominates a period (nominated here, after the loop); where it
   * stopped. The loop repeats take's hash and table steps on purpose: a loop with a call in it
   * reloads the tables' storage every character. It counts in `| 0` arithmetic (the table's
   * entries stay below 2^31, see rebase), which compiles without overflow checks.
   */
  private scanQuiet(delta: string, from: number): number {
    const buf = this.buf, mask = this.mask, lastSeen = this.lastSeen, tableMask = this.tableMask;
    const epoch = this.epoch, reach = this.s.maxPeriod + 1, n = delta.length;
    // a table entry is epoch + position + 1: entry is that of position p
    let p = this.pos, entry = (epoch + p + 1) | 0;
    let hash = this.hash;
    let i = from, nominee = 0;
    for (; i < n; i++) {
      const raw = delta.charCodeAt(i);
      if (raw === 10) break;
      const code = spacedCode(raw);
      hash = (Math.imul((hash - Math.imul(buf[(p - ANCHOR) & mask], ANCHOR_POW)) | 0, HASH_BASE) + code) | 0;
      buf[p & mask] = code;
      const bucket = (hash ^ (hash >>> 15)) & tableMask;
      const last = lastSeen[bucket];
      lastSeen[bucket] = entry;
      p = (p + 1) | 0;
      entry = (entry + 1) | 0;
      // last seen (entry - 1 - last) characters ago, in this request (an earlier one's entries are epoch or less)
      if (((entry - last) | 0) <= reach && last > epoch) { nominee = (entry - 1 - last) | 0; i++; break; }
    }
    this.pos = p;
    this.hash = hash;
    if (nominee !== 0) this.nominate(p - 1, nominee);
    return i;
  }

  /**
   * Checks the live candidates against the character code just put at p: the first mismatch ends
   * a run (kept in order, compacted in place). The repetition that reached its span, if any.
   */
  private verify(p: number, code: number): RepeatHit | undefined {
    const buf = this.buf, mask = this.mask, period = this.period, run = this.run, quietRun = this.quietRun, done = this.done;
    let hit: RepeatHit | undefined;
    const count = this.count;
    let keep = 0;
    for (let k = 0; k < count; k++) {
      const d = period[k];
      if (buf[(p - d) & mask] !== code) continue;
      const r = run[k] + 1;
      if (keep !== k) this.moveCandidate(k, keep);
      run[keep] = r;
      if (!done[keep] && r >= quietRun[keep]) {
        this.pos = p + 1; // requiredSpan and textOf read it
        if (r + d >= this.requiredSpan(d, this.phrase[keep] === 1, this.lead[keep])) {
          done[keep] = 1;
          if (!hit) {
            const unit = this.textOf(p - d + 1, p + 1);
            if (isTextUnit(unit)) hit = { channel: this.channel, period: d, copies: Math.floor((r + d) / d), unit, position: p, spanStart: p - r - d + 1 };
          }
        }
      }
      keep++;
    }
    this.count = keep;
    return hit;
  }

  /** Takes the epoch out of the table before an entry would pass the Int32 range: the table then holds what a zeroed one would. */
  private rebase(): void {
    for (let i = 0; i < this.lastSeen.length; i++) this.lastSeen[i] = Math.max(0, this.lastSeen[i] - this.epoch);
    this.epoch = 0;
  }

  private moveCandidate(from: number, to: number): void {
    this.period[to] = this.period[from];
    this.run[to] = this.run[from];
    this.quietRun[to] = this.quietRun[from];
    this.done[to] = this.done[from];
    this.phrase[to] = this.phrase[from];
    this.lead[to] = this.lead[from];
  }

  private nominate(p: number, d: number): void {
    if (d < 1 || d > this.s.maxPeriod || d + ANCHOR > this.size) return;
    for (let i = 0; i < this.count; i++) if (this.period[i] === d) return;
    for (let k = 0; k < ANCHOR; k++) if (this.charAt(p - k) !== this.charAt(p - k - d)) return; // hash collision
    if (this.count >= MAX_CANDIDATES) {
      let weakest = 0;
      for (let i = 1; i < this.count; i++) if (this.run[i] < this.run[weakest]) weakest = i;
      if (this.run[weakest] > ANCHOR) return;
      for (let i = weakest + 1; i < this.count; i++) this.moveCandidate(i, i - 1);
      this.count--;
    }
    const phrase = d < PHRASE_MAX_CHARS && this.isPhrase(p - d + 1, p + 1);
    const lead = phrase && d < SHORT_PHRASE_CHARS ? this.leadToWord(p - ANCHOR - d + 1, d) : 0;
    const i = this.count++;
    this.period[i] = d;
    this.run[i] = ANCHOR;
    this.quietRun[i] = this.leastSpan(d, phrase, lead) - d;
    this.done[i] = 0;
    this.phrase[i] = phrase ? 1 : 0;
    this.lead[i] = lead;
  }

  /**
   * Whether the unit [from, to) holds two words or more: word starts counted cyclically (the unit
   * repeats, so "alue v" of "value value" is one word). O(period), once per candidate.
   */
  private isPhrase(from: number, to: number): boolean {
    const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c >= 0xc0;
    let words = 0, letters = 0, prev = isLetter(this.charAt(to - 1));
    for (let q = from; q < to; q++) {
      const letter = isLetter(this.charAt(q));
      if (letter) { letters++; if (!prev) words++; }
      prev = letter;
    }
    return words >= 2 && letters >= 4;
  }

  /** Characters from `from` to the first word start (a letter or digit after a space or the start), at most `max`. */
  private leadToWord(from: number, max: number): number {
    for (let k = 0; k < max; k++) {
      const q = from + k;
      const c = this.charAt(q);
      const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c >= 0xc0;
      if (alnum && (q === 0 || this.charAt(q - 1) === 32)) return k;
    }
    return 0;
  }

  /** A character of the line's head: its first visible one tells a table row and indented code. */
  private readHead(code: number): void {
    if (this.headBlank && code !== 32 && code !== 9) {
      this.inTable = code === 124 /* | */ || code === 43 /* + */ || (code >= 0x2500 && code <= 0x259f);
      // code drafted without a fence is indented: a repeated statement there is not counted as a chanted phrase
      this.inCode = this.headLength >= 4 || this.headTab;
    }
    this.head[this.headLength++] = code;
    if (!isSpaceCode(code)) this.headBlank = false;
    if (code === 9) this.headTab = true;
  }

  /** The newline at p ends the line: a fence line (``` or ~~~ after blanks) toggles the fence. */
  private endLine(p: number): void {
    if (!(this.inTable && !this.headBlank)) this.lastOtherLine = p;
    let q = 0;
    while (q < this.headLength && isSpaceCode(this.head[q])) q++;
    const mark = this.head[q];
    if (q + 3 <= this.headLength && (mark === 96 /* ` */ || mark === 126 /* ~ */) && this.head[q + 1] === mark && this.head[q + 2] === mark) {
      this.inFence = !this.inFence;
      this.lastFenceLine = p;
    }
    this.headLength = 0;
    this.headBlank = true;
    this.headTab = false;
  }
}

/**
 * Chunk start positions of one channel, to name the events a span covers. Bounded by forgetBefore.
 * Typed arrays compacted in place and kept across requests: a chunk costs no allocation.
 */
export class ChunkIndex {
  private starts = new Float64Array(1024);
  private events = new Float64Array(1024);
  private head = 0;
  private count = 0;

  add(position: number, event: number): void {
    if (this.count === this.starts.length) {
      const starts = new Float64Array(this.count * 2), events = new Float64Array(this.count * 2);
      starts.set(this.starts);
      events.set(this.events);
      this.starts = starts;
      this.events = events;
    }
    this.starts[this.count] = position;
    this.events[this.count] = event;
    this.count++;
  }

  /** Events overlapping [from, to], at most MAX_EVIDENCE_EVENTS (the first ones, and the last). */
  between(from: number, to: number): number[] {
    const out: number[] = [];
    for (let i = this.head; i < this.count; i++) {
      const end = i + 1 < this.count ? this.starts[i + 1] - 1 : Infinity;
      if (end < from || this.starts[i] > to) continue;
      out.push(this.events[i]);
    }
    return out.length <= MAX_EVIDENCE_EVENTS ? out : [...out.slice(0, MAX_EVIDENCE_EVENTS - 1), out[out.length - 1]];
  }

  /** Forgets chunks that end before this position; compacts now and then (amortised O(1)). */
  forgetBefore(position: number): void {
    while (this.head + 1 < this.count && this.starts[this.head + 1] <= position) this.head++;
    if (this.head > 1024 && this.head * 2 > this.count) {
      this.starts.copyWithin(0, this.head, this.count);
      this.events.copyWithin(0, this.head, this.count);
      this.count -= this.head;
      this.head = 0;
    }
  }

  /** Forgets every chunk (a new request), keeping the arrays. */
  clear(): void {
    this.head = 0;
    this.count = 0;
  }
}

export function channelName(c: StreamChannel): string { return c === "reasoning" ? "thinking" : "response"; }

class StreamRepeatDetector implements Detector {
  readonly id = "stream-repeat" as const;
  private trackers = new Map<StreamChannel, { tracker: RepeatTracker; chunks: ChunkIndex }>();
  private readonly params: RepeatParams;
  private counter = new CatchCounter();
  private lastCatch = "";

  constructor(settings: DetectorSettings) { this.params = repeatParams(settings); }

  onRequestStart(): void {
    for (const t of this.trackers.values()) { t.tracker.clear(); t.chunks.clear(); }
    this.counter.newRequest();
  }

  onStream(ev: StreamEvent, ctx: DetectorContext): Finding[] | void {
    if (ev.delta.length === 0) return;
    let t = this.trackers.get(ev.t);
    if (!t) { t = { tracker: new RepeatTracker(ev.t, this.params), chunks: new ChunkIndex() }; this.trackers.set(ev.t, t); }
    t.chunks.add(t.tracker.length, ctx.index);
    const hits = t.tracker.push(ev.delta);
    t.chunks.forgetBefore(t.tracker.length - EVIDENCE_WINDOW_PERIODS * this.params.maxPeriod);
    if (hits.length === 0) return;
    const out: Finding[] = [];
    for (const h of hits) {
      const r = leastRotation(h.unit);
      const rotated = h.unit.slice(r) + h.unit.slice(0, r);
      const key = `${this.id}:${h.channel}:${textKey(rotated)}`;
      const count = this.counter.catch(key, h.channel);
      if (count === undefined) continue;
      const span = excerpt(h.unit, 160);
      this.lastCatch = `${channelName(h.channel)}: ${h.period}-char block ×${h.copies}`;
      out.push({
        detector: this.id,
        key,
        count,
        summary: `your ${channelName(h.channel)} repeats the same ${h.period}-character passage ${h.copies} times in a row ("${span}")`,
        suggestion: "Say it once, then move on: take the next concrete step (a tool call, a change, or the final answer) instead of restating it.",
        evidence: { events: t.chunks.between(h.spanStart, h.position), count: h.copies, span },
      });
    }
    return out;
  }

  reset(): void {
    this.trackers.clear();
    this.counter.reset();
    this.lastCatch = "";
  }

  status(): DetectorStatus {
    let best = { progress: 0, period: 0, channel: "" };
    for (const [channel, t] of this.trackers) {
      const s = t.tracker.strongest();
      if (s.progress > best.progress) best = { ...s, channel: channelName(channel) };
    }
    const detail = best.period ? `${best.channel}: ${best.period}-char block ${Math.round(best.progress * 100)}%` : this.lastCatch;
    return { id: this.id, enabled: true, progress: best.progress, detail };
  }
}

export const streamRepeat: DetectorDefinition = {
  id: "stream-repeat",
  title: "Repeated passage in the stream",
  description: "The same block of thinking or response text (a phrase of two words up to 4000 characters) emitted again and again back to back.",
  channel: "stream",
  defaults: STREAM_REPEAT_DEFAULTS,
  create: (settings) => new StreamRepeatDetector(settings),
  shortTitle: "Repeated passage",
  strength: STREAM_STRENGTH,
  parameters: {
    minPeriod: {
      description: "Shortest repeated block counted as itself, in characters; shorter ones (a word, `the the`) are judged as if this long, so they need more copies. Example: `16` (the default).",
      tuning: true,
    },
    maxPeriod: {
      description: "Longest repeated block looked for, in characters (memory grows with it). Example: `4000` (the default) catches a whole analysis written twice in a row.",
      tuning: true,
    },
    minSpanChars: {
      description: "Characters the copies must cover together (copies × block length) before they count. Example: `160` (the default): a 20-character token without spaces needs 8 copies in a row.",
      tuning: true,
    },
    minCopies: {
      description: "Fewest copies in a row ever asked for, however long the block. Example: `2` (the default): a long paragraph written twice in a row is caught.",
      tuning: true,
    },
    shortUnitChars: {
      description: "Blocks shorter than this many characters need at least 3 copies (a sentence said twice is often a host logging a message twice). Example: `300` (the default).",
      tuning: true,
    },
    maxCopies: {
      description: "Most copies ever asked for, however short the block. Example: `10` (the default): one word written 10 times in a row is caught.",
      tuning: true,
    },
    codeSpanFactor: {
      description: "Inside fenced code and table rows, the span needed (*Min Span Chars*) is this many times longer: repetitive code and tables are normal. Example: `4` (the default): 640 characters instead of 160.",
      tuning: true,
    },
    fencedBlockCopies: {
      description: "Copies in a row of a block that holds a whole fenced code block (a diff shown again and again) that count. Example: `3` (the default).",
      tuning: true,
    },
  },
};
