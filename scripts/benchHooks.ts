/**
 * What Loop Sentinel's agent hook (dist/agent-hook.js) adds to each tool call of Claude Code,
 * Copilot CLI, Codex, Gemini CLI or Qwen Code: the wall time of one hook process, against a no-op
 * Node hook given the same stdin in the same run (interleaved, so the machine's load falls on both
 * alike; the medians of the paired differences). A 40-call Claude session (reads, edits, test
 * runs, with a transcript that grows with thinking and results as the real one does): 80 hook
 * calls (PreToolUse and PostToolUse), and the same calls in Copilot CLI's (with the permissionRequest
 * it runs for every call), Codex's, Gemini CLI's and Qwen Code's words (without their session
 * files: the calls alone); each agent's calls headless (the
 * hook decides alone from its session file) and with the channel (a Loop Sentinel in this process
 * answers, as the extension or `watch --agents` does). Budget (issue 35, part 4): +25 ms median
 * above the no-op hook per hook run, for every agent, both ways; a table at the end says where each
 * stands, and what all the hooks of one tool call add together.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { defaultConfig } from "../src/engine/config";
import { LoopSession } from "../src/engine/session";
import { AgentHookService } from "../src/hosts/hookAgents/service";

export const HOOK_BUDGET_MS = 25;

const NOOP = "process.stdin.resume();process.stdin.on('end',()=>process.exit(0));\n";

function runOnce(args: string[], input: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, stdio: ["pipe", "ignore", "ignore"] });
    child.on("error", reject);
    child.on("close", () => resolve(Number(process.hrtime.bigint() - t) / 1e6));
    child.stdin.end(input);
  });
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

export type Dialect = "claude" | "copilot" | "codex" | "gemini" | "qwen";
/** The tools' names in Gemini CLI and Qwen Code. */
const GEMINI_NAMES: Record<string, string> = { Read: "read_file", Edit: "replace", Bash: "run_shell_command", Grep: "search_file_content" };

/** One call of the session in another agent's words, as its hooks get it (test/fixtures/hook-agents/). */
function otherDialect(dialect: Exclude<Dialect, "claude">, sessionId: string, i: number, name: string, input: Record<string, unknown>, result: string | undefined): string {
  if (dialect === "copilot") {
    // camelCase hooks: no call id, no session file named (the hook looks for one under COPILOT_HOME).
    const doc: Record<string, unknown> = { sessionId, timestamp: Date.now(), cwd: "/w", toolName: { Read: "view", Edit: "edit", Bash: "bash", Grep: "grep" }[name], toolArgs: input };
    if (result !== undefined) doc.toolResult = { resultType: "success", textResultForLlm: result };
    return JSON.stringify(doc);
  }
  if (dialect === "codex") {
    // Its rollout file is not written here: only the calls (every tool shows as Bash).
    const doc: Record<string, unknown> = {
      session_id: sessionId, turn_id: "turn-1", transcript_path: `/h/.codex/sessions/rollout-${sessionId}.jsonl`, cwd: "/w", model: "m", permission_mode: "bypassPermissions",
      hook_event_name: result === undefined ? "PreToolUse" : "PostToolUse", tool_name: "Bash", tool_input: { command: `${name} ${JSON.stringify(input)}` }, tool_use_id: `call_${i}`,
    };
    if (result !== undefined) doc.tool_response = result;
    return JSON.stringify(doc);
  }
  const doc: Record<string, unknown> = {
    session_id: sessionId, transcript_path: `/h/.${dialect}/chats/${sessionId}.jsonl`, cwd: "/w", timestamp: new Date().toISOString(),
    hook_event_name: dialect === "gemini" ? (result === undefined ? "BeforeTool" : "AfterTool") : (result === undefined ? "PreToolUse" : "PostToolUse"),
    tool_name: GEMINI_NAMES[name], tool_input: input,
  };
  if (dialect === "qwen") Object.assign(doc, { permission_mode: "yolo", prompt_id: `${sessionId}########0`, tool_use_id: `toolu_${i}`, tool_call_id: `call_${i}` });
  if (result !== undefined) doc.tool_response = { llmContent: name === "Bash" ? `Output: ${result}\nExit Code: 0\nProcess Group PGID: ${4000 + i}` : result, returnDisplay: "" };
  return JSON.stringify(doc);
}

/** The hook stdin texts of a realistic session, and the transcript lines written before each. */
export function session(dir: string, sessionId: string, dialect: Dialect = "claude"): { stdin: string; transcript: string; point?: string; tool: number }[] {
  const transcript = path.join(dir, `${sessionId}.jsonl`);
  const out: { stdin: string; transcript: string; point?: string; tool: number }[] = [];
  const line = (o: Record<string, unknown>) => JSON.stringify({ sessionId, timestamp: new Date().toISOString(), ...o }) + "\n";
  for (let i = 0; i < 40; i++) {
    const kind = i % 4;
    const [name, input]: [string, Record<string, unknown>] =
      kind === 0 ? ["Read", { file_path: `/w/src/mod${i % 7}.ts` }]
        : kind === 1 ? ["Edit", { file_path: `/w/src/mod${i % 7}.ts`, old_string: `a${i}`, new_string: `b${i}` }]
        : kind === 2 ? ["Bash", { command: "npm test", description: "run the tests" }]
        : ["Grep", { pattern: `symbol${i}`, path: "/w/src" }];
    const id = `toolu_${i}`;
    // Productive thinking, different at each step (the same sentence six times was a reasoning loop:
    // the run was stopped at its third call, and the bench timed a stopped session).
    const topic = ["parser", "cache", "config loader", "test runner", "logger", "router", "scheduler"][i % 7];
    const thinking = `Step ${i}: the ${topic} in mod${i % 7}.ts is next. The last result listed ${i + 3} places that call it; ` +
      `${["two of them pass a null", "one of them ignores the error", "none of them checks the size", "the newest one was added last week"][i % 4]}. ` +
      `I will ${name.toLowerCase()} ${["the file", "the failing function", "the tests", "the call sites"][kind]} to see ${["what it returns", "where it breaks", "whether the fix holds", "who else depends on it"][(i >> 2) % 4]}.`;
    const common = { session_id: sessionId, transcript_path: transcript, cwd: "/w", permission_mode: "default", tool_name: name, tool_input: input, tool_use_id: id };
    const result = kind === 2 ? `> test\n${i % 2 ? "1 failing" : "all passing"} after ${i} edits\n` : `line 1\nline ${i}\n`.repeat(20);
    if (dialect !== "claude") {
      // Their session files are not read by the hook: only the calls.
      // Copilot's camelCase input does not say which hook it is: its command line does.
      out.push({ stdin: otherDialect(dialect, sessionId, i, name, input, undefined), transcript: "", point: dialect === "copilot" ? "pre" : undefined, tool: i });
      if (dialect === "copilot") {
        // Copilot runs its permissionRequest hook for every call, even with --allow-all-tools (shared/hosts/hook-agents).
        const toolName = { Read: "view", Edit: "edit", Bash: "bash", Grep: "grep" }[name];
        out.push({ stdin: JSON.stringify({ hookName: "permissionRequest", sessionId, timestamp: Date.now(), cwd: "/w", toolName, toolInput: input, permissionSuggestions: [] }), transcript: "", point: "permission", tool: i });
      }
      out.push({ stdin: otherDialect(dialect, sessionId, i, name, input, result), transcript: "", point: dialect === "copilot" ? "post" : undefined, tool: i });
      continue;
    }
    out.push({
      tool: i,
      stdin: JSON.stringify({ ...common, hook_event_name: "PreToolUse" }),
      transcript: line({ type: "assistant", message: { id: `m${i}`, role: "assistant", model: "m", content: [{ type: "thinking", thinking }] } }) +
        line({ type: "assistant", message: { id: `m${i}`, role: "assistant", model: "m", content: [{ type: "tool_use", id, name, input }] } }),
    });
    out.push({
      tool: i,
      stdin: JSON.stringify({ ...common, hook_event_name: "PostToolUse", tool_response: { stdout: result, stderr: "", interrupted: false } }),
      transcript: line({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: result }] } }),
    });
  }
  return out;
}

interface Measured { label: string; calls: number; tools: number; ours: number; noop: number; added: number; perTool: number; p90: number }

async function measure(label: string, hook: string, noop: string, env: NodeJS.ProcessEnv, dir: string, sessionId: string, dialect: Dialect = "claude"): Promise<Measured> {
  const ours: number[] = [];
  const base: number[] = [];
  const calls = session(dir, sessionId, dialect);
  const transcript = path.join(dir, `${sessionId}.jsonl`);
  fs.writeFileSync(transcript, "");
  for (const c of calls) {
    fs.appendFileSync(transcript, c.transcript);
    base.push(await runOnce([noop], c.stdin, env));
    ours.push(await runOnce([hook, dialect, ...(c.point ? [c.point] : [])], c.stdin, env));
  }
  // The median of the paired differences: a call and its no-op twin ran side by side, under the same load.
  // And per tool call: what all the hooks one call runs (pre and post; Copilot's permissionRequest too) add together.
  const byTool = new Map<number, number>();
  calls.forEach((c, i) => byTool.set(c.tool, (byTool.get(c.tool) ?? 0) + ours[i] - base[i]));
  const m: Measured = {
    label, calls: calls.length, tools: byTool.size, ours: median(ours), noop: median(base), added: median(ours.map((t, i) => t - base[i])), perTool: median([...byTool.values()]),
    p90: [...ours].sort((a, b) => a - b)[Math.floor(ours.length * 0.9)],
  };
  process.stdout.write(`${label.padEnd(36)} ${m.calls} calls: hook ${m.ours.toFixed(1)} ms median, no-op Node hook ${m.noop.toFixed(1)} ms (x${(m.ours / m.noop).toFixed(2)}), added ${m.added.toFixed(1)} ms (paired median; budget +${HOOK_BUDGET_MS} ms: ${verdictOf(m.added)}); p90 ${m.p90.toFixed(1)} ms\n`);
  return m;
}

const verdictOf = (added: number) => (added <= HOOK_BUDGET_MS ? "within" : "OVER");

const DIALECTS: { dialect: Dialect; name: string }[] = [
  { dialect: "claude", name: "Claude Code" }, { dialect: "copilot", name: "Copilot CLI" }, { dialect: "codex", name: "Codex" },
  { dialect: "gemini", name: "Gemini CLI" }, { dialect: "qwen", name: "Qwen Code" },
];

const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" ");

export async function benchAgentHook(hook: string): Promise<void> {
  process.stdout.write(`\nagent hook per tool call (Claude Code / Copilot CLI / Codex / Gemini CLI / Qwen Code; wall time of one hook process; load average ${load()}, ${os.cpus().length} cores)\n`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lsb-"));
  try {
    const noop = path.join(dir, "noop-hook.js");
    fs.writeFileSync(noop, NOOP);
    const env: NodeJS.ProcessEnv = { ...process.env, LOOP_SENTINEL_CHANNEL_DIR: path.join(dir, "ch") };
    delete env.XDG_RUNTIME_DIR;
    // Copilot's hook looks for its session file under COPILOT_HOME: an empty one here.
    const envFor = (d: Dialect) => (d === "copilot" ? { ...env, COPILOT_HOME: path.join(dir, "copilot-home") } : env);
    // Warm the file cache and the machine for both programs.
    for (let i = 0; i < 3; i++) { await runOnce([noop], "{}", env); await runOnce([hook, "claude"], "{}", env); }
    const headless: Measured[] = [];
    for (const { dialect, name } of DIALECTS) {
      headless.push(await measure(`headless, ${name}${dialect === "claude" ? " (session file)" : ""}`, hook, noop, envFor(dialect), dir, `bench-${dialect}`, dialect));
    }
    const sessions = new Map<string, LoopSession>();
    const config = defaultConfig();
    const service = new AgentHookService({
      feed: (key, event) => {
        let s = sessions.get(key);
        if (!s) { s = new LoopSession(config); sessions.set(key, s); }
        return s.push(event);
      },
    });
    const server = await service.serve(env);
    const channel: Measured[] = [];
    try {
      for (const { dialect, name } of DIALECTS) {
        channel.push(await measure(`with the channel, ${name}`, hook, noop, envFor(dialect), dir, `bench-channel-${dialect}`, dialect));
      }
    } finally {
      await server.close();
    }
    process.stdout.write(`added per hook run over the no-op Node hook (paired medians of ${headless[0].tools} tool calls' hook runs; budget +${HOOK_BUDGET_MS} ms; load average now ${load()}); in brackets, all the hooks of one tool call together:\n`);
    DIALECTS.forEach(({ name }, i) => {
      const h = headless[i], c = channel[i];
      const cell = (x: Measured) => `${`+${x.added.toFixed(1)} ms`.padStart(9)} ${verdictOf(x.added).padEnd(6)} (n=${x.calls}; a call +${x.perTool.toFixed(1)} ms)`;
      process.stdout.write(`  ${name.padEnd(12)} headless ${cell(h)}   with the channel ${cell(c)}\n`);
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
