/**
 * The live paths of the extension, measured the way the hosts feed them (issue 10):
 * - Roo: every `message` update carries the whole message so far; 200 KB of reasoning arrives in
 *   10,000 cumulative updates through RooConnection (copy on receipt, translator, engine).
 * - Cline classic: the task file is rewritten with one more chunk each time; the watcher re-reads it.
 * Each reports time per update at the start and at the end of the message (flat means the work per
 * update does not grow with what came before) and the heap the watched task holds afterwards.
 */
import { EventEmitter } from "node:events";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { LoopSession } from "../src/engine/session";
import { RooConnection } from "../src/hosts/roo/connection";
import type { RooApiLike } from "../src/hosts/roo/api";
import { ClineWatcher } from "../src/hosts/cline/watcher";

const gc = (globalThis as { gc?: () => void }).gc;
const heapMB = () => { gc?.(); return process.memoryUsage().heapUsed / 1048576; };

/** Reasoning that does not repeat (so no detector stops the stream early): numbered varied sentences. */
function reasoningText(chars: number): string {
  const words = "check the parser config cache token stream handler module before after update value index".split(" ");
  let s = "", i = 0;
  while (s.length < chars) {
    i++;
    s += `Step ${i}: ${words[i % words.length]} ${words[(i * 7) % words.length]} ${words[(i * 13) % words.length]} number ${i * 31 % 977} looks fine. `;
  }
  return s.slice(0, chars);
}

interface Slice { firstUs: number; lastUs: number; heldMB: number; totalMs: number; reads?: number; deferred?: number }

/** Microseconds per update over the first and last tenth of the updates. */
function slices(timesUs: number[]): { firstUs: number; lastUs: number } {
  const n = Math.max(1, Math.floor(timesUs.length / 10));
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return { firstUs: avg(timesUs.slice(0, n)), lastUs: avg(timesUs.slice(-n)) };
}

export function benchRooCumulative(totalChars = 200_000, updates = 10_000): Slice {
  const api = Object.assign(new EventEmitter(), {
    startNewTask: async () => "t", cancelCurrentTask: async () => undefined, sendMessage: async () => undefined,
    getCurrentTaskStack: () => ["bench-task"],
  }) as unknown as RooApiLike & EventEmitter;
  const session = new LoopSession();
  let events = 0;
  const before = heapMB();
  const conn = new RooConnection({ hostId: "roo-code", label: "Roo Code", api, log: () => undefined, emit: (e) => { events++; session.push(e.event); } });
  const text = reasoningText(totalChars);
  const ts = Date.now();
  const emit = (action: "created" | "updated", t: string, partial: boolean) =>
    api.emit("message", { taskId: "bench-task", action, message: { ts, type: "say", say: "reasoning", text: t, partial } });
  api.emit("message", { taskId: "bench-task", action: "created", message: { ts: ts - 1, type: "say", say: "api_req_started", text: "{}" } });
  const times: number[] = [];
  const t0 = process.hrtime.bigint();
  for (let i = 1; i <= updates; i++) {
    const end = Math.floor((totalChars * i) / updates);
    const s = process.hrtime.bigint();
    emit(i === 1 ? "created" : "updated", text.slice(0, end), i < updates);
    times.push(Number(process.hrtime.bigint() - s) / 1000);
  }
  const totalMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const held = heapMB() - before;
  conn.dispose();
  if (events === 0) throw new Error("the Roo path produced no events");
  return { ...slices(times), heldMB: held, totalMs };
}

export function benchClineAppend(totalBytes = 10 * 1024 * 1024, updates = 400): Slice {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-bench-cline-"));
  try {
    const taskDir = path.join(dir, "tasks", "1700000000000");
    fs.mkdirSync(taskDir, { recursive: true });
    const file = path.join(taskDir, "ui_messages.json");
    const session = new LoopSession();
    let events = 0;
    const watcher = new ClineWatcher({ roots: [path.join(dir, "tasks")], pollMs: 1_000_000, onEvent: (e) => { events++; session.push(e.event); } });
    const messages: string[] = [JSON.stringify({ ts: 1, type: "say", say: "task", text: "Refactor the loader." })];
    const perMessage = Math.floor(totalBytes / updates);
    const text = reasoningText(perMessage * 2);
    const before = heapMB();
    const times: number[] = [];
    let skipped = 0;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < updates; i++) {
      // Cline appends one message per step (a finished reasoning or text row) and rewrites the file.
      const start = (i * 997) % perMessage;
      messages.push(JSON.stringify({ ts: 2 + i, type: "say", say: i % 2 ? "text" : "reasoning", text: `${i}: ${text.slice(start, start + perMessage)}` }));
      fs.writeFileSync(file, `[${messages.join(",")}]`);
      const seen = events;
      const s = process.hrtime.bigint();
      watcher.poll();
      const us = Number(process.hrtime.bigint() - s) / 1000;
      // A large busy file is read at most at CPU_SHARE_PER_FILE: count only the polls that read it.
      if (events > seen) times.push(us); else skipped++;
    }
    const totalMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const held = heapMB() - before;
    watcher.stop();
    if (events === 0) throw new Error("the Cline path produced no events");
    return { ...slices(times), heldMB: held, totalMs, reads: times.length, deferred: skipped };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
