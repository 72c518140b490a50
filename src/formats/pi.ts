/**
 * Reader for pi coding-agent sessions (`~/.pi/agent/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl`).
 *
 * The first line is the header `{"type":"session","version":3,"id",...,"cwd"}`; every other line
 * is an entry with `type` ("message", "model_change", "thinking_level_change", "compaction",
 * "branch_summary", "custom", "label", "session_info", ...). From version 2 on, entries form a
 * tree through `id`/`parentId` (branching in place); the session the agent last worked in is the
 * path from the last entry back to the root, so that is what is replayed. Version 1 files are
 * linear. A "message" entry holds an AgentMessage: role "user" (content text or blocks),
 * "assistant" (blocks text/thinking/toolCall, usage, model) or "toolResult" (toolCallId,
 * content, isError); "bashExecution" and custom roles are the user's or an extension's doing.
 *
 * The same header also starts a `pi --mode json` capture, a stream of events (agent_start,
 * message_start/update/end, tool_execution_*, turn_end, ...); there each finished message arrives
 * once as `message_end`, which is read like a "message" entry.
 */
import type { TraceEvent, Usage } from "../engine/events";
import { contentText, firstLine, IgnoredTally, isRecord, jsonLinesOfFile, jsonLinesOfText, readTextFile, sumNumbers, toInput, toMillis, TraceBuilder, type JsonLineSource } from "./exportHelpers";
import { SessionFormatError, type RecordedSession, type SessionReader, type StreamedSession } from "./reader";

const FORMAT = "pi";

/**
 * Entry and event types pi writes that hold no message: session bookkeeping, and in a `--mode json`
 * stream the per-token updates and tool progress that `message_end` repeats whole.
 */
const KNOWN_ENTRIES = new Set([
  "model_change", "thinking_level_change", "compaction", "branch_summary", "custom", "custom_message", "label", "session_info",
  "agent_start", "agent_end", "turn_start", "turn_end", "message_start", "message_update",
  "tool_execution_start", "tool_execution_update", "tool_execution_end", "auto_compaction_start", "auto_compaction_end", "auto_retry_start", "auto_retry_end",
]);

function usageOf(u: unknown): Usage | undefined {
  if (!isRecord(u)) return undefined;
  const tokensIn = sumNumbers(u.input, u.cacheRead, u.cacheWrite);
  const tokensOut = sumNumbers(u.output);
  const cost = isRecord(u.cost) ? sumNumbers(u.cost.total) : sumNumbers(u.cost);
  if (tokensIn === undefined && tokensOut === undefined && cost === undefined) return undefined;
  return { tokensIn, tokensOut, cost };
}

/** Where an entry sits in the tree: all that is kept of it between the two readings of the file. */
interface EntryPlace {
  id: string | undefined;
  parentId: string | undefined;
  line: number;
}

/** The entries on the active branch, root first (all entries in file order for linear files). */
function activeBranch(entries: EntryPlace[]): EntryPlace[] {
  const byId = new Map<string, EntryPlace>();
  let leaf: EntryPlace | undefined;
  for (const e of entries) {
    if (e.id !== undefined) { byId.set(e.id, e); leaf = e; }
  }
  if (!leaf) return entries;
  const branch: EntryPlace[] = [];
  const seen = new Set<string>();
  let node: EntryPlace | undefined = leaf;
  while (node) {
    const id = node.id as string;
    if (seen.has(id)) break; // a cycle in a damaged file: stop rather than loop
    seen.add(id);
    branch.push(node);
    node = node.parentId !== undefined ? byId.get(node.parentId) : undefined;
  }
  return branch.reverse();
}

export function parsePi(text: string, file: string, lenient: boolean): RecordedSession {
  const read = readPi(jsonLinesOfText(text, file, FORMAT, lenient), file, lenient);
  return { file, format: FORMAT, events: read.events, skipped: read.skipped, ignored: read.ignored };
}

/**
 * Reads the session in two passes over its lines: the first checks them and keeps only where each
 * entry sits in the tree, which gives the active branch; the second replays that branch's entries,
 * events handed to `sink` as each request ends (kept and returned without one).
 */
function readPi(source: JsonLineSource, file: string, lenient: boolean, sink?: (e: TraceEvent) => void): StreamedSession & { events: TraceEvent[] } {
  let skipped = 0;
  const ignored = new IgnoredTally();
  const fail = (line: number, detail: string): void => {
    if (lenient) { skipped++; return; }
    throw new SessionFormatError(file, detail, line, FORMAT);
  };
  let header: { value: unknown; line: number } | undefined;
  const entries: EntryPlace[] = [];
  /** The first malformed entry: reported after the header, as when the file was parsed whole first. */
  let badEntry: number | undefined;
  const badJson = source((value, line) => {
    if (!header) { header = { value, line }; return; }
    if (!isRecord(value) || typeof value.type !== "string") { if (lenient) skipped++; else badEntry ??= line; return; }
    entries.push({ id: typeof value.id === "string" ? value.id : undefined, parentId: typeof value.parentId === "string" ? value.parentId : undefined, line });
  });
  skipped += badJson;
  if (!header || !isRecord(header.value) || header.value.type !== "session") {
    throw new SessionFormatError(file, `first line must be the session header {"type":"session",...}`, header?.line ?? 1, FORMAT);
  }
  if (badEntry !== undefined) fail(badEntry, `expected an entry with a string "type"`);

  const b = new TraceBuilder(sink);
  const branch = activeBranch(entries);
  if (branch.length < entries.length) ignored.add("entry on an abandoned branch", entries.length - branch.length);
  const handle = (value: unknown, line: number): void => {
    const entry = value as Record<string, unknown>;
    if (entry.type !== "message" && entry.type !== "message_end") {
      ignored.add(KNOWN_ENTRIES.has(entry.type as string) ? `"${entry.type}" entry (nothing to replay)` : `unknown entry type "${entry.type}"`);
      return;
    }
    const message = entry.message;
    if (!isRecord(message) || typeof message.role !== "string") { fail(line, `"${entry.type}" entry needs a "message" with a string "role"`); return; }
    const ts = toMillis(message.timestamp) ?? toMillis(entry.timestamp);
    switch (message.role) {
      case "user":
        b.user(contentText(message.content), ts);
        break;
      case "assistant": {
        if (!Array.isArray(message.content)) { fail(line, `assistant message needs a "content" list`); break; }
        b.request(ts, typeof message.model === "string" ? message.model : undefined, usageOf(message.usage));
        for (const block of message.content) {
          if (!isRecord(block)) continue;
          if (block.type === "thinking" && typeof block.thinking === "string") b.reasoning(block.thinking, ts);
          else if (block.type === "text" && typeof block.text === "string") b.text(block.text, ts);
          else if (block.type === "toolCall") {
            if (typeof block.id !== "string" || typeof block.name !== "string") { fail(line, `toolCall block needs string "id" and "name"`); continue; }
            b.toolCall(block.id, block.name, toInput(block.arguments), ts);
          }
        }
        // An aborted or failed response ("aborted", "error") ends here, whatever it had begun.
        if (message.stopReason === "aborted" || message.stopReason === "error") ignored.add(`response ended by stopReason "${message.stopReason}"`);
        b.endRequest(ts);
        break;
      }
      case "toolResult":
        if (typeof message.toolCallId !== "string") { fail(line, `toolResult message needs a string "toolCallId"`); break; }
        b.toolResult(message.toolCallId, message.isError !== true, contentText(message.content), ts);
        break;
      case "bashExecution":
        ignored.add("the user's own shell command (bashExecution), not the agent's");
        break;
      default:
        ignored.add(`message role "${message.role}" (custom or extension message)`);
    }
  };
  // Streamed, a branch runs forward through the file and is replayed as it is read again, unless the
  // file is damaged (a parent written after its child). Otherwise (and read whole, where the entries
  // are at hand anyway) the branch's entries are gathered first and replayed in branch order.
  if (sink && branch.every((e, i) => i === 0 || e.line > branch[i - 1].line)) {
    let next = 0;
    source((value, line) => { if (next < branch.length && line === branch[next].line) { next++; handle(value, line); } });
  } else {
    const onBranch = new Map<number, unknown>(branch.map((e) => [e.line, undefined]));
    source((value, line) => { if (onBranch.has(line)) onBranch.set(line, value); });
    for (const e of branch) handle(onBranch.get(e.line), e.line);
  }
  return { file, format: FORMAT, events: b.finish(), skipped, ignored: ignored.result() };
}

export const piReader: SessionReader = {
  format: FORMAT,
  description: "pi session (~/.pi/agent/sessions/**/*.jsonl)",
  detect(path, isDirectory, head) {
    if (isDirectory || !/\.jsonl$/i.test(path)) return false;
    const first = firstLine(head);
    return /^\{\s*"type"\s*:\s*"session"\s*[,}]/.test(first) && /"(cwd|version|timestamp)"\s*:/.test(first);
  },
  read(path, options) {
    return [parsePi(readTextFile(path, FORMAT), path, options.lenient)];
  },
  stream(path, options, onEvent) {
    const read = readPi(jsonLinesOfFile(path, FORMAT, options.lenient), path, options.lenient, onEvent);
    return { file: path, format: FORMAT, skipped: read.skipped, ignored: read.ignored };
  },
};
