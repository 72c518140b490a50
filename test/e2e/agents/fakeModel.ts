/**
 * A fake model for the real Claude Code, Copilot CLI, Codex, Gemini CLI and Qwen Code: the
 * Anthropic Messages API (Claude), OpenAI Chat Completions (Copilot BYOK, Qwen Code), the Responses
 * API (Codex) and the Gemini API's `streamGenerateContent` (Gemini CLI), all streamed as SSE like a
 * real provider. It plays a scripted model step by step, rendering each step in the
 * tools the request offers, and records for every request what the client sent after the model's
 * last turn: that is where a hook's refusal or context reaches the model.
 * Built after the verified reference servers in ../shared/hosts/hook-agents (fake-anthropic.mjs,
 * fake-openai.mjs).
 */
import type * as http from "node:http";
import { closeLocal, listenLocal, withBody } from "../../localServer";

/** One model step: what it thinks and says, and the one tool call it makes (none: the final answer). */
export interface Step {
  thinking?: string;
  text?: string;
  call?: Call;
}

export type Call =
  | { kind: "shell"; command: string; description?: string }
  | { kind: "read"; path: string }
  | { kind: "edit"; path: string; old: string; new: string }
  | { kind: "write"; path: string; content: string };

export interface RequestRecord {
  n: number;
  api: "anthropic" | "chat" | "responses" | "gemini";
  /** Strings holding MARKER sent after the model's last turn (tool results, context messages). */
  evidence: string[];
  /** The call the model made in its reply, as the client's tool name and input. */
  reply?: { tool: string; input: Record<string, unknown> };
  /** When the request arrived (ms, monotonic): the gap between two is a turn of the agent, hooks included. */
  at: number;
}

export const MARKER = "Loop Sentinel";

function findStrings(v: unknown, needle: string, out: string[] = []): string[] {
  if (typeof v === "string") { if (v.includes(needle)) out.push(v); }
  else if (Array.isArray(v)) for (const x of v) findStrings(x, needle, out);
  else if (v && typeof v === "object") for (const x of Object.values(v)) findStrings(x, needle, out);
  return out;
}

type Json = Record<string, unknown>;

/** The tool names a request offers. */
function offered(body: Json): Set<string> {
  const tools = Array.isArray(body.tools) ? body.tools as Json[] : [];
  const names = new Set<string>();
  for (const t of tools) {
    // Gemini: one tool holding every function declaration.
    if (Array.isArray(t.functionDeclarations)) { for (const f of t.functionDeclarations as Json[]) names.add(String(f.name)); continue; }
    names.add(String((t.function as Json | undefined)?.name ?? t.name ?? t.type));
  }
  return names;
}

/** A step's call in the client's own tools (the shell stands in for a tool the client lacks). */
function render(call: Call, tools: Set<string>): { tool: string; input: Json } | undefined {
  const shellTool = ["Bash", "bash", "exec_command", "run_shell_command", "shell", "shell_command"].find((n) => tools.has(n));
  const description = call.kind === "shell" ? call.description : undefined;
  const shell = (command: string) => {
    if (!shellTool) return undefined;
    if (shellTool === "exec_command") return { tool: shellTool, input: { cmd: command } };
    return { tool: shellTool, input: { command, description: description ?? "run a command" } };
  };
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  switch (call.kind) {
    case "shell": return shell(call.command);
    case "read":
      if (tools.has("Read")) return { tool: "Read", input: { file_path: call.path } };
      if (tools.has("view")) return { tool: "view", input: { path: call.path } };
      if (tools.has("read_file")) return { tool: "read_file", input: { file_path: call.path } };
      return shell(`cat ${q(call.path)}`);
    case "edit":
      if (tools.has("Edit")) return { tool: "Edit", input: { file_path: call.path, old_string: call.old, new_string: call.new } };
      // Qwen Code's edit (beside its read_file) takes Gemini's names; Copilot's its own.
      if (tools.has("edit") && tools.has("read_file")) return { tool: "edit", input: { file_path: call.path, old_string: call.old, new_string: call.new } };
      if (tools.has("edit")) return { tool: "edit", input: { path: call.path, old_str: call.old, new_str: call.new } };
      if (tools.has("replace")) return { tool: "replace", input: { file_path: call.path, old_string: call.old, new_string: call.new, instruction: `Replace ${call.old} with ${call.new}.` } };
      return shell(`node -e ${q(`const fs=require("fs");const f=${JSON.stringify(call.path)};fs.writeFileSync(f,fs.readFileSync(f,"utf8").replace(${JSON.stringify(call.old)},${JSON.stringify(call.new)}))`)}`);
    case "write":
      if (tools.has("Write")) return { tool: "Write", input: { file_path: call.path, content: call.content } };
      if (tools.has("create")) return { tool: "create", input: { path: call.path, file_text: call.content } };
      if (tools.has("write_file")) return { tool: "write_file", input: { file_path: call.path, content: call.content } };
      return shell(`printf %s ${q(call.content)} > ${q(call.path)}`);
  }
}

export class FakeModel {
  readonly requests: RequestRecord[] = [];
  private server: http.Server | undefined;
  port = 0;
  private served = 0;
  private calls = 0;

  constructor(private readonly steps: Step[]) {}

  async start(): Promise<void> {
    const { server, port } = await listenLocal(withBody((req, res, raw) => this.handle(req, res, raw)));
    this.server = server;
    this.port = port;
  }

  stop(): Promise<void> { return closeLocal(this.server); }

  /** Requests that carried Loop Sentinel's text. */
  guided(): RequestRecord[] { return this.requests.filter((r) => r.evidence.length > 0); }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): void {
    let body: Json = {};
    try { body = raw ? JSON.parse(raw) : {}; } catch { /* answered as a side request */ }
    const url = (req.url ?? "").split("?")[0];
    const api = url.endsWith("/messages") ? "anthropic" : url.endsWith("/chat/completions") ? "chat" : url.endsWith("/responses") ? "responses" : /:(stream)?[gG]enerateContent$/.test(url) ? "gemini" : undefined;
    if (/:countTokens$/.test(url)) { res.writeHead(200, { "content-type": "application/json" }); res.end('{"totalTokens":42}'); return; }
    if (req.method !== "POST" || !api) {
      res.writeHead(url.endsWith("/models") ? 200 : 404, { "content-type": "application/json" });
      res.end(url.endsWith("/models") ? JSON.stringify({ object: "list", data: [{ id: "fake-model", object: "model", created: 0, owned_by: "fake" }] }) : "{}");
      return;
    }
    const tools = offered(body);
    if (url.endsWith("/count_tokens")) { res.writeHead(200, { "content-type": "application/json" }); res.end('{"input_tokens":42}'); return; }
    // Side requests (titles, summaries) offer no tools.
    const plainJson = api === "gemini" && !/:streamGenerateContent$/.test(url);
    if (tools.size === 0) { this.reply(api, res, body, { text: "Fake title" }, undefined, plainJson); return; }
    const record: RequestRecord = { n: this.requests.length + 1, api, evidence: findStrings(afterLastTurn(body), MARKER), at: performance.now() };
    this.requests.push(record);
    const step = this.steps[this.served++] ?? { text: "Done." };
    const call = step.call && render(step.call, tools);
    if (call) record.reply = call;
    this.reply(api, res, body, step, call, plainJson);
  }

  private reply(api: RequestRecord["api"], res: http.ServerResponse, body: Json, step: Step, call: { tool: string; input: Json } | undefined, plainJson = false): void {
    const id = call ? `call_fake_${++this.calls}` : "";
    if (plainJson) {
      // Gemini's `generateContent` (its side requests): the same chunk, as one JSON document.
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(geminiChunk(body, step, call)));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    if (api === "anthropic") anthropicReply(res, body, step, call, id.replace("call_", "toolu_"));
    else if (api === "chat") chatReply(res, body, step, call, id);
    else if (api === "gemini") geminiReply(res, body, step, call);
    else responsesReply(res, body, step, call, id);
    res.end();
  }
}

/** What the client sent after the model's last turn. */
function afterLastTurn(body: Json): unknown[] {
  const list = (Array.isArray(body.messages) ? body.messages : Array.isArray(body.input) ? body.input : Array.isArray(body.contents) ? body.contents : []) as Json[];
  let i = list.length - 1;
  while (i >= 0 && !(list[i].role === "assistant" || list[i].role === "model" || list[i].type === "function_call" || list[i].type === "reasoning")) i--;
  return list.slice(i + 1);
}

const sse = (res: http.ServerResponse, event: string | undefined, data: unknown) =>
  res.write(`${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`);

function anthropicReply(res: http.ServerResponse, body: Json, step: Step, call: { tool: string; input: Json } | undefined, id: string): void {
  sse(res, "message_start", { type: "message_start", message: { id: `msg_${id || "final"}_${Date.now()}`, type: "message", role: "assistant", model: body.model ?? "fake-model", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } });
  let index = 0;
  if (step.thinking) {
    sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } });
    sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: step.thinking } });
    sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "signature_delta", signature: "fake-signature" } });
    sse(res, "content_block_stop", { type: "content_block_stop", index: index++ });
  }
  const text = step.text ?? (call ? undefined : "Done.");
  if (text) {
    sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
    sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text } });
    sse(res, "content_block_stop", { type: "content_block_stop", index: index++ });
  }
  if (call) {
    sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id, name: call.tool, input: {} } });
    sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(call.input) } });
    sse(res, "content_block_stop", { type: "content_block_stop", index: index++ });
  }
  sse(res, "message_delta", { type: "message_delta", delta: { stop_reason: call ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: 5 } });
  sse(res, "message_stop", { type: "message_stop" });
}

function chatReply(res: http.ServerResponse, body: Json, step: Step, call: { tool: string; input: Json } | undefined, id: string): void {
  const base = { id: `chatcmpl-${id || "final"}`, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model ?? "fake-model" };
  const text = step.text ?? (call ? undefined : "Done.");
  if (step.thinking) sse(res, undefined, { ...base, choices: [{ index: 0, delta: { role: "assistant", reasoning_content: step.thinking }, finish_reason: null }] });
  if (text) sse(res, undefined, { ...base, choices: [{ index: 0, delta: { role: "assistant", content: text }, finish_reason: null }] });
  if (call) {
    sse(res, undefined, { ...base, choices: [{ index: 0, delta: { role: "assistant", content: null, tool_calls: [{ index: 0, id, type: "function", function: { name: call.tool, arguments: "" } }] }, finish_reason: null }] });
    sse(res, undefined, { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: JSON.stringify(call.input) } }] }, finish_reason: null }] });
  }
  sse(res, undefined, { ...base, choices: [{ index: 0, delta: {}, finish_reason: call ? "tool_calls" : "stop" }] });
  sse(res, undefined, { ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  res.write("data: [DONE]\n\n");
}

function responsesReply(res: http.ServerResponse, body: Json, step: Step, call: { tool: string; input: Json } | undefined, id: string): void {
  const n = Date.now();
  const ev = (type: string, data: Json) => sse(res, type, { type, ...data });
  const response = { id: `resp_${n}`, object: "response", created_at: Math.floor(n / 1000), model: body.model ?? "fake-model", status: "in_progress", output: [] };
  ev("response.created", { response });
  const items: Json[] = [];
  if (step.thinking) {
    // A reasoning summary, as the Responses API streams one: Codex keeps it in its rollout file.
    const item = { type: "reasoning", id: `rs_${n}`, summary: [{ type: "summary_text", text: step.thinking }] };
    ev("response.output_item.added", { output_index: items.length, item: { ...item, summary: [] } });
    ev("response.reasoning_summary_part.added", { output_index: items.length, item_id: item.id, summary_index: 0, part: { type: "summary_text", text: "" } });
    ev("response.reasoning_summary_text.delta", { output_index: items.length, item_id: item.id, summary_index: 0, delta: step.thinking });
    ev("response.reasoning_summary_text.done", { output_index: items.length, item_id: item.id, summary_index: 0, text: step.thinking });
    ev("response.reasoning_summary_part.done", { output_index: items.length, item_id: item.id, summary_index: 0, part: item.summary[0] });
    ev("response.output_item.done", { output_index: items.length, item });
    items.push(item);
  }
  const text = step.text ?? (call ? undefined : "Done.");
  if (text) {
    const item = { type: "message", id: `msg_${n}`, role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] };
    ev("response.output_item.added", { output_index: items.length, item: { ...item, content: [], status: "in_progress" } });
    ev("response.output_text.delta", { output_index: items.length, item_id: item.id, content_index: 0, delta: text });
    ev("response.output_item.done", { output_index: items.length, item });
    items.push(item);
  }
  if (call) {
    const item = { type: "function_call", id: `fc_${n}`, call_id: id, name: call.tool, arguments: JSON.stringify(call.input), status: "completed" };
    ev("response.output_item.added", { output_index: items.length, item: { ...item, arguments: "", status: "in_progress" } });
    ev("response.function_call_arguments.delta", { output_index: items.length, item_id: item.id, delta: item.arguments });
    ev("response.output_item.done", { output_index: items.length, item });
    items.push(item);
  }
  const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
  ev("response.completed", { response: { ...response, status: "completed", output: items, usage } });
}

/**
 * The Gemini API's reply (`streamGenerateContent?alt=sse`): one chunk holding the thought, the
 * text and the call, as Gemini CLI reads it. Its side requests (the next speaker, routing, its own
 * loop check) offer no tools and ask for JSON: one object that answers each of them harmlessly.
 */
function geminiChunk(body: Json, step: Step, call: { tool: string; input: Json } | undefined): Json {
  const config = body.generationConfig as Json | undefined;
  const wantsJson = config && (config.responseMimeType === "application/json" || config.responseJsonSchema || config.responseSchema);
  const parts: Json[] = [];
  if (wantsJson) parts.push({ text: JSON.stringify({ reasoning: "The model finished its turn.", next_speaker: "user", model_choice: "flash", is_loop: false, confidence: 0.1 }) });
  else {
    if (step.thinking) parts.push({ text: step.thinking, thought: true });
    const text = step.text ?? (call ? undefined : "Done.");
    if (text) parts.push({ text });
    if (call) parts.push({ functionCall: { name: call.tool, args: call.input } });
  }
  return { candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }], usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 10, totalTokenCount: 110 }, modelVersion: "fake-model" };
}

function geminiReply(res: http.ServerResponse, body: Json, step: Step, call: { tool: string; input: Json } | undefined): void {
  res.write(`data: ${JSON.stringify(geminiChunk(body, step, call))}\r\n\r\n`);
}
