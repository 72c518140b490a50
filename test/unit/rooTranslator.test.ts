import * as assert from "node:assert/strict";
import type { TraceEvent } from "../../src/engine/events";
import { advance, newCursor } from "../../src/hosts/roo/cumulativeText";
import type { RooMessage } from "../../src/hosts/roo/messages";
import { RooTaskTranslator } from "../../src/hosts/roo/translator";
import { toolCallOfAsk } from "../../src/hosts/roo/toolCalls";
import { LoopSession } from "../../src/engine/session";
import { loadStream, type StreamFixture } from "./rooTestKit";

/** Roo's reasoning formatter (Task.ts), applied to the whole text on every chunk. */
const formatReasoning = (raw: string) => raw.replace(/([.!?])\*\*([^*\n]+)\*\*/g, "$1\n\n**$2**");

/** Cumulative snapshots of `raw` cut at the given chunk sizes, as Roo emits them. */
function snapshots(raw: string, sizes: (i: number) => number): string[] {
  const out: string[] = [];
  let end = 0;
  for (let i = 0; end < raw.length; i++) {
    end = Math.min(raw.length, end + Math.max(1, sizes(i)));
    out.push(formatReasoning(raw.slice(0, end)));
  }
  return out;
}

function reasoningMessages(texts: string[], ts = 1000): Array<{ action: "created" | "updated"; m: RooMessage }> {
  const out = texts.map((text, i) => ({ action: (i === 0 ? "created" : "updated") as "created" | "updated", m: { ts, type: "say" as const, say: "reasoning", text, partial: true } }));
  out.push({ action: "updated", m: { ts, type: "say", say: "reasoning", text: texts[texts.length - 1], partial: false } });
  return out;
}

function run(t: RooTaskTranslator, msgs: Array<{ action: "created" | "updated"; m: RooMessage }>): TraceEvent[] {
  return msgs.flatMap(({ action, m }) => t.message(action, m));
}

function joined(events: TraceEvent[], kind: "reasoning" | "text"): string {
  return events.filter((e): e is Extract<TraceEvent, { t: "reasoning" | "text" }> => e.t === kind).map((e) => e.delta).join("");
}

/** Feeds a recorded stream fixture into one task translator. */
function translateFixture(f: StreamFixture, t = new RooTaskTranslator()): Array<{ index: number; event: TraceEvent }> {
  const out: Array<{ index: number; event: TraceEvent }> = [];
  f.events.forEach((e, index) => {
    if (e.name === "message") {
      const p = e.args[0] as { action: "created" | "updated"; message: RooMessage };
      for (const event of t.message(p.action, p.message)) out.push({ index, event });
    } else if (e.name === "taskToolFailed") {
      for (const event of t.toolFailed(e.args[1] as string, e.args[2] as string)) out.push({ index, event });
    }
  });
  return out;
}

const RAW = "**Reviewing**The test fails because add() uses Math.abs. I reverted the test edit.**Planning the fix**Remove Math.abs! Then run the suite?**Checking**Done.";

describe("Roo translator: cumulative text", () => {
  const chunkings: Array<[string, (i: number) => number]> = [
    ["one character", () => 1],
    ["three characters", () => 3],
    ["irregular 1–17", (i) => ((i * 7919) % 17) + 1],
    ["whole text at once", () => 10_000],
  ];
  for (const [name, sizes] of chunkings) {
    it(`passes on exactly the final formatted text, chunked by ${name}`, () => {
      const events = run(new RooTaskTranslator(), reasoningMessages(snapshots(RAW, sizes)));
      assert.equal(joined(events, "reasoning"), formatReasoning(RAW));
    });
  }

  it("never passes on text that Roo later rewrites: a heading after a sentence is held until it closes", () => {
    const c = newCursor();
    assert.equal(advance(c, "Done.**Plan", false), "Done.");
    assert.equal(advance(c, "Done.**Planning*", false), "");
    assert.equal(advance(c, "Done.\n\n**Planning** next", false), "\n\n**Planning** next");
    assert.equal(c.rewrites, 0);
  });

  it("repeated identical snapshots (Roo runs ahead of the chunk) add nothing", () => {
    const t = new RooTaskTranslator();
    const msgs = reasoningMessages(["I'll read", "I'll read the file", "I'll read the file", "I'll read the file", "I'll read the file first."]);
    const deltas = run(t, msgs).filter((e) => e.t === "reasoning");
    assert.deepEqual(deltas.map((e) => (e as { delta: string }).delta), ["I'll read", " the file", " first."]);
  });

  it("an unexpected rewrite of recent text continues from where the texts part (counted, nothing lost)", () => {
    const c = newCursor();
    advance(c, "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma", false);
    const d = advance(c, "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi RHO sigma tau", false);
    assert.equal(c.rewrites, 1);
    assert.equal(d, "RHO sigma tau");
  });

  it("text older than the checked tail is taken as settled (bounded work per update)", () => {
    const c = newCursor();
    const head = "x".repeat(500);
    advance(c, head + " first", false);
    assert.equal(advance(c, "y" + head.slice(1) + " first second", false), " second");
    assert.equal(c.rewrites, 0);
  });

  it("a new reasoning message in the same request repeats the earlier reasoning: only the new part is passed on", () => {
    const t = new RooTaskTranslator();
    const events = run(t, [
      { action: "created", m: { ts: 1, type: "say", say: "api_req_started", text: "{\"apiProtocol\":\"openai\"}" } },
      ...reasoningMessages(["First I read the file.", "First I read the file. It has a bug."], 10),
      { action: "created", m: { ts: 20, type: "say", say: "text", text: "Found it.", partial: false } },
      ...reasoningMessages(["First I read the file. It has a bug. Now I fix it."], 30),
    ]);
    assert.equal(joined(events, "reasoning"), "First I read the file. It has a bug. Now I fix it.");
    assert.equal(joined(events, "text"), "Found it.");
  });

  it("translates 10,000 cumulative updates of a 200 KB block with work that does not grow with the text", () => {
    // Not a timing test: a scan of the whole snapshot per update would show as rewrites or wrong output.
    const unit = "The function returns early when the list is empty, so the caller never sees the error.\n";
    const raw = unit.repeat(Math.ceil(200_000 / unit.length)).slice(0, 200_000);
    const c = newCursor();
    let out = "";
    for (let i = 1; i <= 10_000; i++) out += advance(c, raw.slice(0, i * 20), i === 10_000);
    assert.equal(out, raw);
    assert.equal(c.rewrites, 0);
  });
});

describe("Roo translator: messages to events", () => {
  it("the task prompt is a user event and the task title", () => {
    const t = new RooTaskTranslator();
    const ev = t.message("created", { ts: 1, type: "say", say: "text", text: "Fix the test\nmore detail", images: [] });
    assert.deepEqual(ev, [{ t: "user", text: "Fix the test\nmore detail", ts: 1 }]);
    assert.equal(t.title, "Fix the test");
  });

  it("assistant text after a request is visible text, not a user message", () => {
    const t = new RooTaskTranslator();
    t.message("created", { ts: 1, type: "say", say: "text", text: "task" });
    t.message("created", { ts: 2, type: "say", say: "api_req_started", text: "{}" });
    const ev = t.message("created", { ts: 3, type: "say", say: "text", text: "Let me read", partial: true });
    assert.deepEqual(ev.map((e) => e.t), ["text"]);
  });

  it("user feedback is a user event, unless it is Loop Sentinel's own guidance coming back", () => {
    const sent = ["Loop Sentinel stopped your last response: stop."];
    const t = new RooTaskTranslator({ isOwnEcho: (text) => { const i = sent.indexOf(text); if (i < 0) return false; sent.splice(i, 1); return true; } });
    assert.deepEqual(t.message("created", { ts: 5, type: "say", say: "user_feedback", text: "Loop Sentinel stopped your last response: stop." }), []);
    assert.deepEqual(t.message("created", { ts: 6, type: "say", say: "user_feedback", text: "use the other file" }).map((e) => e.t), ["user"]);
  });

  it("api_req_started: a request, then an end with tokens and cost when Roo rewrites it with usage", () => {
    const t = new RooTaskTranslator();
    assert.deepEqual(t.message("created", { ts: 2, type: "say", say: "api_req_started", text: "{\"apiProtocol\":\"anthropic\"}" }), [{ t: "request", ts: 2 }]);
    const ev = t.message("updated", { ts: 2, type: "say", say: "api_req_started", text: JSON.stringify({ apiProtocol: "anthropic", tokensIn: 14210, tokensOut: 388, cacheWrites: 0, cacheReads: 12800, cost: 0.0119 }) }, 99);
    assert.deepEqual(ev, [{ t: "end", ts: 99, usage: { tokensIn: 14210, tokensOut: 388, cost: 0.0119 } }]);
    assert.deepEqual(t.message("updated", { ts: 2, type: "say", say: "api_req_started", text: JSON.stringify({ tokensIn: 14210, tokensOut: 388, cost: 0.0119 }) }), [], "usage counted once");
  });

  it("usage that arrives after the next request began is carried on the next request", () => {
    const t = new RooTaskTranslator();
    t.message("created", { ts: 2, type: "say", say: "api_req_started", text: "{}" });
    t.message("created", { ts: 3, type: "say", say: "api_req_started", text: "{}" });
    assert.deepEqual(t.message("updated", { ts: 2, type: "say", say: "api_req_started", text: "{\"tokensIn\":10,\"tokensOut\":5,\"cost\":0.5}" }), []);
    const out = t.message("created", { ts: 4, type: "say", say: "api_req_started", text: "{}" });
    // Request 3 had no usage yet: it ends as request 4 begins, which carries the late usage.
    assert.deepEqual(out, [{ t: "end", ts: 4 }, { t: "request", ts: 4, usage: { tokensIn: 10, tokensOut: 5, cost: 0.5 } }]);
  });

  it("ask kinds map to Roo's tool names and inputs, without result content", () => {
    assert.deepEqual(toolCallOfAsk("tool", JSON.stringify({ tool: "readFile", path: "src/a.ts", isOutsideWorkspace: false, content: "/abs/src/a.ts", reason: "(up to 2000 lines)" })),
      { name: "read_file", input: { path: "src/a.ts", reason: "(up to 2000 lines)" } });
    assert.deepEqual(toolCallOfAsk("tool", JSON.stringify({ tool: "searchFiles", path: "src", regex: "add\\(", filePattern: "*.ts", content: "Found 3 results" })),
      { name: "search_files", input: { path: "src", regex: "add\\(", filePattern: "*.ts" } });
    assert.deepEqual(toolCallOfAsk("tool", JSON.stringify({ tool: "appliedDiff", path: "src/a.ts", diff: "<<<<<<< SEARCH", isProtected: false })),
      { name: "apply_diff", input: { path: "src/a.ts", diff: "<<<<<<< SEARCH" } });
    assert.deepEqual(toolCallOfAsk("command", "npm run test"), { name: "execute_command", input: { command: "npm run test" } });
    assert.deepEqual(toolCallOfAsk("use_mcp_server", JSON.stringify({ type: "use_mcp_tool", serverName: "github", toolName: "search_issues", arguments: "{\"q\":\"loop\"}" })),
      { name: "mcp__github__search_issues", input: { q: "loop" } });
    assert.equal(toolCallOfAsk("tool", "{\"tool\":\"readFi"), undefined, "cut JSON of a partial ask");
    assert.equal(toolCallOfAsk("completion_result", ""), undefined);
  });

  it("a missing-parameter error is a failed call of its own", () => {
    const t = new RooTaskTranslator();
    t.message("created", { ts: 2, type: "say", say: "api_req_started", text: "{}" });
    const ev = t.message("created", { ts: 3, type: "say", say: "error", text: "Roo tried to use read_file without value for required parameter 'path'. Retrying..." });
    assert.deepEqual(ev.map((e) => e.t), ["tool_call", "tool_result"]);
    assert.equal((ev[0] as { name: string }).name, "read_file");
    assert.equal((ev[1] as { ok: boolean }).ok, false);
  });

  it("taskToolFailed settles the pending call of that tool as failed", () => {
    const t = new RooTaskTranslator();
    t.message("created", { ts: 2, type: "say", say: "api_req_started", text: "{}" });
    t.message("created", { ts: 3, type: "ask", ask: "tool", text: JSON.stringify({ tool: "appliedDiff", path: "a.ts", diff: "x" }) });
    const ev = t.toolFailed("apply_diff", "no_match");
    assert.deepEqual(ev, [{ t: "tool_result", id: "roo-3", ok: false, error: "no_match" }]);
  });
});

describe("Roo translator: recorded streams", () => {
  it("reasoning loop: one request, reasoning deltas that add up to the last snapshot", () => {
    const f = loadStream("reasoning-loop");
    const out = translateFixture(f).map((x) => x.event);
    assert.deepEqual(out.filter((e) => e.t !== "reasoning").map((e) => e.t), ["user", "request"]);
    const last = [...f.events].reverse().find((e) => e.name === "message" && (e.args[0] as { message: RooMessage }).message.say === "reasoning");
    const lastText = (last!.args[0] as { message: RooMessage }).message.text!;
    const got = joined(out, "reasoning");
    // The last snapshot ends mid-stream; only an open heading may still be held back (none here).
    assert.equal(got, lastText);
  });

  it("auto-approved tool loop: each read_file passed on once, at its complete ask", () => {
    const f = loadStream("tool-loop-auto");
    const out = translateFixture(f);
    const calls = out.filter((x) => x.event.t === "tool_call");
    assert.equal(calls.length, 10);
    for (const c of calls) {
      assert.equal((c.event as { name: string }).name, "read_file");
      assert.equal((c.event as { input: { path?: unknown } }).input.path, "src/routes/health.ts");
      const m = (f.events[c.index].args[0] as { message: RooMessage }).message;
      assert.equal(m.type, "ask");
      assert.equal(m.partial, false, "never from a partial ask: its arguments may be placeholders");
    }
    assert.equal(out.filter((x) => x.event.t === "end").length, 10, "usage of every request");
  });

  it("tool loop with approvals: execute_command calls with their output as results", () => {
    const out = translateFixture(loadStream("tool-loop-approval")).map((x) => x.event);
    const calls = out.filter((e) => e.t === "tool_call");
    const results = out.filter((e) => e.t === "tool_result");
    assert.equal(calls.length, 6);
    assert.equal(results.length, 6);
    assert.ok(results.every((r) => r.t === "tool_result" && r.ok && /1 failed/.test(r.output ?? "")));
  });

  it("productive session: reads, edits and commands in order, the completion as text", () => {
    const out = translateFixture(loadStream("productive")).map((x) => x.event);
    const names = out.filter((e) => e.t === "tool_call").map((e) => (e as { name: string }).name);
    assert.deepEqual(names, ["read_file", "read_file", "apply_diff", "apply_diff", "execute_command", "apply_diff", "execute_command"]);
    assert.match(joined(out, "text"), /Added a `discount` field/);
  });
});

describe("Roo translator + engine: chunk-size invariance", () => {
  // The recorded reasoning loop's final text, re-streamed at other chunk sizes.
  const f = loadStream("reasoning-loop");
  const messages = f.events.filter((e) => e.name === "message").map((e) => (e.args[0] as { message: RooMessage }).message);
  const finalText = messages.filter((m) => m.say === "reasoning").pop()!.text!;

  function firstFiring(chunk: number) {
    const t = new RooTaskTranslator();
    const session = new LoopSession();
    session.push(t.message("created", messages[0])[0]);
    for (const e of t.message("created", messages[1])) session.push(e);
    let chars = 0;
    for (let end = chunk, first = true; ; end += chunk, first = false) {
      const text = finalText.slice(0, Math.min(end, finalText.length));
      for (const e of t.message(first ? "created" : "updated", { ts: 9, type: "say", say: "reasoning", text, partial: true })) {
        if (e.t === "reasoning") chars += e.delta.length;
        const ivs = session.push(e);
        if (ivs.length) return { detector: ivs[0].detector, action: ivs[0].action, chars };
      }
      if (end >= finalText.length) return undefined;
    }
  }

  it("fires with the same detector and action at the same place, whatever the chunk size", () => {
    const exact = firstFiring(1);
    assert.ok(exact, "the loop is caught");
    for (const size of [7, 40, 120]) {
      const got = firstFiring(size);
      assert.ok(got, `caught with ${size}-char chunks`);
      assert.equal(got.action, exact.action);
      assert.equal(got.detector, exact.detector);
      assert.ok(got.chars >= exact.chars && got.chars < exact.chars + size + 200, `${size}: fired after ${got.chars} chars, exact ${exact.chars}`);
    }
  });
});

describe("Roo translator: calls Roo refuses before asking", () => {
  const req = (ts: number, usage = false, cancel = false) => ({ ts, type: "say" as const, say: "api_req_started", text: JSON.stringify(usage ? { tokensIn: 10, tokensOut: 2, ...(cancel ? { cancelReason: "user_cancelled" } : {}) } : {}) });
  const partialCommand = (ts: number) => ({ ts, type: "ask" as const, ask: "command", text: "", partial: true });

  it("a tool ask left partial when the next request starts is a failed call without arguments", () => {
    const t = new RooTaskTranslator();
    const out = [
      ...t.message("created", { ts: 1, type: "say", say: "text", text: "List the files." }),
      ...t.message("created", req(2)), ...t.message("created", partialCommand(3)), ...t.message("updated", req(2, true)),
      ...t.message("created", req(4)),
    ];
    const call = out.find((e) => e.t === "tool_call");
    const result = out.find((e) => e.t === "tool_result");
    assert.deepEqual(call && { name: (call as { name: string }).name, input: (call as { input: unknown }).input }, { name: "execute_command", input: {} });
    assert.ok(result && result.t === "tool_result" && !result.ok && /refused by the host/.test(result.error ?? ""));
  });

  it("not when the request was cancelled, or the task was resumed before the next request", () => {
    for (const interruption of ["cancel", "resume"] as const) {
      const t = new RooTaskTranslator();
      const out = [
        ...t.message("created", { ts: 1, type: "say", say: "text", text: "List the files." }),
        ...t.message("created", req(2)), ...t.message("created", partialCommand(3)),
        ...t.message("updated", req(2, true, interruption === "cancel")),
        ...(interruption === "resume" ? t.message("created", { ts: 5, type: "ask", ask: "resume_task", text: "" }) : []),
        ...t.message("created", req(6)),
      ];
      assert.equal(out.filter((e) => e.t === "tool_call").length, 0, interruption);
    }
  });

  it("not when the ask completed (approved and run): that call is passed on once, with its arguments", () => {
    const t = new RooTaskTranslator();
    const out = [
      ...t.message("created", { ts: 1, type: "say", say: "text", text: "List the files." }),
      ...t.message("created", req(2)), ...t.message("created", partialCommand(3)), ...t.message("updated", req(2, true)),
      ...t.message("updated", { ts: 3, type: "ask", ask: "command", text: "ls", partial: false, isAnswered: true }),
      ...t.message("created", req(4)),
    ];
    const calls = out.filter((e) => e.t === "tool_call");
    assert.equal(calls.length, 1);
    assert.deepEqual((calls[0] as { input: unknown }).input, { command: "ls" });
  });
});
