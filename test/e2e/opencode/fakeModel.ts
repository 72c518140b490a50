/**
 * A fake OpenAI-compatible model on 127.0.0.1 for the real opencode and Kilo servers, streamed in
 * small chunks with a pause between them like a real provider, so that an abort lands mid-response.
 * The step is chosen by the number of tool results the conversation holds (side requests without
 * tools, e.g. titles, get a short plain answer), and every request is kept, so tests can see what
 * the model was sent: refusals in tool results, guidance as a user message.
 *
 * Scenarios: the recorder's `build-loop` (the same failing build again and again) and
 * `productive` (run, read, fix, rebuild, test), plus a reasoning loop: one response whose thinking
 * goes round in circles for seconds, which gives a short answer once told it looped, and a
 * stubborn `ls` loop: a listing that succeeds with the same output every time, asked for again
 * whatever the tool results say (warnings and refusals included), up to STUBBORN_CALLS times.
 */
import * as http from "node:http";
import { closeLocal, listenLocal, withBody } from "../../localServer";
import { stepOf, type Step } from "../../recording/scenarios";
import type { ToolNaming } from "../../recording/fakeModel";

export type E2eScenario = "build-loop" | "productive" | "reasoning-loop" | "ls-loop";

/** Calls the stubborn `ls` loop asks for at most: well past the ladder's top rung (7). */
export const STUBBORN_CALLS = 12;

export interface SeenRequest {
  /** Tool results in the conversation (the scripted step). */
  step: number;
  side: boolean;
  messages: { role: string; content: string }[];
  /** The stream was cut by the client before it finished (an abort). */
  cut: boolean;
  at: number;
}

const LOOP_THOUGHT =
  "Wait, maybe I should double-check whether the build script really exists before I answer. " +
  "Let me think about it again from the start, because I want to be completely sure. ";
/** Enough copies to take several seconds: the guard has to cut it, or it runs to the end. */
const LOOP_COPIES = 80;

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((c) => (c && typeof c === "object" && typeof (c as { text?: unknown }).text === "string" ? (c as { text: string }).text : "")).join("");
  return content === undefined || content === null ? "" : JSON.stringify(content);
}

export class E2eFakeModel {
  readonly requests: SeenRequest[] = [];
  private server: http.Server | undefined;
  private scenario: E2eScenario = "productive";
  private naming: ToolNaming = () => { throw new Error("no tool naming set"); };
  private calls = 0;

  constructor(private readonly chunkDelayMs = 8, private readonly chunkChars = 40) {}

  play(scenario: E2eScenario, naming: ToolNaming): void {
    this.scenario = scenario;
    this.naming = naming;
    this.requests.length = 0;
  }

  async listen(): Promise<number> {
    const { server, port } = await listenLocal(withBody((req, res, raw) => this.handle(req, res, raw)));
    this.server = server;
    return port;
  }

  async close(): Promise<void> {
    await closeLocal(this.server);
  }

  /** Requests of the scripted conversation (not titles and other side requests). */
  main(): SeenRequest[] { return this.requests.filter((r) => !r.side); }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): void {
    const url = req.url ?? "";
    if (req.method === "GET" && /\/models\/?(\?|$)/.test(url)) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [{ id: "fake-model", object: "model", owned_by: "loop-sentinel" }] }));
      return;
    }
    if (req.method !== "POST" || !/\/chat\/completions/.test(url)) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `fake model: nothing at ${req.method} ${url}` } }));
      return;
    }
    let body: { messages?: { role?: string; content?: unknown }[]; tools?: unknown[] } = {};
    try { body = JSON.parse(raw); } catch { /* answer anyway */ }
    const messages = (body.messages ?? []).map((m) => ({ role: String(m.role), content: textOf(m.content) }));
    const side = !Array.isArray(body.tools) || body.tools.length === 0;
    const seen: SeenRequest = { step: messages.filter((m) => m.role === "tool").length, side, messages, cut: false, at: Date.now() };
    this.requests.push(seen);
    void this.stream(res, seen).catch(() => res.destroy());
  }

  private stepFor(seen: SeenRequest): { reasoning: string; step: Step } {
    if (seen.side) return { reasoning: "", step: { text: "Fixing the build" } };
    if (this.scenario === "reasoning-loop") {
      const told = seen.messages.some((m) => m.role === "user" && m.content.includes("Loop Sentinel"));
      if (told) return { reasoning: "I was going round in circles; the answer is already clear.", step: { text: "The build script is `node check.js`." } };
      return { reasoning: LOOP_THOUGHT.repeat(LOOP_COPIES), step: { text: "The build script is `node check.js`." } };
    }
    if (this.scenario === "ls-loop") {
      if (seen.step >= STUBBORN_CALLS) return { reasoning: "", step: { text: "The folder holds the project's files." } };
      return { reasoning: "List the folder again to be sure.", step: { text: "Listing the folder.", action: { kind: "shell", command: "ls" } } };
    }
    const step = stepOf(this.scenario, seen.step);
    return { reasoning: step.thought ?? "", step };
  }

  private async stream(res: http.ServerResponse, seen: SeenRequest): Promise<void> {
    const { reasoning, step } = this.stepFor(seen);
    const id = `chatcmpl-${++this.calls}`;
    let closed = false;
    res.on("close", () => { if (!res.writableEnded) { closed = true; seen.cut = true; } });
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = async (delta: Record<string, unknown>, finish: string | null = null): Promise<boolean> => {
      if (closed) return false;
      res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: "fake-model", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      await new Promise((r) => setTimeout(r, this.chunkDelayMs));
      return !closed;
    };
    if (!(await send({ role: "assistant", content: "" }))) return;
    for (let i = 0; i < reasoning.length; i += this.chunkChars) if (!(await send({ reasoning_content: reasoning.slice(i, i + this.chunkChars) }))) return;
    for (let i = 0; i < step.text.length; i += this.chunkChars) if (!(await send({ content: step.text.slice(i, i + this.chunkChars) }))) return;
    let finish = "stop";
    if (step.action) {
      const { name, args } = this.naming(step.action);
      if (!(await send({ tool_calls: [{ index: 0, id: `call_${this.calls}`, type: "function", function: { name, arguments: "" } }] }))) return;
      if (!(await send({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(args) } }] }))) return;
      finish = "tool_calls";
    }
    if (!(await send({}, finish))) return;
    res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: "fake-model", choices: [], usage: { prompt_tokens: 1200 + 100 * seen.step, completion_tokens: 40, total_tokens: 1240 + 100 * seen.step } })}\n\n`);
    res.end("data: [DONE]\n\n");
  }
}
