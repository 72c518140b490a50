/**
 * What Loop Sentinel's hook adds to each tool call in the real CLIs, headless: the e2e suite's
 * productive session (eleven varied calls, which the guard leaves untouched: checked, since a
 * refused call runs nothing and would make the hook look cheap) run with no hook, with a no-op Node
 * hook and with Loop Sentinel's hook, round after round (so the machine's load falls on all three
 * alike), timing the gap between consecutive model requests (one tool call with its hooks, and the
 * CLI's own work). Prints per agent the median gap of each and the differences. For Qwen Code, which
 * can call a hook over HTTP instead of starting a process, a fourth variant: a no-op HTTP hook on
 * 127.0.0.1 (what a running Loop Sentinel answering over HTTP would cost at the least).
 *
 *   npm run compile && npm run build && node out/test/e2e/agents/latency.js [gemini,qwen] [rounds]
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { runAgent, type Agent, type RunOptions } from "./harness";
import { PRODUCTIVE } from "./scenarios";

const STEPS = PRODUCTIVE;
const CALLS = STEPS.length - 1;

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor(s.length / 2)] : NaN; };

async function main(): Promise<void> {
  const agents = (process.argv[2] ?? "gemini,qwen").split(",") as Agent[];
  const rounds = Number(process.argv[3] ?? 3);
  for (const agent of agents) {
    const gaps: Record<string, number[]> = { none: [], noop: [], ours: [], http: [] };
    // A no-op HTTP hook: answers every call with an empty object (no decision).
    let hits = 0;
    const server = http.createServer((req, res) => { req.resume(); req.on("end", () => { hits++; res.writeHead(200, { "content-type": "application/json" }); res.end("{}"); }); });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const httpHook = [{ matcher: "*", hooks: [{ type: "http", url, timeout: 30 }] }];
    const variants = agent === "qwen" ? (["none", "noop", "ours", "http"] as const) : (["none", "noop", "ours"] as const);
    for (let r = 0; r < rounds; r++) {
      for (const variant of variants) {
        const o: RunOptions = variant === "ours" ? {} : variant === "http" ? { baseline: "none", qwenSettings: { hooks: { PreToolUse: httpHook, PostToolUse: httpHook, PostToolUseFailure: httpHook } } } : { baseline: variant };
        const before = hits;
        const run = await runAgent(agent, `latency-${variant}`, STEPS, o);
        if (variant === "http" && hits - before < 2 * CALLS) throw new Error(`qwen: the HTTP hook was called ${hits - before} times (${run.dir})`);
        const at = run.model.requests.map((q) => q.at);
        if (run.model.requests.length !== CALLS + 1) throw new Error(`${agent} ${variant}: ${run.model.requests.length} requests, expected ${CALLS + 1} (${run.dir})`);
        if (run.model.guided().length > 0) throw new Error(`${agent} ${variant}: Loop Sentinel acted on the productive run (${run.dir})`);
        if (variant === "ours" && run.hookCalls < CALLS) throw new Error(`${agent}: the hook counted ${run.hookCalls} calls (${run.dir})`);
        for (let i = 1; i < at.length; i++) gaps[variant].push(at[i] - at[i - 1]);
      }
    }
    server.close();
    const m = { none: median(gaps.none), noop: median(gaps.noop), ours: median(gaps.ours), http: median(gaps.http) };
    console.log(`${agent}: ${rounds} rounds x ${CALLS} calls; median gap between requests: no hook ${m.none.toFixed(0)} ms, no-op Node hook ${m.noop.toFixed(0)} ms (+${(m.noop - m.none).toFixed(0)}), Loop Sentinel ${m.ours.toFixed(0)} ms (+${(m.ours - m.none).toFixed(0)}; +${(m.ours - m.noop).toFixed(0)} over the no-op hook)` +
      (gaps.http.length ? `, no-op HTTP hook ${m.http.toFixed(0)} ms (+${(m.http - m.none).toFixed(0)})` : ""));
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
