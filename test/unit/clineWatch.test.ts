import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { UsageError } from "../../src/cli/args";
import { EXIT_INTERRUPTED, runWatch } from "../../src/cli/watch";

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

  it("explains what it needs", async () => {
    const { io } = capture();
    await assert.rejects(runWatch([], io), (e: Error) => e instanceof UsageError && /--cline-data/.test(e.message));
    await assert.rejects(runWatch(["--cline-data", "/x", "--interrupt", "abc"], io), UsageError);
    await assert.rejects(runWatch(["--cline-data", "/x", "--interrupt-on", "never"], io), UsageError);
  });
});
