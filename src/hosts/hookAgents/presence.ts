/**
 * Which of the hook agents (Claude Code, Copilot CLI, Codex, Gemini CLI, Qwen Code) are on this machine: an agent is named
 * as watched, and ticked in the install picker, only when it is there: its VS Code extension is
 * installed, its command is on the PATH or its home folder exists, or Loop Sentinel's hook is
 * installed for it. Plain Node (the extension check is handed in).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { AGENT_LABELS, AGENT_NAMES, type AgentName } from "./dialect";
import { copilotHome } from "./agentHomes";

/** The command each agent's CLI installs. */
export const AGENT_COMMANDS: Record<AgentName, string> = { claude: "claude", copilot: "copilot", codex: "codex", gemini: "gemini", qwen: "qwen" };

/** The VS Code extensions that bring an agent the hook guards. */
export const AGENT_EXTENSION_IDS: Record<AgentName, readonly string[]> = {
  claude: ["anthropic.claude-code"],
  copilot: ["github.copilot-chat"],
  codex: ["openai.chatgpt"],
  // No VS Code extension is known to run these CLIs with their hooks.
  gemini: [],
  qwen: [],
};

/** The agent's own folder in the user's home (its settings, sessions and hooks). */
export function agentHome(agent: AgentName, env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME || os.homedir();
  switch (agent) {
    case "claude": return env.CLAUDE_CONFIG_DIR || path.join(home, ".claude");
    case "copilot": return copilotHome(env);
    case "codex": return env.CODEX_HOME || path.join(home, ".codex");
    case "gemini": return path.join(env.GEMINI_CLI_HOME || home, ".gemini");
    case "qwen": return env.QWEN_HOME || path.join(home, ".qwen");
  }
}

/** Whether a command of this name is an executable file in one of the PATH's folders. */
export function onPath(command: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const dirs = (env.PATH ?? "").split(path.delimiter).filter(Boolean);
  const names = process.platform === "win32" ? [".exe", ".cmd", ".bat", ""].map((e) => command + e) : [command];
  for (const dir of dirs) {
    for (const name of names) {
      try {
        const st = fs.statSync(path.join(dir, name));
        if (st.isFile() && (process.platform === "win32" || (st.mode & 0o111) !== 0)) return true;
      } catch { /* not here */ }
    }
  }
  return false;
}

export interface PresenceProbe {
  env?: NodeJS.ProcessEnv;
  /** Whether a VS Code extension of this id is installed (the extension hands this in). */
  extensionInstalled?(id: string): boolean;
  /** Whether Loop Sentinel's hook is installed for the agent. */
  hookInstalled?(agent: AgentName): boolean;
}

/** Why the agent counts as present, or undefined when nothing of it is here. */
export function agentPresence(agent: AgentName, probe: PresenceProbe = {}): "extension" | "command" | "home" | "hook" | undefined {
  const env = probe.env ?? process.env;
  try { if (probe.hookInstalled?.(agent)) return "hook"; } catch { /* unreadable: look further */ }
  if (AGENT_EXTENSION_IDS[agent].some((id) => probe.extensionInstalled?.(id))) return "extension";
  if (onPath(AGENT_COMMANDS[agent], env)) return "command";
  try { if (fs.statSync(agentHome(agent, env)).isDirectory()) return "home"; } catch { /* absent */ }
  return undefined;
}

export function presentAgents(probe: PresenceProbe = {}): AgentName[] {
  return AGENT_NAMES.filter((a) => agentPresence(a, probe) !== undefined);
}

/** The install picker's rows: every agent, ticked only when found here (said beside its name). */
export function agentPickItems(agents: readonly AgentName[], found: readonly AgentName[]): Array<{ label: string; agent: AgentName; picked: boolean; description: string }> {
  return agents.map((a) => ({ label: AGENT_LABELS[a], agent: a, picked: found.includes(a), description: found.includes(a) ? "found here" : "not found on this machine" }));
}
