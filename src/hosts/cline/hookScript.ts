/**
 * Loop Sentinel's Cline `PreToolUse` hook (bundled as dist/cline-hook.js, run by the installed
 * `PreToolUse` file). Reads Cline's JSON from stdin, asks the running Loop Sentinel over the local
 * channel whether the engine refuses this call, and prints Cline's answer. It fails open: no
 * server, a slow one (HOOK_DEADLINE_MS), a garbled reply or any error of its own let the call
 * through at once. A guard must never wedge the agent.
 *
 * When it was installed in place of the user's own `PreToolUse` (chained, hookInstall.ts), that
 * hook sits beside this script and runs alongside with the same stdin; the answers are merged the
 * way Cline merges two hooks' (either cancels; contexts and messages joined). A user hook that
 * fails is ignored, as Cline ignores a failing hook.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { askChannel } from "./hookChannel";
import { boundedInput, channelDir, clineOutputFor, HOOK_DEADLINE_MS, parseHookInput, type ClineHookOutput } from "./hookProtocol";
import { CHAINED_NAME } from "./hookInstall";
import { readStdin } from "../hookStdin";

/** Below classic Cline's 30 s limit for the whole hook. */
const CHAINED_TIMEOUT_MS = 25_000;

/**
 * What is left of the hook's deadline, counted from the start of this process (Node's own start-up
 * and reading stdin spend part of it), not from the moment the channel is asked.
 */
export function remainingMs(env: NodeJS.ProcessEnv, sinceStartMs: number): number {
  const given = Number(env.LOOP_SENTINEL_HOOK_DEADLINE_MS ?? HOOK_DEADLINE_MS);
  const deadline = Number.isFinite(given) && given > 0 ? given : HOOK_DEADLINE_MS;
  return Math.max(0, deadline - sinceStartMs);
}

/** Milliseconds since this process started (performance.now() counts from the process's time origin). */
function sinceProcessStart(): number {
  return performance.now();
}

async function ownVerdict(stdinText: string, env: NodeJS.ProcessEnv, sinceStart: () => number): Promise<ClineHookOutput> {
  const query = parseHookInput(stdinText);
  if (!query) return clineOutputFor(undefined);
  const left = remainingMs(env, sinceStart());
  if (left <= 0) return clineOutputFor(undefined); // the deadline passed while Node started: fail open
  const reply = await askChannel(channelDir(env), { ...query, input: boundedInput(query.input) }, left);
  return clineOutputFor(reply);
}

/** The last JSON object in a hook's stdout (hooks may print other lines first; Cline reads it so too). */
export function lastJsonObject(stdout: string): Record<string, unknown> | undefined {
  const whole = stdout.trim();
  const tryParse = (t: string) => { try { const v = JSON.parse(t); return typeof v === "object" && v !== null && !Array.isArray(v) ? v as Record<string, unknown> : undefined; } catch { return undefined; } };
  const direct = tryParse(whole);
  if (direct) return direct;
  for (let i = whole.lastIndexOf("{"); i >= 0; i = whole.lastIndexOf("{", i - 1)) {
    const v = tryParse(whole.slice(i));
    if (v) return v;
    if (i === 0) break;
  }
  return undefined;
}

/** Runs the user's own hook the way Cline would (through the shell, stdin in); undefined if it fails. */
function runChained(file: string, stdinText: string): Promise<ClineHookOutput | undefined> {
  return new Promise((resolve) => {
    let out = "";
    let settled = false;
    const done = (v: ClineHookOutput | undefined) => { if (!settled) { settled = true; clearTimeout(timer); resolve(v); } };
    const child = spawn("/bin/sh", ["-c", `'${file.replace(/'/g, `'\\''`)}'`], { stdio: ["pipe", "pipe", "inherit"] });
    const timer = setTimeout(() => { child.kill("SIGKILL"); done(undefined); }, CHAINED_TIMEOUT_MS);
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => { if (out.length < 1024 * 1024) out += d; });
    child.on("error", () => done(undefined));
    child.on("close", (code) => {
      const doc = lastJsonObject(out);
      if (!doc) { done(code === 0 ? { cancel: false } : undefined); return; }
      const v: ClineHookOutput = { cancel: doc.cancel === true };
      if (typeof doc.contextModification === "string" && doc.contextModification) v.contextModification = doc.contextModification;
      if (typeof doc.errorMessage === "string" && doc.errorMessage) v.errorMessage = doc.errorMessage;
      done(v);
    });
    child.stdin.on("error", () => { /* the hook did not read its input */ });
    child.stdin.end(stdinText);
  });
}

/** Two hooks' answers as one (Cline's own rule for several hooks). */
export function mergeOutputs(a: ClineHookOutput, b: ClineHookOutput | undefined): ClineHookOutput {
  if (!b) return a;
  const join = (x: string | undefined, y: string | undefined, sep: string) => [x, y].filter((t) => t && t.trim()).join(sep) || undefined;
  const out: ClineHookOutput = { cancel: a.cancel || b.cancel };
  const context = join(b.contextModification, a.contextModification, "\n\n");
  const error = join(b.errorMessage, a.errorMessage, "\n");
  if (context) out.contextModification = context;
  if (error) out.errorMessage = error;
  return out;
}

/**
 * The hook's answer. `sinceStart` gives the milliseconds the deadline already spent: since this
 * process started when run as the hook; tests that call it in-process start the clock at the call.
 */
export async function runHook(stdinText: string, env: NodeJS.ProcessEnv = process.env, chained = path.join(__dirname, CHAINED_NAME), sinceStart?: () => number): Promise<ClineHookOutput> {
  const began = performance.now();
  const spent = sinceStart ?? (() => performance.now() - began);
  const theirs = fs.existsSync(chained) ? runChained(chained, stdinText) : Promise.resolve(undefined);
  const [ours, user] = await Promise.all([ownVerdict(stdinText, env, spent).catch(() => clineOutputFor(undefined)), theirs]);
  return mergeOutputs(ours, user);
}

if (require.main === module) {
  readStdin()
    .then((text) => runHook(text, process.env, path.join(__dirname, CHAINED_NAME), sinceProcessStart))
    .catch(() => clineOutputFor(undefined))
    .then((out) => { process.stdout.write(JSON.stringify(out) + "\n"); process.exit(0); });
}
