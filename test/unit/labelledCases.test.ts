/**
 * Every labelled case (copied from the shared scenarios and real-session corpus) replayed through
 * the engine as the CLI does: a loop's first intervention must fall in [onset, deadline], and a
 * productive session must get no intervention at all (a warning included).
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { replayEvents } from "../../src/engine/replay";
import { readSessions } from "../../src/formats";

interface Label { case: string; loop: boolean; kind: string; onset: number | null; deadline: number | null }

const FIXTURES = path.resolve(__dirname, "../../../test/fixtures");

for (const set of ["scenarios", "corpus", "heldout", "heldout2", "heldout3", "heldout4", "heldout5"]) {
  describe(`labelled ${set}`, () => {
    const dir = path.join(FIXTURES, set);
    const labels = fs.readdirSync(dir).filter((f) => f.endsWith(".label.json")).sort();
    it("has cases to replay", () => assert.ok(labels.length > 0, `no labels in ${dir}`));
    for (const lf of labels) {
      const label = JSON.parse(fs.readFileSync(path.join(dir, lf), "utf8")) as Label;
      const trace = path.join(dir, lf.replace(/\.label\.json$/, ".trace.jsonl"));
      it(`${label.loop ? "catches" : "leaves alone"} ${label.case} (${label.kind})`, () => {
        const [session] = readSessions([trace], { lenient: false });
        const { interventions } = replayEvents(session.events);
        const described = interventions.slice(0, 3).map((iv) => `${iv.event}:${iv.detector}/${iv.action}`).join(", ");
        if (!label.loop) {
          assert.equal(interventions.length, 0, `false alarm(s): ${described}`);
          return;
        }
        assert.ok(interventions.length > 0, `missed: no intervention (onset ${label.onset}, deadline ${label.deadline})`);
        const first = interventions[0].event;
        assert.ok(first >= (label.onset as number), `too early: first at ${first} < onset ${label.onset} (${described})`);
        if (label.deadline !== null) assert.ok(first <= label.deadline, `too late: first at ${first} > deadline ${label.deadline} (${described})`);
      });
    }
  });
}
