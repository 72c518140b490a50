/** Helpers for the stream detector tests: realistic chunking, isolated detectors, char positions. */
import { LoopSession, type Intervention } from "../../src/engine/session";
import { defaultConfig } from "../../src/engine/config";
import type { DetectorId } from "../../src/engine/detector";
import type { TraceEvent } from "../../src/engine/events";
import * as fs from "node:fs";
import * as path from "node:path";
import { parseTrace } from "../../src/formats/traceFile";

/** Small deterministic PRNG (mulberry32), so a failing test fails the same way every run. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Cuts text into chunks: a fixed size, or random sizes in [1, max] from a seed. */
export function chunks(text: string, size: number | { max: number; seed: number }): string[] {
  const out: string[] = [];
  const next = typeof size === "number" ? () => size : (() => { const r = rng(size.seed); return () => 1 + Math.floor(r() * size.max); })();
  for (let i = 0; i < text.length;) {
    const n = next();
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

export function streamOf(t: "reasoning" | "text", text: string, size: number | { max: number; seed: number } = { max: 40, seed: 7 }): TraceEvent[] {
  return chunks(text, size).map((delta) => ({ t, delta }));
}

/** One request that streams these events, then ends. */
export function request(...parts: TraceEvent[][]): TraceEvent[] {
  return [{ t: "request" }, ...parts.flat(), { t: "end" }];
}

/** Runs a session with only these detectors switched on (others would blur what is tested). */
export function runOnly(ids: DetectorId[], events: TraceEvent[], overrides: Record<string, number | boolean> = {}): Intervention[] {
  const config = defaultConfig();
  for (const id of Object.keys(config.detectors) as DetectorId[]) config.detectors[id].enabled = ids.includes(id);
  for (const id of ids) Object.assign(config.detectors[id], overrides);
  const s = new LoopSession(config);
  return events.flatMap((e) => s.push(e));
}

/** [first, last] character offset (within its channel's stream so far) of the chunk at this event index. */
export function charRangeOf(events: TraceEvent[], index: number): [number, number] {
  const ev = events[index];
  if (ev.t !== "reasoning" && ev.t !== "text") return [-1, -1];
  let offset = 0;
  for (let i = index - 1; i >= 0; i--) {
    const e = events[i];
    if (e.t === "request") break;
    if (e.t === ev.t) offset += e.delta.length;
  }
  return [offset, offset + ev.delta.length - 1];
}

/** Words in a fixed order from a seed: varied prose that never repeats a long block. */
export function prose(words: number, seed: number): string {
  const vocab = "the parser reads each token and the lexer hands over a stream of symbols while tests check the output file for rows fields quotes commas handler request response cache value config build module function error retry path index".split(" ");
  const r = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(vocab[Math.floor(r() * vocab.length)] + (r() < 0.08 ? "." : ""));
  return out.join(" ");
}

const SYLLABLES = "ka lo mi ne ru sa ti vo pe da fu gi ho ja ke li mo nu pa re si to ve za".split(" ");
/** Prose over a ~600-word made-up vocabulary: two samples share few words, as two unrelated real messages do. */
export function richProse(words: number, seed: number): string {
  const r = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const n = 2 + Math.floor(r() * 2);
    let w = "";
    for (let k = 0; k < n; k++) w += SYLLABLES[Math.floor(r() * SYLLABLES.length)];
    out.push(w);
  }
  return out.join(" ");
}

/** A recorded trace from test/fixtures (path relative to it), as events. */
export function readTrace(relative: string): TraceEvent[] {
  const file = path.resolve(__dirname, "../../../test/fixtures", relative);
  return parseTrace(fs.readFileSync(file, "utf8"), file, false).events;
}

