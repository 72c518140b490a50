/**
 * Reader for Claude Code transcripts (`~/.claude/projects/<project>/<session-id>.jsonl`).
 *
 * One JSON object a line, `type` = "user" | "assistant" | "system" | "summary" |
 * "file-history-snapshot" | ... Assistant lines carry `message` (an Anthropic Messages API
 * message); a streamed response is written as several lines sharing `message.id`, one content
 * block each (text, thinking, tool_use). Tool results come back in "user" lines whose content is
 * a list of `tool_result` blocks. `isSidechain` lines belong to a sub-agent, `isMeta` lines are
 * injected context; neither is the main agent's own step or the user's message. A file of
 * sidechain lines only is a sub-agent's own transcript (`agent-*.jsonl`) and is read as such.
 * Files with no conversation at all (only summaries or snapshots) hold no session.
 */
import type { RequestEvent, TraceEvent, Usage } from "../engine/events";
import { contentText, firstLine, IgnoredTally, isRecord, jsonLinesOfFile, jsonLinesOfText, readTextFile, sumNumbers, toInput, toMillis, TraceBuilder, type JsonLineSource } from "./exportHelpers";
import { SessionFormatError, type RecordedSession, type SessionReader, type StreamedSession } from "./reader";
import { safeJsonStringify } from "../engine/json";

const FORMAT = "claude-code";
const LINE_TYPES = /"type"\s*:\s*"(user|assistant|system|summary|file-history-snapshot|queue-operation|progress)"/;
const CLAUDE_KEYS = /"(parentUuid|leafUuid|sessionId|messageId|isSidechain)"\s*:/;

function usageOf(u: unknown): Usage | undefined {
  if (!isRecord(u)) return undefined;
  const tokensIn = sumNumbers(u.input_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens);
  const tokensOut = sumNumbers(u.output_tokens);
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

/** Line types Claude Code writes besides the conversation (bookkeeping, snapshots, request logs). */
const KNOWN_LINE_TYPES = new Set([
  "system", "summary", "file-history-snapshot", "queue-operation", "progress", "attachment", "last-prompt",
  "api-request", "api-request-blob", "api-request-shape", "tools-used", "cost-state", "atis-latch", "custom-title", "tag",
]);

const isConversation = (v: unknown): v is Record<string, unknown> => isRecord(v) && (v.type === "user" || v.type === "assistant");

/** The session in a transcript, or undefined when the file holds no conversation. */
export function parseClaudeCode(text: string, file: string, lenient: boolean): RecordedSession | undefined {
  const read = readClaudeCode(jsonLinesOfText(text, file, FORMAT, lenient), file, lenient);
  return read && { file, format: FORMAT, events: read.events, skipped: read.skipped, ignored: read.ignored };
}

/**
 * The transcript's lines in order, its events handed to `sink` as each request ends (kept and
 * returned without one). Whether sidechain lines are the file's own (a sub-agent's transcript)
 * is known at the first main-agent line, usually the first; the lines before it wait for it.
 */
function readClaudeCode(source: JsonLineSource, file: string, lenient: boolean, sink?: (e: TraceEvent) => void): (StreamedSession & { events: TraceEvent[] }) | undefined {
  let skipped = 0;
  const ignored = new IgnoredTally();
  const b = new TraceBuilder(sink);
  /** The assistant message being assembled: its id, and whether its request event is out. */
  let currentMessageId: string | undefined;
  let currentRequest: RequestEvent | undefined;
  let subAgentFile: boolean | undefined;
  let sawConversation = false;
  const waiting: Array<{ value: unknown; line: number }> = [];
  /** A bad entry, unless a bad JSON line comes later: as when the file was parsed whole first, that one is reported. */
  let failure: SessionFormatError | undefined;
  const fail = (line: number, detail: string) => {
    if (lenient) { skipped++; return; }
    throw new SessionFormatError(file, detail, line, FORMAT);
  };

  const handle = (value: unknown, line: number): void => {
    if (failure) return;
    try { handleLine(value, line); } catch (err) { if (err instanceof SessionFormatError) failure = err; else throw err; }
  };
  const handleLine = (value: unknown, line: number): void => {
    if (!isRecord(value) || typeof value.type !== "string") { fail(line, `expected a transcript entry with a string "type"`); return; }
    // A prompt the person typed while the agent was busy is delivered as a "queued_command" attachment.
    const queued = value.type === "attachment" && isRecord(value.attachment) && value.attachment.type === "queued_command" ? value.attachment : undefined;
    if (queued && value.isSidechain !== true && queued.isMeta !== true) {
      const text = typeof queued.prompt === "string" ? queued.prompt : contentText(queued.prompt);
      if (text.trim() !== "") { b.endRequest(); currentMessageId = undefined; b.user(text, toMillis(value.timestamp)); return; }
    }
    if (value.type !== "user" && value.type !== "assistant") {
      ignored.add(KNOWN_LINE_TYPES.has(value.type) ? `"${value.type}" line (nothing to replay)` : `unknown line type "${value.type}"`);
      return;
    }
    if (value.isSidechain === true && !subAgentFile) { ignored.add("sub-agent (sidechain) line"); return; }
    const message = value.message;
    if (!isRecord(message)) { fail(line, `"${value.type}" entry needs a "message" object`); return; }
    const ts = toMillis(value.timestamp);

    // Claude Code's own "API Error: ..." stand-ins (model "<synthetic>") are not the model's output.
    if (value.type === "assistant" && (value.isApiErrorMessage === true || message.model === "<synthetic>")) { ignored.add("the CLI's own stand-in for a failed API call"); b.endRequest(ts); return; }
    if (value.type === "assistant") {
      const id = typeof message.id === "string" ? message.id : typeof value.requestId === "string" ? value.requestId : `line${line}`;
      const usage = usageOf(message.usage);
      if (id !== currentMessageId || !currentRequest || !b.inRequest) {
        currentRequest = b.request(ts, typeof message.model === "string" ? message.model : undefined, usage);
        currentMessageId = id;
      } else if (usage) currentRequest.usage = usage; // later lines of a streamed message carry the running totals

      const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
      if (!Array.isArray(content)) { fail(line, `assistant "message.content" must be a list of blocks`); return; }
      for (const block of content) {
        if (!isRecord(block)) continue;
        if (block.type === "text" && typeof block.text === "string") b.text(block.text, ts);
        else if (block.type === "thinking" && typeof block.thinking === "string") b.reasoning(block.thinking, ts);
        else if (block.type === "tool_use" || block.type === "server_tool_use") {
          if (typeof block.id !== "string" || typeof block.name !== "string") { fail(line, `tool_use block needs string "id" and "name"`); continue; }
          b.toolCall(block.id, block.name, toInput(block.input), ts);
        }
      }
      return;
    }

    // A user line: tool results, the user's own words, or injected context.
    b.endRequest();
    currentMessageId = undefined;
    if (value.isMeta === true || value.isCompactSummary === true) { ignored.add("injected context (isMeta / compact summary), not a user message"); return; }
    const content = message.content;
    const userText = (text: string) => {
      const why = notAMessage(text);
      if (why) ignored.add(why); else b.user(text, ts);
    };
    if (typeof content === "string") { userText(content); return; }
    if (!Array.isArray(content)) { fail(line, `user "message.content" must be a text or a list of blocks`); return; }
    const words: string[] = [];
    for (const block of content) {
      if (!isRecord(block)) continue;
      if (block.type === "tool_result") {
        if (typeof block.tool_use_id !== "string") { fail(line, `tool_result block needs a string "tool_use_id"`); continue; }
        b.toolResult(block.tool_use_id, block.is_error !== true, resultContentText(block.content), ts);
      } else if (block.type === "text" && typeof block.text === "string") words.push(block.text);
    }
    if (words.length > 0) userText(words.join("\n"));
  };

  const badJson = source((value, line) => {
    if (subAgentFile !== undefined) { handle(value, line); return; }
    if (isConversation(value)) {
      sawConversation = true;
      if (value.isSidechain !== true) {
        subAgentFile = false;
        for (const w of waiting) handle(w.value, w.line);
        waiting.length = 0;
        handle(value, line);
        return;
      }
    }
    waiting.push({ value, line });
  });
  if (!sawConversation) return undefined;
  // sidechain lines only: a sub-agent's own transcript
  if (subAgentFile === undefined) { subAgentFile = true; for (const w of waiting) handle(w.value, w.line); }
  if (failure) throw failure;
  return { file, format: FORMAT, events: b.finish(), skipped: skipped + badJson, ignored: ignored.result() };
}

export const claudeCodeReader: SessionReader = {
  format: FORMAT,
  description: "Claude Code transcript (~/.claude/projects/**/*.jsonl)",
  detect(path, isDirectory, head) {
    if (isDirectory || !/\.jsonl$/i.test(path)) return false;
    const first = firstLine(head);
    return first.startsWith("{") && LINE_TYPES.test(first) && CLAUDE_KEYS.test(first);
  },
  read(path, options) {
    const session = parseClaudeCode(readTextFile(path, FORMAT), path, options.lenient);
    return session ? [session] : [];
  },
  stream(path, options, onEvent) {
    const read = readClaudeCode(jsonLinesOfFile(path, FORMAT, options.lenient), path, options.lenient, onEvent);
    return read && { file: path, format: FORMAT, skipped: read.skipped, ignored: read.ignored };
  },
};
