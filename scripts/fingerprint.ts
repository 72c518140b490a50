/**
 * `npm run bench -- --fingerprint [PATH...]`: a digest of every intervention the engine makes, for
 * a change that must not change detection (a speed change): the labelled, recorded and host fixture
 * sets under test/fixtures and any paths given, each session replayed whole, and 200 generated cases
 * of every loop class and look-alike family at two seeds. Equal digests before and after a change
 * mean the same interventions (event, detector, action, key, guidance, evidence) and the same final
 * detector status and counts. Paths in the digests are relative to each set, so two checkouts compare.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { LoopSession } from "../src/engine/session";
import type { TraceEvent } from "../src/engine/events";
import { collectSessions } from "../src/formats";
import { seededRng, seedOf } from "./generator/kit";
import { textClasses } from "./generator/textClasses";
import { toolClasses } from "./generator/toolClasses";

const FIXTURES = path.join("test", "fixtures");
const SEEDS = [16, 5];
const CASES_PER_FAMILY = 200;

/** Every intervention of one session and where the session ended up, written into the digest. */
function replayInto(h: ReturnType<typeof createHash>, events: readonly TraceEvent[]): void {
  const session = new LoopSession();
  for (const e of events) for (const iv of session.push(e)) h.update(JSON.stringify(iv) + "\n");
  h.update(JSON.stringify(session.detectorStatus()) + JSON.stringify(session.stats()) + "\n");
}

function setDigest(root: string): { sessions: number; digest: string } {
  const h = createHash("sha256");
  const { sessions, errors } = collectSessions([root], { lenient: false });
  const named = sessions.map((s) => ({ s, name: path.relative(root, s.file) || path.basename(s.file) })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const { s, name } of named) { h.update(`${name} ${s.format}\n`); replayInto(h, s.events); }
  for (const e of errors) h.update(`error ${path.relative(root, e.file)}\n`);
  return { sessions: sessions.length, digest: h.digest("hex").slice(0, 16) };
}

export function fingerprintMain(argv: string[]): void {
  const extra = argv.filter((a) => !a.startsWith("--"));
  const sets = fs.existsSync(FIXTURES)
    ? fs.readdirSync(FIXTURES).sort().map((d) => path.join(FIXTURES, d)).filter((p) => fs.statSync(p).isDirectory())
    : [];
  const all = createHash("sha256");
  const row = (name: string, detail: string, digest: string) => {
    all.update(`${name} ${digest}\n`);
    process.stdout.write(`${name.padEnd(44)} ${detail.padEnd(14)} ${digest}\n`);
  };
  for (const p of [...sets, ...extra]) {
    const { sessions, digest } = setDigest(p);
    row(p, `${sessions} sessions`, digest);
  }
  for (const seed of SEEDS) {
    for (const g of [...textClasses, ...toolClasses]) {
      const h = createHash("sha256");
      for (let i = 0; i < CASES_PER_FAMILY; i++) replayInto(h, g.draw(seededRng(seedOf(`${seed}:${g.family}:${i}`))).events);
      row(`generated ${g.family} (seed ${seed})`, `${CASES_PER_FAMILY} cases`, h.digest("hex").slice(0, 16));
    }
  }
  process.stdout.write(`${"all".padEnd(44)} ${"".padEnd(14)} ${all.digest("hex").slice(0, 16)}\n`);
}
