/**
 * Reader for Gemini CLI saved chats, in the three shapes the CLI writes under
 * `~/.gemini/tmp/<project-hash>/`:
 *
 * - `/chat save <tag>` checkpoints `checkpoint-<tag>.json`: the model history, a list of
 *   Content `{"role": "user"|"model", "parts": [...]}` (older files), or `{"history": [...]}`.
 *   Parts are `{text}` (with `thought: true` for thinking), `{functionCall: {id?, name, args}}`
 *   and `{functionResponse: {id?, name, response: {output} | {error}}}`.
 * - recorded sessions `chats/session-<time>-<id>.json`: one ConversationRecord
 *   `{"sessionId", "projectHash", "messages": [...]}`; a message has `type` user | gemini | info |
 *   error | warning, `content`, and for gemini `thoughts`, `tokens`, `model`, `toolCalls`
 *   (`{id, name, args, result, status}`).
 * - the same as JSONL (`session-*.jsonl`): a metadata line, then message records (a later record
 *   with the same id updates it), `{"$set": {...}}` metadata updates and `{"$rewindTo": id}`
 *   which drops that message and everything after it.
 */
import type { Usage } from "../engine/events";
import { contentText, firstLine, IgnoredTally, isRecord, lineOfId, parseJsonDocument, parseJsonLines, readTextFile, sumNumbers, toInput, toMillis, toText, TraceBuilder, type JsonLine } from "./exportHelpers";
import { SessionFormatError, type RecordedSession, type SessionReader } from "./reader";

const FORMAT = "gemini-cli";
/** Gemini CLI's shell tool. */
const SHELL_TOOL = "run_shell_command";

/** The output text of a functionResponse, and whether it reports an error. */
function functionResponseOf(fr: Record<string, unknown>): { ok: boolean; text: string } {
  const response = fr.response;
  if (isRecord(response)) {
    if (response.error !== undefined) return { ok: false, text: toText(response.error) };
    if (response.output !== undefined) return { ok: true, text: toText(response.output) };
  }
  return { ok: true, text: toText(response) };
}

/** Checkpoint history: Content[] turned into events. Calls without ids are paired by name, in order. */
function fromHistory(history: unknown[], file: string, lenient: boolean): { b: TraceBuilder; skipped: number } {
  const b = new TraceBuilder();
  let skipped = 0;
  let counter = 0;
  const waitingByName = new Map<string, string[]>();
  history.forEach((content, ci) => {
    if (!isRecord(content) || typeof content.role !== "string" || !Array.isArray(content.parts)) {
      if (lenient) { skipped++; return; }
      throw new SessionFormatError(file, `history[${ci}]: expected {"role": ..., "parts": [...]}`, undefined, FORMAT);
    }
    if (content.role === "model") {
      b.request();
      for (const part of content.parts) {
        if (!isRecord(part)) continue;
        if (typeof part.text === "string") { if (part.thought === true) b.reasoning(part.text); else b.text(part.text); }
        else if (isRecord(part.functionCall) && typeof part.functionCall.name === "string") {
          const name = part.functionCall.name;
          const id = typeof part.functionCall.id === "string" ? part.functionCall.id : `${name}#${++counter}`;
          waitingByName.set(name, [...(waitingByName.get(name) ?? []), id]);
          b.toolCall(id, name, toInput(part.functionCall.args));
        }
      }
      b.endRequest();
      return;
    }
    const words: string[] = [];
    for (const part of content.parts) {
      if (!isRecord(part)) continue;
      if (isRecord(part.functionResponse)) {
        const fr = part.functionResponse;
        const name = typeof fr.name === "string" ? fr.name : "";
        const queue = waitingByName.get(name) ?? [];
        let id = typeof fr.id === "string" ? fr.id : queue[0];
        if (id === undefined) id = `${name}#${++counter}`;
        const qi = queue.indexOf(id);
        if (qi >= 0) queue.splice(qi, 1);
        const { ok, text } = functionResponseOf(fr);
        b.toolResult(id, ok, text);
      } else if (typeof part.text === "string") words.push(part.text);
    }
    if (words.length > 0) b.user(words.join("\n"));
  });
  return { b, skipped };
}

/** The text of a tool call's recorded result (a PartListUnion). */
function recordedResultText(result: unknown): string {
  const parts = Array.isArray(result) ? result : [result];
  const out: string[] = [];
  for (const p of parts) {
    if (typeof p === "string") out.push(p);
    else if (isRecord(p) && isRecord(p.functionResponse)) out.push(functionResponseOf(p.functionResponse).text);
    else if (isRecord(p) && typeof p.text === "string") out.push(p.text);
  }
  return out.join("\n");
}

/** Whether a recorded result reports an error in its functionResponse (`response.error`). */
function recordedResultIsError(result: unknown): boolean {
  const parts = Array.isArray(result) ? result : [result];
  return parts.some((p) => isRecord(p) && isRecord(p.functionResponse) && !functionResponseOf(p.functionResponse).ok);
}

/**
 * Whether Gemini CLI's shell tool says the command failed, though the call's status is "success"
 * (the tool ran): its result is "Output: …" followed by its own lines, `Exit Code: N` only when N is
 * not 0 (older versions always wrote it, "Exit Code: 0" or "(none)"), `Signal: …`, and a
 * "Command was cancelled …" text instead when it was stopped.
 */
export function geminiShellFailed(text: string): boolean {
  const body = text.replace(/^\s*<untrusted_context>\s*/, "");
  if (/^Command was (?:automatically )?cancelled\b/.test(body)) return true;
  if (!/^(?:Output|Command): /.test(body)) return false;
  // The envelope's lines come after the output: the last such line is the tool's, not the program's.
  const exits = [...body.matchAll(/^Exit Code: (-?\d+)\s*$/gm)];
  if (exits.length > 0 && exits[exits.length - 1][1] !== "0") return true;
  const signals = [...body.matchAll(/^Signal: (.+?)\s*$/gm)];
  return signals.length > 0 && !/^(?:\(none\)|0|null)$/.test(signals[signals.length - 1][1]);
}

/** Statuses of a recorded tool call after which it did not do what was asked. */
const FAILED_STATUSES = new Set(["error", "cancelled"]);

function usageOf(tokens: unknown): Usage | undefined {
  if (!isRecord(tokens)) return undefined;
  const tokensIn = sumNumbers(tokens.input);
  const tokensOut = sumNumbers(tokens.output, tokens.thoughts);
  return tokensIn === undefined && tokensOut === undefined ? undefined : { tokensIn, tokensOut };
}

/**
 * User content that Gemini CLI itself does not count as the user speaking (its loader's own test):
 * empty, a slash or `?` command to the CLI, or context it injects (`<session_context>`, `<hook_context>`).
 */
function injectedUserContent(text: string): string | undefined {
  const t = text.trim();
  if (t === "") return "empty user record";
  if (/^[/?]/.test(t)) return "command to the CLI, not a message to the model";
  if (/^<(?:session|hook)_context>/.test(t)) return "context injected by the CLI, not a user message";
  return undefined;
}

/** Types of message records the CLI writes about itself; none is the model's or the user's. */
const CLI_NOTES = new Set(["info", "error", "warning"]);

/** Recorded messages (ConversationRecord.messages) turned into events. */
function fromMessages(messages: unknown[], file: string, lenient: boolean, where: (i: number) => { line?: number; at: string }, ignored: IgnoredTally): { b: TraceBuilder; skipped: number } {
  const b = new TraceBuilder();
  let skipped = 0;
  /** Tool calls made, by id: a functionResponse record names only the id and tool. */
  const callNames = new Map<string, string>();
  messages.forEach((m, i) => {
    const loc = where(i);
    if (!isRecord(m) || typeof m.type !== "string") {
      if (lenient) { skipped++; return; }
      throw new SessionFormatError(file, `${loc.at}expected a message with a string "type"`, loc.line, FORMAT);
    }
    const ts = toMillis(m.timestamp);
    if (m.type === "user") {
      // A record of functionResponse parts is the CLI handing tool results back to the model: the
      // results (each counted once, the model record may already carry them), never the user speaking.
      const parts = Array.isArray(m.content) ? m.content : [];
      const responses = parts.filter((p) => isRecord(p) && isRecord(p.functionResponse)) as Record<string, Record<string, unknown>>[];
      for (const p of responses) {
        const fr = p.functionResponse;
        if (typeof fr.id !== "string") { ignored.add("function response without a call id"); continue; }
        if (b.hasResult(fr.id)) { ignored.add("tool result recorded twice (counted once)"); continue; }
        const { ok, text } = functionResponseOf(fr);
        const name = callNames.get(fr.id) ?? (typeof fr.name === "string" ? fr.name : "");
        b.toolResult(fr.id, ok && !(name === SHELL_TOOL && geminiShellFailed(text)), text, ts);
      }
      if (responses.length > 0 && responses.length === parts.length) return;
      const words = contentText(m.content);
      const why = injectedUserContent(words);
      if (why) { ignored.add(why); return; }
      b.user(words, ts);
      return;
    }
    if (CLI_NOTES.has(m.type)) {
      ignored.add(`CLI note ("${m.type}" record)`);
      // The CLI's note that a request was cancelled or failed ends whatever the model was doing.
      b.endRequest(ts);
      return;
    }
    if (m.type !== "gemini") { ignored.add(`unknown message type "${m.type}"`); return; }
    b.request(ts, typeof m.model === "string" ? m.model : undefined, usageOf(m.tokens));
    if (Array.isArray(m.thoughts)) {
      for (const t of m.thoughts) {
        if (!isRecord(t)) continue;
        const thought = [t.subject, t.description].filter((s) => typeof s === "string" && s !== "").join(": ");
        b.reasoning(thought, ts); // the step's own time keeps the trace in order
      }
    }
    b.text(contentText(m.content), ts);
    const results: { id: string; ok: boolean; text: string; ts?: number }[] = [];
    if (Array.isArray(m.toolCalls)) {
      m.toolCalls.forEach((c, ci) => {
        if (!isRecord(c) || typeof c.name !== "string") {
          if (lenient) { skipped++; return; }
          throw new SessionFormatError(file, `${loc.at}toolCalls[${ci}] needs a string "name"`, loc.line, FORMAT);
        }
        const id = typeof c.id === "string" ? c.id : `${c.name}#${i}.${ci}`;
        callNames.set(id, c.name);
        const cts = toMillis(c.timestamp) ?? ts;
        b.toolCall(id, c.name, toInput(c.args), cts);
        const failedStatus = typeof c.status === "string" && FAILED_STATUSES.has(c.status);
        if (c.result !== undefined && c.result !== null) {
          const text = recordedResultText(c.result);
          const failed = failedStatus || recordedResultIsError(c.result) || (c.name === SHELL_TOOL && geminiShellFailed(text));
          results.push({ id, ok: !failed, text, ts: cts });
        } else if (failedStatus) results.push({ id, ok: false, text: String(c.status), ts: cts });
      });
    }
    b.endRequest();
    for (const r of results) b.toolResult(r.id, r.ok, r.text, r.ts);
  });
  return { b, skipped };
}

/**
 * The messages of a JSONL recording, as Gemini CLI's own `loadConversationRecord()` rebuilds them:
 * a record with an `id` adds that message or replaces it in place (a message is rewritten as it
 * streams and as its tool calls finish); `{"$rewindTo": id}` drops that message and all after it
 * (all of them when the id is unknown); `{"$set": {...}}` updates the metadata, and when it carries
 * `messages` replaces them all; the metadata line (`sessionId` + `projectHash`) may carry messages too.
 */
function loadJsonlMessages(lines: JsonLine[], ignored: IgnoredTally): { kept: JsonLine[]; sawMetadata: boolean } {
  const byId = new Map<string, JsonLine>();
  let sessionId = false, projectHash = false;
  const setAll = (messages: unknown[], line: number) => {
    for (const msg of messages) if (isRecord(msg) && typeof msg.id === "string") byId.set(msg.id, { value: msg, line });
  };
  for (const l of lines) {
    const v = l.value;
    if (!isRecord(v)) { ignored.add("record that is not an object"); continue; }
    if (typeof v.$rewindTo === "string") {
      const ids = [...byId.keys()];
      const at = ids.indexOf(v.$rewindTo);
      if (at < 0) byId.clear(); else for (const id of ids.slice(at)) byId.delete(id);
    } else if (typeof v.id === "string") {
      byId.set(v.id, l);
    } else if (isRecord(v.$set)) {
      if (Array.isArray(v.$set.messages)) { byId.clear(); setAll(v.$set.messages, l.line); }
      if (typeof v.$set.sessionId === "string") sessionId = true;
      if (typeof v.$set.projectHash === "string") projectHash = true;
    } else if (typeof v.sessionId === "string" && typeof v.projectHash === "string") {
      sessionId = projectHash = true;
      if (Array.isArray(v.messages)) setAll(v.messages, l.line);
    } else ignored.add("unknown record (no id, $set, $rewindTo or session metadata)");
  }
  return { kept: [...byId.values()], sawMetadata: sessionId && projectHash };
}

export function parseGeminiCli(text: string, file: string, lenient: boolean): RecordedSession {
  const ignored = new IgnoredTally();
  if (/\.jsonl$/i.test(file)) {
    const { lines, skipped: badJson } = parseJsonLines(text, file, FORMAT, lenient);
    const { kept, sawMetadata } = loadJsonlMessages(lines, ignored);
    if (!sawMetadata && !lenient) throw new SessionFormatError(file, `no session metadata line {"sessionId", "projectHash", ...}`, 1, FORMAT);
    const { b, skipped } = fromMessages(kept.map((k) => k.value), file, lenient, (i) => ({ line: kept[i].line, at: "" }), ignored);
    return { file, format: FORMAT, events: b.finish(), skipped: skipped + badJson, ignored: ignored.result() };
  }
  const doc = parseJsonDocument(text, file, FORMAT);
  if (Array.isArray(doc) || (isRecord(doc) && Array.isArray(doc.history))) {
    const history = Array.isArray(doc) ? doc : (doc.history as unknown[]);
    const { b, skipped } = fromHistory(history, file, lenient);
    return { file, format: FORMAT, events: b.finish(), skipped };
  }
  if (isRecord(doc) && Array.isArray(doc.messages)) {
    const messages = doc.messages;
    const { b, skipped } = fromMessages(messages, file, lenient, (i) => ({ at: `messages[${i}]: `, line: lineOfId(text, messages[i]) }), ignored);
    return { file, format: FORMAT, events: b.finish(), skipped, ignored: ignored.result() };
  }
  throw new SessionFormatError(file, `expected a Gemini CLI chat: a history list, {"history": [...]} or {"sessionId", "messages": [...]}`, undefined, FORMAT);
}

export const geminiCliReader: SessionReader = {
  format: FORMAT,
  description: "Gemini CLI saved chat (~/.gemini/tmp/*/checkpoint-*.json, chats/session-*.json[l])",
  detect(path, isDirectory, head) {
    if (isDirectory || !head) return false;
    if (/\.jsonl$/i.test(path)) {
      const first = firstLine(head);
      return first.startsWith("{") && /"sessionId"\s*:/.test(first) && /"projectHash"\s*:/.test(first);
    }
    if (!/\.json$/i.test(path)) return false;
    // Checkpoints: a history list of {role, parts}; sessions: {sessionId, projectHash, ...}.
    // Anthropic-style histories (Cline's api_conversation_history.json) also start with "role", but carry "content".
    if (/^\s*\[\s*\{\s*"role"\s*:\s*"(user|model)"\s*,\s*"parts"\s*:/.test(head)) return true;
    if (/^\s*\{\s*"history"\s*:\s*\[\s*(\]|\{\s*"role")/.test(head)) return true;
    return /^\s*\{/.test(head) && /"sessionId"\s*:/.test(head) && /"projectHash"\s*:/.test(head);
  },
  read(path, options) {
    return [parseGeminiCli(readTextFile(path, FORMAT), path, options.lenient)];
  },
};
