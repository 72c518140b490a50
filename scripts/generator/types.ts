/**
 * The loop generator's contract (issue 16): parametric generators of loop classes and of their
 * productive look-alikes, each case a plain trace plus where its repetitions start, so the report
 * can say how many repetitions after onset the engine took to act. Text classes live in
 * `textClasses.ts`, tool classes in `toolClasses.ts`; `generate.ts` runs them all.
 */
import type { TraceEvent } from "../../src/engine/events";

/** A seeded random source; every draw of a case comes from it so a seed reproduces the case. */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number;
  pick<T>(xs: readonly T[]): T;
  chance(p: number): boolean;
}

export interface GeneratedCase {
  /** The class ("short-chant", "unchanged-poll", ...) or look-alike family ("changing-poll", ...). */
  family: string;
  kind: "loop" | "lookalike";
  /** What varied in this draw (block length, period, chunk size, drift, host shape, ...), for the report. */
  params: Record<string, string | number | boolean>;
  events: TraceEvent[];
  /**
   * Loops only: the event index at which each copy of the repeated unit begins, in order. Copy 0 is
   * the first occurrence (the onset); copy k is the k-th repetition. An intervention at an event
   * index before `copyStarts[k + 1]` (or before the end, for the last copy) was made within k
   * repetitions of onset. "Caught in time" means within two repetitions: before copyStarts[3].
   */
  copyStarts?: number[];
}

/** One class of loop or look-alike: draws a case from the random source. */
export interface CaseGenerator {
  family: string;
  kind: "loop" | "lookalike";
  /** The loop class a look-alike imitates (for the report), or the class's own name. */
  imitates: string;
  draw(rng: Rng): GeneratedCase;
}
