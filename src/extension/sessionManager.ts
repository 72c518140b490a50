/**
 * Keeps one engine LoopSession per host task, feeds it the host's events, applies the action
 * policy (warn-only, automatic, ask first) and carries interventions out through the adapter.
 * It also keeps what the UI shows: a bounded timeline, the interventions with their outcome and
 * the tokens spent inside loops. No vscode import: unit-tested with a fake adapter in plain Node.
 */
import type { ActionOutcome, Remedy } from "../hosts/hostAdapter";
import type { DetectorStatus, Evidence } from "../engine/detector";
import type { EngineConfig } from "../engine/config";
import { defaultConfig } from "../engine/config";
import { DETECTOR_DEFINITIONS } from "../engine/detectors";
import type { TraceEvent, Usage } from "../engine/events";
import { LoopSession, type Intervention, type SessionStats } from "../engine/session";
import { BoundedMap } from "../engine/boundedMap";
import { describeCall } from "../engine/ledger";
import { Emitter, type Disposable, type HostAdapter, type HostSessionEvent, type HostStatus, type Subscribe } from "../hosts/hostAdapter";
import type { ActionPolicy } from "./settings";
import { canonicalJson } from "../engine/json";
import type { InterventionPhase } from "./stateWords";

export interface LogSink {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  debug(message: string): void;
}

/**
 * The user's answer when the policy is "ask first"; "later": they went to the details and may
 * answer in the panel; "superseded": a stronger step was asked before they answered this one.
 */
export type ConfirmAnswer = "act" | "ignore" | "dismiss" | "later" | "superseded";

export interface ManagerDeps {
  log: LogSink;
  /** Asks the user whether to carry out an intervention (policy "ask"). */
  confirm(session: SessionSummary, intervention: Intervention, record: InterventionRecord): Promise<ConfirmAnswer>;
  /** Tells the user where an intervention stands now (a notification); never blocks. */
  notify?(session: SessionSummary, record: InterventionRecord): void;
  now?(): number;
}

export interface ManagerSettings {
  engine: EngineConfig;
  actionPolicy: ActionPolicy;
  /** Per-host overrides of actionPolicy, by host id. */
  hostPolicies?: Record<string, ActionPolicy>;
}

export type AlertLevel = "none" | "warning" | "intervened";

export interface TimelineEntry {
  /** Event index in the session (0-based), the unit of evidence. */
  index: number;
  /** For requests: the last event index that belongs to it. */
  endIndex?: number;
  kind: "user" | "request" | "tool" | "echo";
  label: string;
  /** For tool calls: how many times this exact call has been made in the session so far. */
  repeat?: number;
  /** For tool calls: the outcome, once known. */
  ok?: boolean;
  /** For requests: characters of reasoning and text streamed. */
  chars?: number;
  tokens?: number;
  cost?: number;
  ts?: number;
  /** Part of an intervention's evidence. */
  flagged?: boolean;
}

export interface InterventionRecord {
  id: number;
  event: number;
  detector: string;
  detectorTitle: string;
  action: Intervention["action"];
  summary: string;
  message: string;
  key: string;
  evidence: Evidence;
  /** Where it stands (stateWords() says it in words). */
  phase: InterventionPhase;
  /** The host's own account of what was done, in a sentence ("cancelled the request, sent guidance"). */
  outcome: string;
  ok?: boolean;
  /** Whether the model got the guidance, as far as the host shows it ("pending" until it does). */
  delivery?: "pending" | "delivered" | "undelivered";
  ts?: number;
  ignored: boolean;
  /** Phase "unavailable": why the host cannot act on this task here, and what would make it possible. */
  remedy?: Remedy;
}

export interface SessionSummary {
  key: string;
  hostId: string;
  hostLabel: string;
  taskId: string;
  title: string;
  replay: boolean;
}

export interface UsageTotals { tokens: number; cost: number; requests: number }

export interface SessionSnapshot extends SessionSummary {
  alert: AlertLevel;
  stats: SessionStats;
  detectors: Array<DetectorStatus & { title: string }>;
  timeline: TimelineEntry[];
  interventions: InterventionRecord[];
  /** Tokens and cost of the requests that make up detected loops. */
  spentInLoops: UsageTotals;
  /** Estimate: a loop that was aborted or stopped would have run as long again (in a replay: would have been). */
  savedEstimate: UsageTotals;
  lastActivity: number;
  /** The host stopped this task and can take a message to resume it (the only time resuming is offered). */
  canResume: boolean;
}

export type OverallState =
  | { kind: "disabled" }
  | { kind: "no-host"; hosts: HostStatus[] }
  | { kind: "watching"; sessions: number; hosts: HostStatus[] }
  | { kind: "warning" | "intervened"; sessions: number; hosts: HostStatus[]; latest: { session: SessionSummary; intervention: InterventionRecord } };

/** Sessions kept at once; the least recently active is forgotten first. */
export const MAX_SESSIONS = 64;
/** Timeline entries kept per session (oldest dropped). */
export const MAX_TIMELINE = 400;
/** Interventions kept per session. */
export const MAX_INTERVENTIONS = 50;
/** Per-request usage records kept per session, for the loop cost figures. */
export const MAX_REQUEST_RECORDS = 2048;
/** A user message equal to guidance we sent within this window is our own echo, not the user. */
export const ECHO_WINDOW_MS = 10 * 60_000;
const MAX_REMEMBERED_GUIDANCE = 8;
const MAX_TRACKED_CALLS = 2048;
export const REPLAY_HOST_ID = "replay";

interface RequestRecord { start: number; end: number; tokens: number; cost: number }

class SessionState {
  readonly engine: LoopSession;
  title: string;
  alert: AlertLevel = "none";
  eventIndex = -1;
  lastActivity: number;
  /** When the task was first seen (tells apart tasks that share a name). */
  readonly started: number;
  readonly timeline: TimelineEntry[] = [];
  readonly interventions: InterventionRecord[] = [];
  readonly requests: RequestRecord[] = [];
  readonly callCounts = new BoundedMap<string, number>(MAX_TRACKED_CALLS);
  readonly callEntries = new BoundedMap<string, TimelineEntry>(MAX_TRACKED_CALLS);
  readonly sentGuidance: Array<{ text: string; at: number }> = [];
  currentRequest: TimelineEntry | undefined;
  /** The task was told once what would let Loop Sentinel act on it (later rungs say nothing new). */
  remedyNotified = false;
  /** Actions on one task run one after another, in order. */
  actionChain: Promise<void> = Promise.resolve();

  constructor(readonly summary: SessionSummary, config: EngineConfig, now: number) {
    this.engine = new LoopSession(config);
    this.title = summary.title;
    this.lastActivity = now;
    this.started = now;
  }
}

function normaliseText(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

function usageTokens(u: Usage): number {
  return (u.tokensIn ?? 0) + (u.tokensOut ?? 0);
}

export class SessionManager implements Disposable {
  private readonly sessions = new Map<string, SessionState>();
  private readonly adapters = new Map<string, HostAdapter>();
  private readonly subscriptions: Disposable[] = [];
  private readonly changed = new Emitter<void>();
  private settings: ManagerSettings = { engine: defaultConfig(), actionPolicy: "automatic" };
  private nextInterventionId = 1;
  /** Questions still open (policy "ask"), by intervention id: the notification or the panel answers them. */
  private readonly asks = new Map<number, { s: SessionState; record: InterventionRecord; iv: Intervention }>();
  private disposed = false;
  private readonly now: () => number;
  /** Fires after anything the UI shows has changed (the UI coalesces). */
  readonly onDidChange: Subscribe<void> = this.changed.subscribe;

  constructor(private readonly deps: ManagerDeps) {
    this.now = deps.now ?? Date.now;
  }

  configure(settings: ManagerSettings): void {
    this.settings = settings;
    for (const s of this.sessions.values()) s.engine.configure(settings.engine);
    this.changed.fire();
  }

  get config(): ManagerSettings { return this.settings; }

  /** Connects adapters; each is started without waiting (start() never throws). */
  addAdapters(adapters: HostAdapter[]): void {
    for (const adapter of adapters) {
      if (this.adapters.has(adapter.hostId)) { this.deps.log.warn(`host ${adapter.hostId} registered twice; the second is ignored`); continue; }
      this.adapters.set(adapter.hostId, adapter);
      this.subscriptions.push(adapter.onEvent((e) => this.handleEvent(e)));
      this.subscriptions.push(adapter.onStatusChange((s) => {
        this.deps.log.info(`${s.label}: ${s.state} — ${s.detail}`);
        this.changed.fire();
      }));
      adapter.start().catch((err) => this.deps.log.error(`${adapter.label}: start failed: ${String(err)}`));
    }
    this.changed.fire();
  }

  hostStatuses(): HostStatus[] {
    const out: HostStatus[] = [];
    for (const a of this.adapters.values()) {
      try { out.push(a.status()); } catch (err) { out.push({ hostId: a.hostId, label: a.label, state: "error", detail: String(err), sessions: 0 }); }
    }
    return out;
  }

  /** Feeds one host event; never throws (a bad event is logged and skipped). */
  handleEvent(e: HostSessionEvent): void {
    if (this.disposed) return;
    try {
      this.ingest(e);
    } catch (err) {
      this.deps.log.error(`event from ${e.hostId}/${e.taskId} skipped: ${(err as Error).stack ?? String(err)}`);
    }
  }

  private sessionFor(hostId: string, taskId: string, title: string | undefined, replay = false): SessionState {
    const key = `${hostId}:${taskId}`;
    let s = this.sessions.get(key);
    if (!s) {
      const hostLabel = replay ? "Replay" : this.adapters.get(hostId)?.label ?? hostId;
      s = new SessionState({ key, hostId, hostLabel, taskId, title: title ?? taskId, replay }, this.settings.engine, this.now());
      this.sessions.set(key, s);
      this.evictIfFull();
      if (!replay) this.deps.log.info(`${hostLabel}: watching task ${taskId}`);
    }
    if (title && s.title === s.summary.taskId) s.title = title;
    return s;
  }

  private evictIfFull(): void {
    if (this.sessions.size <= MAX_SESSIONS) return;
    let oldest: SessionState | undefined;
    for (const s of this.sessions.values()) if (!oldest || s.lastActivity < oldest.lastActivity) oldest = s;
    if (oldest) this.sessions.delete(oldest.summary.key);
  }

  private ingest(e: HostSessionEvent, replay = false): void {
    const s = this.sessionFor(e.hostId, e.taskId, e.title, replay);
    const ev = e.event;
    s.lastActivity = this.now();
    if (ev.t === "user" && this.isOwnEcho(s, ev.text)) {
      // Our guidance coming back through the host: it is not the user speaking, counts must stay.
      this.pushTimeline(s, { index: s.eventIndex + 1, kind: "echo", label: "guidance delivered", ts: ev.ts });
      this.changed.fire();
      e.onInterventions?.([]);
      return;
    }
    s.eventIndex++;
    this.recordForTimeline(s, ev);
    let interventions: Intervention[];
    try {
      const faultsBefore = s.engine.faults.count;
      interventions = s.engine.push(ev);
      // A detector that failed on this event: the event still counted for the others; say so once per event.
      if (s.engine.faults.count > faultsBefore) this.deps.log.error(`detector failed on ${s.summary.key} event ${s.eventIndex} (${s.engine.faults.count} so far; the first: ${s.engine.faults.first})`);
    } catch (err) {
      this.deps.log.error(`engine failed on ${s.summary.key} event ${s.eventIndex}: ${(err as Error).stack ?? String(err)}`);
      interventions = [];
    }
    if (ev.t === "user" && this.settings.engine.resetOnUserMessage) s.alert = "none";
    // Before the actions start: a host that carries them itself (Cline's hook) marks them first.
    try { e.onInterventions?.(interventions); } catch (err) { this.deps.log.error(`${e.hostId}: intervention listener failed: ${String(err)}`); }
    for (const iv of interventions) this.onIntervention(s, iv);
    this.changed.fire();
  }

  private isOwnEcho(s: SessionState, text: string): boolean {
    const t = normaliseText(text);
    const cutoff = this.now() - ECHO_WINDOW_MS;
    const i = s.sentGuidance.findIndex((g) => g.at >= cutoff && (g.text === t || t.includes(g.text)));
    if (i < 0) return false;
    s.sentGuidance.splice(i, 1);
    return true;
  }

  private pushTimeline(s: SessionState, entry: TimelineEntry): void {
    s.timeline.push(entry);
    if (s.timeline.length > MAX_TIMELINE) s.timeline.splice(0, s.timeline.length - MAX_TIMELINE);
  }

  private currentRequestRecord(s: SessionState): RequestRecord | undefined {
    return s.requests[s.requests.length - 1];
  }

  private addUsage(s: SessionState, u: Usage | undefined): void {
    if (!u) return;
    const rec = this.currentRequestRecord(s);
    const entry = s.currentRequest;
    const tokens = usageTokens(u);
    const cost = u.cost ?? 0;
    if (rec) { rec.tokens += tokens; rec.cost += cost; }
    if (entry) { entry.tokens = (entry.tokens ?? 0) + tokens; entry.cost = (entry.cost ?? 0) + cost; }
  }

  private recordForTimeline(s: SessionState, ev: TraceEvent): void {
    const i = s.eventIndex;
    const rec = this.currentRequestRecord(s);
    if (rec) rec.end = i;
    if (s.currentRequest) s.currentRequest.endIndex = i;
    switch (ev.t) {
      case "user":
        s.currentRequest = undefined;
        if (s.title === s.summary.taskId) s.title = normaliseText(ev.text).slice(0, 80) || s.title;
        this.pushTimeline(s, { index: i, kind: "user", label: normaliseText(ev.text).slice(0, 160), ts: ev.ts });
        break;
      case "request": {
        const entry: TimelineEntry = { index: i, endIndex: i, kind: "request", label: ev.model ?? "", chars: 0, ts: ev.ts };
        s.currentRequest = entry;
        s.requests.push({ start: i, end: i, tokens: 0, cost: 0 });
        if (s.requests.length > MAX_REQUEST_RECORDS) s.requests.shift();
        this.pushTimeline(s, entry);
        this.addUsage(s, ev.usage);
        break;
      }
      case "reasoning":
      case "text":
        if (s.currentRequest) s.currentRequest.chars = (s.currentRequest.chars ?? 0) + ev.delta.length;
        break;
      case "tool_call": {
        if (!rec) s.requests.push({ start: i, end: i, tokens: 0, cost: 0 });
        const identity = `${ev.name}\u0000${canonicalJson(ev.input)}`;
        const repeat = (s.callCounts.get(identity) ?? 0) + 1;
        s.callCounts.set(identity, repeat);
        const target = ["path", "file_path", "command", "regex", "pattern", "query", "url"].map((k) => ev.input[k]).find((v) => typeof v === "string") as string | undefined;
        const entry: TimelineEntry = { index: i, kind: "tool", label: describeCall({ name: ev.name, target, input: ev.input }, 120), repeat, ts: ev.ts };
        s.callEntries.set(ev.id, entry);
        this.pushTimeline(s, entry);
        break;
      }
      case "tool_result": {
        const entry = s.callEntries.peek(ev.id);
        if (entry) entry.ok = ev.ok;
        break;
      }
      case "end":
        this.addUsage(s, ev.usage);
        break;
    }
  }

  private onIntervention(s: SessionState, iv: Intervention): void {
    const def = DETECTOR_DEFINITIONS.find((d) => d.id === iv.detector);
    const record: InterventionRecord = {
      id: this.nextInterventionId++, event: iv.event, detector: iv.detector, detectorTitle: def?.shortTitle ?? iv.detector,
      action: iv.action, summary: iv.summary, message: iv.message, key: iv.key, evidence: iv.evidence, phase: "acting", outcome: "", ts: iv.ts, ignored: false,
    };
    s.interventions.push(record);
    if (s.interventions.length > MAX_INTERVENTIONS) s.interventions.shift();
    const level: AlertLevel = iv.action === "warn" ? "warning" : "intervened";
    if (level === "intervened" || s.alert === "none") s.alert = level;
    this.deps.log.info(`${s.summary.hostLabel} task ${s.summary.taskId}: ${iv.detector} → ${iv.action.toUpperCase()} at event ${iv.event}: ${iv.summary}`);

    if (s.summary.replay) { record.phase = "replay"; record.outcome = "recorded session: nothing sent"; return; }
    if (this.settings.engine.mode === "warnOnly") {
      record.phase = "shown";
      record.outcome = "warn-only mode: shown here, nothing sent to the agent";
      this.deps.notify?.(s.summary, record);
      return;
    }
    let handled: ActionOutcome | undefined;
    try { handled = this.adapters.get(s.summary.hostId)?.handledByHost?.(s.summary.taskId, iv); } catch { handled = undefined; }
    if (handled) {
      // Done already, by the user's consent to the host's guard: nothing to ask or send.
      this.settle(record, handled);
      // A host that shows when its guidance arrived (the stream guard: a request carrying it was answered).
      if (handled.delivery) this.followDelivery(s, record, iv, handled.delivery);
      else if (iv.action === "warn" && handled.ok) record.delivery = "delivered";
      this.deps.notify?.(s.summary, record);
      return;
    }
    let remedy: Remedy | undefined;
    try { remedy = this.adapters.get(s.summary.hostId)?.cannotAct?.(s.summary.taskId, iv); } catch { remedy = undefined; }
    if (remedy) {
      // Nothing to ask or try: an action that cannot work here is never offered. The user hears once
      // per task what would make it possible; the later rungs are on the card and the status bar.
      record.phase = "unavailable";
      record.outcome = `${remedy.why} Nothing was sent.`;
      record.remedy = remedy;
      if (!s.remedyNotified) { s.remedyNotified = true; this.deps.notify?.(s.summary, record); }
      return;
    }
    if ((this.settings.hostPolicies?.[s.summary.hostId] ?? this.settings.actionPolicy) === "ask") {
      record.phase = "asking";
      record.outcome = "nothing sent: waiting for your answer";
      // One open question per task, always the latest step: an earlier one's button (in the panel,
      // the tooltip or a notification) must never carry out a step the loop has gone past.
      for (const [id, other] of this.asks) {
        if (other.s !== s) continue;
        this.asks.delete(id);
        other.record.phase = "superseded";
        other.record.outcome = "a stronger step was asked instead; nothing sent for this one";
      }
      this.asks.set(record.id, { s, record, iv });
      void this.deps.confirm(s.summary, iv, { ...record }).then(
        (answer) => this.answer(s.summary.key, record.id, answer),
        (err) => { this.asks.delete(record.id); record.phase = "failed"; record.ok = false; record.outcome = `could not ask you: ${String(err)}`; this.changed.fire(); });
      return;
    }
    this.queueAction(s, record, iv);
  }

  /**
   * Answers an open question (from its notification or the panel); the first answer counts, a
   * question already answered is left as it is. Returns whether the answer was taken.
   */
  answer(sessionKey: string, interventionId: number, answer: ConfirmAnswer): boolean {
    const open = this.asks.get(interventionId);
    if (!open || open.s.summary.key !== sessionKey || answer === "later") return false;
    this.asks.delete(interventionId);
    const { s, record, iv } = open;
    switch (answer) {
      case "act":
        this.queueAction(s, record, iv);
        // The earlier questions on this task are moot once a later step is taken.
        for (const [id, other] of this.asks) {
          if (other.s !== s || id > interventionId) continue;
          this.asks.delete(id);
          other.record.phase = "superseded";
          other.record.outcome = "a later step was taken instead; nothing sent for this one";
        }
        break;
      case "ignore": record.phase = "ignored"; record.outcome = "you chose to ignore this pattern; nothing sent"; this.ignore(sessionKey, iv.key); break;
      case "superseded": record.phase = "superseded"; record.outcome = "a stronger step was asked instead; nothing sent for this one"; break;
      default: record.phase = "dismissed"; record.outcome = "dismissed by you; nothing sent"; break;
    }
    this.changed.fire();
    return true;
  }

  /** Phase and account from the host's answer: past tense only for what it confirmed. */
  private settle(record: InterventionRecord, outcome: ActionOutcome): void {
    record.outcome = outcome.done;
    record.ok = outcome.ok;
    if (!outcome.ok) record.phase = "failed";
    // Guidance the host took but has not passed on yet (held until it waits, or in transit) is not a warning given.
    else if (outcome.deferred || (record.action === "warn" && outcome.delivery)) record.phase = "pending";
    else record.phase = "done";
  }

  private queueAction(s: SessionState, record: InterventionRecord, iv: Intervention): void {
    const adapter = this.adapters.get(s.summary.hostId);
    if (!adapter) { record.phase = "failed"; record.outcome = "host not connected: nothing sent"; record.ok = false; return; }
    record.phase = "acting";
    record.outcome = "sending…";
    // Remember the guidance before sending: the host may echo it back before act() resolves.
    this.rememberGuidance(s, iv.message);
    s.actionChain = s.actionChain.then(async () => {
      let outcome;
      try {
        outcome = await adapter.act(s.summary.taskId, iv);
      } catch (err) {
        outcome = { done: `failed: ${(err as Error).message ?? String(err)}`, ok: false };
      }
      this.settle(record, outcome);
      (outcome.ok ? this.deps.log.info : this.deps.log.warn).call(this.deps.log, `${s.summary.hostLabel} task ${s.summary.taskId}: ${iv.action} → ${outcome.done}`);
      this.deps.notify?.(s.summary, record);
      if (outcome.delivery) this.followDelivery(s, record, iv, outcome.delivery);
      this.changed.fire();
    });
  }

  /** Outside the action chain: a later action must not wait for the host to show this one arrived. */
  private followDelivery(s: SessionState, record: InterventionRecord, iv: Intervention, delivery: Promise<ActionOutcome>): void {
    record.delivery = "pending";
    delivery.then(
      (final) => {
        record.outcome = final.done;
        record.ok = final.ok;
        record.delivery = final.ok ? "delivered" : "undelivered";
        // A warning is its guidance; a stronger action happened whatever became of the guidance after it.
        if (iv.action === "warn") record.phase = final.ok ? "done" : "failed";
        (final.ok ? this.deps.log.info : this.deps.log.warn).call(this.deps.log, `${s.summary.hostLabel} task ${s.summary.taskId}: ${iv.action} → ${final.done}`);
        if (!final.ok) this.deps.notify?.(s.summary, record);
        this.changed.fire();
      },
      (err: unknown) => {
        record.outcome = `delivery unknown: ${String(err)}`;
        record.ok = false;
        record.delivery = "undelivered";
        if (iv.action === "warn") record.phase = "failed";
        this.changed.fire();
      },
    );
  }

  private rememberGuidance(s: SessionState, text: string): void {
    const t = normaliseText(text);
    if (!t) return;
    s.sentGuidance.push({ text: t, at: this.now() });
    if (s.sentGuidance.length > MAX_REMEMBERED_GUIDANCE) s.sentGuidance.shift();
  }

  /** Forget all counts of one session (or all sessions), and clear its alert. */
  reset(sessionKey?: string): void {
    const targets = sessionKey ? [this.sessions.get(sessionKey)].filter((s): s is SessionState => !!s) : [...this.sessions.values()];
    for (const s of targets) { s.engine.reset(); s.alert = "none"; }
    this.deps.log.info(sessionKey ? `detectors reset for ${sessionKey}` : `detectors reset for all ${targets.length} session(s)`);
    this.changed.fire();
  }

  /** Never intervene again on this pattern in this session. */
  ignore(sessionKey: string, patternKey: string): boolean {
    const s = this.sessions.get(sessionKey);
    if (!s) return false;
    s.engine.ignore(patternKey);
    for (const r of s.interventions) if (r.key === patternKey) r.ignored = true;
    if (s.interventions.every((r) => r.ignored)) s.alert = "none";
    this.deps.log.info(`${sessionKey}: pattern ignored from now on: ${patternKey}`);
    this.changed.fire();
    return true;
  }

  /** A live task whose latest step was a stop the host confirmed: it waits for a message. */
  private canResume(s: SessionState): boolean {
    const last = s.interventions.at(-1);
    return !s.summary.replay && this.adapters.has(s.summary.hostId) && last?.action === "stop" && last.phase === "done";
  }

  /** Sends the user's guidance to a task (answers a stopped task's resume question). */
  async resumeWithGuidance(sessionKey: string, guidance: string): Promise<{ done: string; ok: boolean }> {
    const s = this.sessions.get(sessionKey);
    if (!s) return { done: "no such session", ok: false };
    const adapter = this.adapters.get(s.summary.hostId);
    if (!adapter || s.summary.replay) return { done: "this session has no live host to send to", ok: false };
    const last = s.interventions[s.interventions.length - 1];
    const iv: Intervention = {
      event: s.eventIndex, detector: (last?.detector ?? DETECTOR_DEFINITIONS[0].id) as Intervention["detector"], action: "warn",
      message: guidance, evidence: last?.evidence ?? { events: [], count: 0 }, key: last?.key ?? "user-guidance", summary: "guidance from you",
    };
    this.rememberGuidance(s, guidance);
    s.engine.reset();
    s.alert = "none";
    let outcome;
    try { outcome = await adapter.act(s.summary.taskId, iv); } catch (err) { outcome = { done: `failed: ${String(err)}`, ok: false }; }
    this.deps.log.info(`${sessionKey}: your guidance → ${outcome.done}`);
    this.changed.fire();
    return outcome;
  }

  /** Runs a recorded session through the engine and keeps it as a (read-only) session. */
  addReplay(name: string, events: readonly TraceEvent[]): string {
    const taskId = `${name}#${this.nextInterventionId++}`;
    for (const event of events) this.ingest({ hostId: REPLAY_HOST_ID, taskId, title: name, event }, true);
    const key = `${REPLAY_HOST_ID}:${taskId}`;
    if (!this.sessions.has(key)) this.sessionFor(REPLAY_HOST_ID, taskId, name, true);
    this.changed.fire();
    return key;
  }

  /** Every session, most recently active first, without the heavy parts (for lists). */
  summaries(): Array<SessionSummary & { alert: AlertLevel; lastActivity: number; started: number }> {
    // Ties (a replay's events all arrive in one tick) go to the later started.
    return [...this.sessions.values()].map((s, order) => ({ s, order })).sort((a, b) => b.s.lastActivity - a.s.lastActivity || b.order - a.order)
      .map(({ s }) => ({ ...s.summary, title: s.title, alert: s.alert, lastActivity: s.lastActivity, started: s.started }));
  }

  /** The session's latest intervention (a copy), without a whole snapshot. */
  latestIntervention(sessionKey: string): InterventionRecord | undefined {
    const r = this.sessions.get(sessionKey)?.interventions.at(-1);
    return r && { ...r };
  }

  snapshot(sessionKey: string): SessionSnapshot | undefined {
    const s = this.sessions.get(sessionKey);
    return s ? this.snapshotOf(s) : undefined;
  }

  snapshots(): SessionSnapshot[] {
    return [...this.sessions.values()].sort((a, b) => b.lastActivity - a.lastActivity).map((s) => this.snapshotOf(s));
  }

  private snapshotOf(s: SessionState): SessionSnapshot {
    const titles = new Map(DETECTOR_DEFINITIONS.map((d) => [d.id, d.shortTitle]));
    const evidence = new Set<number>();
    for (const r of s.interventions) for (const i of r.evidence.events) evidence.add(i);
    // A request is highlighted for evidence in its own stream; its tool calls are highlighted by themselves.
    const toolIndexes = new Set(s.timeline.filter((e) => e.kind === "tool").map((e) => e.index));
    const timeline = s.timeline.map((e) => {
      const end = e.endIndex ?? e.index;
      let flagged = false;
      if (e.kind === "tool") flagged = evidence.has(e.index);
      else if (e.kind === "request") for (const i of evidence) if (i >= e.index && i <= end && !toolIndexes.has(i)) { flagged = true; break; }
      return { ...e, flagged };
    });
    const { spent, saved } = this.loopUsage(s);
    return {
      ...s.summary,
      title: s.title,
      alert: s.alert,
      stats: s.engine.stats(),
      detectors: s.engine.detectorStatus().map((d) => ({ ...d, title: titles.get(d.id) ?? d.id })),
      timeline,
      interventions: s.interventions.map((r) => ({ ...r })),
      spentInLoops: spent,
      savedEstimate: saved,
      lastActivity: s.lastActivity,
      canResume: this.canResume(s),
    };
  }

  /**
   * Requests inside a loop: from the request of its first repetition (the second evidence event:
   * the first occurrence was legitimate work) to the intervention.
   */
  private loopUsage(s: SessionState): { spent: UsageTotals; saved: UsageTotals } {
    const spent: UsageTotals = { tokens: 0, cost: 0, requests: 0 };
    const saved: UsageTotals = { tokens: 0, cost: 0, requests: 0 };
    if (s.interventions.length === 0) return { spent, saved };
    const firstRepeat = (r: InterventionRecord) => {
      const sorted = [...r.evidence.events].sort((a, b) => a - b);
      return Math.min(r.event, sorted[1] ?? sorted[0] ?? r.event);
    };
    const ranges = s.interventions.map((r) => ({ from: firstRepeat(r), to: r.event, r }));
    const inRange = (q: RequestRecord, g: { from: number; to: number }) => q.end >= g.from && q.start <= g.to;
    for (const q of s.requests) {
      if (!ranges.some((g) => inRange(q, g))) continue;
      spent.tokens += q.tokens; spent.cost += q.cost; spent.requests++;
    }
    for (const g of ranges) {
      // Only what was cut short: aborted or stopped as the host confirmed (or, in a replay, would have been).
      if (!((g.r.phase === "done" || g.r.phase === "replay") && (g.r.action === "abort" || g.r.action === "stop"))) continue;
      for (const q of s.requests) if (inRange(q, g)) { saved.tokens += q.tokens; saved.cost += q.cost; saved.requests++; }
    }
    return { spent, saved };
  }

  overall(): OverallState {
    if (!this.settings.engine.enabled) return { kind: "disabled" };
    const hosts = this.hostStatuses();
    const live = [...this.sessions.values()].filter((s) => !s.summary.replay);
    const rank: Record<AlertLevel, number> = { none: 0, warning: 1, intervened: 2 };
    let latest: { s: SessionState; r: InterventionRecord } | undefined;
    for (const s of live) {
      const r = s.interventions[s.interventions.length - 1];
      if (s.alert === "none" || !r) continue;
      const better = !latest || rank[s.alert] > rank[latest.s.alert] || (rank[s.alert] === rank[latest.s.alert] && r.id > latest.r.id);
      if (better) latest = { s, r };
    }
    if (latest) {
      const kind = latest.s.alert as "warning" | "intervened";
      return { kind, sessions: live.length, hosts, latest: { session: { ...latest.s.summary, title: latest.s.title }, intervention: { ...latest.r } } };
    }
    if (!hosts.some((h) => h.state === "watching") && live.length === 0) return { kind: "no-host", hosts };
    return { kind: "watching", sessions: live.length, hosts };
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const d of this.subscriptions) d.dispose();
    this.subscriptions.length = 0;
    for (const a of this.adapters.values()) {
      try { a.dispose(); } catch (err) { this.deps.log.warn(`${a.label}: dispose failed: ${String(err)}`); }
    }
    this.adapters.clear();
    this.sessions.clear();
    this.changed.dispose();
  }
}
