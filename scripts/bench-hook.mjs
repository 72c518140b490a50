// Measures the Cline hook against the two ways a channel fails it (issue 24, item 6):
//  1. a server that never answers: how long the hook process takes from spawn to exit;
//  2. a flood: N calls at once against one real server: how many go unanswered.
// Run after `npm run compile && npm run build`:  node scripts/bench-hook.mjs [RUNS] [FLOOD]
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const HOOK = path.join(ROOT, "dist/cline-hook.js");
const { askChannel } = require(path.join(ROOT, "out/src/hosts/cline/hookChannel.js"));
const { endpointFor, parseHookInput } = require(path.join(ROOT, "out/src/hosts/cline/hookProtocol.js"));
const INPUT = fs.readFileSync(path.join(ROOT, "test/fixtures/cline-hook/sdk-cli-3.0.65-run_commands.json"), "utf8");
const runs = Number(process.argv[2] ?? 20);
const flood = Number(process.argv[3] ?? 3000);

function hookOnce(dir) {
  return new Promise((resolve) => {
    const began = process.hrtime.bigint();
    const child = spawn(process.execPath, [HOOK], { env: { ...process.env, LOOP_SENTINEL_CHANNEL_DIR: dir }, stdio: ["pipe", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (d) => { out += d; });
    child.on("close", () => resolve({ ms: Number(process.hrtime.bigint() - began) / 1e6, out }));
    child.stdin.end(INPUT);
  });
}

function nodeOnce() {
  return new Promise((resolve) => {
    const began = process.hrtime.bigint();
    spawn(process.execPath, ["-e", ""], { stdio: "ignore" }).on("close", () => resolve(Number(process.hrtime.bigint() - began) / 1e6));
  });
}

const stats = (xs) => { const s = [...xs].sort((a, b) => a - b); return `median ${s[Math.floor(s.length / 2)].toFixed(0)} ms, max ${s[s.length - 1].toFixed(0)} ms`; };

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lsb-"));
const silent = net.createServer(() => { /* reads, never answers */ });
await new Promise((r) => silent.listen(endpointFor(dir), r));
const bare = [], hook = [];
for (let i = 0; i < runs; i++) { bare.push(await nodeOnce()); hook.push((await hookOnce(dir)).ms); }
silent.close();
console.log(`node startup alone: ${stats(bare)}`);
console.log(`hook against a channel that never answers (deadline 300 ms): ${stats(hook)} over ${runs} runs`);

// Flood: a real server in its own process, answering "block" for a task it knows; CLIENTS processes
// each start FLOOD/CLIENTS calls at the same moment, as many hook processes would.
const CHANNEL_MODULE = process.env.HOOK_CHANNEL_MODULE ?? path.join(ROOT, "out/src/hosts/cline/hookChannel.js");
const fdir = fs.mkdtempSync(path.join(os.tmpdir(), "lsb-"));
const server = spawn(process.execPath, ["-e", `
  const { HookServer } = require(${JSON.stringify(CHANNEL_MODULE)});
  const s = new HookServer({ dir: ${JSON.stringify(fdir)}, answer: () => ({ known: true, action: "block", message: "refused" }) });
  s.listen().then(() => process.stdout.write("ready\\n"));
  setTimeout(() => process.exit(0), 120000);`], { stdio: ["ignore", "pipe", "inherit"] });
await new Promise((r) => server.stdout.on("data", (d) => { if (String(d).includes("ready")) r(); }));
const CLIENTS = 10;
for (const deadline of [300, 5000]) {
  const at = Date.now() + 3000; // every client starts its calls at this moment
  const counts = await Promise.all(Array.from({ length: CLIENTS }, () => new Promise((resolve) => {
    const child = spawn(process.execPath, ["-e", `
      const { askChannel } = require(${JSON.stringify(CHANNEL_MODULE)});
      const { parseHookInput } = require(${JSON.stringify(path.join(ROOT, "out/src/hosts/cline/hookProtocol.js"))});
      const q = parseHookInput(${JSON.stringify(INPUT)});
      setTimeout(async () => {
        const replies = await Promise.all(Array.from({ length: ${Math.round(flood / CLIENTS)} }, () => askChannel(${JSON.stringify(fdir)}, q, ${deadline})));
        process.stdout.write(String(replies.filter((r) => !r || r.action !== "block").length));
      }, ${at} - Date.now());`], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d) => { out += d; });
    child.on("close", () => resolve(Number(out)));
  })));
  const unanswered = counts.reduce((a, b) => a + b, 0);
  console.log(`${flood} calls at once from ${CLIENTS} processes, deadline ${deadline} ms: ${unanswered} unanswered (${((100 * unanswered) / flood).toFixed(1)}%)`);
}
server.kill();
