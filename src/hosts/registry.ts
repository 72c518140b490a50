/**
 * Every host the extension can watch. A factory that throws costs only its own host: the
 * others still load (the failure is logged).
 */
import type { HostAdapter, HostEnvironment } from "./hostAdapter";
import { createRooAdapters } from "./roo";
import { createClineAdapters } from "./cline";
import { createOpencodePluginAdapters } from "./opencode";
import { createAgentHookAdapters } from "./hookAgents";

const FACTORIES: Array<{ name: string; create(env: HostEnvironment): HostAdapter[] }> = [
  { name: "Roo Code / Kilo Code", create: createRooAdapters },
  { name: "Cline", create: createClineAdapters },
  { name: "Kilo Code 7 / opencode (plugin)", create: createOpencodePluginAdapters },
  { name: "Claude Code / Copilot CLI / Codex / Gemini CLI / Qwen Code (hooks)", create: createAgentHookAdapters },
];

export function createHostAdapters(env: HostEnvironment): HostAdapter[] {
  const out: HostAdapter[] = [];
  for (const f of FACTORIES) {
    try {
      out.push(...f.create(env));
    } catch (err) {
      env.log(`${f.name}: could not set up its adapter: ${(err as Error).message ?? String(err)}`);
    }
  }
  return out;
}
