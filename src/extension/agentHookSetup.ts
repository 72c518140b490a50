/**
 * Loop Sentinel's hook for Claude Code, the Copilot CLI and Codex in the extension: installed
 * user-wide only with the user's consent (the palette command, or the offer made once when the
 * Claude Code or Copilot Chat extension is found), removed by the remove command and on uninstall
 * (`vscode:uninstall`, which puts every settings file back as it was). Claude Code's VS Code
 * extension runs the same CLI and reads the same settings, so one install guards both.
 */
import * as vscode from "vscode";
import { AGENT_LABELS, AGENT_NAMES, type AgentName } from "../hosts/hookAgents/dialect";
import { agentHookStatus, installAgentHook, trustNote, uninstallAgentHook } from "../hosts/hookAgents/install";
import { agentPickItems, presentAgents } from "../hosts/hookAgents/presence";
import { COMMANDS } from "./commandIds";

const OFFERED_KEY = "loopSentinel.agentHook.offered";
const INSTALLED_CONTEXT = "loopSentinel.agentHookInstalled";
/** The VS Code extensions whose agents the hook guards. */
const AGENT_EXTENSIONS: { id: string; agent: AgentName; name: string }[] = [
  { id: "anthropic.claude-code", agent: "claude", name: "Claude Code" },
  { id: "github.copilot-chat", agent: "copilot", name: "GitHub Copilot Chat" },
];

function installedAgents(): AgentName[] {
  return AGENT_NAMES.filter((a) => { try { return agentHookStatus(a, undefined).state === "installed"; } catch { return false; } });
}

export function setupAgentHook(context: vscode.ExtensionContext, log: (line: string) => void): vscode.Disposable {
  const script = context.asAbsolutePath("dist/agent-hook.js");
  const refreshContext = () => void vscode.commands.executeCommand("setContext", INSTALLED_CONTEXT, installedAgents().length > 0);
  refreshContext();

  /** `ticked`: the agents picked at first (for the install: only those found on this machine). */
  const pickAgents = async (agents: AgentName[], title: string, ticked: readonly AgentName[] = agents): Promise<AgentName[] | undefined> => {
    if (agents.length <= 1) return agents;
    const picks = await vscode.window.showQuickPick(agentPickItems(agents, ticked), { canPickMany: true, title });
    return picks?.map((p) => p.agent);
  };

  const disposables = [
    vscode.commands.registerCommand(COMMANDS.installAgentHook, async (agent?: AgentName) => {
      const found = presentAgents({ extensionInstalled: (id) => vscode.extensions.getExtension(id) !== undefined, hookInstalled: (a) => installedAgents().includes(a) });
      const agents = agent ? [agent] : await pickAgents([...AGENT_NAMES], "Guard these agents through their tool-call hook (user-wide)", found);
      if (!agents?.length) return [];
      const reports = agents.map((a) => {
        try { return installAgentHook({ agent: a, script }); } catch (err) { return { agent: a, file: "", state: "unreadable" as const, detail: `could not install for ${AGENT_LABELS[a]}: ${(err as Error).message}` }; }
      });
      for (const r of reports) log(`agent hook: ${r.detail}`);
      refreshContext();
      const failed = reports.filter((r) => r.state !== "installed");
      if (failed.length) void vscode.window.showWarningMessage(`Loop Sentinel: ${failed.map((r) => r.detail).join(" ")}`);
      const done = reports.filter((r) => r.state === "installed");
      if (done.length) void vscode.window.showInformationMessage(`Loop Sentinel now guards ${done.map((r) => AGENT_LABELS[r.agent]).join(", ")} through its hook. ${done.map((r) => trustNote(r.agent, false)).join(" ")}`);
      return reports;
    }),
    vscode.commands.registerCommand(COMMANDS.removeAgentHook, async () => {
      const agents = await pickAgents(installedAgents(), "Remove Loop Sentinel's hook from these agents");
      if (!agents?.length) return [];
      const reports = agents.map((a) => uninstallAgentHook(a, undefined));
      for (const r of reports) log(`agent hook: ${r.detail}`);
      refreshContext();
      void vscode.window.showInformationMessage(`Loop Sentinel: ${reports.map((r) => r.detail).join(" ")}`);
      return reports;
    }),
  ];

  // The offer, once: an agent Loop Sentinel can guard through its hook is installed here.
  const found = AGENT_EXTENSIONS.filter((e) => vscode.extensions.getExtension(e.id) !== undefined && !installedAgents().includes(e.agent));
  if (found.length > 0 && !context.globalState.get<boolean>(OFFERED_KEY)) {
    void context.globalState.update(OFFERED_KEY, true);
    void vscode.window.showInformationMessage(
      `Loop Sentinel found ${found.map((f) => f.name).join(" and ")}. It can guard their agent through its tool-call hook: guidance after a repeated call, ` +
      "the call refused when the loop goes on, the run ended at the top rung. The hook asks this window and decides on its own when VS Code is closed. Install it?",
      "Install Hook", "Not Now",
    ).then(async (pick) => {
      if (pick !== "Install Hook") return;
      for (const f of found) await vscode.commands.executeCommand(COMMANDS.installAgentHook, f.agent);
    });
  }
  return { dispose: () => { for (const d of disposables) d.dispose(); } };
}
