import * as assert from "node:assert/strict";
import { replayThroughEngine } from "./rooRealKit";

describe("real Roo 3.52.1 recordings through the translator and the engine", () => {
  for (const name of ["run1-architect.productive", "run2-code.productive", "run3-code.productive6"]) {
    it(`${name}: productive reads of different files draw no intervention`, () => {
      const r = replayThroughEngine(name);
      assert.ok(r.calls.length >= 3, `${r.calls.length} calls`);
      assert.ok(r.calls.every((c) => c.name === "read_file" && typeof c.input.path === "string" && c.input.path !== "workspace"), JSON.stringify(r.calls.map((c) => c.input)));
      assert.deepEqual(r.interventions.map((i) => `${i.detector}/${i.action}`), []);
    });
  }
});

describe("real Roo 3.52.1 recordings: loops", () => {
  it("Architect mode refuses every execute_command without a word: refused calls are failed calls, stopped within 10 requests", () => {
    const r = replayThroughEngine("run1-architect.tool");
    const stop = r.interventions.find((i) => i.action === "stop");
    assert.ok(stop, `no stop in ${r.requests} requests`);
    const requestsBeforeStop = r.events.slice(0, stop.event + 1).filter((e) => e.t === "request").length;
    assert.ok(requestsBeforeStop <= 10, `stopped at request ${requestsBeforeStop}`);
    const results = r.events.filter((e) => e.t === "tool_result");
    assert.ok(results.length > 0 && results.every((e) => e.t === "tool_result" && !e.ok), "every refused call is a failure");
    assert.equal(r.interventions[0].action, "warn");
  });

  it("Code mode: `ls` every turn warned at call 3, refused at 5 (as the real run showed)", () => {
    const r = replayThroughEngine("run2-code.tool");
    const at = (action: string) => r.calls.findIndex((c) => c.intervention?.action === action) + 1;
    assert.equal(at("warn"), 3);
    assert.equal(at("block"), 5);
  });

  it("a slow loop (`sleep 2; ls` each turn, same output) is warned at 3 and stopped by its 7th call", () => {
    const r = replayThroughEngine("run3-code.tool-slow");
    const at = (action: string) => r.calls.findIndex((c) => c.intervention?.action === action) + 1;
    assert.equal(at("warn"), 3);
    assert.equal(at("block"), 5);
    assert.ok(at("stop") > 0 && at("stop") <= 7, `stop at call ${at("stop")}`);
  });
});

describe("real Roo 3.52.1 recordings: event order", () => {
  for (const name of ["run1-architect.productive", "run2-code.productive", "run3-code.productive6", "run2-code.tool", "run1-architect.tool"]) {
    it(`${name}: each request's call comes before its end, though Roo reports usage before it completes the ask`, () => {
      const { events } = replayThroughEngine(name);
      let open = false, calls = 0;
      for (const e of events) {
        if (e.t === "request") { assert.equal(open, false, "a request began before the previous one ended"); open = true; calls = 0; }
        if (e.t === "tool_call") { assert.ok(open, "a call after its request's end"); calls++; }
        if (e.t === "end") { assert.ok(open); open = false; }
      }
      assert.ok(events.some((e) => e.t === "tool_call"));
    });
  }
});
