/**
 * Reading a hook's stdin, shared by the Cline hook and the Claude Code / Copilot / Codex hook: the
 * agent writes one JSON document and closes stdin, but a stuck pipe must not hold the call.
 */

/** Give up on stdin after this long: the call then passes. */
const STDIN_MS = 1_000;
/** Input kept at most; the rest is read and dropped. */
const MAX_STDIN_BYTES = 8 * 1024 * 1024;

export function readStdin(): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => { clearTimeout(timer); resolve(Buffer.concat(chunks).toString("utf8")); };
    const timer = setTimeout(done, STDIN_MS);
    process.stdin.on("data", (c: Buffer) => { size += c.length; if (size <= MAX_STDIN_BYTES) chunks.push(c); });
    process.stdin.on("end", done);
    process.stdin.on("error", done);
  });
}
