/**
 * Roo sends streamed reasoning and text as the whole text so far on every update, and may rewrite
 * a little of it near the end (a bold heading after a sentence gets "\n\n" inserted before it).
 * This turns those snapshots into append-only deltas whose concatenation is the final text, however
 * the updates were chunked. Per update the work is bounded by the new chunk plus a fixed window:
 * nothing scans the text from the start unless Roo rewrote text we had already passed on.
 */

/** How much of the emitted text is re-checked on each update to notice an earlier rewrite. */
const TAIL_CHECK_CHARS = 64;
/** The longest tail held back while a heading may still be rewritten (headings are short). */
const MAX_HELD_CHARS = 200;
/**
 * The end of a text that Roo's reasoning formatter (`([.!?])**heading**` → `$1\n\n**heading**`)
 * may still rewrite once the closing `**` arrives: a sentence end followed by an open heading.
 */
const OPEN_HEADING_AT_END = /[.!?](?:\*\*[^*\n]*\*?|\*)$/;

export interface CumulativeCursor {
  /** Length of the current text already passed on as deltas. */
  emitted: number;
  /** The last emitted characters, to check cheaply that the next snapshot still starts the same. */
  tail: string;
  /** The latest snapshot (a reference, not a copy), used only when a rewrite forces a full compare. */
  text: string;
  /** Full compares forced by rewrites of already-emitted text (for tests and diagnostics). */
  rewrites: number;
}

export function newCursor(): CumulativeCursor {
  return { emitted: 0, tail: "", text: "", rewrites: 0 };
}

/** A cursor that continues another stream (Roo repeats a request's earlier reasoning in a new message). */
export function continueCursor(from: CumulativeCursor): CumulativeCursor {
  return { emitted: from.emitted, tail: from.tail, text: from.text, rewrites: from.rewrites };
}

function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Where the stable part of `text` ends: before an open heading the formatter may still rewrite. */
function stableEnd(text: string, from: number): number {
  const windowStart = Math.max(0, from - 1, text.length - MAX_HELD_CHARS);
  const m = OPEN_HEADING_AT_END.exec(text.slice(windowStart));
  if (!m) return text.length;
  return Math.max(from, windowStart + m.index + 1);
}

/**
 * V8 keeps a slice's parent string alive; a delta must not pin a 200 KB snapshot for as long as a
 * detector holds on to it, so it is copied out (cost proportional to the delta).
 */
function detached(s: string): string {
  return s.length < 16 ? s : Buffer.from(s, "utf8").toString("utf8");
}

/**
 * Advances the cursor to `text` and returns the new characters ("" when nothing new is stable yet).
 * `final` releases everything held back (the message is complete).
 */
export function advance(cursor: CumulativeCursor, text: string, final: boolean): string {
  let from = cursor.emitted;
  const tailStart = from - cursor.tail.length;
  const unchanged = text.length >= from && (cursor.tail.length === 0 || text.startsWith(cursor.tail, tailStart));
  if (!unchanged) {
    // Text we already passed on was rewritten: continue from where the old and new texts part.
    // The part after that point is passed on again (rare: only rewrites outside the held tail).
    from = Math.min(from, commonPrefixLength(cursor.text, text));
    cursor.rewrites++;
  }
  const end = final ? text.length : stableEnd(text, from);
  const delta = end > from ? detached(text.slice(from, end)) : "";
  cursor.emitted = Math.max(end, from);
  cursor.tail = detached(text.slice(Math.max(0, cursor.emitted - TAIL_CHECK_CHARS), cursor.emitted));
  cursor.text = final ? "" : text;
  return delta;
}
