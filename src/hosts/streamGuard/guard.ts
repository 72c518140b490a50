/**
 * The engine behind the stream guard: one LoopSession per agent session, fed from what passes
 * through the proxy (the user's new words and the tool calls and results each request carries,
 * the text and thinking of each streamed answer, the calls it makes), and the ladder carried out
 * on the wire:
 * - warn: the guidance is added to the session's next request;
 * - abort: the answer is cut (a clean end of message, upstream request ended) and the guidance is
 *   added to the next request;
 * - block: a call being streamed is not handed to the agent: the answer ends before it, with the
 *   reason as visible text, and the guidance goes into the next request (a call already made,
 *   seen in a request's history, cannot be refused: its guidance is a warning);
 * - stop: the answer is cut, and the session's next request is answered by the guard itself with
 *   the reason; nothing goes upstream until the user speaks again.
 * Guidance stays pending until a request carrying it is answered. In warn-only mode nothing is
 * changed: interventions are reported only. No HTTP here: the proxy drives it.
 */
import type { EngineConfig } from "../../engine/config";
import type { TraceEvent } from "../../engine/events";
import { LoopSession, type Intervention } from "../../engine/session";
import { BoundedMap } from "../../engine/boundedMap";
import { hashText } from "../../engine/signatures";
import { DETECTOR_DEFINITIONS } from "../../engine/detectors";
import { addGuidance, addMarks, answerPlace, history, newestUserText, noteOfLastAnswer, removeCutReasoning } from "./requests";
import type { CutMarks, Reading, SeenToolCall, WireFormat } from "./streamReaders";
import { wholeParts, type WholePart } from "./wholeAnswers";

/** Agent sessions followed at once; the least recently used is forgotten past this. */
export const MAX_GUARD_SESSIONS = 256;
/** Tool call and result ids remembered per session, to feed each once. */
const MAX_SEEN_IDS = 4096;
/** Guidance notes waiting at once; more is noise. */
const MAX_PENDING = 3;
/** Characters of a whole answer fed to the engine at a time: what a stream's delta holds. */
const WHOLE_PIECE = 64;
/** Cut reasoning remembered per session (prefixes, item ids) to keep out of later requests. */
const MAX_MARKS = 16;

export type GuardRecord =
  | { type: "session"; session: string; agent: string }
  | ({ type: "intervention"; session: string; agent: string; leftToHook?: true } & Pick<Intervention, "event" | "detector" | "action" | "message" | "key" | "evidence">)
  | { type: "cut"; session: string; agent: string; action: Intervention["action"]; format: WireFormat; streamedChars: number; msFromFirstByte: number; droppedCall?: string }
  | { type: "guidance"; session: string; agent: string; notes: number }
  | { type: "answered"; session: string; agent: string; format: WireFormat; why: string }
  | { type: "left-to-plugin"; session: string }
  | { type: "error"; message: string };

interface GuardSession {
  key: string;
  agent: string;
  /** Its own engine, unless the events go to one elsewhere (GuardDeps.feed). */
  engine: LoopSession | undefined;
  pending: string[];
  marks: { prefixes: string[]; itemIds: Set<string> };
  /** The reason the session was stopped: its requests are answered with it until the user speaks. */
  stopped?: string;
  lastUser?: string;
  seen: BoundedMap<string, true>;
}

/**
 * Where an event fed to the engine came from, which decides what the guard can still do about a
 * finding: "stream" (an answer streaming now: it can be cut, a call held back), "request" (read from
 * a request: the calls in it already ran, nothing to cut), "ended" (the answer had ended by itself).
 */
export type FeedSource = "stream" | "request" | "ended";

/** What the guard decided for one request. */
export interface RequestPlan {
  session: GuardSession;
  /** Answer this request with this text and send nothing upstream. */
  answer?: string;
  /** The body was changed (guidance added, cut reasoning removed): send it re-serialised. */
  changed: boolean;
  /** The guidance notes this request carries (cleared once it is answered). */
  carried: string[];
  /** Where the answer will stand in the conversation (Gemini names calls without ids by it). */
  answerAt?: number;
}

/** What to do after an event of a streamed answer. */
export type StreamVerdict =
  | { kind: "pass" }
  | { kind: "cut"; action: Intervention["action"]; note: string };

export interface GuardDeps {
  config: () => EngineConfig;
  report: (r: GuardRecord) => void;
  now: () => number;
  /**
   * Loop Sentinel's own hook guards this agent's tool calls: the tool detectors' findings are the
   * hook's to act on (one finding, one intervention), and the guard acts on the stream alone.
   */
  toolsByHook?: boolean;
  /**
   * The engine lives elsewhere (the extension's SessionManager, so the session shows in the status
   * bar and the panel): each event goes there, and the interventions it caused come back.
   */
  feed?: (session: string, agent: string, event: TraceEvent, source: FeedSource) => Intervention[];
}

export class StreamGuardCore {
  private readonly sessions = new BoundedMap<string, GuardSession>(MAX_GUARD_SESSIONS);

  constructor(private readonly deps: GuardDeps) {}

  private session(key: string, agent: string): GuardSession {
    let s = this.sessions.get(key);
    if (!s) {
      s = { key, agent, engine: this.deps.feed ? undefined : new LoopSession(this.deps.config()), pending: [], marks: { prefixes: [], itemIds: new Set() }, seen: new BoundedMap(MAX_SEEN_IDS) };
      this.sessions.set(key, s);
      this.deps.report({ type: "session", session: key, agent });
    }
    return s;
  }

  private get warnOnly(): boolean { return this.deps.config().mode === "warnOnly"; }

  /**
   * A request of a session: the engine hears what it carries that is new, then the request is
   * changed as the session's state says (stopped: answered here; guidance added; cut reasoning out).
   */
  planRequest(key: string, agent: string, format: WireFormat, body: Record<string, unknown>): RequestPlan {
    // Counted in the agent's own conversation, before the guard adds or takes out anything.
    const answerAt = answerPlace(format, body);
    const fresh = !this.sessions.peek(key);
    const s = this.session(key, agent);
    if (fresh && !this.warnOnly) {
      // A guard started after the cut (`run` for Codex's next turn) finds its note in the last
      // answer: that answer's guidance has not reached the model yet.
      const note = noteOfLastAnswer(format, body);
      const cut = note && /^Loop Sentinel (stopped this response|refused this call): ([\s\S]*?)\.?$/.exec(note);
      if (cut) this.addPending(s, `Loop Sentinel stopped your last response: ${cut[2]}. Do not repeat it. Take the next concrete step (a tool call, a change, or the final answer) instead of restating it.`);
    }
    const ts = this.deps.now();
    const said = newestUserText(format, body);
    const saidHash = said === undefined ? undefined : hashText(said);
    if (saidHash !== undefined && saidHash !== s.lastUser) {
      s.lastUser = saidHash;
      // The user spoke: a stop is over. Pending guidance still goes with this request: the model
      // has not read it yet, and the user's words may well be "go on".
      s.stopped = undefined;
      this.push(s, { t: "user", text: said!, ts }, "request");
    }
    let fromHistory: Intervention | undefined;
    for (const h of history(format, body, (kind, id) => s.seen.peek(`${kind}:${id}`) !== undefined)) {
      s.seen.set(`${h.kind}:${h.id}`, true);
      const out = h.kind === "call"
        ? this.push(s, { t: "tool_call", id: h.id, name: h.name, input: h.input, ts }, "request")
        : this.push(s, { t: "tool_result", id: h.id, ok: h.ok, output: h.output, ts }, "request");
      for (const iv of out) if (!fromHistory || rank(iv) > rank(fromHistory)) fromHistory = iv;
    }
    this.push(s, { t: "request", ts }, "request");
    if (fromHistory && !this.warnOnly) {
      // A call already made cannot be refused any more: a block is a warning by then.
      if (fromHistory.action === "stop") s.stopped = fromHistory.message;
      else this.addPending(s, fromHistory.message);
    }
    if (s.stopped !== undefined) return { session: s, answer: s.stopped, changed: false, carried: [] };
    let changed = removeCutReasoning(format, body, s.marks) > 0;
    const carried = [...s.pending];
    if (carried.length > 0 && addGuidance(format, body, carried.join("\n\n"))) changed = true;
    return { session: s, changed, carried: carried.length > 0 && changed ? carried : [], answerAt };
  }

  /** The request was answered (a whole answer, or one the guard cut): its guidance has arrived. */
  answered(plan: RequestPlan): void {
    if (plan.carried.length === 0) return;
    plan.session.pending = plan.session.pending.filter((g) => !plan.carried.includes(g));
    this.deps.report({ type: "guidance", session: plan.session.key, agent: plan.session.agent, notes: plan.carried.length });
  }

  /** The guard answered the request itself (stopped session). */
  answeredHere(plan: RequestPlan, format: WireFormat): void {
    this.deps.report({ type: "answered", session: plan.session.key, agent: plan.session.agent, format, why: "the session was stopped" });
  }

  /** One event of a streamed answer: its text and any call it completes go to the engine. */
  streamed(plan: RequestPlan, reading: Reading): StreamVerdict {
    const s = plan.session;
    let verdict: StreamVerdict = PASS;
    const ts = this.deps.now();
    for (const p of reading.pieces) {
      for (const iv of this.push(s, { t: p.channel, delta: p.delta, ts })) verdict = this.onStreamIntervention(s, iv, verdict);
    }
    if (reading.calls) {
      for (const call of reading.calls) {
        s.seen.set(`call:${call.id}`, true);
        for (const iv of this.push(s, { t: "tool_call", id: call.id, name: call.name, input: call.input, ts })) verdict = this.onStreamIntervention(s, iv, verdict, call);
      }
    }
    return verdict;
  }

  /**
   * An answer that came whole: judged part by part, its text in pieces as a stream would bring it.
   * Returns where to cut it (the part, the characters of it before the catch) and the note, if the
   * engine acts; otherwise the answer ended by itself.
   */
  whole(plan: RequestPlan, format: WireFormat, answer: Record<string, unknown>): { cut: { at: number; part: WholePart }; chars: number; note: string; action: Intervention["action"] } | undefined {
    const reading: Reading = { pieces: [], hold: false, calls: undefined, release: false, done: false };
    for (const entry of wholeParts(format, answer)) {
      const part = entry.part;
      if (part.kind === "call") {
        reading.pieces = [];
        reading.calls = [part.call];
        const v = this.streamed(plan, reading);
        reading.calls = undefined;
        if (v.kind === "cut") { this.cut(plan, { itemIds: [] }); return { cut: entry, chars: 0, note: v.note, action: v.action }; }
        continue;
      }
      for (let k = 0; k < part.text.length; k += WHOLE_PIECE) {
        reading.pieces = [{ channel: part.kind, delta: part.text.slice(k, k + WHOLE_PIECE) }];
        const v = this.streamed(plan, reading);
        // The cut thinking is left out of the answer itself: nothing of it to take out later.
        if (v.kind === "cut") { this.cut(plan, { itemIds: [] }); return { cut: entry, chars: k, note: v.note, action: v.action }; }
      }
    }
    this.streamEnded(plan);
    return undefined;
  }

  /** The streamed answer ended by itself. */
  streamEnded(plan: RequestPlan): void {
    const s = plan.session;
    for (const iv of this.push(s, { t: "end", ts: this.deps.now() }, "ended")) {
      if (this.warnOnly) continue;
      // Nothing left to cut: the guidance waits for the next request, a stop answers it.
      if (iv.action === "stop") s.stopped = iv.message;
      else this.addPending(s, iv.message);
    }
  }

  /** The guard cut the answer: what the cut leaves in the agent's history is kept out of later requests. */
  cut(plan: RequestPlan, marks: CutMarks): void {
    addMarks(plan.session.marks, marks, MAX_MARKS);
    this.push(plan.session, { t: "end", ts: this.deps.now() }, "ended");
  }

  private onStreamIntervention(s: GuardSession, iv: Intervention, verdict: StreamVerdict, call?: SeenToolCall): StreamVerdict {
    if (this.warnOnly) return verdict;
    switch (iv.action) {
      case "warn":
        this.addPending(s, iv.message);
        return verdict;
      case "block":
        // Only the call being decided now can be refused; another one's guidance is a warning.
        if (!call || iv.toolCallId !== call.id) { this.addPending(s, iv.message); return verdict; }
        this.addPending(s, iv.message);
        return strongerCut(verdict, { kind: "cut", action: "block", note: `\n\n[${iv.message}]` });
      case "abort":
        this.addPending(s, iv.message);
        return strongerCut(verdict, { kind: "cut", action: "abort", note: `\n\n[Loop Sentinel stopped this response: ${iv.summary}.]` });
      case "stop":
        s.stopped = iv.message;
        return strongerCut(verdict, { kind: "cut", action: "stop", note: `\n\n[${iv.message}]` });
    }
  }

  private addPending(s: GuardSession, message: string): void {
    if (s.pending.includes(message)) return;
    s.pending.push(message);
    if (s.pending.length > MAX_PENDING) s.pending.shift();
  }

  /** Feeds the engine; returns the interventions the guard acts on (all are reported). */
  private push(s: GuardSession, ev: TraceEvent, source: FeedSource = "stream"): Intervention[] {
    const out = this.deps.feed ? this.deps.feed(s.key, s.agent, ev, source) : s.engine!.push(ev);
    if (out.length === 0) return out;
    for (const iv of out) {
      this.deps.report({ type: "intervention", session: s.key, agent: s.agent, event: iv.event, detector: iv.detector, action: iv.action, message: iv.message, key: iv.key, evidence: iv.evidence, ...(this.deps.toolsByHook && TOOL_DETECTORS.has(iv.detector) ? { leftToHook: true } : {}) });
    }
    return this.deps.toolsByHook ? out.filter((iv) => !TOOL_DETECTORS.has(iv.detector)) : out;
  }

  /** Sessions followed now (tests). */
  sessionKeys(): string[] { return [...this.sessions.entries()].map(([k]) => k); }
  pendingOf(key: string): readonly string[] { return this.sessions.peek(key)?.pending ?? []; }
}

const PASS: StreamVerdict = { kind: "pass" };
const TOOL_DETECTORS: ReadonlySet<string> = new Set(DETECTOR_DEFINITIONS.filter((d) => d.channel === "tool").map((d) => d.id));
const RANK: Record<Intervention["action"], number> = { warn: 1, block: 2, abort: 2, stop: 3 };
const rank = (iv: Intervention) => RANK[iv.action];

function strongerCut(a: StreamVerdict, b: StreamVerdict & { kind: "cut" }): StreamVerdict {
  if (a.kind === "pass") return b;
  return RANK[b.action] > RANK[a.action] ? b : a;
}
