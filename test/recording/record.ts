/**
 * `npm run fixtures:record [agent...]`: installs each real agent CLI from npm into the ignored
 * .tmp/agents/<name>, runs it against the scripted fake model on 127.0.0.1 for every scenario, and
 * keeps the session files it wrote, unchanged, under test/fixtures/recorded/<agent>/<scenario>/.
 * The unit tests read those committed files offline; re-recording after an agent's new release is
 * this one command (bump its version in agents.ts).
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { AGENTS, type Agent } from "./agents";
import { FakeModel } from "./fakeModel";
import { makeWorkFolder, PROMPTS, SCENARIOS, type ScenarioName } from "./scenarios";

const REPO = path.resolve(__dirname, "../../..");
const INSTALLS = path.join(REPO, ".tmp", "agents");
const RUNS = path.join(REPO, ".tmp", "recording");
const FIXTURES = path.join(REPO, "test", "fixtures", "recorded");
const RUN_LIMIT_MS = 180_000;

function ensureInstalled(agent: Agent): string {
  const dir = path.join(INSTALLS, agent.name);
  const marker = path.join(dir, "node_modules", ...agent.pkg.split("/"), "package.json");
  if (fs.existsSync(marker) && JSON.parse(fs.readFileSync(marker, "utf8")).version === agent.version) return dir;
  fs.mkdirSync(dir, { recursive: true });
  // Its own package.json, or npm walks up and installs into the project.
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: `record-${agent.name}`, private: true }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", `${agent.pkg}@${agent.version}`], { cwd: dir, stdio: "inherit" });
  return dir;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; err: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "", err = "", timedOut = false;
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { err += d; });
    const timer = setTimeout(() => { timedOut = true; child.kill("SIGTERM"); setTimeout(() => child.kill("SIGKILL"), 5000).unref(); }, RUN_LIMIT_MS);
    child.on("close", (code) => { clearTimeout(timer); resolve({ code, out, err, timedOut }); });
  });
}

async function recordAgent(agent: Agent, model: FakeModel, port: number, asked: ScenarioName[] | undefined): Promise<void> {
  const only = (agent.scenarios ?? SCENARIOS).filter((s) => !asked || asked.includes(s));
  const installDir = ensureInstalled(agent);
  const bin = (name: string) => path.join(installDir, "node_modules", ".bin", name);
  const runs = [
    ...only.map((scenario) => ({ name: scenario as string, scenario, tweak: undefined as ((home: string) => void) | undefined })),
    ...(agent.variants ?? []).filter((v) => only.includes(v.scenario)),
  ];
  for (const { name, scenario, tweak } of runs) {
    const runDir = path.join(RUNS, agent.name, name);
    fs.rmSync(runDir, { recursive: true, force: true });
    const home = path.join(runDir, "home");
    const work = path.join(runDir, "work");
    fs.mkdirSync(home, { recursive: true });
    makeWorkFolder(work);
    model.play(scenario, agent.naming(work), agent.play);
    const plan = agent.prepare({ home, work, port, prompt: PROMPTS[scenario], bin });
    tweak?.(home);
    const started = Date.now();
    const result = await run(plan.command, plan.args, work, plan.env);
    const outDir = path.join(FIXTURES, agent.name, name);
    fs.rmSync(outDir, { recursive: true, force: true });
    fs.mkdirSync(outDir, { recursive: true });
    const extra = agent.finish?.({ home, work, env: plan.env, bin, out: outDir }) ?? [];
    if (agent.keepStdoutAs && result.out.trim() !== "") {
      fs.writeFileSync(path.join(outDir, agent.keepStdoutAs), result.out);
      extra.push(agent.keepStdoutAs);
    }
    const files = agent.sessionFiles({ home, work });
    for (const f of files) fs.copyFileSync(f, path.join(outDir, path.basename(f)));
    const steps = model.log.filter((r) => !r.side).length;
    const note = `${agent.name} ${name}: exit ${result.code}${result.timedOut ? " (timed out)" : ""} in ${Date.now() - started} ms, ${model.log.length} model requests (${steps} scripted), ${files.length + extra.length} file(s) kept`;
    console.log(note);
    if (files.length + extra.length === 0 || result.code !== 0) {
      process.exitCode = 1; // a broken recording must not pass for a new one
      fs.writeFileSync(path.join(runDir, "stdout.txt"), result.out);
      fs.writeFileSync(path.join(runDir, "stderr.txt"), result.err);
      console.log(`  see ${path.relative(REPO, runDir)}/std{out,err}.txt; last stderr: ${result.err.trim().split("\n").slice(-3).join(" | ")}`);
    }
  }
  const meta = path.join(FIXTURES, agent.name, "RECORDED.json");
  fs.writeFileSync(meta, JSON.stringify({ package: agent.pkg, version: agent.version, recordedWith: "npm run fixtures:record", scenarios: agent.scenarios ?? SCENARIOS, variants: (agent.variants ?? []).map((v) => v.name) }, null, 2) + "\n");
}

async function main(): Promise<void> {
  const names = process.argv.slice(2).filter((a) => !a.startsWith("--"));
  const scenarioArg = process.argv.find((a) => a.startsWith("--scenario="))?.slice("--scenario=".length);
  const only = scenarioArg ? scenarioArg.split(",") as ScenarioName[] : undefined;
  const agents = names.length ? AGENTS.filter((a) => names.includes(a.name)) : AGENTS;
  if (names.length && agents.length !== names.length) throw new Error(`unknown agent; known: ${AGENTS.map((a) => a.name).join(", ")}`);
  const model = new FakeModel();
  const port = await model.listen();
  try {
    for (const agent of agents) await recordAgent(agent, model, port, only);
  } finally {
    await model.close();
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
