import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { UsageError } from "../../src/cli/args";
import { EXIT_INTERRUPTED, runWatch } from "../../src/cli/watch";
import { askChannel } from "../../src/hosts/cline/hookChannel";
import type { HookReply } from "../../src/hosts/cline/hookProtocol";

const HOOK_FIXTURES = path.resolve(__dirname, "../../../test/fixtures/cline-hook");

/**
 * The classic Cline CLI 2.18's task file from a real run with Loop Sentinel's hook (five `ls`, the
 * 5th refused, then its resume question), written row by row in the recorded order, its stamps moved
 * to now; the hook's question is asked over the channel where the real hook ran (after `say:command`).
 */
async function replayRefusedClassicTask(root: string, channel: string, then: (write: (rows: Record<string, unknown>[]) => void) => Promise<void> = async () => undefined): Promise<HookReply[]> {
  const recorded = JSON.parse(fs.readFileSync(path.join(HOOK_FIXTURES, "classic-cli-2.18.0-hook-rows.ui_messages.json"), "utf8")) as Record<string, unknown>[];
  const shift = Date.now() - (recorded[0].ts as number);
  const rows: Record<string, unknown>[] = recorded.map((m) => ({ ...m, ts: (m.ts as number) + shift }));
  const taskId = String(recorded[0].ts);
  const file = path.join(root, "tasks", taskId, "ui_messages.json");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const written: Record<string, unknown>[] = [];
  const write = (more: Record<string, unknown>[]) => {
    written.push(...more);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(written));
    fs.renameSync(`${file}.tmp`, file);
  };
  const replies: HookReply[] = [];
  for (const row of rows) {
    write([row]);
    if (row.say === "command") {
      const reply = await askChannel(channel, { engine: "classic", taskId, toolName: "execute_command", input: { command: String(row.text), requires_approval: "false" } }, 2000);
      assert.ok(reply, "the guard answered the hook");
      replies.push(reply!);
    }
    await new Promise((r) => setTimeout(r, 30));
  }
  await then(write);
  return replies;
}

async function watching(out: string[]): Promise<void> {
  for (let i = 0; i < 200 && !out.some((l) => l.includes('"watching"')); i++) await new Promise((r) => setTimeout(r, 10));
}

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

/** A classic task that runs `ls` again and again, written call by call while the guard watches. */
async function writeCommandLoop(file: string, calls: number, shouldStop: () => boolean): Promise<void> {
  const now = Date.now();
  const messages: Record<string, unknown>[] = [{ ts: now, type: "say", say: "task", text: "List the files" }];
  for (let i = 0; i < calls && !shouldStop(); i++) {
    const request = i === 0 ? "<task>List the files</task>" : "[execute_command for 'ls'] Result:\nCommand executed successfully (exit code 0).\nOutput:\nREADME.txt";
    messages.push({ ts: now + i * 10 + 1, type: "say", say: "api_req_started", text: JSON.stringify({ request }) });
    messages.push({ ts: now + i * 10 + 2, type: "say", say: "command", text: "ls" });
    messages.push({ ts: now + i * 10 + 3, type: "ask", ask: "command_output", text: "README.txt\n" });
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(messages));
    fs.renameSync(`${file}.tmp`, file);
    await new Promise((r) => setTimeout(r, 60));
  }
}

describe("loop-sentinel watch (headless guard for Cline)", () => {
  it("prints interventions live as JSON while a task loops", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "ls-watch-"));
    const { io, out } = capture();
    const stop = new AbortController();
    const running = runWatch(["--cline-data", root, "--json", "--poll", "20"], io, { signal: stop.signal });
    await writeCommandLoop(path.join(root, "data", "tasks", "1", "ui_messages.json"), 4, () => false);
    await new Promise((r) => setTimeout(r, 100));
    stop.abort();
    assert.equal(await running, 0);
    const records = out.map((l) => JSON.parse(l));
    const iv = records.find((r) => r.type === "intervention");
    assert.equal(iv?.detector, "tool-repeat");
    assert.equal(iv?.evidence.count, 3);
    assert.ok(["say:command", "say:api_req_started"].includes(iv?.source.kind), iv?.source.kind);
    assert.equal(records.at(-1).type, "done");
  });

  it("sends SIGINT to the agent on stop and ends with exit code 3 once it has gone", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "ls-watch-"));
    const agent = spawn(process.execPath, ["-e", "process.on('SIGINT', () => process.exit(0)); setInterval(() => {}, 1000); console.log('ready');"], { stdio: ["ignore", "pipe", "ignore"] });
    const agentExit = new Promise<NodeJS.Signals | number | null>((r) => agent.once("exit", (code, signal) => r(signal ?? code)));
    await new Promise((r) => agent.stdout!.once("data", r));
    const { io, out } = capture();
    const running = runWatch(["--cline-data", root, "--interrupt", String(agent.pid), "--poll", "20", "--set", "detectors.tool-repeat.stopAt=4"], io);
    let agentGone = false;
    void agentExit.then(() => { agentGone = true; });
    await writeCommandLoop(path.join(root, "tasks", "2", "ui_messages.json"), 12, () => agentGone);
    assert.equal(await running, EXIT_INTERRUPTED);
    assert.equal(await agentExit, 0); // it exited through its SIGINT handler
    const text = out.join("\n");
    assert.match(text, /STOP\s+tool-repeat/);
    assert.match(text, new RegExp(`sent SIGINT to ${agent.pid}`));
  });

  it("interrupts a classic task waiting at its resume question after a refusal, once no call came within the bound (again, if one SIGINT is not enough)", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "ls-watch-"));
    const channel = fs.mkdtempSync(path.join(os.tmpdir(), "lsc-"));
    // As the classic Cline CLI at its resume question: the first SIGINT cancels, the second exits.
    const agent = spawn(process.execPath, ["-e", "let n = 0; process.on('SIGINT', () => { if (++n >= 2) process.exit(0); }); setInterval(() => {}, 1000); console.log('ready');"], { stdio: ["ignore", "pipe", "ignore"] });
    const agentExit = new Promise<NodeJS.Signals | number | null>((r) => agent.once("exit", (code, signal) => r(signal ?? code)));
    await new Promise((r) => agent.stdout!.once("data", r));
    const { io, out } = capture();
    const running = runWatch(["--cline-data", root, "--interrupt", String(agent.pid), "--poll", "20", "--refusal-idle", "400", "--channel-dir", channel, "--json"], io);
    await watching(out);
    let refusedAt = 0;
    const replies = await replayRefusedClassicTask(root, channel, async () => { refusedAt = Date.now(); });
    assert.deepEqual(replies.map((r) => r.action), ["allow", "allow", "warn", "allow", "block"]);
    assert.equal(await running, EXIT_INTERRUPTED);
    assert.equal(await agentExit, 0);
    const records = out.map((l) => JSON.parse(l));
    const interrupt = records.find((r) => r.type === "interrupt");
    assert.ok(interrupt, out.join("\n"));
    assert.match(interrupt.reason, /refused a call .* no call came since/);
    // Not before the bound: the rows after the refusal were written, then 400 ms of nothing.
    assert.ok(interrupt.elapsedMs >= records.find((r) => r.type === "hook" && r.action === "block").elapsedMs + 400, out.join("\n"));
    assert.ok(Date.now() - refusedAt >= 0);
    assert.ok(!records.some((r) => r.type === "intervention" && r.action === "stop"), "interrupted without the stop rung");
    assert.deepEqual(records.filter((r) => r.type === "interrupt").map((r) => r.signal), ["SIGINT", "SIGINT"]);
  });

  it("leaves a refused task alone when it makes a further call within the bound, and without --interrupt only says it waits", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "ls-watch-"));
    const channel = fs.mkdtempSync(path.join(os.tmpdir(), "lsc-"));
    const agent = spawn(process.execPath, ["-e", "process.on('SIGINT', () => process.exit(0)); setInterval(() => {}, 1000); console.log('ready');"], { stdio: ["ignore", "pipe", "ignore"] });
    await new Promise((r) => agent.stdout!.once("data", r));
    const { io, out } = capture();
    const stop = new AbortController();
    const running = runWatch(["--cline-data", root, "--interrupt", String(agent.pid), "--poll", "20", "--refusal-idle", "600", "--channel-dir", channel, "--json"], io, { signal: stop.signal });
    await watching(out);
    // The person answers the resume question at once: a new request and another listing follow.
    await replayRefusedClassicTask(root, channel, async (write) => {
      const ts = Date.now();
      write([
        { ts, type: "say", say: "api_req_started", text: JSON.stringify({ request: "[TASK RESUMPTION] List something else." }) },
        { ts: ts + 1, type: "say", say: "command", text: "ls -la" },
      ]);
      await new Promise((r) => setTimeout(r, 900));
    });
    stop.abort();
    assert.equal(await running, 0, out.join("\n"));
    agent.kill("SIGKILL");
    assert.ok(!out.some((l) => l.includes('"interrupt"')), out.join("\n"));

    const quiet = fs.mkdtempSync(path.join(os.tmpdir(), "ls-watch-"));
    const channel2 = fs.mkdtempSync(path.join(os.tmpdir(), "lsc-"));
    const told = capture();
    const stop2 = new AbortController();
    const running2 = runWatch(["--cline-data", quiet, "--poll", "20", "--refusal-idle", "300", "--channel-dir", channel2, "--json"], told.io, { signal: stop2.signal });
    await watching(told.out);
    await replayRefusedClassicTask(quiet, channel2, () => new Promise((r) => setTimeout(r, 600)));
    stop2.abort();
    assert.equal(await running2, 0);
    const waiting = told.out.map((l) => JSON.parse(l)).filter((r) => r.type === "waiting");
    assert.equal(waiting.length, 1, told.out.join("\n"));
  });

  it("explains what it needs", async () => {
    const { io } = capture();
    await assert.rejects(runWatch([], io), (e: Error) => e instanceof UsageError && /--cline-data/.test(e.message));
    await assert.rejects(runWatch(["--cline-data", "/x", "--interrupt", "abc"], io), UsageError);
    await assert.rejects(runWatch(["--cline-data", "/x", "--interrupt-on", "never"], io), UsageError);
    await assert.rejects(runWatch(["--cline-data", "/x", "--refusal-idle", "soon"], io), UsageError);
  });
});
