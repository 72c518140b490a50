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
/** Box drawing (U+2500–U+257F) and block elements (U+2580–U+259F). */
const BOX = /[\u2500-\u259f]/;
const ALNUM = /[\p{L}\p{N}]/u;

export function isFenceLine(line: string): boolean { return FENCE.test(line); }

/** The list marker at the start of a line ("- ", "12. ", "[x] "), or "" for none. */
export function listMarker(line: string): string {
  const m = LIST_MARKER.exec(line);
  return m ? m[0] : "";
}

function isAlnum(ch: string): boolean {
  const c = ch.charCodeAt(0);
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  return ALNUM.test(ch);
}

function alnumShare(s: string): number {
  let alnum = 0, total = 0;
  for (const ch of s) {
    if (ch === " " || ch === "\t") continue;
    total++;
    if (isAlnum(ch)) alnum++;
  }
  return total === 0 ? 0 : alnum / total;
}

const CODE_END = /[;{}]$|=>\s*\{?$/;
/** A line of markup: opens with a tag and ends with one. */
const HTML_LINE = /^<\/?[A-Za-z][\w-]*(?:\s[^>]*)?\/?>.*>$/;
const CODE_PUNCT = /[;{}()[\]=<>]/g;

/**
 * Code drafted without a fence (common in thinking): deeply indented lines, lines ending the way
 * statements do, or lines dense with code punctuation. Repeated lines of code are not a loop.
 */
function looksLikeCode(line: string, trimmed: string): boolean {
  if (/^( {4,}|\t)/.test(line)) return true;
  if (CODE_END.test(trimmed) && !/[.!?]\)?$/.test(trimmed) && (trimmed.match(CODE_PUNCT) ?? []).length >= 2) return true;
  const visible = trimmed.replace(/\s+/g, "").length;
  return visible > 0 && (trimmed.match(CODE_PUNCT) ?? []).length / visible >= 0.15;
}

/** Classifies one line outside any fence state (fence state is the tracker's job). */
export function classifyLine(line: string): Exclude<LineKind, "fence"> {
  const trimmed = line.trim();
  if (trimmed === "") return "blank";
  if (HEADING.test(line) || BOLD_LINE.test(line)) return "heading";
  if (trimmed.length >= 3 && alnumShare(trimmed) < 0.2) return "divider";
  const pipes = (trimmed.match(/\|/g) ?? []).length;
  if ((trimmed.startsWith("|") && pipes >= 2) || (trimmed.startsWith("+") && /^\+[-=+]+/.test(trimmed)) || BOX.test(trimmed.charAt(0))) return "table";
  if (LIST_MARKER.test(line)) return "list";
  // markup (HTML in a README, badges, <details>): a tag at both ends, like code
  if (HTML_LINE.test(trimmed)) return "code";
  if (looksLikeCode(line, trimmed)) return "code";
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

  get inFence(): boolean { return this.fence !== undefined; }

  lineKind(line: string): LineKind {
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
