/**
 * Records what the real Gemini CLI and Qwen Code hand a hook on stdin, for the dialect's unit tests:
 * each agent runs a short session against the fake model (a listing after some thinking, a read,
 * an edit, a new file, a failing command) with a hook that keeps every input as it came, in the
 * order the hooks ran. Writes test/fixtures/hook-agents/<agent>/NN-<event>.json, and the session
 * file the agent wrote (its `transcript_path`) as session.jsonl.
 *
 *   npm run compile && node out/test/e2e/agents/recordHookInput.js [gemini,qwen]
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO, runAgent, type Agent } from "./harness";
import type { Step } from "./fakeModel";

const STEPS: Step[] = [
  { thinking: "The test fails; first I want to see which files are here.", text: "Listing the folder.", call: { kind: "shell", command: "ls" } },
  { text: "Reading the code.", call: { kind: "read", path: "calc.js" } },
  { text: "The sign is wrong.", call: { kind: "edit", path: "calc.js", old: "a - b", new: "a + b" } },
  { text: "Writing a note.", call: { kind: "write", path: "NOTES.md", content: "add() subtracted; fixed.\n" } },
  { text: "A command that fails.", call: { kind: "shell", command: "node -e 'process.exit(3)'" } },
  { text: "Done." },
];

async function main(): Promise<void> {
  const agents = (process.argv[2] ?? "gemini,qwen").split(",") as Agent[];
  for (const agent of agents) {
    const r = await runAgent(agent, "record-hook-input", STEPS, { recordInput: true });
    const from = path.join(r.dir, "hook-input");
    const to = path.join(REPO, "test", "fixtures", "hook-agents", agent);
    fs.rmSync(to, { recursive: true, force: true });
    fs.mkdirSync(to, { recursive: true });
    const files = fs.existsSync(from) ? fs.readdirSync(from).sort() : [];
    for (const f of files) fs.copyFileSync(path.join(from, f), path.join(to, f));
    const transcript = files.length ? (JSON.parse(fs.readFileSync(path.join(from, files[files.length - 1]), "utf8")) as { transcript_path?: string }).transcript_path : undefined;
    if (transcript && fs.existsSync(transcript)) fs.copyFileSync(transcript, path.join(to, "session.jsonl"));
    console.log(`${agent}: exit ${r.code}, ${r.model.requests.length} requests, ${files.length} hook inputs -> ${path.relative(REPO, to)}: ${files.join(" ")}`);
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
