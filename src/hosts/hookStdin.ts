/**
 * Reading a hook's stdin, shared by the Cline hook and the Claude Code / Copilot / Codex hook: the
 * agent writes one JSON document and closes stdin, but a stuck pipe must not hold the call.
 */
import * as fs from "node:fs";

/** Give up on stdin after this long: the call then passes. */
const STDIN_MS = 1_000;
/** Input kept at most; the rest is read and dropped. */
const MAX_STDIN_BYTES = 8 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;

/**
 * Read with fs.read on file descriptor 0 where it can be: `process.stdin` on a pipe loads Node's
 * net and stream modules first, about 5 ms of every hook call on this machine (issue 35, part 4),
 * and the hook needs neither. The read runs on libuv's thread pool, so the timer still fires if
 * the pipe sticks (the hook exits with process.exit, which does not wait for that read). A
 * descriptor that cannot be read so (a non-blocking one answers EAGAIN; Windows' pipes) goes
 * through process.stdin as before, with what was read already kept.
 */
export function readStdin(): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString("utf8"));
    };
    const timer = setTimeout(done, STDIN_MS);
    const keep = (c: Buffer) => { size += c.length; if (size <= MAX_STDIN_BYTES) chunks.push(c); };
    const viaStream = () => {
      process.stdin.on("data", keep);
      process.stdin.on("end", done);
      process.stdin.on("error", done);
    };
    if (process.platform === "win32") { viaStream(); return; }
    const next = () => {
      const buf = Buffer.allocUnsafe(CHUNK_BYTES);
      fs.read(0, buf, 0, CHUNK_BYTES, null, (err, n) => {
        if (finished) return;
        if (err) { if (err.code === "EAGAIN" || err.code === "EWOULDBLOCK") viaStream(); else done(); return; }
        if (n === 0) { done(); return; }
        keep(buf.subarray(0, n));
        next();
      });
    };
    next();
  });
}
