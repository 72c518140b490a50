/** The command line as a user runs it: the bundled dist/cli.js in a child process. */
import { spawnSync } from "node:child_process";
import * as path from "node:path";

export const ROOT = path.resolve(__dirname, "../../..");
export const CLI = path.join(ROOT, "dist/cli.js");

export function cli(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
