import * as assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { defaultConfig } from "../../src/engine/config";
import type { TraceEvent } from "../../src/engine/events";
import { LoopSession, type Intervention } from "../../src/engine/session";
import { ClineGuard } from "../../src/hosts/cline/guard";
import { askChannel, HookServer } from "../../src/hosts/cline/hookChannel";
import { hookDirStatus, HOOK_FILE, installHook, SCRIPT_NAME, uninstallHook } from "../../src/hosts/cline/hookInstall";
import { clineOutputFor, encodeReply, endpointFor, listEndpoints, parseHookInput, type HookQuery, type HookReply } from "../../src/hosts/cline/hookProtocol";
import { lastJsonObject, runHook } from "../../src/hosts/cline/hookScript";
import { ClineSessionTranslator } from "../../src/hosts/cline/sessionTranslator";
import { ClineClassicTranslator } from "../../src/hosts/cline/classicTranslator";

const REPO = path.resolve(__dirname, "../../..");
const FIXTURES = path.join(REPO, "test/fixtures/cline-hook");
const SDK_INPUT = fs.readFileSync(path.join(FIXTURES, "sdk-cli-3.0.65-run_commands.json"), "utf8");
const CLASSIC_INPUT = fs.readFileSync(path.join(FIXTURES, "classic-cli-2.18.0-execute_command.json"), "utf8");
const HOOK_SCRIPT = path.join(REPO, "dist", SCRIPT_NAME);

function tempDir(prefix: string): string {
  // Short: a Unix socket path must stay under ~100 bytes.
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

describe("Cline PreToolUse hook: input from the real programs", () => {
  it("reads the SDK core's payload (CLI 3.0.65): session folder id, call id, raw input", () => {
    assert.deepEqual(parseHookInput(SDK_INPUT), { engine: "sdk", taskId: "1795551529259_yloap", toolCallId: "call_1", toolName: "run_commands", input: { commands: ["ls"] } });
  });

  it("reads the classic core's payload (CLI 2.18.0): task folder id, parameters as the task file keeps them", () => {
    assert.deepEqual(parseHookInput(CLASSIC_INPUT), { engine: "classic", taskId: "1795551327691", toolName: "execute_command", input: { command: "ls" } });
  });

  it("lets anything else through: not JSON, another hook's payload, missing ids", () => {
    for (const bad of ["", "{", "[]", "null", JSON.stringify({ hookName: "PostToolUse", taskId: "1" }), JSON.stringify({ preToolUse: { toolName: "x" } }), JSON.stringify({ tool_call: { name: "x" } })]) {
      assert.equal(parseHookInput(bad), undefined, bad);
      assert.deepEqual(clineOutputFor(undefined), { cancel: false });
    }
  });

  it("answers Cline in its contract: warn adds context, block and stop cancel with the guidance", () => {
    assert.deepEqual(clineOutputFor({ known: true, action: "allow" }), { cancel: false });
    assert.deepEqual(clineOutputFor({ known: true, action: "warn", message: "Loop Sentinel: stop listing." }), { cancel: false, contextModification: "Loop Sentinel: stop listing." });
    assert.deepEqual(clineOutputFor({ known: true, action: "block", message: "stop listing." }), { cancel: true, errorMessage: "Loop Sentinel: stop listing." });
    assert.deepEqual(clineOutputFor({ known: true, action: "stop", message: "x" }).cancel, true);
  });
});

describe("Cline hook channel: fails open", () => {
  const query = parseHookInput(SDK_INPUT)!;

  it("with no server, the hook lets the call through at once", async () => {
    const dir = tempDir("lsh-");
    const began = Date.now();
    assert.deepEqual(await runHook(SDK_INPUT, { LOOP_SENTINEL_CHANNEL_DIR: dir }), { cancel: false });
    assert.ok(Date.now() - began < 100, `took ${Date.now() - began} ms`);
    // A folder that does not exist at all is the same.
    assert.deepEqual(await runHook(SDK_INPUT, { LOOP_SENTINEL_CHANNEL_DIR: path.join(dir, "missing") }), { cancel: false });
  });

  it("a server that never answers costs at most the deadline", async () => {
    const dir = tempDir("lsh-");
    const silent = net.createServer(() => { /* reads, never replies */ });
    await new Promise<void>((r) => silent.listen(endpointFor(dir), r));
    try {
      const began = Date.now();
      assert.equal(await askChannel(dir, query, 150), undefined);
      const took = Date.now() - began;
      assert.ok(took >= 140 && took < 600, `took ${took} ms`);
      assert.deepEqual(await runHook(SDK_INPUT, { LOOP_SENTINEL_CHANNEL_DIR: dir, LOOP_SENTINEL_HOOK_DEADLINE_MS: "100" }), { cancel: false });
    } finally { silent.close(); }
  });

  it("a garbled or foreign reply is ignored", async () => {
    for (const garbage of ["not json\n", "{\"v\":99,\"known\":true,\"action\":\"block\",\"message\":\"x\"}\n", "{\"v\":1,\"known\":true,\"action\":\"explode\"}\n", "{\"v\":1,\"known\":true"]) {
      const dir = tempDir("lsh-");
      const liar = net.createServer((s) => s.end(garbage));
      await new Promise<void>((r) => liar.listen(endpointFor(dir), r));
      try {
        assert.equal(await askChannel(dir, query, 300), undefined, garbage);
        assert.deepEqual(await runHook(SDK_INPUT, { LOOP_SENTINEL_CHANNEL_DIR: dir }), { cancel: false }, garbage);
      } finally { liar.close(); }
    }
  });

  it("a socket left by a process that died is skipped", async () => {
    const dir = tempDir("lsh-");
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    fs.writeFileSync(path.join(dir, `cline-${dead.stdout}.sock`), "");
    const began = Date.now();
    assert.equal(await askChannel(dir, query, 300), undefined);
    assert.ok(Date.now() - began < 100);
  });

  it("round trip: the server's verdict reaches the hook; of two servers the one that knows the task wins", async () => {
    const dir = tempDir("lsh-");
    const seen: HookQuery[] = [];
    const server = new HookServer({ dir, answer: (q) => { seen.push(q); return { known: true, action: "block", message: "Loop Sentinel: refused." }; } });
    await server.listen();
    // A second serving process (another window) that does not follow the task.
    const other = net.createServer((s) => s.end(encodeReply({ known: false, action: "stop", message: "wrong window" })));
    const otherEndpoint = path.join(dir, `cline-${process.ppid}.sock`);
    await new Promise<void>((r) => other.listen(otherEndpoint, r));
    try {
      assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
      assert.deepEqual(await runHook(SDK_INPUT, { LOOP_SENTINEL_CHANNEL_DIR: dir }), { cancel: true, errorMessage: "Loop Sentinel: refused." });
      assert.deepEqual(seen, [query]);
    } finally {
      await server.close();
      other.close();
    }
    assert.equal(fs.existsSync(server.endpoint), false, "the socket is removed on close");
  });

  it("closes a channel folder other users could enter (0700) before serving", async function () {
    if (process.platform === "win32") this.skip();
    const dir = tempDir("lsh-");
    fs.chmodSync(dir, 0o777);
    const server = new HookServer({ dir, answer: () => ({ known: true, action: "allow" }) });
    await server.listen(); // tightens it to 0700 first
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    await server.close();
  });
});

/** Runs `fn` with process.stderr.write captured; returns what it wrote. */
async function capturingStderr<T>(fn: () => Promise<T>): Promise<{ value: T; stderr: string }> {
  const write = process.stderr.write;
  let stderr = "";
  (process.stderr as { write: unknown }).write = (chunk: string | Uint8Array) => { stderr += String(chunk); return true; };
  try { return { value: await fn(), stderr }; } finally { process.stderr.write = write; }
}

/** A uid other than ours that a child process can take (root only); undefined where the machine has none. */
function otherUid(): number | undefined {
  if (process.platform === "win32" || typeof process.getuid !== "function" || process.getuid() !== 0) return undefined;
  const id = spawnSync("id", ["-u", "nobody"], { encoding: "utf8" });
  const uid = Number(id.stdout.trim());
  return id.status === 0 && Number.isInteger(uid) && uid !== 0 ? uid : undefined;
}

/** A server that refuses everything, the way a squatter answers the hook. */
const SQUATTER_REPLY = encodeReply({ known: true, action: "block", message: "Loop Sentinel: squatter text" });

describe("Cline hook channel: only the user's own private channel is asked", () => {
  const query = parseHookInput(SDK_INPUT)!;

  async function refusedByEveryClient(dir: string, why: RegExp): Promise<void> {
    const asked = await capturingStderr(() => askChannel(dir, query, 300));
    assert.equal(asked.value, undefined, "askChannel took the squatter's answer");
    assert.equal(asked.stderr.trim().split("\n").length, 1, asked.stderr);
    assert.match(asked.stderr, why);
    const hooked = await capturingStderr(() => runHook(SDK_INPUT, { LOOP_SENTINEL_CHANNEL_DIR: dir }));
    assert.deepEqual(hooked.value, { cancel: false });
    assert.match(hooked.stderr, why);
    const warned: string[] = [];
    assert.deepEqual(listEndpoints(dir, (l) => warned.push(l)), []);
    assert.equal(warned.length, 1);
  }

  it("another user's folder with a socket in it: every client refuses, and our server says it cannot serve", async function () {
    const uid = otherUid();
    if (uid === undefined) this.skip(); // needs root to run a child as another user
    this.timeout(10_000);
    // The other user creates the folder first, open to all, and listens in it.
    const dir = path.join(os.tmpdir(), `lsh-squat-${process.pid}-${Date.now() % 100000}`);
    const squat = `
      const fs = require("fs"), net = require("net"), path = require("path");
      fs.mkdirSync(${JSON.stringify(dir)}, { mode: 0o777 }); fs.chmodSync(${JSON.stringify(dir)}, 0o777);
      const sock = path.join(${JSON.stringify(dir)}, "cline-" + process.pid + ".sock");
      net.createServer((s) => s.end(${JSON.stringify(SQUATTER_REPLY)})).listen(sock, () => { fs.chmodSync(sock, 0o777); process.stdout.write("ready\\n"); });
      setTimeout(() => process.exit(0), 8000);`;
    const squatter = spawn(process.execPath, ["-e", squat], { uid, gid: uid, stdio: ["ignore", "pipe", "inherit"] });
    try {
      await new Promise<void>((resolve, reject) => {
        squatter.stdout!.on("data", (d: Buffer) => { if (String(d).includes("ready")) resolve(); });
        squatter.on("exit", (code) => reject(new Error(`squatter exited ${code}`)));
      });
      assert.equal(fs.lstatSync(dir).uid, uid);
      await refusedByEveryClient(dir, /belongs to another user/);
      const ours = new HookServer({ dir, answer: () => ({ known: true, action: "allow" }) });
      await assert.rejects(ours.listen(), /cannot serve the Cline hook channel: .*belongs to another user/);
    } finally {
      squatter.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("our own folder left open to others (0777): clients refuse it", async function () {
    if (process.platform === "win32") this.skip();
    const dir = tempDir("lsh-");
    fs.chmodSync(dir, 0o777);
    const liar = net.createServer((s) => s.end(SQUATTER_REPLY));
    await new Promise<void>((r) => liar.listen(endpointFor(dir), r));
    try { await refusedByEveryClient(dir, /open to other users \(mode 0777\)/); } finally { liar.close(); }
  });

  it("a link in place of the folder: clients refuse it", async function () {
    if (process.platform === "win32") this.skip();
    const real = tempDir("lsh-");
    const link = path.join(tempDir("lsh-"), "ch");
    fs.symlinkSync(real, link);
    const liar = net.createServer((s) => s.end(SQUATTER_REPLY));
    await new Promise<void>((r) => liar.listen(endpointFor(real), r));
    try {
      await refusedByEveryClient(link, /is a link/);
      await assert.rejects(new HookServer({ dir: link, answer: () => ({ known: true, action: "allow" }) }).listen(), /cannot serve .* is a link/);
    } finally { liar.close(); }
  });

  it("a socket another user owns in our private folder is not asked", async function () {
    const uid = otherUid();
    if (uid === undefined) this.skip(); // needs root to give a socket away
    const dir = tempDir("lsh-");
    const liar = net.createServer((s) => s.end(SQUATTER_REPLY));
    await new Promise<void>((r) => liar.listen(endpointFor(dir), r));
    fs.chownSync(endpointFor(dir), uid, uid);
    try {
      const asked = await capturingStderr(() => askChannel(dir, query, 300));
      assert.equal(asked.value, undefined);
      assert.match(asked.stderr, /skipped 1 hook endpoint.*belongs to another user/);
      assert.equal(asked.stderr.trim().split("\n").length, 1);
    } finally { liar.close(); }
  });
});

describe("Cline hook install and removal", () => {
  it("installs a runnable hook that lets calls through when nothing answers, and removes it again", function () {
    if (!fs.existsSync(HOOK_SCRIPT)) throw new Error(`${HOOK_SCRIPT} missing: run npm run build`);
    const dir = path.join(tempDir("lshi-"), "Hooks");
    const [r] = installHook({ script: HOOK_SCRIPT, nodePath: process.execPath, dirs: [dir] });
    assert.equal(r.state, "installed");
    assert.equal(hookDirStatus(dir).state, "installed");
    const file = path.join(dir, HOOK_FILE);
    assert.ok((fs.statSync(file).mode & 0o111) !== 0, "executable");
    // Run it the way classic Cline does: through the shell, JSON on stdin.
    const run = spawnSync("/bin/sh", ["-c", `'${file}'`], { input: CLASSIC_INPUT, encoding: "utf8", env: { ...process.env, LOOP_SENTINEL_CHANNEL_DIR: path.join(dir, "no-channel") }, timeout: 10_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { cancel: false });
    // Installing again refreshes it in place.
    assert.match(installHook({ script: HOOK_SCRIPT, dirs: [dir] })[0].detail, /refreshed/);
    assert.equal(uninstallHook([dir])[0].state, "absent");
    assert.deepEqual(fs.readdirSync(dir), []);
  });

  it("never overwrites or removes a hook the user wrote", () => {
    const dir = path.join(tempDir("lshi-"), "Hooks");
    fs.mkdirSync(dir, { recursive: true });
    const mine = "#!/bin/sh\necho '{\"cancel\":false,\"contextModification\":\"user rules\"}'\n";
    fs.writeFileSync(path.join(dir, HOOK_FILE), mine, { mode: 0o755 });
    const script = path.join(dir, "..", "fake-hook.js");
    fs.writeFileSync(script, "// stand-in\n");
    const [r] = installHook({ script, dirs: [dir] });
    assert.equal(r.state, "user-hook");
    assert.match(r.detail, /left it alone/);
    assert.equal(uninstallHook([dir])[0].state, "user-hook");
    assert.equal(fs.readFileSync(path.join(dir, HOOK_FILE), "utf8"), mine);
    assert.deepEqual(fs.readdirSync(dir), [HOOK_FILE]);
  });
});

/** A guard over one engine session per task, as `watch` and the extension build it. */
function guardKit(knows: string[] = ["t1"]) {
  const sessions = new Map<string, LoopSession>();
  const fed: Array<{ taskId: string; event: TraceEvent }> = [];
  let acting = true;
  const guard = new ClineGuard({
    feed: (taskId, event) => {
      fed.push({ taskId, event });
      let s = sessions.get(taskId);
      if (!s) { s = new LoopSession(defaultConfig()); sessions.set(taskId, s); }
      return s.push(event);
    },
    knowsTask: (id) => knows.includes(id),
    mayAct: () => acting,
  });
  return { guard, fed, setActing: (v: boolean) => { acting = v; } };
}

const fileEvent = (taskId: string, event: TraceEvent) => ({ taskId, layout: "v4" as const, event, source: { index: 0, kind: "assistant", partial: false, chars: 0 } });

describe("Cline guard: the hook asks the watcher's engine", () => {
  it("SDK order (hook first, file after): each call is counted once; warn at the third, refusal at the fifth", () => {
    const { guard, fed } = guardKit();
    guard.onWatcherEvent(fileEvent("t1", { t: "user", text: "List the files" }));
    const replies: HookReply[] = [];
    for (let i = 1; i <= 5; i++) {
      const id = `call_${i}`;
      guard.onWatcherEvent(fileEvent("t1", { t: "request" }));
      replies.push(guard.decide({ engine: "sdk", taskId: "t1", toolCallId: id, toolName: "run_commands", input: { commands: ["ls"] } }));
      // The session file shows the call (and its result) afterwards.
      guard.onWatcherEvent(fileEvent("t1", { t: "tool_call", id, name: "run_commands", input: { commands: ["ls"] } }));
      guard.onWatcherEvent(fileEvent("t1", { t: "tool_result", id, ok: true, output: "README.txt\n" }));
      guard.onWatcherEvent(fileEvent("t1", { t: "end" }));
    }
    assert.deepEqual(replies.map((r) => r.action), ["allow", "allow", "warn", "allow", "block"]);
    assert.ok(replies.every((r) => r.known));
    assert.equal(fed.filter((f) => f.event.t === "tool_call").length, 5, "no call counted twice");
    assert.match(replies[4].message ?? "", /run_commands/);
  });

  it("classic order (file first, hook after): the hook gets what the engine decided when it counted the call", () => {
    const { guard, fed } = guardKit();
    const answers: string[] = [];
    for (let i = 1; i <= 5; i++) {
      guard.onWatcherEvent(fileEvent("t1", { t: "request" }));
      guard.onWatcherEvent(fileEvent("t1", { t: "tool_call", id: `cline-${i}`, name: "execute_command", input: { command: "ls" } }));
      answers.push(guard.decide(parseHookInput(CLASSIC_INPUT.replace("1795551327691", "t1"))!).action);
      guard.onWatcherEvent(fileEvent("t1", { t: "tool_result", id: `cline-${i}`, ok: true, output: "README.txt" }));
      guard.onWatcherEvent(fileEvent("t1", { t: "end" }));
    }
    assert.deepEqual(answers, ["allow", "allow", "warn", "allow", "block"]);
    assert.equal(fed.filter((f) => f.event.t === "tool_call").length, 5);
  });

  it("classic: a warning raised from the file before the hook asks is left to the hook, once the hook is seen running for the task", () => {
    const warnings: Intervention[] = [];
    const sessions = new Map<string, LoopSession>();
    const guard = new ClineGuard({
      feed: (taskId, event) => {
        if (!sessions.has(taskId)) sessions.set(taskId, new LoopSession(defaultConfig()));
        const out = sessions.get(taskId)!.push(event);
        warnings.push(...out.filter((iv) => iv.action === "warn"));
        return out;
      },
      knowsTask: () => true,
    });
    const loop = (taskId: string, withHook: boolean) => {
      for (let i = 1; i <= 3; i++) {
        guard.onWatcherEvent(fileEvent(taskId, { t: "request" }));
        guard.onWatcherEvent(fileEvent(taskId, { t: "tool_call", id: `${taskId}-${i}`, name: "execute_command", input: { command: "ls" } }));
        if (i === 3) {
          const iv = warnings[0];
          assert.ok(iv, "warned at the third call");
          assert.equal(guard.hookWillCarry(taskId, iv), withHook);
          if (withHook) {
            assert.equal(guard.decide({ engine: "classic", taskId, toolName: "execute_command", input: { command: "ls" } }).action, "warn");
            assert.equal(guard.answeredByHook(iv), true);
          }
        } else if (withHook) guard.decide({ engine: "classic", taskId, toolName: "execute_command", input: { command: "ls" } });
        guard.onWatcherEvent(fileEvent(taskId, { t: "tool_result", id: `${taskId}-${i}`, ok: true, output: "README.txt" }));
        guard.onWatcherEvent(fileEvent(taskId, { t: "end" }));
      }
      warnings.length = 0;
    };
    loop("with-hook", true);
    loop("no-hook", false);
  });

  it("classic, hook before the file: matched by name and target, its result counted under the hook's id", () => {
    const { guard, fed } = guardKit();
    const q = parseHookInput(CLASSIC_INPUT.replace("1795551327691", "t1"))!;
    guard.decide(q);
    guard.onWatcherEvent(fileEvent("t1", { t: "tool_call", id: "cline-77", name: "execute_command", input: { command: "ls" } }));
    guard.onWatcherEvent(fileEvent("t1", { t: "tool_result", id: "cline-77", ok: true, output: "README.txt" }));
    const calls = fed.filter((f) => f.event.t === "tool_call");
    const result = fed.find((f) => f.event.t === "tool_result")!.event;
    assert.equal(calls.length, 1);
    assert.equal(result.t === "tool_result" && result.id, calls[0].event.t === "tool_call" && calls[0].event.id);
  });

  it("SDK, two identical calls in one response: each matched to its own copy by id", () => {
    const { guard, fed } = guardKit();
    guard.onWatcherEvent(fileEvent("t1", { t: "request" }));
    guard.decide({ engine: "sdk", taskId: "t1", toolCallId: "a", toolName: "read_files", input: { paths: ["x"] } });
    // The file shows b before the hook has asked about it, then a.
    guard.onWatcherEvent(fileEvent("t1", { t: "tool_call", id: "b", name: "read_files", input: { paths: ["x"] } }));
    guard.onWatcherEvent(fileEvent("t1", { t: "tool_call", id: "a", name: "read_files", input: { paths: ["x"] } }));
    guard.decide({ engine: "sdk", taskId: "t1", toolCallId: "b", toolName: "read_files", input: { paths: ["x"] } });
    for (const id of ["a", "b"]) guard.onWatcherEvent(fileEvent("t1", { t: "tool_result", id, ok: true, output: "x" }));
    const ids = (t: string) => fed.filter((f) => f.event.t === t).map((f) => (f.event as { id: string }).id);
    assert.deepEqual(ids("tool_call"), ["a", "b"]);
    assert.deepEqual(ids("tool_result"), ["a", "b"]);
  });

  it("different calls are counted apart and never refused", () => {
    const { guard } = guardKit();
    const actions = ["cat README.txt", "wc -l README.txt", "ls", "git status", "npm test"].map((c, i) =>
      guard.decide({ engine: "sdk", taskId: "t1", toolCallId: `c${i}`, toolName: "run_commands", input: { commands: [c] } }).action);
    assert.deepEqual(actions, ["allow", "allow", "allow", "allow", "allow"]);
  });

  it("a task the watcher does not follow is not ours; warn-only lets everything through", () => {
    const { guard, fed, setActing } = guardKit();
    assert.deepEqual(guard.decide({ engine: "sdk", taskId: "elsewhere", toolCallId: "x", toolName: "run_commands", input: {} }), { known: false, action: "allow" });
    assert.equal(fed.length, 0);
    setActing(false);
    const actions = [1, 2, 3, 4, 5].map((i) => guard.decide({ engine: "sdk", taskId: "t1", toolCallId: `c${i}`, toolName: "run_commands", input: { commands: ["ls"] } }).action);
    assert.deepEqual(actions, ["allow", "allow", "allow", "allow", "allow"]);
  });

  it("remembers which interventions it carried, for the host not to send them again", () => {
    const { guard } = guardKit();
    let warned: Intervention | undefined;
    const g2 = new ClineGuard({
      feed: (() => { const s = new LoopSession(defaultConfig()); return (_t: string, e: TraceEvent) => { const out = s.push(e); warned ??= out.find((iv) => iv.action === "warn"); return out; }; })(),
      knowsTask: () => true,
    });
    for (let i = 1; i <= 3; i++) g2.decide({ engine: "sdk", taskId: "t", toolCallId: `c${i}`, toolName: "read_file", input: { path: "a.ts" } });
    assert.ok(warned);
    assert.equal(g2.answeredByHook(warned!), true);
    assert.equal(guard.answeredByHook(warned!), false);
  });
});

describe("Cline session files: hook context is not the user speaking", () => {
  it("a <hook_context> message (Loop Sentinel's guidance coming back) yields no user event", () => {
    const t = new ClineSessionTranslator();
    const events = t.message(0, { id: "m1", role: "user", content: [{ type: "text", text: "<hook_context source=\"PreToolUse\" tool_name=\"run__commands\" tool_call_id=\"call__3\">\nLoop Sentinel: stop.\n</hook_context>" }] });
    assert.deepEqual(events, []);
    const user = t.message(1, { id: "m2", role: "user", content: [{ type: "text", text: "<user_input mode=\"act\">go on</user_input>" }] });
    assert.deepEqual(user.map((e) => e.t), ["user"]);
  });
});

describe("Cline classic task file with hooks on: rows that move", () => {
  it("a command row pushed down by the hook_status row Cline inserts before it is still one call (recorded from CLI 2.18.0)", () => {
    const rows = JSON.parse(fs.readFileSync(path.join(FIXTURES, "classic-cli-2.18.0-hook-rows.ui_messages.json"), "utf8")) as Record<string, unknown>[];
    // As Cline writes it: the command row first, then the hook row spliced in before it.
    const t = new ClineClassicTranslator();
    const calls: string[] = [];
    const take = (events: TraceEvent[]) => { for (const e of events) if (e.t === "tool_call") calls.push(e.id); };
    for (let i = 0; i < rows.length; i++) {
      if (rows[i].say === "hook_status" && rows[i + 1]?.say === "command") take(t.message(i, rows[i + 1]));
      take(t.message(i, rows[i]));
    }
    const commandRows = rows.filter((r) => r.say === "command").length;
    assert.equal(commandRows, 5);
    assert.equal(calls.length, commandRows, calls.join(", "));
    assert.equal(new Set(calls).size, calls.length);
  });
});

describe("Cline hook chained to the user's own PreToolUse", () => {
  const userHook = "#!/bin/sh\ncat > /dev/null\necho 'checking policy...'\necho '{\"cancel\":false,\"contextModification\":\"USER RULES: never touch prod\"}'\n";

  it("with --chain, takes the user's hook's place, runs it on every call, and puts it back byte for byte", function () {
    if (process.platform === "win32") this.skip();
    const dir = path.join(tempDir("lshc-"), "Hooks");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, HOOK_FILE), userHook, { mode: 0o750 });
    const [r] = installHook({ script: HOOK_SCRIPT, nodePath: process.execPath, dirs: [dir], chain: true });
    assert.equal(r.state, "installed");
    assert.match(r.detail, /your own PreToolUse alongside/);
    const run = spawnSync("/bin/sh", ["-c", `'${path.join(dir, HOOK_FILE)}'`], { input: SDK_INPUT, encoding: "utf8", env: { ...process.env, LOOP_SENTINEL_CHANNEL_DIR: path.join(dir, "none") }, timeout: 10_000 });
    assert.deepEqual(JSON.parse(run.stdout), { cancel: false, contextModification: "USER RULES: never touch prod" });
    const [u] = uninstallHook([dir]);
    assert.match(u.detail, /put your own PreToolUse back/);
    assert.equal(fs.readFileSync(path.join(dir, HOOK_FILE), "utf8"), userHook);
    assert.equal(fs.statSync(path.join(dir, HOOK_FILE)).mode & 0o777, 0o750);
    assert.deepEqual(fs.readdirSync(dir), [HOOK_FILE]);
  });

  it("merges the two answers as Cline merges two hooks: either cancels, texts joined; a failing user hook is ignored", async () => {
    const dir = tempDir("lshm-");
    const server = new HookServer({ dir, answer: () => ({ known: true, action: "block", message: "Loop Sentinel refused this call." }) });
    await server.listen();
    try {
      const chained = path.join(dir, "user-hook");
      fs.writeFileSync(chained, userHook, { mode: 0o755 });
      assert.deepEqual(await runHook(SDK_INPUT, { LOOP_SENTINEL_CHANNEL_DIR: dir }, chained),
        { cancel: true, contextModification: "USER RULES: never touch prod", errorMessage: "Loop Sentinel refused this call." });
      fs.writeFileSync(chained, "#!/bin/sh\necho broken >&2\nexit 3\n", { mode: 0o755 });
      assert.deepEqual(await runHook(SDK_INPUT, { LOOP_SENTINEL_CHANNEL_DIR: dir }, chained), { cancel: true, errorMessage: "Loop Sentinel refused this call." });
      fs.writeFileSync(chained, "#!/bin/sh\necho '{\"cancel\":true,\"errorMessage\":\"user says no\"}'\n", { mode: 0o755 });
      const both = await runHook(SDK_INPUT, { LOOP_SENTINEL_CHANNEL_DIR: path.join(dir, "none") }, chained);
      assert.deepEqual(both, { cancel: true, errorMessage: "user says no" }, "the user's cancel stands when Loop Sentinel is absent");
    } finally { await server.close(); }
  });

  it("reads the last JSON object of a hook's output, after debug lines", () => {
    assert.deepEqual(lastJsonObject("debug {not json}\n{\"cancel\":true}\n"), { cancel: true });
    assert.deepEqual(lastJsonObject("{\"a\":{\"b\":1}}"), { a: { b: 1 } });
    assert.equal(lastJsonObject("no json here"), undefined);
  });
});

describe("Cline hook: deadline and floods", () => {
  it("counts the deadline from the start of the hook, not from when it asks the channel", async () => {
    const dir = tempDir("lsh-");
    const silent = net.createServer(() => { /* reads, never replies */ });
    await new Promise<void>((r) => silent.listen(endpointFor(dir), r));
    try {
      // 250 of 300 ms already spent starting up: at most the remaining 50 ms are spent waiting.
      const began = Date.now();
      assert.deepEqual(await runHook(SDK_INPUT, { LOOP_SENTINEL_CHANNEL_DIR: dir, LOOP_SENTINEL_HOOK_DEADLINE_MS: "300" }, "/nonexistent", () => 250), { cancel: false });
      const took = Date.now() - began;
      assert.ok(took < 200, `took ${took} ms, the whole deadline again`);
      // Past the deadline already: the channel is not asked at all.
      let connections = 0;
      silent.on("connection", () => connections++);
      assert.deepEqual(await runHook(SDK_INPUT, { LOOP_SENTINEL_CHANNEL_DIR: dir }, "/nonexistent", () => 400), { cancel: false });
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(connections, 0);
    } finally { silent.close(); }
  });

  it("the server queues a flood of hooks (thousands at once) instead of refusing all but 511", async function () {
    if (process.platform !== "linux") this.skip();
    const ss = spawnSync("ss", ["-xlnH"], { encoding: "utf8" });
    if (ss.status !== 0) this.skip(); // no iproute2 here
    const dir = tempDir("lsh-");
    const server = new HookServer({ dir, answer: () => ({ known: true, action: "allow" }) });
    await server.listen();
    try {
      const row = spawnSync("ss", ["-xlnH"], { encoding: "utf8" }).stdout.split("\n").find((l) => l.includes(server.endpoint));
      assert.ok(row, "the endpoint is not listed as listening");
      // For a listening socket, ss shows the accept queue's size in Send-Q (the 3rd column).
      const queue = Number(row!.trim().split(/\s+/)[3]);
      const somaxconn = Number(fs.readFileSync("/proc/sys/net/core/somaxconn", "utf8"));
      assert.equal(queue, Math.min(somaxconn, 8192), row);
      assert.ok(queue >= Math.min(somaxconn, 3000), `queue of ${queue}`);
    } finally { await server.close(); }
  });
});
