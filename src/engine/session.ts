/**
 * One agent session (one host task) as the engine sees it: fed one event at a time, it runs the
 * detectors and turns their findings into interventions through the escalation ladder.
 * Deterministic: time comes only from event ts.
 */
import type { Action, Detector, DetectorContext, DetectorId, DetectorStatus, Evidence, Finding } from "./detector";
import type { EngineConfig } from "./config";
import { defaultConfig } from "./config";
import { DETECTOR_DEFINITIONS } from "./detectors";
import type { TraceEvent, Usage } from "./events";
import { guidanceFor } from "./guidance";
import { BoundedMap } from "./boundedMap";
import { StreamLines, type StreamLine, type StreamParagraph, type StreamSentence } from "./streamText";
import { ToolLedger, type CallRecord } from "./ledger";
import { createToolKnowledge, type ToolKnowledge } from "./toolKnowledge";
import { capJsonDepth } from "./json";
import { hashText, normaliseWhitespace } from "./signatures";

export interface Intervention {
  /** 0-based index of the event during which the engine intervened. */
  event: number;
  detector: DetectorId;
  action: Action;
  /** The guidance text for the model (and the user). */
  message: string;
  evidence: Evidence;
  /** Identity of what repeats: "ignore this pattern" takes it. */
  key: string;
  /** One line saying what repeats. */
  summary: string;
  /** The call to refuse, for block. */
  toolCallId?: string;
  ts?: number;
}

export interface SessionStats {
  events: number;
  requests: number;
  toolCalls: number;
  reasoningChars: number;
  textChars: number;
  tokensIn: number;
  tokensOut: number;
  cost: number;
  interventions: number;
}

const RUNG_ORDER: Record<Action, number> = { warn: 1, block: 2, abort: 2, stop: 3 };
const CHANNEL_OF = new Map(DETECTOR_DEFINITIONS.map((d) => [d.id, d.channel]));
/** Patterns whose rung is remembered at once; a long unattended run must not grow it without end. */
const MAX_TRACKED_KEYS = 4096;
/** User messages remembered to tell a repeated one (an autopilot's "continue"). */
const MAX_USER_MESSAGES = 64;

export class LoopSession {
  private config: EngineConfig;
  private tools: ToolKnowledge;
  private detectors: Detector[] = [];
  /** This event's findings: one array reused, as push is never re-entered and keeps none of them. */
  private readonly findings: Finding[] = [];
  /** This event's context, one object brought up to date in place: detectors read it while called and keep none. */
  private readonly ctx: Mutable<DetectorContext> = { index: -1, ts: undefined, requestCount: 0, epoch: 0, tools: undefined as unknown as ToolKnowledge, ledger: undefined as unknown as ToolLedger };
  /** The enabled detectors that handle each kind of event, in run order. */
  private handlers: Record<TraceEvent["t"], Detector[]> = { user: [], request: [], reasoning: [], text: [], tool_call: [], tool_result: [], end: [] };
  private ledger: ToolLedger;
  private index = -1;
  private requestCount = 0;
  private lastTs: number | undefined;
  /** Highest rung already acted on, per finding key. */
  private rungByKey = new BoundedMap<string, number>(MAX_TRACKED_KEYS);
  /** The stream split into lines once per event for all line-reading detectors (none: not split). */
  private lines = new StreamLines();
  private lineReaders: Detector[] = [];
  /** The line readers by what they read (a line, a paragraph, a sentence, a line so far), in run order. */
  private onLineReaders: Detector[] = [];
  private paragraphReaders: Detector[] = [];
  private sentenceReaders: Detector[] = [];
  private soFarReaders: Detector[] = [];
  private ignored = new Set<string>();
  private abortsThisTurn = 0;
  /** After an abort the rest of that response is the same loop draining out: no new stream verdicts until the next request. */
  private streamMuted = false;
  private stopped = false;
  private faultCount = 0;
  private firstFault: string | undefined;
  /** What the user said this session (hashed): a message said before word for word carries nothing new. */
  private userMessages = new BoundedMap<string, true>(MAX_USER_MESSAGES);
  private readonly counters: SessionStats = {
    events: 0, requests: 0, toolCalls: 0, reasoningChars: 0, textChars: 0, tokensIn: 0, tokensOut: 0, cost: 0, interventions: 0,
  };

  constructor(config: EngineConfig = defaultConfig()) {
    this.config = config;
    this.tools = createToolKnowledge(config.toolNames);
    this.ledger = new ToolLedger(this.tools);
    this.buildDetectors();
  }

  /** Applies new settings live; counts start afresh (thresholds may have changed meaning). */
  configure(config: EngineConfig): void {
    this.config = config;
    this.tools = createToolKnowledge(config.toolNames);
    this.ledger = new ToolLedger(this.tools);
    this.buildDetectors();
    this.rungByKey.clear();
  }

  private buildDetectors(): void {
    this.detectors = DETECTOR_DEFINITIONS
      .filter((d) => this.config.detectors[d.id]?.enabled !== false)
      .map((d) => d.create({ ...d.defaults, ...this.config.detectors[d.id] }));
    this.handlers = {
      user: this.detectors.filter((d) => d.onUser),
      request: this.detectors.filter((d) => d.onRequestStart),
      reasoning: this.detectors.filter((d) => d.onStream),
      text: this.detectors.filter((d) => d.onStream),
      tool_call: this.detectors.filter((d) => d.onToolCall),
      tool_result: this.detectors.filter((d) => d.onToolResult),
      end: this.detectors.filter((d) => d.onRequestEnd),
    };
    this.lineReaders = this.detectors.filter((d) => d.onLine || d.onParagraph || d.onSentence);
    this.onLineReaders = this.lineReaders.filter((d) => d.onLine);
    this.paragraphReaders = this.lineReaders.filter((d) => d.onParagraph);
    this.sentenceReaders = this.lineReaders.filter((d) => d.onSentence);
    const soFarReaders = (this.soFarReaders = this.lineReaders.filter((d) => d.onLineSoFar));
    // a reader that does not say is always asked
    // (the readers are looked up at each call: a session read back from its snapshot has its own)
    this.lines.wantsLineSoFar = soFarReaders.every((d) => d.wantsLineSoFar) ? (channel) => this.soFarReaders.some((d) => d.wantsLineSoFar!(channel)) : undefined;
    this.lines.reset();
  }

  /** Never again intervene on this key (the user said the pattern is fine). */
  ignore(key: string): void { this.ignored.add(key); }
  get ignoredKeys(): readonly string[] { return [...this.ignored]; }

  /** Forget all counts: manual reset, long silence. */
  reset(): void {
    this.userMessages.clear();
    this.resetCounts(false);
  }

  /** Forget all counts (newTurn: for a new user message; what the user said so far is kept). */
  private resetCounts(newTurn = true): void {
    for (const d of this.detectors) d.reset(newTurn);
    this.lines.reset();
    this.ledger.reset();
    this.rungByKey.clear();
    this.abortsThisTurn = 0;
    this.streamMuted = false;
    this.stopped = false;
  }

  stats(): SessionStats { return { ...this.counters }; }

  detectorStatus(): DetectorStatus[] {
    const running = new Map(this.detectors.map((d) => [d.id, d.status()]));
    return DETECTOR_DEFINITIONS.map((d) => running.get(d.id) ?? { id: d.id, enabled: false, progress: 0, detail: "off" });
  }

  /** Feeds one event; returns the interventions it caused (usually none). */
  push(ev: TraceEvent): Intervention[] {
    // The kind and time are read once: events of every kind pass here, so each read of a field is a
    // lookup over many object shapes (the hooks get one kind each, and read their fields cheaply).
    const { t: kind, ts } = ev;
    this.index++;
    this.counters.events++;
    if (ts !== undefined) {
      if (this.lastTs !== undefined && this.config.idleResetMs > 0 && ts - this.lastTs > this.config.idleResetMs) this.reset();
      this.lastTs = ts;
    }
    // State first (the request count, the ledger and its epoch), then one context that reflects it.
    let call: CallRecord | undefined;
    // Only the detectors that read this kind of event (most events are stream chunks, which few read);
    // taken by name in each case: indexing by ev.t is a keyed lookup on every event.
    let handlers: Detector[];
    switch (kind) {
      case "user": {
        // The same message again (a harness nudging "continue" after every turn) is no news: it does
        // not wipe the evidence of a loop that it keeps going.
        const said = hashText(normaliseWhitespace(ev.text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ")));
        if (this.config.resetOnUserMessage && ev.late !== true && this.userMessages.peek(said) === undefined) this.resetCounts();
        this.userMessages.set(said, true);
        // The ledger remembers what the user asked for: runs they requested are not repeats.
        this.ledger.noteUserMessage(ev.text);
        handlers = this.handlers.user;
        break;
      }
      case "request":
        this.lines.reset();
        this.streamMuted = false;
        this.ledger.settleUnanswered();
        this.requestCount++;
        this.counters.requests++;
        this.addUsage(ev.usage);
        handlers = this.handlers.request;
        break;
      case "reasoning":
        this.counters.reasoningChars += ev.delta.length;
        handlers = this.handlers.reasoning;
        break;
      case "text":
        this.counters.textChars += ev.delta.length;
        handlers = this.handlers.text;
        break;
      case "tool_call": {
        // Untrusted input of any depth: past the cap it becomes text, so identical deep calls still match.
        const input = capJsonDepth(ev.input);
        this.counters.toolCalls++;
        if (this.requestCount === 0) { this.requestCount = 1; this.counters.requests++; }
        call = this.ledger.recordCall(input === ev.input ? ev : { ...ev, input }, this.index, this.requestCount - 1);
        handlers = this.handlers.tool_call;
        break;
      }
      case "tool_result":
        call = this.ledger.recordResult(ev, this.index);
        // A result for a call we never saw (trace cut, or a host's own bookkeeping) tells nothing.
        if (!call) return NO_INTERVENTIONS;
        handlers = this.handlers.tool_result;
        break;
      case "end":
        this.addUsage(ev.usage);
        handlers = this.handlers.end;
        break;
    }
    const ctx = this.context(ts);
    const findings = this.findings;
    // (setting an array's length is a builtin call, not a store: most events leave it empty)
    if (findings.length !== 0) findings.length = 0;
    // Indexed, not for-of: this runs for every event, and an iterator that does not stay inside
    // optimised code is an allocation each time.
    for (let i = 0; i < handlers.length; i++) {
      const d = handlers[i];
      let found: Finding[] | void;
      // One detector failing on odd input must not cost the event to the others.
      try { switch (kind) {
        case "user": found = d.onUser!(ev.text, ctx); break;
        case "request": found = d.onRequestStart!(ctx); break;
        case "reasoning": case "text": found = d.onStream!(ev, ctx); break;
        case "tool_call": found = d.onToolCall!(call!, ctx); break;
        case "tool_result": found = d.onToolResult!(call!, ctx); break;
        case "end": found = d.onRequestEnd!(ctx); break;
      } } catch (err) { this.noteFault(d.id, err); continue; }
      if (found) for (const f of found) findings.push(f);
    }
    if (this.lineReaders.length > 0) {
      if (kind === "reasoning" || kind === "text") this.lines.push(kind, ev.delta, this.index, this.readLine, this.readParagraph, this.sentenceReaders.length > 0 ? this.readSentence : undefined, this.soFarReaders.length > 0 ? this.readLineSoFar : undefined);
      else if (kind === "end") this.lines.flush(this.index, this.readLine, this.readParagraph);
    }
    if (!this.config.enabled || findings.length === 0) return NO_INTERVENTIONS;
    // One loop is often seen by several detectors at once: act once per event, on the highest rung,
    // and mark the others' rungs as reached so they do not fire the same news on the next event.
    let chosen: PlannedIntervention | undefined;
    const planned: PlannedIntervention[] = [];
    for (const f of findings) {
      const p = this.escalate(f, ts);
      if (!p) continue;
      planned.push(p);
      if (!chosen || p.rung > chosen.rung) chosen = p;
    }
    if (!chosen) return NO_INTERVENTIONS;
    for (const p of planned) this.rungByKey.set(p.intervention.key, Math.max(this.rungByKey.get(p.intervention.key) ?? 0, p.rung));
    if (chosen.intervention.action === "abort") { this.abortsThisTurn++; this.streamMuted = true; }
    if (chosen.intervention.action === "stop") this.stopped = true;
    this.counters.interventions++;
    return [chosen.intervention];
  }

  private noteFault(detector: DetectorId, err: unknown): void {
    this.faultCount++;
    this.firstFault ??= `${detector} failed at event ${this.index}: ${(err as Error)?.message ?? String(err)}`;
  }

  /** Detector failures caught so far (a bug, never expected): how many, and the first one. */
  get faults(): { count: number; first?: string } { return { count: this.faultCount, first: this.firstFault }; }

  // The stream's lines (and, at a request's end, its unfinished last line) go to the line readers
  // through these callbacks. The readers take this event's context and findings from their fields:
  // the callbacks are made once per session, not once per event.
  private readonly readLineSoFar = (l: StreamLine): void => {
    for (const d of this.soFarReaders) this.takeFindings(d.onLineSoFar!(l, this.ctx));
  };

  private readonly readLine = (l: StreamLine): void => {
    for (const d of this.onLineReaders) this.takeFindings(d.onLine!(l, this.ctx));
  };

  private readonly readParagraph = (p: StreamParagraph): void => {
    for (const d of this.paragraphReaders) this.takeFindings(d.onParagraph!(p, this.ctx));
  };

  private readonly readSentence = (x: StreamSentence): void => {
    for (const d of this.sentenceReaders) this.takeFindings(d.onSentence!(x, this.ctx));
  };

  private takeFindings(found: Finding[] | void): void {
    if (found) for (const f of found) this.findings.push(f);
  }

  private context(ts: number | undefined): DetectorContext {
    const c = this.ctx;
    c.index = this.index;
    c.ts = ts;
    c.requestCount = this.requestCount;
    c.epoch = this.ledger.epoch;
    c.tools = this.tools;
    c.ledger = this.ledger;
    return c;
  }

  private addUsage(u: Usage | undefined): void {
    if (!u) return;
    this.counters.tokensIn += u.tokensIn ?? 0;
    this.counters.tokensOut += u.tokensOut ?? 0;
    this.counters.cost += u.cost ?? 0;
  }

  /** The ladder: which rung a finding reaches, and whether that is news. Changes no state. */
  private escalate(f: Finding, ts: number | undefined): PlannedIntervention | undefined {
    if (this.ignored.has(f.key) || this.stopped) return undefined;
    const settings = this.config.detectors[f.detector];
    const perTool = f.tool !== undefined && Object.hasOwn(this.config.perTool, f.tool) ? this.config.perTool[f.tool] : undefined;
    if (!settings || perTool?.exempt) return undefined;
    const rungAt = (r: "warnAt" | "blockAt" | "stopAt") => perTool?.[r] ?? settings[r];
    const reached = (at: number) => at > 0 && f.count >= at;
    const channel = CHANNEL_OF.get(f.detector) ?? "tool";
    if (channel === "stream" && this.streamMuted) return undefined;
    let action: Action | undefined;
    if (reached(rungAt("stopAt"))) action = "stop";
    else if (reached(rungAt("blockAt"))) action = channel === "stream" ? "abort" : f.toolCallId !== undefined ? "block" : "warn";
    else if (reached(rungAt("warnAt"))) action = "warn";
    if (!action) return undefined;

    if (action === "abort") {
      if (this.abortsThisTurn >= this.config.maxAbortsPerTurn && this.config.maxAbortsPerTurn > 0) action = "stop";
    }
    const rung = RUNG_ORDER[action];
    const previous = this.rungByKey.get(f.key) ?? 0;
    // A block refuses each further identical call; other rungs act once per key.
    if (rung < previous || (rung === previous && action !== "block")) return undefined;
    if (this.config.mode === "warnOnly") {
      if (rung === previous) return undefined;
      action = "warn";
    }
    return { rung, intervention: {
      event: this.index,
      detector: f.detector,
      action,
      message: guidanceFor(f, action, this.config.guidance),
      evidence: f.evidence,
      key: f.key,
      summary: f.summary,
      toolCallId: action === "block" ? f.toolCallId : undefined,
      ts,
    } };
  }
}

interface PlannedIntervention { rung: number; intervention: Intervention }

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** What nearly every event returns, shared rather than allocated per event; frozen, as callers may only read it. */
const NO_INTERVENTIONS: Intervention[] = Object.freeze([]) as unknown as Intervention[];
