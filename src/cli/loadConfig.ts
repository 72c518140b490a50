/** Engine settings for the CLI: a JSON file (--config) and key=value overrides (--set). */
import * as fs from "node:fs";
import { applyOverride, resolveConfig, type EngineConfig } from "../engine/config";
import { UsageError } from "./args";

export function loadCliConfig(file: string | undefined, sets: string[], warn: (line: string) => void): EngineConfig {
  let raw: Record<string, unknown> = {};
  if (file !== undefined) {
    let text: string;
    try { text = fs.readFileSync(file, "utf8"); } catch (err) { throw new UsageError(`cannot read config ${file}: ${(err as Error).message}`); }
    try { raw = JSON.parse(text); } catch (err) { throw new UsageError(`${file}: not valid JSON (${(err as Error).message})`); }
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new UsageError(`${file}: settings must be a JSON object`);
    // Accept VS Code settings style too: {"loopSentinel.detectors": ...} or {"loopSentinel": {...}}.
    if (raw.loopSentinel && typeof raw.loopSentinel === "object") raw = raw.loopSentinel as Record<string, unknown>;
  }
  for (const s of sets) {
    try { applyOverride(raw, s); } catch (err) { throw new UsageError(`--set ${(err as Error).message}`); }
  }
  const { config, warnings } = resolveConfig(raw);
  for (const w of warnings) warn(`config: ${w}`);
  return config;
}
