/**
 * Side by side in pi: the same scripted loops and productive sessions run in the real pi 0.73.1
 * with no guard, with Loop Sentinel, and with each other pi loop guard given, and per guard and
 * session: was the loop caught, at which request, was a productive session touched (a false
 * alarm), and how many characters the model streamed after the loop began.
 *
 * What counts is what the model received, compared with the bare run of the same script (pi's
 * own messages, tool outputs and the script are the same in both): a request whose messages after
 * the model's last turn differ from the bare run's (a refusal, a warning, an injected message),
 * or a response pi cut mid-stream. A guard's own account is never read.
 *
 *   node out/test/e2e/pi/sideBySide.js [--json FILE]
 *   PI_PEER_GUARDS="pi-loop-police=/path/to/its/package" node out/test/e2e/pi/sideBySide.js
 *
 * A peer guard is a pi package folder, installed with `pi install` like Loop Sentinel.
 */
import * as fs from "node:fs";
import { LOOP_SENTINEL, NO_GUARD, runPi, type Guard, type RunResult } from "./harness";
import { messageText, type RequestRecord } from "./fakeModel";
import { LOOKALIKES, LOOPS, type Scenario } from "./scenarios";

export interface Cell {
  guard: string;
  scenario: string;
  loop: boolean;
  /** The first request the model received differently from the bare run (or the one cut), 1-based. */
  actedAt?: number;
  /** What differed there: a tool result, a message, or the response cut. */
  acted?: "tool result" | "message" | "cut";
  /** A response cut mid-stream (the request it answered). */
  cutAt?: number;
  /** Characters the model streamed from the loop's start to the end of the session. */
  charsAfterOnset: number;
  requests: number;
  /** The same script without a guard. */
  bareRequests: number;
  seconds: number;
}

function tail(q: RequestRecord): string[] {
  // The system prompt names the run's own folder: only what follows it is compared.
  return q.tail.filter((m) => m.role !== "system").map((m) => `${String(m.role)}: ${messageText(m)}`);
}

/** Characters streamed from the loop's onset on: the rest of the onset request's stream, and every later one's. */
function charsAfter(res: RunResult, sc: Scenario): number {
  let n = 0;
  for (const q of res.model.requests) {
    if (q.n < sc.onset.request) continue;
    n += q.n === sc.onset.request ? Math.max(0, q.streamedChars - (sc.onset.char ?? 0)) : q.streamedChars;
  }
  return n;
}

export function judge(guard: Guard, sc: Scenario, res: RunResult, bare: RunResult | undefined): Cell {
  let actedAt: number | undefined;
  let acted: Cell["acted"];
  const cut = res.model.requests.find((q) => q.clientGone)?.n;
  if (bare) {
    for (const q of res.model.requests) {
      const b = bare.model.requests[q.n - 1];
      const mine = tail(q);
      const theirs = b ? tail(b) : [];
      if (b && JSON.stringify(mine) === JSON.stringify(theirs)) continue;
      actedAt = q.n;
      const differing = mine.find((t, i) => t !== theirs[i]) ?? "";
      acted = differing.startsWith("tool:") ? "tool result" : "message";
      break;
    }
  }
  if (cut !== undefined && (actedAt === undefined || cut <= actedAt)) { actedAt = cut; acted = "cut"; }
  return {
    guard: guard.name, scenario: sc.name, loop: sc.loop, actedAt, acted, cutAt: cut, charsAfterOnset: sc.loop ? charsAfter(res, sc) : 0,
    requests: res.model.requests.length, bareRequests: (bare ?? res).model.requests.length, seconds: res.ms / 1000,
  };
}

export function peerGuards(env = process.env.PI_PEER_GUARDS ?? ""): Guard[] {
  return env.split(",").map((s) => s.trim()).filter(Boolean).map((s) => {
    const [name, dir] = s.split("=");
    if (!name || !dir || !fs.existsSync(dir)) throw new Error(`PI_PEER_GUARDS: "${s}" is not name=existing-folder`);
    return { name, packageDir: dir };
  });
}

function actedText(c: Cell): string {
  if (c.actedAt === undefined) return "—";
  if (c.acted === "cut") return `request ${c.actedAt}: cut mid-stream`;
  return `request ${c.actedAt}: ${c.acted === "tool result" ? "a call's result replaced (refused)" : "a message added"}`;
}

function cellText(c: Cell): string {
  if (!c.loop) return c.actedAt === undefined ? "quiet" : `false alarm at ${actedText(c)}`;
  if (c.actedAt === undefined) return `not caught; ${c.requests} requests, ${c.charsAfterOnset} chars after onset`;
  return `${actedText(c)}; ${c.requests} requests; ${c.charsAfterOnset} chars after onset`;
}

/** One row per session and guard: caught, when, false alarms, what the model streamed after the loop began. */
export function table(cells: Cell[], guards: Guard[], scenarios: Scenario[]): string {
  const rows = [
    "| session | guard | caught / false alarm | first acted (what the model got) | requests the model answered | chars streamed after the loop began |",
    "| --- | --- | --- | --- | --- | --- |",
  ];
  for (const sc of scenarios) {
    for (const g of guards) {
      const c = cells.find((x) => x.guard === g.name && x.scenario === sc.name);
      if (!c) continue;
      const verdict = sc.loop ? (c.actedAt === undefined ? "not caught" : "caught") : (c.actedAt === undefined ? "quiet" : "**false alarm**");
      rows.push(`| ${sc.name}${sc.loop ? "" : " (productive)"} | ${g.name} | ${verdict} | ${actedText(c)} | ${c.requests} (bare pi: ${c.bareRequests}) | ${sc.loop ? c.charsAfterOnset.toLocaleString("en") : "—"} |`);
    }
  }
  return rows.join("\n");
}

async function main(): Promise<void> {
  const guards = [NO_GUARD, LOOP_SENTINEL, ...peerGuards()];
  const scenarios = [...LOOPS, ...LOOKALIKES];
  const cells: Cell[] = [];
  const started = Date.now();
  for (const sc of scenarios) {
    let bare: RunResult | undefined;
    for (const g of guards) {
      const res = await runPi(g, `side-${sc.name}`, sc.steps, { files: sc.files });
      if (g === NO_GUARD) bare = res;
      const cell = judge(g, sc, res, bare);
      cells.push(cell);
      console.error(`${sc.name} / ${g.name}: ${cellText(cell)} (${cell.seconds.toFixed(1)} s${res.stderr.trim() ? `; stderr: ${res.stderr.trim().slice(0, 200)}` : ""})`);
    }
  }
  console.log(table(cells, guards, scenarios));
  console.log(`\n${cells.length} runs in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const i = process.argv.indexOf("--json");
  if (i > 0 && process.argv[i + 1]) fs.writeFileSync(process.argv[i + 1], JSON.stringify(cells, null, 1));
}

if (require.main === module) main().catch((err) => { console.error(err); process.exit(1); });
