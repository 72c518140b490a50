/**
 * CPU cost of following a large classic task file live (a script, not a test: timings vary).
 *
 *   npx tsc -p . && node out/test/e2e/cline/measure-cpu.js [sizeMB=10] [chunks=240] [chunkMs=25]
 *
 * A child process plays Cline: a ~10 MB `ui_messages.json` whose last message, a partial
 * reasoning, grows by one chunk per write, each write a temporary file and a rename (as Cline's
 * atomicWriteFile). This process runs the ClineWatcher at its default 100 ms poll and reports its
 * own CPU time, the events it produced, and, for comparison, what re-parsing the whole file per
 * change would cost.
 */
import { fork } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ClineWatcher } from "../../../src/hosts/cline/watcher";

const CHUNK = "I am still weighing whether to list the directory again before answering. ";

function buildHistory(targetBytes: number): Record<string, unknown>[] {
  const messages: Record<string, unknown>[] = [{ ts: 1, type: "say", say: "task", text: "Refactor the parser module" }];
  let bytes = 0;
  for (let i = 0; bytes < targetBytes; i++) {
    const ts = 1000 + i * 10;
    const batch = [
      { ts, type: "say", say: "api_req_started", text: JSON.stringify({ request: `[read_file for 'src/p${i}.ts'] Result:\n` + "export const x = 1;\n".repeat(60), tokensIn: 9000 + i, tokensOut: 300, cost: 0.01 }) },
      { ts: ts + 1, type: "say", say: "reasoning", text: `Step ${i}: ` + "The parser needs another look at how tokens are grouped. ".repeat(20) },
      { ts: ts + 2, type: "say", say: "text", text: `Reading file ${i}.` },
      { ts: ts + 3, type: "say", say: "tool", text: JSON.stringify({ tool: "readFile", path: `src/p${i}.ts` }) },
    ];
    for (const m of batch) bytes += JSON.stringify(m).length + 1;
    messages.push(...batch);
  }
  return messages;
}

async function playCline(file: string, sizeMb: number, chunks: number, chunkMs: number): Promise<void> {
  const history = buildHistory(sizeMb * 1024 * 1024);
  const prefix = Buffer.from(JSON.stringify(history).slice(0, -1) + ",");
  const last = { ts: Date.now(), type: "say", say: "reasoning", text: "", partial: true };
  const write = () => {
    const tmp = `${file}.tmp.${Date.now()}.${Math.random().toString(36).slice(2, 7)}.json`;
    fs.writeFileSync(tmp, Buffer.concat([prefix, Buffer.from(JSON.stringify(last) + "]")]));
    fs.renameSync(tmp, file);
  };
  write();
  process.send?.({ ready: true, bytes: fs.statSync(file).size });
  await new Promise((r) => setTimeout(r, 500));
  for (let i = 0; i < chunks; i++) {
    last.text += CHUNK;
    write();
    await new Promise((r) => setTimeout(r, chunkMs));
  }
  last.partial = false;
  write();
  process.send?.({ done: true, finalChars: last.text.length });
}

async function main(): Promise<void> {
  const [sizeMb, chunks, chunkMs] = [Number(process.argv[2] ?? 10), Number(process.argv[3] ?? 240), Number(process.argv[4] ?? 25)];
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "ls-cline-cpu-"));
  const file = path.join(root, "tasks", "1", "ui_messages.json");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const child = fork(__filename, ["--play", file, String(sizeMb), String(chunks), String(chunkMs)]);
  const ready = await new Promise<{ bytes: number }>((r) => child.on("message", (m: { ready?: boolean; bytes: number }) => { if (m.ready) r(m); }));
  let reasoningChars = 0, events = 0, reads = 0;
  const watcher = new ClineWatcher({
    roots: [root],
    onEvent: (e) => { events++; if (e.event.t === "reasoning") reasoningChars += e.event.delta.length; },
    onTaskChange: () => { reads++; },
  });
  const initialCpu = process.cpuUsage();
  watcher.poll(); // the initial read of the whole history, measured apart
  const initial = process.cpuUsage(initialCpu);
  const historyEvents = events;
  events = 0; reasoningChars = 0; reads = 0;
  const startCpu = process.cpuUsage();
  const startWall = Date.now();
  watcher.start();
  const done = await new Promise<{ finalChars: number }>((r) => child.on("message", (m: { done?: boolean; finalChars: number }) => { if (m.done) r(m); }));
  await new Promise((r) => setTimeout(r, 1500)); // a large file may wait up to 1 s between reads
  watcher.stop();
  const cpu = process.cpuUsage(startCpu);
  const wallMs = Date.now() - startWall;
  const cpuMs = (cpu.user + cpu.system) / 1000;

  // For comparison: a whole read and JSON.parse per change.
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < 5; i++) JSON.parse(fs.readFileSync(file, "utf8"));
  const fullParseMs = Number(process.hrtime.bigint() - t0) / 5e6;

  console.log(JSON.stringify({
    fileMB: +(ready.bytes / 1048576).toFixed(1), writes: chunks + 1, chunkMs, pollMs: 100,
    initialReadCpuMs: Math.round((initial.user + initial.system) / 1000), historyEvents,
    wallMs, watcherCpuMs: Math.round(cpuMs), watcherCpuPercentOfOneCore: +(100 * cpuMs / wallMs).toFixed(1),
    readsWithChanges: reads, cpuMsPerChangedRead: +(cpuMs / Math.max(1, reads)).toFixed(2),
    events, reasoningChars, finalReasoningChars: done.finalChars, complete: reasoningChars === done.finalChars,
    fullReadAndParseMs: +fullParseMs.toFixed(1),
  }));
}

if (process.argv[2] === "--play") {
  const [file, sizeMb, chunks, chunkMs] = process.argv.slice(3);
  void playCline(file, Number(sizeMb), Number(chunks), Number(chunkMs)).then(() => process.exit(0));
} else {
  void main();
}
