/**
 * The engine's part of the `loopSentinel.*` settings, read through any source of values: VS Code's
 * configuration (src/extension/settings.ts) or the opencode plugin's settings file
 * (src/hosts/opencode/settingsFile.ts). Pure; a bad value never throws: it is reported in
 * `warnings` and its default is used.
 */
import { resolveConfig, type EngineConfig } from "./config";
import { isRecord } from "./json";

/** Reads one setting below `loopSentinel.` (undefined when neither set nor contributed). */
export type SettingsReader = (key: string) => unknown;

/** The `loopSentinel.*` settings that make the engine's config (the rest are how the extension acts). */
export const ENGINE_SETTING_KEYS = ["enabled", "mode", "resetOnUserMessage", "idleResetMinutes", "maxAbortsPerTurn", "detectors", "perTool", "toolNames", "guidance"] as const;

const MINUTE_MS = 60_000;

/** Empty guidance texts mean "use the built-in text", not an invalid value. */
function withoutEmptyTexts(v: unknown): unknown {
  if (!isRecord(v)) return v;
  return Object.fromEntries(Object.entries(v).filter(([, text]) => !(typeof text === "string" && text.trim() === "")));
}

/** The engine config in the settings, with one warning line per rejected value, named by its setting id. */
export function readEngineSettings(get: SettingsReader): { engine: EngineConfig; warnings: string[] } {
  const warnings: string[] = [];
  const input: Record<string, unknown> = {};
  const copy = (key: string, target = key) => { const v = get(key); if (v !== undefined) input[target] = v; };
  copy("enabled");
  copy("mode");
  copy("resetOnUserMessage");
  copy("maxAbortsPerTurn");
  copy("detectors");
  copy("perTool");
  copy("toolNames");
  const guidance = get("guidance");
  if (guidance !== undefined) input.guidance = withoutEmptyTexts(guidance);
  const idle = get("idleResetMinutes");
  if (idle !== undefined) {
    if (typeof idle === "number" && Number.isFinite(idle) && idle >= 0) input.idleResetMs = idle * MINUTE_MS;
    else warnings.push(`loopSentinel.idleResetMinutes: expected a number ≥ 0, got ${JSON.stringify(idle)}; using the default`);
  }
  const resolved = resolveConfig(input);
  for (const w of resolved.warnings) warnings.push(`loopSentinel.${w}`);
  return { engine: resolved.config, warnings };
}
