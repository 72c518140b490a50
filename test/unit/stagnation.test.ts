import * as assert from "node:assert/strict";
import type { TraceEvent } from "../../src/engine/events";
import { request, richProse, runOnly, streamOf } from "./streamTestKit";

const only = (events: TraceEvent[], overrides: Record<string, number | boolean> = {}) => runOnly(["stagnation"], events, overrides);
const MSG = "I'm doing well, thanks for asking. What would you like me to work on?";
let callId = 0;
const call = (name: string, input: Record<string, unknown>, output: string): { call: TraceEvent; result: TraceEvent } => {
  const id = `c${++callId}`;
  return { call: { t: "tool_call", id, name, input }, result: { t: "tool_result", id, ok: true, output } };
};
/** One request with thinking, an optional tool call (inside the request) and its result (after it). */
function step(thinking: string, tool?: { call: TraceEvent; result: TraceEvent }): TraceEvent[] {
  return [{ t: "request" }, ...streamOf("reasoning", thinking), ...(tool ? [tool.call] : []), { t: "end" }, ...(tool ? [tool.result] : [])];
}

describe("stagnation", () => {
  it("catches the same message in a new request with nothing in between, at the 2nd copy", () => {
    const events: TraceEvent[] = [{ t: "user", text: "How are you?" }, ...request(streamOf("text", MSG)), ...request(streamOf("text", MSG, 3)), ...request(streamOf("text", MSG, 1))];
    const ivs = only(events);
    assert.ok(ivs.length >= 1);
    assert.equal(ivs[0].detector, "stagnation");
    assert.equal(ivs[0].action, "abort");
    assert.equal(events[ivs[0].event].t, "end");
    assert.equal(ivs[0].event, 2 + streamOf("text", MSG).length + 2 + streamOf("text", MSG, 3).length, "at the end of the 2nd copy");
    assert.equal(ivs[0].evidence.similarity, 1);
    assert.deepEqual(ivs.map((i) => i.action), ["abort", "stop"], "the 3rd copy stops the task");
  });

  it("sees a reworded copy as the same message", () => {
    const other = "I'm doing well, thanks a lot for asking! What would you like me to work on?";
    const ivs = only([{ t: "user", text: "hi" }, ...request(streamOf("text", MSG)), ...request(streamOf("text", other))], { minSimilarity: 0.5 });
    assert.equal(ivs.length, 1);
  });

  it("catches a monologue reworded every time, at its 3rd copy", () => {
    const answers = [
      "I couldn't deploy to staging: no AWS credentials are configured in this environment. Could you run aws configure or set AWS_PROFILE, then ask me again?",
      "I can't deploy to staging because no AWS credentials are configured in this environment. Please run aws configure or set AWS_PROFILE, then ask me again.",
      "Deploying to staging failed: there are no AWS credentials configured here. Could you run aws configure or set AWS_PROFILE and then ask me again?",
      "No AWS credentials are configured in this environment, so I couldn't deploy to staging. Please run aws configure or set AWS_PROFILE and ask me again.",
    ];
    const events: TraceEvent[] = [{ t: "user", text: "Deploy main to staging." }];
    const ends: number[] = [];
    for (const a of answers) { events.push(...request(streamOf("text", a))); ends.push(events.length - 1); }
    const ivs = only(events);
    assert.ok(ivs.length >= 1);
    assert.equal(ivs[0].event, ends[2], "at the end of the 3rd reworded copy");
    assert.match(ivs[0].summary, /3 requests in a row in other words/);
    assert.ok((ivs[0].evidence.similarity ?? 1) < 0.9);
    assert.deepEqual(only(events.slice(0, ends[1] + 1)), [], "two reworded copies are not enough");
  });

  it("catches a bare short message said word for word in request after request, at its 3rd copy", () => {
    for (const short of ["I am done.", "No further action needed.", "I'll run the tests."]) {
      const events: TraceEvent[] = [{ t: "user", text: "Fix the failing invoice test." }, ...request(streamOf("text", "The invoice test passes now; the rounding was off by one cent."))];
      const ends: number[] = [];
      for (let k = 0; k < 6; k++) { events.push(...request(streamOf("text", short, 1 + k))); ends.push(events.length - 1); }
      const ivs = only(events);
      assert.equal(ivs[0]?.event, ends[2], `"${short}": at the end of the 3rd copy`);
      assert.deepEqual(only(events.slice(0, ends[1] + 1)), [], "two copies of a short message are not enough");
    }
  });

  it("leaves short messages alone that change, or that a tool call or the user's reply comes between", () => {
    const shorts = ["Running the tests.", "Fixing the import.", "Running the tests.", "Done."];
    const changing: TraceEvent[] = [{ t: "user", text: "go" }, ...shorts.flatMap((m, k) => request(streamOf("text", m, 1 + k)))];
    assert.deepEqual(only(changing), []);
    const acting: TraceEvent[] = [{ t: "user", text: "go" }];
    for (let k = 0; k < 6; k++) { const c = call("execute_command", { command: `npm test -- --shard=${k + 1}/6` }, `shard ${k + 1}: ${10 + k} passing`); acting.push(...step("I'll run the tests.", c)); }
    assert.deepEqual(only(acting), [], "the same short plan before each new call is work");
    const replied: TraceEvent[] = [{ t: "user", text: "go" }];
    for (const reply of ["ok", "and now?", "anything else?", "thanks", "still there?"]) replied.push(...request(streamOf("text", "I am done.")), { t: "user", text: reply });
    assert.deepEqual(only(replied), [], "a user who keeps replying gets an answer each time");
  });

  it("stays quiet when a user message comes between the copies", () => {
    const events: TraceEvent[] = [{ t: "user", text: "hi" }, ...request(streamOf("text", MSG)), { t: "user", text: "hi again" }, ...request(streamOf("text", MSG))];
    assert.deepEqual(only(events), []);
  });

  it("stays quiet when the repeat comes with a tool call (a question to the user, a retry after an API error)", () => {
    const ask = call("ask_followup_question", { question: MSG }, "ok");
    const events: TraceEvent[] = [{ t: "user", text: "hi" }, ...request(streamOf("text", MSG + "\n\n[Response interrupted by API Error]")), ...step(MSG, ask)];
    assert.deepEqual(only(events), []);
  });

  it("stays quiet when every turn opens with the same sentence but says something new", () => {
    const opening = "Let me look at the failing test output again and compare it with the parser. ";
    const news = ["The first failure is row 3, which has a quoted comma inside the address field; split breaks it.", "Now row 3 passes but row 7 has an escaped quote that my new tokenizer treats as end of field.", "Row 7 passes. The last failure is a CRLF line ending leaving a carriage return in the final field.", "All rows should pass now; running the full suite to confirm the fix."];
    const events: TraceEvent[] = [{ t: "user", text: "fix the csv import" }];
    news.forEach((n, i) => {
      events.push(...step(opening + n, call("execute_command", { command: "npx vitest run csv.test.ts" }, `FAIL row ${i}`)));
      events.push(...step("Fix it.", call("apply_diff", { path: "src/csv.ts", diff: `step ${i}` }, "Applied 1 change.")));
    });
    assert.deepEqual(only(events), []);
  });

  it("catches the same long reasoning once three requests in a row bring nothing new", () => {
    const thought = "The build still fails with the same missing export error, so I will read the index file again and look for where the helper is exported from the module before changing anything.";
    const events: TraceEvent[] = [{ t: "user", text: "fix the build" }];
    for (let i = 0; i < 4; i++) events.push(...step(thought, call("read_file", { path: "src/index.ts" }, "export {}")));
    const ivs = only(events);
    assert.equal(ivs.length >= 1, true);
    assert.match(ivs[0].summary, /3 requests in a row while the tool calls between them brought nothing new/);
  });

  it("catches the same message around calls that all fail, whatever tool each one tries", () => {
    const says = (extra: string) => `I don't have permission to read /var/lib/postgresql/16/main/postgresql.auto.conf${extra}. Let me try a different way to access the file.`;
    const tries: Array<[string, Record<string, unknown>, string]> = [
      ["read_file", { absolute_path: "/var/lib/postgresql/16/main/postgresql.auto.conf" }, "EACCES: permission denied"],
      ["run_shell_command", { command: "cat /var/lib/postgresql/16/main/postgresql.auto.conf" }, "cat: Permission denied\nExit Code: 1"],
      ["list_directory", { path: "/var/lib/postgresql/16/main" }, "EACCES: permission denied, scandir"],
      ["run_shell_command", { command: "sudo -n cat /var/lib/postgresql/16/main/postgresql.auto.conf" }, "sudo: a password is required\nExit Code: 1"],
    ];
    const events: TraceEvent[] = [{ t: "user", text: "Read the postgres auto conf." }];
    const ends: number[] = [];
    tries.forEach(([name, input, error], i) => {
      const id = `p${i}`;
      events.push({ t: "request" }, ...streamOf("text", says(["", " directly", "", " as the current user"][i])), { t: "tool_call", id, name, input }, { t: "end" });
      ends.push(events.length - 1);
      events.push({ t: "tool_result", id, ok: false, error });
    });
    const ivs = only(events);
    assert.ok(ivs.length >= 1);
    assert.equal(ivs[0].event, ends[2], "at the end of the 3rd alike request");
    assert.match(ivs[0].summary, /brought nothing new/);
  });

  it("stays quiet while a polled output changes, however alike the thinking", () => {
    const thought = "The CI run is still in progress. I will wait thirty seconds and then check the status of the workflow again, because the deploy must not start before the tests have passed.";
    const events: TraceEvent[] = [{ t: "user", text: "deploy when CI is green" }];
    for (let i = 0; i < 6; i++) events.push(...step(thought, call("execute_command", { command: "gh run view 42" }, `in_progress ${i * 10}%`)));
    assert.deepEqual(only(events), []);
  });

  it("stays quiet on long varied work", () => {
    const events: TraceEvent[] = [{ t: "user", text: "go" }];
    for (let i = 0; i < 30; i++) events.push(...step(richProse(60, i), call("read_file", { path: `src/f${i % 7}.ts` }, `content ${i % 7}`)));
    assert.deepEqual(only(events), []);
  });

  it("can be switched off and tuned", () => {
    const events: TraceEvent[] = [{ t: "user", text: "hi" }, ...request(streamOf("text", MSG)), ...request(streamOf("text", MSG)), ...request(streamOf("text", MSG))];
    assert.deepEqual(only(events, { enabled: false }), []);
    assert.deepEqual(only(events, { monologueCopies: 4 }), []);
    assert.equal(only(events, { monologueCopies: 3 }).length, 1);
    // a message under minWords counts only word for word, from its 3rd copy
    const ends = events.map((e, i) => (e.t === "end" ? i : -1)).filter((i) => i >= 0);
    assert.deepEqual(only(events.slice(0, ends[1] + 1), { minWords: 20 }), []);
    assert.equal(only(events, { minWords: 20 })[0]?.event, ends[2]);
  });

  describe("calls whose results the host never reports (Roo shows no read result)", () => {
    const read = (path: string): { call: TraceEvent } => ({ call: { t: "tool_call", id: `r${++callId}`, name: "read_file", input: { path } } });
    const stepNoResult = (thinking: string, tool: { call: TraceEvent }): TraceEvent[] => [{ t: "request" }, ...streamOf("reasoning", thinking), tool.call, { t: "end" }];

    it("templated steps reading a new file each time are progress, not stagnation", () => {
      const events: TraceEvent[] = [{ t: "user", text: "Read the eight parts and summarise them." }];
      for (let i = 1; i <= 8; i++) events.push(...stepNoResult(`Step ${i}: I need to read src/part${i}.js to understand that part of the project before I summarise it.`, read(`src/part${i}.js`)));
      assert.deepEqual(only(events), []);
    });

    it("the same step reading the same file again and again still stagnates", () => {
      const events: TraceEvent[] = [{ t: "user", text: "Summarise the project." }];
      for (let i = 1; i <= 4; i++) events.push(...stepNoResult("I need to read src/part1.js to understand that part of the project before I summarise it for the user.", read("src/part1.js")));
      assert.equal(only(events)[0]?.action, "abort");
    });

    it("a new call that fails is not news", () => {
      const events: TraceEvent[] = [{ t: "user", text: "Summarise the project." }];
      for (let i = 1; i <= 4; i++) {
        const id = `f${i}`;
        events.push({ t: "request" }, ...streamOf("reasoning", "I need to read the configuration file to understand how the project is set up before I summarise it."),
          { t: "tool_call", id, name: "read_file", input: { path: `config${i}.json` } }, { t: "end" }, { t: "tool_result", id, ok: false, error: "File not found" });
      }
      assert.equal(only(events)[0]?.action, "abort");
    });
  });
});
