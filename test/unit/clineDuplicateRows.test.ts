import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TraceEvent } from "../../src/engine/events";
import { replayEvents } from "../../src/engine/replay";
import { readSessions } from "../../src/formats";
import { ClineClassicTranslator, translateClassicMessages } from "../../src/hosts/cline/classicTranslator";
import { translateSessionMessages } from "../../src/hosts/cline/sessionTranslator";

/**
 * Cline v3 (before its PR #9235/#9302, Feb 2026) could present one finished text block twice: a
 * second `say:"text"` row with the same words, the same `conversationHistoryIndex`, milliseconds
 * later. Rows below follow the shapes of a real v3.x task file (Anthropic, act mode).
 */
const MODEL = { providerId: "anthropic", modelId: "claude-opus-4-6", mode: "act" };

type Row = Record<string, unknown>;

function apiReq(ts: number, historyIndex: number, request: string): Row {
  return { ts, type: "say", say: "api_req_started", text: JSON.stringify({ request, tokensIn: 12, tokensOut: 80, cost: 0.01 }), modelInfo: MODEL, conversationHistoryIndex: historyIndex };
}
function say(ts: number, kind: "text" | "reasoning", text: string, historyIndex: number, partial = false): Row {
  return { ts, type: "say", say: kind, text, partial, modelInfo: MODEL, conversationHistoryIndex: historyIndex };
}
function readFileRow(ts: number, file: string, historyIndex: number): Row {
  return { ts, type: "say", say: "tool", text: JSON.stringify({ tool: "readFile", path: file, content: `/home/u/proj/${file}`, operationIsLocatedInWorkspace: true }), partial: false, modelInfo: MODEL, conversationHistoryIndex: historyIndex };
}

const SENTENCE = "Now I have a complete understanding of the codebase. Let me also check the openapi.rs to understand how to register the new endpoint.";
/** Long enough that two copies in a row are a loop to stream-repeat whatever its short-unit floor. */
const PARAGRAPH = [
  "The subtask boundaries come from <feedback> blocks inside user messages, so the parser has to walk",
  "every user message in order, split on those tags, and attach each tool call that follows to the",
  "subtask that was open at that point; the backend then exposes the list and the UI renders one",
  "collapsible section per subtask with its own diff summary and timing.",
].join(" ");

function deltas(events: TraceEvent[], channel: "text" | "reasoning"): string[] {
  return events.flatMap((e) => (e.t === channel ? [e.delta] : []));
}

/** One response: api_req_started, reasoning, the text logged twice (19 ms apart), a read_file. */
function doubledResponse(text: string): Row[] {
  return [
    { ts: 1000, type: "say", say: "task", text: "add subtasks to the task view", conversationHistoryIndex: -1 },
    apiReq(1001, 3, "<task>add subtasks to the task view</task>"),
    say(1500, "reasoning", "I should look at openapi.rs before adding the endpoint.", 4),
    say(2000, "text", text, 4),
    say(2019, "text", text, 4),
    readFileRow(2076, "src-tauri/src/openapi.rs", 4),
  ];
}

describe("Cline classic: a finished row logged twice", () => {
  it("sends the text of a row Cline logged twice in one response only once", () => {
    const { events } = translateClassicMessages(doubledResponse(SENTENCE));
    assert.deepEqual(deltas(events, "text"), [SENTENCE]);
    assert.deepEqual(events.map((e) => e.t), ["user", "request", "reasoning", "text", "tool_call", "end"]);
  });

  it("no longer makes stream-repeat abort a response the model said once", () => {
    const rows = doubledResponse(PARAGRAPH);
    const { events } = translateClassicMessages(rows);
    assert.deepEqual(replayEvents(events).interventions, []);
    // The same stream with the second copy kept (what the translator used to send) is flagged: the test can fail.
    const doubled = events.flatMap((e): TraceEvent[] => (e.t === "text" ? [e, { ...e }] : [e]));
    assert.ok(replayEvents(doubled).interventions.some((iv) => iv.detector === "stream-repeat"));
  });

  it("drops a repeated complete reasoning row the same way", () => {
    const thought = "The build passed with only pre-existing warnings, so the feature is complete.";
    const { events } = translateClassicMessages([
      apiReq(1, 41, "x"),
      say(2, "reasoning", thought, 42),
      say(3, "reasoning", thought, 42),
      say(4, "text", "Build succeeded.", 42),
    ]);
    assert.deepEqual(deltas(events, "reasoning"), [thought]);
    assert.deepEqual(deltas(events, "text"), ["Build succeeded."]);
  });

  it("keeps the same words said again in the next request", () => {
    const { events } = translateClassicMessages([
      apiReq(1, 3, "x"),
      say(2, "text", SENTENCE, 4),
      readFileRow(3, "src-tauri/src/openapi.rs", 4),
      apiReq(4, 5, "[read_file for 'src-tauri/src/openapi.rs'] Result:\nuse utoipa;"),
      say(5, "text", SENTENCE, 6),
    ]);
    assert.deepEqual(deltas(events, "text"), [SENTENCE, SENTENCE]);
  });

  it("keeps a repeat in the same request once a tool call or the user came between", () => {
    const afterCall = translateClassicMessages([
      apiReq(1, 3, "x"),
      say(2, "text", SENTENCE, 4),
      readFileRow(3, "a.rs", 4),
      say(4, "text", SENTENCE, 4),
    ]).events;
    assert.deepEqual(deltas(afterCall, "text"), [SENTENCE, SENTENCE]);
    const afterUser = translateClassicMessages([
      apiReq(1, 3, "x"),
      say(2, "text", SENTENCE, 4),
      { ts: 3, type: "say", say: "user_feedback", text: "go on", images: [], files: [], conversationHistoryIndex: 4 },
      say(4, "text", SENTENCE, 4),
    ]).events;
    assert.deepEqual(deltas(afterUser, "text"), [SENTENCE, SENTENCE]);
  });

  it("keeps a repeat whose conversationHistoryIndex differs, or that only matches a partial row", () => {
    const otherIndex = translateClassicMessages([apiReq(1, 3, "x"), say(2, "text", SENTENCE, 4), say(3, "text", SENTENCE, 6)]).events;
    assert.deepEqual(deltas(otherIndex, "text"), [SENTENCE, SENTENCE]);
    const afterPartial = translateClassicMessages([apiReq(1, 3, "x"), say(2, "text", SENTENCE, 4, true), say(3, "text", SENTENCE, 4)]).events;
    assert.deepEqual(deltas(afterPartial, "text"), [SENTENCE, SENTENCE]);
  });

  it("live: the copy may first appear partial; it adds nothing, and only words beyond it would count", () => {
    const t = new ClineClassicTranslator();
    const out: TraceEvent[] = [];
    out.push(...t.message(0, apiReq(1, 3, "x")));
    for (let n = 20; n < SENTENCE.length; n += 30) out.push(...t.message(1, say(2, "text", SENTENCE.slice(0, n), 4, true)));
    out.push(...t.message(1, say(2, "text", SENTENCE, 4)));
    assert.deepEqual(t.message(2, say(3, "text", SENTENCE, 4, true)), []);
    assert.deepEqual(t.message(2, say(3, "text", SENTENCE, 4)), []);
    assert.equal(deltas(out, "text").join(""), SENTENCE);
    assert.deepEqual(deltas(t.message(2, say(3, "text", `${SENTENCE} Then the UI.`, 4)), "text"), [" Then the UI."]);
  });

  it("live: a row Cline deleted is not held against the one that replaces it", () => {
    const t = new ClineClassicTranslator();
    t.message(0, apiReq(1, 3, "x"));
    t.message(1, say(2, "text", SENTENCE, 4));
    t.truncate(1);
    assert.deepEqual(deltas(t.message(1, say(3, "text", SENTENCE, 4)), "text"), [SENTENCE]);
  });

  it("the ui_messages.json reader sends the doubled row once", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cline-dup-"));
    try {
      fs.writeFileSync(path.join(dir, "ui_messages.json"), JSON.stringify(doubledResponse(SENTENCE)));
      const [session] = readSessions([dir], { lenient: false });
      assert.equal(session.format, "cline-classic");
      assert.deepEqual(deltas(session.events, "text"), [SENTENCE]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("Cline v4: identical text in successive turns", () => {
  it("keeps both: messages.json is the model's own history, written per turn, not a UI log", () => {
    const turn = (id: string, ts: number) => ({ id, role: "assistant", ts, content: [{ type: "text", text: SENTENCE }, { type: "tool_use", id: `${id}-t`, name: "read_files", input: { paths: ["openapi.rs"] } }] });
    const result = (id: string, ts: number) => ({ id, role: "user", ts, content: [{ type: "tool_result", tool_use_id: id, content: "use utoipa;" }] });
    const { events } = translateSessionMessages([turn("a1", 1), result("a1-t", 2), turn("a2", 3)]);
    assert.deepEqual(deltas(events, "text"), [SENTENCE, SENTENCE]);
  });
});
