/**
 * The stream guard in the extension (`loopSentinel.streamGuard.enabled`, off by default): while it
 * is on and this window runs, the agents picked in `loopSentinel.streamGuard.agents` send their
 * model requests through a guard on 127.0.0.1 (src/hosts/streamGuard/host.ts), and their sessions
 * show in the status bar and the panel like every host's. Turned on from the palette or the
 * walkthrough; turned off, on deactivate and on uninstall, every file goes back as it was. A
 * window that ended without deactivating (a crash) is found at the next start and its pointing
 * put back, so no agent is left pointed at a guard that is not running.
 */
import * as vscode from "vscode";
import { agentHookStatus } from "../hosts/hookAgents/install";
import { COPILOT_VARIABLE, GUARD_AGENT_LABELS, GUARD_AGENTS, StreamGuardHost, type GuardAgent, type GuardReport } from "../hosts/streamGuard/host";
import { currentUpstream, restoreOrphans, safeOrigin } from "../hosts/streamGuard/pointing";
import { COMMANDS, CONTEXT_KEYS } from "./commandIds";
import type { SessionManager } from "./sessionManager";
import { SETTINGS_SECTION } from "./settingsSchema";
import type { StreamGuardAgent } from "./settings";

/** What the guard does, in one plain sentence (the palette's question, the walkthrough). */
export const STREAM_GUARD_SENTENCE = "The agent's requests then pass through a guard on this computer, which reads each answer as it streams, cuts a looping one and adds guidance to the next request.";

export interface StreamGuardSetup extends vscode.Disposable {
  /** Brings the guard in line with the settings; resolves with what changed. */
  apply(want?: GuardAgent[]): Promise<GuardReport[]>;
  host: StreamGuardHost;
}

export function setupStreamGuard(
  context: vscode.ExtensionContext,
  manager: SessionManager,
  log: (line: string) => void,
  settings: () => { enabled: boolean; agents: StreamGuardAgent[] },
  setKey: (key: string, value: boolean) => void,
): StreamGuardSetup {
  const penv = process.env;
  const host = new StreamGuardHost({
    env: { log, globalStorageRoot: undefined },
    engineConfig: () => manager.config.engine,
    processEnv: penv,
    hookInstalled: (agent) => { try { return agentHookStatus(agent, undefined, penv).state === "installed"; } catch { return false; } },
    setTerminalVariable: (name, value) => {
      const terminals = context.environmentVariableCollection;
      // Only while this window runs: never written to VS Code's stored state.
      terminals.persistent = false;
      if (value === undefined) terminals.delete(name);
      else { terminals.replace(name, value); terminals.description = "Loop Sentinel's stream guard: the Copilot CLI's requests pass through a guard on this computer"; }
    },
  });
  let added = false;
  /** Each agent's latest change: the settings' own change event may have carried out what a command asked for. */
  const latest = new Map<GuardAgent, GuardReport>();
  /** Problems already shown (a settings change tries again, and says it again only when asked). */
  const warned = new Set<string>();

  /** `given`: the agents a command just wrote to the settings (their change event may come later). */
  const apply = async (given?: GuardAgent[]): Promise<GuardReport[]> => {
    const s = settings();
    const want: GuardAgent[] = given ?? (s.enabled ? s.agents : []);
    if (!added && want.length === 0) { setKey(CONTEXT_KEYS.streamGuardOn, false); return []; }
    if (!added) { added = true; manager.addAdapters([host]); }
    let reports: GuardReport[];
    try { reports = await host.apply(want); } catch (err) { log(`stream guard: ${(err as Error).message}`); reports = []; }
    for (const r of reports) latest.set(r.agent, r);
    setKey(CONTEXT_KEYS.streamGuardOn, host.guarded().length > 0);
    // A file it could not read is the user's to fix: said where they see it.
    const unreadable = reports.filter((r) => r.state === "unreadable" && (given !== undefined || !warned.has(r.detail)));
    for (const r of unreadable) warned.add(r.detail);
    if (unreadable.length) void vscode.window.showWarningMessage(`Loop Sentinel's stream guard: ${unreadable.map((r) => r.detail).join(" ")}`);
    return reports;
  };

  // A window that ended without putting its pointing back (VS Code crashed): put back now.
  setImmediate(() => {
    try { for (const r of restoreOrphans(penv)) log(`stream guard: a window that is gone had pointed ${r.agent}: ${r.detail}`); } catch (err) { log(`stream guard: could not check for pointings left behind: ${(err as Error).message}`); }
  });

  const writeSettings = async (enabled: boolean, agents?: GuardAgent[]) => {
    const cfg = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    if (agents) await cfg.update("streamGuard.agents", agents, vscode.ConfigurationTarget.Global);
    await cfg.update("streamGuard.enabled", enabled, vscode.ConfigurationTarget.Global);
  };

  const describe = (agent: GuardAgent): string => {
    if (agent === "copilot") return penv[COPILOT_VARIABLE] ? `its own provider, ${safeOrigin(penv[COPILOT_VARIABLE]!)}, in VS Code's terminals` : `not possible here: no ${COPILOT_VARIABLE} (its own provider) in VS Code's environment`;
    const now = currentUpstream(agent, penv);
    return now.upstream ? `now goes to ${safeOrigin(now.upstream)}` : `not possible here: ${now.detail}`;
  };

  const disposables = [
    vscode.commands.registerCommand(COMMANDS.streamGuardOn, async (given?: unknown) => {
      let agents: GuardAgent[] | undefined = Array.isArray(given) ? GUARD_AGENTS.filter((a) => given.includes(a)) : undefined;
      if (!agents) {
        const ticked = settings().agents;
        const picks = await vscode.window.showQuickPick(GUARD_AGENTS.map((a) => ({ label: GUARD_AGENT_LABELS[a], description: describe(a), picked: ticked.includes(a), agent: a })), {
          canPickMany: true, title: "Guard these agents' model requests on this computer", placeHolder: STREAM_GUARD_SENTENCE,
        });
        agents = picks?.map((p) => p.agent);
      }
      if (!agents?.length) return [];
      for (const a of agents) latest.delete(a);
      await writeSettings(true, agents);
      await apply(agents);
      const reports = agents.map((a) => latest.get(a)).filter((r): r is GuardReport => r !== undefined);
      const on = host.guarded();
      const others = reports.filter((r) => r.state !== "pointed" && r.state !== "unreadable");
      if (on.length) void vscode.window.showInformationMessage(`Loop Sentinel's stream guard is on: ${on.map((g) => GUARD_AGENT_LABELS[g.agent]).join(", ")} now send their requests through it, on to the endpoint set before. Turned off, or when VS Code closes, their settings go back as they were.${others.length ? ` Not guarded: ${others.map((r) => r.detail).join(" ")}` : ""}`);
      else if (others.length) void vscode.window.showWarningMessage(`Loop Sentinel's stream guard found no agent to point at it: ${others.map((r) => r.detail).join(" ")}`);
      return reports;
    }),
    vscode.commands.registerCommand(COMMANDS.streamGuardOff, async () => {
      const were = host.guarded().map((g) => g.agent);
      for (const a of were) latest.delete(a);
      await writeSettings(false);
      await apply([]);
      const reports = were.map((a) => latest.get(a)).filter((r): r is GuardReport => r !== undefined);
      const back = reports.filter((r) => r.state === "restored");
      vscode.window.setStatusBarMessage(`Loop Sentinel: stream guard off${back.length ? `; ${back.map((r) => GUARD_AGENT_LABELS[r.agent]).join(", ")} back as before` : ""}`, 4000);
      return reports;
    }),
  ];

  return {
    apply,
    host,
    // The manager disposes the host once added (deactivate); this covers a host never added.
    dispose: () => { for (const d of disposables) d.dispose(); if (!added) host.dispose(); },
  };
}
