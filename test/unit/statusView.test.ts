import * as assert from "node:assert/strict";
import { describeState } from "../../src/extension/statusView";
import type { HostStatus } from "../../src/hosts/hostAdapter";
import type { InterventionRecord, SessionSummary } from "../../src/extension/sessionManager";

const roo: HostStatus = { hostId: "roo", label: "Roo Code", state: "watching", detail: "connected to its API", sessions: 2 };
const session: SessionSummary = { key: "roo:t1", hostId: "roo", hostLabel: "Roo Code", taskId: "t1", title: "Fix *the* config", replay: false };
const intervention = (action: InterventionRecord["action"]): InterventionRecord => ({
  id: 1, event: 20, detector: "tool-repeat", detectorTitle: "Identical tool calls", action, summary: "read_file a.ts called 3 times",
  message: "…", key: "k", evidence: { events: [1, 2, 3], count: 3 }, outcome: "sent guidance", ok: true, ignored: false,
});

describe("status bar view", () => {
  it("no host: says so and how to get one watched, no alert colour", () => {
    const v = describeState({ kind: "no-host", hosts: [] });
    assert.equal(v.background, undefined);
    assert.match(v.tooltip, /no agent host found/);
    assert.match(v.tooltip, /command:loopSentinel\.showDiagnostics/);
  });

  it("watching: counts the sessions and lists the hosts", () => {
    const v = describeState({ kind: "watching", sessions: 2, hosts: [roo] });
    assert.equal(v.text, "$(eye) Loop Sentinel: 2");
    assert.equal(v.background, undefined);
    assert.match(v.tooltip, /watching 2 sessions/);
    assert.match(v.tooltip, /\*\*Roo Code\*\*: watching/);
  });

  it("warning and intervened use the theme's warning and error backgrounds and name the latest detection", () => {
    const w = describeState({ kind: "warning", sessions: 1, hosts: [roo], latest: { session, intervention: intervention("warn") } });
    assert.equal(w.background, "statusBarItem.warningBackground");
    assert.match(w.text, /Loop suspected/);
    assert.match(w.tooltip, /Identical tool calls: read\\_file a\\\.ts called 3 times/);
    assert.match(w.tooltip, /Fix \\\*the\\\* config/, "task titles are escaped, not rendered as Markdown");
    const s = describeState({ kind: "intervened", sessions: 1, hosts: [roo], latest: { session, intervention: intervention("stop") } });
    assert.equal(s.background, "statusBarItem.errorBackground");
    assert.match(s.text, /Loop stopped/);
    assert.match(s.tooltip, /stopped the task: sent guidance/);
    assert.match(s.tooltip, /command:loopSentinel\.resetDetectors/);
  });

  it("disabled: offers to turn it back on", () => {
    const v = describeState({ kind: "disabled" });
    assert.match(v.text, /off/);
    assert.match(v.tooltip, /command:loopSentinel\.toggleEnabled/);
  });
});
