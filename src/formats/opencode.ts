/**
 * Reader for opencode session exports (`opencode export <sessionID> > session.json`).
 *
 * One JSON document: `{"info": Session, "messages": [{"info": Message, "parts": Part[]}], "todos"?}`.
 * A user message's parts are mostly "text" (some `synthetic`, e.g. attached file contents). An
 * assistant message holds one or more model steps, each bracketed by "step-start" and
 * "step-finish" (which carries tokens and cost); between them "reasoning", "text" and "tool"
 * parts. A tool part has `callID`, `tool` and `state` {status: pending|running|completed|error,
 * input, output | error, metadata, time {start, end}}. "completed" means the tool ran: the bash
 * tool's exit code is in `metadata.exit`, and a non-zero one is a failed command. A message the
 * user interrupted carries `info.error` (MessageAbortedError) and ends there.
 */
import { completedButFailed, opencodeUsage } from "../hosts/opencode/toolState";
import { IgnoredTally, isRecord, lineOfId, parseJsonDocument, readTextFile, toInput, toMillis, toText, TraceBuilder } from "./exportHelpers";
import { SessionFormatError, type RecordedSession, type SessionReader } from "./reader";

const FORMAT = "opencode";

/** Part types that carry nothing the engine reads (files attached, patches, snapshots, ...). */
const NON_EVENT_PARTS = new Set(["file", "patch", "snapshot", "agent", "retry", "compaction", "subtask"]);

export function parseOpencode(text: string, file: string, lenient: boolean): RecordedSession {
  const doc = parseJsonDocument(text, file, FORMAT);
  if (!isRecord(doc) || !isRecord(doc.info) || !Array.isArray(doc.messages)) {
    throw new SessionFormatError(file, `expected an opencode export {"info": {...}, "messages": [...]}`, undefined, FORMAT);
  }
  let skipped = 0;
  const ignored = new IgnoredTally();
  /** `near` is the message or part at fault: its id locates the line. */
  const fail = (where: string, detail: string, near?: unknown): void => {
    if (lenient) { skipped++; return; }
    throw new SessionFormatError(file, `${where}: ${detail}`, lineOfId(text, near), FORMAT);
  };
  const b = new TraceBuilder();
  doc.messages.forEach((m, mi) => {
    const where = `messages[${mi}]`;
    if (!isRecord(m) || !isRecord(m.info) || !Array.isArray(m.parts)) { fail(where, `expected {"info": {...}, "parts": [...]}`, isRecord(m) ? m.info : undefined); return; }
    const info = m.info;
    const created = isRecord(info.time) ? toMillis(info.time.created) : undefined;
    if (info.role === "user") {
      const texts = m.parts.filter((p): p is Record<string, unknown> => isRecord(p) && p.type === "text" && typeof p.text === "string");
      const typed = texts.filter((p) => p.synthetic !== true);
      if (texts.length === 0) { ignored.add("user message without text (attachments only)"); return; }
      b.user((typed.length > 0 ? typed : texts).map((p) => p.text as string).join("\n"), created);
      return;
    }
    if (info.role !== "assistant") { ignored.add(`unknown message role ${JSON.stringify(info.role)}`); return; }
    const model = typeof info.modelID === "string" ? info.modelID : undefined;
    // Steps carry their own usage; a message without step parts is one step with the message's usage.
    const hasSteps = m.parts.some((p) => isRecord(p) && p.type === "step-finish");
    b.request(created, model, hasSteps ? undefined : opencodeUsage(info.tokens, info.cost));
    let firstStep = true;
    m.parts.forEach((p, pi) => {
      const at = `${where}.parts[${pi}]`;
      if (!isRecord(p) || typeof p.type !== "string") { fail(at, `expected a part with a string "type"`, p); return; }
      const time = isRecord(p.time) ? p.time : undefined;
      const ts = toMillis(time?.start);
      switch (p.type) {
        case "step-start":
          if (!firstStep) b.request(ts, model);
          firstStep = false;
          break;
        case "step-finish":
          b.endRequest(ts, opencodeUsage(p.tokens, p.cost));
          break;
        case "reasoning":
          if (typeof p.text === "string") b.reasoning(p.text, ts);
          break;
        case "text":
          if (typeof p.text === "string") b.text(p.text, ts);
          break;
        case "tool": {
          const state = p.state;
          if (typeof p.tool !== "string" || !isRecord(state)) { fail(at, `tool part needs a string "tool" and a "state" object`, p); return; }
          const id = typeof p.callID === "string" ? p.callID : typeof p.id === "string" ? p.id : `${where}.${pi}`;
          const stateTime = isRecord(state.time) ? state.time : undefined;
          if (!b.inRequest) b.request(toMillis(stateTime?.start), model);
          b.toolCall(id, p.tool, toInput(state.input), toMillis(stateTime?.start));
          // Pending or running at export time: the call never returned.
          if (state.status === "completed") b.toolResult(id, !completedButFailed(state), toText(state.output), toMillis(stateTime?.end));
          else if (state.status === "error") b.toolResult(id, false, toText(state.error), toMillis(stateTime?.end));
          else ignored.add(`tool call still ${typeof state.status === "string" ? state.status : "unfinished"} at export (no result)`);
          break;
        }
        default:
          ignored.add(NON_EVENT_PARTS.has(p.type) ? `"${p.type}" part (nothing to replay)` : `unknown part type "${p.type}"`);
      }
    });
    // An interrupted or failed response (MessageAbortedError, an API error) ends where it stopped.
    if (isRecord(info.error)) ignored.add(`response ended by ${typeof info.error.name === "string" ? info.error.name : "an error"}`);
    b.endRequest(isRecord(info.time) ? toMillis(info.time.completed) : undefined);
  });
  return { file, format: FORMAT, events: b.finish(), skipped, ignored: ignored.result() };
}

export const opencodeReader: SessionReader = {
  format: FORMAT,
  description: "opencode session export (opencode export <id> > file.json)",
  detect(path, isDirectory, head) {
    if (isDirectory || !/\.json$/i.test(path) || !head) return false;
    return /^\s*\{\s*"info"\s*:\s*\{/.test(head) && /"(ses_|projectID|sessionID)/.test(head);
  },
  read(path, options) {
    return [parseOpencode(readTextFile(path, FORMAT), path, options.lenient)];
  },
};
