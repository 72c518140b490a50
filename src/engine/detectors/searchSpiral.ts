/**
 * i. One pattern searched over more and more places with nothing found: the name is wrong or
 * the thing does not exist, and widening the search (src, the repo root, node_modules, /usr)
 * will not change that. Counts distinct scopes that came back empty for one pattern; any search
 * of it that finds something ends the spiral (a monorepo sweep where each package has hits is
 * work, not a spiral). Native search tools and shell grep/rg/find count alike.
 */
import { emptyPayload } from "../news";
import type { Detector, DetectorContext, DetectorDefinition, DetectorSettings, Finding } from "../detector";
import type { CallRecord, CallResult } from "../ledger";
import { BoundedMap } from "../boundedMap";
import { errorLine, hasContentLine } from "../signatures";

const MAX_PATTERNS = 256;
/** Empty scopes remembered per pattern. */
const MAX_SCOPES = 32;
const MAX_EVIDENCE = 16;
const MAX_READ_PATHS = 1024;

/**
 * Counts are places searched with nothing found. The count is reported when an empty answer comes
 * back, and again when the next new place is about to be searched (so that a block can refuse it).
 */
export const SEARCH_SPIRAL_DEFAULTS: DetectorSettings = { enabled: true, warnAt: 4, blockAt: 6, stopAt: 8 };

/** The first line of an answer that found nothing, across Roo, Cline, Claude Code, Gemini CLI, opencode and grep. */
const NOTHING_FOUND = /^(?:found 0 (?:results?|matches|files)|no (?:matches|results|files|matching files|match)\b|0 (?:results|matches|files)\b|nothing found|did not find any|could not find any)/i;

/**
 * Phrases one of which a line must hold for NOTHING_FOUND (each of its branches begins with one),
 * and the ones a failure's "not found" needs.
 */
const NOTHING_FOUND_PHRASE = /found 0 |no (?:match|result|file)|0 (?:result|match|file)|nothing found|did not find any|could not find any/i;
const NOT_FOUND = /no such file or directory|does not exist|not found/i;

/** Whether a search result says it found nothing. */
export function foundNothing(ok: boolean, text: string): boolean {
  // Without tags to strip (`<`), the error line is a piece of the text itself: when the text holds
  // none of the phrases, only the answer without a line at all says "nothing found", and that
  // needs no more than its first line read (most answers have hits: the error-line scan was the cost).
  if (!text.includes("<") && !NOTHING_FOUND_PHRASE.test(text) && (ok || !NOT_FOUND.test(text))) return !hasContentLine(text) || emptyPayload(text);
  const line = errorLine(text);
  if (line === "") return true; // grep and rg print nothing (and exit 1) when nothing matches
  if (NOTHING_FOUND.test(line)) return true;
  return !ok && NOT_FOUND.test(line);
}

/** foundNothing for a call's result, judged once (search-spiral and tool-progress both ask). */
export function foundNothingIn(result: CallResult): boolean {
  return (result.nothingFound ??= foundNothing(result.ok, result.text));
}

/**
 * One pattern, however it is quoted, escaped or loosened into a regex: `legacyAuthToken`,
 * `legacyAuthToken\b`, "legacy_auth_token"; `registerWebhook(Handler)?` and `register_?[Ww]ebhook`
 * lose their optional parts and keep one letter of each class.
 */
export function patternKey(pattern: string): string {
  return pattern.toLowerCase()
    .replace(/\\[bBwWsSdD]/g, "")
    .replace(/\((?:\?:)?[^()]*\)[?*]/g, "")
    .replace(/\[\^?([^\]\\])[^\]]*\]/g, "$1")
    .replace(/[^\p{L}\p{N}][?*]/gu, "")
    .replace(/[^\p{L}\p{N}]+/gu, "");
}

/**
 * The names a pattern can stand for: its key, and for a regex with optional parts the name with them
 * (`registerWebhook(Handler)?` → registerwebhook, registerwebhookhandler). Two patterns are one search
 * when their names meet; different names that merely contain one another (`comments`,
 * `item_comments`) are not.
 */
export function patternNames(pattern: string): readonly string[] {
  // A search's call and its answer ask in turn: the latest pattern's names are kept.
  if (pattern !== lastPattern) { lastNames = namesOf(pattern); lastPattern = pattern; }
  return lastNames;
}

let lastPattern: string | undefined;
let lastNames: readonly string[] = [];

function namesOf(pattern: string): readonly string[] {
  const key = patternKey(pattern);
  const full = patternKey(pattern.replace(/\((?:\?:)?([^()|]*)\)[?*]/g, "$1"));
  return full !== "" && full !== key ? [key, full] : [key];
}

/** Names remembered per spiral. */
const MAX_NAMES = 16;
/** Calls after which an empty search no longer continues the spiral: misses far apart are not one spiral. */
const MAX_GAP_CALLS = 15;

function scopeKey(scope: string): string {
  const s = scope.trim().replace(/^\.\/+/, "").replace(/\/+$/, "");
  return s === "" ? "." : s;
}

interface Spiral {
  pattern: string;
  /** The names of the patterns searched in this spiral (see patternNames). */
  names: Set<string>;
  /** The detector's call count and new-information count at the latest miss. */
  lastCall: number;
  infoAt: number;
  /** Scopes searched with nothing found, in order. */
  empty: string[];
  /** Searches that came back empty from a new place, a parallel batch counting once. */
  steps: number;
  /** The request of the latest counted search: the rest of its parallel batch is the same step. */
  lastRequest: number;
  /** Progress epoch of the spiral: after an edit, an empty search may be checking that it is gone. */
  epoch: number;
  events: number[];
}

class SearchSpiralDetector implements Detector {
  readonly id = "search-spiral" as const;
  private spirals = new BoundedMap<string, Spiral>(MAX_PATTERNS);
  /** Patterns that found something this session: later empty searches of them verify, not spiral. */
  private found = new BoundedMap<string, true>(MAX_PATTERNS);
  /** Files read successfully; a first read of one is new information. */
  private readPaths = new BoundedMap<string, true>(MAX_READ_PATHS);
  /** New information so far (first reads of files): a spiral is misses with none in between. */
  private info = 0;
  private calls = 0;
  private strongest = { count: 0, detail: "" };

  constructor(private readonly settings: DetectorSettings) {}

  /** The spiral a pattern belongs to (its own, or one of a regex variant of its name), with its key. */
  private spiralOf(names: readonly string[]): [string, Spiral] | undefined {
    const own = this.spirals.get(names[0]);
    if (own) return [names[0], own];
    for (const [k, sp] of this.spirals.entries()) if (names.some((n) => sp.names.has(n))) return [k, sp];
    return undefined;
  }

  private wasFound(names: readonly string[]): boolean {
    return names.some((n) => this.found.peek(n) !== undefined);
  }

  private finding(call: CallRecord, key: string, sp: Spiral, atCall: boolean): Finding {
    const count = sp.steps;
    if (count > this.strongest.count) this.strongest = { count, detail: `"${sp.pattern}" ${count}` };
    const next = atCall ? `, and now ${scopeKey(call.search?.scope ?? ".")} is next` : "";
    return {
      detector: this.id,
      key: `${this.id}:${key}`,
      count,
      tool: call.name,
      toolCallId: atCall ? call.id : undefined,
      summary: `"${sp.pattern}" searched in ${sp.empty.length} places (${sp.empty.slice(-5).join(", ")}) with nothing found${next}`,
      suggestion: "Widening the search will not help: the name is probably different. Search for a shorter or related term, list the files, or ask the user where it lives.",
      evidence: { events: [...sp.events], count, tool: call.name, pattern: sp.pattern, path: sp.empty[sp.empty.length - 1] },
    };
  }

  onToolCall(call: CallRecord, ctx: DetectorContext): Finding[] | void {
    this.calls++;
    if (!call.search) return;
    const names = patternNames(call.search.pattern);
    if (names[0] === "") return;
    const hit = this.spiralOf(names);
    if (!hit) return;
    const [spiralKey, sp] = hit;
    // The same place again is a plain repeat (tool-repeat's business), not a widening; the rest of a
    // parallel batch is the step already counted; after an edit the count starts over.
    if (sp.steps < 2 || sp.epoch !== ctx.epoch || call.requestIndex === sp.lastRequest || sp.empty.includes(scopeKey(call.search.scope))) return;
    // Something new was learnt since the latest miss, or it was long ago: this search is not the spiral's next step.
    if (sp.infoAt !== this.info || this.calls - sp.lastCall > MAX_GAP_CALLS) return;
    return [this.finding(call, spiralKey, sp, true)];
  }

  onToolResult(call: CallRecord, ctx: DetectorContext): Finding[] | void {
    if (call.reads && call.result?.ok) {
      // A file read for the first time is new information: empty searches around it are research, not a spiral.
      for (const r of call.reads) if (!this.readPaths.get(r.path)) { this.readPaths.set(r.path, true); this.info++; }
    }
    if (!call.search || !call.result) return;
    const names = patternNames(call.search.pattern);
    const key = names[0];
    if (key === "") return;
    if (!foundNothingIn(call.result)) {
      // Found something (or failed for another reason): not a spiral of empty searches.
      if (call.result.ok) {
        const hit = this.spiralOf(names);
        if (hit) this.spirals.delete(hit[0]);
        for (const n of names) this.found.set(n, true);
      }
      return;
    }
    // It was there before: an empty answer now checks that an edit removed it.
    if (this.wasFound(names)) return;
    const epoch = Math.max(call.epoch, ctx.epoch);
    let hit = this.spiralOf(names);
    // After an edit, after new information, or long after the latest miss, the count starts over.
    if (hit && (hit[1].epoch !== epoch || hit[1].infoAt !== this.info || this.calls - hit[1].lastCall > MAX_GAP_CALLS)) { this.spirals.delete(hit[0]); hit = undefined; }
    let sp = hit?.[1];
    const spiralKey = hit?.[0] ?? key;
    if (!sp) {
      sp = { pattern: call.search.pattern, names: new Set(), lastCall: this.calls, infoAt: this.info, empty: [], steps: 0, lastRequest: -1, epoch, events: [] };
      this.spirals.set(key, sp);
    }
    for (const n of names) if (sp.names.size < MAX_NAMES) sp.names.add(n);
    sp.lastCall = this.calls;
    const scope = scopeKey(call.search.scope);
    if (sp.empty.includes(scope)) return;
    sp.empty.push(scope);
    if (sp.empty.length > MAX_SCOPES) sp.empty.shift();
    sp.events.push(call.eventIndex, call.result.eventIndex);
    if (sp.events.length > MAX_EVIDENCE) sp.events.splice(0, sp.events.length - MAX_EVIDENCE);
    // A parallel fan-out over sibling places is one decision, not a widening per place.
    if (call.requestIndex === sp.lastRequest) return;
    sp.lastRequest = call.requestIndex;
    sp.steps++;
    if (sp.steps < 2) return;
    return [this.finding(call, spiralKey, sp, false)];
  }

  reset(): void {
    this.spirals.clear();
    this.found.clear();
    this.readPaths.clear();
    this.info = 0;
    this.calls = 0;
    this.strongest = { count: 0, detail: "" };
  }

  status() {
    const warnAt = this.settings.warnAt || 1;
    return { id: this.id, enabled: true, progress: Math.min(1, this.strongest.count / warnAt), detail: this.strongest.detail ? `${this.strongest.detail}/${warnAt}` : "" };
  }
}

export const searchSpiral: DetectorDefinition = {
  id: "search-spiral",
  title: "Search spiral",
  description: "One pattern searched in wider and wider places with nothing found.",
  channel: "tool",
  defaults: SEARCH_SPIRAL_DEFAULTS,
  create: (settings) => new SearchSpiralDetector(settings),
  shortTitle: "Search spiral",
  strength: {
    unit: "empty places",
    meaning: "places (folders, files, the whole project) searched for one pattern that came back with nothing found. Any search for that pattern that finds something starts the count over.",
  },
  parameters: {},
};
