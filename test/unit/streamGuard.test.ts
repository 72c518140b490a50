/**
 * The stream guard (src/hosts/streamGuard): the SSE splitter and the per-format readers on
 * streams split at 1-40 byte boundaries, the request rewriters, and the proxy itself between a
 * client and a fake provider per wire format (test/fakeLoopingUpstream.ts): a loop is cut before
 * its 6th copy with a clean end, the upstream request is ended, the guidance reaches the next
 * request and the cut thinking does not; a second loop stops the session; a productive stream
 * passes byte for byte; an unreachable upstream, a missing token and what is not a model request.
 */
import { PLUGIN_HEADER, isLoopbackUrl } from "../../src/hosts/streamGuard/pluginHeader";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { SseSplitter, parseEvent, type SseEvent } from "../../src/hosts/streamGuard/sse";
import { streamReader, type WireFormat } from "../../src/hosts/streamGuard/streamReaders";
import { addGuidance, history, newestUserText, removeCutReasoning } from "../../src/hosts/streamGuard/requests";
import { StreamGuardProxy } from "../../src/hosts/streamGuard/proxy";
import { StreamGuardCore, type GuardRecord } from "../../src/hosts/streamGuard/guard";
import { defaultConfig, type EngineConfig } from "../../src/engine/config";
import { LoopingUpstream, PARAGRAPH, FINAL, GUIDANCE_MARK, carriesGuidance, type UpstreamOptions } from "../fakeLoopingUpstream";
import { cli, CLI } from "./cliKit";
import { agentOf, codexProvider } from "../../src/cli/streamGuard";
import { FORMATS, PATHS, chunked, copies, firstRequest, followUp, send, type ClientAnswer } from "./streamGuardKit";

const REPO = path.resolve(__dirname, "../../..");
const PRODUCTIVE = fs.readFileSync(path.join(REPO, "test/fixtures/stream-guard/productive.txt"), "utf8");
/**
 * How the session goes on without the user speaking anew: Claude Code's and the Copilot CLI's own
 * resume after a max-tokens end; for the others the same words again (a retry).
 */
const RESUME: Record<WireFormat, string> = {
  anthropic: "<system-reminder>Output token limit hit. Resume directly.</system-reminder>",
  chat: "Please continue from where you left off.",
  responses: "List the files here",
  gemini: "List the files here",
};
const ENDING: Record<WireFormat, string> = { anthropic: "max_tokens", chat: "length", responses: "completed", gemini: "STOP" };

async function recorded(format: WireFormat, o: UpstreamOptions): Promise<Buffer> {
  const up = new LoopingUpstream({ delayMs: 0, ...o });
  await up.start();
  try { return (await send(up.url, PATHS[format], firstRequest(format))).raw; } finally { await up.stop(); }
}

function split(chunks: Buffer[]): SseEvent[] {
  const s = new SseSplitter();
  const out: SseEvent[] = [];
  for (const c of chunks) s.push(c, out);
  assert.equal(s.takeRest().length, 0, "nothing left over");
  return out;
}

describe("stream guard: SSE splitting", () => {
  it("gives the same events, byte for byte, however the stream is chunked (1-40 bytes), \\n\\n and \\r\\n\\r\\n", async () => {
    for (const format of FORMATS) {
      const raw = await recorded(format, { copies: 2, decide: () => "call", reasoning: true });
      const whole = split([raw]);
      assert.ok(whole.length > 5, `${format}: events`);
      assert.deepEqual(Buffer.concat(whole.map((e) => e.raw)), raw);
      for (let seed = 1; seed <= 25; seed++) {
        const events = split(chunked(raw, seed));
        assert.deepEqual(events.map((e) => [e.event, e.data]), whole.map((e) => [e.event, e.data]), `${format} seed ${seed}`);
        assert.deepEqual(Buffer.concat(events.map((e) => e.raw)), raw);
      }
    }
  });

  it("keeps a character cut between two chunks whole, and reads comments, multi-line data and CR line ends", () => {
    const text = "data: {\"t\":\"é漢字🙂\"}\n\n: keep-alive\n\nevent: x\r\ndata: a\r\ndata: b\r\n\r\n";
    const raw = Buffer.from(text);
    for (let seed = 1; seed <= 40; seed++) {
      const events = split(chunked(raw, seed));
      assert.deepEqual(events.map((e) => [e.event, e.data]), [[undefined, "{\"t\":\"é漢字🙂\"}"], [undefined, undefined], ["x", "a\nb"]]);
    }
    assert.equal(parseEvent(Buffer.from("data:x\n\n")).data, "x");
  });

  it("gives up on an event longer than it may hold, handing its bytes back", () => {
    const s = new SseSplitter();
    const out: SseEvent[] = [];
    const big = Buffer.alloc(17 * 1024 * 1024, 0x61);
    s.push(Buffer.from("data: "), out);
    s.push(big, out);
    assert.equal(s.overflowed, true);
    assert.equal(s.takeRest().length, big.length + 6);
  });
});

describe("stream guard: stream readers", () => {
  for (const format of FORMATS) {
    it(`${format}: reads text, thinking and a whole tool call, and holds exactly the call's events`, async () => {
      for (const reasoning of [false, true]) {
        const raw = await recorded(format, { copies: 2, decide: () => "call", reasoning, call: { name: "Bash", input: { command: "ls -la", note: "é 🙂" } } });
        for (const seed of [3, 7, 11]) {
          const reader = streamReader(format);
          let text = "", thinking = "", held = 0, releases = 0, done = false;
          const calls: unknown[] = [];
          for (const ev of split(chunked(raw, seed))) {
            const r = reader.read(ev);
            for (const p of r.pieces) { if (p.channel === "text") text += p.delta; else thinking += p.delta; }
            if (r.hold) held++;
            if (r.calls) { releases++; calls.push(...r.calls.map((c) => [c.name, c.input])); }
            if (r.done) done = true;
          }
          if (format === "gemini") {
            // A Gemini call without an id is read from the next request instead (by its place there).
            assert.deepEqual(calls, []);
          } else {
            assert.deepEqual(calls, [["Bash", { command: "ls -la", note: "é 🙂" }]], `${format} ${reasoning}`);
            assert.equal(releases, 1);
            assert.ok(held >= 1);
          }
          if (reasoning) { assert.equal(thinking, PARAGRAPH.repeat(2)); assert.equal(text, "Done thinking."); }
          else { assert.equal(thinking, ""); assert.equal(text, "Listing the folder."); }
          if (format !== "gemini") assert.ok(done, `${format}: its end is seen`);
        }
      }
    });
  }
});

describe("stream guard: requests", () => {
  it("names Gemini calls without ids by their place, and their answers by their call's, so each is read once", () => {
    const contents = [
      { role: "user", parts: [{ text: "go" }] },
      { role: "model", parts: [{ text: "ls" }, { functionCall: { name: "run_shell_command", args: { command: "ls" } } }] },
      { role: "user", parts: [{ functionResponse: { name: "run_shell_command", response: { output: "a.txt" } } }] },
      { role: "model", parts: [{ functionCall: { name: "run_shell_command", args: { command: "ls" } } }] },
      { role: "user", parts: [{ functionResponse: { name: "run_shell_command", response: { output: "a.txt" } } }] },
    ];
    const items = history("gemini", { contents });
    assert.deepEqual(items.map((h) => `${h.kind}:${h.id}`), ["call:gemini:1:1", "result:gemini:1:1", "call:gemini:3:0", "result:gemini:3:0"]);
    const seen = new Set(items.slice(0, 2).map((h) => `${h.kind}:${h.id}`));
    assert.deepEqual(history("gemini", { contents }, (k, id) => seen.has(`${k}:${id}`)).map((h) => h.id), ["gemini:3:0", "gemini:3:0"]);
    const reader = streamReader("gemini");
    const r = reader.read(parseEvent(Buffer.from(`data: ${JSON.stringify({ candidates: [{ content: { parts: [{ functionCall: { id: "fc1", name: "x", args: { a: 1 } } }] } }] })}\r\n\r\n`)));
    assert.deepEqual(r.calls, [{ id: "fc1", name: "x", input: { a: 1 } }]);
  });

  it("tells the user's words from the agent's reminders, resume nudges and tool results", () => {
    assert.equal(newestUserText("anthropic", { messages: [{ role: "user", content: [{ type: "text", text: "<system-reminder>\nctx\n</system-reminder>" }, { type: "text", text: "Fix it" }] }] }), "Fix it");
    assert.equal(newestUserText("anthropic", { messages: [{ role: "user", content: [{ type: "text", text: "<system-reminder> Output token limit hit. Resume directly </system-reminder>" }] }] }), undefined);
    assert.equal(newestUserText("anthropic", { messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "x" }] }] }), undefined);
    assert.equal(newestUserText("chat", { messages: [{ role: "user", content: "Please continue from where you left off." }] }), undefined);
    assert.equal(newestUserText("chat", { messages: [{ role: "tool", tool_call_id: "c", content: "x" }] }), undefined);
    assert.equal(newestUserText("responses", { input: "hello" }), "hello");
    assert.equal(newestUserText("responses", { input: [{ type: "function_call_output", call_id: "c", output: "x" }] }), undefined);
    assert.equal(newestUserText("gemini", { contents: [{ role: "user", parts: [{ text: "hi" }] }] }), "hi");
  });

  it("adds guidance as the newest user words in each format", () => {
    for (const format of FORMATS) {
      const body = firstRequest(format);
      assert.ok(addGuidance(format, body, "Loop Sentinel: note"));
      assert.ok(JSON.stringify(body).includes("Loop Sentinel: note"));
      assert.ok(newestUserText(format, body)?.endsWith("Loop Sentinel: note"), `${format}: the newest user words`);
    }
    const a = { messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "x" }] };
    addGuidance("anthropic", a, "g");
    assert.deepEqual(a.messages[2], { role: "user", content: [{ type: "text", text: "g" }] });
  });

  it("takes out cut reasoning: unsigned or cut thinking, cut reasoning_content, cut Responses items, cut thought parts", () => {
    const a = { messages: [{ role: "assistant", content: [{ type: "thinking", thinking: "loop loop", signature: "" }, { type: "text", text: "t" }] }, { role: "assistant", content: [{ type: "thinking", thinking: "fine", signature: "s" }] }] };
    assert.equal(removeCutReasoning("anthropic", a, { prefixes: [], itemIds: new Set() }), 1);
    assert.deepEqual(a.messages[0].content, [{ type: "text", text: "t" }]);
    assert.equal(a.messages[1].content.length, 1);
    // Thinking signed whole before the cut came in the text stays.
    const signed = { messages: [{ role: "assistant", content: [{ type: "thinking", thinking: "fine", signature: "s" }, { type: "text", text: "x\n\n[Loop Sentinel stopped this response: y.]" }] }] };
    assert.equal(removeCutReasoning("anthropic", signed, { prefixes: [], itemIds: new Set() }), 0);
    const c: Record<string, unknown> = { messages: [{ role: "assistant", content: "x", reasoning_content: "Let me reconsider and more" }] };
    assert.equal(removeCutReasoning("chat", c, { prefixes: ["Let me reconsider"], itemIds: new Set() }), 1);
    const r: Record<string, unknown> = { input: [{ type: "reasoning", id: "rs_1" }, { type: "reasoning", id: "rs_2" }] };
    assert.equal(removeCutReasoning("responses", r, { prefixes: [], itemIds: new Set(["rs_1"]) }), 1);
    assert.deepEqual(r.input, [{ type: "reasoning", id: "rs_2" }]);
    const g = { contents: [{ role: "model", parts: [{ text: "Let me reconsider x", thought: true }, { text: "ok" }] }] };
    assert.equal(removeCutReasoning("gemini", g, { prefixes: ["Let me reconsider"], itemIds: new Set() }), 1);
  });

  it("reads the tool calls and results a conversation carries", () => {
    assert.deepEqual(history("anthropic", { messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } }] }, { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "a.txt" }], is_error: true }] }] }),
      [{ kind: "call", id: "t1", name: "Bash", input: { command: "ls" } }, { kind: "result", id: "t1", ok: false, output: "a.txt" }]);
    assert.deepEqual(history("chat", { messages: [{ role: "assistant", tool_calls: [{ id: "c1", function: { name: "bash", arguments: "{\"command\":\"ls\"}" } }] }, { role: "tool", tool_call_id: "c1", content: "a.txt" }] }),
      [{ kind: "call", id: "c1", name: "bash", input: { command: "ls" } }, { kind: "result", id: "c1", ok: true, output: "a.txt" }]);
    assert.deepEqual(history("responses", { input: [{ type: "function_call", call_id: "c1", name: "shell", arguments: "{\"cmd\":\"ls\"}" }, { type: "function_call_output", call_id: "c1", output: "Exit code: 1\nnope" }] }),
      [{ kind: "call", id: "c1", name: "shell", input: { cmd: "ls" } }, { kind: "result", id: "c1", ok: false, output: "nope" }]);
    // The Copilot CLI's shell note (a number that grows at every command) is not the output.
    assert.deepEqual(history("chat", { messages: [{ role: "tool", tool_call_id: "c2", content: "a.txt\n<shellId: 3 completed with exit code 2>" }] }), [{ kind: "result", id: "c2", ok: false, output: "a.txt" }]);
    assert.deepEqual(history("chat", { messages: [{ role: "tool", tool_call_id: "c3", content: "a.txt\n<shellId: 4 completed with exit code 0>" }] }), [{ kind: "result", id: "c3", ok: true, output: "a.txt" }]);
  });
});

interface Rig { up: LoopingUpstream; guard: StreamGuardProxy; base: string; records: GuardRecord[] }

async function rig(o: UpstreamOptions = {}, config: EngineConfig = defaultConfig(), extra: { ca?: string } = {}): Promise<Rig> {
  const up = new LoopingUpstream({ delayMs: 5, ...o });
  await up.start();
  const records: GuardRecord[] = [];
  const guard = new StreamGuardProxy({ upstream: up.url, config: () => config, report: (r) => records.push(r), ca: extra.ca });
  const base = await guard.listen();
  return { up, guard, base, records };
}
async function unrig(r: Rig): Promise<void> { await r.guard.close(); await r.up.stop(); }

/** Session headers as each agent sends them. */
const SESSION: Record<WireFormat, Record<string, string>> = {
  anthropic: { "x-claude-code-session-id": "3f1c-claude" },
  chat: { "user-agent": "copilot/1.0.102" },
  responses: { "session-id": "0199-codex", originator: "codex_exec" },
  gemini: {},
};

describe("stream guard: the proxy", function () {
  this.timeout(30000);

  for (const format of FORMATS) {
    for (const reasoning of [false, true]) {
      const what = reasoning ? "thinking" : "text";
      it(`${format}: cuts a ${what} loop before its 6th copy with a clean end, ends the upstream request, and the next request carries the guidance and not the cut ${what}`, async () => {
        const r = await rig({ reasoning });
        try {
          const first = firstRequest(format);
          const got = await send(r.base, PATHS[format], first, SESSION[format]);
          assert.equal(got.status, 200);
          const streamed = reasoning ? got.reasoning : got.text;
          const n = copies(streamed);
          assert.ok(n >= 2 && n < 6, `cut after ${n} whole copies`);
          assert.equal(got.ending, ENDING[format]);
          assert.ok(got.text.includes("[Loop Sentinel stopped this response"), "the note is visible");
          const cut = r.records.find((x) => x.type === "cut");
          assert.ok(cut && cut.type === "cut" && cut.streamedChars < 6 * PARAGRAPH.length);
          await new Promise((res) => setTimeout(res, 50));
          const up1 = r.up.main()[0];
          assert.equal(up1.clientGone, true, "the upstream request was ended");
          assert.equal(up1.completed, false);
          assert.ok(up1.written < 20 * PARAGRAPH.length);

          const next = await send(r.base, PATHS[format], followUp(format, first, got, RESUME[format]), SESSION[format]);
          const up2 = r.up.main()[1];
          assert.equal(up2.refused, undefined, `the upstream accepted it: ${up2.refused}`);
          assert.equal(next.status, 200);
          assert.ok(JSON.stringify(up2.body).includes("Loop Sentinel stopped your last response"), "guidance in the next request");
          if (reasoning) assert.ok(!JSON.stringify(up2.body).includes(PARAGRAPH.slice(0, 200)), "the cut reasoning is not sent back");
          assert.equal(next.text, FINAL);
          assert.ok(r.records.some((x) => x.type === "guidance"));
        } finally { await unrig(r); }
      });
    }

    it(`${format}: a second loop in the session is stopped, and the request after it is answered by the guard alone`, async () => {
      const r = await rig({ decide: () => "loop" });
      try {
        const first = firstRequest(format);
        const a = await send(r.base, PATHS[format], first, SESSION[format]);
        const b = await send(r.base, PATHS[format], followUp(format, first, a, RESUME[format]), SESSION[format]);
        assert.ok(copies(b.text) < 6);
        assert.ok(b.text.includes("Loop Sentinel stopped the task"), b.text.slice(-300));
        const before = r.up.requests.length;
        const c = await send(r.base, PATHS[format], followUp(format, followUp(format, first, a, RESUME[format]), b, RESUME[format]), SESSION[format]);
        assert.equal(r.up.requests.length, before, "nothing sent upstream");
        assert.equal(c.status, 200);
        assert.ok(c.text.startsWith("Loop Sentinel stopped the task"), c.text);
        // The user speaking again starts afresh.
        const d = await send(r.base, PATHS[format], followUp(format, first, c, "Try a different approach: just print the listing."), SESSION[format]);
        assert.equal(r.up.requests.length, before + 1);
        assert.ok(copies(d.text) < 6);
      } finally { await unrig(r); }
    });

    it(`${format}: a productive stream of 20,000 characters reaches the client byte for byte`, async () => {
      for (const reasoning of [false, true]) {
        const r = await rig({ decide: () => "productive", productive: PRODUCTIVE, productiveDelta: 37, reasoning, delayMs: 0 });
        try {
          const got = await send(r.base, PATHS[format], firstRequest(format), SESSION[format]);
          const up = r.up.main()[0];
          assert.equal(up.completed, true);
          assert.ok(got.raw.equals(Buffer.from(up.raw)), "same bytes");
          assert.equal(reasoning ? got.reasoning : got.text, reasoning ? PRODUCTIVE : PRODUCTIVE);
          assert.deepEqual(r.records.filter((x) => x.type === "intervention" || x.type === "cut"), []);
        } finally { await unrig(r); }
      }
    });
  }

  for (const format of FORMATS) {
    it(`${format}: a guard started after the cut (the next \`run\`) takes the guidance from its note in the last answer, and the cut thinking out`, async () => {
      const r = await rig({ reasoning: true });
      try {
        const first = firstRequest(format);
        const got = await send(r.base, PATHS[format], first, SESSION[format]);
        assert.ok(got.text.includes("[Loop Sentinel stopped this response"));
        await r.guard.close();
        const again = new StreamGuardProxy({ upstream: r.up.url, config: () => defaultConfig(), report: () => {} });
        const base = await again.listen();
        try {
          const next = await send(base, PATHS[format], followUp(format, first, got, "Please continue"), SESSION[format]);
          const up2 = r.up.main()[1];
          assert.equal(up2.refused, undefined, up2.refused);
          assert.ok(JSON.stringify(up2.body).includes("Loop Sentinel stopped your last response: your thinking repeats"), "guidance recovered");
          assert.ok(!JSON.stringify(up2.body).includes(PARAGRAPH.slice(0, 200)), "the cut reasoning is not sent back");
          assert.equal(next.text, FINAL);
        } finally { await again.close(); }
      } finally { await r.up.stop(); }
    });
  }

  const WHOLE: Record<WireFormat, { path: string; text: (a: any) => string; ending: (a: any) => string; expected: string }> = {
    anthropic: { path: PATHS.anthropic, text: (a) => a.content.map((b: any) => b.text ?? "").join(""), ending: (a) => a.stop_reason, expected: "max_tokens" },
    chat: { path: PATHS.chat, text: (a) => a.choices[0].message.content, ending: (a) => a.choices[0].finish_reason, expected: "length" },
    responses: { path: PATHS.responses, text: (a) => a.output.flatMap((i: any) => i.content ?? []).map((c: any) => c.text).join(""), ending: (a) => a.status, expected: "completed" },
    gemini: { path: "/v1beta/models/fake-model:generateContent", text: (a) => a.candidates[0].content.parts.map((p: any) => p.text ?? "").join(""), ending: (a) => a.candidates[0].finishReason, expected: "STOP" },
  };
  for (const format of FORMATS) {
    it(`${format}: a looping answer that comes whole (not streamed) is cut where the engine caught it, and the next request carries the guidance; a productive one passes byte for byte`, async () => {
      const r = await rig({ decide: (body) => (JSON.stringify(body).includes("productive please") ? "productive" : carriesGuidance(body) ? "final" : "loop"), productive: PRODUCTIVE });
      try {
        const first = { ...firstRequest(format), stream: false };
        const got = await send(r.base, WHOLE[format].path, first, SESSION[format]);
        const answer = JSON.parse(got.raw.toString("utf8"));
        const text = WHOLE[format].text(answer);
        assert.ok(copies(text) >= 2 && copies(text) < 6, `${copies(text)} copies kept`);
        assert.ok(text.includes("[Loop Sentinel stopped this response"));
        assert.equal(WHOLE[format].ending(answer), WHOLE[format].expected);
        assert.equal(Number(got.headers["content-length"]), got.raw.length);
        const next = await send(r.base, WHOLE[format].path, { ...followUp(format, first, { ...got, text, reasoning: "" }, RESUME[format]), stream: false }, SESSION[format]);
        assert.ok(carriesGuidance(r.up.main()[1].body), "guidance in the next request");
        assert.equal(WHOLE[format].text(JSON.parse(next.raw.toString("utf8"))), FINAL);
        const productive = await send(r.base, WHOLE[format].path, { ...firstRequest(format, "productive please"), stream: false }, { "x-claude-code-session-id": "other", "session-id": "other" });
        assert.ok(productive.raw.equals(Buffer.from(r.up.main()[2].raw)), "same bytes");
      } finally { await unrig(r); }
    });
  }

  it("answers 502 in the API's error shape when the upstream cannot be reached, and the guidance stays pending", async () => {
    const r = await rig();
    try {
      await send(r.base, PATHS.anthropic, firstRequest("anthropic"), SESSION.anthropic);
      await r.up.stop();
      const down = await send(r.base, PATHS.anthropic, firstRequest("anthropic"), SESSION.anthropic);
      assert.equal(down.status, 502);
      const body = JSON.parse(down.raw.toString("utf8"));
      assert.equal(body.type, "error");
      assert.match(body.error.message, /could not reach http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
      assert.ok(!down.raw.toString("utf8").includes("sk-test-secret"));
      await r.up.start(r.up.port);
      const back = await send(r.base, PATHS.anthropic, firstRequest("anthropic"), SESSION.anthropic);
      assert.equal(back.text, FINAL, "the guidance went with the first request answered");
    } finally { await unrig(r); }
  });

  it("ends the upstream request when the agent goes away mid-answer, and serves the session on", async () => {
    const r = await rig({ decide: () => "productive", productive: PRODUCTIVE, productiveDelta: 400, delayMs: 5 });
    try {
      const url = new URL(r.base + PATHS.anthropic);
      await new Promise<void>((resolve) => {
        const req = http.request({ hostname: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { "content-type": "application/json", ...SESSION.anthropic } }, (res) => {
          res.once("data", () => { req.destroy(); setTimeout(resolve, 100); });
        });
        req.on("error", () => { /* we hung up */ });
        req.end(JSON.stringify(firstRequest("anthropic")));
      });
      assert.equal(r.up.main()[0].clientGone, true, "the upstream request was ended");
      assert.equal(r.up.main()[0].completed, false);
      const next = await send(r.base, PATHS.anthropic, firstRequest("anthropic"), SESSION.anthropic);
      assert.equal(next.status, 200);
      assert.equal(next.text, PRODUCTIVE);
    } finally { await unrig(r); }
  });

  it("refuses a request without the guard's token, and never contacts the upstream for it", async () => {
    const r = await rig();
    try {
      const origin = new URL(r.base).origin;
      for (const p of ["/v1/messages", `/${"x".repeat(r.guard.token.length)}/v1/messages`, `/${r.guard.token.slice(1)}/v1/messages`, "/"]) {
        const got = await send(origin, p, firstRequest("anthropic"));
        assert.equal(got.status, 403, p);
      }
      assert.equal(r.up.requests.length, 0);
      assert.equal(r.guard.stats.refused, 4);
    } finally { await unrig(r); }
  });

  it("passes through what is not a guarded model request: model lists, unknown paths, a body that is not JSON, errors", async () => {
    const r = await rig();
    try {
      const models = await send(r.base, "/v1/models", undefined, {}, "GET");
      assert.equal(models.status, 200);
      assert.equal(JSON.parse(models.raw.toString()).data[0].id, "fake-model");
      const unknown = await send(r.base, "/v1/whatever", { a: 1 });
      assert.equal(unknown.status, 404);
      const bad = await send(r.base, PATHS.anthropic, "{not json");
      assert.equal(bad.status, 200);
      assert.equal(r.up.requests[2].body.unparsed, "{not json");
      assert.equal(r.up.requests[0].headers["x-api-key"], `<${"sk-test-secret".length} chars>`, "the key went through");
      assert.equal(r.guard.stats.guarded, 0);
    } finally { await unrig(r); }
  });

  it("keys sessions by the agent's session id: a loop in one session does not touch another", async () => {
    const r = await rig();
    try {
      await send(r.base, PATHS.anthropic, firstRequest("anthropic"), { "x-claude-code-session-id": "one" });
      const other = await send(r.base, PATHS.anthropic, firstRequest("anthropic"), { "x-claude-code-session-id": "two" });
      assert.ok(!JSON.stringify(r.up.main()[1].body).includes(GUIDANCE_MARK), "no guidance in the other session");
      assert.ok(other.text.includes("[Loop Sentinel stopped this response"), "its own loop is cut on its own");
      const named = await send(r.guard.sessionUrl("copilot-1"), PATHS.chat, firstRequest("chat"));
      assert.equal(named.ending, "length");
      assert.deepEqual(r.records.filter((x) => x.type === "session").map((x) => (x as { session: string }).session), ["claude:one", "claude:two", "path:copilot-1"]);
    } finally { await unrig(r); }
  });

  it("refuses the 5th identical tool call before the agent gets it, with the reason as text, and the guidance goes into the next request", async () => {
    for (const format of ["anthropic", "chat", "responses"] as WireFormat[]) {
      const r = await rig({ decide: (body) => JSON.stringify(body).includes("refused") ? "final" : "call" });
      try {
        let body = firstRequest(format);
        let refusedAt = 0;
        for (let i = 1; i <= 7 && !refusedAt; i++) {
          const got = await send(r.base, PATHS[format], body, SESSION[format]);
          const calls = callsOf(format, got);
          if (calls.length === 0) { refusedAt = i; assert.match(got.text, /Loop Sentinel refused this call/); assert.equal(got.ending, ENDING[format]); break; }
          body = withResult(format, body, got, calls[0], "a.txt\n");
        }
        assert.equal(refusedAt, 5, `${format}: refused at call ${refusedAt}`);
        const next = await send(r.base, PATHS[format], body, SESSION[format]);
        assert.equal(next.text, FINAL);
        assert.ok(JSON.stringify(r.up.main().at(-1)!.body).includes("Loop Sentinel refused this call"));
        // the warning at the 3rd call went into the 4th request
        assert.ok(JSON.stringify(r.up.main()[3].body).includes("Loop Sentinel:"), `${format}: warned`);
      } finally { await unrig(r); }
    }
  });

  it("gemini: refuses the 5th identical call though the model gives its calls no id (named by their place, which the CLI's own later ids are read back to)", async () => {
    const r = await rig({ decide: (body) => JSON.stringify(body).includes("refused") ? "final" : "call" });
    try {
      const body = firstRequest("gemini") as { contents: Array<Record<string, unknown>> };
      let refusedAt = 0;
      for (let i = 1; i <= 7 && !refusedAt; i++) {
        const got = await send(r.base, PATHS.gemini, body);
        const calls = got.raw.toString("utf8").split(/\r?\n/).filter((l) => l.startsWith("data: ")).flatMap((l) => {
          const d = JSON.parse(l.slice(6));
          return (d.candidates?.[0]?.content?.parts ?? []).filter((p: Record<string, unknown>) => p.functionCall).map((p: { functionCall: Record<string, unknown> }) => p.functionCall);
        });
        if (calls.length === 0) { refusedAt = i; assert.match(got.text, /Loop Sentinel refused this call/); break; }
        assert.equal(calls[0].id, undefined, "the model gave no id");
        // As the Gemini CLI keeps it: its own id on the call and on its answer.
        const id = `run_shell_command_${1000 + i}_0`;
        body.contents.push({ role: "model", parts: [{ text: got.text }, { functionCall: { ...calls[0], id } }] });
        body.contents.push({ role: "user", parts: [{ functionResponse: { id, name: calls[0].name, response: { output: "a.txt\n" } } }] });
      }
      assert.equal(refusedAt, 5, `refused at call ${refusedAt}`);
      const ivs = r.records.filter((x) => x.type === "intervention").map((x) => x.type === "intervention" && `${x.action}@${x.event}`);
      assert.equal(ivs.filter((x) => String(x).startsWith("warn")).length, 1, `each call counted once: ${ivs.join(" ")}`);
    } finally { await unrig(r); }
  });

  it("leaves tool findings to Loop Sentinel's hook where it is installed: no call refused, no warning added", async () => {
    const up = new LoopingUpstream({ delayMs: 5, decide: () => "call" });
    await up.start();
    const records: GuardRecord[] = [];
    const guard = new StreamGuardProxy({ upstream: up.url, config: () => defaultConfig(), report: (x) => records.push(x), toolsByHook: true });
    const base = await guard.listen();
    try {
      let body = firstRequest("anthropic");
      for (let i = 1; i <= 7; i++) {
        const got = await send(base, PATHS.anthropic, body, SESSION.anthropic);
        const calls = callsOf("anthropic", got);
        assert.equal(calls.length, 1, `call ${i} handed over`);
        body = withResult("anthropic", body, got, calls[0], "a.txt\n");
      }
      assert.ok(!JSON.stringify(up.requests.map((q) => q.body)).includes(GUIDANCE_MARK), "nothing added");
      const ivs = records.filter((x) => x.type === "intervention");
      assert.ok(ivs.length > 0 && ivs.every((x) => x.type === "intervention" && x.leftToHook === true), "reported, left to the hook");
    } finally { await guard.close(); await up.stop(); }
  });

  it("leaves a session Loop Sentinel's opencode/Kilo plugin guards to the plugin: the loop streams through uncut, nothing added, the plugin's header not forwarded", async () => {
    const r = await rig({ decide: () => "loop" });
    try {
      const first = firstRequest("chat");
      const got = await send(r.base, PATHS.chat, first, { "user-agent": "opencode/1.18.33", [PLUGIN_HEADER]: "ses_plugin1" });
      assert.equal(got.status, 200);
      assert.ok(copies(got.text) >= 19, `the whole answer passed: ${copies(got.text)} copies`);
      assert.ok(!got.text.includes("Loop Sentinel"), "no note");
      const next = await send(r.base, PATHS.chat, followUp("chat", first, got, "go on"), { [PLUGIN_HEADER]: "ses_plugin1" });
      assert.equal(next.status, 200);
      assert.equal(r.up.main()[0].completed, true, "the upstream ran to its end");
      assert.ok(!JSON.stringify(r.up.requests.map((q) => q.body)).includes(GUIDANCE_MARK), "no guidance added");
      assert.ok(r.up.requests.every((q) => q.headers[PLUGIN_HEADER] === undefined), "the header stays between the plugin and the guard");
      assert.deepEqual(r.records.filter((x) => x.type !== "left-to-plugin"), []);
      assert.equal(r.records.filter((x) => x.type === "left-to-plugin").length, 1, "said once per session");
      assert.equal(r.guard.stats.leftToPlugin, 2);
      // The same loop without the header is the guard's to cut.
      const alone = await send(r.base, PATHS.chat, first, { "user-agent": "opencode/1.18.33" });
      assert.ok(copies(alone.text) < 6 && r.records.some((x) => x.type === "cut"));
    } finally { await unrig(r); }
  });

  it("the plugin asks for that only towards a loopback base URL", () => {
    assert.equal(isLoopbackUrl("http://127.0.0.1:4100/tok/v1"), true);
    assert.equal(isLoopbackUrl("http://localhost:11434/v1"), true);
    assert.equal(isLoopbackUrl("https://api.openai.com/v1"), false);
    assert.equal(isLoopbackUrl("http://127.0.0.1.example.com/v1"), false);
    assert.equal(isLoopbackUrl(undefined), false);
    assert.equal(isLoopbackUrl("not a url"), false);
  });

  it("serves an https upstream (a test certificate)", async function () {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-tls-"));
    try {
      execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path.join(dir, "key.pem"), "-out", path.join(dir, "cert.pem"), "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" });
    } catch { this.skip(); }
    const key = fs.readFileSync(path.join(dir, "key.pem"));
    const cert = fs.readFileSync(path.join(dir, "cert.pem"));
    const r = await rig({ tls: { key, cert } }, defaultConfig(), { ca: cert.toString() });
    try {
      assert.match(r.up.url, /^https:/);
      const got = await send(r.base, PATHS.anthropic, firstRequest("anthropic"), SESSION.anthropic);
      assert.equal(got.ending, "max_tokens");
      assert.ok(copies(got.text) < 6);
    } finally { await unrig(r); fs.rmSync(dir, { recursive: true, force: true }); }
  });

  it("in warn-only mode reports the loop and changes nothing", async () => {
    const config = defaultConfig();
    config.mode = "warnOnly";
    const r = await rig({ delayMs: 0 }, config);
    try {
      const got = await send(r.base, PATHS.anthropic, firstRequest("anthropic"), SESSION.anthropic);
      assert.equal(copies(got.text), 20);
      assert.ok(got.raw.equals(Buffer.from(r.up.main()[0].raw)));
      assert.ok(r.records.some((x) => x.type === "intervention"));
    } finally { await unrig(r); }
  });
});

function callsOf(format: WireFormat, got: ClientAnswer): { id: string; name: string; input: Record<string, unknown> }[] {
  const events: SseEvent[] = [];
  new SseSplitter().push(got.raw, events);
  const reader = streamReader(format);
  const out: { id: string; name: string; input: Record<string, unknown> }[] = [];
  for (const ev of events) out.push(...(reader.read(ev).calls ?? []));
  return out;
}

/** The conversation after a tool call and its result, as the agent sends it. */
function withResult(format: WireFormat, body: Record<string, unknown>, got: ClientAnswer, call: { id: string; name: string; input: Record<string, unknown> }, output: string): Record<string, unknown> {
  const b = JSON.parse(JSON.stringify(body)) as Record<string, any>;
  switch (format) {
    case "anthropic":
      b.messages.push({ role: "assistant", content: [{ type: "text", text: got.text }, { type: "tool_use", id: call.id, name: call.name, input: call.input }] });
      b.messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: output }] });
      return b;
    case "chat":
      b.messages.push({ role: "assistant", content: got.text, tool_calls: [{ id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.input) } }] });
      b.messages.push({ role: "tool", tool_call_id: call.id, content: output });
      return b;
    default:
      b.input.push({ type: "function_call", call_id: call.id, name: call.name, arguments: JSON.stringify(call.input) });
      b.input.push({ type: "function_call_output", call_id: call.id, output });
      return b;
  }
}

describe("stream guard: odd input", function () {
  this.timeout(20000);

  it("reads odd request bodies without failing (fields of other types, nulls, deep nesting)", () => {
    const core = new StreamGuardCore({ config: () => defaultConfig(), report: () => {}, now: () => 0 });
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let i = 0; i < 5000; i++) { at.x = {}; at = at.x as Record<string, unknown>; }
    const odd: unknown[] = [null, 5, "text", [], [null], [{ role: "user", content: 5 }], [{ role: "user", content: [null, 7, { type: "text", text: 9 }] }],
      [{ role: "assistant", content: [{ type: "tool_use", id: 5, input: "x" }, { type: "thinking" }] }], [{ role: "assistant", tool_calls: [null, { id: "c", function: { arguments: "{bad" } }] }],
      [{ type: "function_call_output", call_id: "c", output: { content: 5 } }], [{ role: "model", parts: [{ functionCall: null }, { functionResponse: { response: 5 } }] }], [deep]];
    for (const format of FORMATS) {
      odd.forEach((v, i) => {
        const body: Record<string, unknown> = { tools: [{}], messages: v, input: v, contents: v };
        assert.doesNotThrow(() => core.planRequest(`odd-${format}`, "x", format, body), `${format}, odd body ${i}`);
      });
    }
  });

  it("passes an answer it cannot read through as it came (bad JSON, odd fields, bytes that are not UTF-8)", async () => {
    const junk = Buffer.concat([
      Buffer.from('event: content_block_delta\ndata: {not json\n\n'),
      Buffer.from('event: content_block_delta\ndata: {"type":"content_block_delta","index":"x","delta":null}\n\n'),
      Buffer.from('data: {"type":"content_block_start","content_block":7}\n\n'),
      Buffer.from([0xff, 0xfe, 0x0a, 0x0a]),
      Buffer.from('data: {"choices":[null,{"delta":5}],"candidates":"x","type":"response.output_item.added","item":null}\n\n'),
      Buffer.from("no blank line at the end"),
    ]);
    const server = http.createServer((req, res) => { req.resume(); req.on("end", () => { res.writeHead(200, { "content-type": "text/event-stream" }); res.end(junk); }); });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const errors: GuardRecord[] = [];
    const guard = new StreamGuardProxy({ upstream: `http://127.0.0.1:${(server.address() as { port: number }).port}`, config: () => defaultConfig(), report: (x) => { if (x.type === "error") errors.push(x); } });
    const base = await guard.listen();
    try {
      for (const format of FORMATS) {
        const got = await send(base, PATHS[format], firstRequest(format), SESSION[format]);
        assert.equal(got.status, 200);
        assert.ok(got.raw.equals(junk), `${format}: the same bytes`);
      }
    } finally { await guard.close(); server.closeAllConnections(); await new Promise((r) => server.close(r)); }
  });
});

describe("loop-sentinel proxy and run", function () {
  this.timeout(30000);

  it("refuse what they cannot do, saying why (exit 2), and start nothing", () => {
    const cases: [string[], RegExp][] = [
      [["proxy"], /needs --upstream URL/],
      [["proxy", "--upstream", "ftp://x"], /http:\/\/ or https:\/\//],
      [["proxy", "--upstream", "http://127.0.0.1:1", "--port", "70000"], /--port/],
      [["run", "claude"], /after --/],
      [["run", "--", "vim"], /not an agent the guard knows.*--env NAME/],
      [["run", "--env", "X", "--", "node"], /X is not set.*--upstream/],
      [["run", "--env", "1X", "--upstream", "http://127.0.0.1:1", "--", "node"], /--env needs a variable name/],
    ];
    for (const [args, why] of cases) {
      const r = cli(...args);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
      assert.match(r.err, why);
    }
    const copilot = spawnSyncEnv(["run", "--", "copilot", "-p", "hi"], { COPILOT_PROVIDER_BASE_URL: "" });
    assert.equal(copilot.code, 2);
    assert.match(copilot.err, /BYOK/);
  });

  it("run points the agent at its guard, passes its exit code through, and ends with it", async () => {
    const up = new LoopingUpstream({ delayMs: 0 });
    await up.start();
    try {
      // The agent: asks its endpoint for the model list through the guard, then exits 7.
      const agent = "fetch(process.env.MY_MODEL_URL + '/v1/models').then(r => r.json()).then(j => process.exit(j.data[0].id === 'fake-model' && /^http:\\/\\/127\\.0\\.0\\.1:\\d+\\/[A-Za-z0-9_-]{24}\\.run$/.test(process.env.MY_MODEL_URL) ? 7 : 1), () => process.exit(1))";
      const r = await runCli(["run", "--env", "MY_MODEL_URL", "--upstream", up.url, "--", process.execPath, "-e", agent]);
      assert.equal(r.code, 7, r.err);
      assert.equal(up.requests.length, 1);
      assert.equal(up.requests[0].path, "/v1/models");
      // Its own variable was where the agent would have gone: run takes it as the upstream.
      const again = await runCli(["run", "--env", "MY_MODEL_URL", "--", process.execPath, "-e", agent], { MY_MODEL_URL: up.url });
      assert.equal(again.code, 7, again.err);
      assert.equal(up.requests.length, 2);
    } finally { await up.stop(); }
  });

  it("proxy prints its base URL first, serves until SIGTERM, and its JSON lines name no key", async () => {
    const up = new LoopingUpstream({ delayMs: 2 });
    await up.start();
    const child = spawn(process.execPath, [CLI, "proxy", "--upstream", up.url, "--json"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const url = await new Promise<string>((resolve) => child.stdout.on("data", (d) => { out += d; if (out.includes("\n")) resolve(JSON.parse(out.split("\n")[0]).url); }));
    try {
      const got = await send(url, PATHS.anthropic, firstRequest("anthropic"), SESSION.anthropic);
      assert.equal(got.ending, "max_tokens");
    } finally {
      await new Promise((resolve) => { child.on("close", resolve); child.kill("SIGTERM"); });
      await up.stop();
    }
    const lines = out.trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(lines[0].type, "listening");
    assert.deepEqual(lines.map((l) => l.type).filter((t) => t !== "session"), ["listening", "intervention", "cut", "done"]);
    const iv = lines.find((l) => l.type === "intervention");
    for (const k of ["session", "agent", "event", "detector", "action", "message", "key", "evidence"]) assert.ok(k in iv, k);
    assert.ok(!out.includes("sk-test-secret"));
  });

  it("knows the agents by their program, and reads Codex's provider from its config", () => {
    assert.equal(agentOf("/usr/local/bin/claude"), "claude");
    assert.equal(agentOf("codex.cmd"), "codex");
    assert.equal(agentOf("vim"), undefined);
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "ls-codex-"));
    try {
      fs.writeFileSync(path.join(home, "config.toml"), 'model = "m"\nmodel_provider = "mine" # the local one\n\n[model_providers.mine]\nname = "mine"\nbase_url = "http://127.0.0.1:11434/v1"\n[model_providers.other]\nbase_url = "https://x"\n');
      assert.deepEqual(codexProvider({ CODEX_HOME: home }), { id: "mine", baseUrl: "http://127.0.0.1:11434/v1" });
      fs.writeFileSync(path.join(home, "config.toml"), 'model = "m"\n');
      assert.equal(codexProvider({ CODEX_HOME: home }), undefined);
    } finally { fs.rmSync(home, { recursive: true, force: true }); }
  });
});

function spawnSyncEnv(args: string[], env: Record<string, string>): { code: number | null; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", env: { ...process.env, ...env } });
  return { code: r.status, err: r.stderr };
}

function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...env } });
    let err = "";
    child.stderr.on("data", (d) => { err += d; });
    child.on("close", (code) => resolve({ code, err }));
  });
}
