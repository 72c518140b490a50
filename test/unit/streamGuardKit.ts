/** Helpers for the stream guard's tests: requests per wire format, a client that keeps the raw answer, and reading it back. */
import * as http from "node:http";
import { SseSplitter, type SseEvent } from "../../src/hosts/streamGuard/sse";
import { streamReader, type WireFormat } from "../../src/hosts/streamGuard/streamReaders";
import { PARAGRAPH } from "../fakeLoopingUpstream";

export const FORMATS: WireFormat[] = ["anthropic", "chat", "responses", "gemini"];

export const PATHS: Record<WireFormat, string> = {
  anthropic: "/v1/messages",
  chat: "/v1/chat/completions",
  responses: "/v1/responses",
  gemini: "/v1beta/models/fake-model:streamGenerateContent?alt=sse",
};

const TOOLS: Record<WireFormat, unknown> = {
  anthropic: [{ name: "Bash", input_schema: { type: "object" } }],
  chat: [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }],
  responses: [{ type: "function", name: "shell", parameters: { type: "object" } }],
  gemini: [{ functionDeclarations: [{ name: "run_shell_command" }] }],
};

/** A first request of a conversation: the user's words, the tools offered, streamed. */
export function firstRequest(format: WireFormat, said = "List the files here"): Record<string, unknown> {
  switch (format) {
    case "anthropic": return { model: "fake-model", max_tokens: 32000, stream: true, tools: TOOLS.anthropic, messages: [{ role: "user", content: [{ type: "text", text: said }] }] };
    case "chat": return { model: "fake-model", stream: true, tools: TOOLS.chat, messages: [{ role: "system", content: "You are an agent." }, { role: "user", content: said }] };
    case "responses": return { model: "fake-model", stream: true, store: false, tools: TOOLS.responses, input: [{ type: "message", role: "user", content: [{ type: "input_text", text: said }] }] };
    case "gemini": return { tools: TOOLS.gemini, contents: [{ role: "user", parts: [{ text: said }] }] };
  }
}

/**
 * The conversation after the answer the client got: the agent's turn as each agent keeps it
 * (what it streamed, thinking included, as Claude Code, the Copilot CLI and Codex send it back),
 * then the agent's own resume words.
 */
export function followUp(format: WireFormat, first: Record<string, unknown>, got: ClientAnswer, resume: string): Record<string, unknown> {
  const b = JSON.parse(JSON.stringify(first)) as Record<string, unknown>;
  const { text, reasoning, reasoningItemId } = got;
  switch (format) {
    case "anthropic": {
      const content: unknown[] = [];
      if (reasoning) content.push({ type: "thinking", thinking: reasoning, signature: got.signature ?? "" });
      if (text) content.push({ type: "text", text });
      (b.messages as unknown[]).push({ role: "assistant", content }, { role: "user", content: [{ type: "text", text: resume }] });
      return b;
    }
    case "chat":
      (b.messages as unknown[]).push({ role: "assistant", content: text, ...(reasoning ? { reasoning_content: reasoning } : {}) }, { role: "user", content: resume });
      return b;
    case "responses":
      if (reasoning) (b.input as unknown[]).push({ type: "reasoning", id: reasoningItemId, summary: [{ type: "summary_text", text: reasoning }] });
      (b.input as unknown[]).push({ type: "message", role: "assistant", content: [{ type: "output_text", text }] }, { type: "message", role: "user", content: [{ type: "input_text", text: resume }] });
      return b;
    case "gemini":
      (b.contents as unknown[]).push({ role: "model", parts: [...(reasoning ? [{ text: reasoning, thought: true }] : []), { text }] }, { role: "user", parts: [{ text: resume }] });
      return b;
  }
}

export interface ClientAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  /** Answer text and reasoning as the client read them (the guard's note included). */
  text: string;
  reasoning: string;
  signature?: string;
  reasoningItemId?: string;
  /** How the message ended: stop_reason, finish_reason, the Responses closing event, Gemini finishReason. */
  ending?: string;
  /** Milliseconds from the request to its first body byte and to its end. */
  firstByteMs: number;
  totalMs: number;
}

export function send(base: string, path: string, body: unknown, headers: Record<string, string> = {}, method = "POST"): Promise<ClientAnswer> {
  const url = new URL(base + path);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const payload = typeof body === "string" ? body : JSON.stringify(body);
    const req = http.request({ hostname: url.hostname, port: url.port, path: url.pathname + url.search, method, headers: { "content-type": "application/json", "x-api-key": "sk-test-secret", ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      let first: number | undefined;
      res.on("data", (c: Buffer) => { first ??= performance.now() - t0; chunks.push(c); });
      res.on("end", () => {
        const raw = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, raw, ...readBack(formatOfPath(path), raw), firstByteMs: first ?? performance.now() - t0, totalMs: performance.now() - t0 });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(method === "GET" ? undefined : payload);
  });
}

function formatOfPath(path: string): WireFormat {
  return path.includes("/messages") ? "anthropic" : path.includes("/chat/") ? "chat" : path.includes("/responses") ? "responses" : "gemini";
}

/** Reads an SSE answer back as the client sees it. */
export function readBack(format: WireFormat, raw: Buffer): Pick<ClientAnswer, "text" | "reasoning" | "signature" | "reasoningItemId" | "ending"> {
  const events: SseEvent[] = [];
  new SseSplitter().push(raw, events);
  const reader = streamReader(format);
  const out: Pick<ClientAnswer, "text" | "reasoning" | "signature" | "reasoningItemId" | "ending"> = { text: "", reasoning: "" };
  for (const ev of events) {
    const r = reader.read(ev);
    for (const p of r.pieces) out[p.channel === "text" ? "text" : "reasoning"] += p.delta;
    if (ev.data === undefined || ev.data === "[DONE]") continue;
    let d: Record<string, any>;
    try { d = JSON.parse(ev.data); } catch { continue; }
    if (d.type === "content_block_delta" && d.delta?.type === "signature_delta") out.signature = d.delta.signature;
    if (d.type === "message_delta") out.ending = d.delta?.stop_reason;
    if (d.choices?.[0]?.finish_reason) out.ending = d.choices[0].finish_reason;
    if (d.type === "response.output_item.added" && d.item?.type === "reasoning") out.reasoningItemId = d.item.id;
    if (typeof d.type === "string" && /^response\.(completed|incomplete|failed)$/.test(d.type)) out.ending = d.type.slice(9);
    if (d.candidates?.[0]?.finishReason) out.ending = d.candidates[0].finishReason;
  }
  return out;
}

/** Whole copies of the looping paragraph in a text. */
export function copies(text: string): number { return text.split(PARAGRAPH).length - 1; }

/** Splits bytes into chunks of 1 to 40 bytes (a seeded walk), as a network hands them over. */
export function chunked(bytes: Buffer, seed: number): Buffer[] {
  let x = seed >>> 0 || 1;
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length;) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    const n = 1 + (x % 40);
    out.push(bytes.subarray(i, i + n));
    i += n;
  }
  return out;
}
