/**
 * Building blocks of the loop generator (issue 16): the seeded random source, and a trace builder
 * that streams text the way each host delivers it and remembers at which event every copy of the
 * repeated unit begins. Both halves (text and tool classes) may use it.
 */
import type { TraceEvent } from "../../src/engine/events";
import { advance, newCursor } from "../../src/hosts/roo/cumulativeText";
import type { Rng } from "./types";

/** mulberry32: small, fast, and the same sequence for a seed on every machine. */
export function seededRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (xs) => xs[Math.floor(next() * xs.length)],
    chance: (p) => next() < p,
  };
}

/** FNV-1a of a string: a per-case seed derived from the run's seed, the family and the case number. */
export function seedOf(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/**
 * How the stream reaches the engine:
 * - plain: trace deltas of 1..maxChunk characters (Kilo, Codex-style traces, the CLI);
 * - roo: Roo's cumulative snapshots (the whole text so far, grown by 1..maxChunk characters each
 *   update) turned into deltas by the adapter's own cursor, which holds back open bold headings;
 * - cline: what the Cline file readers replay from a saved task: one delta per line, at most 240
 *   characters (cut at a space).
 */
export type HostShape = "plain" | "roo" | "cline";
export const HOST_SHAPES: readonly HostShape[] = ["plain", "roo", "cline"];

export function chunkText(text: string, shape: HostShape, maxChunk: number, rng: Rng): string[] {
  const out: string[] = [];
  if (shape === "cline") {
    for (let start = 0; start < text.length;) {
      const nl = text.indexOf("\n", start);
      let end = nl === -1 ? text.length : nl + 1;
      if (end - start > 240) {
        end = start + 240;
        const sp = text.lastIndexOf(" ", end);
        if (sp > start) end = sp + 1;
      }
      out.push(text.slice(start, end));
      start = end;
    }
    return out;
  }
  if (shape === "roo") {
    const cursor = newCursor();
    for (let n = 0; n < text.length;) {
      n = Math.min(text.length, n + rng.int(1, maxChunk));
      const delta = advance(cursor, text.slice(0, n), n === text.length);
      if (delta) out.push(delta);
    }
    if (out.join("") !== text) throw new Error("roo cursor lost text");
    return out;
  }
  for (let i = 0; i < text.length;) {
    const n = rng.int(1, maxChunk);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

type Channel = "reasoning" | "text";

/**
 * Builds one case's trace. Stream text is gathered per channel until something else happens, then
 * chunked as a whole (chunk boundaries fall anywhere, as live). A mark names where a copy begins:
 * it resolves to the first event whose chunk starts at or after that character, since the engine
 * can act no earlier than on the event that carries it.
 */
export class TraceBuilder {
  readonly events: TraceEvent[] = [];
  private pending: { channel: Channel; text: string; marks: Array<{ at: number; id: number }> } | undefined;
  private resolved = new Map<number, number>();
  private unresolved: number[] = [];
  private marks = 0;
  private calls = 0;
  private ts = 0;

  constructor(private readonly rng: Rng, readonly shape: HostShape, readonly maxChunk: number) {}

  private push(e: TraceEvent): void {
    for (const id of this.unresolved) this.resolved.set(id, this.events.length);
    this.unresolved = [];
    this.ts += this.rng.int(5, 60);
    this.events.push({ ...e, ts: this.ts });
  }

  /** Appends streamed text; with `mark`, returns the id of a copy starting at its first character. */
  stream(channel: Channel, text: string, mark = false): number {
    if (this.pending && this.pending.channel !== channel) this.flush();
    this.pending ??= { channel, text: "", marks: [] };
    let id = -1;
    if (mark) { id = this.marks++; this.pending.marks.push({ at: this.pending.text.length, id }); }
    this.pending.text += text;
    return id;
  }

  /** A copy that starts with the next event (a tool call, a new request). */
  markNext(): number {
    this.flush();
    const id = this.marks++;
    this.unresolved.push(id);
    return id;
  }

  private flush(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    const pieces = chunkText(p.text, this.shape, this.maxChunk, this.rng);
    let offset = 0, m = 0;
    for (const piece of pieces) {
      while (m < p.marks.length && p.marks[m].at <= offset) { this.unresolved.push(p.marks[m].id); m++; }
      this.push({ t: p.channel, delta: piece });
      offset += piece.length;
    }
    for (; m < p.marks.length; m++) this.unresolved.push(p.marks[m].id);
  }

  user(text: string): void { this.flush(); this.push({ t: "user", text }); }
  request(): void { this.flush(); this.push({ t: "request" }); }
  end(): void { this.flush(); this.push({ t: "end" }); }

  call(name: string, input: Record<string, unknown>): string {
    this.flush();
    const id = `call_${++this.calls}`;
    this.push({ t: "tool_call", id, name, input });
    return id;
  }

  result(id: string, ok: boolean, output: string): void {
    this.flush();
    this.push(ok ? { t: "tool_result", id, ok, output } : { t: "tool_result", id, ok, error: output });
  }

  /** A whole step: a tool call ends the request, its result comes, the next request starts. */
  toolStep(name: string, input: Record<string, unknown>, output: string, ok = true): void {
    const id = this.call(name, input);
    this.end();
    this.result(id, ok, output);
    this.request();
  }

  /** Event indices of the given marks, in order (a mark never followed by an event resolves to the end). */
  copyStarts(ids: readonly number[]): number[] {
    this.flush();
    return ids.map((id) => this.resolved.get(id) ?? this.events.length);
  }

  finish(): TraceEvent[] {
    this.flush();
    return this.events;
  }
}
