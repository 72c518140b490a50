/**
 * Engine settings: defaults, merging of partial user settings, and validation that never throws
 * (a bad value gets a warning and its default; the extension shows the warning).
 */
import type { DetectorId, DetectorSettings } from "./detector";
import { DETECTOR_DEFINITIONS } from "./detectors";
import type { ToolNameLists } from "./toolKnowledge";
import { isRecord } from "./json";
import { bounded, quoted } from "./printable";

export type Mode = "intervene" | "warnOnly";

export interface ToolOverride {
  warnAt?: number;
  blockAt?: number;
  stopAt?: number;
  /** Calls of this tool are recorded but never the subject of an intervention. */
  exempt?: boolean;
}

export interface EngineConfig {
  enabled: boolean;
  /** warnOnly: every intervention is a warning; the task is never touched. */
  mode: Mode;
  /** A new user message starts every count afresh. */
  resetOnUserMessage: boolean;
  /** Counts start afresh after this much silence between events (ms, from event ts); 0 = never. */
  idleResetMs: number;
  /** Aborts of the stream allowed in one user turn before the next one becomes a stop. */
  maxAbortsPerTurn: number;
  detectors: Record<DetectorId, DetectorSettings>;
  /** Per-tool thresholds and exemptions, by the agent's tool name. */
  perTool: Record<string, ToolOverride>;
  /** Extra tool names per kind, for agents or MCP servers the defaults do not know. */
  toolNames: Partial<ToolNameLists>;
  /** Guidance templates per detector; {summary} and {suggestion} are filled in. */
  guidance: Partial<Record<DetectorId, string>>;
}

export type PartialEngineConfig = Partial<Omit<EngineConfig, "detectors">> & {
  detectors?: Partial<Record<DetectorId, Partial<DetectorSettings>>>;
};

export function defaultConfig(): EngineConfig {
  const detectors = {} as Record<DetectorId, DetectorSettings>;
  for (const d of DETECTOR_DEFINITIONS) detectors[d.id] = { ...d.defaults };
  return {
    enabled: true,
    mode: "intervene",
    resetOnUserMessage: true,
    idleResetMs: 30 * 60 * 1000,
    maxAbortsPerTurn: 2,
    detectors,
    perTool: {},
    toolNames: {},
    guidance: {},
  };
}

export interface ResolvedConfig {
  config: EngineConfig;
  /** One line per rejected value: "detectors.tool-repeat.warnAt: expected a whole number ≥ 0, got -1". */
  warnings: string[];
}

const RUNGS = ["warnAt", "blockAt", "stopAt"] as const;

/** Merges user settings over the defaults, keeping each default whose override is invalid. */
export function resolveConfig(given: unknown): ResolvedConfig {
  const config = defaultConfig();
  const warnings: string[] = [];
  if (given === undefined || given === null) return { config, warnings };
  if (!isRecord(given)) return { config, warnings: ["settings must be an object; using the defaults"] };
  // Settings are looked up by their own keys only: a key such as "__proto__", "constructor" or
  // "toString" must never reach an object's prototype (reading it, or worse, writing through it).
  const input = ownEntries(given);
  const reject = (path: string, expected: string, got: unknown) =>
    warnings.push(`${path}: expected ${expected}, got ${shown(got)}; using the default`);

  const known = new Set(["enabled", "mode", "resetOnUserMessage", "idleResetMs", "maxAbortsPerTurn", "detectors", "perTool", "toolNames", "guidance"]);
  for (const k of Object.keys(input)) if (!known.has(k)) warnings.push(`${bounded(k)}: unknown setting, ignored`);

  const bool = (k: "enabled" | "resetOnUserMessage") => {
    if (input[k] === undefined) return;
    if (typeof input[k] === "boolean") config[k] = input[k] as boolean; else reject(k, "true or false", input[k]);
  };
  bool("enabled");
  bool("resetOnUserMessage");
  if (input.mode !== undefined) {
    if (input.mode === "intervene" || input.mode === "warnOnly") config.mode = input.mode; else reject("mode", `"intervene" or "warnOnly"`, input.mode);
  }
  const count = (path: string, v: unknown): v is number => {
    if (typeof v === "number" && Number.isFinite(v) && v >= 0) return true;
    reject(path, "a number ≥ 0", v);
    return false;
  };
  // A rung is a number of repeats: a fraction would silently mean the next whole number.
  const rung = (path: string, v: unknown): v is number => {
    if (typeof v === "number" && Number.isInteger(v) && v >= 0) return true;
    reject(path, "a whole number ≥ 0", v);
    return false;
  };
  if (input.idleResetMs !== undefined && count("idleResetMs", input.idleResetMs)) config.idleResetMs = input.idleResetMs;
  if (input.maxAbortsPerTurn !== undefined && count("maxAbortsPerTurn", input.maxAbortsPerTurn)) config.maxAbortsPerTurn = Math.floor(input.maxAbortsPerTurn);

  if (input.detectors !== undefined) {
    if (!isRecord(input.detectors)) reject("detectors", "an object", input.detectors);
    else for (const [id, overrides] of Object.entries(input.detectors)) {
      const target = ownValue(config.detectors, id);
      if (!target) { warnings.push(`detectors.${bounded(id)}: unknown detector, ignored`); continue; }
      if (!isRecord(overrides)) { reject(`detectors.${id}`, "an object", overrides); continue; }
      for (const [param, value] of Object.entries(overrides)) {
        const path = `detectors.${id}.${bounded(param)}`;
        const current = Object.hasOwn(target, param) ? target[param] : undefined;
        if (current === undefined) { warnings.push(`${path}: unknown parameter, ignored`); continue; }
        if (typeof current === "boolean") {
          if (typeof value === "boolean") target[param] = value; else reject(path, "true or false", value);
        } else if ((RUNGS as readonly string[]).includes(param) ? rung(path, value) : count(path, value)) target[param] = value as number;
      }
      checkRungOrder(`detectors.${id}`, target, target, DETECTOR_DEFAULTS.get(id as DetectorId), warnings);
    }
  }

  if (input.perTool !== undefined) {
    if (!isRecord(input.perTool)) reject("perTool", "an object", input.perTool);
    else for (const [tool, o] of Object.entries(input.perTool)) {
      if (UNSAFE_KEYS.has(tool)) { warnings.push(`perTool.${tool}: not a usable tool name, ignored`); continue; }
      const toolPath = `perTool.${bounded(tool)}`;
      if (!isRecord(o)) { reject(toolPath, "an object", o); continue; }
      const clean: ToolOverride = {};
      for (const k of Object.keys(o)) if (!(RUNGS as readonly string[]).includes(k) && k !== "exempt") warnings.push(`${toolPath}.${bounded(k)}: unknown setting, ignored`);
      for (const r of RUNGS) if (Object.hasOwn(o, r) && o[r] !== undefined && rung(`${toolPath}.${r}`, o[r])) clean[r] = o[r] as number;
      checkRungOrder(toolPath, clean as Record<string, unknown>, clean as Record<string, unknown>, undefined, warnings);
      if (Object.hasOwn(o, "exempt") && o.exempt !== undefined) {
        if (typeof o.exempt === "boolean") clean.exempt = o.exempt; else reject(`${toolPath}.exempt`, "true or false", o.exempt);
      }
      config.perTool[tool] = clean;
    }
  }

  if (input.toolNames !== undefined) {
    if (!isRecord(input.toolNames)) reject("toolNames", "an object", input.toolNames);
    else for (const [kind, names] of Object.entries(input.toolNames)) {
      if (!["read", "write", "edit", "search", "list", "command", "fetch"].includes(kind)) { warnings.push(`toolNames.${bounded(kind)}: unknown tool kind, ignored`); continue; }
      if (!Array.isArray(names) || !names.every((n) => typeof n === "string")) { reject(`toolNames.${kind}`, "a list of tool names", names); continue; }
      config.toolNames[kind as keyof ToolNameLists] = names as string[];
    }
  }

  if (input.guidance !== undefined) {
    if (!isRecord(input.guidance)) reject("guidance", "an object", input.guidance);
    else for (const [id, text] of Object.entries(input.guidance)) {
      if (!ownValue(config.detectors, id)) { warnings.push(`guidance.${bounded(id)}: unknown detector, ignored`); continue; }
      if (typeof text !== "string" || text.trim() === "") { reject(`guidance.${id}`, "a non-empty text", text); continue; }
      config.guidance[id as DetectorId] = text;
    }
  }
  return { config, warnings };
}

/** `o[key]` when `key` is o's own property; never a value inherited from a prototype. */
function ownValue<T>(o: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

/** The own properties of `o`, in an object without a prototype (so a missing key reads undefined). */
function ownEntries(o: Record<string, unknown>): Record<string, unknown> {
  const out = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(o)) out[k] = v;
  return out;
}

/** Keys that would reach an object's prototype instead of a setting. */
export const UNSAFE_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** A value as a warning shows it (JSON would print Infinity as null), cut to a bound. */
function shown(v: unknown): string {
  return typeof v === "number" && !Number.isFinite(v) ? String(v) : bounded(JSON.stringify(v) ?? String(v));
}

const DETECTOR_DEFAULTS = new Map(DETECTOR_DEFINITIONS.map((d) => [d.id, d.defaults]));

/**
 * The rungs must climb: warn before block before stop (0 switches a rung off). Out of order, the
 * settings' rungs are reset to the given defaults (none: removed) and the warning says why.
 */
function checkRungOrder(path: string, given: Record<string, unknown>, target: Record<string, unknown>, defaults: Record<string, unknown> | undefined, warnings: string[]): void {
  const on = RUNGS.filter((r) => typeof given[r] === "number" && (given[r] as number) > 0);
  for (let i = 1; i < on.length; i++) {
    if ((given[on[i]] as number) >= (given[on[i - 1]] as number)) continue;
    warnings.push(`${path}: rungs out of order (${RUNGS.map((r) => `${r} ${shown(given[r])}`).join(", ")}); expected warnAt ≤ blockAt ≤ stopAt (0 = off); using the default rungs`);
    for (const r of RUNGS) { if (defaults && defaults[r] !== undefined) target[r] = defaults[r]; else delete target[r]; }
    return;
  }
}

/** Applies "a.b.c=value" overrides (CLI --set, stats calibration) on top of a config object. */
export function applyOverride(target: Record<string, unknown>, assignment: string): void {
  const eq = assignment.indexOf("=");
  if (eq <= 0) throw new Error(`expected key=value, got ${quoted(assignment)}`);
  const path = assignment.slice(0, eq).split(".");
  const bad = path.find((p) => p === "" || UNSAFE_KEYS.has(p));
  if (bad !== undefined) throw new Error(`${bounded(assignment.slice(0, eq))}: ${bad === "" ? "an empty key" : `"${bad}"`} is not a setting`);
  const raw = assignment.slice(eq + 1);
  let value: unknown = raw;
  if (raw === "true" || raw === "false") value = raw === "true";
  else if (raw.trim() !== "" && !Number.isNaN(Number(raw))) {
    value = Number(raw);
    if (!Number.isFinite(value)) throw new Error(`${bounded(assignment.slice(0, eq))}: ${bounded(raw)} is not a finite number`);
  }
  let node = target;
  for (const p of path.slice(0, -1)) {
    if (!isRecord(node[p])) node[p] = {};
    node = node[p] as Record<string, unknown>;
  }
  node[path[path.length - 1]] = value;
}
