/**
 * `loop-sentinel watch --cline-data DIR [--interrupt PID]`: a headless guard for Cline run in
 * scripts and CI. Follows the data folder's task files live, runs each task through the engine,
 * prints interventions as they happen and, on a stop, sends SIGINT to the agent (the Cline CLI
 * exits cleanly on SIGINT and marks its session cancelled; SIGTERM can leave it running).
 * It also answers Loop Sentinel's Cline PreToolUse hook (`loop-sentinel cline-hook install`) over
 * the local channel, from the same engine sessions, unless `--no-hook-channel`.
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
import { runOpencodeWatch } from "./watchOpencode";
import { runAgentsWatch } from "./watchAgents";

export const WATCH_USAGE = "watch --cline-data DIR [--interrupt PID] [--interrupt-on stop|abort|block|warn] [--json] [--poll MS] [--config FILE] [--set key=value] [--no-hook-channel] [--channel-dir DIR]\n  loop-sentinel watch --opencode URL [--password-env VAR] [--user NAME] [--json] [--config FILE] [--set key=value]\n  loop-sentinel watch --agents [--json] [--config FILE] [--set key=value]";

/** Exit code when the guard interrupted the agent because it looped. */
export const EXIT_INTERRUPTED = 3;

/** Messages stamped up to this long before the guard started still count (the agent started first). */
const START_GRACE_MS = 15_000;

const RUNG: Record<Action, number> = { warn: 1, block: 2, abort: 2, stop: 3 };

export interface WatchControl {
  /** Resolves when the guard has stopped; tests stop it through `signal`. */
  signal?: AbortSignal;
}

export async function runWatch(argv: string[], io: CliIO, control: WatchControl = {}): Promise<number> {
  const args = parseArgs(argv, ["cline-data", "interrupt", "interrupt-on", "poll", "config", "set", "opencode", "password-env", "user", "channel-dir"], ["json", "no-hook-channel", "agents"]);
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
  if (args.positionals.length) throw new UsageError(`unexpected argument "${args.positionals[0]}"`);
  const pidText = flag(args, "interrupt");
  const pid = pidText === undefined ? undefined : Number(pidText);
  if (pid !== undefined && (!Number.isInteger(pid) || pid <= 0)) throw new UsageError(`--interrupt needs a process id, got "${pidText}"`);
  const interruptOn = (flag(args, "interrupt-on") ?? "stop") as Action;
  if (!(interruptOn in RUNG)) throw new UsageError(`--interrupt-on must be one of stop, abort, block, warn; got "${interruptOn}"`);
  const pollMs = Number(flag(args, "poll") ?? 100);
  if (!Number.isFinite(pollMs) || pollMs < 10) throw new UsageError(`--poll needs a number of milliseconds ≥ 10`);
  const config = loadCliConfig(flag(args, "config"), args.flags.get("set") ?? [], io.err);
  const json = args.flags.has("json");

  const started = Date.now();
  const sessions = new Map<string, LoopSession>();
  let interrupted = false;
  let interventions = 0;
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
    // A call the hook reported before the task file showed it: its source is the hook.
    const source = origin?.source ?? { index: -1, kind: "hook:PreToolUse", partial: false, chars: 0 };
    const out = session.push(event);
    for (const iv of out) {
      interventions++;
      print(
        `${clock()}  task ${taskId}  ${iv.action.toUpperCase().padEnd(5)} ${iv.detector}: ${iv.summary}\n               guidance: ${iv.message}`,
        { type: "intervention", taskId, layout: origin?.layout, action: iv.action, detector: iv.detector, summary: iv.summary, message: iv.message, key: iv.key, evidence: iv.evidence, source },
      );
      if (pid !== undefined && !interrupted && RUNG[iv.action] >= RUNG[interruptOn]) {
        interrupted = true;
        let sent = true;
        try { process.kill(pid, "SIGINT"); } catch (err) { sent = false; io.err(`loop-sentinel watch: could not interrupt ${pid}: ${(err as Error).message}`); }
        if (sent) print(`${clock()}  sent SIGINT to ${pid}`, { type: "interrupt", pid, signal: "SIGINT", taskId });
      }
    }
    return out;
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
        if (reply.action !== "allow" || json) print(`${clock()}  task ${q.taskId}  hook: ${reply.action} ${q.toolName}`, { type: "hook", taskId: q.taskId, toolName: q.toolName, toolCallId: q.toolCallId, action: reply.action, detector: reply.detector });
        return reply;
      },
      onError: (m) => io.err(`loop-sentinel watch: ${m}`),
    });
    try { await candidate.listen(); server = candidate; } catch (err) { io.err(`loop-sentinel watch: no hook channel (${(err as Error).message}); watching only`); }
  }
  print(`${clock()}  watching ${roots.join(", ")}${pid !== undefined ? `; will interrupt ${pid} on ${interruptOn}` : ""}${server ? `; answering the Cline hook at ${server.endpoint}` : ""}`, { type: "watching", roots, pid, interruptOn, hookEndpoint: server?.endpoint });

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
      if (pid !== undefined && !alive(pid)) { finish(); return; }
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
