/**
 * A real agent CLI run for an end-to-end test: at a lower priority (the fake model and the guard
 * under test keep their share of a loaded machine), its output gathered, and killed past a limit
 * so a hung agent fails its test rather than the suite.
 */
import { spawn } from "node:child_process";

export interface NiceRun { code: number | null; stdout: string; stderr: string }

export function runNice(command: string[], options: { cwd: string; env: NodeJS.ProcessEnv }, limitMs: number): Promise<NiceRun> {
  return new Promise((resolve) => {
    const child = spawn("nice", ["-n", "10", ...command], { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => { stdout += d; });
    child.stderr.on("data", (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
    child.on("close", (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}
