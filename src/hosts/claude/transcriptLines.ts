/**
 * Claude Code's transcript lines (`<config>/projects/<project>/<session-id>.jsonl`) as trace
 * events, one line at a time. The replay reader (formats/claudeCode.ts) feeds it a whole file;
 * the hook (hosts/hookAgents) feeds it the lines written since its last call, as the file grows.
 *
 * One JSON object a line, `type` = "user" | "assistant" | "system" | "summary" | ... Assistant
 * lines carry `message` (an Anthropic Messages API message); a streamed response is written as
 * several lines sharing `message.id`, one content block each (text, thinking, tool_use). Tool
 * results come back in "user" lines whose content is a list of `tool_result` blocks.
 * `isSidechain` lines belong to a sub-agent, `isMeta` lines are injected context; neither is the
 * main agent's own step or the user's message.
 */
import type { RequestEvent, TraceEvent, Usage } from "../../engine/events";
import { isRecord, safeJsonStringify } from "../../engine/json";
import { contentText, toInput, toMillis } from "../transcriptValues";

/** Where the translated events go (the format reader's TraceBuilder has this shape). */
export interface ClaudeEventBuilder {
  readonly inRequest: boolean;
  user(text: string, ts?: number): void;
  request(ts?: number, model?: string, usage?: Usage): RequestEvent;
  reasoning(delta: string, ts?: number): void;
  text(delta: string, ts?: number): void;
  toolCall(id: string, name: string, input: Record<string, unknown>, ts?: number): void;
  toolResult(id: string, ok: boolean, text: string, ts?: number): boolean | void;
  endRequest(ts?: number): void;
}

export interface ClaudeLineIssues {
  /** A line that is not a transcript entry of the expected shape. */
  fail(line: number, detail: string): void;
  /** A line set aside on purpose, with the reason. */
  ignore(reason: string): void;
}

/** The translator's whole state between lines: small enough to keep beside a hook's session state. */
export interface ClaudeLineState {
  /** The assistant message being assembled. */
  messageId?: string;
  /** A sub-agent's own transcript: its sidechain lines are its steps. */
  subAgentFile?: boolean;
  /** That message's request event, whose usage later lines of it bring up to date (not saved by the hook). */
  request?: RequestEvent;
}

/** Line types Claude Code writes besides the conversation (bookkeeping, snapshots, request logs). */
const KNOWN_LINE_TYPES = new Set([
  "system", "summary", "file-history-snapshot", "queue-operation", "progress", "attachment", "last-prompt",
  "api-request", "api-request-blob", "api-request-shape", "tools-used", "cost-state", "atis-latch", "custom-title", "tag",
]);

function usageOf(u: unknown): Usage | undefined {
  if (!isRecord(u)) return undefined;
  const sum = (...values: unknown[]) => {
    let total: number | undefined;
    for (const v of values) if (typeof v === "number" && Number.isFinite(v)) total = (total ?? 0) + v;
    return total;
  };
  const tokensIn = sum(u.input_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens);
  const tokensOut = sum(u.output_tokens);
  return tokensIn === undefined && tokensOut === undefined ? undefined : { tokensIn, tokensOut };
}

/** Text of a tool_result block's content (a string or a list of text/image blocks). */
function resultContentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return contentText(content);
  return content === undefined || content === null ? "" : safeJsonStringify(content);
}

/**
 * User lines that are not the person writing to the model: the CLI's record of an interruption
 * (the turn ends there), a slash command and its local output, the user's own `!` shell command.
 */
function notAMessage(text: string): string | undefined {
  const t = text.trim();
  if (/^\[Request interrupted by user\b/.test(t)) return "interruption marker (ends the request)";
  if (/^<(?:command-name|command-message|local-command-stdout|local-command-stderr|local-command-caveat)>/.test(t)) return "slash command or its local output, not a message to the model";
  if (/^<(?:bash-input|bash-stdout|bash-stderr)>/.test(t)) return "the user's own shell command, not the agent's";
  return undefined;
}

/** Whether a parsed line is a conversation entry (user or assistant). */
export const isClaudeConversation = (v: unknown): v is Record<string, unknown> => isRecord(v) && (v.type === "user" || v.type === "assistant");

/** Translates one parsed transcript line into events on `b`; `state` is updated in place. */
export function translateClaudeLine(value: unknown, line: number, b: ClaudeEventBuilder, state: ClaudeLineState, issues: ClaudeLineIssues): void {
  if (!isRecord(value) || typeof value.type !== "string") { issues.fail(line, `expected a transcript entry with a string "type"`); return; }
  // A prompt the person typed while the agent was busy is delivered as a "queued_command" attachment.
  const queued = value.type === "attachment" && isRecord(value.attachment) && value.attachment.type === "queued_command" ? value.attachment : undefined;
  if (queued && value.isSidechain !== true && queued.isMeta !== true) {
    const text = typeof queued.prompt === "string" ? queued.prompt : contentText(queued.prompt);
    if (text.trim() !== "") { b.endRequest(); state.messageId = undefined; b.user(text, toMillis(value.timestamp)); return; }
  }
  if (value.type !== "user" && value.type !== "assistant") {
    issues.ignore(KNOWN_LINE_TYPES.has(value.type) ? `"${value.type}" line (nothing to replay)` : `unknown line type "${value.type}"`);
    return;
  }
  if (value.isSidechain === true && !state.subAgentFile) { issues.ignore("sub-agent (sidechain) line"); return; }
  const message = value.message;
  if (!isRecord(message)) { issues.fail(line, `"${value.type}" entry needs a "message" object`); return; }
  const ts = toMillis(value.timestamp);

  // Claude Code's own "API Error: ..." stand-ins (model "<synthetic>") are not the model's output.
  if (value.type === "assistant" && (value.isApiErrorMessage === true || message.model === "<synthetic>")) { issues.ignore("the CLI's own stand-in for a failed API call"); b.endRequest(ts); return; }
  if (value.type === "assistant") {
    const id = typeof message.id === "string" ? message.id : typeof value.requestId === "string" ? value.requestId : `line${line}`;
    const usage = usageOf(message.usage);
    if (id !== state.messageId || !b.inRequest) {
      state.request = b.request(ts, typeof message.model === "string" ? message.model : undefined, usage);
      state.messageId = id;
    } else if (usage && state.request) state.request.usage = usage; // later lines of a streamed message carry the running totals

    const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    if (!Array.isArray(content)) { issues.fail(line, `assistant "message.content" must be a list of blocks`); return; }
    for (const block of content) {
      if (!isRecord(block)) continue;
      if (block.type === "text" && typeof block.text === "string") b.text(block.text, ts);
      else if (block.type === "thinking" && typeof block.thinking === "string") b.reasoning(block.thinking, ts);
      else if (block.type === "tool_use" || block.type === "server_tool_use") {
        if (typeof block.id !== "string" || typeof block.name !== "string") { issues.fail(line, `tool_use block needs string "id" and "name"`); continue; }
        b.toolCall(block.id, block.name, toInput(block.input), ts);
      }
    }
    return;
  }

  // A user line: tool results, the user's own words, or injected context.
  b.endRequest();
  state.messageId = undefined;
  if (value.isMeta === true || value.isCompactSummary === true) { issues.ignore("injected context (isMeta / compact summary), not a user message"); return; }
  const content = message.content;
  const userText = (text: string) => {
    const why = notAMessage(text);
    if (why) issues.ignore(why); else b.user(text, ts);
  };
  if (typeof content === "string") { userText(content); return; }
  if (!Array.isArray(content)) { issues.fail(line, `user "message.content" must be a text or a list of blocks`); return; }
  const words: string[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block.type === "tool_result") {
      if (typeof block.tool_use_id !== "string") { issues.fail(line, `tool_result block needs a string "tool_use_id"`); continue; }
      b.toolResult(block.tool_use_id, block.is_error !== true, resultContentText(block.content), ts);
    } else if (block.type === "text" && typeof block.text === "string") words.push(block.text);
  }
  if (words.length > 0) userText(words.join("\n"));
}

/**
 * A builder that hands each event out at once (the hook acts on them between calls), keeping no
 * events of its own: only whether a request is open, which the caller may save and restore.
 */
export class DirectClaudeBuilder implements ClaudeEventBuilder {
  constructor(private readonly emit: (e: TraceEvent) => void, private open = false) {}
  get inRequest(): boolean { return this.open; }
  user(text: string, ts?: number): void { this.endRequest(ts); this.emit(timed({ t: "user", text }, ts)); }
  request(ts?: number, model?: string, usage?: Usage): RequestEvent {
    this.endRequest(ts);
    const e: RequestEvent = timed({ t: "request" }, ts);
    if (model) e.model = model;
    if (usage) e.usage = usage;
    this.open = true;
    this.emit(e);
    return e;
  }
  reasoning(delta: string, ts?: number): void { if (delta) { this.ensureOpen(ts); this.emit(timed({ t: "reasoning", delta }, ts)); } }
  text(delta: string, ts?: number): void { if (delta) { this.ensureOpen(ts); this.emit(timed({ t: "text", delta }, ts)); } }
  toolCall(id: string, name: string, input: Record<string, unknown>, ts?: number): void { this.ensureOpen(ts); this.emit(timed({ t: "tool_call", id, name, input }, ts)); }
  toolResult(id: string, ok: boolean, text: string, ts?: number): void {
    this.endRequest(ts);
    this.emit(timed(ok ? { t: "tool_result", id, ok, output: text } : { t: "tool_result", id, ok, error: text }, ts));
  }
  endRequest(ts?: number): void { if (this.open) { this.open = false; this.emit(timed({ t: "end" }, ts)); } }
  private ensureOpen(ts?: number): void { if (!this.open) this.request(ts); }
}

function timed<E extends TraceEvent>(e: E, ts: number | undefined): E {
  if (ts !== undefined) e.ts = ts;
  return e;
}
