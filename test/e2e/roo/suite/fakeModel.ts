/**
 * A fake OpenAI-compatible model for the real Roo Code: `POST /v1/chat/completions` streamed as SSE
 * with native tool calls, the way Roo's OpenAI provider consumes them. Each scenario is a model's
 * behaviour request by request; every request Roo sends is kept so the tests can assert on what the
 * model really received (the guidance, or nothing).
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";

export type Scenario =
  | { kind: "reasoning-loop"; paragraph: string; maxCopies: number }
  | { kind: "tool-loop"; command: string }
  | { kind: "reads"; files: string[] };

export interface ModelRequest {
  n: number;
  at: number;
  /** Text of every user and tool message, in order. */
  inputs: string[];
  /** Whether the stream was closed by Roo before the model finished it. */
  closedEarly: boolean;
  /** Characters streamed after Roo asked to cancel (counted until the stream ended). */
  sentChars: number;
}

const CHUNK = 20;

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : typeof p?.text === "string" ? p.text : "")).join("\n");
  return "";
}

export class FakeModel {
  readonly requests: ModelRequest[] = [];
  private scenario: Scenario = { kind: "reads", files: [] };
  private server: http.Server | undefined;
  private readonly open = new Set<http.ServerResponse>();

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", () => resolve()));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    for (const r of this.open) r.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  play(s: Scenario): void {
    this.scenario = s;
    this.requests.length = 0;
  }

  /** Whether any request carried this text in a user or tool message. */
  received(text: string): ModelRequest | undefined {
    return this.requests.find((r) => r.inputs.some((i) => i.includes(text)));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (req.method === "GET" && req.url?.endsWith("/models")) {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [{ id: "fake-loop-model", object: "model", owned_by: "fake" }] }));
      return;
    }
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) { res.writeHead(404); res.end(); return; }
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      let body: { messages?: Array<{ role: string; content: unknown }> } = {};
      try { body = JSON.parse(raw); } catch { /* an empty body gets the default reply */ }
      void this.reply(body.messages ?? [], res).catch(() => res.destroy());
    });
  }

  private async reply(messages: Array<{ role: string; content: unknown }>, res: http.ServerResponse): Promise<void> {
    const record: ModelRequest = {
      n: this.requests.length + 1, at: Date.now(), closedEarly: false, sentChars: 0,
      inputs: messages.filter((m) => m.role === "user" || m.role === "tool").map((m) => textOf(m.content)),
    };
    this.requests.push(record);
    const guided = record.inputs.some((t) => t.includes("Loop Sentinel"));
    const assistantTurns = messages.filter((m) => m.role === "assistant").length;
    const id = `chatcmpl-${record.n}`;
    let closed = false;
    this.open.add(res);
    res.on("close", () => { this.open.delete(res); if (!res.writableEnded) { closed = true; record.closedEarly = true; } });
    res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", Connection: "keep-alive" });
    const chunk = (delta: object, finish: string | null = null) => {
      if (!closed) res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: "fake-loop-model", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
    };
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const stream = async (field: "reasoning_content" | "content", text: string) => {
      for (let i = 0; i < text.length && !closed; i += CHUNK) {
        chunk({ [field]: text.slice(i, i + CHUNK) });
        record.sentChars += Math.min(CHUNK, text.length - i);
        await sleep(15);
      }
    };
    const toolCall = async (name: string, args: object) => {
      const a = JSON.stringify(args);
      chunk({ tool_calls: [{ index: 0, id: `call_${record.n}`, type: "function", function: { name, arguments: "" } }] });
      for (let i = 0; i < a.length && !closed; i += 16) { chunk({ tool_calls: [{ index: 0, function: { arguments: a.slice(i, i + 16) } }] }); await sleep(5); }
    };
    chunk({ role: "assistant", content: "" });
    const s = this.scenario;
    if (s.kind === "reasoning-loop") {
      if (guided) {
        await stream("reasoning_content", "The guidance says I was repeating myself. I will stop deliberating and answer now.");
        await toolCall("attempt_completion", { result: "Stopped deliberating after the guidance." });
      } else {
        for (let r = 0; r < s.maxCopies && !closed; r++) await stream("reasoning_content", (r ? "\n\n" : "") + s.paragraph);
        await toolCall("attempt_completion", { result: "Finished thinking." });
      }
    } else if (s.kind === "tool-loop") {
      // A model that ignores guidance: the loop must be stopped, not merely warned about.
      await toolCall("execute_command", { command: s.command, cwd: null, timeout: null });
    } else if (assistantTurns < s.files.length) {
      await stream("reasoning_content", `Step ${assistantTurns + 1}: I need to read ${s.files[assistantTurns]} to understand that part of the project.`);
      await toolCall("read_file", { path: s.files[assistantTurns] });
    } else {
      await stream("reasoning_content", "I have read every file I needed, so I can summarise them now.");
      await toolCall("attempt_completion", { result: `Read ${s.files.join(", ")}; the project adds and multiplies numbers.` });
    }
    chunk({}, "tool_calls");
    if (!closed) {
      res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: "fake-loop-model", choices: [], usage: { prompt_tokens: 1000 + 10 * messages.length, completion_tokens: Math.ceil(record.sentChars / 4) + 20, total_tokens: 0 } })}\n\n`);
      res.write("data: [DONE]\n\n");
      res.end();
    }
  }
}
