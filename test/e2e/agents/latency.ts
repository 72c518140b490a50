/**
 * What Loop Sentinel's hook adds to each tool call in the real CLIs, headless: the e2e suite's
 * productive session (eleven varied calls, which the guard leaves untouched: checked, since a
 * refused call runs nothing and would make the hook look cheap) run with no hook, with a no-op Node
 * hook and with Loop Sentinel's hook, round after round (so the machine's load falls on all three
 * alike), timing the gap between consecutive model requests (one tool call with its hooks, and the
 * CLI's own work). Prints per agent the median gap of each and the differences.
 *
 *   npm run compile && npm run build && node out/test/e2e/agents/latency.js [gemini,qwen] [rounds]
 */
import { runAgent, type Agent } from "./harness";
import { PRODUCTIVE } from "./scenarios";

const STEPS = PRODUCTIVE;
const CALLS = STEPS.length - 1;

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor(s.length / 2)] : NaN; };

async function main(): Promise<void> {
  const agents = (process.argv[2] ?? "gemini,qwen").split(",") as Agent[];
  const rounds = Number(process.argv[3] ?? 3);
  for (const agent of agents) {
    const gaps: Record<string, number[]> = { none: [], noop: [], ours: [] };
    for (let r = 0; r < rounds; r++) {
      for (const variant of ["none", "noop", "ours"] as const) {
        const run = await runAgent(agent, `latency-${variant}`, STEPS, variant === "ours" ? {} : { baseline: variant });
        const at = run.model.requests.map((q) => q.at);
        if (run.model.requests.length !== CALLS + 1) throw new Error(`${agent} ${variant}: ${run.model.requests.length} requests, expected ${CALLS + 1} (${run.dir})`);
        if (run.model.guided().length > 0) throw new Error(`${agent} ${variant}: Loop Sentinel acted on the productive run (${run.dir})`);
        if (variant === "ours" && run.hookCalls < CALLS) throw new Error(`${agent}: the hook counted ${run.hookCalls} calls (${run.dir})`);
        for (let i = 1; i < at.length; i++) gaps[variant].push(at[i] - at[i - 1]);
      }
    }
    const m = { none: median(gaps.none), noop: median(gaps.noop), ours: median(gaps.ours) };
    console.log(`${agent}: ${rounds} rounds x ${CALLS} calls; median gap between requests: no hook ${m.none.toFixed(0)} ms, no-op Node hook ${m.noop.toFixed(0)} ms (+${(m.noop - m.none).toFixed(0)}), Loop Sentinel ${m.ours.toFixed(0)} ms (+${(m.ours - m.none).toFixed(0)}; +${(m.ours - m.noop).toFixed(0)} over the no-op hook)`);
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
