/**
 * A model's answer that came whole (not streamed: `stream: false`, Claude Code's fallback after a
 * stream error, Gemini `generateContent`): it cannot be stopped while it is generated, but it is
 * judged before the agent gets it, part by part as if streamed, and a looping answer is cut where
 * the engine caught it, the same way a streamed one is: the text up to there, the guard's note, a
 * max-tokens end (Anthropic, Chat) or a completed one (Responses, Gemini); cut thinking and any
 * later call are left out.
 */
import { isRecord } from "../../engine/json";
import type { SeenToolCall, WireFormat } from "./streamReaders";

type Json = Record<string, unknown>;

export type WholePart =
  | { kind: "reasoning" | "text"; text: string }
  | { kind: "call"; call: SeenToolCall };

function args(v: unknown): Json {
  if (isRecord(v)) return v;
  if (typeof v !== "string") return {};
  try { const x: unknown = JSON.parse(v); return isRecord(x) ? x : { value: x }; } catch { return { arguments: v }; }
}

const joined = (list: unknown, field: string): string =>
  Array.isArray(list) ? list.map((p) => (isRecord(p) && typeof p[field] === "string" ? p[field] as string : "")).join("") : "";

/** The answer's parts in order, each with its place (`at`) in the format's own list. */
export function wholeParts(format: WireFormat, answer: Json): { at: number; part: WholePart }[] {
  const out: { at: number; part: WholePart }[] = [];
  switch (format) {
    case "anthropic":
      (Array.isArray(answer.content) ? answer.content : []).forEach((b, at) => {
        if (!isRecord(b)) return;
        if (b.type === "text" && typeof b.text === "string") out.push({ at, part: { kind: "text", text: b.text } });
        else if (b.type === "thinking" && typeof b.thinking === "string") out.push({ at, part: { kind: "reasoning", text: b.thinking } });
        else if (b.type === "tool_use") out.push({ at, part: { kind: "call", call: { id: String(b.id ?? `call_${at}`), name: String(b.name ?? ""), input: args(b.input) } } });
      });
      return out;
    case "chat": {
      const m = chatMessage(answer);
      if (!m) return out;
      for (const key of ["reasoning_content", "reasoning", "reasoning_text"]) if (typeof m[key] === "string" && m[key]) out.push({ at: -1, part: { kind: "reasoning", text: m[key] as string } });
      if (typeof m.content === "string" && m.content) out.push({ at: -1, part: { kind: "text", text: m.content } });
      (Array.isArray(m.tool_calls) ? m.tool_calls : []).forEach((tc, at) => {
        if (!isRecord(tc)) return;
        const fn = isRecord(tc.function) ? tc.function : {};
        out.push({ at, part: { kind: "call", call: { id: String(tc.id ?? `call_${at}`), name: String(fn.name ?? ""), input: args(fn.arguments) } } });
      });
      return out;
    }
    case "responses":
      (Array.isArray(answer.output) ? answer.output : []).forEach((item, at) => {
        if (!isRecord(item)) return;
        if (item.type === "reasoning") out.push({ at, part: { kind: "reasoning", text: joined(item.summary, "text") || joined(item.content, "text") } });
        else if (item.type === "message") out.push({ at, part: { kind: "text", text: joined(item.content, "text") } });
        else if (item.type === "function_call" || item.type === "custom_tool_call") out.push({ at, part: { kind: "call", call: { id: String(item.call_id ?? item.id ?? `call_${at}`), name: String(item.name ?? ""), input: item.type === "custom_tool_call" ? { input: item.input } : args(item.arguments) } } });
      });
      return out;
    case "gemini":
      geminiParts(answer).forEach((p, at) => {
        if (!isRecord(p)) return;
        if (typeof p.text === "string") out.push({ at, part: { kind: p.thought === true ? "reasoning" : "text", text: p.text } });
        // (a call without an id is read from the next request, as in a stream)
        else if (isRecord(p.functionCall) && typeof p.functionCall.id === "string") out.push({ at, part: { kind: "call", call: { id: p.functionCall.id, name: String(p.functionCall.name ?? ""), input: isRecord(p.functionCall.args) ? p.functionCall.args : {} } } });
      });
      return out;
  }
}

function chatMessage(answer: Json): Json | undefined {
  const c = Array.isArray(answer.choices) ? answer.choices[0] : undefined;
  return isRecord(c) && isRecord(c.message) ? c.message : undefined;
}

function geminiParts(answer: Json): unknown[] {
  const c = Array.isArray(answer.candidates) ? answer.candidates[0] : undefined;
  return isRecord(c) && isRecord(c.content) && Array.isArray(c.content.parts) ? c.content.parts : [];
}

/**
 * Cuts the answer in place at a part (its `at` and kind) after `chars` of its text: what came
 * before stays, cut text is kept up to there, cut thinking and the rest are left out, the note ends
 * it.
 */
export function cutWhole(format: WireFormat, answer: Json, cut: { at: number; part: WholePart }, chars: number, note: string): void {
  const keepText = cut.part.kind === "text" ? cut.part.text.slice(0, chars) : "";
  switch (format) {
    case "anthropic": {
      const content = (Array.isArray(answer.content) ? answer.content : []).slice(0, cut.at);
      if (keepText) content.push({ type: "text", text: keepText });
      content.push({ type: "text", text: note });
      answer.content = content;
      answer.stop_reason = "max_tokens";
      return;
    }
    case "chat": {
      const m = chatMessage(answer);
      if (!m) return;
      const c = (answer.choices as Json[])[0];
      c.finish_reason = "length";
      if (cut.part.kind === "reasoning") {
        for (const key of ["reasoning_content", "reasoning", "reasoning_text"]) delete m[key];
        m.content = note;
        delete m.tool_calls;
      } else if (cut.part.kind === "text") {
        m.content = keepText + note;
        delete m.tool_calls;
      } else {
        const calls = (m.tool_calls as unknown[]).slice(0, cut.at);
        if (calls.length > 0) m.tool_calls = calls; else delete m.tool_calls;
        m.content = (typeof m.content === "string" ? m.content : "") + note;
      }
      return;
    }
    case "responses": {
      const output = (Array.isArray(answer.output) ? answer.output : []).slice(0, cut.at);
      const original = (answer.output as Json[])[cut.at];
      const message = cut.part.kind === "text" && isRecord(original) ? { ...original } : { type: "message", id: `msg_loop_sentinel_${Date.now().toString(36)}`, role: "assistant", status: "completed" };
      output.push({ ...message, status: "completed", content: [{ type: "output_text", text: keepText + note, annotations: [] }] });
      answer.output = output;
      answer.status = "completed";
      delete answer.incomplete_details;
      return;
    }
    case "gemini": {
      const c = Array.isArray(answer.candidates) ? answer.candidates[0] : undefined;
      if (!isRecord(c) || !isRecord(c.content)) return;
      const parts = geminiParts(answer).slice(0, cut.at);
      if (keepText) parts.push({ text: keepText });
      parts.push({ text: note });
      c.content.parts = parts;
      c.finishReason = "STOP";
      return;
    }
  }
}
