/**
 * `loop-sentinel stats FILE|DIR... [--json] [--html FILE] [--config FILE] [--set key=value] [--lenient] [--summary] [--jobs N]`
 * Calibration: per-session repetition figures and interventions, and their distributions over
 * loop and healthy sessions. The work is in src/stats; this file reads arguments, shares the paths
 * out to worker threads (one per core by default) and prints.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { discoverSessions } from "../formats";
import { reportHtml } from "../stats/html";
import { buildReport, reportText } from "../stats/report";
import { figuresOfPath, readerNamed, type PathFigures, type SessionFigures, type StatsContext } from "../stats/perPath";
import { parseSweep, tallySweep } from "../stats/sweep";
import { flag, parseArgs, UsageError } from "./args";
import { reportReadErrors, type CliIO } from "./io";
import { loadCliConfig } from "./loadConfig";
import { quoted } from "../engine/printable";

export const STATS_USAGE = "stats FILE|DIR... [--json] [--html FILE] [--summary] [--config FILE] [--set key=value] [--sweep key=v1,v2|from..to] [--lenient] [--jobs N]";

/** Below this many paths a worker's start-up costs more than it saves. */
const PARALLEL_FROM_PATHS = 8;
const STATS_WORKER = "loop-sentinel-stats-worker";

interface WorkerSetup { kind: typeof STATS_WORKER; configFile?: string; sets: string[]; lenient: boolean; sweep?: { key: string; values: string[] } }
interface WorkItem { index: number; path: string; named: boolean; format: string }

/** The engine settings of the run and of each swept value, as the main thread and every worker build them. */
function contextOf(setup: Omit<WorkerSetup, "kind">, warn: (line: string) => void): StatsContext {
  const config = loadCliConfig(setup.configFile, setup.sets, warn);
  const sweepConfigs = setup.sweep?.values.map((v) => loadCliConfig(setup.configFile, [...setup.sets, `${setup.sweep!.key}=${v}`], warn));
  return { config, lenient: setup.lenient, ...(sweepConfigs ? { sweepConfigs } : {}) };
}

export async function runStats(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, ["config", "set", "html", "sweep", "jobs"], ["json", "lenient", "summary"]);
  if (args.positionals.length === 0) throw new UsageError(`stats needs at least one file or folder\nusage: loop-sentinel ${STATS_USAGE}`);
  const sets = args.flags.get("set") ?? [];
  const configFile = flag(args, "config");
  const lenient = args.flags.has("lenient");
  // A bad --sweep is a usage error before any session is read.
  let sweepSpec: { key: string; values: string[] } | undefined;
  const sweepFlag = flag(args, "sweep");
  if (sweepFlag !== undefined) {
    try { sweepSpec = parseSweep(sweepFlag); } catch (err) { throw new UsageError(`--sweep ${(err as Error).message}`); }
  }
  const jobsFlag = flag(args, "jobs");
  const jobs = jobsFlag === undefined ? os.availableParallelism() : Number(jobsFlag);
  if (!Number.isInteger(jobs) || jobs < 1) throw new UsageError(`--jobs takes a whole number of 1 or more, got ${quoted(jobsFlag)}`);
  const warned = new Set<string>();
  const warnOnce = (line: string) => { if (!warned.has(line)) { warned.add(line); io.err(line); } };
  const setup = { configFile, sets, lenient, ...(sweepSpec ? { sweep: sweepSpec } : {}) };
  const ctx = contextOf(setup, warnOnce);

  const found = discoverSessions(args.positionals);
  const readable = found.flatMap((f, index) => ("error" in f ? [] : [{ index, path: f.path, named: f.named, format: f.reader.format }]));
  const workers = Math.min(jobs, readable.length >= PARALLEL_FROM_PATHS ? readable.length : 1);
  const figures = workers > 1 ? await figuresInWorkers(readable, { kind: STATS_WORKER, ...setup }, workers) : new Map(readable.map((w) => [w.index, figuresOfPath({ ...w, reader: readerNamed(w.format)! }, ctx)]));

  // Results in the walk's order, whichever thread read them.
  const perSession: SessionFigures[] = [];
  const errors: Error[] = [];
  found.forEach((f, index) => {
    if ("error" in f) { errors.push(f.error); return; }
    const r = figures.get(index)!;
    if ("error" in r) { errors.push(new Error(r.error)); return; }
    for (const s of r.sessions) { for (const note of s.notes) io.err(note); perSession.push(s); }
  });
  if (perSession.length === 0) return reportReadErrors("stats", errors, 0, io);
  const sweep = sweepSpec && tallySweep(sweepSpec.key, sweepSpec.values, perSession.map((s) => s.sweep!));
  const report = buildReport(perSession.map((s) => s.report), sets, sweep);
  const html = flag(args, "html");
  if (html !== undefined) {
    try { fs.writeFileSync(html, reportHtml(report)); } catch (err) { throw new UsageError(`cannot write ${html}: ${(err as Error).message}`); }
    io.err(`wrote ${html}`);
  }
  if (args.flags.has("json")) io.out(JSON.stringify(report, null, 1));
  else io.out(reportText(report, !args.flags.has("summary")));
  return reportReadErrors("stats", errors, perSession.length, io);
}

/**
 * The paths shared out to worker threads, each taking the next path as it finishes one (sessions
 * differ in size by orders of magnitude). A progress line on a terminal; the figures come back in
 * a map by the path's place in the walk, so the report is the serial one.
 */
function figuresInWorkers(items: WorkItem[], setup: WorkerSetup, count: number): Promise<Map<number, PathFigures>> {
  const results = new Map<number, PathFigures>();
  const progress = process.stderr.isTTY === true;
  let next = 0;
  return new Promise((resolve, reject) => {
    let running = count;
    let failed = false;
    for (let i = 0; i < count; i++) {
      const worker = new Worker(__filename, { workerData: setup });
      const give = () => {
        if (next < items.length) worker.postMessage(items[next++]);
        else void worker.terminate();
      };
      worker.on("message", (m: { index: number; figures: PathFigures } | { ready: true }) => {
        if ("index" in m) {
          results.set(m.index, m.figures);
          if (progress) process.stderr.write(`\rstats: ${results.size}/${items.length} paths read`);
        }
        give();
      });
      worker.on("error", (err) => { if (!failed) { failed = true; reject(err); } });
      worker.on("exit", () => {
        if (--running > 0 || failed) return;
        if (progress) process.stderr.write("\r\u001b[K");
        if (results.size !== items.length) { reject(new Error(`stats workers ended with ${items.length - results.size} path(s) unread`)); return; }
        resolve(results);
      });
    }
  });
}

/** A worker thread: builds the run's settings, then figures each path it is given until ended. */
function serveAsWorker(setup: WorkerSetup): void {
  const ctx = contextOf(setup, () => undefined); // the main thread has said every warning once
  parentPort!.on("message", (item: WorkItem) => {
    const reader = readerNamed(item.format);
    const figures: PathFigures = reader ? figuresOfPath({ path: item.path, named: item.named, reader }, ctx) : { error: `${item.path}: no reader named ${item.format}` };
    parentPort!.postMessage({ index: item.index, figures });
  });
  parentPort!.postMessage({ ready: true });
}

if (!isMainThread && (workerData as Partial<WorkerSetup> | undefined)?.kind === STATS_WORKER) serveAsWorker(workerData as WorkerSetup);
