/**
 * OpenCode plugin hooks → neutral trace events, per session. Pure: the plugin (or a test replaying
 * a recorded hook sequence) passes each hook call with the time it arrived.
 *
 * What the server sends a plugin, in the order it sends it (recorded from opencode 1.18 and Kilo
 * 7.7, see test/fixtures/opencode-plugin/):
 * - `session.created` when a session begins; `chat.message` for every new user message (its parts).
 * - per model step: a "step-start" part, a "reasoning" and a "text" part first announced empty and
 *   then streamed as `message.part.delta` {partID, field: "text", delta}, then updated once more
 *   with the whole text; a "tool" part per call (pending with no input, running with input,
 *   completed or error); a "step-finish" part with tokens and cost.
 * - `tool.execute.before` {callID} with the call's arguments, between the pending and the running
 *   update: the one place a call can still be refused.
 * - `message.updated` for each message (an aborted one carries `error`), `session.idle` at the end.
 *
 * Over the server's event stream (`GET /event`, `/global/event`: `loop-sentinel watch --opencode`)
 * the same events come without the hooks: no `chat.message` (the user's text is a text part of a
 * user message, whose role `message.updated` told) and no `tool.execute.before` (a call is known
 * from its running update, once it already runs).
 *
 * A session is followed only from a start it saw: its `session.created`, or a new user message
 * (the engine starts its counts afresh at a user turn anyway). A turn already running when the
 * plugin loaded is left alone until its user speaks again.
 */
import { BoundedMap } from "../../engine/boundedMap";
import type { TraceEvent } from "../../engine/events";
import { canonicalJson, isRecord } from "../../engine/json";
import { completedButFailed, opencodeUsage } from "./toolState";

/** One call of a plugin hook, as the plugin received it (and as the fixtures record it). */
export type HookCall =
  | { hook: "event"; input: { event: unknown } }
  | { hook: "chat.message"; input: Record<string, unknown>; output: { message?: unknown; parts?: unknown } }
  | { hook: "tool.execute.before"; input: { tool?: unknown; sessionID?: unknown; callID?: unknown }; output: { args?: unknown } }
  | { hook: "tool.execute.after"; input: Record<string, unknown>; output: Record<string, unknown> };

export type Translated =
  | { sessionId: string; kind: "event"; event: TraceEvent; title?: string }
  /** The session began (or a user turn began in a session not followed before). */
  | { sessionId: string; kind: "started"; title?: string }
  /** The session went idle: its turn ended (finished, aborted or failed). */
  | { sessionId: string; kind: "idle" };

/** Sessions followed at once; the least recently active is forgotten past this. */
export const MAX_SESSIONS = 64;
/** Parts remembered per session (to know a delta's channel and what was already streamed). */
const MAX_PARTS = 256;
/** Tool calls remembered per session (called / answered), for deduplicating the several updates of one call. */
const MAX_CALLS = 1024;
/** Guidance texts this plugin sent that may still come back as a user message. */
const MAX_ECHOES = 8;
/** Message roles remembered (event stream only), to tell a user's text part from the model's. */
const MAX_MESSAGES = 512;

/** Where a user message's text comes from: the plugin's `chat.message` hook, or the event stream's parts. */
export type UserTextSource = "chat.message" | "parts";

interface PartState { channel: "reasoning" | "text"; emitted: number }

/** A call's answer as the engine judges it. */
type Answer = { ok: boolean; output?: string; error?: string };

interface SessionState {
  parts: BoundedMap<string, PartState>;
  /** callID → answered yet. */
  calls: BoundedMap<string, boolean>;
  /** callID → the call's tool and exact input, to find the answer an identical call got. */
  callKeys: BoundedMap<string, string>;
  /** Tool and exact input → the latest answer such a call got. */
  answers: BoundedMap<string, Answer>;
  /** Calls the plugin refused: what the host reports as their result is the refusal, not an answer. */
  refused: BoundedMap<string, true>;
  inRequest: boolean;
  /**
   * The open request was opened by a hook or part of its own before the step's "step-start" came:
   * Kilo 7.7 sometimes runs `tool.execute.before` ahead of the step-start of that very call's
   * message. That step-start then begins this request; it does not end it and open another.
   */
  awaitingStepStart: boolean;
  model?: string;
  /** Normalised texts of guidance sent as user messages: their echo is not the user speaking. */
  echoes: string[];
  title?: string;
}

export class OpencodeTranslator {
  private readonly sessions = new BoundedMap<string, SessionState>(MAX_SESSIONS);
  /** messageID → role, and whether its text was taken (event stream only). */
  private readonly messages = new BoundedMap<string, { role: string; taken: boolean }>(MAX_MESSAGES);

  constructor(private readonly userText: UserTextSource = "chat.message") {}

  /** Whether the session is followed (its start was seen). */
  follows(sessionId: string): boolean { return this.sessions.peek(sessionId) !== undefined; }

  /** The plugin is about to post `text` as a user message: its echo must not count as the user's. */
  expectEcho(sessionId: string, text: string): void {
    const s = this.sessions.peek(sessionId);
    if (!s) return;
    s.echoes.push(normalise(text));
    if (s.echoes.length > MAX_ECHOES) s.echoes.shift();
  }

  take(call: HookCall, now: number): Translated[] {
    switch (call.hook) {
      case "event": return this.onEvent(call.input?.event, now);
      case "chat.message": return this.onUserMessage(call.input, call.output, now);
      case "tool.execute.before": return this.onToolBefore(call.input, call.output, now);
      case "tool.execute.after": return this.onToolAfter(call.input, call.output, now);
    }
  }

  /**
   * The plugin refused this call: it never ran, and the error the host records for it is the
   * plugin's own guidance. Judging that as the call's answer would make the refused repeat look
   * new and restart the count the refusal came from; the engine is told instead that it answered
   * what the identical call answered last (nothing ran in between to change it), or nothing when
   * no identical call was answered before.
   */
  refuse(sessionId: string, callId: string): void {
    this.sessions.peek(sessionId)?.refused.set(callId, true);
  }

  private start(sessionId: string): SessionState {
    const s: SessionState = { parts: new BoundedMap(MAX_PARTS), calls: new BoundedMap(MAX_CALLS), callKeys: new BoundedMap(MAX_CALLS), answers: new BoundedMap(MAX_CALLS), refused: new BoundedMap(MAX_CALLS), inRequest: false, awaitingStepStart: false, echoes: [] };
    this.sessions.set(sessionId, s);
    return s;
  }

  private onEvent(event: unknown, now: number): Translated[] {
    if (!isRecord(event) || typeof event.type !== "string" || !isRecord(event.properties)) return [];
    const p = event.properties;
    switch (event.type) {
      case "session.created": {
        const info = isRecord(p.info) ? p.info : {};
        const id = typeof info.id === "string" ? info.id : typeof p.sessionID === "string" ? p.sessionID : undefined;
        if (!id || this.sessions.peek(id)) return [];
        const s = this.start(id);
        s.title = typeof info.title === "string" ? info.title : undefined;
        return [{ sessionId: id, kind: "started", title: s.title }];
      }
      case "session.deleted": {
        const info = isRecord(p.info) ? p.info : {};
        if (typeof info.id === "string") this.sessions.delete(info.id);
        return [];
      }
      case "session.idle": {
        const id = typeof p.sessionID === "string" ? p.sessionID : undefined;
        const s = id ? this.sessions.get(id) : undefined;
        if (!id || !s) return [];
        return [...this.closeRequest(id, s, now), { sessionId: id, kind: "idle" }];
      }
      case "message.updated": {
        // An aborted or failed response gets no step-finish: its message's error closes the request.
        const info = isRecord(p.info) ? p.info : undefined;
        if (info && typeof info.id === "string" && typeof info.role === "string" && !this.messages.peek(info.id)) this.messages.set(info.id, { role: info.role, taken: false });
        if (!info || info.role !== "assistant" || typeof info.sessionID !== "string") return [];
        const s = this.sessions.get(info.sessionID);
        if (!s) return [];
        if (typeof info.modelID === "string") s.model = info.modelID;
        return isRecord(info.error) ? this.closeRequest(info.sessionID, s, now) : [];
      }
      case "message.part.updated": return isRecord(p.part) ? this.onPart(p.part, now) : [];
      case "message.part.delta": {
        if (typeof p.sessionID !== "string" || typeof p.partID !== "string" || typeof p.delta !== "string" || p.field !== "text") return [];
        const s = this.sessions.get(p.sessionID);
        const part = s?.parts.peek(p.partID);
        if (!s || !part || p.delta === "") return [];
        part.emitted += p.delta.length;
        return this.stream(p.sessionID, s, part.channel, p.delta, now);
      }
      default: return [];
    }
  }

  private onPart(part: Record<string, unknown>, now: number): Translated[] {
    const sessionId = part.sessionID;
    if (part.type === "text" && typeof part.messageID === "string" && typeof sessionId === "string") {
      const message = this.messages.peek(part.messageID);
      if (message?.role === "user") {
        // With the hooks, chat.message told it already.
        if (this.userText === "chat.message") return [];
        // The first typed text of the message is what the user said (synthetic parts are attachments).
        if (message.taken || part.synthetic === true || typeof part.text !== "string" || part.text === "") return [];
        message.taken = true;
        return this.onUserMessage({ sessionID: sessionId }, { message: { id: part.messageID }, parts: [part] }, now);
      }
    }
    const s = typeof sessionId === "string" ? this.sessions.get(sessionId) : undefined;
    if (typeof sessionId !== "string" || !s || typeof part.type !== "string") return [];
    const out: Translated[] = [];
    switch (part.type) {
      case "step-start":
        if (s.awaitingStepStart) { s.awaitingStepStart = false; return []; }
        out.push(...this.closeRequest(sessionId, s, now));
        out.push(this.ev(sessionId, { t: "request", ts: now, ...(s.model ? { model: s.model } : {}) }));
        s.inRequest = true;
        return out;
      case "step-finish":
        if (!s.inRequest) return [];
        s.inRequest = false;
        s.awaitingStepStart = false;
        const usage = opencodeUsage(part.tokens, part.cost);
        return [this.ev(sessionId, usage ? { t: "end", ts: now, usage } : { t: "end", ts: now })];
      case "reasoning":
      case "text": {
        // User text comes through chat.message; synthetic parts are the host's own additions.
        if (typeof part.id !== "string" || typeof part.text !== "string" || part.synthetic === true || !s.inRequest) return [];
        let state = s.parts.peek(part.id);
        if (!state) { state = { channel: part.type, emitted: 0 }; s.parts.set(part.id, state); }
        // The full text once more after its deltas: only what the deltas did not carry is new.
        if (part.text.length <= state.emitted) return [];
        const rest = part.text.slice(state.emitted);
        state.emitted = part.text.length;
        return this.stream(sessionId, s, state.channel, rest, now);
      }
      case "tool": {
        const state = isRecord(part.state) ? part.state : undefined;
        if (typeof part.callID !== "string" || typeof part.tool !== "string" || !state) return [];
        if (state.status === "pending") return [];
        if (s.calls.peek(part.callID) === undefined) {
          out.push(...this.call(sessionId, s, part.callID, part.tool, isRecord(state.input) ? state.input : {}, now));
        }
        if ((state.status === "completed" || state.status === "error") && s.calls.peek(part.callID) === false) {
          const answer: Answer = state.status === "completed"
            ? { ok: !completedButFailed(state), output: typeof state.output === "string" ? state.output : JSON.stringify(state.output ?? "") }
            : { ok: false, error: typeof state.error === "string" ? state.error : JSON.stringify(state.error ?? "error") };
          out.push(...this.answer(sessionId, s, part.callID, answer, now));
        }
        return out;
      }
      default: return [];
    }
  }

  private onUserMessage(input: Record<string, unknown>, output: { message?: unknown; parts?: unknown }, now: number): Translated[] {
    const message = isRecord(output?.message) ? output.message : {};
    const sessionId = typeof input?.sessionID === "string" ? input.sessionID : typeof message.sessionID === "string" ? message.sessionID : undefined;
    if (!sessionId) return [];
    const parts = Array.isArray(output?.parts) ? output.parts.filter(isRecord) : [];
    const texts = parts.filter((p) => p.type === "text" && typeof p.text === "string" && p.synthetic !== true && p.ignored !== true).map((p) => p.text as string);
    const text = texts.join("\n");
    const out: Translated[] = [];
    let s = this.sessions.get(sessionId);
    if (!s) {
      s = this.start(sessionId);
      s.title = text ? oneLine(text) : undefined;
      out.push({ sessionId, kind: "started", title: s.title });
    }
    const echo = s.echoes.indexOf(normalise(text));
    if (echo >= 0) { s.echoes.splice(echo, 1); return out; }
    if (!s.title && text) s.title = oneLine(text);
    out.push(...this.closeRequest(sessionId, s, now));
    out.push(this.ev(sessionId, { t: "user", text, ts: now }));
    return out;
  }

  private onToolBefore(input: HookCall["input"] & { tool?: unknown; sessionID?: unknown; callID?: unknown }, output: { args?: unknown }, now: number): Translated[] {
    const { sessionID, callID, tool } = input ?? {};
    if (typeof sessionID !== "string" || typeof callID !== "string" || typeof tool !== "string") return [];
    const s = this.sessions.get(sessionID);
    if (!s || s.calls.peek(callID) !== undefined) return [];
    return this.call(sessionID, s, callID, tool, isRecord(output?.args) ? output.args : {}, now);
  }

  /**
   * `tool.execute.after`: the call's output as the tool gave it, before any plugin appended to it
   * (Loop Sentinel's own warning included) and before the host updates the part. Taken here, the
   * engine judges the tool's own answer, and a warning it causes can go out with this very result.
   */
  private onToolAfter(input: Record<string, unknown>, output: Record<string, unknown>, now: number): Translated[] {
    const sessionId = input?.sessionID;
    const callId = input?.callID;
    if (typeof sessionId !== "string" || typeof callId !== "string" || !isRecord(output)) return [];
    const s = this.sessions.get(sessionId);
    if (!s || s.calls.peek(callId) !== false) return [];
    const text = typeof output.output === "string" ? output.output : JSON.stringify(output.output ?? "");
    return this.answer(sessionId, s, callId, { ok: !completedButFailed(output), output: text }, now);
  }

  /** The call's one answer to the engine (a refused call's stands for the identical call's last answer). */
  private answer(sessionId: string, s: SessionState, id: string, answer: Answer, now: number): Translated[] {
    s.calls.set(id, true);
    const key = s.callKeys.peek(id);
    if (s.refused.peek(id)) {
      s.refused.delete(id);
      const earlier = key === undefined ? undefined : s.answers.peek(key);
      if (!earlier) return [];
      answer = earlier;
    } else if (key !== undefined) s.answers.set(key, answer);
    return [this.ev(sessionId, { t: "tool_result", id, ...answer, ts: now })];
  }

  private call(sessionId: string, s: SessionState, id: string, name: string, input: Record<string, unknown>, now: number): Translated[] {
    s.calls.set(id, false);
    s.callKeys.set(id, `${name}\u0000${canonicalJson(input) ?? ""}`);
    const out = this.openRequest(sessionId, s, now);
    out.push(this.ev(sessionId, { t: "tool_call", id, name, input, ts: now }));
    return out;
  }

  private stream(sessionId: string, s: SessionState, channel: "reasoning" | "text", delta: string, now: number): Translated[] {
    const out = this.openRequest(sessionId, s, now);
    out.push(this.ev(sessionId, { t: channel, delta, ts: now }));
    return out;
  }

  private openRequest(sessionId: string, s: SessionState, now: number): Translated[] {
    if (s.inRequest) return [];
    s.inRequest = true;
    s.awaitingStepStart = true;
    return [this.ev(sessionId, { t: "request", ts: now, ...(s.model ? { model: s.model } : {}) })];
  }

  private closeRequest(sessionId: string, s: SessionState, now: number): Translated[] {
    if (!s.inRequest) return [];
    s.inRequest = false;
    s.awaitingStepStart = false;
    return [this.ev(sessionId, { t: "end", ts: now })];
  }

  private ev(sessionId: string, event: TraceEvent): Translated {
    return { sessionId, kind: "event", event };
  }
}

function normalise(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function oneLine(text: string): string {
  const flat = normalise(text);
  return flat.length > 80 ? flat.slice(0, 79) + "…" : flat;
}
