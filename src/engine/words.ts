/**
 * Words of the stream: how text is cut into words (wordsOf, countWords and a by-hand scanner that
 * gives the same words as integer ids with no string per word), the word table that compares units
 * by word sets and shingles, and the content tokens the progress measure counts. Kept apart from
 * the line and sentence splitting of streamText: words are one concern, lines another.
 */
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

/**
 * wordsOf(text, max).length, counted by character class with no string made (wordsOf's regex only
 * for text holding a character charClass leaves to it).
 */
export function countWords(text: string, max: number): number {
  // (a cap that is not a whole number cuts wordsOf's list by its own rules)
  if (!(max === Infinity || (Number.isInteger(max) && max >= 0))) return wordsOf(text, max).length;
  const end = Number.isFinite(max) && text.length > max * CHARS_PER_WORD ? max * CHARS_PER_WORD : text.length;
  let n = 0;
  let i = 0;
  while (i < end && n < max) {
    const first = charClass(text.charCodeAt(i));
    if (first < 0) return wordsOf(text, max).length;
    i++;
    if (first < WORD_CHAR) continue;
    n++;
    // the rest of the word: word characters, and joiners between two of them
    while (i < end) {
      const k = charClass(text.charCodeAt(i));
      if (k < 0) return wordsOf(text, max).length;
      if (k >= WORD_CHAR) { i++; continue; }
      if (k !== JOINER || i + 1 >= end) break;
      const next = charClass(text.charCodeAt(i + 1));
      if (next < 0) return wordsOf(text, max).length;
      if (next < WORD_CHAR) break;
      i += 2;
    }
  }
  return n;
}

/** What each ASCII character is to ASCII_WORD: nothing, a joiner of word characters ('.-), a word character, an uppercase one. */
const OTHER_CHAR = 0, JOINER = 1, WORD_CHAR = 2, UPPER_CHAR = 3;
const ASCII_CLASS = new Uint8Array(128).map((_, c) => (c >= 65 && c <= 90 ? UPPER_CHAR : (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 ? WORD_CHAR : c === 39 || c === 46 || c === 45 ? JOINER : OTHER_CHAR));

/**
 * Whether no word (as wordsOf reads words) of the ASCII text runs across index at, so the words of
 * text.slice(at) are the words of text that start at or after at. A word covers at - 1 and at when
 * both are word characters, or one is a joiner ('.-) between word characters. false for non-ASCII
 * text around at (undecided).
 */
export function wordBreakAt(text: string, at: number): boolean {
  if (at <= 0 || at >= text.length) return true;
  const before = asciiClassAt(text, at - 1), here = asciiClassAt(text, at);
  if (before < 0 || here < 0) return false;
  if (before >= WORD_CHAR && here >= WORD_CHAR) return false;
  if (before >= WORD_CHAR && here === JOINER) { const next = asciiClassAt(text, at + 1); return next >= 0 && next < WORD_CHAR; }
  if (before === JOINER && here >= WORD_CHAR) { const prev = asciiClassAt(text, at - 2); return prev >= 0 && prev < WORD_CHAR; }
  return true;
}

/**
 * idsOf(text.slice(cut), max) from ids[from, to), the ids scanWords read for all of text (at least
 * all of the max words after cut) with their starts in starts (offset by offset); undefined when
 * these cannot tell it exactly (a word runs across cut, or idsOf would cut text short).
 */
export function idsFrom(text: string, cut: number, max: number, ids: readonly number[], starts: readonly number[], from: number, to: number, offset: number): number[] | undefined {
  if (!wordBreakAt(text, cut) || (Number.isFinite(max) && text.length - cut > max * CHARS_PER_WORD)) return undefined;
  let j = from;
  while (j < to && starts[j] < cut + offset) j++;
  return ids.slice(j, Math.min(to, j + max));
}

/** charClass of text[i] (OTHER_CHAR outside the text). */
function asciiClassAt(text: string, i: number): number {
  if (i < 0 || i >= text.length) return OTHER_CHAR;
  return charClass(text.charCodeAt(i));
}

/**
 * What each UTF-16 code unit is to WORD, read as wordsOf reads it (lowercased first): its class
 * (as ASCII_CLASS: UPPER_CHAR for a word character that lowercasing changes) plus one, 0 while not
 * yet worked out, UNREADABLE for one whose lowercasing is not one code unit of its own
 * ("İ" -> "i̇", "Σ" -> "σ" or "ς" by what follows, halves of astral characters): text with such a
 * character is left to the regex. Elsewhere toLowerCase maps each code unit by itself, so a word
 * read from the text and lowercased unit by unit is the word wordsOf reads. Filled in as
 * characters are first met (most never are).
 */
let unicodeClasses: Uint8Array | undefined;
/** Per code unit whose class is known and not UNREADABLE, its lowercase. */
let unicodeLower: Uint16Array | undefined;
const UNREADABLE = 255;
const WORD_CHARACTER = /^[\p{L}\p{N}_]$/u;

/** The class of a code unit (ASCII_CLASS for ASCII), -1 if the regex must read its text. */
function charClass(c: number): number {
  if (c < 0x80) return ASCII_CLASS[c];
  const classes = (unicodeClasses ??= new Uint8Array(0x10000));
  let k = classes[c];
  if (k === 0) classes[c] = k = classifyUnicode(c);
  return k === UNREADABLE ? -1 : k - 1;
}

/** The lowercase of a code unit whose charClass is 0 or more. */
function lowerCode(c: number): number {
  return c < 0x80 ? (c >= 65 && c <= 90 ? c + 32 : c) : unicodeLower![c];
}

function classifyUnicode(c: number): number {
  // a surrogate is half of a character; Σ lowercases by its context
  if ((c >= 0xd800 && c <= 0xdfff) || c === 0x3a3) return UNREADABLE;
  const lower = String.fromCharCode(c).toLowerCase();
  if (lower.length !== 1) return UNREADABLE;
  const l = lower.charCodeAt(0);
  (unicodeLower ??= new Uint16Array(0x10000))[c] = l;
  // (a joiner is read as itself: the one there is, ’, is its own lowercase)
  const k = WORD_CHARACTER.test(lower) ? (l !== c ? UPPER_CHAR : WORD_CHAR) : "'’.-".includes(lower) ? (l === c ? JOINER : UNREADABLE - 1) : OTHER_CHAR;
  return k + 1;
}

/**
 * At most the fewest elements two sets of these sizes (not both empty) must have in common for their
 * Jaccard, common / (a + b - common) as computed, to reach atLeast. In exact arithmetic the fewest is
 * the ceiling of atLeast·(a + b) / (1 + atLeast); one below that quotient's floor leaves room for any
 * rounding, in it or in the Jaccard's own division. The computed Jaccard rises with common (a larger
 * numerator over a smaller denominator, each rounding kept in order), so any count below this gives
 * a value below atLeast.
 */
function leastInCommon(a: number, b: number, atLeast: number): number {
  return Math.floor((atLeast * (a + b)) / (1 + atLeast)) - 1;
}

/** Marks each of ids with stamp: how many distinct ones there are. */
function markDistinct(ids: readonly number[], marks: Int32Array, stamp: number): number {
  let n = 0;
  for (let k = 0; k < ids.length; k++) if (marks[ids[k]] !== stamp) { marks[ids[k]] = stamp; n++; }
  return n;
}

/** A value below atLeast, for a similarity known to be below it (atLeast > 0 whenever a count stops early). */
const below = (atLeast: number): number => atLeast - 1;

/** Distinct 32-bit values by open addressing, emptied in O(1) by a new stamp: the shingle sets of the units compared. */
export class StampedSet {
  private values = new Uint32Array(256);
  private marks = new Int32Array(256);
  private stamp = 0;
  size = 0;

  /** Empties the set, with room for count values. */
  clear(count: number): void {
    let room = this.values.length;
    if (room < 2 * count) {
      while (room < 2 * count) room *= 2;
      this.values = new Uint32Array(room);
      this.marks = new Int32Array(room);
      this.stamp = 0;
    }
    if (this.stamp >= 0x7fffffff) { this.marks.fill(0); this.stamp = 0; }
    this.stamp++;
    this.size = 0;
  }

  /** Adds the value: whether it was not there yet. */
  add(v: number): boolean {
    const values = this.values, marks = this.marks, stamp = this.stamp, mask = values.length - 1;
    let slot = (v ^ (v >>> 16)) & mask;
    while (marks[slot] === stamp) {
      if (values[slot] === v) return false;
      slot = (slot + 1) & mask;
    }
    marks[slot] = stamp;
    values[slot] = v;
    this.size++;
    return true;
  }

  has(v: number): boolean {
    const values = this.values, marks = this.marks, stamp = this.stamp, mask = values.length - 1;
    for (let slot = (v ^ (v >>> 16)) & mask; marks[slot] === stamp; slot = (slot + 1) & mask) if (values[slot] === v) return true;
    return false;
  }
}

/** sameLowered for text whose characters all have a charClass (lowercased by lowerCode). */
function sameLoweredText(word: string, src: string, start: number, length: number): boolean {
  if (word.length !== length) return false;
  for (let k = 0; k < length; k++) if (lowerCode(src.charCodeAt(start + k)) !== word.charCodeAt(k)) return false;
  return true;
}

/** Whether word is bytes[start, start + length) (ASCII) with A-Z lowercased. */
function sameLoweredBytes(word: string, bytes: Uint8Array, start: number, length: number): boolean {
  if (word.length !== length) return false;
  for (let k = 0; k < length; k++) {
    let c = bytes[start + k];
    if (c >= 65 && c <= 90) c += 32;
    if (c !== word.charCodeAt(k)) return false;
  }
  return true;
}

const UTF8 = new TextEncoder();

/** A word's kind not asked for yet (kindOf is called the first time setJaccard keeps to a kind). */
const KIND_UNKNOWN = 255;

/**
 * The size WordTable's arrays start at: small, so that their growth (and with it every path the
 * scan reaches when a word is new) runs in the first sentences, before the scan is compiled: a
 * path first taken after that throws the compiled code away.
 */
const FIRST_IDS = 16;

/** An empty array of strings, of the kind a filled one is (a literal [] holds small integers first, and changes kind at its first string). */
function noStrings(): string[] {
  const words = [""];
  words.pop();
  return words;
}

/**
 * Distinct words as integer ids, read straight from the text: the ids of what wordsOf gives, with
 * no string per word (only a word not seen before is cut out). Word sets become marks in arrays
 * instead of Sets of strings. Exact: one id per distinct word for as long as the ids are used.
 * Memory grows with the distinct words read; restart() keeps only those still in use.
 */
export class WordTable {
  // (every table's words array of one kind: a table whose array changed kind at its first word
  // would stop the scan compiled for the others)
  private words: string[] = noStrings();
  /** Per id: the word's wordHash, its kind (kindOf; KIND_UNKNOWN until asked for), and marks of the sets being compared. */
  private hashes = new Uint32Array(FIRST_IDS);
  private kinds = new Uint8Array(FIRST_IDS);
  private inA = new Int32Array(FIRST_IDS);
  private inB = new Int32Array(FIRST_IDS);
  private stamp = 0;
  /** Open addressing by word hash: an id, or -1. */
  private slots = new Int32Array(2 * FIRST_IDS).fill(-1);
  private scratch: number[] = [];
  private startScratch: number[] = [];
  /** The text being scanned, as UTF-8 (grown, like the id arrays, in the first sentences). */
  private bytes = new Uint8Array(4 * FIRST_IDS);
  /** Where distinct shingles are gathered before the list of them is cut out at its size (one allocation, no growing). */
  private distinctShingleList: number[] = [];
  /** Hashes of a unit's words in order, and of their n-grams, for shingles(). */
  private hashScratch = new Uint32Array(64);
  private shingleScratch = new Uint32Array(64);
  private sizeAfterRestart = 0;
  /**
   * One unit's distinct words (marks in held) and distinct shingles (an open-addressing set), kept
   * while that unit is compared with several others: each comparison then reads only the other side.
   */
  private held = new Int32Array(FIRST_IDS);
  private heldStamp = 0;
  private heldWordCount = 0;
  /** Per n, the held unit's n-gram shingles. */
  private heldShingles: StampedSet[] = [];
  /** Where distinctShingles drops repeats. */
  private scratchSet = new StampedSet();
  /** commonOrderLength's per id of its first run: which of its masks is the id's (valid where inA holds the call's stamp). */
  private orderSlot = new Int32Array(FIRST_IDS);
  /** commonOrderLength's masks (per distinct word of its first run, where it stands there, a bit a word) and its row of bits. */
  private orderMasks = new Uint32Array(256);
  private orderBits = new Uint32Array(8);

  /**
   * kindOf sorts words once, the first time setJaccard keeps to a kind (never when a word is read:
   * the tables of other detectors, with kindOf functions of their own, share the compiled scan).
   */
  constructor(private readonly kindOf: (word: string) => number = () => 0) {}

  get size(): number { return this.words.length; }

  /** How many times the table restarted: ids read before a restart that were not renumbered by it mean nothing after. */
  restarts = 0;

  word(id: number): string { return this.words[id]; }

  /** Whether the table holds more than limit words, and over twice what it kept at its last restart (else a restart would not free much). */
  crowded(limit: number): boolean {
    // (both bounds read every time: a read first made once the table is large would stop the compiled caller)
    return this.words.length > Math.max(limit, 2 * this.sizeAfterRestart);
  }

  /** The ids of wordsOf(text, max). */
  idsOf(text: string, max: number): number[] {
    if (max === Infinity || (Number.isInteger(max) && max >= 0)) {
      const n = this.scan(text, 0, Number.isFinite(max) && text.length > max * CHARS_PER_WORD ? max * CHARS_PER_WORD : text.length, max, this.scratch, this.startScratch, 0, 0);
      if (n >= 0) return this.scratch.slice(0, n);
    }
    // text with characters the scan cannot lowercase alone (and odd caps) take wordsOf itself
    const words = wordsOf(text, max);
    const ids: number[] = new Array<number>(words.length);
    for (let k = 0; k < words.length; k++) ids[k] = this.idOfWord(words[k], hash32(words[k]));
    return ids;
  }

  /**
   * The ids of the words of text[from, end), as idsOf(text.slice(from, end), max) would give them,
   * appended to ids from index at, with where each starts (its index in text plus offset) in starts:
   * the new length of both (at + how many), or -1 once a character the scan cannot read is met (see
   * charClass; ids and starts hold something then: not to be used). A sentence read this way lends
   * its words to the line it sits in.
   */
  scanWords(text: string, from: number, end: number, offset: number, ids: number[], starts: number[], at: number, max: number): number {
    const n = this.scan(text, from, end, max, ids, starts, at, offset);
    return n < 0 ? -1 : at + n;
  }

  /**
   * WORD's matches in text[from, end) lowercased, by hand, as ids into ids[at...] (their starts
   * plus offset into starts[at...]): how many (at most max), or -1 once a character charClass
   * cannot read is met (then the regex decides). Stopping at max is exact even if such a character
   * follows: lowercasing it changes nothing before it.
   */
  private scan(text: string, from: number, end: number, max: number, ids: number[], starts: number[], at: number, offset: number): number {
    // the characters copied once into bytes as UTF-8: a typed array reads far faster than
    // charCodeAt, and ASCII text (most text) stays one byte a character; other text is read by code unit
    const length = end - from;
    if (this.bytes.length < 3 * length) this.bytes = new Uint8Array(Math.max(3 * length, 2 * this.bytes.length));
    const { written } = UTF8.encodeInto(from === 0 && end === text.length ? text : text.slice(from, end), this.bytes);
    return written === length ? this.scanAscii(text, from, length, max, ids, starts, at, offset) : this.scanUnicode(text, from, end, max, ids, starts, at, offset);
  }

  /**
   * scan of ASCII text, held in bytes[0, length) (as text[from, from + length)). Every byte is below
   * 0x80 (its UTF-8 is one byte a character): none is looked at for being past ASCII.
   */
  private scanAscii(text: string, from: number, length: number, max: number, ids: number[], starts: number[], at: number, offset: number): number {
    const bytes = this.bytes;
    let n = 0;
    let i = 0;
    while (i < length && n < max) {
      if (ASCII_CLASS[bytes[i]] < WORD_CHAR) { i++; continue; }
      const start = i;
      let h = 0x811c9dc5, upper = false;
      for (;;) {
        let k = 0;
        while (i < length) {
          const d = bytes[i];
          k = ASCII_CLASS[d];
          if (k < WORD_CHAR) break;
          if (k === UPPER_CHAR) { upper = true; h = Math.imul(h ^ (d + 32), 0x01000193); } else h = Math.imul(h ^ d, 0x01000193);
          i++;
        }
        // ' . - join two runs of word characters into one word
        if (k !== JOINER || i + 1 >= length) break;
        if (ASCII_CLASS[bytes[i + 1]] < WORD_CHAR) break;
        h = Math.imul(h ^ bytes[i], 0x01000193);
        i++;
      }
      starts[at + n] = from + start + offset;
      ids[at + n++] = this.idOfBytes(text, from, start, i - start, h >>> 0, upper);
    }
    return n;
  }

  /** scan of text that is not all ASCII, code unit by code unit (as scanAscii reads bytes). */
  private scanUnicode(text: string, from: number, end: number, max: number, ids: number[], starts: number[], at: number, offset: number): number {
    let n = 0;
    let i = from;
    while (i < end && n < max) {
      const first = charClass(text.charCodeAt(i));
      if (first < 0) return -1;
      if (first < WORD_CHAR) { i++; continue; }
      const start = i;
      // the word's hash is hash32 of its lowercase, as wordsOf's words are hashed
      let h = 0x811c9dc5, upper = false;
      for (;;) {
        let k = 0;
        while (i < end) {
          const d = text.charCodeAt(i);
          k = charClass(d);
          if (k < 0) return -1;
          if (k < WORD_CHAR) break;
          if (k === UPPER_CHAR) { upper = true; h = Math.imul(h ^ lowerCode(d), 0x01000193); } else h = Math.imul(h ^ d, 0x01000193);
          i++;
        }
        // ' ’ . - join two runs of word characters into one word
        if (k !== JOINER || i + 1 >= end) break;
        const next = charClass(text.charCodeAt(i + 1));
        if (next < 0) return -1;
        if (next < WORD_CHAR) break;
        h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
        i++;
      }
      starts[at + n] = start + offset;
      ids[at + n++] = this.idOfText(text, start, i - start, h >>> 0, upper);
    }
    return n;
  }

  /** idOf for a word of text whose characters all have a charClass (lowercased by lowerCode). */
  private idOfText(text: string, start: number, length: number, hash: number, upper: boolean): number {
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    for (let id = this.slots[slot]; id >= 0; id = this.slots[slot]) {
      if (this.hashes[id] === hash && sameLoweredText(this.words[id], text, start, length)) return id;
      slot = (slot + 1) & mask;
    }
    // toLowerCase maps each of these characters by itself (charClass), as lowerCode did
    return this.addCut(text, start, length, hash, slot, upper);
  }

  /** idOf for the word at bytes[start, start + length), which is text[from + start, ...): compared in the bytes, cut from the text if new. */
  private idOfBytes(text: string, from: number, start: number, length: number, hash: number, upper: boolean): number {
    const mask = this.slots.length - 1, bytes = this.bytes;
    let slot = hash & mask;
    for (let id = this.slots[slot]; id >= 0; id = this.slots[slot]) {
      if (this.hashes[id] === hash && sameLoweredBytes(this.words[id], bytes, start, length)) return id;
      slot = (slot + 1) & mask;
    }
    return this.addCut(text, from + start, length, hash, slot, upper);
  }

  /** The id of a word already lowercased (a wordsOf word, or the table's own at a restart), whose wordHash is hash; a new id if it is new. */
  private idOfWord(word: string, hash: number): number {
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    for (let id = this.slots[slot]; id >= 0; id = this.slots[slot]) {
      if (this.hashes[id] === hash && this.words[id] === word) return id;
      slot = (slot + 1) & mask;
    }
    return this.addCut(word, 0, word.length, hash, slot, false);
  }

  /** Adds text[start, start + length), lowercased if upper, as a new word at slot (where its probe ended). */
  private addCut(text: string, start: number, length: number, hash: number, slot: number, upper: boolean): number {
    const word = start === 0 && length === text.length ? text : text.slice(start, start + length);
    // a longer slice would keep the whole text it was cut from alive as long as the table holds it
    return this.add(upper ? word.toLowerCase() : word.length >= 13 ? (" " + word).slice(1) : word, hash, slot);
  }

  private add(word: string, hash: number, slot: number): number {
    const id = this.words.length;
    if (id >= this.hashes.length) this.growIds();
    this.words.push(word);
    this.hashes[id] = hash;
    this.kinds[id] = KIND_UNKNOWN;
    this.slots[slot] = id;
    // at most half full, so probes stay short
    if (this.words.length * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    return id;
  }

  /**
   * shingles(words, n) of the words with these ids, sorted, without repeats (for sortedJaccard).
   * A plain array: a typed one this size would be allocated outside the heap, which costs more.
   */
  shingles(ids: readonly number[], n: number): number[] {
    const count = this.ngramHashes(ids, n);
    const sorted = this.shingleScratch.subarray(0, count);
    sorted.sort();
    const out: number[] = [];
    for (let i = 0; i < count; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) out.push(sorted[i]);
    return out;
  }

  /** The n-gram hashes of the words with these ids, in order and with repeats, into shingleScratch: how many. */
  private ngramHashes(ids: readonly number[], n: number): number {
    const take = Math.min(n, ids.length);
    const count = take === 0 ? 0 : take < n ? 1 : ids.length - take + 1;
    if (this.shingleScratch.length < count) this.shingleScratch = new Uint32Array(Math.max(count, this.shingleScratch.length * 2));
    const words = this.hashes, out = this.shingleScratch;
    if (take === 3) {
      // ngramHash of three words, unrolled, each word's hash read once
      let a = words[ids[0]], b = words[ids[1]];
      for (let i = 0; i < count; i++) {
        const c = words[ids[i + 2]];
        let h = 0x9e3779b9;
        h = Math.imul(h ^ a, 0x85ebca6b) ^ (h >>> 13);
        h = Math.imul(h ^ b, 0x85ebca6b) ^ (h >>> 13);
        h = Math.imul(h ^ c, 0x85ebca6b) ^ (h >>> 13);
        out[i] = h >>> 0;
        a = b;
        b = c;
      }
      return count;
    }
    if (this.hashScratch.length < ids.length) this.hashScratch = new Uint32Array(Math.max(ids.length, this.hashScratch.length * 2));
    const hashes = this.hashScratch;
    for (let k = 0; k < ids.length; k++) hashes[k] = words[ids[k]];
    for (let i = 0; i < count; i++) out[i] = ngramHash(hashes, i, take);
    return count;
  }

  /** The first count values of shingleScratch without repeats, in first-seen order, gathered in set (emptied first). */
  private distinctScratch(count: number, set: StampedSet): number[] {
    set.clear(count);
    const scratch = this.shingleScratch, out = this.distinctShingleList;
    let n = 0;
    for (let i = 0; i < count; i++) if (set.add(scratch[i])) out[n++] = scratch[i];
    return out.slice(0, n);
  }

  /** The set shingles() gives, in first-seen order instead of sorted (for jaccardWithHeldShingles). */
  distinctShingles(ids: readonly number[], n: number): number[] {
    return this.distinctScratch(this.ngramHashes(ids, n), this.scratchSet);
  }

  /** distinctShingles, also held for jaccardWithHeldShingles (until the next call with this n): the unit compared with several others. */
  holdShingles(ids: readonly number[], n: number): number[] {
    return this.distinctScratch(this.ngramHashes(ids, n), (this.heldShingles[n] ??= new StampedSet()));
  }

  /**
   * sortedJaccard of these distinct n-gram shingles (in any order) and the held ones, when it is atLeast or
   * more; else some value below atLeast (the count stops once too few can be in common).
   */
  jaccardWithHeldShingles(shingles: readonly number[], n: number, atLeast: number): number {
    const held = this.heldShingles[n];
    if (shingles.length === 0 && held.size === 0) return 1;
    let misses = shingles.length - leastInCommon(shingles.length, held.size, atLeast);
    if (misses < 0) return below(atLeast);
    let common = 0;
    for (let k = 0; k < shingles.length; k++) {
      if (held.has(shingles[k])) common++;
      else if (--misses < 0) return below(atLeast);
    }
    return common / (shingles.length + held.size - common);
  }

  /** How many distinct ids ids holds. */
  distinctCount(ids: readonly number[]): number {
    return markDistinct(ids, this.inA, this.nextStamp());
  }

  /** distinctCount, the ids also held (one unit's word set) for jaccardWithHeldWords, until the next call. */
  holdWords(ids: readonly number[]): number {
    if (this.heldStamp >= 0x7fffffff) { this.held.fill(0); this.heldStamp = 0; }
    return (this.heldWordCount = markDistinct(ids, this.held, ++this.heldStamp));
  }

  /**
   * setJaccard of all of two units' words, the one given as its ids and how many distinct ones they
   * are, the other held (the same value), when it is atLeast or more; else some value below atLeast.
   */
  jaccardWithHeldWords(ids: readonly number[], distinct: number, atLeast: number): number {
    const stamp = this.heldStamp, held = this.held, heldCount = this.heldWordCount;
    if (distinct + heldCount === 0) return 1;
    let misses = distinct - leastInCommon(distinct, heldCount, atLeast);
    if (misses < 0) return below(atLeast);
    // each distinct id once: repeats are marked in inA
    const seen = this.nextStamp(), inA = this.inA;
    let common = 0;
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k];
      if (inA[id] === seen) continue;
      inA[id] = seen;
      if (held[id] === stamp) common++;
      else if (--misses < 0) return below(atLeast);
    }
    return common / (distinct + heldCount - common);
  }

  /**
   * Jaccard of the word sets of a[aFrom, aTo) and b[bFrom, bTo) (of the words of kind only, if
   * given): the value of a Set of each side's words (union 0 is 1).
   */
  setJaccard(a: readonly number[], aFrom: number, aTo: number, b: readonly number[], bFrom: number, bTo: number, kind?: number): number {
    const stamp = this.nextStamp();
    const inA = this.inA, inB = this.inB, kinds = this.kinds;
    let sizeA = 0;
    for (let k = aFrom; k < aTo; k++) {
      const id = a[k];
      if (inA[id] === stamp || (kind !== undefined && (kinds[id] === KIND_UNKNOWN ? this.sortWord(id) : kinds[id]) !== kind)) continue;
      inA[id] = stamp;
      sizeA++;
    }
    let sizeB = 0, common = 0;
    for (let k = bFrom; k < bTo; k++) {
      const id = b[k];
      if (inB[id] === stamp || (kind !== undefined && (kinds[id] === KIND_UNKNOWN ? this.sortWord(id) : kinds[id]) !== kind)) continue;
      inB[id] = stamp;
      sizeB++;
      if (inA[id] === stamp) common++;
    }
    const union = sizeA + sizeB - common;
    return union === 0 ? 1 : common / union;
  }

  /**
   * Length of the longest common subsequence of two id runs, computed bit-parallel (Allison and
   * Dix): a bit per word of a, 32 to a limb, so each word of b costs a few operations per limb
   * instead of a row of the table.
   */
  commonOrderLength(a: readonly number[], b: readonly number[]): number {
    const limbs = (a.length + 31) >>> 5;
    if (this.orderMasks.length < a.length * limbs) this.orderMasks = new Uint32Array(a.length * limbs);
    if (this.orderBits.length < limbs) this.orderBits = new Uint32Array(limbs);
    const stamp = this.nextStamp(), inA = this.inA, slotOf = this.orderSlot, masks = this.orderMasks, bits = this.orderBits;
    // per distinct word of a, the positions it holds in a
    let distinct = 0;
    for (let i = 0; i < a.length; i++) {
      const id = a[i];
      if (inA[id] !== stamp) {
        inA[id] = stamp;
        slotOf[id] = distinct;
        masks.fill(0, distinct * limbs, ++distinct * limbs);
      }
      masks[slotOf[id] * limbs + (i >>> 5)] |= 1 << (i & 31);
    }
    // a 1 for each position of a the common run has not taken yet; the bits past a's end stay 1
    bits.fill(0xffffffff, 0, limbs);
    for (let j = 0; j < b.length; j++) {
      const id = b[j];
      // a word a does not hold changes nothing
      if (inA[id] !== stamp) continue;
      const mask = slotOf[id] * limbs;
      let carry = 0;
      for (let k = 0; k < limbs; k++) {
        // bits = (bits + matched) | (bits - matched), matched = bits & mask; the subtraction borrows nothing
        const v = bits[k], matched = (v & masks[mask + k]) >>> 0;
        const sum = v + matched + carry;
        carry = sum > 0xffffffff ? 1 : 0;
        bits[k] = (sum >>> 0) | (v & ~matched);
      }
    }
    let taken = limbs * 32;
    for (let k = 0; k < limbs; k++) taken -= bitCount(bits[k]);
    return taken;
  }

  /** Starts afresh with only the words of these id arrays, which are given their new ids in place. */
  restart(live: Iterable<number[]>): void {
    this.restarts++;
    // the arrays keep their size (the table soon grows back to it): the words and slots are started
    // over, the old words and hashes read from copies; marks need no clearing, every set takes a new
    // stamp (the words' array is emptied, not made anew: a new one starts as an array of another
    // kind, and the scan compiled for this one would stop at its first word)
    const words = this.words.slice(), hashes = this.hashes.slice(0, words.length);
    this.words.length = 0;
    this.heldWordCount = 0;
    this.slots.fill(-1);
    for (const ids of live) for (let k = 0; k < ids.length; k++) ids[k] = this.idOfWord(words[ids[k]], hashes[ids[k]]);
    this.sizeAfterRestart = this.words.length;
  }

  /** The word's kind (kindOf), kept for the next time. */
  private sortWord(id: number): number {
    return (this.kinds[id] = this.kindOf(this.words[id]));
  }

  /** A mark no id carries yet. */
  private nextStamp(): number {
    if (this.stamp >= 0x7fffffff) { this.inA.fill(0); this.inB.fill(0); this.stamp = 0; }
    return ++this.stamp;
  }

  private growIds(): void {
    const size = this.hashes.length * 2;
    const hashes = new Uint32Array(size), kinds = new Uint8Array(size), inA = new Int32Array(size), inB = new Int32Array(size), held = new Int32Array(size);
    hashes.set(this.hashes); kinds.set(this.kinds); inA.set(this.inA); inB.set(this.inB); held.set(this.held);
    this.hashes = hashes; this.kinds = kinds; this.inA = inA; this.inB = inB; this.held = held;
    // (read only where inA marks the id: nothing to copy)
    this.orderSlot = new Int32Array(size);
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size).fill(-1);
    const mask = size - 1;
    for (let id = 0; id < this.words.length; id++) {
      let slot = this.hashes[id] & mask;
      while (this.slots[slot] >= 0) slot = (slot + 1) & mask;
      this.slots[slot] = id;
    }
  }
}

/** How many bits of a 32-bit value are set. */
function bitCount(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

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

export function jaccard(a: ReadonlySet<number>, b: ReadonlySet<number>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let common = 0;
  for (const x of small) if (large.has(x)) common++;
  return common / (a.size + b.size - common);
}

/** jaccard of two sets given as sorted arrays without repeats (the same value for the same sets). */
export function sortedJaccard(a: readonly number[], b: readonly number[]): number {
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
 * A fixed set of 32-bit hashes by open addressing. A Set of numbers boxes every value past the
 * small-integer range (half of all hashes) on each lookup; this reads two typed arrays. Hashes are
 * held and looked up as int32 (Math.imul's results as they come): an unsigned one past 2^31 is a
 * number of its own each call.
 */
class HashSet32 {
  private readonly values: Int32Array;
  private readonly used: Uint8Array;
  private readonly mask: number;

  constructor(values: readonly number[]) {
    let size = 16;
    while (size < 4 * values.length) size *= 2;
    this.values = new Int32Array(size);
    this.used = new Uint8Array(size);
    this.mask = size - 1;
    for (const given of values) {
      const v = given | 0;
      let slot = (v ^ (v >>> 15)) & this.mask;
      while (this.used[slot] === 1 && this.values[slot] !== v) slot = (slot + 1) & this.mask;
      this.values[slot] = v;
      this.used[slot] = 1;
    }
  }

  has(v: number): boolean {
    const values = this.values, used = this.used, mask = this.mask;
    for (let slot = (v ^ (v >>> 15)) & mask; used[slot] === 1; slot = (slot + 1) & mask) if (values[slot] === v) return true;
    return false;
  }
}

/**
 * Words that carry no content in the languages the tokenizer reads (English, French, Spanish,
 * German), four letters or longer (shorter words are never content words), as hashes of the word.
 */
const STOP_WORDS = new HashSet32(
  (
    "that this with from then when have will into also just only does what which there their because since while after before should would could about them they were been being here where these those some such than very more most other each " +
    "like make sure need needs still again maybe let's okay well yeah thing things something really actually think know going want looks look seems seem same first next last make done good right wait hmm hmmm " +
    "dans pour avec cette mais sont nous vous elle elles leur leurs plus tout tous toute toutes comme être fait faire aussi donc alors même très avoir peut doit encore quoi quand sans sous entre depuis votre notre c'est n'est qu'il " +
    "para como pero esta este esto está están todo todos toda cuando donde porque también sobre entre desde hasta puede tiene hacer más muy otra otro ahora bien " +
    "dass nicht eine einen einem einer eines sind wird werden auch noch oder aber wenn dann doch schon durch über sein haben kann muss diese dieser dieses hier sich nach beim wieder jetzt"
  ).split(" ").map(hash32),
);

/** Content tokens that name something (a number, an identifier, a file) rather than say it. */
export const NAME_TOKEN = 1;
/**
 * A code span (`-pk`, `get_order_dir('pk', 'DESC')`) as a whole: a fact of its own, by its exact
 * text. A case analysis walks the same few words through different expressions (a sign flipped, the
 * arguments swapped): its words repeat, its spans do not. It marks something new when first met and
 * does not count toward a passage's length (the words inside it do, as anywhere).
 */
export const SPAN_TOKEN = 2;
/** Longest code span read as one (a longer one is code quoted inline, read only by its words). */
const MAX_SPAN_CHARS = 80;

/** Letters of a plain word a token keeps: "configured", "configure", "configuration" are one token. */
const STEM_CHARS = 6;

/**
 * Whether a code unit is a CJK ideograph, kana or hangul syllable: text with no spaces between words,
 * read in character pairs. (Everything below kana first: the ASCII text of most chunks costs one compare.)
 */
function isCjk(c: number): boolean {
  if (c < 0x3040) return false;
  return (c <= 0x30ff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7af) || (c >= 0xf900 && c <= 0xfaff);
}

/**
 * FNV-1a's offset basis as an int32: as 0x811c9dc5 (past 2^31) a word's hash would start as a double,
 * and the loop would convert it back to int32 every character.
 */
const FNV_OFFSET = 0x811c9dc5 | 0;

/**
 * The content tokens of text, as hashes, in whatever language: plain words of four letters or more
 * that are not function words, cut to their first STEM_CHARS letters (so inflections meet); names
 * whole (anything with a digit, an underscore, an inner capital or an inner . / - joining word
 * characters, and numbers of two digits or more; a lone digit is a list's counter); in CJK text,
 * each pair of adjacent characters; and each code span whole (SPAN_TOKEN). Read by hand, one pass,
 * no string per word: what the progress measure counts. Tokens land in hashes/kinds[0, count),
 * reused from call to call.
 */
export class ContentTokens {
  hashes = new Uint32Array(256);
  kinds = new Uint8Array(256);
  count = 0;

  /** Reads text[from, end) into the tokens (emptied first). */
  read(text: string, from = 0, end = text.length): void {
    // (the table as a local: read through the module's scope, its map is checked again each character)
    const asciiClass = ASCII_CLASS;
    this.count = 0;
    // (both as int32 from the start: left as the arguments came, the index stays a tagged value checked each character)
    let i = from | 0;
    end |= 0;
    let prevCjk = -1;
    let spanEnd = -1;
    while (i < end) {
      const c = text.charCodeAt(i);
      if (isCjk(c)) {
        if (prevCjk >= 0) this.push(Math.imul(Math.imul(0x811c9dc5 ^ prevCjk, 0x01000193) ^ c, 0x01000193) >>> 0, 0);
        prevCjk = c;
        i++;
        continue;
      }
      prevCjk = -1;
      const k = c < 0x80 ? asciiClass[c] : charClass(c);
      if (k >= 0 && k < WORD_CHAR) {
        if (c === 96 && i > spanEnd) spanEnd = this.span(text, i, end);
        i++;
        continue;
      }
      // a word: letters, digits, underscores, joined by ' . - / between word characters
      let full = FNV_OFFSET, stem = 0, length = 0, digits = 0, name = false, apostrophe = false;
      for (;;) {
        while (i < end) {
          const d = text.charCodeAt(i);
          // (ASCII, nearly every character, by its class alone: the CJK test and the class lookup only past it)
          let kd: number;
          if (d < 0x80) {
            kd = asciiClass[d];
            if (kd < WORD_CHAR) break;
          } else {
            if (isCjk(d)) break;
            kd = charClass(d);
            if (kd >= 0 && kd < WORD_CHAR) break;
          }
          let lower = d;
          if (kd === UPPER_CHAR) {
            lower = d < 0x80 ? d + 32 : lowerCode(d);
            if (length > 0) name = true; // camelCase, and codes in capitals ("OB", "UTC")
          } else if (d < 97) {
            // (any other word character below 'a' is a digit or an underscore: a lowercase letter,
            // nearly every character, is past both tests with this one)
            if (d <= 57) digits++;
            else name = true;
          }
          full = Math.imul(full ^ lower, 0x01000193);
          length++;
          if (length === STEM_CHARS) stem = full;
          i++;
        }
        if (i + 1 >= end) break;
        const j = text.charCodeAt(i);
        if (j !== 46 && j !== 45 && j !== 47 && j !== 39 && j !== 0x2019) break;
        const n = text.charCodeAt(i + 1);
        const kn = n < 0x80 ? asciiClass[n] : charClass(n);
        if (isCjk(n) || (kn >= 0 && kn < WORD_CHAR)) break;
        if (j === 39 || j === 0x2019) apostrophe = true; else name = true;
        full = Math.imul(full ^ j, 0x01000193);
        length++;
        if (length === STEM_CHARS) stem = full;
        i++;
      }
      if (digits > 0) {
        // a lone digit counts a list or an attempt: no fact
        if (length >= 2) this.push(full >>> 0, NAME_TOKEN);
        continue;
      }
      if (name) { this.push(full >>> 0, NAME_TOKEN); continue; }
      // (no digits here: every character counted is a letter)
      if (length < 4 || apostrophe || STOP_WORDS.has(full)) continue;
      this.push((length >= STEM_CHARS ? stem : full) >>> 0, 0);
    }
  }

  /** A code span opening at text[open] (a backtick), closed on the same line within MAX_SPAN_CHARS: its SPAN_TOKEN; where it closes (open if it is none). */
  private span(text: string, open: number, end: number): number {
    const limit = Math.min(end, open + 2 + MAX_SPAN_CHARS);
    let h = 0x9e3779b9;
    for (let j = open + 1; j < limit; j++) {
      const c = text.charCodeAt(j);
      if (c === 10) return open;
      if (c !== 96) { h = Math.imul(h ^ c, 0x01000193); continue; }
      // two backticks together open no span (an empty one, or a fence)
      if (j === open + 1) return open;
      this.push(h >>> 0, SPAN_TOKEN);
      return j;
    }
    return open;
  }

  private push(hash: number, kind: number): void {
    if (this.count >= this.hashes.length) {
      const hashes = new Uint32Array(this.hashes.length * 2), kinds = new Uint8Array(this.hashes.length * 2);
      hashes.set(this.hashes); kinds.set(this.kinds);
      this.hashes = hashes; this.kinds = kinds;
    }
    this.hashes[this.count] = hash;
    this.kinds[this.count++] = kind;
  }
}
