/**
 * Where the OpenCode plugin finds its settings and leaves its report, and how it reads them.
 *
 * Settings: one JSON file the extension writes from the user's `loopSentinel.*` settings (and a
 * user may write by hand): `$LOOP_SENTINEL_CONFIG`, else `$XDG_CONFIG_HOME/loop-sentinel/settings.json`
 * (`~/.config/...`). The same shapes as the CLI's `--config`: VS Code style keys
 * (`{"loopSentinel.mode": "warnOnly"}`), a `{"loopSentinel": {...}}` block, or the keys bare.
 * Read afresh when the file changes; a missing file means the defaults, a bad one its warnings.
 *
 * Report: append-only JSON lines in the user's own state folder (`$LOOP_SENTINEL_REPORT`, else
 * `$XDG_STATE_HOME/loop-sentinel/opencode.jsonl`), readable by that user only: no port, no socket.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isRecord } from "../../engine/json";
import { bounded } from "../../engine/printable";
import { ENGINE_SETTING_KEYS, readEngineSettings } from "../../engine/settingsReader";
import { detectorIdForSettingsName } from "../../engine/detectors";
import type { GuardSettings } from "./guard";

type Env = Record<string, string | undefined>;

/** Past this size the report starts a new file (the old one kept as .1): bounded on disk. */
const MAX_REPORT_BYTES = 4 * 1024 * 1024;

function configHome(env: Env): string {
  return env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config");
}

export function settingsFilePath(env: Env = process.env): string {
  return env.LOOP_SENTINEL_CONFIG || path.join(configHome(env), "loop-sentinel", "settings.json");
}

export function reportFilePath(env: Env = process.env): string {
  return env.LOOP_SENTINEL_REPORT || path.join(env.XDG_STATE_HOME || path.join(os.homedir(), ".local", "state"), "loop-sentinel", "opencode.jsonl");
}

/** The settings in a parsed file, whichever of the accepted shapes it has. */
export function settingsFromJson(raw: unknown): GuardSettings {
  if (!isRecord(raw)) return withWarnings(readEngineSettings(() => undefined), ["settings file: expected a JSON object; using the defaults"]);
  // Own keys only, into a map: "__proto__" or "constructor" in the file must not reach a prototype.
  const values = new Map<string, unknown>();
  const block = isRecord(raw.loopSentinel) && Object.hasOwn(raw, "loopSentinel") ? raw.loopSentinel : undefined;
  for (const [k, v] of Object.entries(raw)) {
    if (k.startsWith("loopSentinel.")) values.set(k.slice("loopSentinel.".length), v);
    else if (k !== "loopSentinel" && !block) values.set(k, v);
  }
  if (block) for (const [k, v] of Object.entries(block)) values.set(k, v);
  // The extension's detector settings by name (`sameToolCall.warnAt`) join the engine's `detectors` object.
  for (const [k, v] of [...values]) {
    const [name, param, ...more] = k.split(".");
    const id = param !== undefined && more.length === 0 ? detectorIdForSettingsName(name) : undefined;
    if (!id) continue;
    values.delete(k);
    const all = isRecord(values.get("detectors")) ? { ...(values.get("detectors") as Record<string, unknown>) } : {};
    const one = isRecord(all[id]) && Object.hasOwn(all, id) ? { ...(all[id] as Record<string, unknown>) } : {};
    Object.defineProperty(one, param, { value: v, enumerable: true, writable: true, configurable: true });
    Object.defineProperty(all, id, { value: one, enumerable: true, writable: true, configurable: true });
    values.set("detectors", all);
  }
  const read = readEngineSettings((key) => values.get(key));
  const unknown = [...values.keys()].filter((k) => !(ENGINE_SETTING_KEYS as readonly string[]).includes(k) && !EXTENSION_ONLY_KEYS.has(k));
  return { engine: read.engine, warnings: unknown.length > 0 ? [`settings file: unknown setting(s) ${unknown.map((k) => JSON.stringify(bounded(k))).join(", ")} ignored`, ...read.warnings] : read.warnings };
}

function withWarnings(s: { engine: GuardSettings["engine"]; warnings: string[] }, extra: string[]): GuardSettings {
  return { engine: s.engine, warnings: [...extra, ...s.warnings] };
}

/** Reads the settings file when it changed since the last read (by size and time); never throws. */
export class SettingsFile {
  private stamp = "";
  private current: GuardSettings = settingsFromJson({});

  constructor(readonly file: string) {}

  get(): GuardSettings {
    let stamp: string;
    try {
      const st = fs.statSync(this.file);
      stamp = `${st.mtimeMs}:${st.size}`;
    } catch {
      stamp = "missing";
    }
    if (stamp === this.stamp) return this.current;
    this.stamp = stamp;
    if (stamp === "missing") { this.current = settingsFromJson({}); return this.current; }
    try {
      this.current = settingsFromJson(JSON.parse(fs.readFileSync(this.file, "utf8")));
    } catch (err) {
      this.current = withWarnings(settingsFromJson({}), [`${this.file}: ${(err as Error).message}; using the defaults`]);
    }
    return this.current;
  }
}

/** Lines held before writing them out together: a streamed response is hundreds of small events. */
const MAX_BUFFERED_LINES = 64;
const FLUSH_AFTER_MS = 200;

/**
 * Appends JSON lines to a file only its user can read; a failure is given back once, never thrown.
 * `append(record, { soon: true })` may wait up to FLUSH_AFTER_MS to be written with others (the
 * stream's events); anything else is written at once, after what waits before it.
 */
export class JsonLinesFile {
  private failed = false;
  private ready = false;
  private buffer: string[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly file: string, private readonly onError: (message: string) => void = () => {}) {}

  append(record: unknown, options: { soon?: boolean } = {}): void {
    if (this.failed) return;
    this.buffer.push(JSON.stringify(record));
    if (options.soon && this.buffer.length < MAX_BUFFERED_LINES) {
      if (!this.timer) {
        this.timer = setTimeout(() => this.flush(), FLUSH_AFTER_MS);
        this.timer.unref?.();
      }
      return;
    }
    this.flush();
  }

  flush(): void {
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    if (this.buffer.length === 0 || this.failed) return;
    const text = this.buffer.join("\n") + "\n";
    this.buffer = [];
    try {
      if (!this.ready) {
        fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
        this.ready = true;
      }
      try {
        if (fs.statSync(this.file).size > MAX_REPORT_BYTES) fs.renameSync(this.file, `${this.file}.1`);
      } catch { /* not there yet */ }
      fs.appendFileSync(this.file, text, { mode: 0o600 });
    } catch (err) {
      this.failed = true;
      this.onError(`cannot write ${this.file}: ${(err as Error).message}`);
    }
  }
}

/** Settings of the extension alone: a file written by hand from settings.json may carry them; not the plugin's business. */
const EXTENSION_ONLY_KEYS: ReadonlySet<string> = new Set(["actionPolicy", "notifications", "cline.actionPolicy", "cline.dataFolders", "idleResetMinutes"]);

/** Writes the settings file from the extension's values of the engine's settings (the only ones the plugin reads; undefined ones left out), replaced whole. */
export function writeSettingsFile(file: string, get: (key: string) => unknown): void {
  const values: Record<string, unknown> = {};
  for (const k of ENGINE_SETTING_KEYS) { const v = get(k); if (v !== undefined) values[`loopSentinel.${k}`] = v; }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, JSON.stringify(values, null, 2) + "\n");
  fs.renameSync(temp, file);
}
