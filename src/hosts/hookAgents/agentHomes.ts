/**
 * Where the agents keep their files, apart from install.ts: the hook's engine bundle reads
 * Copilot's session events from there and must not load the installer (nor node:crypto with it:
 * milliseconds on every headless hook call).
 */
import * as os from "node:os";
import * as path from "node:path";

/** Copilot CLI's home: its hooks and its sessions' events files live under it. */
export function copilotHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.COPILOT_HOME || path.join(env.HOME || os.homedir(), ".copilot");
}
