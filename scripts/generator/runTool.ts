/**
 * Replays the tool classes' generated cases through the engine and reports per family: share caught,
 * share caught within two repetitions of onset (before copyStarts[3]), median repetitions after
 * onset, early firings (before onset) and false alarms on look-alikes. A local check for the tool
 * half of issue 16; `generate.ts` is the bench's full report.
 * Usage: npx esbuild scripts/generator/runTool.ts --bundle --platform=node --outfile=.tmp/runTool.js
 *        node .tmp/runTool.js [--seed N] [--per N (draws per family, default 60)] [--show FAMILY [--events]]
 */
import { replayEvents } from "../../src/engine/replay";
import type { Intervention } from "../../src/engine/session";
import { toolClasses } from "./toolClasses";
import type { GeneratedCase } from "./types";
import { seededRng } from "./kit";

/** mulberry32: a small seeded generator, so that a seed reproduces every case. */
// One seeded source for the whole generator: the driver's (kit.ts), so a seed draws the same cases here.
export { seededRng };

export interface CaseVerdict {
  family: string;
  kind: GeneratedCase["kind"];
  /** Loops: repetitions after onset at the first intervention (-1 before onset, undefined when missed). */
  repetitions?: number;
  first?: Intervention;
  interventions: number;
}

export function judge(c: GeneratedCase): CaseVerdict {
  const { interventions } = replayEvents(c.events);
  const first = interventions[0];
  const v: CaseVerdict = { family: c.family, kind: c.kind, first, interventions: interventions.length };
  if (c.kind === "loop" && first && c.copyStarts) {
    let k = -1;
    while (k + 1 < c.copyStarts.length && c.copyStarts[k + 1] <= first.event) k++;
    v.repetitions = k;
  }
  return v;
}

function main(argv: string[]): void {
  const arg = (name: string) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
  const seed = Number(arg("--seed") ?? 16);
  const per = Number(arg("--per") ?? 60);
  const show = arg("--show");
  const rng = seededRng(seed);
  const rows: string[] = [];
  let total = 0;
  for (const g of toolClasses) {
    let caught = 0, inTime = 0, early = 0, alarms = 0;
    const reps: number[] = [];
    const shown: string[] = [];
    for (let i = 0; i < per; i++) {
      const c = g.draw(rng);
      total++;
      const v = judge(c);
      const bad = c.kind === "loop" ? v.repetitions === undefined || v.repetitions > 2 || v.repetitions < 0 : v.interventions > 0;
      if (c.kind === "loop") {
        if (v.repetitions !== undefined) {
          caught++;
          if (v.repetitions < 0) early++;
          else { reps.push(v.repetitions); if (v.repetitions <= 2) inTime++; }
        }
      } else if (v.interventions > 0) alarms++;
      if (show === g.family && bad && shown.length < 4) {
        shown.push(`  ${JSON.stringify(c.params)} -> ${v.first ? `${v.first.detector} ${v.first.action} at ${v.first.event} (rep ${v.repetitions}) "${v.first.summary.slice(0, 140)}"` : "missed"} starts=${c.copyStarts?.join(",")}`);
        if (argv.includes("--events")) shown.push(c.events.map((e, j) => `    ${j} ${JSON.stringify(e).slice(0, 200)}`).join("\n"));
      }
    }
    reps.sort((a, b) => a - b);
    const pct = (n: number) => `${((100 * n) / per).toFixed(1)}%`;
    rows.push(g.kind === "loop"
      ? `${g.family.padEnd(20)} loop       caught ${pct(caught).padStart(6)}  in time ${pct(inTime).padStart(6)}  early ${early}  median reps ${reps.length ? reps[Math.floor(reps.length / 2)] : "-"}`
      : `${g.family.padEnd(20)} look-alike false alarms ${pct(alarms).padStart(6)} (${alarms}/${per})`);
    rows.push(...shown);
  }
  console.log(`seed ${seed}, ${total} cases`);
  console.log(rows.join("\n"));
}

if (require.main === module) main(process.argv.slice(2));
