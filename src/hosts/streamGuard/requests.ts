/**
 * The request side of each model API: what the agent sends (its newest user words, the tool calls
 * and results the conversation carries), and the guard's two changes to it: the pending guidance
 * added as the newest user words, and cut reasoning taken out (a cut thinking block has no valid
 * signature, and a cut Responses reasoning item cannot be sent back). Also the guard's own short
 * answer when a session was stopped, in the API's shape.
 */
import { isRecord } from "../../engine/json";
import { geminiCallPlace, type CutMarks, type WireFormat } from "./streamReaders";
import { codexOutput } from "../codex/rolloutTranslator";

type Json = Record<string, unknown>;

/** The wire format a request path speaks, or undefined (passed through untouched). */
/** Where a Gemini answer to this request will stand in the conversation (names its calls without ids). */
export function answerPlace(format: WireFormat, body: Json): number | undefined {
  return format === "gemini" ? turns(format, body).length : undefined;
}

export function formatOf(method: string, path: string): WireFormat | undefined {
  if (method !== "POST") return undefined;
  if (path.endsWith("/messages")) return "anthropic";
  if (path.endsWith("/chat/completions")) return "chat";
  if (path.endsWith("/responses")) return "responses";
  if (/:(stream)?generateContent$/i.test(path)) return "gemini";
  return undefined;
}

/** Whether the answer will stream (SSE) as the request asks. */
export function wantsStream(format: WireFormat, body: Json, path: string, query: string): boolean {
  if (format === "gemini") return /:streamGenerateContent$/i.test(path) && /(^|&)alt=sse(&|$)/.test(query);
  return body.stream === true;
}

export type HistoryItem =
  | { kind: "call"; id: string; name: string; input: Json }
  | { kind: "result"; id: string; ok: boolean; output: string };

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let out = "";
  for (const p of content) {
    if (typeof p === "string") out += p;
    else if (isRecord(p) && typeof p.text === "string") out += (out ? "\n" : "") + p.text;
  }
  return out;
}

function parseArgs(v: unknown): Json {
  if (isRecord(v)) return v;
  if (typeof v !== "string") return {};
  try { const x: unknown = JSON.parse(v); return isRecord(x) ? x : { value: x }; } catch { return { arguments: v }; }
}

/** The list of turns each format carries. */
function turns(format: WireFormat, body: Json): Json[] {
  const list = format === "responses" ? body.input : format === "gemini" ? body.contents : body.messages;
  return Array.isArray(list) ? list.filter(isRecord) : [];
}

/** Words an agent adds by itself to resume after a cut (not a person speaking): no new turn. */
const NUDGES = [/^please continue from where you left off\.?$/i, /^continue\.?$/i];
/** Context an agent adds around the user's words: Claude Code's reminders, Codex's environment notes. */
const AGENT_CONTEXT = /^\s*<(system-reminder|environment_context|user_instructions|permissions instructions)>[\s\S]*<\/\1>\s*$/;

/**
 * The user's newest words, when the conversation's newest turn is the user speaking (not tool
 * results, not the agent's own reminders or resume nudges); undefined otherwise.
 */
export function newestUserText(format: WireFormat, body: Json): string | undefined {
  const list = turns(format, body);
  const last = list[list.length - 1];
  if (format === "responses" && typeof body.input === "string") return body.input.trim() || undefined;
  if (!last) return undefined;
  let parts: string[] = [];
  switch (format) {
    case "anthropic": {
      if (last.role !== "user") return undefined;
      if (typeof last.content === "string") parts = [last.content];
      else if (Array.isArray(last.content)) {
        if (last.content.some((b) => isRecord(b) && b.type === "tool_result")) return undefined;
        parts = last.content.filter((b) => isRecord(b) && b.type === "text" && typeof b.text === "string").map((b) => (b as Json).text as string);
      }
      break;
    }
    case "chat":
      if (last.role !== "user") return undefined;
      parts = [textOf(last.content)];
      break;
    case "responses":
      if (last.role !== "user" || (last.type !== undefined && last.type !== "message")) return undefined;
      parts = [textOf(last.content)];
      break;
    case "gemini": {
      if (last.role !== "user" || !Array.isArray(last.parts)) return undefined;
      if (last.parts.some((p) => isRecord(p) && p.functionResponse)) return undefined;
      parts = [textOf(last.parts)];
      break;
    }
  }
  const said = parts.filter((p) => !AGENT_CONTEXT.test(p)).join("\n").trim();
  if (said === "" || NUDGES.some((n) => n.test(said))) return undefined;
  return said;
}

/** How every note the guard writes into a cut answer begins: it marks that answer in later requests. */
export const NOTE_MARK = "[Loop Sentinel ";

/** The answer text of an assistant turn (model turn), any format. */
function assistantText(format: WireFormat, m: Json): string | undefined {
  if (format === "gemini") return m.role === "model" && Array.isArray(m.parts) ? textOf(m.parts.filter((p) => !(isRecord(p) && p.thought === true))) : undefined;
  if (m.role !== "assistant") return undefined;
  if (format === "anthropic" && Array.isArray(m.content)) return textOf(m.content.filter((b) => isRecord(b) && b.type === "text"));
  return textOf(m.content);
}

/**
 * The guard's note in the conversation's last answer, if that answer was cut by a guard: a guard
 * started afresh (a new `run` for the next Codex turn) takes its guidance from there.
 */
export function noteOfLastAnswer(format: WireFormat, body: Json): string | undefined {
  const list = turns(format, body);
  for (let i = list.length - 1; i >= 0; i--) {
    const text = assistantText(format, list[i]);
    if (text === undefined) continue;
    const at = text.lastIndexOf(NOTE_MARK);
    if (at === -1) return undefined;
    // The note closes the answer: its own "]" is the last one (an excerpt inside may hold others).
    const end = text.lastIndexOf("]");
    return text.slice(at + 1, end > at ? end : undefined);
  }
  return undefined;
}

/**
 * The Copilot CLI's note after a command's output (`<shellId: 3 completed with exit code 0>`): its
 * shell number grows with every command, so two identical listings would differ by it.
 */
const COPILOT_SHELL_NOTE = /\n?<shellId: [^>\n]*?(?:exit code (-?\d+))?>\s*$/;

/** A tool result as the engine should see it: the command's own output, failed by its exit code. */
function resultOf(id: string, text: string, failed: boolean): HistoryItem {
  const note = COPILOT_SHELL_NOTE.exec(text);
  if (note) return { kind: "result", id, ok: !failed && (note[1] === undefined || note[1] === "0"), output: text.slice(0, note.index) };
  // Codex's header before a command's output (chunk id, wall time, exit code) changes at every run.
  const { output, exitCode } = codexOutput(text);
  return { kind: "result", id, ok: !failed && (exitCode === undefined || exitCode === 0), output };
}

/**
 * The tool calls and results the conversation carries, in order. `known` passes over the ones
 * already read (every request carries the whole conversation: only the new ones are worked on).
 */
export function history(format: WireFormat, body: Json, known: (kind: HistoryItem["kind"], id: string) => boolean = () => false): HistoryItem[] {
  const out: HistoryItem[] = [];
  const call = (id: string, make: () => HistoryItem) => { if (!known("call", id)) out.push(make()); };
  const result = (id: string, make: () => HistoryItem) => { if (!known("result", id)) out.push(make()); };
  let geminiTurn = 0;
  let lastCallIds: string[] = [];
  /** The agent's own id of a Gemini call, to the name it is read under. */
  const geminiIds = new Map<string, string>();
  for (const m of turns(format, body)) {
    switch (format) {
      case "anthropic":
        if (!Array.isArray(m.content)) break;
        for (const b of m.content) {
          if (!isRecord(b)) continue;
          if (b.type === "tool_use" && typeof b.id === "string") call(b.id, () => ({ kind: "call", id: b.id as string, name: String(b.name ?? ""), input: parseArgs(b.input) }));
          else if (b.type === "tool_result" && typeof b.tool_use_id === "string") result(b.tool_use_id, () => resultOf(b.tool_use_id as string, textOf(b.content), b.is_error === true));
        }
        break;
      case "chat":
        if (m.role === "assistant" && Array.isArray(m.tool_calls)) {
          for (const tc of m.tool_calls) {
            if (!isRecord(tc) || typeof tc.id !== "string") continue;
            const fn = isRecord(tc.function) ? tc.function : {};
            call(tc.id, () => ({ kind: "call", id: tc.id as string, name: String(fn.name ?? ""), input: parseArgs(fn.arguments) }));
          }
        } else if (m.role === "tool" && typeof m.tool_call_id === "string") result(m.tool_call_id, () => resultOf(m.tool_call_id as string, textOf(m.content), false));
        break;
      case "responses":
        if ((m.type === "function_call" || m.type === "custom_tool_call") && typeof m.call_id === "string") {
          call(m.call_id, () => ({ kind: "call", id: m.call_id as string, name: String(m.name ?? ""), input: m.type === "custom_tool_call" ? { input: m.input } : parseArgs(m.arguments) }));
        } else if ((m.type === "function_call_output" || m.type === "custom_tool_call_output") && typeof m.call_id === "string") {
          result(m.call_id, () => {
            const output = typeof m.output === "string" ? m.output : isRecord(m.output) && typeof m.output.content === "string" ? m.output.content : textOf(m.output);
            return resultOf(m.call_id as string, output, false);
          });
        }
        break;
      case "gemini": {
        if (!Array.isArray(m.parts)) break;
        // A call without an id is named by its place in the conversation (which only grows), and its
        // answer, which comes in the same order in the next turn, by its call's.
        const turn = geminiTurn++;
        const callIds: string[] = [];
        let answered = 0;
        let k = 0;
        m.parts.forEach((p, at) => {
          if (!isRecord(p)) return;
          if (isRecord(p.functionCall)) {
            const fc = p.functionCall;
            // A call the guard saw stream without an id is named by its place there (streamReaders),
            // whatever id the agent gave it since.
            const place = geminiCallPlace(turn, k++);
            const id = known("call", place) ? place : typeof fc.id === "string" ? fc.id : `gemini:${turn}:${at}`;
            if (typeof fc.id === "string") geminiIds.set(fc.id, id);
            callIds.push(id);
            call(id, () => ({ kind: "call", id, name: String(fc.name ?? ""), input: isRecord(fc.args) ? fc.args : {} }));
          } else if (isRecord(p.functionResponse)) {
            const fr = p.functionResponse;
            const id = typeof fr.id === "string" ? geminiIds.get(fr.id) ?? fr.id : lastCallIds[answered] ?? `gemini:${turn}:${at}`;
            answered++;
            result(id, () => {
              const response = isRecord(fr.response) ? fr.response : {};
              return { kind: "result", id, ok: response.error === undefined, output: typeof response.output === "string" ? response.output : JSON.stringify(response) };
            });
          }
        });
        if (callIds.length > 0) lastCallIds = callIds;
        break;
      }
    }
  }
  return out;
}

/** Adds `text` as the user's newest words (to the user's turn at the end, or as a new one). */
export function addGuidance(format: WireFormat, body: Json, text: string): boolean {
  switch (format) {
    case "anthropic": {
      if (!Array.isArray(body.messages)) return false;
      const last = body.messages[body.messages.length - 1];
      if (isRecord(last) && last.role === "user") {
        if (typeof last.content === "string") last.content = [{ type: "text", text: last.content }];
        if (Array.isArray(last.content)) { last.content.push({ type: "text", text }); return true; }
      }
      body.messages.push({ role: "user", content: [{ type: "text", text }] });
      return true;
    }
    case "chat":
      if (!Array.isArray(body.messages)) return false;
      body.messages.push({ role: "user", content: text });
      return true;
    case "responses":
      if (typeof body.input === "string") body.input = [{ type: "message", role: "user", content: [{ type: "input_text", text: body.input }] }];
      if (!Array.isArray(body.input)) return false;
      body.input.push({ type: "message", role: "user", content: [{ type: "input_text", text }] });
      return true;
    case "gemini": {
      if (!Array.isArray(body.contents)) return false;
      const last = body.contents[body.contents.length - 1];
      if (isRecord(last) && last.role === "user" && Array.isArray(last.parts) && !last.parts.some((p) => isRecord(p) && p.functionResponse)) { last.parts.push({ text }); return true; }
      body.contents.push({ role: "user", parts: [{ text }] });
      return true;
    }
  }
}

function startsWithAny(text: unknown, prefixes: readonly string[]): boolean {
  return typeof text === "string" && prefixes.some((p) => text.startsWith(p));
}

/**
 * Takes cut reasoning out of the conversation: Anthropic thinking blocks with no signature or
 * starting as a cut one did, Chat `reasoning_content` (and its kin) starting so, Responses
 * reasoning items cut by id, Gemini thought parts starting so. Returns how many were taken out.
 */
export function removeCutReasoning(format: WireFormat, body: Json, marks: { prefixes: readonly string[]; itemIds: ReadonlySet<string> }): number {
  let removed = 0;
  const list = turns(format, body);
  switch (format) {
    case "anthropic":
      for (const m of list) {
        if (m.role !== "assistant" || !Array.isArray(m.content)) continue;
        // A block the guard cut has no signature; one signed whole before the cut stays (valid, and
        // what the API wants back around a tool call).
        const kept = m.content.filter((b) => !(isRecord(b) && b.type === "thinking" && (!b.signature || startsWithAny(b.thinking, marks.prefixes))));
        if (kept.length === m.content.length) continue;
        removed += m.content.length - kept.length;
        // An assistant turn left empty would be refused: it says nothing, then.
        m.content = kept.length > 0 ? kept : [{ type: "text", text: "(no answer)" }];
      }
      return removed;
    case "chat":
      for (const m of list) {
        if (m.role !== "assistant") continue;
        const cutHere = (assistantText(format, m) ?? "").includes(NOTE_MARK);
        for (const key of ["reasoning_content", "reasoning", "reasoning_text"]) {
          if (m[key] !== undefined && (cutHere || startsWithAny(m[key], marks.prefixes))) { delete m[key]; removed++; }
        }
      }
      return removed;
    case "responses": {
      if (!Array.isArray(body.input)) return 0;
      const input = body.input as unknown[];
      // A reasoning item without its encrypted content, right before an answer the guard cut, was cut with it.
      const cutBefore = (i: number) => {
        for (let j = i + 1; j < input.length; j++) {
          const n = input[j];
          if (!isRecord(n) || n.type === "reasoning") continue;
          return (assistantText(format, n) ?? "").includes(NOTE_MARK);
        }
        return false;
      };
      const kept = input.filter((m, i) => !(isRecord(m) && m.type === "reasoning" && ((typeof m.id === "string" && marks.itemIds.has(m.id)) || (!m.encrypted_content && cutBefore(i)))));
      body.input = kept;
      return input.length - kept.length;
    }
    case "gemini":
      for (const m of list) {
        if (!Array.isArray(m.parts)) continue;
        const cutHere = (assistantText(format, m) ?? "").includes(NOTE_MARK);
        const kept = m.parts.filter((p) => !(isRecord(p) && p.thought === true && (cutHere || startsWithAny(p.text, marks.prefixes))));
        if (kept.length === m.parts.length) continue;
        removed += m.parts.length - kept.length;
        m.parts = kept.length > 0 ? kept : [{ text: "(no answer)" }];
      }
      return removed;
  }
}

/** Cut marks merged into a session's record of them. */
export function addMarks(into: { prefixes: string[]; itemIds: Set<string> }, marks: CutMarks, max: number): void {
  if (marks.reasoningPrefix && !into.prefixes.includes(marks.reasoningPrefix)) into.prefixes.push(marks.reasoningPrefix);
  if (into.prefixes.length > max) into.prefixes.splice(0, into.prefixes.length - max);
  for (const id of marks.itemIds) into.itemIds.add(id);
  while (into.itemIds.size > max) into.itemIds.delete(into.itemIds.values().next().value as string);
}

/**
 * The guard's own answer, in the API's shape, streamed or not as the request asked: the session
 * was stopped, and nothing is sent upstream.
 */
export function ownAnswer(format: WireFormat, body: Json, text: string, stream: boolean): { contentType: string; body: string } {
  const model = typeof body.model === "string" ? body.model : "loop-sentinel";
  const id = `loop_sentinel_${Date.now().toString(36)}`;
  const now = Math.floor(Date.now() / 1000);
  const sse = (type: string, data: Json) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const json = (v: unknown) => ({ contentType: "application/json", body: JSON.stringify(v) });
  const events = (s: string) => ({ contentType: "text/event-stream", body: s });
  switch (format) {
    case "anthropic": {
      const message = { id: `msg_${id}`, type: "message", role: "assistant", model, content: [{ type: "text", text }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } };
      if (!stream) return json(message);
      return events(sse("message_start", { message: { ...message, content: [], stop_reason: null } })
        + sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } })
        + sse("content_block_delta", { index: 0, delta: { type: "text_delta", text } })
        + sse("content_block_stop", { index: 0 })
        + sse("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 0 } })
        + sse("message_stop", {}));
    }
    case "chat": {
      if (!stream) return json({ id: `chatcmpl-${id}`, object: "chat.completion", created: now, model, choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } });
      const base = { id: `chatcmpl-${id}`, object: "chat.completion.chunk", created: now, model };
      return events(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: text }, finish_reason: null }] })}\n\n`
        + `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`
        + "data: [DONE]\n\n");
    }
    case "responses": {
      const message = { type: "message", id: `msg_${id}`, role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] };
      const usage = { input_tokens: 0, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 };
      const response = { id: `resp_${id}`, object: "response", created_at: now, model, status: "completed", output: [message], usage };
      if (!stream) return json(response);
      return events(sse("response.created", { response: { ...response, status: "in_progress", output: [] } })
        + sse("response.output_item.added", { output_index: 0, item: { ...message, status: "in_progress", content: [] } })
        + sse("response.content_part.added", { output_index: 0, item_id: message.id, content_index: 0, part: { type: "output_text", text: "", annotations: [] } })
        + sse("response.output_text.delta", { output_index: 0, item_id: message.id, content_index: 0, delta: text })
        + sse("response.output_text.done", { output_index: 0, item_id: message.id, content_index: 0, text })
        + sse("response.output_item.done", { output_index: 0, item: message })
        + sse("response.completed", { response }));
    }
    case "gemini": {
      const chunk = { candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }], usageMetadata: { promptTokenCount: 0, candidatesTokenCount: 0, totalTokenCount: 0 } };
      return stream ? events(`data: ${JSON.stringify(chunk)}\r\n\r\n`) : json(chunk);
    }
  }
}

/** An error answer in the API's shape (the guard could not reach the upstream). */
export function errorAnswer(format: WireFormat | undefined, message: string): string {
  switch (format) {
    case "anthropic": return JSON.stringify({ type: "error", error: { type: "api_error", message } });
    case "gemini": return JSON.stringify({ error: { code: 502, message, status: "UNAVAILABLE" } });
    default: return JSON.stringify({ error: { message, type: "upstream_error", code: "upstream_unreachable" } });
  }
}
