import * as assert from "node:assert/strict";
import { INTERVENTION_ACTIONS, INTERVENTION_PHASES, plural, stateWords } from "../../src/extension/stateWords";
import { emptyStateText, eventRanges, humanDetail, interventionView, loopCards, modeWords } from "../../src/extension/panelWords";
import { toastFor } from "../../src/extension/notifier";
import type { InterventionRecord, SessionSummary } from "../../src/extension/sessionManager";

const PAST = /\b(stopped|aborted|refused|warned)\b/i;

describe("state words: one vocabulary for every surface", () => {
  it("uses the past tense only for what the host confirmed", () => {
    for (const phase of INTERVENTION_PHASES) {
      for (const action of INTERVENTION_ACTIONS) {
        const w = stateWords(phase, action);
        const all = `${w.short} | ${w.headline} | ${w.sentence}`;
        if (phase === "done") {
          assert.equal(w.confirmed, true);
          assert.match(all, PAST, `${phase}/${action}: ${all}`);
        } else {
          assert.equal(w.confirmed, false, `${phase}/${action}`);
          assert.doesNotMatch(all, PAST, `${phase}/${action}: ${all}`);
        }
      }
    }
  });

  it("asking says the loop waits for the user, whatever the action", () => {
    for (const action of INTERVENTION_ACTIONS) {
      const w = stateWords("asking", action);
      assert.equal(w.headline, "Loop detected: waiting for you");
      assert.equal(w.short, "Waiting for you");
      assert.equal(w.tone, "warning");
    }
    assert.equal(stateWords("asking", "stop").actLabel, "Stop the task");
    assert.equal(stateWords("asking", "abort").actLabel, "Abort the response");
  });

  it("done names what was done; failed says it could not; a replay says would", () => {
    assert.equal(stateWords("done", "stop").headline, "Loop detected: stopped the task");
    assert.equal(stateWords("done", "abort").short, "Aborted a response");
    assert.equal(stateWords("done", "block").short, "Refused a call");
    assert.equal(stateWords("done", "warn").short, "Warned the agent");
    assert.equal(stateWords("done", "stop").tone, "error");
    assert.equal(stateWords("done", "warn").tone, "warning");
    assert.equal(stateWords("failed", "stop").headline, "Loop detected: could not stop the task");
    assert.equal(stateWords("failed", "warn").tone, "error");
    assert.equal(stateWords("replay", "abort").headline, "Replay: would abort the response");
    assert.equal(stateWords("replay", "stop").short, "Would stop the task");
    assert.match(stateWords("replay", "stop").sentence, /nothing was sent/);
    assert.equal(stateWords("shown", "warn").headline, "Loop detected: warn-only, nothing sent");
  });

  it("every phase and action has words, and no phase shares its short words with another", () => {
    for (const action of INTERVENTION_ACTIONS) {
      const shorts = INTERVENTION_PHASES.map((p) => stateWords(p, action).short);
      assert.equal(new Set(shorts).size, shorts.length, shorts.join(" / "));
      for (const p of INTERVENTION_PHASES) {
        const w = stateWords(p, action);
        assert.ok(w.short && w.headline && w.sentence && w.actLabel, `${p}/${action}`);
        assert.doesNotMatch(`${w.short} ${w.headline} ${w.sentence}`, /\b(rung|PreToolUse|intervened|warnOnly)\b/);
      }
    }
  });

  it("counts agree with their nouns", () => {
    assert.equal(plural(1, "task"), "1 task");
    assert.equal(plural(2, "task"), "2 tasks");
    assert.equal(plural(0, "entry", "entries"), "0 entries");
    assert.equal(plural(1200, "request"), "1,200 requests");
  });
});

const record = (over: Partial<InterventionRecord>): InterventionRecord => ({
  id: 7, event: 79, detector: "tool-repeat", detectorTitle: "Identical tool calls", action: "stop", summary: "ls -la ran 3 times with the same output",
  message: "Stop listing.", key: "k", evidence: { events: [4, 5, 6, 7, 8, 79], count: 3 }, phase: "asking", outcome: "", ignored: false, ...over,
});
const session: SessionSummary = { key: "cline:t", hostId: "cline", hostLabel: "Cline", taskId: "t", title: "List the files of this folder and then tell me what each one of them is for", replay: false };

describe("notification words", () => {
  it("a notification is short, names the task, and says the state in the same words as the status bar", () => {
    const t = toastFor(session, record({ phase: "asking" }));
    assert.equal(t.severity, "warning");
    assert.equal(t.mainAction, "Stop the task");
    assert.ok(t.text.includes(stateWords("asking", "stop").sentence));
    assert.ok(t.text.length < 200, `${t.text.length} characters`);
    assert.doesNotMatch(t.text, /ls -la/, "the evidence lives in the panel");
    assert.match(t.text, /^Cline task “List the files of this folder and then tell me…”: /, "a long title is cut: the panel has the rest");
    const done = toastFor(session, record({ phase: "done" }));
    assert.equal(done.mainAction, undefined);
    assert.equal(done.severity, "error");
    assert.ok(done.text.endsWith("Loop Sentinel stopped the task."));
  });
});

describe("panel words", () => {
  it("the empty panel says when no agent is installed", () => {
    assert.match(emptyStateText({ found: [], watching: [] }), /^No supported agent is installed\./);
    assert.equal(emptyStateText({ found: ["Cline"], watching: ["Cline"] }), "Watching Cline. A task appears here as soon as it runs; or replay a recorded session.");
  });

  it("event numbers as runs", () => {
    assert.equal(eventRanges([4, 5, 6, ...Array.from({ length: 73 }, (_, i) => i + 7)]), "4–79");
    assert.equal(eventRanges([3, 7, 8, 9, 12, 13]), "3, 7–9, 12, 13");
    assert.equal(eventRanges([]), "");
  });

  it("detector details in plain words, counts that agree, no comparison with nothing", () => {
    assert.equal(humanDetail("read_file a.ts 8/3", 5), "read_file a.ts: 8 times so far");
    assert.equal(humanDetail("read_file a.ts 1/3", 5), "read_file a.ts: 1 time so far");
    assert.equal(humanDetail("last two requests 0% alike", 1), "");
    assert.equal(humanDetail("last two requests 40% alike", 2), "last two requests 40% alike");
    assert.equal(humanDetail("reasoning: 1 alike sentences", 3), "");
    assert.equal(humanDetail("reasoning: 3 alike sentences", 3), "reasoning: 3 alike sentences");
    assert.equal(humanDetail("1 items like “- step”", 3), "1 item like “- step”");
  });

  it("the mode in what Loop Sentinel will do for the shown session's agent", () => {
    const settings = { enabled: true, mode: "intervene", actionPolicy: "automatic" as const, hostPolicies: { cline: "ask" as const } };
    assert.equal(modeWords(settings, { hostId: "cline", hostLabel: "Cline", replay: false }), "Cline: asks you before acting");
    assert.equal(modeWords(settings, { hostId: "roo", hostLabel: "Roo Code", replay: false }), "Roo Code: acts on loops by itself");
    assert.equal(modeWords(settings, { hostId: "replay", hostLabel: "Replay", replay: true }), "Replay: nothing is sent");
    assert.equal(modeWords({ ...settings, mode: "warnOnly" }), "Warn-only: shows loops, never acts");
    assert.equal(modeWords({ ...settings, enabled: false }), "Off: nothing is watched");
  });

  it("the saved card agrees with the cards: a replay would have saved, a question saved nothing yet", () => {
    const zero = { tokens: 0, cost: 0, requests: 0 };
    const replay = loopCards({ replay: true, spentInLoops: { tokens: 900, cost: 0.01, requests: 3 }, savedEstimate: { tokens: 900, cost: 0.01, requests: 3 }, interventions: [record({ phase: "replay" })] });
    assert.equal(replay[1].label, "Would have saved (estimate)");
    assert.equal(replay[1].note, "If the loop had gone on as long again (3 requests, $0.010). A replay sends nothing.");
    const unpriced = loopCards({ replay: false, spentInLoops: { tokens: 900, cost: 0, requests: 3 }, savedEstimate: zero, interventions: [] });
    assert.equal(unpriced[0].note, "3 requests, price unknown", "no price known is not $0");
    const asking = loopCards({ replay: false, spentInLoops: zero, savedEstimate: zero, interventions: [record({ phase: "asking" })] });
    assert.equal(asking[1].note, "nothing aborted or stopped yet (waiting for you)");
    assert.equal(asking[0].note, "no loop so far");
    const one = loopCards({ replay: false, spentInLoops: { tokens: 0, cost: 0, requests: 1 }, savedEstimate: zero, interventions: [] });
    assert.equal(one[0].note, "1 request; no token use recorded");
  });

  it("an intervention quotes its repeated passage once", () => {
    const span = "I need to check the file again to be sure about the configuration";
    const quoted = interventionView(record({ summary: `reasoning repeats “${span.slice(0, 50)}…” 3 times`, evidence: { events: [1], count: 3, span } }));
    assert.equal(quoted.repeatedText, undefined);
    assert.deepEqual(quoted.summaryParts, ["reasoning repeats “", span.slice(0, 50), "…” 3 times"]);
    const apart = interventionView(record({ summary: "the same paragraph 3 times", evidence: { events: [1, 2, 3], count: 3, span } }));
    assert.equal(apart.repeatedText, span);
    assert.equal(apart.eventsText, "1–3");
    assert.equal(apart.words.short, "Waiting for you");
  });
});

describe("the panel says what it means (issue 36, point 4)", () => {
  it("a detector row: how close to which next step, never 100% with nothing shown", async () => {
    const { detectorViews, nextRung } = await import("../../src/extension/panelWords");
    assert.deepEqual(nextRung(2, { warnAt: 3, blockAt: 5, stopAt: 7 }), { name: "Warn", at: 3, percent: 67 });
    assert.deepEqual(nextRung(5, { warnAt: 3, blockAt: 5, stopAt: 7 }), { name: "Stop the task", at: 7, percent: 71 });
    assert.deepEqual(nextRung(4, { warnAt: 3, blockAt: 0, stopAt: 7 }), { name: "Stop the task", at: 7, percent: 57 }, "a step set to 0 is skipped");
    assert.equal(nextRung(9, { warnAt: 3, blockAt: 5, stopAt: 7 }), undefined);
    const [row] = detectorViews({ detectors: [{ id: "tool-repeat", enabled: true, progress: 1, detail: "read_file a.ts 5/3", title: "Identical tool calls" }], interventions: [], stats: { requests: 5 } as never },
      () => ({ warnAt: 3, blockAt: 5, stopAt: 7 }));
    assert.equal(row.percent, 71);
    assert.equal(row.next, "Stop the task at 7 (5 now)");
    assert.equal(row.detail, "read_file a.ts: 5 times so far");
    const [warnOnly] = detectorViews({ detectors: [{ id: "tool-repeat", enabled: true, progress: 1, detail: "read_file a.ts 5/3", title: "Same tool call" }], interventions: [], stats: { requests: 5 } as never },
      () => ({ warnAt: 3, blockAt: 5, stopAt: 7 }), true);
    assert.equal(warnOnly.next, "Warn at 7, in place of “Stop the task” (5 now)", "warn-only never stops: the row says what it will do");
  });

  it("one card per loop: the rungs of one finding are one loop", async () => {
    const { loopViews } = await import("../../src/extension/panelWords");
    const loops = loopViews([
      { id: 1, detector: "tool-repeat", key: "k1", action: "warn", phase: "superseded" },
      { id: 2, detector: "stagnation", key: "k2", action: "warn", phase: "done" },
      { id: 3, detector: "tool-repeat", key: "k1", action: "block", phase: "superseded" },
      { id: 4, detector: "tool-repeat", key: "k1", action: "stop", phase: "asking" },
    ]);
    assert.equal(loops.length, 2);
    assert.deepEqual(loops.map((l) => l.id), [2, 4], "each loop shown by its newest step, in order");
    assert.deepEqual(loops[1].rungs.map((r) => `${r.name}: ${r.state}`), ["Warn: Replaced by the next step", "Refuse the call: Replaced by the next step", "Stop the task: Waiting for you"]);
  });

  it("tasks that share a name are told apart in the session list", async () => {
    const { distinctTitles } = await import("../../src/extension/panelWords");
    const titles = distinctTitles([{ key: "b", title: "Fix it", started: 2 }, { key: "a", title: "Fix it", started: 1 }, { key: "c", title: "Other" }]);
    assert.deepEqual([...titles.entries()].sort(), [["a", "Fix it (1 of 2)"], ["b", "Fix it (2 of 2)"], ["c", "Other"]]);
  });

  it("a stop's guidance reads as what would be sent until the host confirmed it (a replay never says it stopped anything)", async () => {
    const { interventionView } = await import("../../src/extension/panelWords");
    const stop = { message: "Loop Sentinel stopped the task: read_file called 7 times. Please review." };
    assert.match(interventionView(record({ ...stop, phase: "replay" })).guidanceText, /^Loop Sentinel would stop the task: /);
    assert.match(interventionView(record({ ...stop, phase: "asking" })).guidanceText, /^Loop Sentinel would stop the task: /);
    assert.match(interventionView(record({ ...stop, phase: "done" })).guidanceText, /^Loop Sentinel stopped the task: /);
  });
});
