/**
 * Claude Code (CLI and VS Code extension), GitHub Copilot CLI, Codex, Gemini CLI and Qwen Code, guarded through Loop
 * Sentinel's tool-call hook (`loop-sentinel hooks install`, or the palette's commands). While this
 * window runs, the hook asks it over the local channel, so their sessions show in the status bar
 * and the panel like any other host's; the hook carries every action itself (the agent's answer
 * to the hook is the only way in), so nothing is left for act() to do. Plain Node: no `vscode`.
 */
import type { Intervention } from "../../engine/session";
import type { HookServer } from "../cline/hookChannel";
import { HostEvents, type ActionOutcome, type HostAdapter, type HostEnvironment, type HostStatus } from "../hostAdapter";
import { AGENT_LABELS, AGENT_NAMES, type AgentName } from "./dialect";
import { presentAgents } from "./presence";
import { agentHookStatus } from "./install";
import { AgentHookService, agentSessionTitle } from "./service";

/** What the hook does with each rung in each agent (the status and the panel say it so). */
export function hookOutcome(agent: AgentName, iv: Pick<Intervention, "action">): string {
  switch (iv.action) {
    case "warn": return "Loop Sentinel's hook adds this guidance after the call's result; the model reads it in its next request";
    case "block": return "Loop Sentinel's hook refuses the call with this guidance; the model reads it as the call's error";
    case "abort": return "Loop Sentinel's hook refuses the agent's next tool call with this guidance (a response cannot be cut mid-stream through the hooks)";
    case "stop":
      if (agent === "claude" || agent === "gemini") return "Loop Sentinel's hook refuses the call and ends the run";
      if (agent === "copilot") return "Loop Sentinel's hook ends the run at the call's permission request";
      return `Loop Sentinel's hook refuses this and every further call of the turn (${agent === "qwen" ? "Qwen Code" : "Codex"} lets no hook end a run)`;
  }
}

/** The install command as the Command Palette names it (a unit test holds it to COMMAND_TITLES; hosts sit below the extension). */
export const INSTALL_COMMAND_TITLE = "Install Hook for Claude Code, Copilot CLI, Codex, Gemini CLI or Qwen Code…";

class AgentHooksAdapter extends HostEvents implements HostAdapter {
  readonly hostId = "agent-hooks";
  readonly label = "Claude Code / Copilot CLI / Codex / Gemini CLI / Qwen Code";
  private server: HookServer | undefined;
  private readonly agentOf = new Map<string, AgentName>();
  private current: HostStatus = { hostId: this.hostId, label: this.label, state: "inactive", detail: "starting", sessions: 0 };

  constructor(private readonly env: HostEnvironment) { super(); }

  async start(): Promise<void> {
    const service = new AgentHookService({
      feed: (key, event, call) => {
        let caused: Intervention[] = [];
        if (!this.agentOf.has(key)) { this.agentOf.set(key, call.agent); this.refresh(); }
        this.eventEmitter.fire({ hostId: this.hostId, taskId: key, title: agentSessionTitle(call), event, onInterventions: (ivs) => { caused = ivs; } });
        return caused;
      },
      mayAct: () => this.env.mayIntervene?.() ?? true,
    });
    try {
      this.server = await service.serve(process.env, (m) => this.env.log(`agent hooks: ${m}`));
    } catch (err) {
      this.env.log(`agent hooks: no hook channel (${(err as Error).message}); the hooks decide on their own`);
    }
    this.refresh();
  }

  private refresh(): void {
    const installed = AGENT_NAMES.filter((a) => { try { return agentHookStatus(a, undefined).state === "installed"; } catch { return false; } });
    // Named only when there: installed here (extension, command, home folder), hooked, or seen.
    const present = new Set<AgentName>([...presentAgents({ extensionInstalled: this.env.extensionInstalled, hookInstalled: (a) => installed.includes(a) }), ...this.agentOf.values()]);
    const names = AGENT_NAMES.filter((a) => present.has(a)).map((a) => AGENT_LABELS[a]);
    const label = names.length ? names.join(", ").replace(/, ([^,]*)$/, " and $1") : this.label;
    let state: HostStatus["state"];
    let detail: string;
    if (present.size === 0) {
      state = "not-found";
      detail = "none of Claude Code, GitHub Copilot CLI, Codex, Gemini CLI or Qwen Code was found";
    } else if (installed.length === 0 && this.agentOf.size === 0) {
      state = "inactive";
      detail = `Loop Sentinel's hook is not installed for it: run “Loop Sentinel: ${INSTALL_COMMAND_TITLE}” from the Command Palette`;
    } else {
      state = this.server ? "watching" : "error";
      detail = installed.length === 0 ? "its sessions are answered here through a project's hook"
        : `hook installed for ${installed.map((a) => AGENT_LABELS[a]).join(", ")}; ${this.server ? "answered here, so their sessions show here" : "this window cannot answer it: the hook decides on its own"}`;
    }
    const next: HostStatus = { hostId: this.hostId, label, state, detail, sessions: this.agentOf.size };
    if (next.state === this.current.state && next.detail === this.current.detail && next.sessions === this.current.sessions && next.label === this.current.label) return;
    this.current = next;
    this.statusEmitter.fire(next);
  }

  status(): HostStatus { return this.current; }

  async act(taskId: string, iv: Intervention): Promise<ActionOutcome> {
    return this.handledByHost(taskId, iv);
  }

  handledByHost(taskId: string, iv: Intervention): ActionOutcome {
    return { done: hookOutcome(this.agentOf.get(taskId) ?? "claude", iv), ok: true };
  }

  dispose(): void {
    void this.server?.close();
    this.statusEmitter.dispose();
    this.eventEmitter.dispose();
  }
}

export function createAgentHookAdapters(env: HostEnvironment): HostAdapter[] {
  return [new AgentHooksAdapter(env)];
}
