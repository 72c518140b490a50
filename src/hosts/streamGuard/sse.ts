/**
 * Server-sent events split out of a byte stream as it arrives, each with its exact raw bytes: the
 * guard forwards what it read byte for byte, and only reads the text of an event to judge it.
 * Work per chunk is O(chunk): a boundary is looked for in the new bytes only, and an event that
 * spans chunks is joined once, when it is complete.
 */

export interface SseEvent {
  /** The event's bytes as they came, its closing blank line included. */
  raw: Buffer;
  /** The `event:` field, if any. */
  event?: string;
  /** The `data:` lines joined by "\n" (undefined: a comment or keep-alive with no data). */
  data?: string;
}

/** An event longer than this is not an event we can judge: the splitter gives up (the caller passes the rest through). */
export const MAX_EVENT_BYTES = 16 * 1024 * 1024;

const LF = 10;
const CR = 13;

export class SseSplitter {
  private pieces: Buffer[] = [];
  private pendingBytes = 0;
  /** The last byte that was not a CR was a LF: one more LF (after CRs) ends the event. */
  private afterLf = false;
  /** The event got longer than MAX_EVENT_BYTES. */
  overflowed = false;

  /** The events this chunk completes, in order. Bytes of an unfinished event are kept for the next chunk. */
  push(chunk: Buffer, out: SseEvent[]): void {
    let start = 0;
    let i = 0;
    while (i < chunk.length) {
      const lf = chunk.indexOf(LF, i);
      if (lf === -1) {
        if (!onlyCr(chunk, i, chunk.length)) this.afterLf = false;
        break;
      }
      const blank = this.afterLf && onlyCr(chunk, i, lf);
      i = lf + 1;
      if (!blank) { this.afterLf = true; continue; }
      this.afterLf = false;
      let raw = chunk.subarray(start, i);
      if (this.pieces.length > 0) {
        this.pieces.push(raw);
        raw = Buffer.concat(this.pieces, this.pendingBytes + raw.length);
        this.pieces = [];
        this.pendingBytes = 0;
      }
      start = i;
      out.push(parseEvent(raw));
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.pieces.push(rest);
      this.pendingBytes += rest.length;
      if (this.pendingBytes > MAX_EVENT_BYTES) this.overflowed = true;
    }
  }

  /** The bytes of the unfinished event, handed back (the stream ended or the splitter gave up). */
  takeRest(): Buffer {
    const rest = Buffer.concat(this.pieces, this.pendingBytes);
    this.pieces = [];
    this.pendingBytes = 0;
    return rest;
  }
}

function onlyCr(b: Buffer, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (b[k] !== CR) return false;
  return true;
}

/** The fields of one event (the SSE rules: `field: value`, one leading space dropped, data lines joined). */
export function parseEvent(raw: Buffer): SseEvent {
  const text = raw.toString("utf8");
  const ev: SseEvent = { raw };
  let data: string | undefined;
  let pos = 0;
  while (pos < text.length) {
    let end = text.indexOf("\n", pos);
    if (end === -1) end = text.length;
    let line = text.slice(pos, end);
    pos = end + 1;
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line === "" || line.charCodeAt(0) === 58 /* ":" comment */) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === "data") data = data === undefined ? value : `${data}\n${value}`;
    else if (field === "event") ev.event = value;
  }
  if (data !== undefined) ev.data = data;
  return ev;
}
