/**
 * The engine inside pi: one LoopSession for the pi session the extension runs in, fed by the
 * translator, and each verdict carried out through pi's own extension API. Pure apart from what
 * it is given (actions, settings, clock, report sink), so unit tests drive it with fake actions.
 *
 * How each rung lands in pi (verified against pi 0.73.1, see test/e2e/pi):
 * - warn: a message the model reads before its next request (`sendMessage`, delivered as
 *   "steer"). A warning about a call or its result goes at once (the run goes on to another
 *   request); one about the streamed text waits for the response's end and goes only when the
 *   response called a tool (steering a final answer would make pi ask the model once more).
 * - block: `tool_call` answers `{block: true, reason}`: the call does not run and the model reads
 *   the guidance as its result.
 * - abort (a thinking or text loop): `ctx.abort()` cuts the stream mid-response; the cut response
 *   is replaced at its `message_end` by a one-line marker (pi also leaves aborted responses out of
 *   the next request), and once pi is idle the guidance starts the next turn (`triggerTurn`).
 * - stop: the run is aborted (a call being asked for is refused), the reason is left in the
 *   session for the user and the model, and every further call is refused until the user's next
 *   prompt. pi stays open: the run ends, the user decides what comes next.
 * In warn-only mode the engine only warns, and nothing reaches the model: the user is told.
 * pi's print mode (`-p`, `--mode json`) exits when a run ends: an abort ends the run there and its
 * guidance never starts a turn (see the README).
 */
import type { EngineConfig } from "../../engine/config";
import type { TraceEvent } from "../../engine/events";
import { LoopSession, type Intervention } from "../../engine/session";
import { bounded } from "../../engine/printable";
import type { PiMessage, PiStreamPiece, PiToolCallEvent, PiToolResultEvent } from "./piApi";
import { PiTranslator } from "./translator";

export interface PiActions {
  /** Cuts the running response; true once pi is idle again, false when it did not get there in time. */
  abortAndWait(): Promise<boolean>;
  /** A message the model reads before its next request of the running turn. */
  steer(text: string): void;
  /** With pi idle: a message that starts the next turn. */
  resume(text: string): void;
  /** With pi idle: a message kept in the session (shown, and read with the user's next prompt); no turn. */
  leaveNote(text: string): void;
  /** Tells the user (pi's UI; nothing in print mode). */
  notify(text: string, level: "info" | "warning" | "error"): void;
  /** The footer status line (undefined clears it). */
  status(text: string | undefined): void;
}

export interface PiGuardSettings { engine: EngineConfig; warnings: string[] }

/** One line of the extension's report file. */
export type PiRecord =
  | { type: "loaded"; pid: number; cwd: string; settings: string; at: number }
  | { type: "config"; warnings: string[]; at: number }
  | { type: "intervention"; action: Intervention["action"]; detector: string; summary: string; message: string; key: string; count: number; request: number; at: number }
  | { type: "outcome"; action: Intervention["action"]; ok: boolean; done: string; at: number }
  | { type: "error"; message: string; at: number };

export interface PiGuardDeps {
  actions: PiActions;
  /** Read at each prompt (cheap: the file is read again only when it changed). */
  settings(): PiGuardSettings;
  report(record: PiRecord): void;
  now(): number;
}

/** What `/loop-sentinel` can switch for this pi process, over the settings file. */
export type PiOverride = "on" | "off" | "warn-only";

/** Warnings held for one response's end; more is noise. */
const MAX_HELD_WARNINGS = 3;
/** Interventions kept for `/loop-sentinel status`. */
const MAX_RECENT = 5;

/** The marker a cut response is replaced by (the looping text stays out of the session). */
export function cutMarker(summary: string): string {
  return `[Loop Sentinel cut this response: ${summary}]`;
}

export class PiGuard {
  private translator = new PiTranslator();
  private engine: LoopSession;
  /** The settings in force (the file's, with the command's switch over them). */
  private config: EngineConfig;
  private configKey: string;
  private override: PiOverride | undefined;
  private settingsWarnings = "";
  /** Warnings about the streamed text, waiting for the response's end. */
  private held: string[] = [];
  /** A response being cut: its marker replaces it at its end. */
  private cutting: { summary: string } | undefined;
  /** Stopped: every call is refused until the user's next prompt. */
  private stopped: string | undefined;
  private readonly recent: string[] = [];
  private interventions = 0;

  constructor(private readonly deps: PiGuardDeps) {
    this.config = this.effective();
    this.engine = new LoopSession(this.config);
    this.configKey = JSON.stringify(this.config);
    this.showState();
  }

  /** A prompt from the user: counts start afresh (the engine decides), the stop is lifted. */
  prompt(text: unknown): void {
    this.guarded("before_agent_start", () => {
      this.applySettings();
      this.stopped = undefined;
      this.held = [];
      this.cutting = undefined;
      this.push(this.translator.prompt(text, this.deps.now()), "result");
    });
  }

  messageStart(message: PiMessage | undefined): void {
    this.guarded("message_start", () => {
      if (message?.role === "assistant") this.cutting = undefined;
      this.push(this.translator.messageStart(message, this.deps.now()), "stream");
    });
  }

  messageUpdate(piece: PiStreamPiece | undefined): void {
    // After the cut, what still arrives is the same loop draining out.
    if (this.cutting) return;
    this.guarded("message_update", () => this.push(this.translator.messageUpdate(piece, this.deps.now()), "stream"));
  }

  /** Returns the message to keep in its place (a cut response's marker), or undefined. */
  messageEnd(message: PiMessage | undefined): PiMessage | undefined {
    return this.guarded("message_end", () => {
      if (message?.role !== "assistant") return undefined;
      const cutBefore = this.cutting;
      this.push(this.translator.messageEnd(message, this.deps.now()), "stream");
      const held = this.held;
      this.held = [];
      // A loop seen only as the response ended (its last line, the whole response): the response
      // is whole, so it is marked aborted in place, which keeps it out of the next request and
      // makes pi end the run here instead of running its calls; the guidance then resumes it.
      if (this.cutting && !cutBefore && message.stopReason !== "aborted") {
        return { ...message, content: [{ type: "text", text: cutMarker(this.cutting.summary) }], stopReason: "aborted" };
      }
      const aborted = message.stopReason === "aborted" || message.stopReason === "error";
      if (held.length > 0) {
        const calls = Array.isArray(message.content) && message.content.some((b) => (b as { type?: unknown })?.type === "toolCall");
        if (calls && !aborted) {
          for (const w of held) this.deps.actions.steer(w);
          this.outcome("warn", true, "the warning goes to the model before its next request");
        } else this.outcome("warn", false, "the response ended without a tool call: the warning was shown to you, not sent");
      }
      if (this.cutting && message.stopReason === "aborted") {
        return { ...message, content: [{ type: "text", text: cutMarker(this.cutting.summary) }] };
      }
      return undefined;
    });
  }

  /** `tool_call`: a refusal for this call, or undefined to let it run. */
  toolCall(e: PiToolCallEvent): { block: true; reason: string } | undefined {
    return this.guarded("tool_call", () => {
      if (this.stopped !== undefined) return { block: true as const, reason: this.stopped };
      const refusal = this.push(this.translator.toolCall(e, this.deps.now()), "call", e.toolCallId);
      if (refusal === undefined) return undefined;
      // pi reports no result for a refused call: it stands for the identical call's last answer.
      this.push(this.translator.refused(e.toolCallId, this.deps.now()), "result");
      return { block: true as const, reason: refusal };
    });
  }

  toolResult(e: PiToolResultEvent): void {
    this.guarded("tool_result", () => { this.push(this.translator.toolResult(e, this.deps.now()), "result"); });
  }

  // ---- /loop-sentinel ----

  setOverride(o: PiOverride): void {
    this.override = o;
    this.applySettings();
  }

  /** Forgets the counts (the user says what went before is fine). */
  reset(): void {
    this.engine.reset();
    this.stopped = undefined;
    this.held = [];
  }

  statusReport(settingsFile: string): string {
    const c = this.config;
    const s = this.engine.stats();
    const lines = [
      `Loop Sentinel: ${stateWords(c)}${this.override ? ` (/loop-sentinel ${this.override}, until pi ends)` : ""}`,
      `settings: ${settingsFile}${this.settingsWarnings ? ` (${this.settingsWarnings})` : ""}`,
      `this session: ${s.requests} requests, ${s.toolCalls} tool calls, ${this.interventions} interventions${this.stopped !== undefined ? "; stopped until your next prompt" : ""}`,
    ];
    if (this.recent.length > 0) lines.push("latest:", ...this.recent.map((r) => `  ${r}`));
    return lines.join("\n");
  }

  // ---- the ladder ----

  /**
   * Feeds events; acts on what the engine decides. `where` says what the events were: the
   * stream, the call pi is asking about (`callId`: the only one that can be refused), or
   * something else (a result, a prompt). Returns the refusal for that call, if any.
   */
  private push(events: TraceEvent[], where: "stream" | "call" | "result", callId?: string): string | undefined {
    const c = this.config;
    if (!c.enabled) return undefined;
    let refusal: string | undefined;
    for (const ev of events) {
      for (const iv of this.engine.push(ev)) {
        const r = this.act(iv, where, callId, c.mode === "warnOnly");
        if (r !== undefined) refusal = r;
      }
    }
    return refusal;
  }

  private act(iv: Intervention, where: "stream" | "call" | "result", callId: string | undefined, warnOnly: boolean): string | undefined {
    const at = this.deps.now();
    this.interventions++;
    const request = this.engine.stats().requests;
    this.deps.report({ type: "intervention", action: iv.action, detector: iv.detector, summary: iv.summary, message: iv.message, key: iv.key, count: iv.evidence.count, request, at });
    this.recent.push(`${iv.action} at request ${request}: ${bounded(iv.summary, 160)}`);
    if (this.recent.length > MAX_RECENT) this.recent.shift();
    if (this.stopped !== undefined) return undefined;
    const a = this.deps.actions;
    if (warnOnly) {
      a.notify(`Loop Sentinel (warn-only): ${iv.summary}`, "warning");
      this.outcome(iv.action, true, "warn-only: shown to you, nothing sent to the model");
      return undefined;
    }
    const isThisCall = where === "call" && callId !== undefined;
    switch (iv.action) {
      case "warn":
        a.notify(`Loop Sentinel warned the model: ${iv.summary}`, "warning");
        if (where === "stream") {
          if (this.held.length < MAX_HELD_WARNINGS) this.held.push(iv.message);
          return undefined;
        }
        a.steer(iv.message);
        this.outcome("warn", true, "the warning goes to the model before its next request");
        return undefined;
      case "block":
      case "abort":
        if (isThisCall && (iv.action === "abort" || iv.toolCallId === callId)) {
          a.notify(`Loop Sentinel refused a call: ${iv.summary}`, "warning");
          this.outcome(iv.action, true, "refused the call; the model reads the reason as its result");
          return iv.message;
        }
        if (where === "stream" && iv.action === "abort") {
          a.notify(`Loop Sentinel cut a looping response: ${iv.summary}`, "warning");
          this.cut(iv, "resume");
          return undefined;
        }
        // The call already ran (a verdict on its result): the guidance goes before the next request.
        a.steer(iv.message);
        this.outcome(iv.action, false, "the call had already run: the guidance goes to the model before its next request");
        return undefined;
      case "stop":
        this.stopped = iv.message;
        a.notify(`Loop Sentinel stopped the run: ${iv.summary}`, "error");
        this.cut(iv, "note");
        return isThisCall ? iv.message : undefined;
    }
  }

  /** Aborts the run; once pi is idle, resumes it with the guidance or leaves the stop's reason. */
  private cut(iv: Intervention, then: "resume" | "note"): void {
    this.cutting = { summary: iv.summary };
    const a = this.deps.actions;
    a.abortAndWait().then((idle) => {
      if (!idle) { this.outcome(iv.action, false, "the run was cut, but pi did not come back idle (print mode ends with the run): nothing more sent"); return; }
      if (then === "resume") {
        a.resume(iv.message);
        this.outcome(iv.action, true, "cut the response; the guidance starts the next turn");
      } else {
        a.leaveNote(iv.message);
        this.outcome(iv.action, true, "ended the run; the reason is left in the session, further calls refused until your next prompt");
      }
    }, (err: unknown) => this.outcome(iv.action, false, `abort failed: ${(err as Error)?.message ?? String(err)}`));
  }

  private outcome(action: Intervention["action"], ok: boolean, done: string): void {
    this.deps.report({ type: "outcome", action, ok, done, at: this.deps.now() });
  }

  // ---- settings ----

  private effective(): EngineConfig {
    const s = this.deps.settings();
    const warnings = s.warnings.join("; ");
    if (warnings && warnings !== this.settingsWarnings) {
      this.deps.report({ type: "config", warnings: s.warnings, at: this.deps.now() });
      this.deps.actions.notify(`Loop Sentinel settings: ${warnings}`, "warning");
    }
    this.settingsWarnings = warnings;
    const o = this.override;
    if (o === undefined) return s.engine;
    return { ...s.engine, enabled: o !== "off", mode: o === "warn-only" ? "warnOnly" : o === "on" ? "intervene" : s.engine.mode };
  }

  /** New settings (the file, or the command) apply from here; counts start afresh. */
  private applySettings(): void {
    const c = this.effective();
    const key = JSON.stringify(c);
    if (key !== this.configKey) {
      this.engine.configure(c);
      this.config = c;
      this.configKey = key;
    }
    this.showState();
  }

  /** Puts the state (on, off, warn-only) in pi's footer. */
  showState(): void {
    this.deps.actions.status(`loop-sentinel: ${stateWords(this.config)}`);
  }

  /** Runs one event's work; a failure is reported and never reaches pi (a throw in `tool_call` would refuse the call). */
  private guarded<T>(event: string, work: () => T): T | undefined {
    try {
      return work();
    } catch (err) {
      this.deps.report({ type: "error", message: `while handling ${event}: ${(err as Error)?.stack ?? String(err)}`, at: this.deps.now() });
      return undefined;
    }
  }
}

function stateWords(c: EngineConfig): string {
  if (!c.enabled) return "off";
  return c.mode === "warnOnly" ? "on, warn-only (tells you, sends nothing)" : "on";
}
