/**
 * A fake OpenAI-compatible model server that plays scripted models for the real Cline CLI:
 * `GET /v1/models`, `POST /v1/chat/completions` streamed as SSE, like a real provider.
 * Cline CLI 3.x offers native tools (`run_commands`); CLI 2.x offers none and expects XML tool
 * tags in the text, so each scripted step is rendered in whichever protocol the request uses.
 * Scenarios are the model's behaviour, step by step; the server only streams them.
 */
import * as http from "node:http";
import { closeLocal, listenLocal } from "../../localServer";

export type ScenarioName = "reasoning-loop" | "repeat-command" | "varied-loop" | "productive" | "repeat-until-guided";

/** What Loop Sentinel's hook adds to a request (Cline wraps a hook's context in this tag). */
const HOOK_CONTEXT = /<hook_context[^>]*>([\s\S]*?)<\/hook_context>/g;

/** One model response. */
interface Step {
  reasoning: string;
  text: string;
  /** A shell command to run, or undefined for the final answer. */
  command?: string;
  /** XML protocol only: a file to write instead of a command. */
  write?: { path: string; content: string };
}

export interface RequestRecord {
  n: number; at: number; scenario: ScenarioName; nativeTools: string[]; lastText: string;
  /** Texts of every hook context block the request carries (earlier turns' included). */
  hookContexts: string[];
}

const THOUGHTS = [
  "The user wants to know which files are here, so a directory listing is the natural first step.",
  "I have not seen the directory contents in this reply yet; listing them will show what exists.",
  "Listing the working directory should tell me whether README.txt is the only file present.",
  "Before answering I should confirm the directory contents with a fresh listing of the folder.",
  "A quick look at the folder will let me describe its files accurately to the user.",
  "The safest way to report the files is to read them from the shell rather than guess.",
  "I will check the folder once more so the answer reflects the current state of the disk.",
  "Seeing the listing directly avoids any mistake about hidden or newly created files.",
];

const LOOP_THOUGHT =
  "Wait, maybe I should double-check whether the README file really exists before I answer. " +
  "Let me think about it again from the start, because I want to be completely sure. ";

/** Variants of one listing (same output) that an exact-repeat guard sees as different calls. */
const LISTING_VARIANTS = ["ls", "ls .", "ls ./", "ls -1"];

function stepOf(scenario: ScenarioName, n: number, guided: boolean): Step {
  const thought = THOUGHTS[(n - 1) % THOUGHTS.length];
  switch (scenario) {
    case "repeat-until-guided":
      // A model that repeats itself until it is told it does, then takes the hint and answers.
      if (guided) return { reasoning: "I was told I keep repeating the listing; I already have the answer.", text: "The directory contains README.txt." };
      return { reasoning: thought, text: `Step ${n}: listing the directory.`, command: "ls" };
    case "reasoning-loop":
      // One response whose thinking goes round in circles for a long time, then a final answer.
      if (n === 1) return { reasoning: LOOP_THOUGHT.repeat(60), text: "The directory contains README.txt." };
      return { reasoning: "The task is done.", text: "The directory contains README.txt." };
    case "repeat-command":
      return { reasoning: thought, text: `Step ${n}: listing the directory.`, command: "ls" };
    case "varied-loop":
      return { reasoning: thought, text: `Step ${n}: listing the directory.`, command: LISTING_VARIANTS[(n - 1) % LISTING_VARIANTS.length] + " ".repeat(Math.floor((n - 1) / LISTING_VARIANTS.length)) };
    case "productive": {
      const plan: Step[] = [
        { reasoning: "First I will read the README to learn what the project is about.", text: "Reading the README.", command: "cat README.txt" },
        { reasoning: "The README says hello. I will write a short summary into notes.txt as asked.", text: "Writing notes.txt.", write: { path: "notes.txt", content: "Summary: the README greets the reader.\n" }, command: "printf 'Summary: the README greets the reader.\\n' > notes.txt" },
        { reasoning: "Now I check that the notes file has the expected content.", text: "Checking notes.txt.", command: "cat notes.txt" },
        { reasoning: "Finally I count the lines of both files to report their size.", text: "Counting lines.", command: "wc -l README.txt notes.txt" },
      ];
      return plan[n - 1] ?? { reasoning: "Everything asked for is done and verified.", text: "Done: notes.txt summarises README.txt (1 line each)." };
    }
  }
}

export interface FakeModelOptions {
  /** Delay between streamed chunks (ms). */
  chunkDelayMs?: number;
  /** Characters per reasoning chunk. */
  reasoningChunk?: number;
}

export class FakeModelServer {
  scenario: ScenarioName = "productive";
  readonly requests: RequestRecord[] = [];
  private server: http.Server | undefined;
  private count = 0;
  private readonly delay: number;
  private readonly chunk: number;

  constructor(options: FakeModelOptions = {}) {
    this.delay = options.chunkDelayMs ?? 15;
    this.chunk = options.reasoningChunk ?? 40;
  }

  /** Starts a new scenario: request numbering starts again at 1. */
  play(scenario: ScenarioName): void {
    this.scenario = scenario;
    this.count = 0;
    this.requests.length = 0;
  }

  async listen(): Promise<number> {
    const { server, port } = await listenLocal((req, res) => this.handle(req, res));
    this.server = server;
    return port;
  }

  async close(): Promise<void> {
    await closeLocal(this.server);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = req.url ?? "";
    if (req.method === "GET" && url.endsWith("/models")) {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [{ id: "fake-model", object: "model", owned_by: "loop-sentinel-tests" }] }));
      return;
    }
    if (req.method !== "POST" || !url.endsWith("/chat/completions")) {
      res.writeHead(404, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ error: { message: "not found" } }));
      return;
    }
    let raw = "";
    req.on("data", (d) => { raw += d; });
    req.on("end", () => {
      let body: { tools?: { function?: { name?: string } }[]; messages?: { content?: unknown }[] } = {};
      try { body = JSON.parse(raw); } catch { /* answer anyway */ }
      const n = ++this.count;
      const nativeTools = (body.tools ?? []).map((t) => t.function?.name ?? "").filter(Boolean);
      const last = body.messages?.[body.messages.length - 1]?.content;
      const hookContexts = [...raw.replace(/\\n/g, "\n").replace(/\\"/g, '"').matchAll(HOOK_CONTEXT)].map((m) => m[1].trim());
      this.requests.push({ n, at: Date.now(), scenario: this.scenario, nativeTools, lastText: (typeof last === "string" ? last : JSON.stringify(last ?? "")).slice(0, 300), hookContexts });
      const guided = hookContexts.some((c) => c.includes("Loop Sentinel"));
      this.stream(res, n, stepOf(this.scenario, n, guided), nativeTools).catch(() => res.destroy());
    });
  }

  private async stream(res: http.ServerResponse, n: number, step: Step, nativeTools: string[]): Promise<void> {
    res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", Connection: "keep-alive" });
    let closed = false;
    res.on("close", () => { closed = true; });
    const id = `chatcmpl-${n}`;
    const send = async (delta: Record<string, unknown>, finish: string | null = null): Promise<boolean> => {
      if (closed) return false;
      res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: "fake-model", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      await new Promise((r) => setTimeout(r, this.delay));
      return !closed;
    };
    await send({ role: "assistant", content: "" });
    for (let i = 0; i < step.reasoning.length; i += this.chunk) {
      if (!(await send({ reasoning_content: step.reasoning.slice(i, i + this.chunk) }))) return;
    }
    let finish = "stop";
    const native = nativeTools.includes("run_commands") ? "run_commands" : nativeTools.includes("execute_command") ? "execute_command" : undefined;
    if (native && step.command !== undefined) {
      await send({ content: step.text });
      const args = JSON.stringify(native === "run_commands" ? { commands: [step.command] } : { command: step.command, requires_approval: false });
      await send({ tool_calls: [{ index: 0, id: `call_${n}`, type: "function", function: { name: native, arguments: "" } }] });
      await send({ tool_calls: [{ index: 0, function: { arguments: args } }] });
      finish = "tool_calls";
    } else {
      let content = step.text;
      if (!native) {
        // Classic Cline: tools are XML tags in the visible text.
        if (step.write) content += `\n<write_to_file>\n<path>${step.write.path}</path>\n<content>\n${step.write.content}</content>\n</write_to_file>`;
        else if (step.command !== undefined) content += `\n<execute_command>\n<command>${step.command}</command>\n<requires_approval>false</requires_approval>\n</execute_command>`;
        else content += `\n<attempt_completion>\n<result>\n${step.text}\n</result>\n</attempt_completion>`;
      }
      for (let i = 0; i < content.length; i += 24) if (!(await send({ content: content.slice(i, i + 24) }))) return;
    }
    await send({}, finish);
    if (closed) return;
    res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: "fake-model", choices: [], usage: { prompt_tokens: 1200 + n, completion_tokens: 40 + Math.ceil(step.reasoning.length / 4), total_tokens: 1240 + n } })}\n\n`);
    res.write("data: [DONE]\n\n");
    res.end();
  }
}
