/**
 * A scripted OpenAI-compatible model for the real pi (its `openai-completions` provider): each
 * request that offers tools gets the script's next step, streamed as Chat Completions SSE the way
 * a real endpoint streams it: thinking as `reasoning_content`, text as `content`, a tool call as
 * `tool_calls` deltas. A step can be paced (so many characters every so many milliseconds), so a
 * looping response takes time to stream and a guard can cut it mid-stream; the server counts what
 * it wrote before the client went away.
 *
 * It replays the script whatever the client sends (it decides nothing), and records every request
 * whole: what the model received is read from there, never from the guard's own account.
 */
import type * as http from "node:http";
import { closeLocal, listenLocal, withBody } from "../../localServer";

export interface Step {
  thinking?: string;
  text?: string;
  call?: { name: string; args: Record<string, unknown> };
  /** Stream the thinking and text in pieces of `chars` every `delayMs` (default: all at once). */
  pace?: { chars: number; delayMs: number };
}

type Json = Record<string, unknown>;

export interface RequestRecord {
  /** 1-based, in arrival order. */
  n: number;
  body: Json;
  /** The messages after the model's last turn (tool results, steered and user messages). */
  tail: Json[];
  /** What the step streamed, and how much of it was written before the client left. */
  step: Step;
  streamedChars: number;
  totalChars: number;
  clientGone: boolean;
  /** Milliseconds since the server started. */
  at: number;
}

/** The text of a chat message's content (a string, or text parts). */
export function messageText(m: Json): string {
  const c = m.content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p) => (p && typeof (p as Json).text === "string" ? (p as Json).text as string : "")).join("\n");
  return "";
}

export class FakeModel {
  readonly requests: RequestRecord[] = [];
  port = 0;
  private server: http.Server | undefined;
  private served = 0;
  private readonly started = Date.now();

  constructor(private readonly steps: Step[], private readonly finalStep: Step = { text: "Done." }) {}

  async start(): Promise<void> {
    const { server, port } = await listenLocal(withBody((req, res, raw) => { void this.handle(req, res, raw); }));
    this.server = server;
    this.port = port;
  }

  stop(): Promise<void> { return closeLocal(this.server); }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    const url = (req.url ?? "").split("?")[0];
    let body: Json = {};
    try { body = raw ? JSON.parse(raw) : {}; } catch { /* answered below as a side request */ }
    if (req.method !== "POST" || !url.endsWith("/chat/completions")) {
      res.writeHead(url.endsWith("/models") ? 200 : 404, { "content-type": "application/json" });
      res.end(url.endsWith("/models") ? JSON.stringify({ object: "list", data: [{ id: "fake-model", object: "model", created: 0, owned_by: "fake" }] }) : "{}");
      return;
    }
    const offersTools = Array.isArray(body.tools) && body.tools.length > 0;
    const step: Step = offersTools ? (this.steps[this.served++] ?? this.finalStep) : { text: "Fake title" };
    const messages = (Array.isArray(body.messages) ? body.messages : []) as Json[];
    let last = messages.length - 1;
    while (last >= 0 && messages[last].role !== "assistant") last--;
    const record: RequestRecord = {
      n: this.requests.length + 1, body, tail: messages.slice(last + 1), step,
      streamedChars: 0, totalChars: (step.thinking ?? "").length + (step.text ?? "").length, clientGone: false, at: Date.now() - this.started,
    };
    if (offersTools) this.requests.push(record);
    let gone = false;
    res.on("close", () => { if (!res.writableEnded) { gone = true; record.clientGone = true; } });
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const base = { id: `chatcmpl-${record.n}`, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model ?? "fake-model" };
    const send = (delta: Json, finish: string | null = null) => res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
    const stream = async (field: "reasoning_content" | "content", text: string) => {
      const size = step.pace?.chars ?? text.length;
      for (let i = 0; i < text.length && !gone; i += size) {
        const piece = text.slice(i, i + size);
        send(i === 0 ? { role: "assistant", [field]: piece } : { [field]: piece });
        record.streamedChars += piece.length;
        if (step.pace) await new Promise((r) => setTimeout(r, step.pace!.delayMs));
      }
    };
    if (step.thinking) await stream("reasoning_content", step.thinking);
    if (step.text) await stream("content", step.text);
    if (gone) return;
    if (step.call) {
      const id = `call_fake_${record.n}`;
      send({ role: "assistant", content: null, tool_calls: [{ index: 0, id, type: "function", function: { name: step.call.name, arguments: "" } }] });
      send({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(step.call.args) } }] });
    }
    send({}, step.call ? "tool_calls" : "stop");
    res.write(`data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 100 + 10 * record.n, completion_tokens: 20, total_tokens: 120 + 10 * record.n } })}\n\n`);
    res.end("data: [DONE]\n\n");
  }
}
