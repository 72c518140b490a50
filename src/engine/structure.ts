/**
 * Markdown structure of streamed text, line by line: code fences, tables, dividers and box
 * drawing, headings and list items. Repetition inside these is how they look, not a loop, so the
 * stream detectors ask this tracker what kind each line is before they count it.
 */

export type LineKind =
  | "blank"
  /** A ``` or ~~~ line that opens or closes a fence. */
  | "fence"
  /** A line inside a fenced code block. */
  | "code"
  /** A table row, a table separator or a box-drawing row. */
  | "table"
  /** A line of punctuation or drawing characters only ("-----", "════", "***"). */
  | "divider"
  | "heading"
  | "list"
  | "prose";

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}#{1,6}\s+\S/;
/** A line that is bold and nothing else ("**src/a.ts**") is a heading in practice. */
const BOLD_LINE = /^ {0,3}(\*\*|__)[^*_].*(\*\*|__):?\s*$/;
const LIST_MARKER = /^\s*(?:[-*+•·‣▪◦]|\d{1,4}[.)]|[a-zA-Z][.)])\s+|^\s*\[[ xX✓✔-]\]\s+/;

export function isFenceLine(line: string): boolean { return FENCE.test(line); }

/** The list marker at the start of a line ("- ", "12. ", "[x] "), or "" for none. */
export function listMarker(line: string): string {
  const m = LIST_MARKER.exec(line);
  return m ? m[0] : "";
}

/** Letters and digits beyond ASCII, matched in place (sticky): no one-character string per test. */
const ALNUM_AT = /[\p{L}\p{N}]/uy;

/** The characters \s matches and String.prototype.trim strips (ECMAScript WhiteSpace and LineTerminator), by code. */
export function isSpaceCode(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  return c >= 0xa0 && (c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff);
}

/**
 * What the character tests of classifyLine count over a trimmed line, taken in one pass: the
 * line's share of letters and digits (by code point, spaces and tabs not counted), its pipes,
 * its code punctuation and its non-whitespace units.
 */
interface LineCounts {
  alnum: number; total: number; pipes: number; punct: number; visible: number;
  /** The trimmed line's length in UTF-16 units. */
  length: number;
  /** No whitespace but single plain spaces, and no emphasis mark ([*_`]): normalizeLine only lowercases and trims it. */
  plain: boolean;
}
const counts: LineCounts = { alnum: 0, total: 0, pipes: 0, punct: 0, visible: 0, length: 0, plain: false };

/**
 * What each ASCII character adds to the counts, packed ten bits a count so that one add counts
 * several: total | visible << 10 | alnum << 20 in ASCII_COUNTS, punct | pipes << 10 | odd << 20
 * in ASCII_MARKS (odd: whitespace other than a space, or an emphasis mark). A block of at most
 * COUNT_BLOCK characters cannot carry one count into the next.
 */
const ASCII_COUNTS = new Int32Array(128);
const ASCII_MARKS = new Int32Array(128);
const COUNT_BLOCK = 1023;
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  const total = ch === " " || ch === "\t" ? 0 : 1; // the share leaves out spaces and tabs only
  const visible = /\s/.test(ch) ? 0 : 1;
  const alnum = /[A-Za-z0-9]/.test(ch) ? 1 : 0;
  ASCII_COUNTS[c] = total | (visible << 10) | (alnum << 20);
  ASCII_MARKS[c] = (/[;{}()[\]=<>]/.test(ch) ? 1 : 0) | ((ch === "|" ? 1 : 0) << 10) | ((/[^\S ]|[*_`]/.test(ch) ? 1 : 0) << 20);
}

function countLine(s: string): LineCounts {
  let alnum = 0, total = 0, pipes = 0, punct = 0, visible = 0, odd = 0;
  const n = s.length;
  for (let i = 0; i < n;) {
    const blockEnd = Math.min(n, i + COUNT_BLOCK);
    let packed = 0, marks = 0;
    for (; i < blockEnd; i++) {
      const c = s.charCodeAt(i);
      if (c < 128) {
        packed += ASCII_COUNTS[c];
        marks += ASCII_MARKS[c];
        continue;
      }
      total++;
      if (!isSpaceCode(c)) visible++;
      else odd++;
      ALNUM_AT.lastIndex = i;
      if (ALNUM_AT.test(s)) alnum++;
      // a surrogate pair is one code point (and two visible units)
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) { visible++; i++; }
      }
    }
    total += packed & 0x3ff;
    visible += (packed >>> 10) & 0x3ff;
    alnum += packed >>> 20;
    punct += marks & 0x3ff;
    pipes += (marks >>> 10) & 0x3ff;
    odd += marks >>> 20;
  }
  counts.alnum = alnum; counts.total = total; counts.pipes = pipes; counts.punct = punct; counts.visible = visible; counts.length = n;
  // two whitespace characters in a row hold one that is not a space, or are two spaces
  counts.plain = odd === 0 && s.indexOf("  ") < 0;
  return counts;
}

/**
 * A trimmed line ending the way a statement or block line does: /[;{}]$|=>\s*\{?$/ (a trimmed
 * line has no whitespace at its end, and "=> {" ends with "{").
 */
function endsLikeCode(trimmed: string): boolean {
  const last = trimmed.charCodeAt(trimmed.length - 1);
  return last === 59 || last === 123 || last === 125 || trimmed.endsWith("=>");
}

/** A trimmed line ending a sentence: [.!?], optionally closed by ")". */
function endsLikeSentence(trimmed: string): boolean {
  let k = trimmed.length - 1;
  if (trimmed.charCodeAt(k) === 41) k--; // ")"
  const c = trimmed.charCodeAt(k);
  return c === 46 || c === 33 || c === 63;
}

/** Indented four spaces or a tab: a code block's indent. */
function startsIndented(line: string): boolean {
  return line.charCodeAt(0) === 9 || line.startsWith("    ");
}

/** A line of markup: opens with a tag and ends with one. */
const HTML_LINE = /^<\/?[A-Za-z][\w-]*(?:\s[^>]*)?\/?>.*>$/;

/**
 * Code drafted without a fence (common in thinking): deeply indented lines, lines ending the way
 * statements do, or lines dense with code punctuation. Repeated lines of code are not a loop.
 */
function looksLikeCode(line: string, trimmed: string, c: LineCounts): boolean {
  if (startsIndented(line)) return true;
  if (c.punct >= 2 && endsLikeCode(trimmed) && !endsLikeSentence(trimmed)) return true;
  return c.visible > 0 && c.punct / c.visible >= 0.15;
}

/** Classifies one line outside any fence state (fence state is the tracker's job). */
export function classifyLine(line: string): Exclude<LineKind, "fence"> {
  counts.plain = false;
  const trimmed = line.trim();
  if (trimmed === "") return "blank";
  if (HEADING.test(line) || BOLD_LINE.test(line)) return "heading";
  const c = countLine(trimmed);
  if (trimmed.length >= 3 && (c.total === 0 ? 0 : c.alnum / c.total) < 0.2) return "divider";
  const first = trimmed.charCodeAt(0);
  // "|" opening a row, "+" opening a grid border, or box drawing (U+2500–U+257F) and block elements (U+2580–U+259F)
  if ((first === 124 && c.pipes >= 2) || (first === 43 && /^\+[-=+]+/.test(trimmed)) || (first >= 0x2500 && first <= 0x259f)) return "table";
  if (LIST_MARKER.test(line)) return "list";
  // markup (HTML in a README, badges, <details>): a tag at both ends, like code
  if (first === 60 && HTML_LINE.test(trimmed)) return "code";
  if (looksLikeCode(line, trimmed, c)) return "code";
  // a short label line ("src/a.ts:", "Results for billing:") heads what follows, as a heading does
  if (trimmed.length <= 80 && /:(\*\*)?$/.test(trimmed)) return "heading";
  return "prose";
}

/**
 * Follows fences across lines. Feed every complete line in order; it answers that line's kind.
 * A fence closes only with the same character and at least the same length, as CommonMark says.
 */
export class StructureTracker {
  private fence: { char: string; length: number } | undefined;
  /**
   * Whether the line just classified was found (while counted) to hold no whitespace but single
   * spaces between its words and no emphasis mark (false: not known), as StreamLine.plain says.
   */
  lastPlain = false;
  /** The words of the line just classified, when lastPlain (0: not known). */
  lastWords = 0;

  get inFence(): boolean { return this.fence !== undefined; }

  lineKind(line: string): LineKind {
    // (set only where classifyLine counts the line)
    counts.plain = false;
    const kind = this.kindOf(line);
    this.lastPlain = counts.plain;
    // a plain line's whitespace is single spaces between its words (each unit not visible is a space)
    this.lastWords = counts.plain ? counts.length - counts.visible + 1 : 0;
    return kind;
  }

  private kindOf(line: string): LineKind {
    const m = FENCE.exec(line);
    if (this.fence) {
      if (m && m[1][0] === this.fence.char && m[1].length >= this.fence.length && line.slice(m[0].length).trim() === "") {
        this.fence = undefined;
        return "fence";
      }
      return "code";
    }
    if (m) {
      this.fence = { char: m[1][0], length: m[1].length };
      return "fence";
    }
    return classifyLine(line);
  }

  reset(): void { this.fence = undefined; }
}
