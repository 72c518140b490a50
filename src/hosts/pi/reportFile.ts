/** Where the pi extension leaves its report: `$LOOP_SENTINEL_PI_REPORT`, else `$XDG_STATE_HOME/loop-sentinel/pi.jsonl`. */
import * as os from "node:os";
import * as path from "node:path";

export function piReportFilePath(env: Record<string, string | undefined> = process.env): string {
  return env.LOOP_SENTINEL_PI_REPORT || path.join(env.XDG_STATE_HOME || path.join(os.homedir(), ".local", "state"), "loop-sentinel", "pi.jsonl");
}
