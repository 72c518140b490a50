/**
 * Reads a JSON array file that its writer rewrites whole on every change (Cline's
 * `ui_messages.json`, rewritten per streamed chunk) and reports only the elements that changed.
 *
 * Per update the cost is one memcmp-speed comparison with the previous content to find the first
 * changed byte, plus a scan and JSON.parse of the elements from there on (usually the last one or
 * two). A file cut off mid-write yields its complete elements; the rest comes with the next write.
 */

/** Bytes compared at once while looking for the first difference. */
const COMPARE_BLOCK = 64 * 1024;

export interface ArrayUpdate {
  /** Changed or new elements, with their index, in order. */
  changed: { index: number; value: unknown }[];
  /** Elements in the file now (complete ones; a half-written tail is not counted). */
  length: number;
  /** The closing bracket was found: the file is whole. */
  complete: boolean;
}

/** First index at which a and b differ (the shorter length when one is a prefix of the other). */
export function firstDifference(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  let lo = 0;
  while (lo < n) {
    const hi = Math.min(n, lo + COMPARE_BLOCK);
    if (a.compare(b, lo, hi, lo, hi) !== 0) {
      // Narrow down inside the block by halving.
      let l = lo, h = hi;
      while (h - l > 1) {
        const mid = (l + h) >>> 1;
        if (a.compare(b, l, mid, l, mid) !== 0) h = mid; else l = mid;
      }
      return l;
    }
    lo = hi;
  }
  return n;
}

const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * End (exclusive) of the JSON value starting at `start`, or -1 when the buffer ends first.
 * Works on bytes: multi-byte UTF-8 never contains the ASCII quote, backslash or brackets.
 */
function valueEnd(buf: Buffer, start: number): number {
  const first = buf[start];
  if (first === 0x22) { // string
    for (let i = start + 1; i < buf.length; i++) {
      const c = buf[i];
      if (c === 0x5c) i++;
      else if (c === 0x22) return i + 1;
    }
    return -1;
  }
  if (first === 0x7b || first === 0x5b) { // object or array
    let depth = 0;
    for (let i = start; i < buf.length; i++) {
      const c = buf[i];
      if (c === 0x22) {
        for (i++; i < buf.length; i++) {
          const s = buf[i];
          if (s === 0x5c) i++;
          else if (s === 0x22) break;
        }
        if (i >= buf.length) return -1;
      } else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) { depth--; if (depth === 0) return i + 1; }
    }
    return -1;
  }
  // number, true, false, null
  for (let i = start; i < buf.length; i++) {
    const c = buf[i];
    if (c === 0x2c || c === 0x5d || SPACE.has(c)) return i;
  }
  return -1;
}

export class JsonArrayTail {
  private previous: Buffer | undefined;
  private starts: number[] = [];
  private ends: number[] = [];

  /** Forget everything (the file was replaced by an unrelated one). */
  reset(): void {
    this.previous = undefined;
    this.starts = [];
    this.ends = [];
  }

  /**
   * Takes the file's new content. Throws SyntaxError when it is not a JSON array at all
   * (the caller reports it); a truncated array is not an error.
   */
  update(buf: Buffer): ArrayUpdate {
    const prev = this.previous;
    if (prev && prev.length === buf.length && prev.equals(buf)) return { changed: [], length: this.ends.length, complete: true };
    const diff = prev ? firstDifference(prev, buf) : 0;
    // Elements that end before the first changed byte are untouched.
    let keep = 0;
    while (keep < this.ends.length && this.ends[keep] <= diff) keep++;
    const oldStarts = this.starts, oldEnds = this.ends;
    const starts = oldStarts.slice(0, keep), ends = oldEnds.slice(0, keep);

    let pos: number;
    if (keep > 0) pos = ends[keep - 1];
    else {
      pos = 0;
      while (pos < buf.length && SPACE.has(buf[pos])) pos++;
      if (pos < buf.length && buf[pos] !== 0x5b) throw new SyntaxError("not a JSON array");
      pos++;
    }
    let complete = false;
    for (;;) {
      while (pos < buf.length && (SPACE.has(buf[pos]) || buf[pos] === 0x2c)) pos++;
      if (pos >= buf.length) break;
      if (buf[pos] === 0x5d) { complete = true; break; }
      const end = valueEnd(buf, pos);
      if (end < 0) break;
      starts.push(pos);
      ends.push(end);
      pos = end;
    }

    const changed: { index: number; value: unknown }[] = [];
    for (let i = keep; i < starts.length; i++) {
      const s = starts[i], e = ends[i];
      // Shifted but identical elements (an earlier one grew) are not news.
      if (prev && i < oldStarts.length && oldEnds[i] - oldStarts[i] === e - s && prev.compare(buf, s, e, oldStarts[i], oldEnds[i]) === 0) continue;
      let value: unknown;
      try { value = JSON.parse(buf.toString("utf8", s, e)); } catch {
        // Torn write inside an element that still closed its brackets: keep what came before it.
        starts.length = i; ends.length = i; complete = false;
        break;
      }
      changed.push({ index: i, value });
    }
    this.previous = buf;
    this.starts = starts;
    this.ends = ends;
    return { changed, length: starts.length, complete };
  }
}
