/** Engine settings for the CLI: a JSON file (--config) and key=value overrides (--set). */
import * as fs from "node:fs";
import { applyOverride, resolveConfig, UNSAFE_KEYS, type EngineConfig } from "../engine/config";
import { isRecord } from "../engine/json";
import { detectorIdForSettingsName } from "../engine/detectors";

const SECTION = "loopSentinel.";
/** Settings of the extension alone (how it acts in VS Code): meaningless to the CLI, so passed over quietly. */
const EXTENSION_ONLY = new Set(["actionPolicy", "notifications", "cline.actionPolicy", "cline.dataFolders"]);

/**
 * A VS Code settings.json in its flat form (`"loopSentinel.mode": "warnOnly"`,
 * `"loopSentinel.detectors.tool-repeat.warnAt": 4`) as engine settings; other extensions' keys are
 * not ours and are left alone. `idleResetMinutes` is the extension's unit for `idleResetMs`.
 */
function fromFlatSettings(raw: Record<string, unknown>, file: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!key.startsWith(SECTION)) continue;
    const name = key.slice(SECTION.length);
    if (EXTENSION_ONLY.has(name)) continue;
    if (name === "idleResetMinutes") { out.idleResetMs = typeof value === "number" ? value * 60_000 : value; continue; }
    let path = name.split(".");
    if (path.some((p) => p === "" || UNSAFE_KEYS.has(p))) throw new UsageError(`${file}: ${quoted(key)} is not a setting`);
    // The extension's detector settings by name (`loopSentinel.sameToolCall.warnAt`) are detectors.<id>.<param> here.
    const id = path.length === 2 ? detectorIdForSettingsName(path[0]) : undefined;
    if (id) path = ["detectors", id, path[1]];
    let node = out;
    for (const p of path.slice(0, -1)) {
      if (!isRecord(node[p])) node[p] = {};
      node = node[p] as Record<string, unknown>;
    }
    node[path[path.length - 1]] = value;
  }
  return out;
}
import { UsageError } from "./args";
import { quoted } from "../engine/printable";

export function loadCliConfig(file: string | undefined, sets: string[], warn: (line: string) => void): EngineConfig {
  let raw: Record<string, unknown> = {};
  if (file !== undefined) {
    let text: string;
    try { text = fs.readFileSync(file, "utf8"); } catch (err) { throw new UsageError(`cannot read config ${file}: ${(err as Error).message}`); }
    try { raw = JSON.parse(text.replace(/^\uFEFF/, "")); } catch (err) { throw new UsageError(`${file}: not valid JSON (${(err as Error).message})`); }
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new UsageError(`${file}: settings must be a JSON object`);
    // Accept VS Code settings style too: {"loopSentinel.mode": ...} (settings.json) or {"loopSentinel": {...}}.
    if (isRecord(raw.loopSentinel)) raw = raw.loopSentinel;
    else if (Object.keys(raw).some((k) => k.startsWith(SECTION))) raw = fromFlatSettings(raw, file);
  }
  for (const s of sets) {
    try { applyOverride(raw, s); } catch (err) { throw new UsageError(`--set ${(err as Error).message}`); }
  }
  const { config, warnings } = resolveConfig(raw);
  for (const w of warnings) warn(`config: ${w}`);
  return config;
}
