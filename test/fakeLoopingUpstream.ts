/**
 * A fake model provider for the stream guard's tests, speaking each wire format the way the real
 * providers stream it (Anthropic Messages, OpenAI Chat Completions with `reasoning_content`, the
 * Responses API, Gemini `streamGenerateContent?alt=sse`), after the shapes measured in
 * ../shared/hosts/stream-guard. A main request (one offering tools) is answered with a loop: one
 * paragraph streamed 20 times, 3 deltas a copy, one delta every `delayMs`; a request carrying
 * Loop Sentinel's guidance gets a short final answer; `productive` streams given text instead.
 * Like the real APIs it refuses what a cut leaves behind: an Anthropic thinking block whose
 * signature it did not issue for that text, a Responses reasoning item without its
 * `encrypted_content`. It records every request (key values only by length) and how much of each
 * loop it wrote before the client went away.
 */
import * as http from "node:http";
import * as https from "node:https";
import type { AddressInfo } from "node:net";

export type Api = "anthropic" | "chat" | "responses" | "gemini";
export type Answer = "loop" | "final" | "side" | "productive" | "call";

export const PARAGRAPH = "Let me reconsider the approach once more. The listing shows a.txt, so before answering I should verify that nothing changed since the last check, and to be sure of that I need to look at the files again from the top. ";
export const FINAL = "FINAL: I read the loop note; the folder holds a.txt. Done.";
export const GUIDANCE_MARK = "Loop Sentinel";
/** Loop Sentinel's guidance (not its note in a cut answer, not the words in a repository's history a CLI puts in its prompt). */
const GUIDANCE = /Loop Sentinel (stopped your last response|refused this call|stopped the task)|Loop Sentinel: /;

/** Whether the conversation (not the system prompt) carries Loop Sentinel's guidance. */
export function carriesGuidance(body: Json): boolean {
  return GUIDANCE.test(JSON.stringify(body.messages ?? body.input ?? body.contents ?? ""));
}

type Json = Record<string, unknown>;

export interface UpRequest {
  n: number;
  api: Api | undefined;
  path: string;
  headers: Record<string, string>;
  body: Json;
  answer: Answer;
  status: number;
  /** Characters of the loop (or productive text) written before the end or the client leaving. */
  written: number;
  clientGone: boolean;
  completed: boolean;
  /** Why the request was refused (400), if it was. */
  refused?: string;
  /** What a streamed answer wrote, as written. */
  raw: string;
}

export interface UpstreamOptions {
  /** Stream the loop as thinking/reasoning (true) or as answer text. */
  reasoning?: boolean;
  delayMs?: number;
  copies?: number;
  /** What a main request gets (default: final when it carries guidance, else loop). */
  decide?: (body: Json, api: Api, n: number) => Answer;
  /** The text `productive` streams, in deltas of this many characters. */
  productive?: string;
  productiveDelta?: number;
  /** Serve over https with this key and certificate. */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** The first this many streamed main answers fail with an in-stream error (Claude Code then asks again, not streamed). */
  failStreams?: number;
  /** The tool call `call` answers with. */
  call?: { name: string; input: Json };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function apiOf(method: string, path: string): Api | undefined {
  if (method !== "POST") return undefined;
  if (path.endsWith("/messages")) return "anthropic";
  if (path.endsWith("/chat/completions")) return "chat";
  if (path.endsWith("/responses")) return "responses";
  if (/:(stream)?[gG]enerateContent$/.test(path)) return "gemini";
  return undefined;
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** A side request's answer: the JSON a Gemini CLI check asks for (next speaker, routing, loop check), else a title. */
function sideText(body: Json): string {
  const config = body.generationConfig as Json | undefined;
  const wantsJson = config && (config.responseMimeType === "application/json" || config.responseJsonSchema || config.responseSchema);
  return wantsJson ? JSON.stringify({ reasoning: "The model has finished its turn.", next_speaker: "user", model_choice: "flash", is_loop: false, confidence: 0.1 }) : "Fake title";
}

/** `ls` in the shell tool the request offers (each CLI names and shapes its own). */
function shellCall(body: Json): { name: string; input: Json } {
  const names = new Set((Array.isArray(body.tools) ? body.tools as Json[] : []).flatMap((t) =>
    Array.isArray(t.functionDeclarations) ? (t.functionDeclarations as Json[]).map((f) => String(f.name)) : [String((t.function as Json | undefined)?.name ?? t.name ?? t.type)]));
  const name = ["Bash", "bash", "exec_command", "shell", "shell_command", "run_shell_command"].find((n) => names.has(n)) ?? "Bash";
  return { name, input: name === "exec_command" ? { cmd: "ls" } : { command: "ls", description: "List the files" } };
}

export class LoopingUpstream {
  readonly requests: UpRequest[] = [];
  private server: http.Server | undefined;
  port = 0;
  private failed = 0;
  /** Signatures issued for whole thinking blocks, by the text they sign. */
  private readonly signatures = new Map<string, string>();

  constructor(private readonly o: UpstreamOptions = {}) {}

  get url(): string { return `${this.o.tls ? "https" : "http"}://127.0.0.1:${this.port}`; }

  async start(port = 0): Promise<void> {
    const handler: http.RequestListener = (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => { void this.handle(req, res, Buffer.concat(chunks).toString("utf8")); });
    };
    const server = this.o.tls ? https.createServer(this.o.tls, handler) : http.createServer(handler);
    this.server = server;
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    this.port = (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const s = this.server;
    if (!s) return;
    s.closeAllConnections?.();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** Main requests (those that offer tools). */
  main(): UpRequest[] { return this.requests.filter((r) => r.answer !== "side" && r.api); }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    const url = req.url ?? "/";
    const path = url.split("?")[0];
    const api = apiOf(req.method ?? "GET", path);
    let body: Json = {};
    try { body = raw ? JSON.parse(raw) as Json : {}; } catch { body = { unparsed: raw }; }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k] = /key|authorization/i.test(k) ? `<${String(v).length} chars>` : String(v);
    const rec: UpRequest = { n: this.requests.length + 1, api, path: url, headers, body, answer: "side", status: 200, written: 0, clientGone: false, completed: false, raw: "" };
    this.requests.push(rec);
    res.on("close", () => { if (!res.writableFinished) rec.clientGone = true; });
    if (/:countTokens$/.test(path)) { res.writeHead(200, { "content-type": "application/json" }); res.end('{"totalTokens":1000}'); return; }
    if (!api) {
      res.writeHead(path.endsWith("/models") ? 200 : 404, { "content-type": "application/json" });
      res.end(path.endsWith("/models") ? JSON.stringify({ object: "list", data: [{ id: "fake-model", object: "model" }] }) : JSON.stringify({ error: { message: "not found" } }));
      return;
    }
    const refusal = this.refusal(api, body);
    if (refusal) {
      rec.status = 400;
      rec.refused = refusal;
      res.writeHead(400, { "content-type": "application/json" });
      res.end(api === "anthropic" ? JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: refusal } }) : JSON.stringify({ error: { message: refusal, type: "invalid_request_error" } }));
      return;
    }
    const tools = Array.isArray(body.tools) && body.tools.length > 0;
    const guided = carriesGuidance(body);
    rec.answer = !tools ? "side" : this.o.decide ? this.o.decide(body, api, this.main().length + 1) : guided ? "final" : "loop";
    if (api === "gemini" ? !/:streamGenerateContent$/.test(path) : body.stream !== true) return this.whole(api, body, res, rec);
    if (api === "anthropic" && rec.answer !== "side" && (this.o.failStreams ?? 0) > this.failed) {
      this.failed++;
      rec.refused = "in-stream error";
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`event: message_start\ndata: ${JSON.stringify({ type: "message_start", message: { id: `msg_${rec.n}`, type: "message", role: "assistant", model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } })}\n\n`);
      res.end(`event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "stream failed" } })}\n\n`);
      return;
    }
    await this.stream(api, body, res, rec);
  }

  /** What a real provider refuses: thinking it did not sign, reasoning items sent back without their encrypted content. */
  private refusal(api: Api, body: Json): string | undefined {
    if (api === "anthropic" && Array.isArray(body.messages)) {
      for (const [i, m] of (body.messages as Json[]).entries()) {
        if (m.role !== "assistant" || !Array.isArray(m.content)) continue;
        for (const [j, b] of (m.content as Json[]).entries()) {
          if (b.type === "thinking" && this.signatures.get(String(b.thinking)) !== b.signature) return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
        }
      }
    }
    if (api === "responses" && Array.isArray(body.input)) {
      for (const [i, m] of (body.input as Json[]).entries()) {
        if (m.type === "reasoning" && !m.encrypted_content) return `Item with id '${String(m.id)}' not found. Items are not persisted when \`store\` is set to false (input[${i}]).`;
      }
    }
    return undefined;
  }

  private whole(api: Api, body: Json, res: http.ServerResponse, rec: UpRequest): void {
    const text = rec.answer === "final" ? FINAL : rec.answer === "side" ? sideText(body) : rec.answer === "productive" ? this.o.productive ?? "" : PARAGRAPH.repeat(this.o.copies ?? 20);
    rec.written = text.length;
    rec.completed = true;
    res.writeHead(200, { "content-type": "application/json" });
    const end = res.end.bind(res);
    (res as unknown as { end: (s: string) => void }).end = (s: string) => { rec.raw = s; end(s); };
    if (api === "anthropic") res.end(JSON.stringify({ id: `msg_${rec.n}`, type: "message", role: "assistant", model: body.model, content: [{ type: "text", text }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } }));
    else if (api === "chat") res.end(JSON.stringify({ id: `chatcmpl-${rec.n}`, object: "chat.completion", created: 1, model: body.model, choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }] }));
    else if (api === "gemini") res.end(JSON.stringify({ candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 }, modelVersion: "fake-model" }));
    else res.end(JSON.stringify({ id: `resp_${rec.n}`, object: "response", status: "completed", output: [{ type: "message", id: `msg_${rec.n}`, role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }] }));
  }

  private async stream(api: Api, body: Json, res: http.ServerResponse, rec: UpRequest): Promise<void> {
    const looping = rec.answer === "loop" || rec.answer === "productive";
    const text = rec.answer === "final" ? FINAL : rec.answer === "side" ? sideText(body) : rec.answer === "call" ? "Listing the folder." : "";
    // A call answer with reasoning thinks the loop first, then calls.
    const reasoning = (looping || rec.answer === "call") && this.o.reasoning === true;
    const deltas = rec.answer === "loop" || (rec.answer === "call" && reasoning) ? Array.from({ length: this.o.copies ?? 20 }, () => pieces(PARAGRAPH, Math.ceil(PARAGRAPH.length / 3))).flat()
      : rec.answer === "productive" ? pieces(this.o.productive ?? "", this.o.productiveDelta ?? 72) : [text];
    const delay = looping ? this.o.delayMs ?? 20 : 0;
    const call = rec.answer === "call" ? this.o.call ?? shellCall(body) : undefined;
    const gone = () => res.destroyed || rec.clientGone;
    const w = (s: string) => { if (!gone()) { rec.raw += s; res.write(s); } };
    const ev = (type: string, data: Json) => w(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    const data = (d: unknown) => w(`data: ${JSON.stringify(d)}\n\n`);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "x-request-id": `req_${rec.n}` });
    let full = "";
    const each = async (emit: (d: string) => void): Promise<boolean> => {
      for (const d of deltas) {
        if (gone()) return false;
        emit(d);
        full += d;
        if (looping) rec.written += d.length;
        if (delay) await sleep(delay);
      }
      return !gone();
    };
    switch (api) {
      case "anthropic": {
        ev("message_start", { message: { id: `msg_${rec.n}`, type: "message", role: "assistant", model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } });
        let index = 0;
        if (reasoning) {
          ev("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } });
          if (!(await each((d) => ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking: d } })))) return;
          const signature = `sig_${rec.n}_${full.length}`;
          this.signatures.set(full, signature);
          ev("content_block_delta", { index, delta: { type: "signature_delta", signature } });
          ev("content_block_stop", { index: index++ });
          ev("content_block_start", { index, content_block: { type: "text", text: "" } });
          ev("content_block_delta", { index, delta: { type: "text_delta", text: "Done thinking." } });
          ev("content_block_stop", { index: index++ });
        } else {
          ev("content_block_start", { index, content_block: { type: "text", text: "" } });
          if (!(await each((d) => ev("content_block_delta", { index, delta: { type: "text_delta", text: d } })))) return;
          ev("content_block_stop", { index: index++ });
        }
        if (call) {
          ev("content_block_start", { index, content_block: { type: "tool_use", id: `toolu_${rec.n}`, name: call.name, input: {} } });
          const json = JSON.stringify(call.input);
          for (const p of pieces(json, 7)) ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: p } });
          ev("content_block_stop", { index: index++ });
        }
        ev("message_delta", { delta: { stop_reason: call ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: 100 } });
        ev("message_stop", {});
        break;
      }
      case "chat": {
        const base = { id: `chatcmpl-${rec.n}`, object: "chat.completion.chunk", created: 1700000000, model: body.model };
        data({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
        const key = reasoning ? "reasoning_content" : "content";
        if (!(await each((d) => data({ ...base, choices: [{ index: 0, delta: { [key]: d }, finish_reason: null }] })))) return;
        if (reasoning) data({ ...base, choices: [{ index: 0, delta: { content: "Done thinking." }, finish_reason: null }] });
        if (call) {
          data({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: `call_${rec.n}`, type: "function", function: { name: call.name, arguments: "" } }] }, finish_reason: null }] });
          for (const p of pieces(JSON.stringify(call.input), 7)) data({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: p } }] }, finish_reason: null }] });
        }
        data({ ...base, choices: [{ index: 0, delta: {}, finish_reason: call ? "tool_calls" : "stop" }] });
        data({ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
        w("data: [DONE]\n\n");
        break;
      }
      case "responses": {
        let seq = 0;
        const rev = (type: string, d: Json) => ev(type, { ...d, sequence_number: seq++ });
        const response = { id: `resp_${rec.n}`, object: "response", created_at: 1700000000, model: body.model, status: "in_progress", output: [] as Json[] };
        rev("response.created", { response });
        const output: Json[] = [];
        if (reasoning) {
          const id = `rs_${rec.n}`;
          rev("response.output_item.added", { output_index: 0, item: { type: "reasoning", id, summary: [] } });
          rev("response.reasoning_summary_part.added", { output_index: 0, item_id: id, summary_index: 0, part: { type: "summary_text", text: "" } });
          if (!(await each((d) => rev("response.reasoning_summary_text.delta", { output_index: 0, item_id: id, summary_index: 0, delta: d })))) return;
          const item = { type: "reasoning", id, summary: [{ type: "summary_text", text: full }], encrypted_content: `enc_${rec.n}` };
          rev("response.output_item.done", { output_index: 0, item });
          output.push(item);
        }
        const oi = output.length;
        const mid = `msg_${rec.n}`;
        rev("response.output_item.added", { output_index: oi, item: { type: "message", id: mid, role: "assistant", status: "in_progress", content: [] } });
        rev("response.content_part.added", { output_index: oi, item_id: mid, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
        let said = "";
        if (reasoning) { said = "Done thinking."; rev("response.output_text.delta", { output_index: oi, item_id: mid, content_index: 0, delta: said }); }
        else { if (!(await each((d) => rev("response.output_text.delta", { output_index: oi, item_id: mid, content_index: 0, delta: d })))) return; said = full; }
        const msg = { type: "message", id: mid, role: "assistant", status: "completed", content: [{ type: "output_text", text: said, annotations: [] }] };
        rev("response.output_item.done", { output_index: oi, item: msg });
        output.push(msg);
        if (call) {
          const fc = { type: "function_call", id: `fc_${rec.n}`, call_id: `call_${rec.n}`, name: call.name, arguments: JSON.stringify(call.input), status: "completed" };
          rev("response.output_item.added", { output_index: output.length, item: { ...fc, arguments: "", status: "in_progress" } });
          for (const p of pieces(fc.arguments, 7)) rev("response.function_call_arguments.delta", { output_index: output.length, item_id: fc.id, delta: p });
          rev("response.output_item.done", { output_index: output.length, item: fc });
          output.push(fc);
        }
        rev("response.completed", { response: { ...response, status: "completed", output, usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 } } });
        break;
      }
      case "gemini": {
        const chunk = (parts: Json[], finish?: string) => w(`data: ${JSON.stringify({ candidates: [{ content: { role: "model", parts }, ...(finish ? { finishReason: finish } : {}), index: 0 }], ...(finish ? { usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 } } : {}), modelVersion: "fake-model" })}\r\n\r\n`);
        if (!(await each((d) => chunk([reasoning ? { text: d, thought: true } : { text: d }])))) return;
        if (call) chunk([{ functionCall: { name: call.name, args: call.input } }]);
        chunk([{ text: reasoning ? "Done thinking." : "" }], "STOP");
        break;
      }
    }
    rec.completed = true;
    res.end();
  }
}
