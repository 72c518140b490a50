/**
 * Writes a file whole or not at all: a temporary file beside it, then a rename, so a reader (another
 * hook process, the agent reading its settings) never meets half a file. `mode` is set exactly
 * (the umask does not trim it); without one, the file keeps the mode it had (0644 when new).
 * Only node:fs: the headless hook's engine bundle loads this.
 */
import * as fs from "node:fs";

export function writeFileAtomic(file: string, data: string | Uint8Array, mode?: number): void {
  let m = mode;
  if (m === undefined) { try { m = fs.statSync(file).mode & 0o777; } catch { m = 0o644; } }
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, data, { mode: m });
  fs.chmodSync(tmp, m);
  fs.renameSync(tmp, file);
}
