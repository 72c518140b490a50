/**
 * The stream guard as one more host of the extension (setting `loopSentinel.streamGuard.enabled`):
 * a guard on 127.0.0.1 per agent the user picked, each in front of the endpoint that agent used
 * before, and the agent pointed at it (pointing.ts) for as long as this window runs. Its sessions
 * go through the SessionManager like every host's: the manager's engine decides (GuardDeps.feed),
 * the guard carries the action out on the wire by itself (handledByHost), and a warning counts as
 * delivered only once a request carrying it was answered. Plain Node: no `vscode`.
 */
import type { EngineConfig } from "../../engine/config";
import type { TraceEvent } from "../../engine/events";
import type { Intervention } from "../../engine/session";
import { DETECTOR_DEFINITIONS } from "../../engine/detectors";
import { BoundedMap } from "../../engine/boundedMap";
import { HostEvents, type ActionOutcome, type HostAdapter, type HostEnvironment, type HostStatus } from "../hostAdapter";
import { StreamGuardProxy } from "./proxy";
import type { FeedSource, GuardRecord } from "./guard";
import { currentUpstream, pointAgentAt, restoreAgent, safeOrigin, type PointedAgent, type PointReport } from "./pointing";

export type GuardAgent = PointedAgent | "copilot";
export const GUARD_AGENTS: readonly GuardAgent[] = ["claude", "codex", "copilot"];
export const GUARD_AGENT_LABELS: Record<GuardAgent, string> = { claude: "Claude Code", codex: "Codex", copilot: "Copilot CLI" };
/** The Copilot CLI reads its own provider's endpoint from this variable only. */
export const COPILOT_VARIABLE = "COPILOT_PROVIDER_BASE_URL";

const TOOL_DETECTORS: ReadonlySet<string> = new Set(DETECTOR_DEFINITIONS.filter((d) => d.channel === "tool").map((d) => d.id));
/** Guidance outcomes waited on at once (a session's deliveries beyond this are dropped as unknown). */
const MAX_WAITING = 256;

export interface GuardReport { agent: GuardAgent; state: PointReport["state"]; detail: string }

export interface StreamGuardHostOptions {
  env: HostEnvironment;
  engineConfig(): EngineConfig;
  processEnv?: NodeJS.ProcessEnv;
  /** Loop Sentinel's hook guards this agent's tool calls (one finding, one intervention). */
  hookInstalled?(agent: GuardAgent): boolean;
  /** Sets (or, undefined, takes back) a variable of the terminals this window opens. */
  setTerminalVariable?(name: string, value: string | undefined): void;
}

interface Running { agent: GuardAgent; proxy: StreamGuardProxy; upstream: string; url: string; toolsByHook: boolean }

/**
 * What the guard does with a rung, said once it is done. The cut is made in the same moment the
 * engine decides (while the answer streams); a finding read from a request, or made when the answer
 * had ended by itself, has nothing left to cut or hold back: its guidance goes with the next request.
 */
export function guardOutcome(iv: Pick<Intervention, "action" | "detector">, toolsByHook: boolean, source: FeedSource = "stream"): { done: string; waits: boolean; ok?: false } {
  if (toolsByHook && TOOL_DETECTORS.has(iv.detector)) return { done: "left to Loop Sentinel's hook, which acts on this agent's tool calls", waits: false };
  const stop = "the session's next request is answered by the guard with the reason, and nothing more goes to the provider until you write again";
  if (source !== "stream") {
    if (iv.action === "stop") return { done: stop, waits: false };
    if (iv.action === "warn") return { done: "guidance to be added to the session's next request", waits: true };
    // Not carried out (the UI says "could not ..."): only its guidance follows.
    return { done: source === "request" ? "the call had already run when the guard read it in the next request; the guidance goes with that request" : "the response had already ended; the guidance goes with the next request", waits: true, ok: false };
  }
  switch (iv.action) {
    case "warn": return { done: "guidance to be added to the session's next request", waits: true };
    case "block": return { done: "ended the response before this call, so the agent never got it; the guidance goes with the next request", waits: true };
    case "abort": return { done: "cut the response mid-stream and ended the provider's request; the guidance goes with the next request", waits: true };
    case "stop": return { done: `cut the response; ${stop}`, waits: false };
  }
}

/** The outcome once a request carrying the guidance was answered by the provider. */
const DELIVERED: Record<Intervention["action"], string> = {
  warn: "added this guidance to the session's next request, which the provider answered",
  block: "ended the response before this call, so the agent never got it; the guidance went with the next request, which the provider answered",
  abort: "cut the response mid-stream and ended the provider's request; the guidance went with the next request, which the provider answered",
  stop: "cut the response; the session's next request is answered by the guard with the reason",
};

export class StreamGuardHost extends HostEvents implements HostAdapter {
  readonly hostId = "stream-guard";
  readonly label = "Stream guard";
  private readonly running = new Map<GuardAgent, Running>();
  private readonly agentOfSession = new BoundedMap<string, GuardAgent>(256);
  private readonly waiting = new Map<string, Array<{ resolve: (o: ActionOutcome) => void; delivered: string }>>();
  private waitingCount = 0;
  private current: HostStatus = { hostId: this.hostId, label: this.label, state: "inactive", detail: "off", sessions: 0 };
  private readonly penv: NodeJS.ProcessEnv;
  private chain: Promise<unknown> = Promise.resolve();
  private source: FeedSource = "stream";
  private readonly said = new Map<GuardAgent, string>();

  constructor(private readonly o: StreamGuardHostOptions) {
    super();
    this.penv = o.processEnv ?? process.env;
  }

  async start(): Promise<void> { this.refresh(); }

  /** The agents guarded now, and where each one's requests go on to. */
  guarded(): Array<{ agent: GuardAgent; upstream: string; url: string }> {
    return [...this.running.values()].map((r) => ({ agent: r.agent, upstream: r.upstream, url: r.url }));
  }

  /** Turns the guard on for these agents and off for the others (one call at a time). */
  apply(agents: readonly GuardAgent[]): Promise<GuardReport[]> {
    const next = this.chain.then(() => this.applyNow(agents));
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async applyNow(agents: readonly GuardAgent[]): Promise<GuardReport[]> {
    const reports: GuardReport[] = [];
    for (const agent of [...this.running.keys()]) if (!agents.includes(agent)) reports.push(await this.stopAgent(agent));
    for (const agent of agents) if (!this.running.has(agent)) reports.push(await this.startAgent(agent));
    // An agent that cannot be pointed is tried again at each settings change: said once until that changes.
    for (const r of reports) if (this.said.get(r.agent) !== r.detail) { this.said.set(r.agent, r.detail); this.o.env.log(`stream guard: ${r.detail}`); }
    this.refresh();
    return reports;
  }

  private async startAgent(agent: GuardAgent): Promise<GuardReport> {
    const label = GUARD_AGENT_LABELS[agent];
    let upstream: string | undefined;
    if (agent === "copilot") {
      upstream = this.penv[COPILOT_VARIABLE];
      if (!upstream || !this.o.setTerminalVariable) {
        return { agent, state: "not-configured", detail: `${label}: no ${COPILOT_VARIABLE} in VS Code's environment, so the Copilot CLI talks to GitHub's service, which the guard does not sit in front of (its own provider's endpoint is a variable only, no settings file); nothing changed` };
      }
    } else {
      const now = currentUpstream(agent, this.penv);
      if (!now.upstream) return { agent, state: agent === "claude" ? "unreadable" : "not-configured", detail: `${label}: ${now.detail}; nothing changed` };
      upstream = now.upstream;
    }
    let toolsByHook = false;
    try { toolsByHook = this.o.hookInstalled?.(agent) ?? false; } catch { toolsByHook = false; }
    let proxy: StreamGuardProxy;
    let url: string;
    try {
      proxy = new StreamGuardProxy({ upstream, config: () => this.o.engineConfig(), report: (r) => this.onRecord(agent, r), toolsByHook, feed: (key, _a, ev, source) => this.feed(key, agent, ev, source) });
      url = await proxy.listen();
    } catch (err) {
      return { agent, state: "unreadable", detail: `${label}: the guard could not start (${(err as Error).message}); nothing changed` };
    }
    if (agent === "copilot") {
      url = proxy.sessionUrl("copilot");
      this.o.setTerminalVariable!(COPILOT_VARIABLE, url);
      this.running.set(agent, { agent, proxy, upstream, url, toolsByHook });
      return { agent, state: "pointed", detail: `${label} started in VS Code's terminals now goes through the stream guard, on to ${safeOrigin(upstream)} (terminals opened before keep their old endpoint)` };
    }
    let pointed: PointReport;
    try { pointed = pointAgentAt(agent, url, this.penv); } catch (err) { pointed = { agent, file: "", state: "unreadable", detail: `${label}: could not change its settings: ${(err as Error).message}` }; }
    if (pointed.state !== "pointed") { await proxy.close(); return { agent, state: pointed.state, detail: pointed.detail }; }
    this.running.set(agent, { agent, proxy, upstream, url, toolsByHook });
    return { agent, state: "pointed", detail: `${pointed.detail}${toolsByHook ? "; tool calls left to Loop Sentinel's hook" : ""}` };
  }

  private async stopAgent(agent: GuardAgent): Promise<GuardReport> {
    const r = this.running.get(agent);
    this.running.delete(agent);
    let report: GuardReport;
    if (agent === "copilot") {
      this.o.setTerminalVariable?.(COPILOT_VARIABLE, undefined);
      report = { agent, state: "restored", detail: `${GUARD_AGENT_LABELS[agent]}: VS Code's terminals get the endpoint they had again` };
    } else {
      try { const back = restoreAgent(agent, this.penv); report = { agent, state: back.state, detail: back.detail }; } catch (err) { report = { agent, state: "unreadable", detail: `${GUARD_AGENT_LABELS[agent]}: could not put its settings back: ${(err as Error).message}` }; }
    }
    // After the files: an agent reading them now goes to its own endpoint, not to a closed port.
    await r?.proxy.close().catch(() => undefined);
    return report;
  }

  private feed(key: string, agent: GuardAgent, event: TraceEvent, source: FeedSource): Intervention[] {
    let caused: Intervention[] = [];
    // handledByHost is asked while this event is fed (the manager acts synchronously): it needs the source.
    this.source = source;
    if (!this.agentOfSession.peek(key)) { this.agentOfSession.set(key, agent); this.refresh(); }
    const id = key.replace(/^[a-z]+:/, "");
    try {
      this.eventEmitter.fire({ hostId: this.hostId, taskId: key, title: `${GUARD_AGENT_LABELS[agent]} ${id.slice(0, 8)} (stream)`, event, onInterventions: (ivs) => { caused = ivs; } });
    } finally { this.source = "stream"; }
    return caused;
  }

  private onRecord(agent: GuardAgent, r: GuardRecord): void {
    switch (r.type) {
      case "guidance": {
        const list = this.waiting.get(r.session);
        if (!list) return;
        this.waiting.delete(r.session);
        this.waitingCount -= list.length;
        for (const w of list) w.resolve({ done: w.delivered, ok: true });
        return;
      }
      case "cut": this.o.env.log(`stream guard (${GUARD_AGENT_LABELS[agent]}): cut the ${r.format} answer of ${r.session} after ${r.streamedChars} characters (${r.msFromFirstByte} ms in)${r.droppedCall ? `; ${r.droppedCall}` : ""}`); return;
      case "answered": this.o.env.log(`stream guard (${GUARD_AGENT_LABELS[agent]}): answered ${r.session} itself: ${r.why}`); return;
      case "left-to-plugin": this.o.env.log(`stream guard (${GUARD_AGENT_LABELS[agent]}): ${r.session} is guarded by Loop Sentinel's plugin in its server; passed through`); return;
      case "error": this.o.env.log(`stream guard (${GUARD_AGENT_LABELS[agent]}): ${r.message}`); return;
      default: return;
    }
  }

  private refresh(): void {
    const on = [...this.running.values()];
    const label = on.length ? `Stream guard for ${on.map((r) => GUARD_AGENT_LABELS[r.agent]).join(", ").replace(/, ([^,]*)$/, " and $1")}` : this.label;
    const next: HostStatus = on.length
      ? { hostId: this.hostId, label, state: "watching", detail: `their requests pass through a guard on this computer: ${on.map((r) => `${GUARD_AGENT_LABELS[r.agent]} on to ${safeOrigin(r.upstream)}`).join(", ")}`, sessions: this.agentOfSession.size }
      : { hostId: this.hostId, label, state: "inactive", detail: "off: no agent's requests go through it", sessions: this.agentOfSession.size };
    if (next.state === this.current.state && next.detail === this.current.detail && next.sessions === this.current.sessions && next.label === this.current.label) return;
    this.current = next;
    this.statusEmitter.fire(next);
  }

  status(): HostStatus { return this.current; }

  async act(taskId: string, iv: Intervention): Promise<ActionOutcome> { return this.handledByHost(taskId, iv); }

  handledByHost(taskId: string, iv: Intervention): ActionOutcome {
    const agent = this.agentOfSession.peek(taskId);
    const toolsByHook = agent ? this.running.get(agent)?.toolsByHook ?? false : false;
    const source = this.source;
    const { done, waits, ok = true } = guardOutcome(iv, toolsByHook, source);
    if (!waits || this.o.engineConfig().mode === "warnOnly") return { done, ok };
    if (this.waitingCount >= MAX_WAITING) return { done, ok };
    const delivery = new Promise<ActionOutcome>((resolve) => {
      const list = this.waiting.get(taskId) ?? [];
      list.push({ resolve, delivered: ok ? DELIVERED[iv.action] : `${done.replace(/; the guidance goes with (that|the next) request$/, "")}; its guidance went with the next request, which the provider answered` });
      this.waiting.set(taskId, list);
      this.waitingCount++;
    });
    // A warning is not given until the model got it; a cut or a refusal is done now, its guidance follows.
    return { done, ok, deferred: iv.action === "warn", delivery };
  }

  /**
   * Puts every agent back and closes the guards. Synchronous for the files (VS Code may end the
   * extension host right after deactivate): the agents must not be left pointed at a closed port.
   */
  dispose(): void {
    for (const agent of [...this.running.keys()]) {
      if (agent === "copilot") { this.o.setTerminalVariable?.(COPILOT_VARIABLE, undefined); continue; }
      try { this.o.env.log(`stream guard: ${restoreAgent(agent, this.penv).detail}`); } catch (err) { this.o.env.log(`stream guard: could not put ${GUARD_AGENT_LABELS[agent]}'s settings back: ${(err as Error).message}`); }
    }
    for (const r of this.running.values()) void r.proxy.close().catch(() => undefined);
    this.running.clear();
    for (const list of this.waiting.values()) for (const w of list) w.resolve({ done: "the stream guard was closed before the guidance went out", ok: false });
    this.waiting.clear();
    this.statusEmitter.dispose();
    this.eventEmitter.dispose();
  }
}
