/**
 * Kilo Code 7 and opencode in the extension: their sessions as the plugin inside their server
 * reports them (the append-only file in the user's state folder), so the status bar and the
 * diagnostics panel show them like any other host's. The plugin acts by itself inside the server;
 * this adapter's act() only waits for the plugin to say what it did. No vscode import.
 */
import * as fs from "node:fs";
import type { Intervention } from "../../engine/session";
import { isRecord } from "../../engine/json";
import { toTraceEvent } from "../../engine/events";
import { HostEvents, type ActionOutcome, type HostAdapter, type HostStatus } from "../hostAdapter";

export const PLUGIN_HOST_ID = "opencode-plugin";

export interface PluginReportOptions {
  reportFile: string;
  /** Where the plugin is installed now (folders), empty when not connected. */
  installedIn(): string[];
  log(line: string): void;
  pollMs?: number;
  /** How long act() waits for the plugin's own outcome. */
  outcomeWaitMs?: number;
}

/** Bytes read per poll at most: a burst is taken over several polls, never all at once. */
const MAX_READ_BYTES = 1024 * 1024;
/** Outcomes kept per session while they wait for the act() they answer. */
const MAX_OUTCOMES = 16;
/** Polls between checks of where the plugin is installed (a file read each). */
const INSTALL_CHECK_POLLS = 20;

interface Outcome { action: string; ok: boolean; done: string; taken: boolean }

export class PluginReportAdapter extends HostEvents implements HostAdapter {
  readonly hostId = PLUGIN_HOST_ID;
  readonly label = "Kilo Code 7 / opencode";
  private offset = 0;
  private partial = "";
  private timer: ReturnType<typeof setInterval> | undefined;
  private polls = 0;
  private installed: string[] = [];
  private readonly titles = new Map<string, string>();
  private readonly outcomes = new Map<string, Outcome[]>();
  private readonly waiting = new Set<() => void>();
  private current: HostStatus;

  constructor(private readonly options: PluginReportOptions) {
    super();
    this.current = { hostId: this.hostId, label: this.label, state: "not-found", detail: "", sessions: 0 };
  }

  async start(): Promise<void> {
    // Sessions from before this window opened are not replayed: only what happens from now on.
    try { this.offset = fs.statSync(this.options.reportFile).size; } catch { this.offset = 0; }
    this.checkInstalled();
    this.timer = setInterval(() => this.poll(), this.options.pollMs ?? 250);
    this.timer.unref?.();
  }

  status(): HostStatus { return this.current; }

  /** Reads what the plugin appended since the last poll (tests call it directly). */
  poll(): void {
    if (++this.polls % INSTALL_CHECK_POLLS === 0) this.checkInstalled();
    let size: number;
    try { size = fs.statSync(this.options.reportFile).size; } catch { return; }
    // Rotated (the plugin starts a new file past its limit): read the new one from its start.
    if (size < this.offset) { this.offset = 0; this.partial = ""; }
    if (size === this.offset) return;
    const length = Math.min(size - this.offset, MAX_READ_BYTES);
    const buf = Buffer.alloc(length);
    let fd: number | undefined;
    try {
      fd = fs.openSync(this.options.reportFile, "r");
      fs.readSync(fd, buf, 0, length, this.offset);
    } catch (err) {
      this.options.log(`plugin report ${this.options.reportFile}: ${(err as Error).message}`);
      return;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
    this.offset += length;
    const lines = (this.partial + buf.toString("utf8")).split("\n");
    this.partial = lines.pop() ?? "";
    for (const line of lines) if (line.trim()) this.take(line);
  }

  private take(line: string): void {
    let r: unknown;
    try { r = JSON.parse(line); } catch { this.options.log(`plugin report: a line that is not JSON skipped`); return; }
    if (!isRecord(r) || typeof r.type !== "string") return;
    const sessionId = typeof r.sessionId === "string" ? r.sessionId : undefined;
    switch (r.type) {
      case "started":
        if (!sessionId) return;
        if (typeof r.title === "string") this.titles.set(sessionId, r.title);
        if (!this.outcomes.has(sessionId)) this.outcomes.set(sessionId, []);
        this.update();
        return;
      case "event": {
        if (!sessionId) return;
        let event;
        try { event = toTraceEvent(r.event); } catch (err) { this.options.log(`plugin report: bad event skipped: ${(err as Error).message}`); return; }
        if (!this.outcomes.has(sessionId)) { this.outcomes.set(sessionId, []); this.update(); }
        this.eventEmitter.fire({ hostId: this.hostId, taskId: sessionId, title: this.titles.get(sessionId), event });
        return;
      }
      case "outcome": {
        if (!sessionId || typeof r.action !== "string") return;
        const list = this.outcomes.get(sessionId) ?? [];
        list.push({ action: r.action, ok: r.ok === true, done: typeof r.done === "string" ? r.done : "", taken: false });
        if (list.length > MAX_OUTCOMES) list.shift();
        this.outcomes.set(sessionId, list);
        for (const wake of [...this.waiting]) wake();
        return;
      }
      case "error":
      case "config":
        this.options.log(`Kilo / opencode plugin: ${typeof r.message === "string" ? r.message : JSON.stringify(r.warnings)}`);
        return;
    }
  }

  /** The plugin acted already (or will, in the same order): report what it says it did. */
  async act(taskId: string, intervention: Intervention): Promise<ActionOutcome> {
    const find = (): Outcome | undefined => this.outcomes.get(taskId)?.find((o) => !o.taken && o.action === intervention.action);
    const waitMs = this.options.outcomeWaitMs ?? 5000;
    let found = find();
    if (!found) {
      found = await new Promise<Outcome | undefined>((resolve) => {
        const wake = () => { const o = find(); if (o) { done(); resolve(o); } };
        const timer = setTimeout(() => { done(); resolve(undefined); }, waitMs);
        const done = () => { clearTimeout(timer); this.waiting.delete(wake); };
        this.waiting.add(wake);
      });
    }
    if (!found) return { ok: false, done: "the plugin inside the agent's server acts by itself; it reported no outcome for this yet" };
    found.taken = true;
    return { ok: found.ok, done: `${found.done} (the plugin in the agent's server)` };
  }

  private checkInstalled(): void {
    try { this.installed = this.options.installedIn(); } catch { this.installed = []; }
    this.update();
  }

  private update(): void {
    const sessions = this.outcomes.size;
    const next: HostStatus = this.installed.length === 0
      ? { hostId: this.hostId, label: this.label, state: "not-found", detail: "not connected (only for Kilo Code 7 and opencode: “Loop Sentinel: Connect Kilo Code” puts a plugin into their server)", sessions }
      : { hostId: this.hostId, label: this.label, state: "watching", detail: `plugin in ${this.installed.join(", ")}; following its report ${this.options.reportFile}`, sessions };
    if (next.state === this.current.state && next.detail === this.current.detail && next.sessions === this.current.sessions) return;
    this.current = next;
    this.statusEmitter.fire(next);
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    for (const wake of [...this.waiting]) wake();
    this.statusEmitter.dispose();
    this.eventEmitter.dispose();
  }
}
