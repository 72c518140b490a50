/**
 * The streamed answer of each model API, read event by event: the text and thinking it carries
 * (for the engine), the tool calls it makes (held back until whole, so one can be refused and a
 * cut never lands inside its arguments), and, when the guard cuts, the events that end the message
 * cleanly at the point the client has reached.
 *
 * How each format is ended (measured with the real CLIs, ../shared/hosts/stream-guard/README.md):
 * Anthropic `stop_reason: "max_tokens"` and Chat `finish_reason: "length"` make Claude Code and the
 * Copilot CLI continue by themselves in the same run, where the guidance then reaches the model; a
 * Responses `response.incomplete` fails a Codex turn, so Responses ends `completed`. A dropped
 * connection or an error event is never used: every agent retries the same request, and Claude
 * Code falls back to a non-streamed request that cannot be cut.
 */
import { isRecord } from "../../engine/json";
import type { SseEvent } from "./sse";

export type WireFormat = "anthropic" | "chat" | "responses" | "gemini";

export interface SeenToolCall { id: string; name: string; input: Record<string, unknown> }

/** What one event holds. One object per reader, refilled at each read: the caller keeps none of it. */
export interface Reading {
  /** Stream text, in order. */
  pieces: { channel: "reasoning" | "text"; delta: string }[];
  /** The event belongs to a tool call still streaming: held back, not yet sent to the client. */
  hold: boolean;
  /** The held tool call(s) this event completes; deciding on them releases or drops what was held. */
  calls: SeenToolCall[] | undefined;
  /** The call held so far grew too long to hold: send what was held and pass the rest through. */
  release: boolean;
  /** The message's own end. */
  done: boolean;
}

/** What a cut leaves in the agent's history that a later request must not send back. */
export interface CutMarks {
  /** The start of the reasoning that was cut (thinking blocks, reasoning_content, thought parts starting so). */
  reasoningPrefix?: string;
  /** Responses reasoning items that were cut, by id. */
  itemIds: string[];
}

export interface StreamReader {
  read(ev: SseEvent): Reading;
  /** Events that end the message here, with `note` as visible text, dropping a tool call still held. */
  end(note: string): string;
  /** What the cut leaves behind (asked at the cut, before end()). */
  cutMarks(): CutMarks;
}

/** A held tool call's arguments longer than this are passed through instead (the call can then be neither cut nor refused). */
export const MAX_HELD_ARGUMENT_CHARS = 1024 * 1024;
/** Text kept per open Responses item, to close it with its text (Codex keeps the closing item). */
const MAX_ITEM_TEXT = 1024 * 1024;
/** Characters of cut reasoning kept to recognise it in later requests. */
export const REASONING_PREFIX_CHARS = 160;

function parseData(ev: SseEvent): Record<string, unknown> | undefined {
  if (ev.data === undefined || ev.data === "" || ev.data === "[DONE]") return undefined;
  try {
    const v: unknown = JSON.parse(ev.data);
    return isRecord(v) ? v : undefined;
  } catch { return undefined; }
}

function parseArguments(json: string): Record<string, unknown> {
  if (json.trim() === "") return {};
  try {
    const v: unknown = JSON.parse(json);
    return isRecord(v) ? v : { value: v };
  } catch { return { arguments: json }; }
}

function newReading(): Reading { return { pieces: [], hold: false, calls: undefined, release: false, done: false }; }
function clear(r: Reading): Reading {
  if (r.pieces.length !== 0) r.pieces.length = 0;
  r.hold = false; r.calls = undefined; r.release = false; r.done = false;
  return r;
}

const sseEvent = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** Keeps the first REASONING_PREFIX_CHARS of a reasoning block. */
class Prefix {
  text = "";
  add(delta: string): void { if (this.text.length < REASONING_PREFIX_CHARS) this.text += delta.slice(0, REASONING_PREFIX_CHARS - this.text.length); }
}

// ---- Anthropic Messages ----------------------------------------------------------------------

const ANTHROPIC_TOOL_BLOCKS = new Set(["tool_use", "server_tool_use", "mcp_tool_use"]);

export class AnthropicReader implements StreamReader {
  private readonly r = newReading();
  /** Open blocks the client has seen start, by index. */
  private readonly open = new Map<number, string>();
  private nextIndex = 0;
  private held: { index: number; id: string; name: string; json: string } | undefined;
  private thinking = new Prefix();

  read(ev: SseEvent): Reading {
    const r = clear(this.r);
    const d = parseData(ev);
    if (!d) return r;
    switch (d.type) {
      case "content_block_start": {
        const index = typeof d.index === "number" ? d.index : this.nextIndex;
        const block = isRecord(d.content_block) ? d.content_block : {};
        const type = typeof block.type === "string" ? block.type : "";
        if (ANTHROPIC_TOOL_BLOCKS.has(type) && !this.held) {
          this.held = { index, id: String(block.id ?? `call_${index}`), name: String(block.name ?? ""), json: "" };
          r.hold = true;
          return r;
        }
        this.open.set(index, type);
        this.nextIndex = Math.max(this.nextIndex, index + 1);
        if (type === "thinking") this.thinking = new Prefix();
        if (type === "text" && typeof block.text === "string" && block.text) r.pieces.push({ channel: "text", delta: block.text });
        return r;
      }
      case "content_block_delta": {
        const delta = isRecord(d.delta) ? d.delta : {};
        if (this.held && d.index === this.held.index) {
          r.hold = true;
          if (typeof delta.partial_json === "string") {
            this.held.json += delta.partial_json;
            if (this.held.json.length > MAX_HELD_ARGUMENT_CHARS) { this.held = undefined; r.hold = false; r.release = true; }
          }
          return r;
        }
        if (typeof delta.text === "string") r.pieces.push({ channel: "text", delta: delta.text });
        else if (typeof delta.thinking === "string") { this.thinking.add(delta.thinking); r.pieces.push({ channel: "reasoning", delta: delta.thinking }); }
        return r;
      }
      case "content_block_stop": {
        if (this.held && d.index === this.held.index) {
          const h = this.held;
          this.held = undefined;
          this.nextIndex = Math.max(this.nextIndex, h.index + 1);
          r.hold = true;
          r.calls = [{ id: h.id, name: h.name, input: parseArguments(h.json) }];
          return r;
        }
        if (typeof d.index === "number") this.open.delete(d.index);
        return r;
      }
      case "message_stop": r.done = true; return r;
      default: return r;
    }
  }

  cutMarks(): CutMarks {
    const thinkingOpen = [...this.open.values()].includes("thinking");
    return { reasoningPrefix: thinkingOpen && this.thinking.text ? this.thinking.text : undefined, itemIds: [] };
  }

  end(note: string): string {
    let out = "";
    // An open thinking block is closed with no signature: the cut thinking is taken out of later
    // requests (the real API refuses a thinking block whose signature does not match).
    for (const index of [...this.open.keys()].sort((a, b) => a - b)) out += sseEvent("content_block_stop", { index });
    this.open.clear();
    // A held tool call was never sent: the note takes its place.
    const index = this.held ? this.held.index : this.nextIndex;
    this.held = undefined;
    out += sseEvent("content_block_start", { index, content_block: { type: "text", text: "" } });
    out += sseEvent("content_block_delta", { index, delta: { type: "text_delta", text: note } });
    out += sseEvent("content_block_stop", { index });
    out += sseEvent("message_delta", { delta: { stop_reason: "max_tokens", stop_sequence: null }, usage: { output_tokens: 0 } });
    out += sseEvent("message_stop", {});
    return out;
  }
}

// ---- OpenAI Chat Completions ----------------------------------------------------------------

export class ChatReader implements StreamReader {
  private readonly r = newReading();
  private id: unknown = "chatcmpl-loop-sentinel";
  private model: unknown = "unknown";
  private created: unknown = Math.floor(Date.now() / 1000);
  /** Tool calls streaming now, by their index; held until the choice finishes. */
  private calls: { id: string; name: string; args: string }[] | undefined;
  private heldChars = 0;
  private released = false;
  private reasoning = new Prefix();
  private reasoningOpen = false;

  read(ev: SseEvent): Reading {
    const r = clear(this.r);
    if (ev.data === "[DONE]") { r.done = true; return r; }
    const d = parseData(ev);
    if (!d) { r.hold = this.calls !== undefined; return r; }
    if (d.id !== undefined) this.id = d.id;
    if (d.model !== undefined) this.model = d.model;
    if (d.created !== undefined) this.created = d.created;
    const choices = Array.isArray(d.choices) ? d.choices : [];
    let finished = false;
    for (const c of choices) {
      if (!isRecord(c)) continue;
      const delta = isRecord(c.delta) ? c.delta : {};
      for (const key of ["reasoning_content", "reasoning", "reasoning_text"]) {
        const v = delta[key];
        if (typeof v === "string" && v) {
          if (!this.reasoningOpen) { this.reasoning = new Prefix(); this.reasoningOpen = true; }
          this.reasoning.add(v);
          r.pieces.push({ channel: "reasoning", delta: v });
        }
      }
      if (typeof delta.content === "string" && delta.content) { this.reasoningOpen = false; r.pieces.push({ channel: "text", delta: delta.content }); }
      if (Array.isArray(delta.tool_calls) && !this.released) {
        this.calls ??= [];
        for (const tc of delta.tool_calls) {
          if (!isRecord(tc)) continue;
          const at = typeof tc.index === "number" ? tc.index : this.calls.length;
          const call = (this.calls[at] ??= { id: "", name: "", args: "" });
          if (typeof tc.id === "string") call.id = tc.id;
          const fn = isRecord(tc.function) ? tc.function : {};
          if (typeof fn.name === "string") call.name += fn.name;
          if (typeof fn.arguments === "string") { call.args += fn.arguments; this.heldChars += fn.arguments.length; }
        }
        if (this.heldChars > MAX_HELD_ARGUMENT_CHARS) { this.calls = undefined; this.released = true; r.release = true; return r; }
      }
      if (c.finish_reason !== null && c.finish_reason !== undefined) finished = true;
    }
    if (this.calls !== undefined) {
      r.hold = true;
      if (finished) {
        r.calls = this.calls.filter(Boolean).map((c, i) => ({ id: c.id || `call_${i}`, name: c.name, input: parseArguments(c.args) }));
        this.calls = undefined;
      }
    }
    return r;
  }

  cutMarks(): CutMarks {
    return { reasoningPrefix: this.reasoningOpen && this.reasoning.text ? this.reasoning.text : undefined, itemIds: [] };
  }

  end(note: string): string {
    this.calls = undefined;
    const base = { id: this.id, object: "chat.completion.chunk", created: this.created, model: this.model };
    return `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: note }, finish_reason: null }] })}\n\n`
      + `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "length" }] })}\n\n`
      + "data: [DONE]\n\n";
  }
}

// ---- OpenAI Responses -----------------------------------------------------------------------

const RESPONSES_TOOL_ITEMS = new Set(["function_call", "custom_tool_call", "local_shell_call"]);

interface OpenItem { item: Record<string, unknown>; text: string }

export class ResponsesReader implements StreamReader {
  private readonly r = newReading();
  private response: Record<string, unknown> = { id: "resp_loop_sentinel", object: "response" };
  private readonly open = new Map<number, OpenItem>();
  /** Items the client has seen finish, in order: the closing `response.completed` lists them. */
  private readonly finished: Record<string, unknown>[] = [];
  private nextIndex = 0;
  private held: { index: number; item: Record<string, unknown>; args: string } | undefined;
  private seq: number | undefined;
  private reasoning = new Prefix();

  read(ev: SseEvent): Reading {
    const r = clear(this.r);
    const d = parseData(ev);
    if (!d) return r;
    if (typeof d.sequence_number === "number") this.seq = d.sequence_number;
    const index = typeof d.output_index === "number" ? d.output_index : -1;
    const heldHere = this.held !== undefined && index === this.held.index;
    switch (d.type) {
      case "response.created": case "response.in_progress":
        if (isRecord(d.response)) this.response = { ...d.response, output: [] };
        return r;
      case "response.output_item.added": {
        const item = isRecord(d.item) ? d.item : {};
        if (RESPONSES_TOOL_ITEMS.has(String(item.type)) && !this.held) {
          this.held = { index, item, args: typeof item.arguments === "string" ? item.arguments : "" };
          r.hold = true;
          return r;
        }
        this.open.set(index, { item, text: "" });
        this.nextIndex = Math.max(this.nextIndex, index + 1);
        if (item.type === "reasoning") this.reasoning = new Prefix();
        return r;
      }
      case "response.output_item.done": {
        const item = isRecord(d.item) ? d.item : {};
        if (heldHere) {
          const h = this.held!;
          this.held = undefined;
          this.nextIndex = Math.max(this.nextIndex, h.index + 1);
          const args = typeof item.arguments === "string" ? item.arguments : typeof item.input === "string" ? JSON.stringify({ input: item.input }) : h.args;
          const name = String(item.name ?? h.item.name ?? item.type);
          r.hold = true;
          r.calls = [{ id: String(item.call_id ?? h.item.call_id ?? item.id ?? `call_${h.index}`), name, input: parseArguments(args) }];
          this.finished.push(bounded(item));
          return r;
        }
        this.open.delete(index);
        this.finished.push(bounded(item));
        return r;
      }
      case "response.completed": case "response.incomplete": case "response.failed": r.done = true; return r;
      default: break;
    }
    if (heldHere) {
      r.hold = true;
      if (typeof d.delta === "string") {
        this.held!.args += d.delta;
        if (this.held!.args.length > MAX_HELD_ARGUMENT_CHARS) { this.held = undefined; r.hold = false; r.release = true; }
      }
      return r;
    }
    if (typeof d.delta !== "string" || typeof d.type !== "string") return r;
    const open = this.open.get(index);
    if (d.type === "response.output_text.delta" || d.type === "response.refusal.delta") {
      r.pieces.push({ channel: "text", delta: d.delta });
      if (open && open.text.length < MAX_ITEM_TEXT) open.text += d.delta;
    } else if (d.type === "response.reasoning_summary_text.delta" || d.type === "response.reasoning_text.delta") {
      r.pieces.push({ channel: "reasoning", delta: d.delta });
      this.reasoning.add(d.delta);
      if (open && open.text.length < MAX_ITEM_TEXT) open.text += d.delta;
    }
    return r;
  }

  cutMarks(): CutMarks {
    const itemIds: string[] = [];
    let prefix: string | undefined;
    for (const { item } of this.open.values()) {
      if (item.type !== "reasoning") continue;
      if (typeof item.id === "string") itemIds.push(item.id);
      prefix = this.reasoning.text || undefined;
    }
    return { reasoningPrefix: prefix, itemIds };
  }

  end(note: string): string {
    let out = "";
    const ev = (type: string, data: Record<string, unknown>) => {
      if (this.seq !== undefined) data = { ...data, sequence_number: ++this.seq };
      out += sseEvent(type, data);
    };
    let noted = false;
    for (const index of [...this.open.keys()].sort((a, b) => a - b)) {
      const { item, text } = this.open.get(index)!;
      let done: Record<string, unknown>;
      if (item.type === "message" && !noted) {
        noted = true;
        ev("response.output_text.delta", { output_index: index, item_id: item.id, content_index: 0, delta: note });
        done = { ...item, status: "completed", content: [{ type: "output_text", text: text + note, annotations: [] }] };
      } else if (item.type === "reasoning") {
        done = { ...item, summary: text ? [{ type: "summary_text", text }] : [] };
      } else done = { ...item, status: "completed" };
      ev("response.output_item.done", { output_index: index, item: done });
      this.finished.push(done);
    }
    this.open.clear();
    if (!noted) {
      const index = this.held ? this.held.index : this.nextIndex;
      const id = `msg_loop_sentinel_${Date.now().toString(36)}`;
      const message = { type: "message", id, role: "assistant", status: "completed", content: [{ type: "output_text", text: note, annotations: [] }] };
      ev("response.output_item.added", { output_index: index, item: { ...message, status: "in_progress", content: [] } });
      ev("response.content_part.added", { output_index: index, item_id: id, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
      ev("response.output_text.delta", { output_index: index, item_id: id, content_index: 0, delta: note });
      ev("response.output_item.done", { output_index: index, item: message });
      this.finished.push(message);
    }
    this.held = undefined;
    const usage = { input_tokens: 0, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 };
    ev("response.completed", { response: { ...this.response, status: "completed", output: this.finished, usage } });
    return out;
  }
}

/**
 * A finished item as kept for the closing `response.completed` of a cut: the answer's memory must
 * not grow with its length, so a long text in it is kept only in part (the agent has it whole
 * from its own `output_item.done`).
 */
function bounded(item: Record<string, unknown>): Record<string, unknown> {
  const long = (v: unknown) => Array.isArray(v) && v.some((c) => isRecord(c) && typeof c.text === "string" && c.text.length > MAX_KEPT_ITEM_TEXT);
  if (!long(item.content) && !long(item.summary)) return item;
  const cut = (v: unknown) => (Array.isArray(v) ? v.map((c) => (isRecord(c) && typeof c.text === "string" ? { ...c, text: c.text.slice(0, MAX_KEPT_ITEM_TEXT) } : c)) : v);
  return { ...item, content: cut(item.content), summary: cut(item.summary) };
}
const MAX_KEPT_ITEM_TEXT = 64 * 1024;

// ---- Gemini streamGenerateContent (alt=sse) -------------------------------------------------

export class GeminiReader implements StreamReader {
  private readonly r = newReading();
  private modelVersion: unknown;
  /** Calls of this answer so far (a call without an id is named by its place: see geminiCallPlace). */
  private calls = 0;

  /** `turn`: where this answer will stand in the conversation (the request's contents count), if known. */
  constructor(private readonly turn?: number) {}
  private reasoning = new Prefix();
  private reasoningOpen = false;

  read(ev: SseEvent): Reading {
    const r = clear(this.r);
    const d = parseData(ev);
    if (!d) return r;
    if (d.modelVersion !== undefined) this.modelVersion = d.modelVersion;
    const candidates = Array.isArray(d.candidates) ? d.candidates : [];
    for (const c of candidates) {
      if (!isRecord(c)) continue;
      const parts = isRecord(c.content) && Array.isArray(c.content.parts) ? c.content.parts : [];
      for (const p of parts) {
        if (!isRecord(p)) continue;
        if (typeof p.text === "string" && p.text) {
          if (p.thought === true) {
            if (!this.reasoningOpen) { this.reasoning = new Prefix(); this.reasoningOpen = true; }
            this.reasoning.add(p.text);
            r.pieces.push({ channel: "reasoning", delta: p.text });
          } else { this.reasoningOpen = false; r.pieces.push({ channel: "text", delta: p.text }); }
        }
        // A Gemini call comes whole in one part: the event is held only while it is decided on.
        // One without an id (the model gives none; the Gemini CLI names it itself afterwards) is
        // named by its place, which later requests name it by too (requests.history); without the
        // place it is left to be read there (it can then not be refused).
        if (isRecord(p.functionCall)) {
          const fc = p.functionCall;
          const k = this.calls++;
          const id = typeof fc.id === "string" ? fc.id : this.turn !== undefined ? geminiCallPlace(this.turn, k) : undefined;
          if (id === undefined) continue;
          r.hold = true;
          (r.calls ??= []).push({ id, name: String(fc.name ?? ""), input: isRecord(fc.args) ? fc.args : {} });
        }
      }
      if (c.finishReason !== undefined && c.finishReason !== null) r.done = true;
    }
    return r;
  }

  cutMarks(): CutMarks {
    return { reasoningPrefix: this.reasoningOpen && this.reasoning.text ? this.reasoning.text : undefined, itemIds: [] };
  }

  end(note: string): string {
    const chunk: Record<string, unknown> = { candidates: [{ content: { role: "model", parts: [{ text: note }] }, finishReason: "STOP", index: 0 }] };
    if (this.modelVersion !== undefined) chunk.modelVersion = this.modelVersion;
    return `data: ${JSON.stringify(chunk)}\r\n\r\n`;
  }
}

/** The name of the k-th call of the answer at `turn` of a Gemini conversation, for a call without an id. */
export function geminiCallPlace(turn: number, k: number): string { return `gemini:${turn}:c${k}`; }

/** `answerAt`: where the answer will stand in the conversation (Gemini names calls without ids by it). */
export function streamReader(format: WireFormat, answerAt?: number): StreamReader {
  switch (format) {
    case "anthropic": return new AnthropicReader();
    case "chat": return new ChatReader();
    case "responses": return new ResponsesReader();
    case "gemini": return new GeminiReader(answerAt);
  }
}
