/**
 * `loop-sentinel hooks install|uninstall|status claude|copilot|codex|gemini|qwen [--project DIR] [--config FILE]`:
 * puts Loop Sentinel's tool-call hook into Claude Code's, the Copilot CLI's, Codex's, Gemini CLI's
 * or Qwen Code's settings (user-wide, honouring CLAUDE_CONFIG_DIR, COPILOT_HOME, CODEX_HOME,
 * GEMINI_CLI_HOME and QWEN_HOME, or one project's), or
 * takes it out leaving the files as they were. Non-interactive: asking is the extension's job.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { AGENT_NAMES, type AgentName } from "../hosts/hookAgents/dialect";
import { agentHookStatus, installAgentHook, uninstallAgentHook, type InstallReport } from "../hosts/hookAgents/install";
import { flag, parseArgs, UsageError } from "./args";
import type { CliIO } from "./io";

export const HOOKS_USAGE = "hooks install|uninstall|status claude|copilot|codex|gemini|qwen [--project DIR] [--config FILE]";

export function runHooks(argv: string[], io: CliIO): number {
  const args = parseArgs(argv, ["project", "config"], []);
  const [verb, agent, ...extra] = args.positionals;
  if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`);
  if (!AGENT_NAMES.includes(agent as AgentName)) throw new UsageError(`expected an agent: ${AGENT_NAMES.join(", ")}\nusage: loop-sentinel ${HOOKS_USAGE}`);
  const project = flag(args, "project");
  const dir = project === undefined ? undefined : path.resolve(project);
  if (dir !== undefined && !fs.existsSync(dir)) throw new UsageError(`--project ${project}: no such folder`);
  const config = flag(args, "config");
  let report: InstallReport;
  switch (verb) {
    case "install": {
      const script = path.join(__dirname, "agent-hook.js");
      if (!fs.existsSync(script)) { io.err(`loop-sentinel hooks: ${script} is missing (run \`npm run build\`)`); return 1; }
      if (config !== undefined && !fs.existsSync(config)) throw new UsageError(`--config ${config}: no such file`);
      report = installAgentHook({ agent: agent as AgentName, project: dir, script, configFile: config && path.resolve(config) });
      break;
    }
    case "uninstall": report = uninstallAgentHook(agent as AgentName, dir); break;
    case "status": report = agentHookStatus(agent as AgentName, dir); break;
    default: throw new UsageError(`expected install, uninstall or status\nusage: loop-sentinel ${HOOKS_USAGE}`);
  }
  if (report.state === "unreadable") io.err(report.detail); else io.out(report.detail);
  if (verb === "install") return report.state === "installed" ? 0 : 1;
  return report.state === "unreadable" ? 1 : 0;
}
