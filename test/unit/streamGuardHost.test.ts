/**
 * The stream guard as the extension runs it (src/hosts/streamGuard/host.ts) behind the real
 * SessionManager: Claude Code pointed at it through its settings file, a looping answer cut, the
 * session and its intervention shown like any host's, the warning counted as delivered only once
 * the provider answered a request carrying it, and the file put back byte for byte when turned off
 * or when the window closes.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { defaultConfig } from "../../src/engine/config";
import { SessionManager } from "../../src/extension/sessionManager";
import { COPILOT_VARIABLE, StreamGuardHost, guardOutcome } from "../../src/hosts/streamGuard/host";
import { pointedFileFor } from "../../src/hosts/streamGuard/pointing";
import { LoopingUpstream, GUIDANCE_MARK } from "../fakeLoopingUpstream";
import { PATHS, copies, firstRequest, followUp, send } from "./streamGuardKit";

const quiet = { info() {}, warn() {}, error() {}, debug() {} };
const CLAUDE_SESSION = { "x-claude-code-session-id": "9a7e51c0-claude" };

function sandbox(): NodeJS.ProcessEnv {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "ls-guardhost-"));
  return { HOME: root, CLAUDE_CONFIG_DIR: path.join(root, "claude"), CODEX_HOME: path.join(root, "codex"), LOOP_SENTINEL_HOME: path.join(root, "ls") };
}

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
}

function rig(penv: NodeJS.ProcessEnv, terminals: Map<string, string> = new Map()) {
  const manager = new SessionManager({ log: quiet, confirm: async () => "dismiss" });
  const logs: string[] = [];
  const host = new StreamGuardHost({
    env: { log: (l) => logs.push(l), globalStorageRoot: undefined },
    engineConfig: () => manager.config.engine,
    processEnv: penv,
    setTerminalVariable: (name, value) => { if (value === undefined) terminals.delete(name); else terminals.set(name, value); },
  });
  manager.addAdapters([host]);
  return { manager, host, logs, terminals };
}

describe("stream guard in the extension: one more host of the SessionManager", function () {
  this.timeout(20000);

  it("points Claude Code at itself, cuts a loop, shows the session with its agent's name, counts the guidance delivered only once answered, and puts the file back when turned off", async () => {
    const up = new LoopingUpstream({ delayMs: 5 });
    await up.start();
    const penv = sandbox();
    const file = pointedFileFor("claude", penv);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `{\n  "model": "opus",\n  "env": { "ANTHROPIC_BASE_URL": "${up.url}" }\n}\n`);
    const before = fs.readFileSync(file);
    const { manager, host } = rig(penv);
    try {
      const [report] = await host.apply(["claude"]);
      assert.equal(report.state, "pointed", report.detail);
      const [guarded] = host.guarded();
      assert.equal(guarded.upstream, up.url, "the endpoint set before is the guard's upstream");
      assert.equal(JSON.parse(fs.readFileSync(file, "utf8")).env.ANTHROPIC_BASE_URL, guarded.url);
      assert.equal(host.status().state, "watching");
      assert.equal(host.status().label, "Stream guard for Claude Code");

      // Claude Code's request, at the base URL its settings now name.
      const first = firstRequest("anthropic");
      const got = await send(guarded.url, PATHS.anthropic, first, CLAUDE_SESSION);
      assert.ok(copies(got.text) < 6, `cut after ${copies(got.text)} copies`);
      const [snap] = manager.snapshots();
      assert.equal(snap.hostId, "stream-guard");
      assert.match(snap.title, /^Claude Code 9a7e51c0/);
      const abort = snap.interventions.find((r) => r.action === "abort");
      assert.ok(abort, JSON.stringify(snap.interventions));
      assert.equal(abort.phase, "done");
      assert.match(abort.outcome, /cut the response mid-stream/);
      assert.equal(abort.delivery, "pending", "the guidance has not reached the model yet");
      assert.equal(manager.overall().kind, "intervened");

      await send(guarded.url, PATHS.anthropic, followUp("anthropic", first, got, "Please continue"), CLAUDE_SESSION);
      assert.ok(JSON.stringify(up.main()[1].body).includes(GUIDANCE_MARK), "the provider got the guidance");
      await until(() => manager.snapshots()[0].interventions.find((r) => r.action === "abort")?.delivery === "delivered");
      assert.match(manager.snapshots()[0].interventions.find((r) => r.action === "abort")!.outcome, /cut the response mid-stream .* the guidance went with the next request, which the provider answered/);

      const [off] = await host.apply([]);
      assert.equal(off.state, "restored", off.detail);
      assert.ok(fs.readFileSync(file).equals(before), "byte for byte");
      await assert.rejects(send(guarded.url, PATHS.anthropic, first, CLAUDE_SESSION), (err: NodeJS.ErrnoException) => err.code === "ECONNREFUSED" || err.code === "ECONNRESET", "the guard is closed (a kept-alive socket is reset, a new one refused)");
      assert.equal(host.status().state, "inactive");
    } finally { manager.dispose(); await up.stop(); }
  });

  it("a refusal it could not carry out (the calls had already run when it read them) is shown as not done, its guidance as pending until answered", async () => {
    const up = new LoopingUpstream({ delayMs: 5, decide: () => "final" });
    await up.start();
    const penv = { ...sandbox(), ANTHROPIC_BASE_URL: up.url };
    const { manager, host } = rig(penv);
    try {
      await host.apply(["claude"]);
      // A session the guard meets halfway: six identical calls already ran.
      const body = firstRequest("anthropic") as { messages: unknown[] };
      for (let i = 1; i <= 6; i++) {
        body.messages.push({ role: "assistant", content: [{ type: "tool_use", id: `toolu_${i}`, name: "Bash", input: { command: "ls" } }] });
        body.messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: "a.txt" }] });
      }
      await send(host.guarded()[0].url, PATHS.anthropic, body, CLAUDE_SESSION);
      const ivs = manager.snapshots()[0].interventions;
      const block = ivs.find((r) => r.action === "block");
      assert.ok(block, JSON.stringify(ivs.map((r) => r.action)));
      assert.equal(block.phase, "failed", "not refused: it had run");
      assert.match(block.outcome, /had already run/);
      assert.ok(JSON.stringify(up.main()[0].body).includes("Loop Sentinel refused this call"), "its guidance went with that request");
    } finally { manager.dispose(); await up.stop(); }
  });

  it("says what each rung did by where the finding came from: an answer streaming now, a request's history, an answer already ended", () => {
    const iv = (action: "warn" | "block" | "abort" | "stop") => ({ action, detector: "stream-repeat" as const });
    assert.match(guardOutcome(iv("abort"), false, "stream").done, /^cut the response mid-stream/);
    assert.equal(guardOutcome(iv("abort"), false, "stream").ok, undefined);
    assert.equal(guardOutcome(iv("abort"), false, "ended").ok, false);
    assert.match(guardOutcome(iv("abort"), false, "ended").done, /had already ended/);
    assert.equal(guardOutcome(iv("block"), false, "request").ok, false);
    assert.match(guardOutcome(iv("stop"), false, "request").done, /^the session's next request is answered by the guard/);
    assert.match(guardOutcome({ action: "block", detector: "tool-repeat" }, true, "stream").done, /left to Loop Sentinel's hook/);
  });

  it("puts the file back at once when the window closes (dispose), before anything is awaited", async () => {
    const penv = sandbox();
    const file = pointedFileFor("claude", penv);
    const { manager, host } = rig(penv);
    await host.apply(["claude"]);
    assert.equal(fs.existsSync(file), true);
    manager.dispose();
    assert.equal(fs.existsSync(file), false, "there was no file before: there is none after");
  });

  it("Codex without a provider of its own and the Copilot CLI without its own provider are left as they are, and the log says why", async () => {
    const penv = sandbox();
    const { manager, host, logs, terminals } = rig(penv);
    try {
      const reports = await host.apply(["codex", "copilot"]);
      assert.deepEqual(reports.map((r) => r.state), ["not-configured", "not-configured"]);
      assert.equal(terminals.size, 0);
      assert.equal(host.guarded().length, 0);
      assert.ok(logs.some((l) => /OpenAI's own endpoint/.test(l)) && logs.some((l) => /GitHub's service/.test(l)), logs.join("\n"));
    } finally { manager.dispose(); }
  });

  it("the Copilot CLI with its own provider: VS Code's terminals get the guard's address while it is on, and lose it when it is off", async () => {
    const up = new LoopingUpstream({ delayMs: 5 });
    await up.start();
    const penv = { ...sandbox(), [COPILOT_VARIABLE]: `${up.url}/v1` };
    const { manager, host, terminals } = rig(penv);
    try {
      const [r] = await host.apply(["copilot"]);
      assert.equal(r.state, "pointed", r.detail);
      const url = terminals.get(COPILOT_VARIABLE)!;
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{24}\.copilot$/);
      const got = await send(url, "/chat/completions", firstRequest("chat"), { "user-agent": "copilot/1.0.102" });
      assert.ok(copies(got.text) < 6);
      assert.equal(up.main()[0].path, "/v1/chat/completions", "on to the provider's own path");
      assert.match(manager.snapshots()[0].title, /^Copilot CLI/);
      await host.apply([]);
      assert.equal(terminals.has(COPILOT_VARIABLE), false);
    } finally { manager.dispose(); await up.stop(); }
  });

  it("in warn-only mode the loop is shown and nothing is cut or added", async () => {
    const up = new LoopingUpstream({ delayMs: 5 });
    await up.start();
    const penv = { ...sandbox(), ANTHROPIC_BASE_URL: up.url };
    const { manager, host } = rig(penv);
    manager.configure({ engine: { ...defaultConfig(), mode: "warnOnly" }, actionPolicy: "automatic" });
    try {
      await host.apply(["claude"]);
      const got = await send(host.guarded()[0].url, PATHS.anthropic, firstRequest("anthropic"), CLAUDE_SESSION);
      assert.ok(copies(got.text) >= 19, "the whole answer passed");
      const ivs = manager.snapshots()[0].interventions;
      assert.ok(ivs.length > 0 && ivs.every((r) => r.phase === "shown"), JSON.stringify(ivs.map((r) => r.phase)));
    } finally { manager.dispose(); await up.stop(); }
  });
});
