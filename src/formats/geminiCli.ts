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
import { contentText, firstLine, isRecord, lineOfId, parseJsonDocument, parseJsonLines, readTextFile, sumNumbers, toInput, toMillis, toText, TraceBuilder } from "./exportHelpers";
import { SessionFormatError, type RecordedSession, type SessionReader } from "./reader";

const FORMAT = "gemini-cli";

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

function usageOf(tokens: unknown): Usage | undefined {
  if (!isRecord(tokens)) return undefined;
  const tokensIn = sumNumbers(tokens.input);
  const tokensOut = sumNumbers(tokens.output, tokens.thoughts);
  return tokensIn === undefined && tokensOut === undefined ? undefined : { tokensIn, tokensOut };
}

/** Recorded messages (ConversationRecord.messages) turned into events. */
function fromMessages(messages: unknown[], file: string, lenient: boolean, where: (i: number) => { line?: number; at: string }): { b: TraceBuilder; skipped: number } {
  const b = new TraceBuilder();
  let skipped = 0;
  messages.forEach((m, i) => {
    const loc = where(i);
    if (!isRecord(m) || typeof m.type !== "string") {
      if (lenient) { skipped++; return; }
      throw new SessionFormatError(file, `${loc.at}expected a message with a string "type"`, loc.line, FORMAT);
    }
    const ts = toMillis(m.timestamp);
    if (m.type === "user") { b.user(contentText(m.content), ts); return; }
    if (m.type !== "gemini") return; // info, error, warning: the CLI's own notes
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
        const cts = toMillis(c.timestamp) ?? ts;
        b.toolCall(id, c.name, toInput(c.args), cts);
        if (c.result !== undefined && c.result !== null) results.push({ id, ok: c.status === "success", text: recordedResultText(c.result), ts: cts });
        else if (c.status === "error" || c.status === "cancelled") results.push({ id, ok: false, text: String(c.status), ts: cts });
      });
    }
    b.endRequest();
    for (const r of results) b.toolResult(r.id, r.ok, r.text, r.ts);
  });
  return { b, skipped };
}

export function parseGeminiCli(text: string, file: string, lenient: boolean): RecordedSession {
  if (/\.jsonl$/i.test(file)) {
    const { lines, skipped: badJson } = parseJsonLines(text, file, FORMAT, lenient);
    const byId = new Map<string, { value: unknown; line: number }>();
    let sawMetadata = false;
    for (const l of lines) {
      const v = l.value;
      if (!isRecord(v)) continue;
      if (typeof v.$rewindTo === "string") {
        let found = false;
        for (const id of [...byId.keys()]) { if (id === v.$rewindTo) found = true; if (found) byId.delete(id); }
        if (!found) byId.clear();
      } else if (typeof v.id === "string") {
        byId.set(v.id, l);
      } else if (typeof v.sessionId === "string" && typeof v.projectHash === "string") sawMetadata = true;
    }
    if (!sawMetadata && !lenient) throw new SessionFormatError(file, `no session metadata line {"sessionId", "projectHash", ...}`, 1, FORMAT);
    const kept = [...byId.values()];
    const { b, skipped } = fromMessages(kept.map((k) => k.value), file, lenient, (i) => ({ line: kept[i].line, at: "" }));
    return { file, format: FORMAT, events: b.finish(), skipped: skipped + badJson };
  }
  const doc = parseJsonDocument(text, file, FORMAT);
  if (Array.isArray(doc) || (isRecord(doc) && Array.isArray(doc.history))) {
    const history = Array.isArray(doc) ? doc : (doc.history as unknown[]);
    const { b, skipped } = fromHistory(history, file, lenient);
    return { file, format: FORMAT, events: b.finish(), skipped };
  }
  if (isRecord(doc) && Array.isArray(doc.messages)) {
    const messages = doc.messages;
    const { b, skipped } = fromMessages(messages, file, lenient, (i) => ({ at: `messages[${i}]: `, line: lineOfId(text, messages[i]) }));
    return { file, format: FORMAT, events: b.finish(), skipped };
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
