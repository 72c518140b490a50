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
import type { Usage } from "../engine/events";
import { contentText, firstLine, IgnoredTally, isRecord, parseJsonLines, readTextFile, sumNumbers, toInput, toMillis, TraceBuilder, type JsonLine } from "./exportHelpers";
import { SessionFormatError, type RecordedSession, type SessionReader } from "./reader";

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

/** The entries on the active branch, root first (all entries in file order for linear files). */
function activeBranch(entries: JsonLine[]): JsonLine[] {
  const byId = new Map<string, JsonLine>();
  let leaf: JsonLine | undefined;
  for (const e of entries) {
    const id = (e.value as Record<string, unknown>).id;
    if (typeof id === "string") { byId.set(id, e); leaf = e; }
  }
  if (!leaf) return entries;
  const branch: JsonLine[] = [];
  const seen = new Set<string>();
  let node: JsonLine | undefined = leaf;
  while (node) {
    const v = node.value as Record<string, unknown>;
    const id = v.id as string;
    if (seen.has(id)) break; // a cycle in a damaged file: stop rather than loop
    seen.add(id);
    branch.push(node);
    node = typeof v.parentId === "string" ? byId.get(v.parentId) : undefined;
  }
  return branch.reverse();
}

export function parsePi(text: string, file: string, lenient: boolean): RecordedSession {
  const { lines, skipped: badJson } = parseJsonLines(text, file, FORMAT, lenient);
  let skipped = badJson;
  const ignored = new IgnoredTally();
  const fail = (line: number, detail: string): void => {
    if (lenient) { skipped++; return; }
    throw new SessionFormatError(file, detail, line, FORMAT);
  };
  const header = lines[0];
  if (!header || !isRecord(header.value) || header.value.type !== "session") {
    throw new SessionFormatError(file, `first line must be the session header {"type":"session",...}`, header?.line ?? 1, FORMAT);
  }
  const entries: JsonLine[] = [];
  for (const l of lines.slice(1)) {
    if (!isRecord(l.value) || typeof l.value.type !== "string") fail(l.line, `expected an entry with a string "type"`);
    else entries.push(l);
  }

  const b = new TraceBuilder();
  const branch = activeBranch(entries);
  if (branch.length < entries.length) ignored.add("entry on an abandoned branch", entries.length - branch.length);
  for (const { value, line } of branch) {
    const entry = value as Record<string, unknown>;
    if (entry.type !== "message" && entry.type !== "message_end") {
      ignored.add(KNOWN_ENTRIES.has(entry.type as string) ? `"${entry.type}" entry (nothing to replay)` : `unknown entry type "${entry.type}"`);
      continue;
    }
    const message = entry.message;
    if (!isRecord(message) || typeof message.role !== "string") { fail(line, `"${entry.type}" entry needs a "message" with a string "role"`); continue; }
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
};
