/**
 * i. One pattern searched over more and more places with nothing found: the name is wrong or
 * the thing does not exist, and widening the search (src, the repo root, node_modules, /usr)
 * will not change that. Counts distinct scopes that came back empty for one pattern; any search
 * of it that finds something ends the spiral (a monorepo sweep where each package has hits is
 * work, not a spiral). Native search tools and shell grep/rg/find count alike.
 */
import type { Detector, DetectorDefinition, DetectorSettings, Finding } from "../detector";
import type { CallRecord } from "../ledger";
import { BoundedMap } from "../boundedMap";
import { errorLine } from "../signatures";

const MAX_PATTERNS = 256;
/** Empty scopes remembered per pattern. */
const MAX_SCOPES = 32;
const MAX_EVIDENCE = 16;

/**
 * Counts are places searched with nothing found. The count is reported when an empty answer comes
 * back, and again when the next new place is about to be searched (so that a block can refuse it).
 */
export const SEARCH_SPIRAL_DEFAULTS: DetectorSettings = { enabled: true, warnAt: 4, blockAt: 6, stopAt: 8 };

/** The first line of an answer that found nothing, across Roo, Cline, Claude Code, Gemini CLI, opencode and grep. */
const NOTHING_FOUND = /^(?:found 0 (?:results?|matches|files)|no (?:matches|results|files|matching files|match)\b|0 (?:results|matches|files)\b|nothing found|did not find any|could not find any)/i;

/** Whether a search result says it found nothing. */
export function foundNothing(ok: boolean, text: string): boolean {
  const line = errorLine(text);
  if (line === "") return true; // grep and rg print nothing (and exit 1) when nothing matches
  if (NOTHING_FOUND.test(line)) return true;
  return !ok && /no such file or directory|does not exist|not found/i.test(line);
}

/** One pattern, however it is quoted or escaped: `legacyAuthToken`, `legacyAuthToken\b`, "legacy_auth_token". */
export function patternKey(pattern: string): string {
  return pattern.toLowerCase().replace(/\\[bBwWsSdD]/g, "").replace(/[^\p{L}\p{N}]+/gu, "");
}

function scopeKey(scope: string): string {
  const s = scope.trim().replace(/^\.\/+/, "").replace(/\/+$/, "");
  return s === "" ? "." : s;
}

interface Spiral {
  pattern: string;
  /** Scopes searched with nothing found, in order. */
  empty: string[];
  events: number[];
}

class SearchSpiralDetector implements Detector {
  readonly id = "search-spiral" as const;
  private spirals = new BoundedMap<string, Spiral>(MAX_PATTERNS);
  private strongest = { count: 0, detail: "" };

  constructor(private readonly settings: DetectorSettings) {}

  private finding(call: CallRecord, key: string, sp: Spiral, atCall: boolean): Finding {
    const count = sp.empty.length;
    if (count > this.strongest.count) this.strongest = { count, detail: `"${sp.pattern}" ${count}` };
    const next = atCall ? `, and now ${scopeKey(call.search?.scope ?? ".")} is next` : "";
    return {
      detector: this.id,
      key: `${this.id}:${key}`,
      count,
      tool: call.name,
      toolCallId: atCall ? call.id : undefined,
      summary: `"${sp.pattern}" searched in ${count} places (${sp.empty.slice(-5).join(", ")}) with nothing found${next}`,
      suggestion: "Widening the search will not help: the name is probably different. Search for a shorter or related term, list the files, or ask the user where it lives.",
      evidence: { events: [...sp.events], count, tool: call.name, pattern: sp.pattern, path: sp.empty[sp.empty.length - 1] },
    };
  }

  onToolCall(call: CallRecord): Finding[] | void {
    if (!call.search) return;
    const key = patternKey(call.search.pattern);
    if (key === "") return;
    const sp = this.spirals.get(key);
    // The same place again is a plain repeat (tool-repeat's business), not a widening.
    if (!sp || sp.empty.length < 2 || sp.empty.includes(scopeKey(call.search.scope))) return;
    return [this.finding(call, key, sp, true)];
  }

  onToolResult(call: CallRecord): Finding[] | void {
    if (!call.search || !call.result) return;
    const key = patternKey(call.search.pattern);
    if (key === "") return;
    if (!foundNothing(call.result.ok, call.result.text)) {
      // Found something (or failed for another reason): not a spiral of empty searches.
      if (call.result.ok) this.spirals.delete(key);
      return;
    }
    let sp = this.spirals.get(key);
    if (!sp) {
      sp = { pattern: call.search.pattern, empty: [], events: [] };
      this.spirals.set(key, sp);
    }
    const scope = scopeKey(call.search.scope);
    if (sp.empty.includes(scope)) return;
    sp.empty.push(scope);
    if (sp.empty.length > MAX_SCOPES) sp.empty.shift();
    sp.events.push(call.eventIndex, call.result.eventIndex);
    if (sp.events.length > MAX_EVIDENCE) sp.events.splice(0, sp.events.length - MAX_EVIDENCE);
    if (sp.empty.length < 2) return;
    return [this.finding(call, key, sp, false)];
  }

  reset(): void {
    this.spirals.clear();
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
};
