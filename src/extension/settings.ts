/**
 * `loopSentinel.*` settings → engine config + the shell's own choices. Pure (the caller passes a
 * reader over vscode's configuration), so it is unit-tested in plain Node. A bad value never
 * throws: it is reported in `warnings` and its default is used.
 */
import type { EngineConfig } from "../engine/config";
import { DETECTOR_DEFINITIONS } from "../engine/detectors";
import { readEngineSettings, type SettingsReader } from "../engine/settingsReader";
import { USER_ONLY_SETTINGS } from "./settingsSchema";

export type ActionPolicy = "automatic" | "ask";

export interface ShellSettings {
  engine: EngineConfig;
  actionPolicy: ActionPolicy;
  /** Per-host policy overriding actionPolicy: Cline asks first unless told otherwise. */
  hostPolicies: Record<string, ActionPolicy>;
  notifications: boolean;
  /** One line per rejected value, named by its setting id. */
  warnings: string[];
}

export type { SettingsReader };

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
  return (key) => {
    if (trusted && !USER_ONLY_SETTINGS.has(key)) return get(key);
    if (!USER_ONLY_SETTINGS.has(key) && key === "detectors") {
      // Thresholds are contributed one leaf setting each: read every leaf at user level.
      const detectors: Record<string, Record<string, unknown>> = {};
      for (const d of DETECTOR_DEFINITIONS) {
        for (const param of Object.keys(d.defaults)) {
          const v = userLevel(`detectors.${d.id}.${param}`);
          if (v !== undefined) (detectors[d.id] ??= {})[param] = v;
        }
      }
      return detectors;
    }
    return userLevel(key);
  };
}

export function readShellSettings(get: SettingsReader): ShellSettings {
  const { engine, warnings } = readEngineSettings(get);

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

  // The Kilo / opencode plugin acts inside the agent's server by itself: there is nothing to ask about.
  return { engine, actionPolicy, hostPolicies: { cline: clinePolicy, "opencode-plugin": "automatic" }, notifications, warnings };
}
