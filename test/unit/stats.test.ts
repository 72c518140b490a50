import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { main } from "../../src/cli/main";
import type { CliIO } from "../../src/cli/io";
import { defaultConfig } from "../../src/engine/config";
import type { TraceEvent } from "../../src/engine/events";
import { replayEvents } from "../../src/engine/replay";
import { readSessions } from "../../src/formats";
import { distributions, METRICS } from "../../src/stats/distributions";
import type { StatsReport } from "../../src/stats/report";
import { callFigures, readLabelFor, verdictOf, type SessionStatsReport } from "../../src/stats/sessionStats";
import { parseSweep } from "../../src/stats/sweep";

const CORPUS = path.resolve(__dirname, "../../../test/fixtures/corpus");

function capture(): CliIO & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (t) => stdout.push(t), err: (t) => stderr.push(t) };
}

/** One request calling `name(input)` and getting `output` back. */
function step(id: string, name: string, input: Record<string, unknown>, output: string, ok = true): TraceEvent[] {
  return [
    { t: "request" },
    { t: "tool_call", id, name, input },
    { t: "end" },
    ok ? { t: "tool_result", id, ok, output } : { t: "tool_result", id, ok, error: output },
  ];
}

describe("stats", () => {
  describe("per-session figures", () => {
    const events: TraceEvent[] = [
      { t: "user", text: "fix it" },
      ...step("a1", "read_file", { path: "src/a.ts" }, "A"),
      ...step("a2", "read_file", { path: "src/a.ts" }, "A"),
      ...step("a3", "read_file", { path: "src/a.ts" }, "A"),
      ...step("t1", "execute_command", { command: "npm test" }, "Error: 1 failing", false),
      ...step("w1", "write_to_file", { path: "src/a.ts", content: "x" }, "written"),
      ...step("t2", "execute_command", { command: "npm  test", timeout: 30 }, "Error: 2 failing", false),
      ...step("a4", "read_file", { path: "src/a.ts" }, "B"),
    ];
    const f = callFigures(events, defaultConfig());

    it("counts calls per (tool, input hash, outcome) using the ledger's call identity", () => {
      assert.equal(f.toolCalls, 7);
      assert.equal(f.distinctCalls, 3);
      const reads = f.groups.find((g) => g.tool === "read_file" && g.outcome === "ok");
      assert.equal(reads?.count, 4);
      // Whitespace and the volatile timeout do not make a different command.
      const tests = f.groups.filter((g) => g.tool === "execute_command");
      assert.equal(tests.length, 1);
      assert.equal(tests[0].count, 2);
      assert.equal(tests[0].outcome, "error");
      assert.notEqual(tests[0].inputHash, reads?.inputHash);
    });

    it("finds the longest run of identical calls and whether it returned identical output", () => {
      assert.deepEqual(f.longestRun, { length: 3, call: "read_file src/a.ts", startEvent: 2, identicalOutput: true });
      assert.deepEqual(f.repeated, { calls: 2, identicalOutput: 0, differentOutput: 2 });
    });

    it("separates repeats with and without progress in between", () => {
      assert.equal(f.metrics.sameCall, 4);
      assert.equal(f.metrics.sameCallSameOutput, 3);
      // The write puts the last read and the second test run in a new progress epoch.
      assert.equal(f.metrics.sameCallNoProgress, 3);
      assert.equal(f.metrics.sameFileReads, 3);
      // The two failures differ only in a number: same error fingerprint.
      assert.equal(f.metrics.sameError, 2);
      assert.equal(f.metrics.distinctCallPct, 43);
    });

    it("counts a sentence repeated within one response even when chunks split it", () => {
      const sentence = "I need to check the configuration file again. ";
      const text = sentence.repeat(5);
      const chunks: TraceEvent[] = [];
      for (let i = 0; i < text.length; i += 7) chunks.push({ t: "reasoning", delta: text.slice(i, i + 7) });
      const g = callFigures([{ t: "request" }, ...chunks, { t: "end" }, { t: "request" }, { t: "text", delta: sentence }, { t: "end" }], defaultConfig());
      assert.equal(g.metrics.streamLineRepeat, 5);
    });
  });

  describe("sweep specs", () => {
    it("takes a list or an integer range", () => {
      assert.deepEqual(parseSweep("detectors.tool-repeat.warnAt=2,3, 5"), { key: "detectors.tool-repeat.warnAt", values: ["2", "3", "5"] });
      assert.deepEqual(parseSweep("idleResetMs=3..5"), { key: "idleResetMs", values: ["3", "4", "5"] });
      assert.throws(() => parseSweep("warnAt=6..2"), /upwards/);
      assert.throws(() => parseSweep("=3"), /key=/);
    });
  });

  describe("verdicts and labels", () => {
    const iv = (event: number) => ({ event, detector: "x", action: "warn", summary: "" });
    it("judges the first intervention against the label's window", () => {
      const loop = { loop: true, onset: 10, deadline: 20 };
      assert.equal(verdictOf(loop, [iv(15)]), "caught");
      assert.equal(verdictOf(loop, [iv(5), iv(15)]), "early");
      assert.equal(verdictOf(loop, [iv(25)]), "late");
      assert.equal(verdictOf(loop, []), "missed");
      assert.equal(verdictOf({ loop: false }, [iv(3)]), "false alarm");
      assert.equal(verdictOf({ loop: false }, []), "quiet");
      assert.equal(verdictOf(undefined, []), "nothing fired");
    });

    it("finds the label beside a trace", () => {
      const label = readLabelFor(path.join(CORPUS, "cline_mra_long_session.trace.jsonl"), assert.fail);
      assert.deepEqual(label, { loop: false, kind: "none", onset: null, deadline: null });
      assert.equal(readLabelFor(path.join(CORPUS, "no_such.trace.jsonl"), assert.fail), undefined);
    });
  });

  describe("distributions", () => {
    const report = (loop: boolean | undefined, sameCall: number, kind?: string): SessionStatsReport => ({
      file: "x", format: "trace", ...(loop === undefined ? {} : { label: { loop, kind } }), events: 0, requests: 0, toolCalls: 0, distinctCalls: 0, groups: [],
      repeated: { calls: 0, identicalOutput: 0, differentOutput: 0 }, interventions: [], verdict: "quiet",
      metrics: { sameCall, sameCallSameOutput: 0, sameCallNoProgress: 0, longestRun: 0, sameError: 0, sameFileReads: 0, streamLineRepeat: 0, distinctCallPct: 100 },
    });

    it("reports the threshold range that separates bimodal loop and healthy counts", () => {
      const sessions = [report(true, 30), report(true, 45), report(false, 1), report(false, 2), report(false, 2), report(undefined, 9)];
      const d = distributions(sessions).find((x) => x.metric === "sameCall")!;
      assert.deepEqual(d.separation && { from: d.separation.from, to: d.separation.to, clean: d.separation.clean }, { from: 3, to: 30, clean: true });
      assert.equal(d.summary.loop?.min, 30);
      assert.equal(d.summary.healthy?.max, 2);
      assert.equal(d.buckets.reduce((n, b) => n + b.counts.unlabelled, 0), 1);
      assert.equal(d.buckets.reduce((n, b) => n + b.counts.loop + b.counts.healthy, 0), 5);
    });

    it("separates per loop kind where the kinds together do not", () => {
      const sessions = [report(true, 30, "tool_repeat_success"), report(true, 1, "reasoning"), report(false, 1), report(false, 2)];
      const d = distributions(sessions).find((x) => x.metric === "sameCall")!;
      assert.equal(d.separation?.clean, false);
      assert.equal(d.byKind.tool_repeat_success?.clean, true);
      assert.deepEqual([d.byKind.tool_repeat_success.from, d.byKind.tool_repeat_success.to], [3, 30]);
      assert.equal(d.byKind.reasoning?.useless, true);
    });

    it("says when a figure does not separate the groups", () => {
      const d = distributions([report(true, 2), report(false, 2), report(false, 5)]).find((x) => x.metric === "sameCall")!;
      assert.equal(d.separation?.useless, true);
      assert.deepEqual(d.separation?.allLoops, { threshold: 2, healthyFlagged: 2 });
    });

    it("has one table per figure, and none without sessions of both kinds", () => {
      const d = distributions([report(false, 1)]);
      assert.equal(d.length, METRICS.length);
      assert.ok(d.every((x) => x.separation === undefined));
    });
  });

  describe("loop-sentinel stats on the labelled corpus", function () {
    // Each test replays the whole corpus (34k events) once or more: give a busy machine room.
    this.timeout(60000);
    let report: StatsReport;
    before(async () => {
      const io = capture();
      assert.equal(await main(["stats", CORPUS, "--json"], io), 0, io.stderr.join("\n"));
      report = JSON.parse(io.stdout.join("\n"));
    });

    it("gives the same report read by worker threads as read in one thread, a bad path named in its place", async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-stats-jobs-"));
      try {
        for (const n of fs.readdirSync(CORPUS)) fs.copyFileSync(path.join(CORPUS, n), path.join(dir, n));
        fs.writeFileSync(path.join(dir, "zz-broken.trace.jsonl"), '{"t":"user","text":"x"}\n{"t":"nonsense"}\n');
        const run = async (jobs: string) => {
          const io = capture();
          const code = await main(["stats", dir, "--json", "--jobs", jobs, "--sweep", "tool-repeat.warnAt=2,3"], io);
          return { code, out: io.stdout.join("\n"), err: io.stderr.join("\n") };
        };
        const serial = await run("1");
        const parallel = await run("2");
        assert.equal(serial.code, 1, serial.err);
        assert.equal(parallel.code, serial.code);
        assert.equal(parallel.out, serial.out);
        assert.equal(parallel.err, serial.err);
        assert.match(parallel.err, /zz-broken\.trace\.jsonl:2/);
        assert.equal((JSON.parse(parallel.out) as StatsReport).sessions.length, fs.readdirSync(CORPUS).filter((n) => n.endsWith(".trace.jsonl")).length);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it("reads every corpus session with its label", () => {
      const traces = fs.readdirSync(CORPUS).filter((n) => n.endsWith(".trace.jsonl"));
      assert.equal(report.sessions.length, traces.length);
      assert.ok(report.sessions.every((s) => s.label !== undefined));
      const loops = traces.filter((n) => JSON.parse(fs.readFileSync(path.join(CORPUS, n.replace(".trace.jsonl", ".label.json")), "utf8")).loop);
      assert.equal(report.overall.loops, loops.length);
      assert.equal(report.overall.healthy, traces.length - loops.length);
    });

    it("reports the interventions the engine makes under the current settings", () => {
      for (const s of readSessions([CORPUS], { lenient: false })) {
        const expected = replayEvents(s.events).interventions.map((iv) => [iv.event, iv.detector, iv.action]);
        const got = report.sessions.find((r) => r.file === s.file)!.interventions.map((iv) => [iv.event, iv.detector, iv.action]);
        assert.deepEqual(got, expected, s.file);
      }
    });

    it("shows the loop session's repeats well above the healthy sessions' median", () => {
      const loop = report.sessions.find((s) => s.label?.loop)!;
      const d = report.distributions.find((x) => x.metric === "sameCallNoProgress")!;
      assert.ok(loop.metrics.sameCallNoProgress > d.summary.healthy!.median, `${loop.metrics.sameCallNoProgress} vs ${d.summary.healthy!.median}`);
      assert.ok(loop.longestRun && loop.longestRun.length >= 3 && loop.longestRun.identicalOutput === true);
    });

    it("--set overrides change what fires: with the engine off nothing does and the loop is missed", async () => {
      const io = capture();
      assert.equal(await main(["stats", CORPUS, "--json", "--set", "enabled=false"], io), 0);
      const off: StatsReport = JSON.parse(io.stdout.join("\n"));
      assert.ok(off.sessions.every((s) => s.interventions.length === 0));
      assert.equal(off.overall.verdicts.missed, off.overall.loops);
      assert.deepEqual(off.overrides, ["enabled=false"]);
      assert.deepEqual(off.distributions, report.distributions);
    });

    it("prints the separation tables as text, and writes a self-contained HTML report", async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-stats-"));
      try {
        const html = path.join(dir, "report.html");
        const io = capture();
        assert.equal(await main(["stats", CORPUS, "--summary", "--html", html], io), 0);
        const text = io.stdout.join("\n");
        for (const m of METRICS) assert.match(text, new RegExp(`^${m.id} — `, "m"));
        assert.match(text, /separates cleanly|does not separate|best at/);
        assert.doesNotMatch(text, /^ {2}verdict: /m); // --summary leaves out the per-session blocks
        const page = fs.readFileSync(html, "utf8");
        assert.equal((page.match(/<svg /g) ?? []).length, METRICS.length);
        assert.doesNotMatch(page, /<script|<link|<img|\bsrc=|\bhref=|@import|url\(/i);
        for (const s of report.sessions) assert.ok(page.includes(path.basename(s.file)), s.file);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it("--sweep replays every session under each value and tallies the verdicts", async () => {
      const io = capture();
      assert.equal(await main(["stats", CORPUS, "--json", "--sweep", "enabled=true,false"], io), 0, io.stderr.join("\n"));
      const swept: StatsReport = JSON.parse(io.stdout.join("\n"));
      assert.equal(swept.sweep?.key, "enabled");
      const [on, off] = swept.sweep!.rows;
      assert.deepEqual(on.verdicts, report.overall.verdicts);
      assert.equal(on.interventions, report.sessions.reduce((n, s) => n + s.interventions.length, 0));
      assert.deepEqual(off.verdicts, { missed: report.overall.loops, quiet: report.overall.healthy });
      assert.equal(off.interventions, 0);
      const text = capture();
      const opencode = path.resolve(CORPUS, "../formats/opencode");
      assert.equal(await main(["stats", opencode, "--summary", "--sweep", "maxAbortsPerTurn=1..3"], text), 0);
      assert.match(text.stdout.join("\n"), /== sweep maxAbortsPerTurn[^\n]*\n[^\n]*\n {2}1 [^\n]*\n {2}2 [^\n]*\n {2}3 /);
      const bad = capture();
      assert.equal(await main(["stats", CORPUS, "--sweep", "warnAt"], bad), 2);
      assert.match(bad.stderr.join("\n"), /--sweep expected key=v1,v2/);
    });

    it("reads any supported format, not only traces", async () => {
      const io = capture();
      const formats = path.resolve(CORPUS, "../formats");
      assert.equal(await main(["stats", path.join(formats, "opencode"), path.join(formats, "pi", "2025-09-02T14-00-00-000Z_0b6c1f0e-3c1a-4f1e-b7d2-5f0c9e2a7d11.jsonl"), "--json"], io), 0);
      const r: StatsReport = JSON.parse(io.stdout.join("\n"));
      assert.deepEqual(r.sessions.map((s) => s.format), ["opencode", "pi"]);
      assert.equal(r.overall.unlabelled, 2);
      const pi = r.sessions[1];
      assert.equal(pi.groups[0].count, 4);
      assert.equal(pi.groups[0].outcome, "error");
    });
  });
});
