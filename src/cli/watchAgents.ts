/**
 * `loop-sentinel watch --agents`: answers Loop Sentinel's hook in Claude Code, the Copilot CLI,
 * Codex, Gemini CLI and Qwen Code over the local channel from one engine session per agent session, printing what it
 * decides, until SIGINT/SIGTERM. Without it (or the extension) the hook decides on its own; with
 * it, one process keeps every session's state and the decisions show in one place.
 */
import type { EngineConfig } from "../engine/config";
import { LoopSession } from "../engine/session";
import { AgentHookService } from "../hosts/hookAgents/service";
import type { CliIO } from "./io";

export async function runAgentsWatch(config: EngineConfig, json: boolean, io: CliIO, signal?: AbortSignal, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const started = Date.now();
  const clock = () => new Date().toISOString().slice(11, 23);
  const print = (text: string, record: Record<string, unknown>) => io.out(json ? JSON.stringify({ elapsedMs: Date.now() - started, ...record }) : text);
  const sessions = new Map<string, LoopSession>();
  let interventions = 0;
  const service = new AgentHookService({
    feed: (key, event) => {
      let s = sessions.get(key);
      if (!s) { s = new LoopSession(config); sessions.set(key, s); print(`${clock()}  session ${key}`, { type: "task", taskId: key }); }
      const out = s.push(event);
      for (const iv of out) {
        interventions++;
        print(`${clock()}  session ${key}  ${iv.action.toUpperCase().padEnd(5)} ${iv.detector}: ${iv.summary}`, { type: "intervention", taskId: key, action: iv.action, detector: iv.detector, summary: iv.summary, message: iv.message });
      }
      return out;
    },
    onAnswer: (call, reply) => {
      if (reply.action !== "allow" || json) print(`${clock()}  session ${call.agent}:${call.sessionId}  hook (${call.point}): ${reply.action} ${call.toolName}`, { type: "hook", taskId: `${call.agent}:${call.sessionId}`, point: call.point, toolName: call.toolName, action: reply.action });
    },
  });
  const server = await service.serve(env, (m) => io.err(`loop-sentinel watch: ${m}`));
  print(`${clock()}  answering the Claude Code / Copilot CLI / Codex / Gemini CLI / Qwen Code hook at ${server.endpoint}`, { type: "watching", hookEndpoint: server.endpoint });
  await new Promise<void>((resolve) => {
    const finish = () => { process.off("SIGINT", finish); process.off("SIGTERM", finish); signal?.removeEventListener("abort", finish); resolve(); };
    process.on("SIGINT", finish);
    process.on("SIGTERM", finish);
    signal?.addEventListener("abort", finish);
  });
  await server.close();
  print(`${clock()}  done: ${sessions.size} session(s), ${interventions} intervention(s)`, { type: "done", tasks: sessions.size, interventions });
  return 0;
}
