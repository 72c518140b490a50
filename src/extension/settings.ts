/**
 * `loopSentinel.*` settings → engine config + the shell's own choices. Pure (the caller passes a
 * reader over vscode's configuration), so it is unit-tested in plain Node. A bad value never
 * throws: it is reported in `warnings` and its default is used.
 */
import type { EngineConfig } from "../engine/config";
import { DETECTOR_DEFINITIONS } from "../engine/detectors";
import { readEngineSettings, type SettingsReader } from "../engine/settingsReader";
import { detectorSettingsName, LEGACY_DETECTORS_KEY, SETTINGS_SECTION, USER_ONLY_SETTINGS } from "./settingsSchema";

export type ActionPolicy = "automatic" | "ask";

export interface ShellSettings {
  engine: EngineConfig;
  actionPolicy: ActionPolicy;
  /** Per-host policy overriding actionPolicy: Cline asks first unless told otherwise. */
  hostPolicies: Record<string, ActionPolicy>;
  notifications: boolean;
  /** The stream guard in this window (user settings only): on or off, and the agents it points at itself. */
  streamGuard: { enabled: boolean; agents: StreamGuardAgent[] };
  /** One line per rejected value, named by its setting id. */
  warnings: string[];
  /** Detector settings read under their old keys (before issue 36); they keep working. */
  legacyRead: string[];
}

export type { SettingsReader };

export type StreamGuardAgent = "claude" | "codex" | "copilot";
const STREAM_GUARD_AGENTS: readonly StreamGuardAgent[] = ["claude", "codex", "copilot"];

/** Where a setting's values come from (vscode's `WorkspaceConfiguration.inspect`, the fields read here). */
export interface SettingLevels {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/**
 * A reader that takes workspace values only where the user lets a workspace decide: never for
 * USER_ONLY_SETTINGS, and for nothing at all in an untrusted workspace (Restricted Mode). VS Code
 * applies `scope` and `restrictedConfigurations` itself; this does not rely on it.
 */
export function trustAwareReader(get: SettingsReader, inspect: (key: string) => SettingLevels | undefined, trusted: boolean): SettingsReader {
  const userLevel = (key: string) => { const i = inspect(key); return i?.globalValue !== undefined ? i.globalValue : i?.defaultValue; };
  const detectorNames = new Set(DETECTOR_DEFINITIONS.map((d) => detectorSettingsName(d)));
  return (key) => {
    if (trusted && !USER_ONLY_SETTINGS.has(key)) return get(key);
    if (!USER_ONLY_SETTINGS.has(key) && (key === LEGACY_DETECTORS_KEY || detectorNames.has(key))) {
      // Thresholds are contributed one leaf setting each: read every leaf at user level.
      const leaves = (prefix: (d: (typeof DETECTOR_DEFINITIONS)[number]) => string) => {
        const out: Record<string, Record<string, unknown>> = {};
        for (const d of DETECTOR_DEFINITIONS) {
          if (key !== LEGACY_DETECTORS_KEY && detectorSettingsName(d) !== key) continue;
          for (const param of Object.keys(d.defaults)) {
            const v = userLevel(`${prefix(d)}.${param}`);
            if (v !== undefined) (out[d.id] ??= {})[param] = v;
          }
        }
        return out;
      };
      if (key === LEGACY_DETECTORS_KEY) return leaves((d) => `${LEGACY_DETECTORS_KEY}.${d.id}`);
      const [only] = Object.values(leaves((d) => detectorSettingsName(d)));
      return only;
    }
    return userLevel(key);
  };
}

/**
 * The engine's `detectors` object from the leaf settings a reader gives (the values the user set):
 * `sameToolCall.warnAt`, else the old `detectors.tool-repeat.warnAt`. Undefined when none is set.
 */
export function detectorsFromLeaves(value: (key: string) => unknown): Record<string, Record<string, unknown>> | undefined {
  const out: Record<string, Record<string, unknown>> = {};
  for (const d of DETECTOR_DEFINITIONS) {
    for (const param of Object.keys(d.defaults)) {
      const v = value(`${detectorSettingsName(d)}.${param}`) ?? value(`${LEGACY_DETECTORS_KEY}.${d.id}.${param}`);
      if (v !== undefined) (out[d.id] ??= {})[param] = v;
    }
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * The engine's `detectors` object from each detector's settings (`sameToolCall.warnAt`), a value
 * under the old key (`detectors.tool-repeat.warnAt`) counting where the new one is not set (or only
 * at its default): a user's old settings keep working. Returns the old keys that were read.
 */
export function readDetectorSettings(get: SettingsReader): { detectors: Record<string, Record<string, unknown>>; legacyRead: string[] } {
  const detectors: Record<string, Record<string, unknown>> = {};
  const legacyRead: string[] = [];
  const legacy = get(LEGACY_DETECTORS_KEY);
  const own = (o: unknown, k: string): unknown => (o !== null && typeof o === "object" && Object.hasOwn(o, k) ? (o as Record<string, unknown>)[k] : undefined);
  const put = (o: Record<string, unknown>, k: string, v: unknown) => Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  // The old object's other keys go to the engine as they are: it names the unknown ones (and never follows a prototype).
  if (legacy !== null && typeof legacy === "object" && !Array.isArray(legacy)) {
    for (const k of Object.keys(legacy)) {
      const v = (legacy as Record<string, unknown>)[k];
      if (!DETECTOR_DEFINITIONS.some((d) => d.id === k)) { put(detectors, k, v); continue; }
      // A known detector's old value that is no object holds no threshold: the new keys decide.
      if (v === null || typeof v !== "object" || Array.isArray(v)) continue;
      const known = Object.keys(DETECTOR_DEFINITIONS.find((d) => d.id === k)!.defaults);
      const rest: Record<string, unknown> = {};
      for (const p of Object.keys(v)) if (!known.includes(p)) put(rest, p, (v as Record<string, unknown>)[p]);
      if (Object.keys(rest).length) put(detectors, k, rest);
    }
  }
  for (const d of DETECTOR_DEFINITIONS) {
    const leaf = get(detectorSettingsName(d));
    for (const [param, fallback] of Object.entries(d.defaults)) {
      const value = own(leaf, param);
      const old = own(own(legacy, d.id), param);
      let chosen = value;
      if (old !== undefined && (value === undefined || value === fallback)) { chosen = old; legacyRead.push(`${SETTINGS_SECTION}.${LEGACY_DETECTORS_KEY}.${d.id}.${param}`); }
      if (chosen !== undefined) put((Object.hasOwn(detectors, d.id) ? detectors[d.id] : put(detectors, d.id, {})[d.id]) as Record<string, unknown>, param, chosen);
    }
  }
  return { detectors, legacyRead };
}

/** Names a detector setting in a warning as the Settings editor shows it (its key, not the engine's path). */
function userFacingKeys(warning: string): string {
  let w = warning;
  for (const d of DETECTOR_DEFINITIONS) w = w.split(`${LEGACY_DETECTORS_KEY}.${d.id}.`).join(`${detectorSettingsName(d)}.`);
  return w;
}

export function readShellSettings(get: SettingsReader): ShellSettings {
  const { detectors, legacyRead } = readDetectorSettings(get);
  const read = readEngineSettings((key) => (key === LEGACY_DETECTORS_KEY ? detectors : get(key)));
  const engine = read.engine;
  const warnings = read.warnings.map(userFacingKeys);

  let actionPolicy: ActionPolicy = "automatic";
  const policy = get("actionPolicy");
  if (policy === "automatic" || policy === "ask") actionPolicy = policy;
  else if (policy !== undefined) warnings.push(`loopSentinel.actionPolicy: expected "automatic" or "ask", got ${JSON.stringify(policy)}; using the default`);

  // Cline has no way to cancel one response and carry on: every action on it lands in the task
  // as a message or a new task, so by default the user decides first.
  let clinePolicy: ActionPolicy = "ask";
  const clineSetting = get("cline.actionPolicy");
  if (clineSetting === "automatic" || clineSetting === "ask") clinePolicy = clineSetting;
  else if (clineSetting !== undefined) warnings.push(`loopSentinel.cline.actionPolicy: expected "automatic" or "ask", got ${JSON.stringify(clineSetting)}; using the default`);

  let notifications = true;
  const notify = get("notifications");
  if (typeof notify === "boolean") notifications = notify;
  else if (notify !== undefined) warnings.push(`loopSentinel.notifications: expected true or false, got ${JSON.stringify(notify)}; using the default`);

  let guardOn = false;
  const guardSetting = get("streamGuard.enabled");
  if (typeof guardSetting === "boolean") guardOn = guardSetting;
  else if (guardSetting !== undefined) warnings.push(`loopSentinel.streamGuard.enabled: expected true or false, got ${JSON.stringify(guardSetting)}; the stream guard stays off`);
  let guardAgents: StreamGuardAgent[] = [...STREAM_GUARD_AGENTS];
  const agentsSetting = get("streamGuard.agents");
  if (Array.isArray(agentsSetting)) {
    const unknown = agentsSetting.filter((a) => !STREAM_GUARD_AGENTS.includes(a as StreamGuardAgent));
    if (unknown.length) warnings.push(`loopSentinel.streamGuard.agents: ${unknown.map((a) => JSON.stringify(a)).join(", ")} is not one of "claude", "codex", "copilot"; ignored`);
    guardAgents = STREAM_GUARD_AGENTS.filter((a) => agentsSetting.includes(a));
  } else if (agentsSetting !== undefined) warnings.push(`loopSentinel.streamGuard.agents: expected a list such as ["claude", "codex"], got ${JSON.stringify(agentsSetting)}; using the default`);

  // The Kilo / opencode plugin acts inside the agent's server by itself, and so does the stream
  // guard on the wire (a stream cannot wait for an answer): there is nothing to ask about.
  return { engine, actionPolicy, hostPolicies: { cline: clinePolicy, "opencode-plugin": "automatic", "stream-guard": "automatic" }, notifications, streamGuard: { enabled: guardOn, agents: guardAgents }, warnings, legacyRead };
}
