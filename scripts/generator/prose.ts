/**
 * Reasoning-like prose for the generator: sentences about code built from a wide vocabulary (two
 * drawn thoughts share few word triples, as two real ones do), and the drift a model puts into a
 * restated thought (synonyms, swapped words, clauses moved, openers).
 */
import type { Rng } from "./types";

const SUBJECTS = [
  "the parser", "the config loader", "the retry handler", "this test", "the cache layer", "the session store",
  "the migration", "the worker pool", "the request queue", "the auth middleware", "the CSV reader", "the router",
  "the scheduler", "the token refresher", "the upload handler", "the diff renderer", "the job runner", "the logger",
  "the webhook client", "the rate limiter", "the index builder", "the search service", "the payment adapter",
  "the build script", "the fixture loader", "the template engine", "the socket server", "the state reducer",
];
const VERBS = [
  "reads", "drops", "rewrites", "skips", "caches", "retries", "validates", "parses", "flushes", "rejects", "sorts",
  "copies", "serialises", "ignores", "overwrites", "locks", "clones", "trims", "escapes", "merges", "batches", "emits",
];
const OBJECTS = [
  "the last field", "the stale token", "an empty header", "the second chunk", "the default timeout", "the quoted comma",
  "the trailing newline", "the user id", "the old schema", "every pending job", "the lock file", "the error code",
  "the response body", "the first row", "the nested array", "the cookie value", "the build cache", "the port number",
  "the retry count", "the temp directory", "the locale string", "the checksum", "the migration table", "the event payload",
];
const CLAUSES = [
  "before the lock is taken", "when the file is missing", "after the first retry", "because the index is off by one",
  "so the test sees an old value", "while the queue is still draining", "unless the flag is set", "once the socket closes",
  "whenever the cache is cold", "if the header has no charset", "since the refactor last week", "during the second pass",
  "right after startup", "when two requests race", "as soon as the timer fires", "before the response is sent",
];
const OPENERS = ["Wait, ", "Hmm, ", "Actually, ", "Okay, so ", "Let me think again: ", "So ", "Right, ", "", "", ""];

/** Words a drifted copy may swap in (both directions): what a model changes when it restates. */
const SYNONYMS: Record<string, string[]> = {
  reads: ["loads", "parses", "takes"], drops: ["loses", "discards", "skips"], rewrites: ["replaces", "changes"],
  skips: ["misses", "ignores"], checks: ["verifies", "inspects", "confirms"], fix: ["change", "patch", "correction"],
  problem: ["issue", "bug", "fault"], because: ["since", "as"], before: ["ahead of", "prior to"], after: ["once", "following"],
  test: ["spec", "check"], file: ["module", "source"], value: ["result", "field"], old: ["stale", "previous"],
  first: ["initial", "earliest"], last: ["final", "trailing"], error: ["failure", "fault"], should: ["must", "ought to"],
  need: ["have", "want"], think: ["believe", "suspect"], correct: ["right", "fine"], so: ["therefore", "thus"],
  the: ["this", "that"], is: ["seems", "looks"], when: ["whenever", "if"], missing: ["absent", "gone"],
};
const FILLER = ["really", "still", "probably", "clearly", "just", "again", "indeed", "basically", "simply", "now", "likely", "definitely"];

function cap(s: string): string { return s.charAt(0).toUpperCase() + s.slice(1); }

/** One sentence of reasoning about code, about 60-110 characters. */
export function sentence(rng: Rng): string {
  const shapes = [
    () => `${cap(rng.pick(SUBJECTS))} ${rng.pick(VERBS)} ${rng.pick(OBJECTS)} ${rng.pick(CLAUSES)}.`,
    () => `I think ${rng.pick(SUBJECTS)} ${rng.pick(VERBS)} ${rng.pick(OBJECTS)}, which explains ${rng.pick(OBJECTS)}.`,
    () => `If ${rng.pick(SUBJECTS)} ${rng.pick(VERBS)} ${rng.pick(OBJECTS)}, then ${rng.pick(SUBJECTS)} ${rng.pick(VERBS)} ${rng.pick(OBJECTS)} too.`,
    () => `So the fix is to make ${rng.pick(SUBJECTS)} stop treating ${rng.pick(OBJECTS)} as ${rng.pick(OBJECTS)} ${rng.pick(CLAUSES)}.`,
    () => `The log shows ${rng.pick(OBJECTS)} changing ${rng.pick(CLAUSES)}, so ${rng.pick(SUBJECTS)} is involved.`,
  ];
  return rng.pick(shapes)();
}

/** A thought of n sentences. */
export function thought(rng: Rng, n: number): string {
  return Array.from({ length: n }, () => sentence(rng)).join(" ");
}

/** Productive reasoning: paragraphs that each say something new. */
export function paragraphs(rng: Rng, n: number, sentences: [number, number] = [2, 4]): string[] {
  return Array.from({ length: n }, () => thought(rng, rng.int(sentences[0], sentences[1])));
}

/**
 * The thought said again in other words: about `share` of its words replaced (by a synonym, or a
 * filler inserted beside it), and sometimes a clause moved to the front or two sentences swapped.
 */
export function drift(rng: Rng, text: string, share: number, reorder = true): string {
  let out = text;
  if (reorder && rng.chance(0.3)) {
    const sentences = out.split(/(?<=[.!?]) /);
    if (sentences.length >= 2) {
      const i = rng.int(0, sentences.length - 2);
      [sentences[i], sentences[i + 1]] = [sentences[i + 1], sentences[i]];
      out = sentences.join(" ");
    }
  }
  if (reorder && rng.chance(0.3)) {
    // "X does Y when Z." -> "When Z, x does Y."
    out = out.replace(/^([A-Z][^.,]*?) ((?:before|when|after|because|while|unless|once|whenever|if|since|during|as soon as) [^.,]*)\./, (_m, main: string, clause: string) => `${cap(clause)}, ${main.charAt(0).toLowerCase()}${main.slice(1)}.`);
  }
  if (share <= 0) return out;
  const words = out.split(" ");
  return words.map((w) => {
    if (!rng.chance(share)) return w;
    const bare = w.toLowerCase().replace(/[^a-z]/g, "");
    const trail = w.match(/[^A-Za-z]*$/)?.[0] ?? "";
    const syn = SYNONYMS[bare];
    if (syn) return rng.pick(syn) + trail;
    return rng.chance(0.5) ? `${rng.pick(FILLER)} ${w}` : w.replace(/^[A-Za-z]+/, rng.pick(FILLER));
  }).join(" ");
}

export function opener(rng: Rng): string { return rng.pick(OPENERS); }

/** Short lines of two to five words, what a chanting model says over and over. */
export const CHANT_LINES = [
  "Let me check.", "I will continue.", "All done.", "Okay, proceeding.", "Let me verify this.", "Checking again now.",
  "This is correct.", "Moving on.", "The test passes.", "All good here.", "I am done now.", "Still the same.",
  "Let me think.", "That works.", "Try again.", "No change yet.", "Looks fine to me.", "Proceeding with the fix.",
  "I need to fix this.", "The build is green.", "Everything is ready.", "Let me re-run it.",
];

export const MODULES = [
  "auth", "billing", "cart", "catalog", "search", "shipping", "users", "orders", "payments", "inventory", "reports",
  "notifications", "sessions", "uploads", "settings", "webhooks", "metrics", "exports", "imports", "audit",
];

export const HEADINGS = [
  "Confirming the fix", "Verifying the approach", "Finalizing the solution", "Re-evaluating the change", "Double-checking the logic",
  "Settling on the fix", "Reviewing the conclusion", "Checking the reasoning", "Validating the plan", "Summarizing the fix",
  "Revisiting the approach", "Concluding the analysis",
];

/** Headings of genuinely different steps, as productive reasoning titles its sections. */
export const STEP_HEADINGS = [
  "Reading the failing test", "Tracing the config path", "Inspecting the cache", "Comparing the two schemas", "Looking at the retry loop",
  "Checking the lock order", "Reviewing the parser", "Planning the migration", "Examining the logs", "Testing the edge case",
  "Measuring the slowdown", "Narrowing the regression", "Writing the patch", "Updating the docs",
];
