/**
 * Reader for a Roo Code / Kilo Code task folder (`tasks/<id>/` under the extension's global storage):
 * `ui_messages.json` (what the chat showed, translated by the same translator the live adapter uses)
 * plus `api_conversation_history.json` for the tool results the chat does not show.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { TraceEvent } from "../engine/events";
import { snapshotMessage, type RooMessage } from "../hosts/roo/messages";
import { RooTaskTranslator } from "../hosts/roo/translator";
import { SessionFormatError, type ReadOptions, type RecordedSession, type SessionReader } from "./reader";
import { parseJsonDocument, readTextFile } from "./exportHelpers";

export const UI_MESSAGES = "ui_messages.json";
const API_HISTORY_NAMES = ["api_conversation_history.json", "claude_messages.json"];
/** Recorded reasoning is one block per message; replay passes it on line by line, as it streamed. */
const MAX_REPLAY_CHUNK = 240;
/** How far ahead in the API history a chat ask looks for its tool_use (denied or cancelled calls leave gaps). */
const TOOL_USE_LOOKAHEAD = 6;

interface ApiToolUse {
  name: string;
  result?: { ok: boolean; text: string };
}

function readJson(file: string): unknown {
  return parseJsonDocument(readTextFile(file, "roo-task"), file, "roo-task");
}

function blockText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((b) => (typeof b === "object" && b !== null && typeof (b as { text?: unknown }).text === "string" ? (b as { text: string }).text : "")).join("\n");
  }
  return "";
}

/** The chat cannot tell Roo's file-editing tools apart reliably (several show as "editedExistingFile"). */
const FILE_EDIT_TOOLS = new Set(["write_to_file", "apply_diff", "edit_file", "edit", "insert_content", "search_and_replace", "search_replace", "apply_patch"]);

/** A tool name comparable between the chat (translator) and the API history. */
function comparableName(name: string): string {
  return FILE_EDIT_TOOLS.has(name) ? "<edit>" : name;
}

/** Roo's native tool name as the translator names it (MCP calls carry server and tool in the input). */
function apiToolName(name: string, input: Record<string, unknown>): string {
  if (name === "use_mcp_tool") return `mcp__${String(input.server_name ?? "mcp")}__${String(input.tool_name ?? "unknown")}`;
  return comparableName(name);
}

/** Tool uses in call order with their results, from the API history (Anthropic message format). */
function apiToolUses(history: unknown): ApiToolUse[] {
  if (!Array.isArray(history)) return [];
  const uses: ApiToolUse[] = [];
  const byId = new Map<string, ApiToolUse>();
  for (const msg of history) {
    if (typeof msg !== "object" || msg === null || !Array.isArray((msg as { content?: unknown }).content)) continue;
    for (const block of (msg as { content: unknown[] }).content) {
      if (typeof block !== "object" || block === null) continue;
      const b = block as Record<string, unknown>;
      if (b.type === "tool_use" && typeof b.name === "string") {
        const input = typeof b.input === "object" && b.input !== null ? (b.input as Record<string, unknown>) : {};
        const use: ApiToolUse = { name: apiToolName(b.name, input) };
        uses.push(use);
        if (typeof b.id === "string") byId.set(b.id, use);
      } else if (b.type === "tool_result" && typeof b.tool_use_id === "string") {
        const use = byId.get(b.tool_use_id);
        if (use && !use.result) use.result = { ok: b.is_error !== true, text: blockText(b.content) };
      }
    }
  }
  return uses;
}

/**
 * Splits a long recorded delta into line-sized chunks, so interventions point into the text.
 * Linear in the text's length: the next newline is looked up once and kept until passed, and a
 * space to cut at is looked for only within the chunk (a text without spaces or newlines, such as
 * CJK reasoning or base64, must not be scanned to its end and back for every chunk).
 */
export function streamChunks(delta: string): string[] {
  const out: string[] = [];
  let start = 0;
  let nl = delta.indexOf("\n");
  while (start < delta.length) {
    if (nl !== -1 && nl < start) nl = delta.indexOf("\n", start);
    let end = nl === -1 ? delta.length : nl + 1;
    if (end - start > MAX_REPLAY_CHUNK) {
      end = start + MAX_REPLAY_CHUNK;
      const space = lastSpaceWithin(delta, start, end);
      if (space > start) end = space + 1;
    }
    out.push(delta.slice(start, end));
    start = end;
  }
  return out;
}

/** The last space at or before `end` and after `from`, or -1: looks at no more than end - from characters. */
function lastSpaceWithin(text: string, from: number, end: number): number {
  for (let i = Math.min(end, text.length - 1); i > from; i--) if (text.charCodeAt(i) === 0x20) return i;
  return -1;
}

/** Translates one task folder's messages, with tool results from the API history where the chat has none. */
export function translateTaskFolder(messages: RooMessage[], history: unknown): TraceEvent[] {
  const uses = apiToolUses(history);
  let next = 0;
  const settled = new Set<string>();
  const translator = new RooTaskTranslator();
  const out: TraceEvent[] = [];
  for (const m of messages) {
    for (const e of translator.message("created", m)) {
      if (e.t === "reasoning" || e.t === "text") {
        for (const delta of streamChunks(e.delta)) out.push({ ...e, delta });
        continue;
      }
      if (e.t === "tool_result") {
        if (settled.has(e.id)) continue;
        settled.add(e.id);
        out.push(e);
        continue;
      }
      out.push(e);
      if (e.t !== "tool_call" || e.id.endsWith("-missing")) continue;
      const wanted = comparableName(e.name);
      for (let k = next; k < Math.min(uses.length, next + TOOL_USE_LOOKAHEAD); k++) {
        if (uses[k].name !== wanted) continue;
        next = k + 1;
        const r = uses[k].result;
        if (r) {
          settled.add(e.id);
          out.push(r.ok ? { t: "tool_result", id: e.id, ok: true, output: r.text, ts: e.ts } : { t: "tool_result", id: e.id, ok: false, error: r.text, ts: e.ts });
        }
        break;
      }
    }
  }
  return out;
}

function taskFolderOf(p: string, isDirectory: boolean): string | undefined {
  if (isDirectory) return fs.existsSync(path.join(p, UI_MESSAGES)) ? p : undefined;
  return path.basename(p) === UI_MESSAGES ? path.dirname(p) : undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HOST_STORAGE = /(roo-cline|roo-code|kilo-code)/i;

/**
 * Cline leaves a `ui_messages.json` too. Roo's task ids are UUIDs (Cline's are timestamps), Roo
 * writes `history_item.json` (v3.49+), its storage folder names the extension, and its first
 * message is `say:"text"` (Cline's is `say:"task"`) with `apiProtocol` in every request.
 */
function looksLikeRoo(folder: string): boolean {
  if (UUID.test(path.basename(path.resolve(folder)))) return true;
  if (HOST_STORAGE.test(path.resolve(folder))) return true;
  if (fs.existsSync(path.join(folder, "history_item.json"))) return true;
  let head = "";
  try {
    const fd = fs.openSync(path.join(folder, UI_MESSAGES), "r");
    try {
      const buf = Buffer.alloc(4096);
      head = buf.subarray(0, fs.readSync(fd, buf, 0, buf.length, 0)).toString("utf8");
    } finally { fs.closeSync(fd); }
  } catch { return false; }
  return /^\s*\[\s*\{[^{}]*"say"\s*:\s*"text"/.test(head) || head.includes('\\"apiProtocol\\"');
}

export const rooTaskReader: SessionReader = {
  format: "roo-task",
  description: "Roo Code / Kilo Code task folder (tasks/<id>/ui_messages.json)",
  detect(p, isDirectory) {
    const folder = taskFolderOf(p, isDirectory);
    return folder !== undefined && looksLikeRoo(folder);
  },
  read(p, options: ReadOptions): RecordedSession[] {
    let isDirectory = false;
    try { isDirectory = fs.statSync(p).isDirectory(); } catch { /* reported below */ }
    const folder = taskFolderOf(p, isDirectory);
    if (!folder) throw new SessionFormatError(p, `not a Roo task folder (no ${UI_MESSAGES})`, undefined, "roo-task");
    const uiFile = path.join(folder, UI_MESSAGES);
    const raw = readJson(uiFile);
    if (!Array.isArray(raw)) throw new SessionFormatError(uiFile, "expected a JSON array of chat messages", undefined, "roo-task");
    const messages: RooMessage[] = [];
    let skipped = 0;
    raw.forEach((value, i) => {
      const m = snapshotMessage(value);
      if (m) { messages.push(m); return; }
      if (options.lenient) { skipped++; return; }
      throw new SessionFormatError(uiFile, `message ${i + 1} is not a chat message (needs a numeric "ts" and "type": "ask" or "say")`, undefined, "roo-task");
    });
    let history: unknown = [];
    const historyFile = API_HISTORY_NAMES.map((n) => path.join(folder, n)).find((f) => fs.existsSync(f));
    if (historyFile) {
      try { history = readJson(historyFile); } catch (err) {
        // Tool results are a refinement; the chat alone still replays.
        if (!options.lenient) throw err;
        skipped++;
      }
    }
    return [{ file: p, format: "roo-task", events: translateTaskFolder(messages, history), skipped }];
  },
};
