import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import type { TraceEvent } from "../../src/engine/events";
import { replayEvents } from "../../src/engine/replay";
import { ClineClassicTranslator, parseToolResults, resultFailed, translateClassicMessages } from "../../src/hosts/cline/classicTranslator";

const FIXTURES = path.resolve(__dirname, "../../../test/fixtures/cline");
const TOOLLOOP = path.join(FIXTURES, "classic/tasks/1795332497258/ui_messages.json");

function load(file: string): Record<string, unknown>[] {
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

function apiReq(ts: number, request: string, usage: Record<string, number> = {}): Record<string, unknown> {
  return { ts, type: "say", say: "api_req_started", text: JSON.stringify({ request, ...usage }), modelInfo: { modelId: "m1" } };
}

describe("Cline classic translator (ui_messages.json)", () => {
  it("turns the captured CLI 2.18.0 tool loop into requests, reasoning, command calls and their results", () => {
    const messages = load(TOOLLOOP);
    const { events } = translateClassicMessages(messages);
    const count = (t: TraceEvent["t"]) => events.filter((e) => e.t === t).length;
    const apiReqs = messages.filter((m) => m.say === "api_req_started");
    assert.equal(events[0].t, "user");
    assert.equal(count("request"), apiReqs.length);
    const calls = events.filter((e) => e.t === "tool_call");
    assert.equal(calls.length, messages.filter((m) => m.say === "command").length);
    for (const c of calls) assert.deepEqual(c.t === "tool_call" && [c.name, c.input], ["execute_command", { command: "ls" }]);
    // Every call but the last is answered by the next request's text.
    const results = events.filter((e) => e.t === "tool_result");
    assert.equal(results.length, calls.length - 1);
    for (const r of results) assert.deepEqual(r.t === "tool_result" && [r.ok, r.output], [true, "README.txt\n"]);
    // Tokens of each request arrive on its end, as Cline filled them in.
    const ends = events.filter((e) => e.t === "end");
    assert.equal(ends.length, apiReqs.length);
    const firstInfo = JSON.parse(apiReqs[0].text as string);
    assert.deepEqual(ends[0].t === "end" && ends[0].usage, { tokensIn: firstInfo.tokensIn, tokensOut: firstInfo.tokensOut, cost: firstInfo.cost });
    // The reasoning text arrives whole, once per request.
    const reasoning = events.filter((e) => e.t === "reasoning").map((e) => (e.t === "reasoning" ? e.delta : ""));
    assert.deepEqual(reasoning, messages.filter((m) => m.say === "reasoning").map((m) => m.text));
  });

  it("emits only the new characters of a growing partial reasoning message", () => {
    const t = new ClineClassicTranslator();
    const full = "I keep thinking about the listing. ".repeat(8);
    const deltas: string[] = [];
    t.message(0, { ts: 1, type: "say", say: "task", text: "list files" });
    t.message(1, apiReq(2, "<task>list files</task>"));
    for (let n = 5; n <= full.length; n += 17) {
      for (const e of t.message(2, { ts: 3, type: "say", say: "reasoning", text: full.slice(0, n), partial: true })) if (e.t === "reasoning") deltas.push(e.delta);
      // An unchanged rewrite (Cline saves other fields) adds nothing.
      assert.deepEqual(t.message(2, { ts: 3, type: "say", say: "reasoning", text: full.slice(0, n), partial: true }), []);
    }
    for (const e of t.message(2, { ts: 3, type: "say", say: "reasoning", text: full, partial: false })) if (e.t === "reasoning") deltas.push(e.delta);
    assert.equal(deltas.join(""), full);
    assert.ok(deltas.length > 5);
  });

  it("survives Cline trimming the end of a streamed text without repeating what was sent", () => {
    const t = new ClineClassicTranslator();
    t.message(0, apiReq(1, "x"));
    const out: string[] = [];
    const push = (text: string) => { for (const e of t.message(1, { ts: 2, type: "say", say: "text", text, partial: true })) if (e.t === "text") out.push(e.delta); };
    push("I will list the files.\n<exec");
    push("I will list the files.");          // the half tag is stripped
    push("I will list the files. Done.");
    // What was sent stays sent; the new words follow once, without a second copy of the sentence.
    assert.equal(out.join(""), "I will list the files.\n<exec Done.");
  });

  it("takes a completion result that restates the response's last text as said once; a different result is new text", () => {
    const text = "Done: notes.txt summarises README.txt (1 line each).";
    const run = (result: string) => {
      const t = new ClineClassicTranslator();
      const out: string[] = [];
      const take = (i: number, m: Record<string, unknown>) => { for (const e of t.message(i, m)) if (e.t === "text") out.push(e.delta); };
      take(0, { ts: 1, type: "say", say: "task", text: "summarise" });
      take(1, apiReq(2, "<task>summarise</task>"));
      take(2, { ts: 3, type: "say", say: "text", text: text.slice(0, 20), partial: true, conversationHistoryIndex: 8 });
      take(2, { ts: 3, type: "say", say: "text", text, partial: false, conversationHistoryIndex: 8 });
      // Cline streams attempt_completion's result into its own row, partial first.
      take(3, { ts: 4, type: "say", say: "completion_result", text: result.slice(0, 12), partial: true, conversationHistoryIndex: 8 });
      take(3, { ts: 4, type: "say", say: "completion_result", text: result, conversationHistoryIndex: 8 });
      return out.join("");
    };
    assert.equal(run(text), text);
    assert.equal(run("All four files are summarised in notes.txt."), text + "All four files are summarised in notes.txt.");
  });

  it("does not treat Loop Sentinel's own guidance coming back as a new user message", () => {
    const sent = "Loop Sentinel: execute_command ls called 3 times";
    const t = new ClineClassicTranslator({ isEcho: (text) => text === sent });
    assert.deepEqual(t.message(0, { ts: 1, type: "say", say: "user_feedback", text: sent }), []);
    assert.deepEqual(t.message(1, { ts: 2, type: "say", say: "user_feedback", text: "please also read the docs" }), [{ t: "user", text: "please also read the docs", ts: 2 }]);
  });

  it("takes the request's tokens and cost as Cline fills them in after the response", () => {
    const t = new ClineClassicTranslator();
    t.message(0, apiReq(1, "first"));
    t.message(1, { ts: 2, type: "say", say: "text", text: "hi" });
    t.message(0, apiReq(1, "first", { tokensIn: 100, tokensOut: 20, cacheReads: 50, cost: 0.01 }));
    const events = t.message(2, apiReq(3, "second"));
    assert.deepEqual(events[0], { t: "end", usage: { tokensIn: 150, tokensOut: 20, cost: 0.01 }, ts: 3 });
    assert.deepEqual(events[1], { t: "request", model: "m1", ts: 3 });
  });

  it("maps a tool approval that streamed as partial to one call, in the model's tool name", () => {
    const t = new ClineClassicTranslator();
    t.message(0, apiReq(1, "x"));
    const tool = JSON.stringify({ tool: "readFile", path: "src/a.ts", content: "/abs/src/a.ts" });
    assert.deepEqual(t.message(1, { ts: 2, type: "ask", ask: "tool", text: tool.slice(0, 20), partial: true }), []);
    const events = t.message(1, { ts: 2, type: "ask", ask: "tool", text: tool, partial: false });
    assert.deepEqual(events, [{ t: "tool_call", id: "cline-2", name: "read_file", input: { path: "src/a.ts" }, ts: 2 }]);
    assert.deepEqual(t.message(1, { ts: 2, type: "ask", ask: "tool", text: tool, partial: false }), []);
  });

  it("reads failures from the result text Cline sends back", () => {
    const t = new ClineClassicTranslator();
    t.message(0, apiReq(1, "x"));
    t.message(1, { ts: 2, type: "say", say: "command", text: "npm test" });
    t.message(2, { ts: 3, type: "ask", ask: "command_output", text: "1 failing" });
    t.message(3, { ts: 4, type: "ask", ask: "tool", text: JSON.stringify({ tool: "editedExistingFile", path: "a.ts", diff: "<<<<<<< SEARCH" }) });
    const request = "[execute_command for 'npm test'] Result:\nCommand executed with exit code 1.\nOutput:\n1 failing\n\n[replace_in_file for 'a.ts'] Result:\nThe user denied this operation.\n\n<environment_details>\n# Current Time\nnow\n</environment_details>";
    const results = t.message(4, apiReq(5, request)).filter((e) => e.t === "tool_result");
    assert.deepEqual(results.map((r) => r.t === "tool_result" && [r.id, r.ok]), [["cline-2", false], ["cline-4", false]]);
  });

  it("parses result blocks without the environment details and Cline's repeated-call notice", () => {
    const blocks = parseToolResults("[execute_command for 'ls'] Result:\nOutput:\nREADME.txt\n\nTool [execute_command] has been called 3 times consecutively with identical arguments. Stop.\n\n\n# task_progress RECOMMENDED\nx\n<environment_details>\nTime 1\n</environment_details>");
    assert.deepEqual(blocks, [{ name: "execute_command", text: "Output:\nREADME.txt" }]);
    assert.equal(resultFailed("Command executed successfully (exit code 0)."), false);
    assert.equal(resultFailed("Command executed.\nexit code 2"), false); // only Cline's own sentence counts
    assert.equal(resultFailed("Command failed with exit code 2."), true);
  });

  it("lets the engine flag the captured reasoning loop and the repeated command (replay)", () => {
    const { events } = translateClassicMessages(load(TOOLLOOP));
    const { interventions } = replayEvents(events);
    assert.ok(interventions.length > 0);
    // The tool side alone (reasoning removed) is flagged by the third identical call.
    const toolsOnly = events.filter((e) => e.t !== "reasoning");
    const first = replayEvents(toolsOnly).interventions[0];
    assert.equal(first?.detector, "tool-repeat");
    const callsBefore = toolsOnly.slice(0, first.event + 1).filter((e) => e.t === "tool_call").length;
    assert.equal(callsBefore, 3);
  });
});
