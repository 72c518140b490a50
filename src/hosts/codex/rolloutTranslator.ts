/**
 * Codex's session files (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, written by
 * Codex 0.171.0 as the run goes) as trace events, one line at a time.
 *
 * Every line is `{timestamp, type, payload}`. `response_item` lines are the conversation as the
 * model saw it: `message` (role user, assistant or developer), `reasoning` (summary and, with raw
 * reasoning on, content), `function_call` {name, arguments (JSON text), call_id} — Codex's shell
 * is `exec_command {cmd}`, older ones `shell {command: ["bash", "-lc", "..."]}` — `custom_tool_call`
 * (apply_patch as free text), `local_shell_call`, and their `*_output` {call_id, output}.
 * `token_usage_record` closes one model response with its usage. `event_msg` lines report what
 * happened: `item_completed` with a CommandExecution's exit code or a FileChange's status, arriving
 * before the output the model gets; `task_complete` and `turn_aborted` end a turn. Session metadata,
 * settings and world state are bookkeeping.
 *
 * The user's own words come as a `message` of role user; the CLI also sends the environment and
 * the instructions files as user messages, each one wrapped whole in one tag (`<environment_context>`,
 * `<user_instructions>`, `# AGENTS.md instructions ...`): those are context, not the user speaking.
 */
import { BoundedMap } from "../../engine/boundedMap";
import type { TraceEvent, Usage } from "../../engine/events";
import { isRecord, safeJsonStringify, sumNumbers, toMillis } from "../../engine/json";
import { EventOut, type LineOutcome, type LineTranslator } from "../lineTranslation";

/** Text wrapped whole in one tag, or an instructions file the CLI forwards: context the CLI sends. */
const INJECTED_CONTEXT = /^\s*(?:<([A-Za-z_][\w-]*)\b[^>]*>[\s\S]*<\/\1>\s*$|# AGENTS\.md instructions\b)/;

/**
 * The lines Codex puts before a command's output (a chunk id, the wall time, the exit status, a
 * token count), closed by "Output:"; apply_patch's output nests a second such header. They
 * change at every run, so they are not the command's output: two identical listings would differ.
 */
const HEADER_LINE = /^(?:Chunk ID|Wall time|Process exited with code|Process running with session ID|Original token count|Total output lines|Exit code)\b.*$/;
const EXIT_LINE = /^(?:Process exited with code|Exit code:)\s*(-?\d+)\s*$/;
/** Codex's own words when a call could not run or do its work (a patch that does not apply, a refusal). */
const HARNESS_FAILURE = /^(?:apply_patch verification failed|execution error|failed to parse function arguments|unsupported call|Command blocked by \w+ hook)\b/i;

/** A tool output split into the command's own output and the exit code Codex's header states. */
export function codexOutput(text: string): { output: string; exitCode?: number } {
  // Older Codex's `shell` tool answered with JSON: {"output": "...", "metadata": {"exit_code": 0}}.
  if (text.startsWith("{\"output\"")) {
    try {
      const v: unknown = JSON.parse(text);
      if (isRecord(v) && typeof v.output === "string") {
        const meta = isRecord(v.metadata) ? v.metadata : {};
        return { output: v.output, exitCode: typeof meta.exit_code === "number" ? meta.exit_code : undefined };
      }
    } catch { /* not that shape: read as text */ }
  }
  let exitCode: number | undefined;
  let rest = text;
  for (;;) {
    let at = 0;
    let sawHeader = false;
    for (;;) {
      const nl = rest.indexOf("\n", at);
      const line = rest.slice(at, nl < 0 ? rest.length : nl);
      if (!HEADER_LINE.test(line)) break;
      sawHeader = true;
      const exit = EXIT_LINE.exec(line);
      if (exit) exitCode = Number(exit[1]);
      if (nl < 0) { at = rest.length; break; }
      at = nl + 1;
    }
    if (!sawHeader) return { output: rest, exitCode };
    const body = rest.slice(at);
    if (!body.startsWith("Output:")) return { output: body, exitCode };
    rest = body.slice("Output:".length).replace(/^\n/, "");
  }
}

/** Calls awaiting their output held at once: past it the oldest is forgotten (its outcome then read from its output alone). */
const MAX_PENDING_CALLS = 1024;

const BOOKKEEPING = new Set(["session_meta", "turn_context", "world_state", "compacted"]);

function textOfParts(content: unknown, kinds: ReadonlySet<string>): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const c of content) if (isRecord(c) && typeof c.text === "string" && (typeof c.type !== "string" || kinds.has(c.type))) parts.push(c.text);
  return parts.join("\n");
}

const USER_PARTS = new Set(["input_text", "text"]);
const ASSISTANT_PARTS = new Set(["output_text", "text"]);
const SUMMARY_PARTS = new Set(["summary_text"]);
const REASONING_PARTS = new Set(["reasoning_text", "text"]);
const OUTPUT_PARTS = new Set(["input_text", "output_text", "text"]);

function argumentsOf(v: unknown): Record<string, unknown> {
  if (isRecord(v)) return v;
  if (typeof v === "string") {
    try { const parsed = JSON.parse(v); if (isRecord(parsed)) return parsed; } catch { /* kept as text below */ }
    return { input: v };
  }
  return v === undefined || v === null ? {} : { input: v };
}

/** A tool output as text: a string, `{content, success}`, or a list of content items. */
function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  if (isRecord(output)) {
    if (typeof output.content === "string") return output.content;
    if (Array.isArray(output.content)) return textOfParts(output.content, OUTPUT_PARTS);
  }
  if (Array.isArray(output)) return textOfParts(output, OUTPUT_PARTS);
  return output === undefined || output === null ? "" : safeJsonStringify(output);
}

export class CodexRolloutTranslator implements LineTranslator {
  private readonly out = new EventOut();
  /** Calls made and not yet answered, with what their completion reported. */
  private readonly pending = new BoundedMap<string, "running" | "done" | "failed">(MAX_PENDING_CALLS);
  private model: string | undefined;

  feed(value: unknown): LineOutcome {
    if (!isRecord(value) || typeof value.type !== "string") return { events: [], error: `expected a rollout line {"timestamp", "type", "payload"} with a string "type"` };
    const ts = toMillis(value.timestamp);
    const payload = isRecord(value.payload) ? value.payload : undefined;
    const ignored = this.line(value.type, payload, ts);
    const events = this.out.take();
    if (typeof ignored === "object") return { events, error: ignored.error };
    return ignored === undefined ? { events } : { events, ignored };
  }

  finish(): TraceEvent[] {
    this.out.end(undefined);
    return this.out.take();
  }

  /** Handles one line; returns why it gave nothing, or an error. */
  private line(type: string, p: Record<string, unknown> | undefined, ts: number | undefined): string | { error: string } | undefined {
    if (BOOKKEEPING.has(type)) {
      if (type === "turn_context" && p && typeof p.model === "string") this.model = p.model;
      return `"${type}" line (session bookkeeping)`;
    }
    if (!p) return { error: `"${type}" line needs a "payload" object` };
    switch (type) {
      case "response_item": return this.item(p, ts);
      case "event_msg": return this.event(p, ts);
      case "token_usage_record": {
        const u = isRecord(p.usage) ? p.usage : undefined;
        const usage: Usage | undefined = u && { tokensIn: sumNumbers(u.input_tokens), tokensOut: sumNumbers(u.output_tokens) };
        if (!this.out.inRequest) return "token usage of a response with nothing to replay";
        this.out.end(ts, usage);
        return undefined;
      }
      default: return `unknown line type "${type}"`;
    }
  }

  private item(p: Record<string, unknown>, ts: number | undefined): string | { error: string } | undefined {
    const kind = p.type;
    // The model speaking opens its response (with the model the turn runs), unless it is open.
    const fromModel = (kind === "message" && p.role === "assistant") || kind === "reasoning" || kind === "function_call" || kind === "custom_tool_call" || kind === "local_shell_call";
    if (fromModel && !this.out.inRequest) this.out.request(ts, this.model);
    switch (kind) {
      case "message": {
        if (p.role === "assistant") { this.out.text(textOfParts(p.content, ASSISTANT_PARTS), ts); return undefined; }
        if (p.role !== "user") return `${typeof p.role === "string" ? p.role : "unknown-role"} message (instructions from the CLI)`;
        const text = textOfParts(p.content, USER_PARTS);
        if (text.trim() === "") return "user message without text";
        if (INJECTED_CONTEXT.test(text)) { this.out.end(ts); return "context the CLI sends (environment, instructions), not a user message"; }
        this.out.user(text, ts);
        return undefined;
      }
      case "reasoning": {
        // Raw reasoning when the CLI keeps it, else the summary the model gave.
        const raw = textOfParts(p.content, REASONING_PARTS);
        const text = raw !== "" ? raw : textOfParts(p.summary, SUMMARY_PARTS);
        if (text === "") return "reasoning kept only encrypted (nothing to read)";
        this.out.reasoning(text, ts);
        return undefined;
      }
      case "function_call":
      case "custom_tool_call":
      case "local_shell_call": {
        const id = typeof p.call_id === "string" ? p.call_id : typeof p.id === "string" ? p.id : undefined;
        if (id === undefined) return { error: `${kind} needs a string "call_id"` };
        const name = kind === "local_shell_call" ? "local_shell" : p.name;
        if (typeof name !== "string") return { error: `${kind} needs a string "name"` };
        const input = kind === "local_shell_call" ? argumentsOf(p.action) : kind === "custom_tool_call" ? { input: typeof p.input === "string" ? p.input : outputText(p.input) } : argumentsOf(p.arguments);
        this.out.toolCall(id, name, input, ts);
        this.pending.set(id, "running");
        return undefined;
      }
      case "function_call_output":
      case "custom_tool_call_output": {
        if (typeof p.call_id !== "string") return { error: `${kind} needs a string "call_id"` };
        const text = outputText(p.output);
        const reported = this.pending.get(p.call_id);
        if (reported === undefined) { this.out.end(ts); return "output of a call not in the file (answered already, or before the file began)"; }
        this.pending.delete(p.call_id);
        const { output, exitCode } = codexOutput(text);
        const failed = reported === "failed" || (exitCode !== undefined && exitCode !== 0) || (isRecord(p.output) && p.output.success === false) || HARNESS_FAILURE.test(output);
        this.out.toolResult(p.call_id, !failed, output, ts);
        return undefined;
      }
      case "web_search_call":
        return "web search run by the model's provider (no result recorded)";
      default:
        return `unknown response item "${String(kind)}"`;
    }
  }

  private event(p: Record<string, unknown>, ts: number | undefined): string | undefined {
    const kind = typeof p.type === "string" ? p.type : "unknown";
    if (kind === "item_completed" && isRecord(p.item) && typeof p.item.id === "string" && this.pending.peek(p.item.id) !== undefined) {
      // What the run reported for a call, before the output the model gets (which may leave it out).
      const item = p.item;
      const failed = (typeof item.exit_code === "number" && item.exit_code !== 0) || item.status === "failed" || item.status === "declined";
      this.pending.set(item.id as string, failed ? "failed" : "done");
      return "completion report of a call (its outcome is read from it)";
    }
    if (kind === "task_complete" || kind === "turn_aborted") {
      this.out.end(ts);
      return kind === "turn_aborted" ? "turn interrupted (ends the request)" : `"${kind}" event (ends the request)`;
    }
    return `"${kind}" event (nothing to replay)`;
  }
}
