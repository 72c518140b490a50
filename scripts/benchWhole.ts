/**
 * Whole-process figures (issue 10): `loop-sentinel replay` on a generated session against a process
 * that only reads and JSON.parses the same file, side by side in one run. Wall time from spawn to
 * exit and the child's peak RSS (reported by a preload at exit) are what a user pays; the share of
 * it spent in garbage collection comes from one more run under --trace-gc.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

export interface ProcessRun {
  ms: number;
  peakRssMB: number;
  /** Share of the child's wall time its main thread spent paused collecting garbage (0..1). */
  gcShare: number;
}

/** Streams the file line by line and parses each line: the floor any replay must pay. */
export function parseOnly(file: string): number {
  const fd = fs.openSync(file, "r");
  const buf = Buffer.alloc(1 << 16);
  let rest = "", lines = 0;
  for (;;) {
    const n = fs.readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    const text = rest + buf.toString("utf8", 0, n);
    let start = 0, nl: number;
    while ((nl = text.indexOf("\n", start)) !== -1) {
      if (nl > start) { JSON.parse(text.slice(start, nl)); lines++; }
      start = nl + 1;
    }
    rest = text.slice(start);
  }
  if (rest.trim()) { JSON.parse(rest); lines++; }
  fs.closeSync(fd);
  return lines;
}

const PRELOAD = `process.on("exit", () => { try { require("fs").writeFileSync(process.env.LS_BENCH_RSS_FILE, String(process.resourceUsage().maxRSS)); } catch {} });\n`;

/** Runs `node ARGS` as a child, returning wall time and peak RSS; fails loudly on a non-zero exit. */
export function timeProcess(dir: string, args: string[]): ProcessRun {
  const preload = path.join(dir, "rss-preload.js");
  if (!fs.existsSync(preload)) fs.writeFileSync(preload, PRELOAD);
  const rssFile = path.join(dir, `rss-${process.pid}-${Date.now()}`);
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ["--require", preload, ...args], {
    env: { ...process.env, LS_BENCH_RSS_FILE: rssFile }, stdio: ["ignore", "ignore", "pipe"], maxBuffer: 1 << 24,
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(" ")} exited ${r.status}: ${String(r.stderr).slice(0, 500)}`);
  const kb = Number(fs.readFileSync(rssFile, "utf8"));
  fs.unlinkSync(rssFile);
  return { ms, peakRssMB: kb / 1024, gcShare: gcShareOf(args) };
}

/**
 * Share of a run's wall time the main thread spent paused for garbage collection: the same command
 * run again under --trace-gc, its pauses summed (a gc performance observer would only report after
 * the event loop turns, which a synchronous replay never lets it do).
 */
function gcShareOf(args: string[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ["--trace-gc", ...args], { stdio: ["ignore", "pipe", "ignore"], maxBuffer: 1 << 28, encoding: "utf8" });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  let pausedMs = 0;
  for (const m of String(r.stdout).matchAll(/^\[\d+:0x[0-9a-f]+\]\s+\d+ ms: .*?, ([\d.]+) \/ [\d.]+ ms/gm)) pausedMs += Number(m[1]);
  return ms > 0 ? pausedMs / ms : 0;
}

/** Best of `runs` (the machine is shared: the minimum is the least disturbed run). */
export function bestOf(runs: number, f: () => ProcessRun): ProcessRun {
  let best: ProcessRun | undefined, peakRssMB = 0;
  for (let i = 0; i < runs; i++) {
    const r = f();
    if (!best || r.ms < best.ms) best = r;
    peakRssMB = Math.max(peakRssMB, r.peakRssMB); // memory is not noise: the worst run counts
  }
  return { ms: best!.ms, gcShare: best!.gcShare, peakRssMB };
}
