/**
 * Answers one agent hook call from the engine, for Claude Code, Copilot CLI and Codex alike.
 * Plain Node. The same logic runs in two places: in the hook process itself (headless: the state
 * below is saved to a private file between calls, and the engine session is rebuilt from its
 * event log, headlessState.ts) and in the extension or `watch` (the state lives in memory and the
 * events go to the window's engine sessions).
 *
 * Per call: first the session file's lines written since the last call are read (Claude's
 * transcript, Codex's rollout file, Copilot's events.jsonl: thinking, text, calls and results: a reasoning loop is acted on here, at the next tool call, since a hook
 * cannot cut a response mid-stream), then the hook's own call or result is counted unless the
 * transcript already brought it (matched by the call id). The strongest rung reached decides:
 * - warn: kept and added as context after the call's result (post);
 * - block (or a stream abort): the call is refused with the guidance;
 * - stop: Claude and Gemini CLI: refused and the run ends; Copilot: let through at preToolUse and
 *   answered with an interrupt from permissionRequest, its only hook answer that ends a run; Codex
 *   and Qwen Code, which no hook output can end: this and every further call of the turn is
 *   refused, saying so.
 * A user prompt (Gemini's BeforeAgent; Codex's and Qwen's new turn id) starts the counts afresh.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { TraceEvent } from "../../engine/events";
import type { Intervention } from "../../engine/session";
import { isRecord } from "../../engine/json";
import { DETECTOR_DEFINITIONS } from "../../engine/detectors";
import { DirectClaudeBuilder, translateClaudeLine, type ClaudeLineState } from "../claude/transcriptLines";
import { CodexRolloutTranslator } from "../codex/rolloutTranslator";
import { CopilotEventsTranslator } from "../copilot/eventsTranslator";
import { EventOut, feedLineText, type LineTranslator } from "../lineTranslation";
import { endsRun, type AgentCall, type AgentName, type Verdict } from "./dialect";
import { copilotHome } from "./agentHomes";

/** Call and result ids remembered per session to tell the hook's copy from the transcript's. */
const MAX_IDS = 512;
/** Transcript bytes read in one hook call at most; a longer backlog is read over the next calls. */
const MAX_TAIL_BYTES = 2 * 1024 * 1024;
/** A transcript first seen longer than this (a resumed session) is read from its last part only. */
const MAX_FIRST_READ_BYTES = 1024 * 1024;
/** Codex calls read from its file and not yet answered there, kept to pair their output read later. */
const MAX_OPEN_FILE_CALLS = 64;
/** Copilot gives no call id: its calls waiting for their result, matched by name and input. */
const MAX_OPEN_CALLS = 32;

export interface TranscriptCursor {
  path: string;
  offset: number;
  messageId?: string;
  inRequest: boolean;
  /** Codex: the ids of calls the file showed whose output it has not shown yet (a translator made afresh is told them). */
  open?: string[];
  /** Gemini: the model messages already read (its file writes a message again as its calls finish). */
  seen?: string[];
}

/** What one agent session needs between hook calls (JSON: saved as it is by the headless hook). */
export interface AgentSessionState {
  agent: AgentName;
  sessionId: string;
  turnId?: string;
  transcript?: TranscriptCursor;
  calls: string[];
  results: string[];
  /** Copilot: calls counted at preToolUse, still waiting for postToolUse ([id, name, input key]). */
  open: [string, string, string][];
  /** Guidance kept for the next result (warn is context after a result). */
  pendingWarn: string[];
  /** A refusal found between calls (a reasoning loop in the transcript), for the next call. */
  pendingRefusal?: string;
  /** The run was stopped: the message, the Codex turn it holds for, whether Copilot's interrupt went out. */
  stop?: { message: string; turnId?: string; delivered: boolean; askedAt?: number };
  /** A looping response (thinking or text) was already refused once in this session. */
  streamRefused?: boolean;
  /** A user message was read from the session file. */
  userSeen?: boolean;
  nextId: number;
}

export function newSessionState(agent: AgentName, sessionId: string): AgentSessionState {
  return { agent, sessionId, calls: [], results: [], open: [], pendingWarn: [], nextId: 0 };
}

/** Feeds one event to the session's engine; returns the interventions it caused. */
export type Feed = (event: TraceEvent) => Intervention[];

const RANK: Record<string, number> = { warn: 1, block: 2, abort: 2, stop: 3 };

const STREAM_DETECTORS: ReadonlySet<string> = new Set(DETECTOR_DEFINITIONS.filter((d) => d.channel === "stream").map((d) => d.id));

/**
 * The strongest finding, on the hooks' ladder. A looping response read from the transcript is
 * already complete: it cannot be cut short, so however far its detector counted, its first catch
 * refuses the next call with the guidance (what an abort does live) and only a loop that goes on
 * after that ends the run.
 */
function strongestOnLadder(found: Intervention[], state: AgentSessionState): Intervention | undefined {
  const best = strongest(found);
  if (!best || best.action === "warn" || !STREAM_DETECTORS.has(best.detector)) return best;
  if (best.action === "stop" && !state.streamRefused) { state.streamRefused = true; return { ...best, action: "block" }; }
  state.streamRefused = true;
  return best;
}

function remember(list: string[], id: string): void {
  list.push(id);
  if (list.length > MAX_IDS) list.splice(0, list.length - MAX_IDS);
}

function inputKey(name: string, input: Record<string, unknown>): string {
  let s: string;
  try { s = JSON.stringify(input); } catch { s = ""; }
  return `${name}\u0000${s.length > 4096 ? s.slice(0, 4096) : s}`;
}

/**
 * The whole lines written since the cursor, as text (undefined: nothing new). A line still being
 * written is read next time. A file that shrank (rewritten) is read afresh.
 */
function readNewLines(cursor: TranscriptCursor): string | undefined {
  let fd: number;
  try { fd = fs.openSync(cursor.path, "r"); } catch { return undefined; }
  try {
    const size = fs.fstatSync(fd).size;
    if (size < cursor.offset) { cursor.offset = 0; cursor.messageId = undefined; cursor.inRequest = false; cursor.open = undefined; }
    let skipFirstLine = false;
    if (cursor.offset === 0 && size > MAX_FIRST_READ_BYTES) { cursor.offset = size - MAX_FIRST_READ_BYTES; skipFirstLine = true; }
    const length = Math.min(size - cursor.offset, MAX_TAIL_BYTES);
    if (length <= 0) return undefined;
    const buf = Buffer.allocUnsafe(length);
    const got = fs.readSync(fd, buf, 0, length, cursor.offset);
    const end = buf.lastIndexOf(10, got - 1);
    if (end < 0) return undefined;
    // Started mid-file: the first, partial line is not ours to read.
    const start = skipFirstLine ? buf.indexOf(10) + 1 : 0;
    cursor.offset += end + 1;
    return buf.toString("utf8", start, end);
  } finally {
    fs.closeSync(fd);
  }
}

/** Claude's transcript lines written since the cursor, as events. */
export function readTranscriptTail(cursor: TranscriptCursor, emit: (e: TraceEvent) => void): void {
  const text = readNewLines(cursor);
  if (text === undefined) return;
  const builder = new DirectClaudeBuilder(emit, cursor.inRequest);
  const state: ClaudeLineState = { messageId: cursor.messageId, subAgentFile: false };
  const issues = { fail: () => { /* a line we cannot read tells nothing */ }, ignore: () => { /* bookkeeping lines */ } };
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let value: unknown;
    try { value = JSON.parse(line); } catch { continue; }
    if (!isRecord(value)) continue;
    translateClaudeLine(value, 0, builder, state, issues);
  }
  cursor.messageId = state.messageId;
  cursor.inRequest = builder.inRequest;
}

/**
 * A translator made afresh for each read (its state stays bounded and nothing but the cursor is
 * saved), told what the lines already read left open: the response still open, and for Codex the
 * calls still unanswered, without which their output read now would be set aside as unpaired.
 * What the telling itself yields is dropped: those events were fed when their lines were read.
 */
function resumedTranslator(agent: "codex" | "copilot", cursor: TranscriptCursor): LineTranslator {
  if (agent === "codex") {
    const t = new CodexRolloutTranslator();
    for (const id of cursor.open ?? []) t.feed({ type: "response_item", payload: { type: "function_call", call_id: id, name: "resumed", arguments: "{}" } });
    if (cursor.open?.length && !cursor.inRequest) t.feed({ type: "event_msg", payload: { type: "task_complete" } });
    else if (!cursor.open?.length && cursor.inRequest) t.feed({ type: "response_item", payload: { type: "message", role: "assistant", content: [] } });
    return t;
  }
  const t = new CopilotEventsTranslator();
  if (cursor.inRequest) t.feed({ type: "assistant.message", data: {} });
  return t;
}

/**
 * Codex's rollout file or Copilot's events.jsonl: the lines written since the cursor, as events.
 * Copilot's file names its calls by ids its hooks never see (the hook numbers them itself), so its
 * calls and results come from the hooks, which see every one, and from the file only the rest.
 */
export function readLineFileTail(agent: "codex" | "copilot", cursor: TranscriptCursor, emit: (e: TraceEvent) => void): void {
  const text = readNewLines(cursor);
  if (text === undefined) return;
  const translator = resumedTranslator(agent, cursor);
  const open = new Set(cursor.open ?? []);
  for (const line of text.split("\n")) {
    for (const e of feedLineText(translator, line).events) {
      if (e.t === "request") cursor.inRequest = true;
      else if (e.t === "end") cursor.inRequest = false;
      if (e.t === "tool_call" || e.t === "tool_result") {
        if (agent === "copilot") continue;
        if (e.t === "tool_call") open.add(e.id); else open.delete(e.id);
      }
      emit(e);
    }
  }
  const ids = [...open];
  cursor.open = ids.length > MAX_OPEN_FILE_CALLS ? ids.slice(ids.length - MAX_OPEN_FILE_CALLS) : ids;
}

/** Message ids remembered per Gemini session file (a message is rewritten only while its calls run). */
const MAX_SEEN = 64;

const textOf = (v: unknown): string => (typeof v === "string" ? v : "");

/**
 * Gemini CLI's session file (`chats/session-*.jsonl`, its hook input's `transcript_path`) or Qwen
 * Code's (`projects/<cwd>/chats/<session>.jsonl`): the lines written since the cursor, as the
 * model's thinking and text (and Qwen's user prompts). Their calls and results come from the hooks,
 * which see every one (Gemini's hooks name no call id to match the file's by).
 * - Gemini: a message record `{id, type: "gemini", content, thoughts: [{subject, description}]}`
 *   is written when its response is complete, and again with the same id as its calls finish: it
 *   is read once. Its user records are not read: the BeforeAgent hook tells each prompt (and the
 *   CLI records its own notes, such as its loop guard's, as user records).
 * - Qwen: `{type: "assistant", message: {parts: [{text, thought?}, {functionCall}]}}` once per
 *   response; `{type: "user", message: {parts: [{text}]}}` for a prompt; tool results and the CLI's
 *   own `system` records are not read.
 */
export function readChatTail(agent: "gemini" | "qwen", cursor: TranscriptCursor, emit: (e: TraceEvent) => void): void {
  const text = readNewLines(cursor);
  if (text === undefined) return;
  const out = new EventOut();
  if (cursor.inRequest) out.request(undefined);
  out.take();
  const seen = cursor.seen ?? [];
  const records: Record<string, unknown>[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try { const r: unknown = JSON.parse(line); if (isRecord(r)) records.push(r); } catch { /* a line cut short is not read */ }
  }
  // Gemini writes a message as its response completes and again as its calls finish: of the
  // versions read now, the last is the whole one.
  const lastOf = new Map<unknown, number>();
  records.forEach((r, i) => { if (r.type === "gemini") lastOf.set(r.id, i); });
  for (const [i, r] of records.entries()) {
    const ts = typeof r.timestamp === "string" ? Date.parse(r.timestamp) || undefined : undefined;
    if (agent === "gemini") {
      if (r.type === "gemini" && typeof r.id === "string") {
        if (lastOf.get(r.id) !== i || seen.includes(r.id)) continue;
        seen.push(r.id);
        out.request(ts, typeof r.model === "string" ? r.model : undefined);
        for (const t of Array.isArray(r.thoughts) ? r.thoughts : []) {
          if (isRecord(t)) out.reasoning([textOf(t.subject), textOf(t.description)].filter((x) => x !== "").join(": "), ts);
        }
        out.text(partsText(r.content), ts);
      } else if (r.type === "user") out.end(ts);
      continue;
    }
    const m = isRecord(r.message) ? r.message : undefined;
    if (!m) continue;
    if (r.type === "assistant") {
      out.request(ts, typeof r.model === "string" ? r.model : undefined);
      for (const part of Array.isArray(m.parts) ? m.parts : []) {
        if (!isRecord(part) || typeof part.text !== "string") continue;
        if (part.thought === true) out.reasoning(part.text, ts); else out.text(part.text, ts);
      }
    } else if (r.type === "user" && !hasToolResult(m.parts)) {
      const said = partsText(m.parts);
      if (said.trim() !== "") out.user(said, ts);
    }
  }
  for (const e of out.take()) emit(e);
  cursor.inRequest = out.inRequest;
  cursor.seen = seen.length > MAX_SEEN ? seen.slice(seen.length - MAX_SEEN) : seen;
}

/** A record carrying a tool's result (its text parts are the tool's, not the user's). */
function hasToolResult(v: unknown): boolean {
  return Array.isArray(v) && v.some((p) => isRecord(p) && p.functionResponse !== undefined);
}

/** The text parts of a Gemini-style content (a string or a list of parts); tool results left out. */
function partsText(v: unknown): string {
  if (typeof v === "string") return v;
  if (!Array.isArray(v)) return "";
  return v.filter((p) => isRecord(p) && typeof p.text === "string" && p.thought !== true).map((p) => (p as { text: string }).text).join("\n");
}

/** Where Copilot keeps a session's events: no hook input names it. Undefined for an id that is not a plain name. */
export function copilotEventsPath(sessionId: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!/^[\w.-]+$/.test(sessionId) || /^\.+$/.test(sessionId)) return undefined;
  return path.join(copilotHome(env), "session-state", sessionId, "events.jsonl");
}

/** The session file the hook reads as it grows, for the agents that write one. */
function transcriptOf(call: AgentCall): string | undefined {
  if (call.agent === "copilot") return copilotEventsPath(call.sessionId);
  return call.transcriptPath;
}

function readTail(agent: AgentName, cursor: TranscriptCursor, emit: (e: TraceEvent) => void): void {
  if (agent === "claude") readTranscriptTail(cursor, emit);
  else if (agent === "codex" || agent === "copilot") readLineFileTail(agent, cursor, emit);
  else readChatTail(agent, cursor, emit);
}

function strongest(ivs: Intervention[]): Intervention | undefined {
  let best: Intervention | undefined;
  for (const iv of ivs) if (!best || RANK[iv.action] > RANK[best.action]) best = iv;
  return best;
}

/** Decides one hook call; updates `state` and feeds the engine through `feed`. */
export function decideAgentCall(call: AgentCall, state: AgentSessionState, feed: Feed, now = Date.now()): Verdict {
  const found: Intervention[] = [];
  const take = (ivs: Intervention[]) => { for (const iv of ivs) found.push(iv); };

  if (call.point === "prompt") {
    // The user spoke: what was held for the last run is over, and the counts start afresh.
    state.stop = undefined; state.pendingRefusal = undefined; state.pendingWarn = []; state.streamRefused = undefined; state.open = [];
    feed({ t: "user", text: call.prompt ?? "", ts: now });
    return { action: "allow" };
  }

  // A new Codex turn is a new user message: counts start afresh, and a stop held for the old turn is over.
  if (call.turnId !== undefined && call.turnId !== state.turnId) {
    if (state.turnId !== undefined) { take(feed({ t: "user", text: `(new turn ${call.turnId})`, ts: now })); state.pendingWarn = []; state.pendingRefusal = undefined; }
    state.turnId = call.turnId;
    if (state.stop && state.stop.turnId !== call.turnId) state.stop = undefined;
  }

  const transcriptPath = transcriptOf(call);
  const readSessionFile = () => {
    if (!transcriptPath) return;
    if (!state.transcript || state.transcript.path !== transcriptPath) state.transcript = { path: transcriptPath, offset: 0, inRequest: false };
    readTail(call.agent, state.transcript, (e) => {
      if (e.t === "tool_call") { if (state.calls.includes(e.id)) return; remember(state.calls, e.id); }
      if (e.t === "tool_result") { if (state.results.includes(e.id)) return; remember(state.results, e.id); }
      if (e.t === "user") {
        state.stop = undefined; state.pendingRefusal = undefined; state.streamRefused = undefined;
        // The session's opening message read after calls the hooks already fed: the file was written
        // behind them (Copilot's events.jsonl lags under load). It is the request those calls work
        // on, not a new one: read what it asks, keep the evidence.
        if (!state.userSeen && state.calls.length > 0) e = { ...e, late: true };
        state.userSeen = true;
      }
      take(feed(e));
    });
  };
  // Copilot's, Gemini's and Qwen's calls and results come from their hooks alone, and their files
  // may be behind them: a response's lines read after a call go after its result, never between the
  // call and its result (a request there would leave the call unanswered, and the counts one short).
  const resultFirst = (call.agent === "copilot" || call.agent === "gemini" || call.agent === "qwen") && call.point === "post";
  // Copilot's permissionRequest can carry nothing but the stop: what the file holds is read at the
  // next pre or post, whose answers carry guidance and refusals (read here, a finding was lost).
  if (!resultFirst && call.point !== "permission") readSessionFile();

  if (call.point === "permission") return permissionVerdict(state, now);

  // Copilot's run was interrupted and a call comes again: the user resumed it, which is a new user
  // message (Copilot's hooks see none). Counts start afresh, as they do for the others.
  if (call.point === "pre" && state.stop?.delivered && call.agent === "copilot") {
    state.stop = undefined;
    take(feed({ t: "user", text: `(session resumed after Loop Sentinel's stop, ${++state.nextId})`, ts: now }));
  }

  const key = inputKey(call.toolName, call.input);
  if (call.point === "pre") {
    let id = call.toolCallId;
    if (id === undefined) {
      id = `${call.agent}-hook-${++state.nextId}`;
      state.open.push([id, call.toolName, key]);
      if (state.open.length > MAX_OPEN_CALLS) state.open.splice(0, state.open.length - MAX_OPEN_CALLS);
    }
    if (!state.calls.includes(id)) {
      remember(state.calls, id);
      take(feed({ t: "tool_call", id, name: call.toolName, input: call.input, ts: now }));
    }
    const verdict = preVerdict(call, state, found, now);
    // A refused call never ran: the refusal the transcript later shows as its result is ours, not an outcome.
    if (verdict.action === "block" || verdict.action === "stop") {
      remember(state.results, id);
      // Gemini runs no AfterTool for a refused call: left waiting, it would take the result of the
      // next identical call that runs.
      if (call.agent === "gemini") state.open = state.open.filter(([openId]) => openId !== id);
    }
    return verdict;
  }

  // post: the call's outcome, unless the transcript brought it already.
  let id = call.toolCallId;
  if (id === undefined) {
    const i = state.open.findIndex(([, name, k]) => name === call.toolName && k === key);
    if (i >= 0) { id = state.open[i][0]; state.open.splice(i, 1); }
  }
  if (id !== undefined && !state.results.includes(id) && call.result) {
    remember(state.results, id);
    const r = call.result;
    take(feed(r.ok ? { t: "tool_result", id, ok: true, output: r.text, ts: now } : { t: "tool_result", id, ok: false, error: r.text, ts: now }));
  }
  if (resultFirst) readSessionFile();
  return postVerdict(call, state, found);
}

function stopText(agent: AgentName, message: string): string {
  if (agent === "codex" || agent === "qwen") return `${message} Loop Sentinel stopped this run: every further tool call of this turn is refused. End your turn now and tell the user what you found and what blocked you.`;
  return message;
}

function preVerdict(call: AgentCall, state: AgentSessionState, found: Intervention[], now: number): Verdict {
  const best = strongestOnLadder(found, state);
  if (state.stop) return heldStop(call, state, now);
  if (best?.action === "stop") {
    state.stop = { message: stopText(call.agent, best.message), turnId: state.turnId, delivered: false };
    return heldStop(call, state, now);
  }
  const refusal = best && (best.action === "block" || best.action === "abort") ? best.message : state.pendingRefusal;
  for (const iv of found) if (iv.action === "warn") state.pendingWarn.push(iv.message);
  state.pendingRefusal = undefined;
  if (refusal !== undefined) return { action: "block", message: refusal };
  return { action: "allow" };
}

/** A stopped run, at the next call: each agent as far as it allows. */
function heldStop(call: AgentCall, state: AgentSessionState, now: number): Verdict {
  const stop = state.stop!;
  if (call.agent === "copilot" && !call.claudeShaped) {
    // Let this call reach permissionRequest, which ends the run; had the last one not come there
    // (a tool that asks no permission), refuse this call instead.
    if (stop.askedAt !== undefined && !stop.delivered) return { action: "block", message: stop.message };
    stop.askedAt = now;
    return { action: "allow" };
  }
  if (call.agent === "copilot") return { action: "block", message: stop.message };
  return { action: "stop", message: stop.message };
}

function permissionVerdict(state: AgentSessionState, now: number): Verdict {
  const stop = state.stop;
  if (!stop || stop.delivered) return { action: "allow" };
  if (stop.askedAt === undefined) stop.askedAt = now;
  stop.delivered = true;
  return { action: "stop", message: stop.message };
}

function postVerdict(call: AgentCall, state: AgentSessionState, found: Intervention[]): Verdict {
  const messages = state.pendingWarn.splice(0);
  const best = strongestOnLadder(found, state);
  for (const iv of found) if (iv !== best && iv.action === "warn") messages.push(iv.message);
  if (best && best.action !== "warn" && best.action !== "stop") {
    // Found at the result: the call already ran. The guidance goes with it, and the next call is refused.
    messages.push(best.message);
    state.pendingRefusal = best.message;
  } else if (best?.action === "warn") messages.push(best.message);
  if (best?.action === "stop" && !state.stop) {
    state.stop = { message: stopText(call.agent, best.message), turnId: state.turnId, delivered: false };
    messages.push(state.stop.message);
    const text = messages.join("\n\n");
    // Claude and Gemini end the run here; the others at their next call.
    return endsRun(call.agent) ? { action: "stop", message: text } : { action: "warn", message: text };
  }
  return messages.length > 0 ? { action: "warn", message: messages.join("\n\n") } : { action: "allow" };
}
