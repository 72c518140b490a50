/** `npm run fuzz -- [COUNT] [SEED]`: the long fuzz campaign; prints inputs tried by kind and every failure. */
import { runCampaign } from "./campaign";

const total = Number(process.argv[2] ?? 10000);
const seed = Number(process.argv[3] ?? 20261124);
if (!Number.isInteger(total) || total <= 0 || !Number.isInteger(seed)) {
  console.error("usage: npm run fuzz -- [COUNT] [SEED]");
  process.exit(2);
}
const started = Date.now();
const { tried, failures } = runCampaign(total, seed);
const sum = Object.entries(tried).filter(([k]) => k.startsWith("input:")).reduce((a, [, b]) => a + b, 0);
console.log(`fuzz: ${sum} inputs in ${((Date.now() - started) / 1000).toFixed(1)} s (seed ${seed})`);
for (const [kind, n] of Object.entries(tried).sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(6)}  ${kind}`);
const classes = Object.entries(failures).sort((a, b) => b[1].count - a[1].count);
const failed = classes.reduce((a, [, f]) => a + f.count, 0);
console.log(failed === 0 ? "no failures" : `${failed} failing input(s) in ${classes.length} class(es):`);
for (const [k, f] of classes) console.log(`  ${String(f.count).padStart(6)}  ${k}\n          e.g. ${f.example}`);
process.exitCode = failed === 0 ? 0 : 1;
