import * as assert from "node:assert/strict";
import { LoopSession } from "../../src/engine/session";
import type { TraceEvent } from "../../src/engine/events";

function feed(events: TraceEvent[]) {
  const s = new LoopSession();
  return events.flatMap((e) => s.push(e));
}

function readCycle(n: number, output: (i: number) => string, between: (i: number) => TraceEvent[] = () => []): TraceEvent[] {
  const evs: TraceEvent[] = [{ t: "user", text: "go" }];
  for (let i = 0; i < n; i++) {
    evs.push({ t: "request" }, { t: "tool_call", id: `c${i}`, name: "read_file", input: { path: "src/a.ts" } }, { t: "end" });
    evs.push({ t: "tool_result", id: `c${i}`, ok: true, output: output(i) }, ...between(i));
  }
  return evs;
}

describe("tool-repeat", () => {
  it("warns on the third identical read with identical output, then blocks", () => {
    const ivs = feed(readCycle(6, () => "same"));
    assert.equal(ivs[0].action, "warn");
    assert.equal(ivs[0].detector, "tool-repeat");
    assert.equal(ivs[0].evidence.count, 3);
    assert.ok(ivs.some((iv) => iv.action === "block"));
  });

  it("stays quiet while a polled output changes", () => {
    assert.deepEqual(feed(readCycle(8, (i) => `progress ${i * 10}%`)), []);
  });

  it("stays quiet when every repeat follows an edit", () => {
    const evs = readCycle(5, () => "same", (i) => [
      { t: "request" }, { t: "tool_call", id: `e${i}`, name: "apply_diff", input: { path: `src/f${i}.ts`, diff: "x" } }, { t: "end" },
      { t: "tool_result", id: `e${i}`, ok: true, output: "ok" },
    ]);
    assert.deepEqual(feed(evs), []);
  });

  const bash = (id: string, command: string, output: string): TraceEvent[] => [
    { t: "request" }, { t: "tool_call", id, name: "Bash", input: { command, description: "x" } }, { t: "end" },
    { t: "tool_result", id, ok: true, output },
  ];
  const status = "gh run list --branch fix --limit 1 --json status";

  it("counts unchanged polls after a sleep as polls, not as repeats", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "wait for CI" }];
    for (let i = 0; i < 4; i++) evs.push(...bash(`p${i}`, status, `[{"status":"in_progress"}]`), ...bash(`s${i}`, "sleep 60", ""));
    assert.deepEqual(feed(evs), []);
  });

  it("still flags endless unchanged polling", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "wait for CI" }];
    for (let i = 0; i < 16; i++) evs.push(...bash(`p${i}`, status, `[{"status":"in_progress"}]`), ...bash(`s${i}`, "sleep 60", ""));
    const ivs = feed(evs);
    assert.ok(ivs.length > 0);
    assert.equal(ivs[0].detector, "tool-repeat");
  });

  it("treats a PR state change as progress for the next status query", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "ship it" }];
    evs.push(...bash("a", status, "same"), ...bash("b", status, "same"), ...bash("c", "gh pr ready 735", "ok"), ...bash("d", status, "same"), ...bash("e", status, "same"));
    assert.deepEqual(feed(evs), []);
  });

  it("flags three back-to-back identical commands with identical output", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "x" }];
    for (let i = 0; i < 3; i++) evs.push(...bash(`c${i}`, "submit flag{x}", "Wrong flag!"));
    const ivs = feed(evs);
    assert.equal(ivs.length, 1);
    assert.equal(ivs[0].toolCallId, undefined); // warn carries no block target
    assert.equal(ivs[0].evidence.tool, "Bash");
  });

  it("sees eight identical calls in one batch as a loop but distinct parallel reads as fan-out", () => {
    const batch = (paths: string[]): TraceEvent[] => [
      { t: "user", text: "read" }, { t: "request" },
      ...paths.map((p, i): TraceEvent => ({ t: "tool_call", id: `b${i}`, name: "read_file", input: { path: p } })),
      { t: "end" },
      ...paths.map((p, i): TraceEvent => ({ t: "tool_result", id: `b${i}`, ok: true, output: `content of ${p}` })),
    ];
    const same = feed(batch(Array(8).fill("README.md")));
    assert.ok(same.length > 0 && same[0].event <= 4, "warned by the 3rd call of the batch");
    assert.deepEqual(feed(batch(["a.ts", "b.ts", "c.ts", "d.ts", "e.ts", "f.ts", "g.ts", "h.ts"])), []);
  });

  it("waits for the output: a third call that shows new log lines is not flagged", () => {
    const outs = ["a", "a\nb", "a\nb\nc", "a\nb\nc", "a\nb\nc\nd", "done"];
    const evs: TraceEvent[] = [{ t: "user", text: "tell me when the build finishes" }];
    outs.forEach((o, i) => evs.push(...bash(`t${i}`, "tail -n 8 /tmp/build.log", o)));
    assert.deepEqual(feed(evs), []);
  });

  it("allows the runs the user asked for, and no more", () => {
    const cmd = "npx playwright test tests/checkout.spec.ts --project=chromium";
    const runs = (n: number): TraceEvent[] => {
      const evs: TraceEvent[] = [{ t: "user", text: `It is flaky. Run \`${cmd}\` three times in a row and tell me if it fails.` }];
      for (let i = 0; i < n; i++) evs.push(...bash(`r${i}`, cmd, `Running 3 tests\n  3 passed (8.${i}s)`));
      return evs;
    };
    assert.deepEqual(feed(runs(3)), []);
    assert.equal(feed(runs(5))[0]?.detector, "tool-repeat");
    const unasked: TraceEvent[] = [{ t: "user", text: "check the checkout flow" }, ...runs(3).slice(1)];
    assert.equal(feed(unasked)[0]?.detector, "tool-repeat");
  });

  it("reports its progress in the status, and starts over after progress", () => {
    const s = new LoopSession();
    const status = () => s.detectorStatus().find((d) => d.id === "tool-repeat")!;
    for (const e of readCycle(2, () => "same")) s.push(e);
    assert.ok(status().progress > 0.5 && status().progress < 1, String(status().progress));
    for (const e of bash("w", "sed -i 's/a/b/' src/a.ts", "")) s.push(e);
    for (const e of bash("x", "ls", "a.ts")) s.push(e);
    assert.equal(status().progress, 1 / 3);
  });
});

describe("tool-repeat over spelling variants", () => {
  const listing = (cmds: string[], output: (i: number) => string, name = "run_commands") => {
    const evs: TraceEvent[] = [{ t: "user", text: "List the files in the current directory." }];
    cmds.forEach((c, i) => {
      const input = name === "run_commands" ? { commands: [c] } : { command: c };
      evs.push({ t: "request" }, { t: "tool_call", id: `v${i}`, name, input }, { t: "end" }, { t: "tool_result", id: `v${i}`, ok: true, output: output(i) });
    });
    return evs;
  };

  it("counts commands that differ only in flags or spelling when their output is identical (Cline SDK run_commands)", () => {
    const ivs = feed(listing(["ls", "ls .", "ls ./", "ls -1", "ls "], () => "README.txt\n"));
    assert.equal(ivs[0]?.detector, "tool-repeat");
    assert.equal(ivs[0]?.evidence.count, 3);
    assert.match(ivs[0].summary, /variants/);
  });

  it("does not merge variants whose output differs, nor different operands", () => {
    assert.deepEqual(feed(listing(["ls", "ls -la", "ls -1", "ls -R"], (i) => `listing format ${i}`, "execute_command")), []);
    assert.deepEqual(feed(listing(["ls src", "ls test", "ls docs", "ls media"], () => "", "execute_command")), []);
  });
});
