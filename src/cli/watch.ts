/**
 * `loop-sentinel watch --cline-data DIR [--interrupt PID]`: a headless guard for Cline run in
 * scripts and CI. Follows the data folder's task files live, runs each task through the engine,
 * prints interventions as they happen and, on a stop, sends SIGINT to the agent (the Cline CLI
 * exits cleanly on SIGINT and marks its session cancelled; SIGTERM can leave it running).
 * It also answers Loop Sentinel's Cline PreToolUse hook (`loop-sentinel cline-hook install`) over
 * the local channel, from the same engine sessions, unless `--no-hook-channel`.
 *
 * A refusal the hook delivered ends the run on both cores' side (`cancel: true`), but the classic
 * core then waits at its resume question for a person, and the stop rung never comes because no
 * further call is made. So once a refusal was delivered and the task makes no further call or
 * request within `--refusal-idle` (default 10 s), the agent is interrupted as on a stop (or, with
 * no `--interrupt`, told once that the task waits).
 */
import type { Action } from "../engine/detector";
import { LoopSession } from "../engine/session";
import type { TraceEvent } from "../engine/events";
import { ClineGuard } from "../hosts/cline/guard";
import { HookServer } from "../hosts/cline/hookChannel";
import { channelDir } from "../hosts/cline/hookProtocol";
import { ClineWatcher, type ClineTaskEvent } from "../hosts/cline/watcher";
import { flag, parseArgs, UsageError } from "./args";
import type { CliIO } from "./io";
import { loadCliConfig } from "./loadConfig";
import type { WatchControl } from "./watchControl";
import { runOpencodeWatch } from "./watchOpencode";
import { runAgentsWatch } from "./watchAgents";
import { quoted } from "../engine/printable";

export const WATCH_USAGE = "watch --cline-data DIR [--interrupt PID] [--interrupt-on stop|abort|block|warn] [--refusal-idle MS] [--json] [--poll MS] [--config FILE] [--set key=value] [--no-hook-channel] [--channel-dir DIR]\n  loop-sentinel watch --opencode URL [--password-env VAR] [--user NAME] [--json] [--config FILE] [--set key=value]\n  loop-sentinel watch --agents [--json] [--config FILE] [--set key=value]";

/** Exit code when the guard interrupted the agent because it looped. */
export const EXIT_INTERRUPTED = 3;

/** Messages stamped up to this long before the guard started still count (the agent started first). */
const START_GRACE_MS = 15_000;

const RUNG: Record<Action, number> = { warn: 1, block: 2, abort: 2, stop: 3 };

/**
 * After a refusal the hook delivered, how long the task may make no further call before it is taken
 * to wait for a person (the classic core's resume question) and interrupted. A model that goes on
 * after a refusal asks for its next response within a few seconds.
 */
export const DEFAULT_REFUSAL_IDLE_MS = 10_000;

/**
 * An agent still running this long after the interrupt gets it again, then SIGTERM: the classic
 * Cline CLI at its resume question takes the first SIGINT as "cancel" and exits on the second.
 */
const INTERRUPT_GRACE_MS = 3000;
const FOLLOW_UP_SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM"];


export async function runWatch(argv: string[], io: CliIO, control: WatchControl = {}): Promise<number> {
  const args = parseArgs(argv, ["cline-data", "interrupt", "interrupt-on", "refusal-idle", "poll", "config", "set", "opencode", "password-env", "user", "channel-dir"], ["json", "no-hook-channel", "agents"]);
  if (args.flags.has("agents")) {
    if (args.flags.has("cline-data") || args.flags.has("opencode")) throw new UsageError("watch one kind of agent at a time: --agents, --cline-data or --opencode");
    return runAgentsWatch(loadCliConfig(flag(args, "config"), args.flags.get("set") ?? [], io.err), args.flags.has("json"), io, control.signal);
  }
  if (args.flags.has("opencode")) {
    if (args.flags.has("cline-data")) throw new UsageError("watch one kind of agent at a time: --cline-data or --opencode");
    return runOpencodeWatch(args, io, control);
  }
  const roots = args.flags.get("cline-data") ?? [];
  if (roots.length === 0) throw new UsageError(`watch needs --cline-data DIR (Cline's data folder: the CLI's --config or --data-dir, ~/.cline/data, or the extension's globalStorage/saoudrizwan.claude-dev)\nusage: loop-sentinel ${WATCH_USAGE}`);
  if (args.positionals.length) throw new UsageError(`unexpected argument ${quoted(args.positionals[0])}`);
  const pidText = flag(args, "interrupt");
  const pid = pidText === undefined ? undefined : Number(pidText);
  if (pid !== undefined && (!Number.isInteger(pid) || pid <= 0)) throw new UsageError(`--interrupt needs a process id, got ${quoted(pidText)}`);
  const interruptOn = (flag(args, "interrupt-on") ?? "stop") as Action;
  if (!(interruptOn in RUNG)) throw new UsageError(`--interrupt-on must be one of stop, abort, block, warn; got ${quoted(interruptOn)}`);
  const refusalIdleText = flag(args, "refusal-idle");
  const refusalIdleMs = refusalIdleText === undefined ? DEFAULT_REFUSAL_IDLE_MS : Number(refusalIdleText);
  if (!Number.isFinite(refusalIdleMs) || refusalIdleMs < 0) throw new UsageError(`--refusal-idle needs a number of milliseconds (0: never), got ${quoted(refusalIdleText)}`);
  const pollMs = Number(flag(args, "poll") ?? 100);
  if (!Number.isFinite(pollMs) || pollMs < 10) throw new UsageError(`--poll needs a number of milliseconds ≥ 10`);
  const config = loadCliConfig(flag(args, "config"), args.flags.get("set") ?? [], io.err);
  const json = args.flags.has("json");

  const started = Date.now();
  const sessions = new Map<string, LoopSession>();
  let interrupted = false;
  let interventions = 0;
  /** Tasks whose latest call the hook refused, and when: cleared by the task's next call or request. */
  const refusedAt = new Map<string, number>();
  const print = (text: string, record: Record<string, unknown>) => io.out(json ? JSON.stringify({ elapsedMs: Date.now() - started, ...record }) : text);
  const clock = () => new Date().toISOString().slice(11, 23);

  const feed = (taskId: string, event: TraceEvent, origin: ClineTaskEvent | undefined) => {
    let session = sessions.get(taskId);
    if (!session) {
      session = new LoopSession(config);
      sessions.set(taskId, session);
      const layout = origin?.layout;
      print(`${clock()}  task ${taskId}${layout ? ` (${layout})` : ""}${origin?.title ? `: ${oneLine(origin.title)}` : ""}`, { type: "task", taskId, layout, title: origin?.title });
    }
    if (event.t === "tool_call" || event.t === "request") refusedAt.delete(taskId);
    // A call the hook reported before the task file showed it: its source is the hook.
    const source = origin?.source ?? { index: -1, kind: "hook:PreToolUse", partial: false, chars: 0 };
    const out = session.push(event);
    for (const iv of out) {
      interventions++;
      print(
        `${clock()}  task ${taskId}  ${iv.action.toUpperCase().padEnd(5)} ${iv.detector}: ${iv.summary}\n               guidance: ${iv.message}`,
        { type: "intervention", taskId, layout: origin?.layout, action: iv.action, detector: iv.detector, summary: iv.summary, message: iv.message, key: iv.key, evidence: iv.evidence, source },
      );
      if (RUNG[iv.action] >= RUNG[interruptOn]) interrupt(taskId);
    }
    return out;
  };

  let signalledAt = 0;
  let followUps = 0;
  const signal = (sig: NodeJS.Signals, taskId: string | undefined, reason?: string) => {
    let sent = true;
    try { process.kill(pid!, sig); } catch (err) { sent = false; io.err(`loop-sentinel watch: could not interrupt ${pid}: ${(err as Error).message}`); }
    signalledAt = Date.now();
    if (sent) print(`${clock()}  sent ${sig} to ${pid}${reason ? ` (${reason})` : ""}`, { type: "interrupt", pid, signal: sig, taskId, ...(reason ? { reason } : {}) });
  };
  const interrupt = (taskId: string, reason?: string) => {
    if (pid === undefined || interrupted) return;
    interrupted = true;
    signal("SIGINT", taskId, reason);
  };
  /** An interrupted agent that is still there after the grace gets the next signal. */
  const followUp = () => {
    if (pid === undefined || !interrupted || followUps >= FOLLOW_UP_SIGNALS.length || Date.now() - signalledAt < INTERRUPT_GRACE_MS) return;
    signal(FOLLOW_UP_SIGNALS[followUps++], undefined, `still running ${INTERRUPT_GRACE_MS / 1000} s after the interrupt`);
  };

  /** A refused task that made no call since within the bound waits for a person: end it, or say so once. */
  const checkRefused = () => {
    if (refusalIdleMs === 0) return;
    const now = Date.now();
    for (const [taskId, at] of refusedAt) {
      if (now - at < refusalIdleMs) continue;
      refusedAt.delete(taskId);
      const idle = `refused a call ${Math.round((now - at) / 100) / 10} s ago and no call came since`;
      if (pid !== undefined) interrupt(taskId, idle);
      else print(`${clock()}  task ${taskId}  ${idle}: the agent waits for its user`, { type: "waiting", taskId, sinceMs: now - at });
    }
  };

  let watcher: ClineWatcher | undefined;
  const guard = new ClineGuard({
    feed,
    catchUp: () => watcher?.poll(),
    knowsTask: (id) => watcher?.hasTask(id) ?? false,
  });
  const onEvent = (e: ClineTaskEvent) => guard.onWatcherEvent(e);

  watcher = new ClineWatcher({
    roots,
    pollMs,
    historyBefore: started - START_GRACE_MS,
    onEvent,
    onError: (m) => io.err(`loop-sentinel watch: ${m}`),
  });
  if (watcher.existingFolders().length === 0) io.err(`loop-sentinel watch: no tasks/ or sessions/ folder under ${roots.join(", ")} yet; waiting for Cline to create one`);
  let server: HookServer | undefined;
  if (!args.flags.has("no-hook-channel")) {
    const dir = flag(args, "channel-dir") ?? channelDir();
    const candidate = new HookServer({
      dir,
      answer: (q) => {
        const reply = guard.decide(q);
        // The answer goes out now; the agent's next move (or none) is watched from here.
        if (reply.known && (reply.action === "block" || reply.action === "stop")) refusedAt.set(q.taskId, Date.now());
        else refusedAt.delete(q.taskId);
        if (reply.action !== "allow" || json) print(`${clock()}  task ${q.taskId}  hook: ${reply.action} ${q.toolName}`, { type: "hook", taskId: q.taskId, toolName: q.toolName, toolCallId: q.toolCallId, action: reply.action, detector: reply.detector });
        return reply;
      },
      onError: (m) => io.err(`loop-sentinel watch: ${m}`),
    });
    try { await candidate.listen(); server = candidate; } catch (err) { io.err(`loop-sentinel watch: ${(err as Error).message}. Watching the task files only: the hook lets every call through`); }
  }
  print(`${clock()}  watching ${roots.join(", ")}${pid !== undefined ? `; will interrupt ${pid} on ${interruptOn}${refusalIdleMs > 0 ? `, or ${refusalIdleMs / 1000} s after a refusal with no call since` : ""}` : ""}${server ? `; answering the Cline hook at ${server.endpoint}` : ""}`, { type: "watching", roots, pid, interruptOn, refusalIdleMs, hookEndpoint: server?.endpoint });

  await new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      if (timer) clearTimeout(timer);
      process.off("SIGINT", finish);
      process.off("SIGTERM", finish);
      control.signal?.removeEventListener("abort", finish);
      watcher!.poll(); // what the agent wrote last
      resolve();
    };
    process.on("SIGINT", finish);
    process.on("SIGTERM", finish);
    control.signal?.addEventListener("abort", finish);
    const loop = () => {
      watcher!.poll();
      checkRefused();
      if (pid !== undefined && !alive(pid)) { finish(); return; }
      followUp();
      timer = setTimeout(loop, pollMs);
    };
    loop();
  });
  await server?.close();
  print(`${clock()}  done: ${sessions.size} task(s), ${interventions} intervention(s)${interrupted ? `, interrupted ${pid}` : ""}`, { type: "done", tasks: sessions.size, interventions, interrupted });
  return interrupted ? EXIT_INTERRUPTED : 0;
}

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (err) { return (err as NodeJS.ErrnoException).code === "EPERM"; }
}

function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > 80 ? flat.slice(0, 79) + "…" : flat;
}
