/**
 * The engine inside an OpenCode-based agent's server (opencode, Kilo Code 7): one LoopSession per
 * session the translator follows, and the engine's verdicts carried out through the plugin's
 * powers. Pure apart from what it is given (actions, settings, clock, report sink), so the unit
 * tests drive it with recorded hook sequences and a fake client.
 *
 * How each rung lands in OpenCode:
 * - warn: appended to the tool result the model reads next in that turn (`tool.execute.after`),
 *   the result that caused it when a result did; nothing is sent when no tool runs before the turn
 *   ends. The engine judged that result before the warning was added: what Loop Sentinel adds is
 *   never part of what it judges.
 * - block: `tool.execute.before` throws the guidance; OpenCode records the call as failed with that
 *   text, and the model reads it as the call's result. The engine is not told that refusal as the
 *   call's answer (the call never ran): see OpencodeTranslator.refuse.
 * - abort: the session's running response is aborted, then the guidance is posted as the next
 *   user message, which starts a new response.
 * - stop: the session is aborted and the guidance posted without a reply (`noReply`): the agent
 *   waits for its user. A call being asked for at that moment is refused as well.
 * In warn-only mode the engine only warns, and nothing reaches the agent: the report shows it.
 */
import type { TraceEvent } from "../../engine/events";
import { LoopSession, type Intervention } from "../../engine/session";
import type { EngineConfig } from "../../engine/config";
import { BoundedMap } from "../../engine/boundedMap";
import { MAX_SESSIONS, OpencodeTranslator, type HookCall, type Translated } from "./translator";

/** What the plugin can do to a session through the server's authorised client. */
export interface SessionActions {
  abort(sessionId: string): Promise<void>;
  /** Posts a user message; with noReply the model is not asked to answer it. */
  prompt(sessionId: string, text: string, options: { noReply: boolean }): Promise<void>;
}

export interface GuardSettings {
  engine: EngineConfig;
  warnings: string[];
}

/** One line of the plugin's report (the local channel the extension and the tests read). */
export type GuardRecord =
  | { type: "started"; sessionId: string; title?: string; at: number }
  | { type: "intervention"; sessionId: string; action: Intervention["action"]; detector: string; summary: string; message: string; key: string; count: number; at: number }
  | { type: "outcome"; sessionId: string; action: Intervention["action"]; ok: boolean; done: string; at: number }
  | { type: "idle"; sessionId: string; interventions: number; toolCalls: number; requests: number; at: number }
  | { type: "config"; warnings: string[]; at: number }
  | { type: "error"; message: string; at: number }
  /** Every event of a followed session, for the extension's panel. */
  | { type: "event"; sessionId: string; event: TraceEvent };

export interface GuardDeps {
  actions: SessionActions;
  /** Read at each session start, so the extension's setting changes apply to the next session. */
  settings(): GuardSettings;
  report(record: GuardRecord): void;
  now(): number;
  /**
   * false when following the server's event stream from outside (`watch --opencode`): no hook can
   * refuse a call or carry a warning, so a block aborts the response and sends the guidance, and
   * a warning is only reported.
   */
  hooks?: boolean;
}

/** Thrown from `tool.execute.before` to refuse one call; OpenCode shows its message as the call's error. */
export class RefusedCall extends Error {}

/** Warnings held for the next tool result; more than this in one turn is noise. */
const MAX_PENDING_WARNINGS = 3;

interface Watched {
  engine: LoopSession;
  /** Warnings waiting for the next tool result of this turn. */
  warnings: string[];
  /** Actions on the session run one after another (an abort must land before its guidance). */
  chain: Promise<void>;
  /** A stop was carried out: nothing more until the user speaks. */
  stopped: boolean;
  /** Settles once the stop's abort has reached the server (or failed). */
  stopAborted?: Promise<void>;
  warnOnly: boolean;
  /** The settings it runs with, to notice the extension changing them. */
  settingsKey: string;
}

export class OpencodeGuard {
  private readonly translator: OpencodeTranslator;
  /** As many as the translator follows: a server running for days must not keep every session. */
  private readonly watched = new BoundedMap<string, Watched>(MAX_SESSIONS);
  private lastWarnings = "";
  /** The call `tool.execute.before` is asking about right now: only it can be refused. */
  private asking: string | undefined;

  constructor(private readonly deps: GuardDeps) {
    this.translator = new OpencodeTranslator(deps.hooks === false ? "parts" : "chat.message");
  }

  /** Every hook call but `tool.execute.before` (which can refuse) and `tool.execute.after` (which can carry a warning): those come through beforeTool and afterTool. */
  take(call: HookCall): void {
    try {
      for (const t of this.translator.take(call, this.deps.now())) this.apply(t);
    } catch (err) {
      this.deps.report({ type: "error", message: `while reading ${call.hook}: ${(err as Error).message}`, at: this.deps.now() });
    }
  }

  /** `tool.execute.before`: throws RefusedCall when the engine refuses this very call. */
  beforeTool(input: { tool?: unknown; sessionID?: unknown; callID?: unknown }, output: { args?: unknown }): void {
    let refusal: string | undefined;
    this.asking = typeof input.callID === "string" ? input.callID : undefined;
    try {
      for (const t of this.translator.take({ hook: "tool.execute.before", input, output }, this.deps.now())) {
        for (const iv of this.apply(t)) {
          if ((iv.action === "block" && iv.toolCallId === input.callID) || iv.action === "stop") refusal = iv.message;
        }
      }
    } catch (err) {
      this.deps.report({ type: "error", message: `while reading tool.execute.before: ${(err as Error).message}`, at: this.deps.now() });
    } finally {
      this.asking = undefined;
    }
    if (refusal === undefined) return;
    if (typeof input.sessionID === "string" && typeof input.callID === "string") this.translator.refuse(input.sessionID, input.callID);
    throw new RefusedCall(refusal);
  }

  /**
   * `tool.execute.after`: the engine judges the tool's own output (what is appended here never is
   * part of it), and a warning waiting in this session, one this very result caused included, goes
   * out with the result the model reads.
   */
  afterTool(input: { sessionID?: unknown }, output: { output?: unknown }): void {
    this.take({ hook: "tool.execute.after", input: input as Record<string, unknown>, output: output as Record<string, unknown> });
    const w = typeof input.sessionID === "string" ? this.watched.get(input.sessionID) : undefined;
    if (!w || w.warnings.length === 0 || typeof output.output !== "string") return;
    output.output = `${output.output}\n\n${w.warnings.join("\n")}`;
    const sent = w.warnings.length;
    w.warnings = [];
    this.deps.report({ type: "outcome", sessionId: input.sessionID as string, action: "warn", ok: true, done: `warning${sent > 1 ? "s" : ""} added to the ${String((input as { tool?: unknown }).tool ?? "tool")} result`, at: this.deps.now() });
  }

  /** Sessions followed now (for tests and the report). */
  sessions(): string[] { return [...this.watched.entries()].map(([id]) => id); }

  private apply(t: Translated): Intervention[] {
    switch (t.kind) {
      case "started": {
        const settings = this.deps.settings();
        const warnings = settings.warnings.join("\n");
        if (warnings && warnings !== this.lastWarnings) this.deps.report({ type: "config", warnings: settings.warnings, at: this.deps.now() });
        this.lastWarnings = warnings;
        this.watched.set(t.sessionId, { engine: new LoopSession(settings.engine), warnings: [], chain: Promise.resolve(), stopped: false, warnOnly: settings.engine.mode === "warnOnly", settingsKey: JSON.stringify(settings.engine) });
        this.deps.report({ type: "started", sessionId: t.sessionId, title: t.title, at: this.deps.now() });
        return [];
      }
      case "idle": {
        const w = this.watched.get(t.sessionId);
        if (!w) return [];
        w.warnings = [];
        const s = w.engine.stats();
        this.deps.report({ type: "idle", sessionId: t.sessionId, interventions: s.interventions, toolCalls: s.toolCalls, requests: s.requests, at: this.deps.now() });
        return [];
      }
      case "event": return this.push(t.sessionId, t.event);
    }
  }

  private push(sessionId: string, event: TraceEvent): Intervention[] {
    const w = this.watched.get(sessionId);
    if (!w) return [];
    if (event.t === "user") {
      w.stopped = false;
      w.warnings = [];
      // Settings changed since the session began (the extension wrote them): apply from this turn.
      const settings = this.deps.settings();
      const key = JSON.stringify(settings.engine);
      if (key !== w.settingsKey) {
        w.engine.configure(settings.engine);
        w.warnOnly = settings.engine.mode === "warnOnly";
        w.settingsKey = key;
      }
    }
    this.deps.report({ type: "event", sessionId, event });
    const interventions = w.engine.push(event);
    for (const iv of interventions) this.act(sessionId, w, iv);
    return interventions;
  }

  private act(sessionId: string, w: Watched, iv: Intervention): void {
    const at = this.deps.now();
    this.deps.report({ type: "intervention", sessionId, action: iv.action, detector: iv.detector, summary: iv.summary, message: iv.message, key: iv.key, count: iv.evidence.count, at });
    if (w.stopped) return;
    const outcome = (ok: boolean, done: string) => this.deps.report({ type: "outcome", sessionId, action: iv.action, ok, done, at: this.deps.now() });
    switch (iv.action) {
      case "warn":
        // In warn-only mode every verdict is a warning and the agent is never touched.
        if (w.warnOnly) { outcome(true, "warn-only mode: reported, nothing sent to the agent"); return; }
        if (this.deps.hooks === false) { outcome(true, "reported; a warning reaches the model only through the plugin"); return; }
        if (w.warnings.length < MAX_PENDING_WARNINGS) w.warnings.push(iv.message);
        return;
      case "block":
        // Refused by beforeTool's throw (it sees the same intervention). A call seen only once it
        // was running cannot be refused: the guidance goes with its result instead.
        if (this.asking !== undefined && this.asking === iv.toolCallId) { outcome(true, "refused the call; the model reads the reason as its result"); return; }
        if (this.deps.hooks === false) { this.abortThenGuide(sessionId, w, iv, outcome); return; }
        if (w.warnings.length < MAX_PENDING_WARNINGS) w.warnings.push(iv.message);
        outcome(false, "the call was already running: the guidance goes with its result");
        return;
      case "abort":
        this.abortThenGuide(sessionId, w, iv, outcome);
        return;
      case "stop": {
        w.stopped = true;
        let aborted = () => {};
        w.stopAborted = new Promise<void>((resolve) => { aborted = resolve; });
        this.chain(w, async () => {
          try { await this.deps.actions.abort(sessionId); } finally { aborted(); }
          this.translator.expectEcho(sessionId, iv.message);
          await this.deps.actions.prompt(sessionId, iv.message, { noReply: true });
          outcome(true, "stopped the session and left the reason for its user");
        }, (err) => outcome(false, `stop failed: ${err}`));
        return;
      }
    }
  }

  private abortThenGuide(sessionId: string, w: Watched, iv: Intervention, outcome: (ok: boolean, done: string) => void): void {
    this.chain(w, async () => {
      await this.deps.actions.abort(sessionId);
      this.translator.expectEcho(sessionId, iv.message);
      await this.deps.actions.prompt(sessionId, iv.message, { noReply: false });
      outcome(true, "aborted the response and sent the guidance as the next message");
    }, (err) => outcome(false, `${iv.action} failed: ${err}`));
  }

  private chain(w: Watched, run: () => Promise<void>, failed: (err: string) => void): void {
    w.chain = w.chain.then(run).catch((err: unknown) => failed((err as Error)?.message ?? String(err)));
  }

  /** Settles when every action queued so far has run (tests, and a clean shutdown). */
  /**
   * Before a call refused by a stop is handed back: waits (at most `ms`) for the stop's abort to
   * reach the server. Handed back first, the refused call's error lets OpenCode ask the model once
   * more before the abort lands (1 run in 4 on the real opencode 1.18.33).
   */
  async untilStopLands(sessionId: unknown, ms: number): Promise<void> {
    const landed = typeof sessionId === "string" ? this.watched.peek(sessionId)?.stopAborted : undefined;
    if (!landed) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([landed, new Promise<void>((resolve) => { timer = setTimeout(resolve, ms); })]);
    clearTimeout(timer);
  }

  async idle(): Promise<void> {
    await Promise.all([...this.watched.values()].map((w) => w.chain));
  }
}
