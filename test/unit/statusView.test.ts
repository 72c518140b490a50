import * as assert from "node:assert/strict";
import { describeState, watchingText } from "../../src/extension/statusView";
import type { HostStatus } from "../../src/hosts/hostAdapter";
import type { InterventionRecord, SessionSummary } from "../../src/extension/sessionManager";
import type { InterventionPhase } from "../../src/extension/stateWords";

const roo: HostStatus = { hostId: "roo", label: "Roo Code", state: "watching", detail: "connected to its API", sessions: 2 };
const cline: HostStatus = { hostId: "cline", label: "Cline", state: "watching", detail: "task files", sessions: 1 };
const missing = (label: string): HostStatus => ({ hostId: label.toLowerCase(), label, state: "not-found", detail: `${label} is not installed`, sessions: 0 });
const session: SessionSummary = { key: "roo:t1", hostId: "roo", hostLabel: "Roo Code", taskId: "t1", title: "Fix *the* config", replay: false };
const intervention = (action: InterventionRecord["action"], phase: InterventionPhase = "done", outcome = "sent guidance"): InterventionRecord => ({
  id: 1, event: 20, detector: "tool-repeat", detectorTitle: "Identical tool calls", action, summary: "read_file a.ts called 3 times",
  message: "…", key: "k", evidence: { events: [1, 2, 3], count: 3 }, phase, outcome, ok: phase === "done", ignored: false,
});

describe("status bar view", () => {
  it("no agent: reads as ready, not off; says none is installed and offers a replay", () => {
    const v = describeState({ kind: "no-host", hosts: [missing("Roo Code"), missing("Cline")] });
    assert.equal(v.background, undefined);
    assert.doesNotMatch(v.text, /eye-closed|off/);
    assert.match(v.text, /ready/);
    assert.match(v.tooltip, /no agent is installed/);
    assert.match(v.tooltip, /Not installed: Roo Code, Cline/);
    assert.match(v.tooltip, /command:loopSentinel\.replaySession/);
    assert.match(v.tooltip, /command:loopSentinel\.showDiagnostics/);
  });

  it("watching: names the agents and counts tasks in words; hosts not installed fold into one line", () => {
    const v = describeState({ kind: "watching", sessions: 1, hosts: [cline, missing("Roo Code"), missing("Kilo Code"), missing("opencode")] });
    assert.equal(v.text, "$(eye) Watching Cline (1 task)");
    assert.equal(v.label, "Watching Cline (1 task)");
    assert.equal(v.background, undefined);
    assert.match(v.tooltip, /\*\*Cline\*\*: watching/);
    assert.match(v.tooltip, /- Not installed: Roo Code, Kilo Code, opencode$/m);
    assert.doesNotMatch(v.tooltip, /not-found/);
    const said = describeState({ kind: "watching", sessions: 0, hosts: [{ ...roo, detail: "watching Fake Roo through its extension API" }] });
    assert.match(said.tooltip, /\*\*Roo Code\*\*: watching Fake Roo/, "the state is said once");
    assert.equal(watchingText([roo, cline], 3), "Watching Roo Code and Cline (3 tasks)");
    assert.equal(watchingText([roo], 0), "Watching Roo Code (no task yet)");
  });

  it("asking: the words say it waits for you, offer the action in the tooltip, and never the past tense", () => {
    const v = describeState({ kind: "intervened", sessions: 1, hosts: [roo], latest: { session, intervention: intervention("stop", "asking", "nothing sent: waiting for your answer") } });
    assert.equal(v.label, "Loop detected: waiting for you");
    assert.equal(v.phase, "asking");
    assert.equal(v.background, "statusBarItem.warningBackground");
    assert.doesNotMatch(v.tooltip, /stopped/);
    assert.match(v.tooltip, /\[Stop the task\]\(command:loopSentinel\.answerIntervention\?/);
    assert.match(v.tooltip, /Fix \\\*the\\\* config/, "task titles are escaped, not rendered as Markdown");
  });

  it("done: the past tense and the host's own account; failed: says it could not", () => {
    const s = describeState({ kind: "intervened", sessions: 1, hosts: [roo], latest: { session, intervention: intervention("stop") } });
    assert.equal(s.background, "statusBarItem.errorBackground");
    assert.equal(s.label, "Loop detected: stopped the task");
    assert.match(s.tooltip, /Loop Sentinel stopped the task\\\./);
    assert.match(s.tooltip, /Roo Code: sent guidance/);
    assert.match(s.tooltip, /command:loopSentinel\.resetDetectors/);
    const f = describeState({ kind: "intervened", sessions: 1, hosts: [roo], latest: { session, intervention: intervention("abort", "failed", "Cline's API is not available") } });
    assert.equal(f.label, "Loop detected: could not abort the response");
    assert.equal(f.background, "statusBarItem.errorBackground");
    const w = describeState({ kind: "warning", sessions: 1, hosts: [roo], latest: { session, intervention: intervention("warn", "shown") } });
    assert.equal(w.background, "statusBarItem.warningBackground");
    assert.match(w.tooltip, /Identical tool calls: read\\_file a\\\.ts called 3 times/);
  });

  it("disabled: offers to turn it back on", () => {
    const v = describeState({ kind: "disabled" });
    assert.match(v.text, /off/);
    assert.match(v.tooltip, /command:loopSentinel\.turnOn/);
  });
});
