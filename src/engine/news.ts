/**
 * What an outcome tells: the judgements of news the tool detectors share, so that each does not
 * decide on its own, from a call's look, what counts as new.
 *
 * - A call that moves a cursor forward (page 2 after page 1, lines 51-100 after 1-50, `--offset 200`
 *   after 100) asks about ground not yet covered: its answer is news even when its words were seen
 *   before (every full page answers "100"). Going back to a window already read is not.
 * - An answer wrapped in a host's envelope around an empty payload (`{"content":[{"text":"{\"items\":[]}"}]}`)
 *   found nothing, however many characters the envelope has.
 * - An edit or write whose answer says it was not applied (SWE-agent's "Your changes have NOT been
 *   applied", an editor's "no replacement was performed") failed, whatever status the tool gave:
 *   the result's words are the status. So did one whose answer opens with an error or usage line
 *   ("Error: File 'x' already exists.", "usage: create <filename>", "mkdir: cannot create directory").
 */
import { BoundedMap } from "./boundedMap";

/** Call templates whose latest numbers are remembered. */
const MAX_TEMPLATES = 256;
/** Numbers of a call that are read; a call with more is no cursor (a data blob). */
const MAX_NUMBERS = 12;
const NUMBER = /\d+/g;
/** Calls longer than this are read as content, not as a cursor. */
const MAX_CALL_CHARS = 600;

/**
 * Remembers, per call template (the call with its numbers masked), the numbers of its latest call,
 * to tell a call that moves forward over its previous one.
 */
export class CursorMemory {
  private readonly latest = new BoundedMap<string, number[]>(MAX_TEMPLATES);

  /**
   * Whether this call repeats the latest one of its template with its numbers moved forward: none
   * lower, one higher at least. Records the call either way.
   */
  advances(call: string): boolean {
    // A cursor is a short call (a page, a window, an offset); a long input is content (a write).
    if (call.length > MAX_CALL_CHARS) return false;
    NUMBER.lastIndex = 0;
    if (!NUMBER.test(call)) return false;
    const numbers: number[] = [];
    const template = call.replace(NUMBER, (n) => { numbers.push(Number(n)); return "#"; });
    if (numbers.length > MAX_NUMBERS) return false;
    const before = this.latest.get(template);
    this.latest.set(template, numbers);
    if (before === undefined || before.length !== numbers.length) return false;
    let forward = false;
    for (let i = 0; i < numbers.length; i++) {
      if (numbers[i] < before[i]) return false;
      if (numbers[i] > before[i]) forward = true;
    }
    return forward;
  }

  clear(): void { this.latest.clear(); }
}

/** JSON envelopes whose text field carries the payload (MCP's content list, a bare result). */
const ENVELOPE_START = /^\s*[[{]/;

/**
 * Whether an answer is an envelope of JSON around an empty payload: every leaf is an empty list,
 * an empty object, null, an empty string, zero or false, once text fields holding JSON are read
 * as JSON. Field names and type tags ("type": "text") are the envelope's, not content.
 */
export function emptyPayload(text: string): boolean {
  if (text.length > 4096 || !ENVELOPE_START.test(text)) return false;
  let doc: unknown;
  try { doc = JSON.parse(text); } catch { return false; }
  return isEmptyValue(doc, 0);
}

/** Keys whose string values tag the envelope rather than carry content. */
const TAG_KEYS = new Set(["type", "role", "mimeType", "mime_type", "kind", "object", "status", "ok", "success", "isError", "is_error"]);

function isEmptyValue(v: unknown, depth: number): boolean {
  if (depth > 8) return false;
  if (v === null || v === false || v === 0 || v === "") return true;
  if (typeof v === "string") {
    if (!ENVELOPE_START.test(v)) return false;
    try { return isEmptyValue(JSON.parse(v), depth + 1); } catch { return false; }
  }
  if (Array.isArray(v)) return v.every((x) => isEmptyValue(x, depth + 1));
  if (typeof v === "object") {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (TAG_KEYS.has(k) && (typeof x === "string" || typeof x === "boolean")) continue;
      if (!isEmptyValue(x, depth + 1)) return false;
    }
    return true;
  }
  return false;
}

/**
 * An editor's words for a change it did not make. Phrases, not single words: "rejected" alone is a
 * test's or a validator's word for its own input, not the editor's for the edit.
 */
const NOT_APPLIED = /\b(?:has|have|was|were|is|are) not (?:been )?applied\b|\b(?:edit|change|patch|diff|modification|write|replacement)s? (?:was |were |has been |have been )?(?:rejected|reverted|discarded|declined)\b|\bfailed to (?:apply|edit|write|replace|patch|update the file)\b|\bno replacement was performed\b|\bdid not appear verbatim\b|\b(?:edit|change)s? (?:has |have )?introduced (?:new )?syntax error/i;
/** How much of each end of an answer is read: the status is said first or last (after the would-be file). */
const STATUS_CHARS = 600;

/** Whether an edit's or write's answer says the change was not made. */
export function saysNotApplied(text: string): boolean {
  if (text.length <= 2 * STATUS_CHARS) return NOT_APPLIED.test(text);
  return NOT_APPLIED.test(text.slice(0, STATUS_CHARS)) || NOT_APPLIED.test(text.slice(-STATUS_CHARS));
}

/**
 * The first line of a change's answer naming a failure: an error or usage label, or a program's
 * "name: cannot/No such file/Permission denied" complaint. Read on the first line only: a change's
 * answer that goes on to show a file may quote any text below it.
 */
const LEADING_FAILURE = /^\s*(?:(?:error|fatal|usage)\b\s*[:!-]|[\w.\/-]+: (?:cannot|can't|could not|no such file|permission denied|not a directory|is a directory|file exists|missing (?:file )?operand|invalid option|unrecognized option|command not found))/i;

/** Whether a change's answer opens by saying it failed. */
export function leadsWithFailure(text: string): boolean {
  const start = text.search(/\S/);
  if (start < 0) return false;
  const end = text.indexOf("\n", start);
  return LEADING_FAILURE.test(text.slice(start, end < 0 ? Math.min(text.length, start + 300) : Math.min(end, start + 300)));
}
