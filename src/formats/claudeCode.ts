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
import type { TraceEvent } from "../engine/events";
import { isClaudeConversation as isConversation, translateClaudeLine, type ClaudeLineIssues, type ClaudeLineState } from "../hosts/claude/transcriptLines";
import { firstLine, IgnoredTally, jsonLinesOfFile, jsonLinesOfText, readTextFile, TraceBuilder, type JsonLineSource } from "./exportHelpers";
import { SessionFormatError, type RecordedSession, type SessionReader, type StreamedSession } from "./reader";

const FORMAT = "claude-code";
const LINE_TYPES = /"type"\s*:\s*"(user|assistant|system|summary|file-history-snapshot|queue-operation|progress)"/;
const CLAUDE_KEYS = /"(parentUuid|leafUuid|sessionId|messageId|isSidechain)"\s*:/;

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
  let subAgentFile: boolean | undefined;
  let sawConversation = false;
  const waiting: Array<{ value: unknown; line: number }> = [];
  /** A bad entry, unless a bad JSON line comes later: as when the file was parsed whole first, that one is reported. */
  let failure: SessionFormatError | undefined;
  const fail = (line: number, detail: string) => {
    if (lenient) { skipped++; return; }
    throw new SessionFormatError(file, detail, line, FORMAT);
  };

  const state: ClaudeLineState = {};
  const issues: ClaudeLineIssues = { fail, ignore: (reason) => ignored.add(reason) };
  const handle = (value: unknown, line: number): void => {
    if (failure) return;
    state.subAgentFile = subAgentFile;
    try { translateClaudeLine(value, line, b, state, issues); } catch (err) { if (err instanceof SessionFormatError) failure = err; else throw err; }
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
