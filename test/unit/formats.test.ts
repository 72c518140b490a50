import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { main } from "../../src/cli/main";
import type { CliIO } from "../../src/cli/io";
import type { TraceEvent, ToolCallEvent, ToolResultEvent } from "../../src/engine/events";
import { replayEvents } from "../../src/engine/replay";
import { readerFor, readSessions } from "../../src/formats";
import { parseTrace } from "../../src/formats/traceFile";
import { SessionFormatError } from "../../src/formats/reader";

const FORMATS = path.resolve(__dirname, "../../../test/fixtures/formats");
const fixture = (...p: string[]) => path.join(FORMATS, ...p);

function readOne(file: string, lenient = false) {
  const sessions = readSessions([file], { lenient });
  assert.equal(sessions.length, 1);
  return sessions[0];
}

const calls = (events: TraceEvent[]) => events.filter((e): e is ToolCallEvent => e.t === "tool_call");
const results = (events: TraceEvent[]) => events.filter((e): e is ToolResultEvent => e.t === "tool_result");
/** Events as a trace file holds them (no undefined fields). */
const asJson = (events: readonly TraceEvent[]) => JSON.parse(JSON.stringify(events)) as TraceEvent[];
const kinds = (events: TraceEvent[]) => events.map((e) => e.t).join(" ");

/** Every result follows its call, after the end of the request that made it. */
function assertResultsFollowTheirCalls(events: TraceEvent[]) {
  events.forEach((e, i) => {
    if (e.t !== "tool_result") return;
    const callAt = events.findIndex((c) => c.t === "tool_call" && c.id === e.id);
    assert.ok(callAt >= 0 && callAt < i, `result ${e.id} at ${i} has no earlier call`);
    const endAt = events.findIndex((c, j) => j > callAt && c.t === "end");
    assert.ok(endAt >= 0 && endAt < i, `result ${e.id} at ${i} comes before its request ended`);
  });
}

function capture(): CliIO & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (t) => stdout.push(t), err: (t) => stderr.push(t) };
}

describe("session readers", () => {
  describe("Claude Code transcript", () => {
    const file = fixture("claude-code", "transcript.jsonl");

    it("is detected and read as claude-code", () => {
      const s = readOne(file);
      assert.equal(s.format, "claude-code");
      assert.equal(s.skipped, 0);
    });

    it("joins the lines of one streamed message into one request, in trace order", () => {
      const { events } = readOne(file);
      assert.equal(kinds(events.slice(0, 9)), "user request reasoning text tool_call tool_call end tool_result tool_result");
      const first = events[1];
      assert.ok(first.t === "request");
      assert.equal(first.model, "claude-sonnet-4-20250514");
      // Usage is the last streamed line's running total: output 120 tokens, input + cache read.
      assert.deepEqual(first.usage, { tokensIn: 12020, tokensOut: 120 });
      assertResultsFollowTheirCalls(events);
    });

    it("drops sub-agent (sidechain) lines, injected meta messages and API-error stand-ins, keeps the user's words", () => {
      const { events } = readOne(file);
      assert.ok(!events.some((e) => e.t === "text" && /API Error/.test(e.delta)));
      assert.ok(!calls(events).some((c) => c.id === "toolu_side"));
      const users = events.filter((e) => e.t === "user");
      assert.equal(users.length, 1);
      assert.match((users[0] as { text: string }).text, /divide test/);
    });

    it("maps tool_result is_error and list content", () => {
      const { events } = readOne(file);
      const rs = results(events);
      assert.equal(rs.find((r) => r.id === "toolu_01Read2")?.output, "     1\texports.divide = (a, b) => a * b;\n");
      const failures = rs.filter((r) => !r.ok);
      assert.equal(failures.length, 4);
      assert.match(failures[0].error ?? "", /Cannot find module 'jest'/);
      assert.deepEqual(calls(events).filter((c) => c.name === "Bash").map((c) => c.input.command), Array(4).fill("npx jest test/calc.test.js"));
    });

    it("reads a sub-agent's own transcript, and finds no session in a summaries-only file", () => {
      const agent = readOne(fixture("claude-code", "agent-3f2a9c1e.jsonl"));
      assert.equal(agent.format, "claude-code");
      assert.equal(kinds(agent.events), "user request tool_call end tool_result request text end");
      assert.deepEqual(readSessions([fixture("claude-code", "0d9e8f7a-summaries-only.jsonl")], { lenient: false }), []);
      assert.deepEqual(readSessions([fixture("claude-code")], { lenient: false }).map((x) => path.basename(x.file)), ["agent-3f2a9c1e.jsonl", "transcript.jsonl"]);
    });

    it("names file, format and line for a broken line", () => {
      const bad = fixture("broken", "bad-line.claude.jsonl");
      assert.throws(() => readSessions([bad], { lenient: false }), (err: unknown) =>
        err instanceof SessionFormatError && err.line === 2 && err.format === "claude-code" && err.message.startsWith(`${bad}:2: (claude-code) not valid JSON`));
      const lenient = readOne(bad, true);
      assert.equal(lenient.skipped, 1);
      assert.equal(lenient.events.filter((e) => e.t === "user").length, 2);
    });
  });

  describe("pi session", () => {
    const file = fixture("pi", "2025-09-02T14-00-00-000Z_0b6c1f0e-3c1a-4f1e-b7d2-5f0c9e2a7d11.jsonl");

    it("replays the active branch only (from the last entry back to the root)", () => {
      const s = readOne(file);
      assert.equal(s.format, "pi");
      const users = s.events.filter((e): e is Extract<TraceEvent, { t: "user" }> => e.t === "user").map((e) => e.text);
      assert.deepEqual(users, ["Why does divide(6, 3) return 18?", "Run the tests first, then fix it."]);
      // The abandoned branch read src/calc.js; the active one never did.
      assert.ok(!calls(s.events).some((c) => c.name === "read"));
      assert.deepEqual(calls(s.events).map((c) => c.id), ["toolu_pi_t0", "toolu_pi_t1", "toolu_pi_t2", "toolu_pi_t3"]);
    });

    it("maps toolCall arguments, isError results, usage and cost; skips the user's own bash", () => {
      const { events } = readOne(file);
      assert.deepEqual(calls(events)[0].input, { command: "npm test" });
      assert.ok(results(events).every((r) => !r.ok && /expected 2, received 18/.test(r.error ?? "")));
      const req = events.find((e) => e.t === "request");
      assert.ok(req && req.t === "request");
      assert.deepEqual(req.usage, { tokensIn: 3040, tokensOut: 60, cost: 0.0008 });
      assert.ok(!calls(events).some((c) => c.input.command === "git status"));
      assertResultsFollowTheirCalls(events);
    });

    it("reads a `pi --mode json` capture from its message_end events", () => {
      const s = readOne(fixture("pi", "pi-mode-json-run.jsonl"));
      assert.equal(s.format, "pi");
      assert.equal(kinds(s.events), "user request reasoning tool_call end tool_result request text end");
      assert.equal(results(s.events)[0].ok, true);
      assert.match(results(s.events)[0].output ?? "", /1 passed/);
    });

    it("names file, format and line for an entry without a role", () => {
      const bad = fixture("broken", "pi-message-without-role.jsonl");
      assert.throws(() => readSessions([bad], { lenient: false }), (err: unknown) =>
        err instanceof SessionFormatError && err.line === 2 && err.format === "pi" && /"role"/.test(err.message));
    });
  });

  describe("opencode export", () => {
    const file = fixture("opencode", "ses_6a1f3c2d9ffe.json");

    it("turns each step-start…step-finish into one request with its usage", () => {
      const s = readOne(file);
      assert.equal(s.format, "opencode");
      assert.equal(s.events.filter((e) => e.t === "request").length, 6);
      const ends = s.events.filter((e): e is Extract<TraceEvent, { t: "end" }> => e.t === "end");
      assert.equal(ends.length, 6);
      assert.deepEqual(ends[0].usage, { tokensIn: 900 + 2048, tokensOut: 80, cost: 0.0021 });
      assertResultsFollowTheirCalls(s.events);
    });

    it("keeps the user's typed text, not synthetic parts; maps error states", () => {
      const { events } = readOne(file);
      assert.equal(events[0].t === "user" && events[0].text, "Fix the divide function in src/calc.js");
      const edit = results(events).find((r) => r.id === "toolu_oc_2");
      assert.equal(edit?.ok, false);
      assert.equal(edit?.error, "Error: oldString not found in content");
      assert.equal(calls(events).filter((c) => c.name === "read").length, 4);
      assert.equal(events.filter((e) => e.t === "reasoning").length, 1);
    });

    it("names the file, format and line of a truncated export", () => {
      const bad = fixture("broken", "opencode-truncated.json");
      // Not detected as anything else: the head still looks like an opencode export.
      assert.equal(readerFor(bad, false)?.format, "opencode");
      assert.throws(() => readSessions([bad], { lenient: false }), (err: unknown) =>
        err instanceof SessionFormatError && err.format === "opencode" && typeof err.line === "number" && err.line > 40 && /not valid JSON/.test(err.message));
    });

    it("points a structural error at the line of the offending part", () => {
      const bad = fixture("broken", "opencode-tool-without-name.json");
      let caught: SessionFormatError | undefined;
      try { readSessions([bad], { lenient: false }); } catch (err) { caught = err as SessionFormatError; }
      assert.ok(caught instanceof SessionFormatError);
      assert.match(caught.message, /messages\[1\]\.parts\[5\]: tool part needs a string "tool"/);
      const lines = fs.readFileSync(bad, "utf8").split("\n");
      assert.match(lines[(caught.line ?? 0) - 1] ?? "", /"id": "prt_/);
      assert.match(lines.slice(caught.line ?? 0, (caught.line ?? 0) + 6).join("\n"), /"callID": "toolu_oc_2"/);
      assert.equal(readOne(bad, true).skipped, 1);
    });
  });

  describe("Gemini CLI saved chats", () => {
    it("reads a /chat save checkpoint (Content list), pairing id-less calls with responses by name", () => {
      const s = readOne(fixture("gemini-cli", "checkpoint-divide-fix.json"));
      assert.equal(s.format, "gemini-cli");
      assert.equal(s.events.filter((e) => e.t === "request").length, 7);
      assert.equal(s.events.filter((e) => e.t === "reasoning").length, 1);
      const reads = calls(s.events).filter((c) => c.name === "read_file");
      assert.equal(reads.length, 4);
      assert.equal(new Set(reads.map((c) => c.id)).size, 4);
      for (const c of reads) assert.equal(results(s.events).find((r) => r.id === c.id)?.output, "exports.divide = (a, b) => a * b;\n");
      const replace = results(s.events).find((r) => r.id === calls(s.events).find((c) => c.name === "replace")?.id);
      assert.equal(replace?.ok, false);
      assertResultsFollowTheirCalls(s.events);
    });

    it("reads a recorded session (JSON) with thoughts, tool calls, results and tokens", () => {
      const s = readOne(fixture("gemini-cli", "session-2025-09-02T14-00-0f1e2d3c.json"));
      assert.equal(kinds(s.events), "user request reasoning tool_call end tool_result request tool_call end tool_result request text end");
      const req = s.events[1];
      assert.ok(req.t === "request");
      assert.deepEqual(req.usage, { tokensIn: 5200, tokensOut: 70 });
      assert.equal(req.model, "gemini-2.5-pro");
    });

    it("reads the JSONL recording the same way, applying updates and $rewindTo", () => {
      const json = readOne(fixture("gemini-cli", "session-2025-09-02T14-00-0f1e2d3c.json"));
      const jsonl = readOne(fixture("gemini-cli", "session-2025-09-02T14-00-0f1e2d3c.jsonl"));
      assert.deepEqual(jsonl.events, json.events);
      assert.ok(!jsonl.events.some((e) => e.t === "text" && /rewrite the whole file/.test(e.delta)));
    });
  });

  describe("detection", () => {
    it("gives each fixture to its own reader and leaves unknown JSON alone", () => {
      const expected: Record<string, string> = {
        "claude-code/transcript.jsonl": "claude-code",
        "pi/2025-09-02T14-00-00-000Z_0b6c1f0e-3c1a-4f1e-b7d2-5f0c9e2a7d11.jsonl": "pi",
        "opencode/ses_6a1f3c2d9ffe.json": "opencode",
        "gemini-cli/checkpoint-divide-fix.json": "gemini-cli",
        "gemini-cli/session-2025-09-02T14-00-0f1e2d3c.json": "gemini-cli",
        "gemini-cli/session-2025-09-02T14-00-0f1e2d3c.jsonl": "gemini-cli",
      };
      for (const [rel, format] of Object.entries(expected)) assert.equal(readerFor(fixture(rel), false)?.format, format, rel);
      assert.equal(readerFor(fixture("broken", "not-a-session.json"), false), undefined);
      // A history of {role, content} (Anthropic style, as Cline keeps it) is not a Gemini checkpoint of {role, parts}.
      assert.notEqual(readerFor(fixture("broken", "anthropic-style-history.json"), false)?.format, "gemini-cli");
      assert.throws(() => readSessions([fixture("broken", "not-a-session.json")], { lenient: false }), /not a session file this tool can read/);
    });

    it("does not claim the corpus traces or labels for another format", () => {
      const corpus = path.resolve(FORMATS, "../corpus");
      for (const name of fs.readdirSync(corpus)) {
        const r = readerFor(path.join(corpus, name), false);
        if (name.endsWith(".trace.jsonl")) assert.equal(r?.format, "trace", name); else assert.equal(r, undefined, name);
      }
    });
  });

  describe("through the same engine", () => {
    const all = ["claude-code", "pi", "opencode", "gemini-cli"];

    it("convert --to trace writes traces that replay to the same interventions", async () => {
      const out = fs.mkdtempSync(path.join(os.tmpdir(), "ls-convert-"));
      try {
        for (const dir of all) {
          const io = capture();
          assert.equal(await main(["convert", fixture(dir), "--to", "trace", "--out", path.join(out, dir) + path.sep], io), 0, io.stderr.join("\n"));
          for (const s of readSessions([fixture(dir)], { lenient: false })) {
            const traceFile = fs.readdirSync(path.join(out, dir)).map((n) => path.join(out, dir, n))
              .find((f) => path.basename(f).startsWith(path.basename(s.file).replace(/\.jsonl?$/, "")));
            assert.ok(traceFile, `no trace written for ${s.file}`);
            const back = parseTrace(fs.readFileSync(traceFile, "utf8"), traceFile, false).events;
            assert.deepEqual(asJson(back), asJson(s.events));
            assert.deepEqual(replayEvents(back).interventions, replayEvents(s.events).interventions);
          }
        }
      } finally {
        fs.rmSync(out, { recursive: true, force: true });
      }
    });

    it("replays the repeated identical reads of the opencode and Gemini fixtures into a tool-repeat intervention", () => {
      for (const file of [fixture("opencode", "ses_6a1f3c2d9ffe.json"), fixture("gemini-cli", "checkpoint-divide-fix.json")]) {
        const s = readOne(file);
        const iv = replayEvents(s.events).interventions.find((i) => i.detector === "tool-repeat");
        assert.ok(iv, `${file}: nothing fired`);
        const ev = s.events[iv.event];
        assert.ok(ev.t === "tool_call" && /read/.test(ev.name), file);
      }
    });

    it("replay accepts every format and exits non-zero naming the broken file", async () => {
      const io = capture();
      assert.equal(await main(["replay", "--json", ...all.map((d) => fixture(d))], io), 0, io.stderr.join("\n"));
      const lines = io.stdout.join("\n").trim().split("\n").map((l) => JSON.parse(l));
      assert.deepEqual([...new Set(lines.map((l) => l.format))].sort(), ["claude-code", "gemini-cli", "opencode", "pi"]);
      const bad = capture();
      assert.equal(await main(["replay", fixture("broken", "bad-line.claude.jsonl")], bad), 1);
      assert.match(bad.stderr.join("\n"), /bad-line\.claude\.jsonl:2: \(claude-code\)/);
    });

    it("convert without --out refuses several sessions and prints one to stdout", async () => {
      const many = capture();
      assert.equal(await main(["convert", fixture("gemini-cli"), "--to", "trace"], many), 2);
      assert.match(many.stderr.join("\n"), /3 sessions found: give --out DIR/);
      const one = capture();
      const opencode = fixture("opencode", "ses_6a1f3c2d9ffe.json");
      assert.equal(await main(["convert", opencode, "--to", "trace"], one), 0);
      const events = parseTrace(one.stdout.join("\n"), "stdout", false).events;
      assert.deepEqual(asJson(events), asJson(readOne(opencode).events));
    });
  });
});
