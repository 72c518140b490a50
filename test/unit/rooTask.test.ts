/** `replay` on Roo task folders: detection among other formats, tool results from the API history, verdicts. */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { replayEvents } from "../../src/engine/replay";
import { readSessions, readerFor } from "../../src/formats";
import { SessionFormatError } from "../../src/formats/reader";
import { streamChunks } from "../../src/formats/rooTask";
import { TASKS } from "./rooTestKit";

const REASONING_LOOP = path.join(TASKS, "7d3f2a10-5b1e-4c55-9a63-0f4e1c2b9a01");
const TOOL_LOOP_AUTO = path.join(TASKS, "c41e9b7a-2f60-4d8e-b0a3-6a2d5e8f1c22");
const TOOL_LOOP_APPROVAL = path.join(TASKS, "e90a7c3d-8b14-4f2a-9c6e-3d1b7a5e2f33");
const PRODUCTIVE = path.join(TASKS, "1a2b3c4d-0e1f-4a5b-8c7d-9e0f1a2b3c44");

function tmpTask(name: string, files: Record<string, string>): string {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "roo-task-")), name);
  fs.mkdirSync(dir);
  for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), text);
  return dir;
}

describe("roo-task reader", () => {
  it("claims Roo task folders (and their ui_messages.json), not Cline's", () => {
    assert.equal(readerFor(REASONING_LOOP, true)?.format, "roo-task");
    assert.equal(readerFor(path.join(PRODUCTIVE, "ui_messages.json"), false)?.format, "roo-task");
    const cline = tmpTask("1795332497258", { "ui_messages.json": JSON.stringify([{ ts: 1, type: "say", say: "task", text: "x" }]) });
    assert.notEqual(readerFor(cline, true)?.format, "roo-task");
  });

  it("reads every task under a tasks/ folder, one session each", () => {
    const sessions = readSessions([TASKS], { lenient: false });
    assert.equal(sessions.length, 4);
    assert.ok(sessions.every((s) => s.format === "roo-task"));
  });

  it("reasoning loop folder: the loop is stopped in its reasoning, soon after it starts", () => {
    const [s] = readSessions([REASONING_LOOP], { lenient: false });
    const { interventions } = replayEvents(s.events);
    assert.ok(interventions.length > 0);
    const first = interventions[0];
    assert.equal(first.action, "abort");
    assert.equal(s.events[first.event].t, "reasoning");
    // The loop starts after the productive part; it is caught within a few repetitions, long before the end.
    const reasoning = s.events.map((e, i) => ({ e, i })).filter(({ e }) => e.t === "reasoning");
    const loopStart = reasoning.find(({ e }) => e.t === "reasoning" && e.delta.startsWith("I'll mention"))!.i;
    assert.ok(first.event >= loopStart && first.event < loopStart + 12, `fired at ${first.event}, loop from ${loopStart}`);
  });

  it("tool loop folders: repeated calls with results from the API history are caught", () => {
    for (const dir of [TOOL_LOOP_AUTO, TOOL_LOOP_APPROVAL]) {
      const [s] = readSessions([dir], { lenient: false });
      const results = s.events.filter((e) => e.t === "tool_result");
      assert.ok(results.length >= 6, `${dir}: ${results.length} results`);
      const { interventions } = replayEvents(s.events);
      assert.ok(interventions.some((iv) => iv.action === "block" || iv.action === "stop"), `${path.basename(dir)}: ${interventions.map((i) => i.action).join(",")}`);
    }
  });

  it("tool results come from the API history where the chat has none (read_file)", () => {
    const [s] = readSessions([TOOL_LOOP_AUTO], { lenient: false });
    const first = s.events.find((e) => e.t === "tool_result");
    assert.ok(first && first.t === "tool_result" && first.ok && /1 \| import express/.test(first.output ?? ""));
  });

  it("productive folder: no intervention at all", () => {
    const [s] = readSessions([PRODUCTIVE], { lenient: false });
    assert.ok(s.events.length > 20);
    assert.deepEqual(replayEvents(s.events).interventions, []);
  });

  it("bad input is a clear error naming the file; --lenient skips bad messages and counts them", () => {
    const broken = tmpTask("0b7c0000-0000-4000-8000-000000000001", { "ui_messages.json": "[{\"ts\":1,\"type\":\"say\"" });
    assert.throws(() => readSessions([broken], { lenient: false }), (e: unknown) => e instanceof SessionFormatError && /ui_messages\.json.*not valid JSON/.test(e.message));
    const odd = tmpTask("0b7c0000-0000-4000-8000-000000000002", {
      "ui_messages.json": JSON.stringify([{ ts: 1, type: "say", say: "text", text: "go" }, { hello: "world" }, { ts: 3, type: "say", say: "api_req_started", text: "{}" }]),
    });
    assert.throws(() => readSessions([odd], { lenient: false }), /message 2 is not a chat message/);
    const [s] = readSessions([odd], { lenient: true });
    assert.equal(s.skipped, 1);
    assert.deepEqual(s.events.map((e) => e.t), ["user", "request"]);
  });
});

describe("Roo task replay: long texts are cut into chunks in linear time", () => {
  /** The cut the reader made before (scanning to the text's end and back per chunk): same chunks expected. */
  function referenceChunks(delta: string): string[] {
    const out: string[] = [];
    let start = 0;
    while (start < delta.length) {
      const nl = delta.indexOf("\n", start);
      let end = nl === -1 ? delta.length : nl + 1;
      if (end - start > 240) {
        end = start + 240;
        const space = delta.lastIndexOf(" ", end);
        if (space > start) end = space + 1;
      }
      out.push(delta.slice(start, end));
      start = end;
    }
    return out;
  }

  it("cuts every kind of text where it did before: at newlines, at the last space in 240 characters, else at 240", () => {
    let seed = 7;
    const rand = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff; };
    const alphabet = ["a", "b", " ", "\n", "思", "!", "  ", "\n\n"];
    for (let n = 0; n < 300; n++) {
      const density = rand();
      let text = "";
      const len = Math.floor(rand() * 3000);
      for (let i = 0; i < len; i++) text += rand() < density ? alphabet[Math.floor(rand() * alphabet.length)] : "x";
      assert.deepEqual(streamChunks(text), referenceChunks(text), JSON.stringify(text.slice(0, 80)));
    }
    for (const text of ["!".repeat(10_000), "x".repeat(239) + " " + "y".repeat(500), " ".repeat(1000), "a\n".repeat(500), ""]) {
      assert.deepEqual(streamChunks(text), referenceChunks(text));
      assert.equal(streamChunks(text).join(""), text);
    }
  });
});
