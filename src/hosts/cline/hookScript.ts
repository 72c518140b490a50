/**
 * Loop Sentinel's Cline `PreToolUse` hook (bundled as dist/cline-hook.js, run by the installed
 * `PreToolUse` file). Reads Cline's JSON from stdin, asks the running Loop Sentinel over the local
 * channel whether the engine refuses this call, and prints Cline's answer. It fails open: no
 * server, a slow one (HOOK_DEADLINE_MS), a garbled reply or any error of its own let the call
 * through at once. A guard must never wedge the agent.
 */
import { askChannel } from "./hookChannel";
import { boundedInput, channelDir, clineOutputFor, HOOK_DEADLINE_MS, parseHookInput, type ClineHookOutput } from "./hookProtocol";

/** Cline writes one JSON document and closes stdin; a stuck pipe must not hold the call. */
const STDIN_MS = 1_000;
const MAX_STDIN_BYTES = 8 * 1024 * 1024;

function readStdin(): Promise<string> {
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

export async function runHook(stdinText: string, env: NodeJS.ProcessEnv = process.env): Promise<ClineHookOutput> {
  const query = parseHookInput(stdinText);
  if (!query) return clineOutputFor(undefined);
  const deadline = Number(env.LOOP_SENTINEL_HOOK_DEADLINE_MS ?? HOOK_DEADLINE_MS);
  const reply = await askChannel(channelDir(env), { ...query, input: boundedInput(query.input) }, Number.isFinite(deadline) && deadline > 0 ? deadline : HOOK_DEADLINE_MS);
  return clineOutputFor(reply);
}

if (require.main === module) {
  readStdin()
    .then((text) => runHook(text))
    .catch(() => clineOutputFor(undefined))
    .then((out) => { process.stdout.write(JSON.stringify(out) + "\n"); process.exit(0); });
}
