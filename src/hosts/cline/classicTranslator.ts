/**
 * Classic Cline (`ui_messages.json`, extension v3 and CLI 2.x) → trace events.
 *
 * Fed one message at a time, by array index, whenever it is new or changed: a growing partial
 * reasoning or text message yields only its new characters; `api_req_started` opens a request
 * (its JSON carries tokens and cost, filled in once the response is done); command, tool, MCP and
 * browser messages become tool calls. Cline reports a call's outcome only in the next request's
 * text ("[execute_command for 'ls'] Result: ..."), so results are settled when that request starts.
 * The same code serves `replay` (whole file at once) and the live watcher (message by message),
 * so both give the same verdicts.
 */
import type { TraceEvent, Usage } from "../../engine/events";
import { isRecord, parseJsonText, REPLY_ASKS, type ClineApiReqInfo, type ClineMessage, type ClineSayTool } from "./messages";

export interface TranslatorOptions {
  /** True for a user message Loop Sentinel itself sent (its guidance coming back): not a new user turn. */
  isEcho?: (text: string) => boolean;
}

/** Cline's `ClineSayTool.tool` values → the tool names the model used (and Cline's result headers show). */
const SAY_TOOL_NAMES: Record<string, string> = {
  readFile: "read_file",
  editedExistingFile: "replace_in_file",
  newFileCreated: "write_to_file",
  fileDeleted: "delete_file",
  listFilesTopLevel: "list_files",
  listFilesRecursive: "list_files",
  listCodeDefinitionNames: "list_code_definition_names",
  searchFiles: "search_files",
  webFetch: "web_fetch",
  webSearch: "web_search",
  summarizeTask: "summarize_task",
  useSkill: "use_skill",
};

/** Appended by Cline to a command ask that needs approval (`COMMAND_REQ_APP_STRING`). */
const COMMAND_APPROVAL_SUFFIX = "REQ_APP";
/** Characters of a streamed message remembered to notice that Cline rewrote it instead of extending it. */
const CONTINUITY_TAIL = 24;

interface MessageState {
  ts: number | undefined;
  kind: string;
  /** Characters of a streamed message already emitted as deltas. */
  emitted: number;
  tail: string;
  /** A tool-call message already became a tool_call event. */
  called: boolean;
}

/** The last complete `say:text` or `say:reasoning` row, to recognise Cline logging it a second time. */
interface CompleteRow {
  index: number;
  text: string;
  /** Which request it belongs to (`requestSerial` when it completed). */
  request: number;
  historyIndex: number | undefined;
}

interface PendingCall {
  id: string;
  name: string;
  /** Output seen before the result header (MCP response, browser result). */
  output?: string;
  /** Command output by the row that showed it (its ts): a row read again replaces its part, never adds it twice. */
  outputRows?: Map<string, string>;
}

/** How many command-output rows remember the call they belong to (rows far back are not re-read as news). */
const OUTPUT_ROW_OWNERS = 64;

function kindOf(m: ClineMessage): string {
  return `${m.type ?? "?"}:${m.type === "ask" ? m.ask : m.say}`;
}

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** Usage of a request from its `api_req_started` JSON; undefined until Cline filled it in. */
export function usageOfApiReq(info: ClineApiReqInfo | undefined): Usage | undefined {
  if (!info) return undefined;
  const tokensIn = num(info.tokensIn);
  const tokensOut = num(info.tokensOut);
  const cost = num(info.cost);
  if (tokensIn === undefined && tokensOut === undefined && cost === undefined) return undefined;
  const usage: Usage = {};
  if (tokensIn !== undefined) usage.tokensIn = tokensIn + (num(info.cacheReads) ?? 0) + (num(info.cacheWrites) ?? 0);
  if (tokensOut !== undefined) usage.tokensOut = tokensOut;
  if (cost !== undefined) usage.cost = cost;
  return usage;
}

export interface ToolResultBlock { name: string; text: string }

const RESULT_HEADER = /\[([A-Za-z_][\w.-]*)(?: for [^\n]*?)?\] Result:[ \t]*\n?/g;

/**
 * The tool results a request sends back, in order, from its `api_req_started` request text.
 * Cline's own reminders and the environment details that follow a result are cut off.
 */
export function parseToolResults(request: string): ToolResultBlock[] {
  const heads: { name: string; start: number; end: number }[] = [];
  RESULT_HEADER.lastIndex = 0;
  for (let m = RESULT_HEADER.exec(request); m; m = RESULT_HEADER.exec(request)) {
    heads.push({ name: m[1], start: m.index, end: m.index + m[0].length });
  }
  return heads.map((h, i) => {
    let text = request.slice(h.end, i + 1 < heads.length ? heads[i + 1].start : request.length);
    for (const cut of ["<environment_details>", "\n\n\n# task_progress", "\n# task_progress"]) {
      const at = text.indexOf(cut);
      if (at >= 0) text = text.slice(0, at);
    }
    // Cline's own repeated-call notice would make identical outputs look different.
    text = text.replace(/\n*Tool \[[^\]\n]+\] has been called \d+ times consecutively[^\n]*/g, "");
    return { name: h.name, text: text.trim() };
  });
}

/** Whether a result text, as Cline words it, reports a failure. */
export function resultFailed(text: string): boolean {
  if (/^(The user denied this operation|The tool execution failed|\[ERROR\]|Error[: ]|Command failed)/i.test(text)) return true;
  const exit = /Command (?:executed|failed)[^\n]*?exit code (-?\d+)/i.exec(text);
  return exit !== null && exit[1] !== "0";
}

/** Call ids remembered to recognise a moved row (only the last few rows ever move). */
const RECENT_CALL_IDS = 32;

export class ClineClassicTranslator {
  private readonly states: MessageState[] = [];
  /** Messages in the file now; `states` may hold more, removed by a truncation and perhaps written again. */
  private shown = 0;
  private requestOpen = false;
  private requestInfo: ClineApiReqInfo | undefined;
  private pending: PendingCall[] = [];
  /** Counts requests opened, so rows can tell whether they belong to the same one. */
  private requestSerial = 0;
  /**
   * Last complete row per channel since the last tool call or user message. Cline v3 before
   * PR #9235/#9302 (Feb 2026) could present one finished text block twice, adding a second
   * identical row milliseconds later; the model said it once.
   */
  private readonly lastComplete: { text?: CompleteRow; reasoning?: CompleteRow } = {};
  /** The call each recent command-output row belongs to, by row. */
  private readonly outputOwners = new Map<string, string>();
  /** Ids of the calls emitted last: a call row that moves to another index is not a new call. */
  private readonly recentCalls: string[] = [];
  /** The task's first user message. */
  title: string | undefined;

  constructor(private readonly options: TranslatorOptions = {}) {}

  /** Number of messages in the file as last seen (the array length the translator believes in). */
  get length(): number { return this.shown; }

  /**
   * Cline removed messages from the end (a deleted partial, a checkpoint restore). What was there is
   * remembered: the same messages written again (same ts and kind) are not news, only what differs.
   */
  truncate(length: number): void {
    this.shown = Math.min(this.shown, length);
    this.forgetRowsFrom(length);
  }

  /** A new or changed message at `index`; returns the events it produces. */
  message(index: number, raw: unknown): TraceEvent[] {
    if (!isRecord(raw)) return [];
    this.shown = Math.max(this.shown, index + 1);
    const m = wellTyped(raw);
    const kind = kindOf(m);
    const known = this.states[index];
    const out: TraceEvent[] = [];
    if (known && known.ts === m.ts && known.kind === kind) {
      this.changed(index, m, known, out);
      return out;
    }
    // A different message now sits at this index: everything from here on is new to us.
    this.states.length = Math.min(this.states.length, index);
    this.forgetRowsFrom(index);
    while (this.states.length < index) this.states.push({ ts: undefined, kind: "gap", emitted: 0, tail: "", called: true });
    const state: MessageState = { ts: m.ts, kind, emitted: 0, tail: "", called: false };
    this.states[index] = state;
    this.added(index, m, state, out);
    return out;
  }

  /** The file is complete (replay): close the last request. */
  finish(ts?: number): TraceEvent[] {
    const out: TraceEvent[] = [];
    if (this.requestOpen) this.endRequest(out, ts);
    return out;
  }

  private added(index: number, m: ClineMessage, state: MessageState, out: TraceEvent[]): void {
    const ts = m.ts;
    const what = m.type === "ask" ? m.ask : m.say;
    switch (what) {
      case "task":
        if (m.type === "say") {
          const text = m.text ?? "";
          if (this.title === undefined) this.title = text;
          out.push(withTs({ t: "user", text }, ts));
        }
        return;
      case "user_feedback":
        if (m.text && !this.options.isEcho?.(m.text)) out.push(withTs({ t: "user", text: m.text }, ts));
        this.forgetCompleteRows();
        return;
      case "api_req_started":
        if (m.type !== "say") return;
        this.startRequest(m, ts, out);
        return;
      case "command_output":
        this.changed(index, m, state, out);
        return;
      case "text":
      case "reasoning":
        if (m.type === "say" && this.isLoggedAgain(what, m)) {
          // Already sent as the previous row: only words beyond it (if it ever grows) are new.
          const full = m.text ?? "";
          state.emitted = full.length;
          state.tail = full.slice(Math.max(0, full.length - CONTINUITY_TAIL));
          return;
        }
        this.changed(index, m, state, out);
        return;
      default:
        this.changed(index, m, state, out);
    }
  }

  private changed(index: number, m: ClineMessage, state: MessageState, out: TraceEvent[]): void {
    const what = m.type === "ask" ? m.ask : m.say;
    const ts = m.ts;
    switch (what) {
      case "api_req_started":
        // Tokens and cost arrive in place once the response is done.
        if (m.type === "say") this.requestInfo = (parseJsonText(m.text) as ClineApiReqInfo | undefined) ?? this.requestInfo;
        return;
      case "reasoning":
      case "text":
        if (m.type !== "say") return;
        this.stream(what, m.text, state, ts, out);
        if (!m.partial) this.lastComplete[what] = { index, text: m.text ?? "", request: this.requestSerial, historyIndex: historyIndexOf(m) };
        return;
      case "completion_result":
        if (m.type === "say") {
          if (this.restatesLastText(m)) {
            // attempt_completion's result shown again word for word after the response's own text:
            // one thing said once, not the model repeating itself.
            const full = m.text ?? "";
            state.emitted = full.length;
            state.tail = full.slice(Math.max(0, full.length - CONTINUITY_TAIL));
            return;
          }
          this.stream("text", m.text, state, ts, out);
        } else if (!m.partial) this.waiting(out, ts);
        return;
      case "command_output": {
        // Output may come in several rows, each growing: keep the latest text of each row, under the
        // call the row first followed. A row read again (the file rewritten, emptied, rolled back,
        // or the row pushed down by a hook row) must not add its text again, nor to a later call.
        const row = m.ts !== undefined ? `ts${m.ts}` : `at${index}`;
        const owner = this.outputOwners.get(row);
        const call = owner !== undefined ? this.pending.find((c) => c.id === owner) : lastOf(this.pending, "execute_command");
        if (call) {
          if (owner === undefined) {
            this.outputOwners.set(row, call.id);
            if (this.outputOwners.size > OUTPUT_ROW_OWNERS) this.outputOwners.delete(this.outputOwners.keys().next().value!);
          }
          (call.outputRows ??= new Map()).set(row, m.text ?? "");
        }
        return;
      }
      case "mcp_server_response": {
        const call = lastOf(this.pending, "use_mcp_tool") ?? lastOf(this.pending, "access_mcp_resource");
        if (call) call.output = m.text ?? "";
        return;
      }
      case "browser_action_result": {
        const call = lastOf(this.pending, "browser_action");
        if (call) call.output = m.text ?? "";
        return;
      }
    }
    if (m.partial || state.called) {
      if (!m.partial && REPLY_ASKS.has(what ?? "") && m.type === "ask") this.waiting(out, ts);
      return;
    }
    const call = this.callOf(m);
    const callId = `cline-${m.ts ?? this.states.length}`;
    if (call && m.ts !== undefined && this.recentCalls.includes(callId)) {
      // The same row moved down: Cline inserts its hook rows (hook_status) before the call they run for.
      state.called = true;
      return;
    }
    if (call) {
      state.called = true;
      if (m.ts !== undefined) { this.recentCalls.push(callId); if (this.recentCalls.length > RECENT_CALL_IDS) this.recentCalls.shift(); }
      this.openIfNeeded(out, ts);
      // Text after a tool call is new output even when it repeats the words before the call.
      this.forgetCompleteRows();
      const id = callId;
      this.pending.push({ id, name: call.name });
      out.push(withTs({ t: "tool_call", id, name: call.name, input: call.input }, ts));
    }
    if (m.type === "ask" && REPLY_ASKS.has(what ?? "")) {
      state.called = true;
      this.waiting(out, ts);
    }
  }

  /** The tool call a message stands for, in the model's own tool names. */
  private callOf(m: ClineMessage): { name: string; input: Record<string, unknown> } | undefined {
    const what = m.type === "ask" ? m.ask : m.say;
    switch (what) {
      case "command": {
        let command = (m.text ?? "").trim();
        if (command.endsWith(COMMAND_APPROVAL_SUFFIX)) command = command.slice(0, -COMMAND_APPROVAL_SUFFIX.length).trimEnd();
        return { name: "execute_command", input: { command } };
      }
      case "tool": {
        const t = parseJsonText(m.text);
        if (!isRecord(t)) return undefined;
        return toolCallOfSayTool(t as ClineSayTool);
      }
      case "use_mcp_server": {
        const t = parseJsonText(m.text);
        if (!isRecord(t)) return undefined;
        if (t.type === "access_mcp_resource") return { name: "access_mcp_resource", input: { server_name: t.serverName, uri: t.uri } };
        const args = typeof t.arguments === "string" ? parseJsonText(t.arguments) ?? t.arguments : t.arguments;
        return { name: "use_mcp_tool", input: { server_name: t.serverName, tool_name: t.toolName, arguments: args } };
      }
      case "browser_action_launch":
        return { name: "browser_action", input: { action: "launch", url: m.text ?? "" } };
      case "browser_action": {
        const t = parseJsonText(m.text);
        return isRecord(t) ? { name: "browser_action", input: t } : undefined;
      }
      case "followup": {
        const t = parseJsonText(m.text);
        return { name: "ask_followup_question", input: { question: isRecord(t) ? t.question : m.text } };
      }
      case "plan_mode_respond": {
        const t = parseJsonText(m.text);
        return { name: "plan_mode_respond", input: { response: isRecord(t) ? t.response : m.text } };
      }
      case "new_task": case "condense": case "summarize_task": case "report_bug":
        if (m.type !== "ask") return undefined;
        return { name: what, input: { context: m.text ?? "" } };
      default:
        return undefined;
    }
  }

  private stream(channel: "reasoning" | "text", text: string | undefined, state: MessageState, ts: number | undefined, out: TraceEvent[]): void {
    const full = text ?? "";
    if (full.length < state.emitted || (state.emitted > 0 && full.slice(state.emitted - state.tail.length, state.emitted) !== state.tail)) {
      // Cline rewrote the end (it strips a half-streamed tool tag): resume from what is still there.
      state.emitted = Math.min(state.emitted, full.length);
      state.tail = full.slice(Math.max(0, state.emitted - CONTINUITY_TAIL), state.emitted);
      return;
    }
    if (full.length === state.emitted) return;
    this.openIfNeeded(out, ts);
    out.push(withTs({ t: channel, delta: full.slice(state.emitted) }, ts));
    state.emitted = full.length;
    state.tail = full.slice(Math.max(0, full.length - CONTINUITY_TAIL));
  }

  private startRequest(m: ClineMessage, ts: number | undefined, out: TraceEvent[]): void {
    const info = parseJsonText(m.text) as ClineApiReqInfo | undefined;
    if (this.requestOpen) this.endRequest(out, ts);
    this.settle(typeof info?.request === "string" ? info.request : "", ts, out);
    const request: TraceEvent = { t: "request" };
    if (m.modelInfo?.modelId) request.model = m.modelInfo.modelId;
    out.push(withTs(request, ts));
    this.requestOpen = true;
    this.requestSerial++;
    this.requestInfo = info;
  }

  /** Some hosts' first message of a response is not `api_req_started` (a resumed task): open one. */
  private openIfNeeded(out: TraceEvent[], ts: number | undefined): void {
    if (this.requestOpen) return;
    out.push(withTs({ t: "request" }, ts));
    this.requestOpen = true;
    this.requestSerial++;
    this.requestInfo = undefined;
  }

  /**
   * A new row repeating, word for word, the last complete row of its channel in the same request
   * and the same `conversationHistoryIndex`, with no tool call or user message between: Cline
   * logging one finished block twice (seen 19 ms and 133 ms apart in a real v3 task), not the
   * model saying it again. The same words in a later request are the model's, and still count.
   */
  private isLoggedAgain(channel: "text" | "reasoning", m: ClineMessage): boolean {
    const last = this.lastComplete[channel];
    if (!last || !this.requestOpen || last.request !== this.requestSerial) return false;
    const historyIndex = historyIndexOf(m);
    if (historyIndex !== last.historyIndex) return false;
    return (m.text ?? "") === last.text && last.text !== "";
  }

  /** A completion result that so far only repeats (a prefix of) the text row just completed in this response. */
  private restatesLastText(m: ClineMessage): boolean {
    const last = this.lastComplete.text;
    const text = m.text ?? "";
    if (!last || !this.requestOpen || last.request !== this.requestSerial || text === "") return false;
    if (historyIndexOf(m) !== last.historyIndex) return false;
    return last.text.startsWith(text);
  }

  private forgetCompleteRows(): void {
    this.lastComplete.text = undefined;
    this.lastComplete.reasoning = undefined;
  }

  /** Rows from `index` on are gone (Cline deleted or replaced them): nothing there to repeat. */
  private forgetRowsFrom(index: number): void {
    if (this.lastComplete.text && this.lastComplete.text.index >= index) this.lastComplete.text = undefined;
    if (this.lastComplete.reasoning && this.lastComplete.reasoning.index >= index) this.lastComplete.reasoning = undefined;
  }

  private endRequest(out: TraceEvent[], ts: number | undefined): void {
    const end: TraceEvent = { t: "end" };
    const usage = usageOfApiReq(this.requestInfo);
    if (usage) end.usage = usage;
    out.push(withTs(end, ts));
    this.requestOpen = false;
  }

  /** Cline waits for the user: the response is over. */
  private waiting(out: TraceEvent[], ts: number | undefined): void {
    if (this.requestOpen) this.endRequest(out, ts);
  }

  /** Results of the calls still open, from the request text that sends them back to the model. */
  private settle(request: string, ts: number | undefined, out: TraceEvent[]): void {
    if (this.pending.length === 0) return;
    const blocks = parseToolResults(request);
    let from = 0;
    for (const call of this.pending) {
      const at = blocks.findIndex((b, i) => i >= from && b.name === call.name);
      if (at < 0) continue; // no result reported (rejected batch, interrupted task): the engine settles it
      from = at + 1;
      const text = blocks[at].text;
      const failed = resultFailed(text);
      const shown = call.outputRows ? [...call.outputRows.values()].join("") : call.output;
      const output = shown !== undefined && !failed ? shown : text;
      out.push(withTs(failed ? { t: "tool_result", id: call.id, ok: false, error: output } : { t: "tool_result", id: call.id, ok: true, output }, ts));
    }
    this.pending = [];
  }
}

export function toolCallOfSayTool(t: ClineSayTool): { name: string; input: Record<string, unknown> } {
  const tool = typeof t.tool === "string" ? t.tool : "unknown_tool";
  const name = SAY_TOOL_NAMES[tool] ?? tool;
  const input: Record<string, unknown> = {};
  if (typeof t.path === "string") input.path = t.path;
  switch (tool) {
    case "editedExistingFile": if (typeof t.diff === "string") input.diff = t.diff; break;
    case "newFileCreated": if (typeof t.content === "string") input.content = t.content; break;
    case "listFilesTopLevel": input.recursive = false; break;
    case "listFilesRecursive": input.recursive = true; break;
    case "searchFiles":
      if (typeof t.regex === "string") input.regex = t.regex;
      if (typeof t.filePattern === "string") input.file_pattern = t.filePattern;
      break;
    case "webFetch": delete input.path; input.url = t.path; break;
    case "webSearch": delete input.path; input.query = t.path; break;
    default:
      for (const [k, v] of Object.entries(t)) {
        if (k !== "tool" && k !== "operationIsLocatedInWorkspace" && k !== "content" && input[k] === undefined) input[k] = v;
      }
  }
  return { name, input };
}

const STRING_FIELDS = ["type", "ask", "say", "reasoning"] as const;

/**
 * The message with every field Loop Sentinel reads of the type it expects: a host that changes a
 * field's type (text as a number, an array, an object) costs that field, not the session. Numbers
 * and booleans in text fields are read as their text; other types as absent.
 */
function wellTyped(raw: Record<string, unknown>): ClineMessage {
  const m: ClineMessage = {};
  if (typeof raw.ts === "number" && Number.isFinite(raw.ts)) m.ts = raw.ts;
  for (const k of STRING_FIELDS) if (typeof raw[k] === "string") m[k] = raw[k] as string;
  const text = raw.text;
  if (typeof text === "string") m.text = text;
  else if (typeof text === "number" || typeof text === "boolean") m.text = String(text);
  if (typeof raw.partial === "boolean") m.partial = raw.partial;
  if (typeof raw.commandCompleted === "boolean") m.commandCompleted = raw.commandCompleted;
  if (typeof raw.conversationHistoryIndex === "number") m.conversationHistoryIndex = raw.conversationHistoryIndex;
  const info = raw.modelInfo;
  if (isRecord(info) && typeof info.modelId === "string") m.modelInfo = { modelId: info.modelId };
  return m;
}

function historyIndexOf(m: ClineMessage): number | undefined {
  return typeof m.conversationHistoryIndex === "number" ? m.conversationHistoryIndex : undefined;
}

function lastOf(calls: PendingCall[], name: string): PendingCall | undefined {
  for (let i = calls.length - 1; i >= 0; i--) if (calls[i].name === name) return calls[i];
  return undefined;
}

function withTs<E extends TraceEvent>(e: E, ts: number | undefined): E {
  if (ts !== undefined && Number.isFinite(ts)) e.ts = ts;
  return e;
}

/** Whole-file translation (replay): every message once, then the end. */
export function translateClassicMessages(messages: unknown[], options: TranslatorOptions = {}): { events: TraceEvent[]; title?: string; skipped: number } {
  const t = new ClineClassicTranslator(options);
  const events: TraceEvent[] = [];
  let skipped = 0;
  messages.forEach((m, i) => {
    if (!isRecord(m)) { skipped++; return; }
    events.push(...t.message(i, m));
  });
  const lastTs = [...messages].reverse().find((m) => isRecord(m) && typeof m.ts === "number") as ClineMessage | undefined;
  events.push(...t.finish(lastTs?.ts));
  return { events, title: t.title, skipped };
}
