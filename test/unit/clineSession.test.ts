import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import type { TraceEvent } from "../../src/engine/events";
import { readSessions } from "../../src/formats";
import { ClineSessionTranslator, translateSessionMessages } from "../../src/hosts/cline/sessionTranslator";

const FIXTURES = path.resolve(__dirname, "../../../test/fixtures/cline");
const SESSION_DIR = path.join(FIXTURES, "v4/sessions/1795332070724_oh9x4");
const SESSION_FILE = path.join(SESSION_DIR, "1795332070724_oh9x4.messages.json");

describe("Cline v4 session translator (<id>.messages.json)", () => {
  const doc = JSON.parse(fs.readFileSync(SESSION_FILE, "utf8"));

  it("turns the captured CLI 3.0.65 loop into one request per assistant message, with calls, results and usage", () => {
    const { events, title } = translateSessionMessages(doc.messages);
    const assistants = doc.messages.filter((m: { role: string }) => m.role === "assistant");
    assert.equal(title, "List the files in the current directory.");
    assert.equal(events[0].t, "user");
    assert.equal(events.filter((e) => e.t === "request").length, assistants.length);
    const calls = events.filter((e) => e.t === "tool_call");
    assert.equal(calls.length, assistants.length);
    for (const c of calls) assert.deepEqual(c.t === "tool_call" && [c.name, c.input], ["run_commands", { commands: ["ls"] }]);
    const results = events.filter((e) => e.t === "tool_result");
    assert.equal(results.length, calls.length);
    // The last call was aborted by Cline's own loop guard: reported as a failure.
    assert.deepEqual(results.map((r) => r.t === "tool_result" && r.ok), [true, true, true, true, false]);
    const ends = events.filter((e) => e.t === "end");
    assert.deepEqual(ends[0].t === "end" && ends[0].usage, { tokensIn: assistants[0].metrics.inputTokens, tokensOut: assistants[0].metrics.outputTokens });
  });

  it("yields nothing for a rewrite with the same messages, and only the new ones after a turn", () => {
    const t = new ClineSessionTranslator();
    const firstTurns = doc.messages.slice(0, 3);
    const before = firstTurns.flatMap((m: unknown, i: number) => t.message(i, m));
    assert.ok(before.length > 0);
    assert.deepEqual(firstTurns.flatMap((m: unknown, i: number) => t.message(i, m)), []);
    const next = doc.messages.slice(0, 5).flatMap((m: unknown, i: number) => t.message(i, m));
    assert.deepEqual(next.map((e: TraceEvent) => e.t), ["request", "reasoning", "text", "tool_call", "end", "tool_result"]);
  });

  it("emits the growth of an assistant message written again with more text", () => {
    const t = new ClineSessionTranslator();
    const first = t.message(0, { id: "a", role: "assistant", content: [{ type: "thinking", thinking: "Let me" }] });
    const grown = t.message(0, { id: "a", role: "assistant", content: [{ type: "thinking", thinking: "Let me think." }, { type: "text", text: "Done" }] });
    assert.deepEqual(first.map((e) => e.t), ["request", "reasoning", "end"]);
    assert.deepEqual(grown, [{ t: "reasoning", delta: " think." }, { t: "text", delta: "Done" }]);
  });

  it("unwraps the user's words and drops Loop Sentinel's own guidance coming back", () => {
    const t = new ClineSessionTranslator({ isEcho: (s) => s.startsWith("Loop Sentinel:") });
    assert.deepEqual(t.message(0, { id: "u1", role: "user", content: [{ type: "text", text: '<user_input mode="act">Fix the bug</user_input>' }] }), [{ t: "user", text: "Fix the bug" }]);
    assert.deepEqual(t.message(1, { id: "u2", role: "user", content: "Loop Sentinel: stop listing." }), []);
  });

  it("is what replay reads from a session folder or file", () => {
    const [fromDir] = readSessions([SESSION_DIR], { lenient: false });
    const [fromFile] = readSessions([SESSION_FILE], { lenient: false });
    assert.equal(fromDir.format, "cline-session");
    assert.deepEqual(fromDir.events, fromFile.events);
    const [classic] = readSessions([path.join(FIXTURES, "classic/tasks/1795332497258")], { lenient: false });
    assert.equal(classic.format, "cline-classic");
  });

  it("says clearly when a session file is not one", () => {
    const dir = fs.mkdtempSync(path.join(require("node:os").tmpdir(), "ls-cline-"));
    const bad = path.join(dir, "x.messages.json");
    fs.writeFileSync(bad, '{"messages": [ {"id":');
    assert.throws(() => readSessions([bad], { lenient: false }), /not valid JSON/);
  });
});
