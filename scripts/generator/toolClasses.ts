/**
 * Tool-channel loop classes of issue 16 and their productive look-alikes, as parametric generators.
 * Every draw varies the host's tool naming (Roo/Kilo, Cline, Claude Code, Gemini CLI, opencode),
 * result envelopes, output drift (timestamps, pids, durations), reasoning chunked between calls,
 * parallel batches and timestamps. A loop case marks where each copy of its repeated unit begins.
 */
import type { TraceEvent } from "../../src/engine/events";
import type { CaseGenerator, GeneratedCase, Rng } from "./types";

// ---------------------------------------------------------------------------------------------
// Trace building

class TraceBuilder {
  readonly events: TraceEvent[] = [];
  private ids = 0;
  private clock: number | undefined;

  constructor(private readonly rng: Rng, timed: boolean) {
    this.clock = timed ? 1_700_000_000_000 + rng.int(0, 1e9) : undefined;
  }

  get at(): number { return this.events.length; }

  /** Moves the clock on by `seconds` (no-op for untimed traces). */
  wait(seconds: number): void { if (this.clock !== undefined) this.clock += Math.round(seconds * 1000); }

  private push(e: TraceEvent): void {
    // Streamed chunks come tens of milliseconds apart; calls, results and requests take longer.
    if (this.clock !== undefined) { this.clock += e.t === "reasoning" || e.t === "text" ? this.rng.int(10, 80) : this.rng.int(200, 3000); e.ts = this.clock; }
    this.events.push(e);
  }

  user(text: string): void { this.push({ t: "user", text }); }
  request(): void { this.push({ t: "request" }); }
  end(): void { this.push({ t: "end" }); }

  /** Streams text in chunks of 1-40 characters, as hosts deliver it. */
  stream(channel: "reasoning" | "text", text: string): void {
    let i = 0;
    while (i < text.length) {
      const n = this.rng.int(1, 40);
      this.push({ t: channel, delta: text.slice(i, i + n) });
      i += n;
    }
  }

  call(call: ToolCall): string {
    const id = `call_${++this.ids}_${this.rng.int(1000, 9999)}`;
    this.push({ t: "tool_call", id, name: call.name, input: call.input });
    return id;
  }

  result(id: string, r: ToolOutcome): void {
    this.push(r.ok ? { t: "tool_result", id, ok: true, output: r.text } : { t: "tool_result", id, ok: false, error: r.text });
  }

  /** One model step: optional reasoning, the calls (a parallel batch when several), their results. */
  step(calls: { call: ToolCall; outcome: ToolOutcome }[], reasoning?: string, text?: string): void {
    this.request();
    if (reasoning) this.stream("reasoning", reasoning);
    if (text) this.stream("text", text);
    const ids = calls.map((c) => this.call(c.call));
    this.end();
    calls.forEach((c, i) => this.result(ids[i], c.outcome));
  }

  /** A step with text only (no tool call). */
  say(text: string, reasoning?: string): void {
    this.request();
    if (reasoning) this.stream("reasoning", reasoning);
    this.stream("text", text);
    this.end();
  }
}

interface ToolCall { name: string; input: Record<string, unknown> }
interface ToolOutcome { ok: boolean; text: string }

// ---------------------------------------------------------------------------------------------
// Hosts: each one's tool names, input keys and result envelopes

interface Host {
  name: string;
  shell(command: string): ToolCall;
  /** The result of a shell command that printed `out` and exited with `exit`. */
  shellResult(command: string, out: string, exit: number, rng: Rng): ToolOutcome;
  read(path: string, range?: [number, number]): ToolCall;
  write(path: string, content: string): ToolCall;
  writeResult(path: string): ToolOutcome;
  edit(path: string, oldText: string, newText: string): ToolCall;
  editResult(path: string): ToolOutcome;
  /** A reader of a background command's output, when the host has one. */
  terminalReader?(handle: string): ToolCall;
  /** A search of `pattern` in `scope` with the host's own search tool (a shell `rg` where it has none), and its answer when nothing matched. */
  search(pattern: string, scope: string): ToolCall;
  searchNone(pattern: string, scope: string): ToolOutcome;
  /** The host's plan tool (Codex update_plan, Claude Code TodoWrite...), when it has one. */
  plan?(step: string): { call: ToolCall; outcome: ToolOutcome };
}

const ROO: Host = {
  name: "roo",
  shell: (command) => ({ name: "execute_command", input: { command } }),
  shellResult: (_c, out, exit) => ({
    ok: true,
    text: `Command executed in terminal within working directory '/work/app'. ${exit === 0 ? "Exit code: 0" : `Command failed with exit code ${exit}`}\nOutput:\n${out}`,
  }),
  read: (path, range) => ({ name: "read_file", input: { args: { file: [range ? { path, line_range: `${range[0]}-${range[1]}` } : { path }] } } }),
  write: (path, content) => ({ name: "write_to_file", input: { path, content, line_count: content.split("\n").length } }),
  writeResult: (path) => ({ ok: true, text: `The content was successfully saved to ${path}.` }),
  edit: (path, oldText, newText) => ({ name: "apply_diff", input: { path, diff: `<<<<<<< SEARCH\n:start_line:1\n-------\n${oldText}\n=======\n${newText}\n>>>>>>> REPLACE` } }),
  editResult: (path) => ({ ok: true, text: `Changes successfully applied to ${path}.` }),
  search: (regex, path) => ({ name: "search_files", input: { path, regex } }),
  searchNone: () => ({ ok: true, text: "Found 0 results." }),
  plan: (step) => ({ call: { name: "update_todo_list", input: { todos: `[-] ${step}` } }, outcome: { ok: true, text: "Todo list updated successfully." } }),
};

const CLINE: Host = {
  name: "cline",
  shell: (command) => ({ name: "execute_command", input: { command, requires_approval: false } }),
  shellResult: (_c, out, exit) => (exit === 0 ? { ok: true, text: `Command executed.\nOutput:\n${out}` } : { ok: false, text: `Command failed with exit code ${exit}.\nOutput:\n${out}` }),
  read: (path) => ({ name: "read_file", input: { path } }),
  write: (path, content) => ({ name: "write_to_file", input: { path, content } }),
  writeResult: (path) => ({ ok: true, text: `The content was successfully saved to ${path}.` }),
  edit: (path, oldText, newText) => ({ name: "replace_in_file", input: { path, diff: `------- SEARCH\n${oldText}\n=======\n${newText}\n+++++++ REPLACE` } }),
  editResult: (path) => ({ ok: true, text: `The content was successfully saved to ${path}.` }),
  search: (regex, path) => ({ name: "search_files", input: { path, regex } }),
  searchNone: () => ({ ok: true, text: "Found 0 results." }),
};

const CLAUDE: Host = {
  name: "claude-code",
  shell: (command) => ({ name: "Bash", input: { command, description: "Run it" } }),
  shellResult: (_c, out, exit) => (exit === 0 ? { ok: true, text: out } : { ok: false, text: `Exit code ${exit}\n${out}` }),
  read: (path, range) => ({ name: "Read", input: range ? { file_path: `/work/app/${path}`, offset: range[0], limit: range[1] - range[0] + 1 } : { file_path: `/work/app/${path}` } }),
  write: (path, content) => ({ name: "Write", input: { file_path: `/work/app/${path}`, content } }),
  writeResult: (path) => ({ ok: true, text: `File created successfully at: /work/app/${path}` }),
  edit: (path, oldText, newText) => ({ name: "Edit", input: { file_path: `/work/app/${path}`, old_string: oldText, new_string: newText } }),
  editResult: (path) => ({ ok: true, text: `The file /work/app/${path} has been updated.` }),
  terminalReader: (handle) => ({ name: "BashOutput", input: { bash_id: handle } }),
  search: (pattern, path) => ({ name: "Grep", input: { pattern, path, output_mode: "content" } }),
  searchNone: () => ({ ok: true, text: "No matches found" }),
  plan: (step) => ({ call: { name: "TodoWrite", input: { todos: [{ content: step, status: "in_progress", activeForm: step }] } }, outcome: { ok: true, text: "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress." } }),
};

const GEMINI: Host = {
  name: "gemini-cli",
  shell: (command) => ({ name: "run_shell_command", input: { command, description: "Check" } }),
  shellResult: (command, out, exit, rng) => ({
    ok: true,
    text: `Command: ${command}\nDirectory: (root)\nOutput: ${out}\nError: (none)\nExit Code: ${exit === 0 ? "(none)" : exit}\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: ${rng.int(1000, 99999)}`,
  }),
  read: (path, range) => ({ name: "read_file", input: range ? { absolute_path: `/work/app/${path}`, offset: range[0], limit: range[1] - range[0] + 1 } : { absolute_path: `/work/app/${path}` } }),
  write: (path, content) => ({ name: "write_file", input: { file_path: `/work/app/${path}`, content } }),
  writeResult: (path) => ({ ok: true, text: `Successfully overwrote file: /work/app/${path}.` }),
  edit: (path, oldText, newText) => ({ name: "replace", input: { file_path: `/work/app/${path}`, old_string: oldText, new_string: newText } }),
  editResult: (path) => ({ ok: true, text: `Successfully modified file: /work/app/${path} (1 replacements).` }),
  search: (pattern, path) => ({ name: "search_file_content", input: { pattern, path } }),
  searchNone: (pattern, path) => ({ ok: true, text: `No matches found for pattern "${pattern}" in path "${path}".` }),
  plan: (step) => ({ call: { name: "write_todos", input: { todos: [{ description: step, status: "in_progress" }] } }, outcome: { ok: true, text: "Successfully updated the todo list." } }),
};

const OPENCODE: Host = {
  name: "opencode",
  shell: (command) => ({ name: "bash", input: { command, description: "Runs the command" } }),
  shellResult: (_c, out, exit) => (exit === 0 ? { ok: true, text: out } : { ok: false, text: `${out}\n\nexit code ${exit}` }),
  read: (path, range) => ({ name: "read", input: range ? { filePath: `/work/app/${path}`, offset: range[0], limit: range[1] - range[0] + 1 } : { filePath: `/work/app/${path}` } }),
  write: (path, content) => ({ name: "write", input: { filePath: `/work/app/${path}`, content } }),
  writeResult: () => ({ ok: true, text: "Wrote file successfully." }),
  edit: (path, oldText, newText) => ({ name: "edit", input: { filePath: `/work/app/${path}`, oldString: oldText, newString: newText } }),
  editResult: () => ({ ok: true, text: "Edit applied successfully." }),
  search: (pattern, path) => ({ name: "grep", input: { pattern, path } }),
  searchNone: () => ({ ok: true, text: "No files found" }),
};

const patchOf = (path: string, body: string) => `*** Begin Patch\n${body.replace("{path}", path)}\n*** End Patch`;
const CODEX: Host = {
  name: "codex",
  shell: (command) => ({ name: "shell", input: { command: ["bash", "-lc", command], workdir: "/work/app" } }),
  shellResult: (_c, out, exit, rng) => ({ ok: exit === 0, text: `Exit code: ${exit}\nWall time: ${rng.int(1, 9)}.${rng.int(0, 9)} seconds\nOutput:\n${out}` }),
  read: (path, range) => ({ name: "shell", input: { command: ["bash", "-lc", `sed -n '${range ? `${range[0]},${range[1]}` : "1,200"}p' ${path}`], workdir: "/work/app" } }),
  write: (path, content) => ({ name: "apply_patch", input: { input: patchOf(path, `*** Add File: {path}\n${content.split("\n").map((l) => `+${l}`).join("\n")}`) } }),
  writeResult: (path) => ({ ok: true, text: `Success. Updated the following files:\nA ${path}` }),
  edit: (path, oldText, newText) => ({ name: "apply_patch", input: { input: patchOf(path, `*** Update File: {path}\n@@\n${oldText.split("\n").map((l) => `-${l}`).join("\n")}\n${newText.split("\n").map((l) => `+${l}`).join("\n")}`) } }),
  editResult: (path) => ({ ok: true, text: `Success. Updated the following files:\nM ${path}` }),
  terminalReader: (handle) => ({ name: "write_stdin", input: { session_id: Number(handle.replace(/\D/g, "")) || 1, chars: "" } }),
  search: (pattern, scope) => ({ name: "shell", input: { command: ["rg", "-n", pattern, scope], workdir: "/work/app" } }),
  searchNone: () => ({ ok: false, text: "Exit code: 1\nWall time: 0.1 seconds\nOutput:\n" }),
  plan: (step) => ({ call: { name: "update_plan", input: { plan: [{ step, status: "in_progress" }] } }, outcome: { ok: true, text: "Plan updated" } }),
};

/** GitHub Copilot agent mode in VS Code: run_in_terminal, read_file with line ranges, grep_search, replace_string_in_file. */
const COPILOT: Host = {
  name: "copilot",
  shell: (command) => ({ name: "run_in_terminal", input: { command, explanation: "Run it", isBackground: false } }),
  shellResult: (_c, out, exit) => ({ ok: true, text: exit === 0 ? out : `${out}\nCommand exited with code ${exit}` }),
  read: (path, range) => ({ name: "read_file", input: { filePath: `/work/app/${path}`, startLine: range ? range[0] : 1, endLine: range ? range[1] : 200 } }),
  write: (path, content) => ({ name: "create_file", input: { filePath: `/work/app/${path}`, content } }),
  writeResult: (path) => ({ ok: true, text: `The following files were successfully edited:\n/work/app/${path}` }),
  edit: (path, oldText, newText) => ({ name: "replace_string_in_file", input: { filePath: `/work/app/${path}`, oldString: oldText, newString: newText } }),
  editResult: (path) => ({ ok: true, text: `The following files were successfully edited:\n/work/app/${path}` }),
  terminalReader: (handle) => ({ name: "get_terminal_output", input: { id: handle } }),
  search: (query, scope) => ({ name: "grep_search", input: { query, includePattern: `${scope}/**`, isRegexp: false } }),
  searchNone: () => ({ ok: true, text: "No matches found." }),
  plan: (step) => ({ call: { name: "manage_todo_list", input: { operation: "write", todoList: [{ id: 1, title: step, status: "in-progress" }] } }, outcome: { ok: true, text: "Successfully wrote todo list" } }),
};

/** Qwen Code (a Gemini CLI fork): the same tool names, its own envelopes. */
const QWEN: Host = {
  ...GEMINI,
  name: "qwen-code",
  shellResult: (command, out, exit) => ({ ok: true, text: `Command: ${command}\nDirectory: (root)\nStdout: ${out === "" ? "(empty)" : out}\nStderr: (empty)\nError: (none)\nExit Code: ${exit}\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: (none)` }),
  plan: (step) => ({ call: { name: "todo_write", input: { todos: [{ id: "1", content: step, status: "in_progress" }] } }, outcome: { ok: true, text: "Todos have been modified successfully." } }),
};

/** Tools served by MCP servers, named `mcp__server__tool` (Claude Code) with plain answers. */
const MCP: Host = {
  name: "mcp",
  shell: (command) => ({ name: "mcp__shell__run_command", input: { command } }),
  shellResult: (_c, out, exit) => ({ ok: exit === 0, text: exit === 0 ? out : `${out}\nexit status ${exit}` }),
  read: (path, range) => ({ name: "mcp__filesystem__read_text_file", input: range ? { path: `/work/app/${path}`, head: range[1] } : { path: `/work/app/${path}` } }),
  write: (path, content) => ({ name: "mcp__filesystem__write_file", input: { path: `/work/app/${path}`, content } }),
  writeResult: (path) => ({ ok: true, text: `Successfully wrote to /work/app/${path}` }),
  edit: (path, oldText, newText) => ({ name: "mcp__filesystem__edit_file", input: { path: `/work/app/${path}`, edits: [{ oldText, newText }] } }),
  editResult: () => ({ ok: true, text: "```diff\n@@ edited @@\n```" }),
  search: (pattern, scope) => ({ name: "mcp__ripgrep__search", input: { pattern, path: scope } }),
  searchNone: () => ({ ok: true, text: "No matches found" }),
};

const HOSTS: readonly Host[] = [ROO, CLINE, CLAUDE, GEMINI, OPENCODE, CODEX, COPILOT, QWEN, MCP];

// ---------------------------------------------------------------------------------------------
// Vocabulary

const FILES = ["src/server.ts", "src/config/loader.ts", "lib/parser.py", "app/models/user.rb", "pkg/cache/cache.go", "src/utils/format.js", "tests/test_api.py", "src/index.tsx"];
const TESTS = ["npm test -- tests/api.test.ts", "pytest tests/test_api.py -x -q", "go test ./pkg/cache/...", "cargo test parser", "npx jest src/utils", "python -m pytest -k test_login"];
const WORDS = "the handler config parser value token stream request response cache index module route session option default check update result output state field error schema client server".split(" ");

function sentence(rng: Rng, n: number): string {
  const w: string[] = [];
  for (let i = 0; i < n; i++) w.push(rng.pick(WORDS));
  return w.join(" ");
}

/** A few lines of plausible code with a fresh identifier, so that contents differ between draws. */
function codeBlock(rng: Rng, lines: number, tag = ""): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(`  const ${rng.pick(WORDS)}${tag}${i} = ${rng.pick(WORDS)}(${rng.int(0, 999)});`);
  return out.join("\n");
}

/** Some words of `text` replaced by others (share 0..1): the same thought reworded. */
function drift(rng: Rng, text: string, share: number): string {
  return text.split(" ").map((w) => (rng.chance(share) ? rng.pick(WORDS) : w)).join(" ");
}

function isoTime(rng: Rng): string {
  return new Date(1_780_000_000_000 + rng.int(0, 1e9)).toISOString();
}

/** Reasoning between calls: none, a short line, or a paragraph (chunked by the builder). */
function maybeReasoning(rng: Rng, about: string): string | undefined {
  if (rng.chance(0.35)) return undefined;
  return rng.chance(0.5) ? `Let me check ${about} again.` : `I need to look at ${about}. ${sentence(rng, rng.int(6, 30))}.`;
}

function startCase(rng: Rng, task: string): { host: Host; b: TraceBuilder; params: Record<string, string | number | boolean> } {
  const host = rng.pick(HOSTS);
  const timed = rng.chance(0.6);
  const b = new TraceBuilder(rng, timed);
  b.user(task);
  return { host, b, params: { host: host.name, timed } };
}

/** A parallel companion call (a fresh read of some other file) sometimes batched with the loop's call. */
function companion(rng: Rng, host: Host, i: number): { call: ToolCall; outcome: ToolOutcome }[] {
  if (!rng.chance(0.2)) return [];
  const path = `docs/notes-${i}-${rng.int(0, 9999)}.md`;
  return [{ call: host.read(path), outcome: { ok: true, text: `# Notes ${i}\n${sentence(rng, 12)}` } }];
}

// ---------------------------------------------------------------------------------------------
// 3. Polls whose output stopped changing

function pollTarget(rng: Rng, host: Host): { call: (i: number) => ToolCall; out: (i: number, final: boolean) => string; viaShell: boolean; command: string; what: string } {
  const kinds = ["tail", "ps", "git-status", "log-tail", "reader", "finished"];
  const kind = rng.pick(host.terminalReader ? kinds : kinds.filter((k) => k !== "reader" && k !== "finished"));
  const stamp = rng.chance(0.4);
  const finalLine = rng.pick(["Compiled successfully.", "Waiting for file changes...", "Server listening on http://localhost:3000", "ERROR in ./src/index.tsx 12:4", "webpack 5.91.0 compiled with 1 warning", "INFO  Application startup complete."]);
  switch (kind) {
    case "tail": {
      const command = rng.pick(["tail -n 1 build.log", "tail -1 /tmp/dev-server.log", "tail -n 1 logs/app.log"]);
      return { call: () => host.shell(command), viaShell: true, command, what: "the log", out: (i, final) => (final ? finalLine : `step ${i}: building module ${i * 7}`) };
    }
    case "log-tail": {
      const command = rng.pick(["tail -n 5 server.log", "tail -n 20 logs/worker.log", "journalctl -u app -n 5 --no-pager"]);
      return {
        call: () => host.shell(command), viaShell: true, command, what: "the server log",
        out: (i, final) => (final ? `${stamp ? isoTime(rng) + " " : ""}${finalLine}\n${stamp ? isoTime(rng) + " " : ""}idle` : `${isoTime(rng)} processed batch ${i}`),
      };
    }
    case "ps": {
      const pid = rng.int(1000, 60000);
      const command = rng.pick([`ps -p ${pid} -o pid,stat,cmd`, `pgrep -fl "node server.js"`, `ps aux | grep -v grep | grep uvicorn`]);
      return { call: () => host.shell(command), viaShell: true, command, what: "the process", out: (i, final) => (final ? `${pid} Sl   node server.js --port 3000` : `${pid} R    node build.js --stage ${i}`) };
    }
    case "git-status": {
      const command = rng.pick(["git status", "git status --short", "git status -sb"]);
      return { call: () => host.shell(command), viaShell: true, command, what: "the working tree", out: (i, final) => (final ? "On branch main\nYour branch is up to date with 'origin/main'.\n\nnothing to commit, working tree clean" : ` M src/file${i}.ts`) };
    }
    case "reader": {
      const handle = `bash_${rng.int(1, 9)}`;
      return {
        call: () => host.terminalReader!(handle), viaShell: false, command: handle, what: "the background command",
        out: (i, final) => (final ? `<status>running</status>\n\n<stdout>\n(no new output)\n</stdout>${stamp ? `\n\n<timestamp>${isoTime(rng)}</timestamp>` : ""}` : `<status>running</status>\n\n<stdout>\nbuilt chunk ${i}\n</stdout>`),
      };
    }
    default: {
      const handle = `bash_${rng.int(1, 9)}`;
      return {
        call: () => host.terminalReader!(handle), viaShell: false, command: handle, what: "the finished command",
        out: (i, final) => (final ? `<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<stdout>\n${finalLine}\n</stdout>${stamp ? `\n\n<timestamp>${isoTime(rng)}</timestamp>` : ""}` : `<status>running</status>\n\n<stdout>\nstep ${i}\n</stdout>`),
      };
    }
  }
}

const unchangedPoll: CaseGenerator = {
  family: "unchanged-poll", kind: "loop", imitates: "unchanged-poll",
  draw(rng) {
    const { host, b, params } = startCase(rng, rng.pick(["Start the dev server and make sure it comes up.", "Run the build in the background and tell me when it finishes.", "Commit is done; check everything is clean."]));
    const t = pollTarget(rng, host);
    const changingFirst = rng.int(0, 3);
    const copies = rng.int(5, 7);
    // Polling what already finished, with long waits between: waiting longer cannot change it.
    const done = rng.chance(0.25);
    const shortWait = !done && rng.chance(0.3);
    const ciDone = done && rng.chance(0.5);
    const conclusion = rng.pick(["failure", "success"]);
    const ciCommand = rng.pick(["gh run list --branch fix --limit 1 --json status,conclusion", "gh run view 812 --json status,conclusion"]);
    Object.assign(params, { target: ciDone ? ciCommand : t.command, changingFirst, copies, shortWait, done });
    for (let i = 0; i < changingFirst; i++) {
      b.wait(rng.int(3, 20));
      b.step([{ call: t.call(i), outcome: t.viaShell ? host.shellResult(t.command, t.out(i, false), 0, rng) : { ok: true, text: t.out(i, false) } }], maybeReasoning(rng, t.what));
    }
    const copyStarts: number[] = [];
    for (let k = 0; k < copies; k++) {
      copyStarts.push(b.at);
      if (done) {
        const s = rng.int(30, 120);
        b.step([{ call: host.shell(`sleep ${s}`), outcome: host.shellResult(`sleep ${s}`, "", 0, rng) }]);
        b.wait(s);
        const out = ciDone ? `[{"conclusion":"${conclusion}","status":"completed"}]` : `<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<stdout>\nbuild finished\n</stdout>`;
        const call = ciDone ? host.shell(ciCommand) : host.terminalReader ? host.terminalReader("bash_1") : host.shell("ps -p 4242 -o stat= || echo 'process has exited'");
        const text = !ciDone && !host.terminalReader ? "process has exited" : out;
        b.step([{ call, outcome: call.name === "BashOutput" ? { ok: true, text } : host.shellResult("", text, 0, rng) }], maybeReasoning(rng, "the job"));
        continue;
      }
      if (shortWait) {
        // A few seconds' pause between polls, said in a sleep of its own: too short for anything to move.
        const s = rng.int(2, 10);
        b.step([{ call: host.shell(`sleep ${s}`), outcome: host.shellResult(`sleep ${s}`, "", 0, rng) }]);
        b.wait(s);
      } else b.wait(rng.int(2, 15));
      b.step([...companion(rng, host, k), { call: t.call(changingFirst + k), outcome: t.viaShell ? host.shellResult(t.command, t.out(changingFirst + k, true), 0, rng) : { ok: true, text: t.out(changingFirst + k, true) } }], maybeReasoning(rng, t.what));
    }
    return { family: this.family, kind: this.kind, params, events: b.events, copyStarts };
  },
};

/** Polling whose output keeps changing (a build progressing), with at most one unchanged answer in a row. */
const changingPoll: CaseGenerator = {
  family: "changing-poll", kind: "lookalike", imitates: "unchanged-poll",
  draw(rng) {
    const { host, b, params } = startCase(rng, "Run the build in the background and tell me when it finishes.");
    const t = pollTarget(rng, host);
    const n = rng.int(5, 14);
    Object.assign(params, { target: t.command, polls: n });
    let step = 0;
    let held = false;
    for (let i = 0; i < n; i++) {
      // At most one unchanged answer in a row: the third identical answer is the loop class itself.
      // The first two answers differ: two identical answers of a target never seen changing, then a
      // third call, is tool-repeat's documented warning (at the 3rd identical call, before its answer).
      held = i > 1 && !held && rng.chance(0.3);
      if (!held) step++;
      b.wait(rng.int(2, 20));
      const out = t.out(step, false);
      b.step([{ call: t.call(step), outcome: t.viaShell ? host.shellResult(t.command, out, 0, rng) : { ok: true, text: out } }], maybeReasoning(rng, t.what));
    }
    b.say("The build finished.");
    return { family: this.family, kind: this.kind, params, events: b.events };
  },
};

/** Waiting for CI with a real wait between polls: "in progress" a few times, then done. */
const waitedPoll: CaseGenerator = {
  family: "waited-poll", kind: "lookalike", imitates: "unchanged-poll",
  draw(rng) {
    const { host, b, params } = startCase(rng, "Push the branch and wait until CI is green.");
    const command = rng.pick(["gh run list --branch fix --limit 1 --json status,conclusion", "gh pr checks 42", "kubectl rollout status deploy/api --watch=false"]);
    const waits = rng.int(2, 4);
    const wait = rng.int(30, 120);
    Object.assign(params, { command, waits, wait });
    for (let i = 0; i < waits; i++) {
      b.step([{ call: host.shell(command), outcome: host.shellResult(command, `[{"status":"in_progress","conclusion":""}]`, 0, rng) }], maybeReasoning(rng, "CI"));
      b.step([{ call: host.shell(`sleep ${wait}`), outcome: host.shellResult(`sleep ${wait}`, "", 0, rng) }]);
      b.wait(wait);
    }
    b.step([{ call: host.shell(command), outcome: host.shellResult(command, `[{"status":"completed","conclusion":"success"}]`, 0, rng) }]);
    b.say("CI is green.");
    return { family: this.family, kind: this.kind, params, events: b.events };
  },
};

// ---------------------------------------------------------------------------------------------
// 4. Writes that change nothing

const NO_CHANGE_RESULTS = [
  "No changes detected.",
  "No changes were made to the file.",
  "Applied 0 replacements.",
  "Made 0 replacements in {path}.",
  "The file {path} is unchanged: the new content is identical to the current content.",
  "Diff is empty; nothing to apply.",
  "0 occurrences replaced.",
];

const nullWrite: CaseGenerator = {
  family: "null-write", kind: "loop", imitates: "null-write",
  draw(rng) {
    const { host, b, params } = startCase(rng, "Fix the lint warnings in the config loader.");
    const path = rng.pick(FILES);
    const content = `export function load() {\n${codeBlock(rng, rng.int(2, 12))}\n}\n`;
    const shape = rng.pick(["same-write", "noop-edit", "no-change-result", "heredoc"]);
    const between = rng.pick(["none", "same-failure", "read", "cat"]);
    const copies = rng.int(5, 6);
    const noChange = rng.pick(NO_CHANGE_RESULTS).replace("{path}", path);
    const test = rng.pick(TESTS);
    const failure = `FAIL ${path}\n  ✕ loads defaults (${rng.int(3, 90)} ms)\n  Expected: 3\n  Received: 2`;
    const oldText = `  const value = parse(${rng.int(0, 99)});`;
    Object.assign(params, { shape, between, copies, path });
    // The file gets its content once, for real: a productive first write.
    const heredoc = `cat > ${path} <<'EOF'\n${content}EOF`;
    if (shape === "same-write") b.step([{ call: host.write(path, content), outcome: host.writeResult(path) }], maybeReasoning(rng, path));
    if (shape === "heredoc") b.step([{ call: host.shell(heredoc), outcome: host.shellResult(heredoc, "", 0, rng) }], maybeReasoning(rng, path));
    const copyStarts: number[] = [];
    for (let k = 0; k < copies; k++) {
      copyStarts.push(b.at);
      const reasoning = maybeReasoning(rng, path);
      if (shape === "same-write") b.step([{ call: host.write(path, content), outcome: host.writeResult(path) }], reasoning);
      else if (shape === "heredoc") b.step([{ call: host.shell(heredoc), outcome: host.shellResult(heredoc, "", 0, rng) }], reasoning);
      else if (shape === "noop-edit") b.step([{ call: host.edit(path, oldText, oldText), outcome: host.editResult(path) }], reasoning);
      else {
        b.step([{ call: host.edit(path, oldText, `  const value = parse(${rng.int(100, 999)});`), outcome: { ok: true, text: noChange } }], reasoning);
      }
      if (between === "same-failure") b.step([{ call: host.shell(test), outcome: host.shellResult(test, failure.replace(/\(\d+ ms\)/, `(${rng.int(3, 90)} ms)`), 1, rng) }]);
      else if (between === "read") b.step([{ call: host.read(path), outcome: { ok: true, text: content } }]);
      else if (between === "cat") b.step([{ call: host.shell(`cat ${path}`), outcome: host.shellResult(`cat ${path}`, content, 0, rng) }]);
    }
    return { family: this.family, kind: this.kind, params, events: b.events, copyStarts };
  },
};

/** State-changing commands that answer, exit 0, that they changed nothing (or could not): what each says again. */
const NO_CHANGE_COMMANDS: { command: string; answer: string }[] = [
  { command: "docker compose up -d profile", answer: "no such service: profile" },
  { command: "pip install requests", answer: "Requirement already satisfied: requests in /usr/lib/python3/dist-packages (2.31.0)" },
  { command: "kubectl apply -f k8s/deploy.yaml", answer: "deployment.apps/api unchanged\nservice/api unchanged" },
  { command: "git checkout main", answer: "Already on 'main'\nYour branch is up to date with 'origin/main'." },
  { command: "npm install lodash", answer: "up to date, audited 212 packages in 1s\n\nfound 0 vulnerabilities" },
  { command: "git stash", answer: "No local changes to save" },
];

/**
 * A state-changing command run again and again in other spellings (a flag spelled out, an operand
 * quoted, a space doubled), each time answering that nothing changed: the first run did what it did.
 */
const respelledChange: CaseGenerator = {
  family: "respelled-change", kind: "loop", imitates: "null-write",
  draw(rng) {
    const { host, b, params } = startCase(rng, "Bring the profile service up and check the profile tests.");
    const { command, answer } = rng.pick(NO_CHANGE_COMMANDS);
    const copies = rng.int(5, 7);
    const flagFirst = rng.chance(0.5);
    Object.assign(params, { command, copies, flagFirst });
    // The first run does (or tries) what it does: the loop is running it again.
    b.step([{ call: host.shell(command), outcome: host.shellResult(command, answer, 0, rng) }], maybeReasoning(rng, "the service"));
    const copyStarts: number[] = [];
    for (let k = 1; k <= copies; k++) {
      copyStarts.push(b.at);
      // a flag of its own on some tries (`--quiet-pull`, `-q`), else the spelling varied
      const spelled = flagFirst && k % 3 === 2 ? command.replace(" ", " -q ") : respelled(command, k);
      b.step([{ call: host.shell(spelled), outcome: host.shellResult(spelled, answer, 0, rng) }], maybeReasoning(rng, "the service"));
    }
    return { family: this.family, kind: this.kind, params, events: b.events, copyStarts };
  },
};

/** The same state-changing command respelled, with something changed each time: an edit in between, or a new answer. */
const respelledWithChanges: CaseGenerator = {
  family: "respelled-with-changes", kind: "lookalike", imitates: "null-write",
  draw(rng) {
    const { host, b, params } = startCase(rng, "Get the api deployment configured and running.");
    const rounds = rng.int(4, 6);
    const shape = rng.pick(["edit-between", "new-answer"]);
    const { command, answer } = rng.pick(NO_CHANGE_COMMANDS);
    const path = rng.pick(["k8s/deploy.yaml", "docker-compose.yml", "requirements.txt", "package.json"]);
    Object.assign(params, { rounds, shape, command });
    for (let k = 0; k < rounds; k++) {
      const spelled = respelled(command, k);
      if (shape === "edit-between") {
        b.step([{ call: host.edit(path, `  replicas: ${k + 1}`, `  replicas: ${k + 2}`), outcome: host.editResult(path) }], maybeReasoning(rng, path));
        b.step([{ call: host.shell(spelled), outcome: host.shellResult(spelled, answer, 0, rng) }], maybeReasoning(rng, "the change"));
      } else {
        const out = `${answer.split("\n")[0]}\n${k + 1} of ${rounds} layers pulled, ${rng.int(10, 99)} MB, step ${k + 1}`;
        b.step([{ call: host.shell(spelled), outcome: host.shellResult(spelled, out, 0, rng) }], maybeReasoning(rng, "the rollout"));
      }
    }
    b.say("The deployment is up.");
    return { family: this.family, kind: this.kind, params, events: b.events };
  },
};

/** The same content written to many files (scaffolding), and a file restored after a command changed it. */
const sameContentElsewhere: CaseGenerator = {
  family: "scaffold-writes", kind: "lookalike", imitates: "null-write",
  draw(rng) {
    const { host, b, params } = startCase(rng, "Create the package skeleton with empty __init__ files, then format.");
    const n = rng.int(3, 8);
    const content = rng.pick(["", "# package\n", "export {};\n"]);
    Object.assign(params, { files: n });
    for (let i = 0; i < n; i++) b.step([{ call: host.write(`pkg/mod${i}/__init__.py`, content), outcome: host.writeResult(`pkg/mod${i}/__init__.py`) }], maybeReasoning(rng, `module ${i}`));
    // Rewrite the same content after a formatter touched the file: the command may have changed it.
    const path = "pkg/settings.py";
    const body = `DEBUG = False\n${codeBlock(rng, 3)}\n`;
    for (let i = 0; i < rng.int(2, 4); i++) {
      b.step([{ call: host.write(path, body), outcome: host.writeResult(path) }]);
      const fmt = rng.pick(["black pkg/settings.py", "ruff format pkg/settings.py", "npx prettier --write pkg/settings.py"]);
      b.step([{ call: host.shell(fmt), outcome: host.shellResult(fmt, "1 file reformatted", 0, rng) }]);
      b.step([{ call: host.read(path), outcome: { ok: true, text: body + `# formatted ${i}` } }]);
    }
    b.say("Skeleton created.");
    return { family: this.family, kind: this.kind, params, events: b.events };
  },
};

/** The same patch written again after reading new parts of the code each time (a considered choice, not idling). */
const rewriteAfterReading: CaseGenerator = {
  family: "rewrite-after-reading", kind: "lookalike", imitates: "null-write",
  draw(rng) {
    const { host, b, params } = startCase(rng, "Fix the resolver bug and leave a patch file.");
    const path = rng.pick(["fix.patch", "patches/resolver.diff"]);
    const patch = `--- a/src/resolver.py\n+++ b/src/resolver.py\n@@ -27,6 +27,7 @@\n${codeBlock(rng, rng.int(2, 6))}\n`;
    const viaShell = rng.chance(0.5);
    const rounds = rng.int(3, 5);
    Object.assign(params, { viaShell, rounds });
    const write = () => {
      const cmd = `cat > ${path} << 'EOF'\n${patch}EOF`;
      b.step([viaShell ? { call: host.shell(cmd), outcome: host.shellResult(cmd, "", 0, rng) } : { call: host.write(path, patch), outcome: host.writeResult(path) }], maybeReasoning(rng, "the patch"));
    };
    for (let i = 0; i < rounds; i++) {
      write();
      const from = 200 + i * 20 + rng.int(0, 9);
      const cmd = `sed -n '${from},${from + 20}p' src/resolver.py`;
      b.step([{ call: host.shell(cmd), outcome: host.shellResult(cmd, codeBlock(rng, 5, `_${i}`), 0, rng) }], maybeReasoning(rng, `lines ${from}`));
    }
    b.say("The patch is in place.");
    return { family: this.family, kind: this.kind, params, events: b.events };
  },
};

// ---------------------------------------------------------------------------------------------
// 5. Rewriting one file over and over

const rewriteChurn: CaseGenerator = {
  family: "rewrite-churn", kind: "loop", imitates: "rewrite-churn",
  draw(rng) {
    const { host, b, params } = startCase(rng, "Make the parser handle nested quotes.");
    const path = rng.pick(FILES);
    const shape = rng.pick(["full-write", "re-edit", "heredoc"]);
    const between = rng.pick(["none", "same-failure", "reasoning", "read-back"]);
    const edits = rng.int(7, 9);
    const test = rng.pick(TESTS);
    const failure = `FAIL tests/parser.test.ts\n  ● nested quotes › keeps escaped quote\n    Expected: "a\\"b"\n    Received: "a"`;
    Object.assign(params, { shape, between, edits, path });
    let current = `  return tokens.map((t) => t.value);`;
    const copyStarts: number[] = [];
    for (let k = 0; k < edits; k++) {
      // Copy 0 is the third edit: five edits with nothing learnt between them are the loop.
      if (k >= 2) copyStarts.push(b.at);
      const next = `  return tokens.map((t) => ${rng.pick(WORDS)}(t.value, ${rng.int(0, 999)}));`;
      const reasoning = between === "reasoning" ? `Maybe the issue is the ${rng.pick(WORDS)}. ${sentence(rng, rng.int(5, 25))}. Let me rewrite it.` : maybeReasoning(rng, path);
      if (shape === "heredoc") {
        const cmd = `cat > ${path} <<'EOF'\nexport function parse(tokens) {\n${next}\n}\nEOF`;
        b.step([{ call: host.shell(cmd), outcome: host.shellResult(cmd, "", 0, rng) }], reasoning);
      } else if (shape === "full-write") b.step([{ call: host.write(path, `export function parse(tokens) {\n${next}\n${codeBlock(rng, rng.int(1, 6), `_${k}`)}\n}\n`), outcome: host.writeResult(path) }], reasoning);
      else b.step([{ call: host.edit(path, current, next), outcome: host.editResult(path) }], reasoning);
      current = next;
      if (between === "same-failure") b.step([{ call: host.shell(test), outcome: host.shellResult(test, failure, 1, rng) }]);
      // Reading back what it just wrote: its own writing, nothing from the environment.
      else if (between === "read-back") {
        const call = rng.chance(0.5) ? host.read(path) : host.shell(`cat ${path}`);
        b.step([{ call, outcome: call.name === host.shell("").name && host.name !== "codex" ? host.shellResult("", `export function parse(tokens) {\n${next}\n}`, 0, rng) : { ok: true, text: `export function parse(tokens) {\n${next}\n}` } }]);
      }
    }
    return { family: this.family, kind: this.kind, params, events: b.events, copyStarts };
  },
};

/** Edit, run the tests, read the new failure, edit again: the output changes every time. */
const tddEdits: CaseGenerator = {
  family: "tdd-edits", kind: "lookalike", imitates: "rewrite-churn",
  draw(rng) {
    const { host, b, params } = startCase(rng, "Make the failing tests in the parser pass.");
    const path = rng.pick(FILES);
    const test = rng.pick(TESTS);
    const rounds = rng.int(5, 10);
    const full = rng.chance(0.5);
    const heredoc = full && rng.chance(0.4);
    Object.assign(params, { rounds, full, heredoc, path });
    let current = `  return parse(${rng.int(0, 9)});`;
    let failing = rounds;
    for (let k = 0; k < rounds; k++) {
      const next = `  return parse${k}(${rng.int(0, 999)});`;
      const cmd = `cat > ${path} <<'EOF'\nexport function f() {\n${next}\n}\nEOF`;
      if (heredoc) b.step([{ call: host.shell(cmd), outcome: host.shellResult(cmd, "", 0, rng) }], maybeReasoning(rng, "the failure"));
      else if (full) b.step([{ call: host.write(path, `export function f() {\n${next}\n}\n`), outcome: host.writeResult(path) }], maybeReasoning(rng, "the failure"));
      else b.step([{ call: host.edit(path, current, next), outcome: host.editResult(path) }], maybeReasoning(rng, "the failure"));
      current = next;
      failing -= rng.int(0, 1) || (k % 2);
      const out = failing > 0 ? `Tests: ${failing} failed, ${20 - failing} passed\n  ● case ${k} › ${rng.pick(WORDS)} ${rng.pick(WORDS)}` : "Tests: 20 passed";
      b.step([{ call: host.shell(test), outcome: host.shellResult(test, out, failing > 0 ? 1 : 0, rng) }]);
    }
    b.say("Done: the parser tests pass.");
    return { family: this.family, kind: this.kind, params, events: b.events };
  },
};

/** A new file written once, then grown by edits at new places (functions added one after another). */
const incrementalBuild: CaseGenerator = {
  family: "incremental-build", kind: "lookalike", imitates: "rewrite-churn",
  draw(rng) {
    const { host, b, params } = startCase(rng, "Add CRUD handlers for users to the API module.");
    const path = rng.pick(FILES);
    const n = rng.int(5, 10);
    Object.assign(params, { edits: n, path });
    const anchors: string[] = [];
    for (let i = 0; i < n; i++) anchors.push(`// --- section ${i}: ${rng.pick(WORDS)} ${rng.pick(WORDS)} ---`);
    b.step([{ call: host.write(path, `import { db } from "./db";\n\n${anchors.join("\n\n")}\n`), outcome: host.writeResult(path) }], maybeReasoning(rng, path));
    for (let i = 0; i < n; i++) {
      const fn = `export function handler${i}(req, res) {\n${codeBlock(rng, rng.int(2, 6), `_${i}`)}\n}`;
      b.step([{ call: host.edit(path, anchors[i], `${anchors[i]}\n${fn}`), outcome: host.editResult(path) }], maybeReasoning(rng, `handler ${i}`));
    }
    const test = rng.pick(TESTS);
    b.step([{ call: host.shell(test), outcome: host.shellResult(test, "Tests: 12 passed", 0, rng) }]);
    b.say("Added the handlers.");
    return { family: this.family, kind: this.kind, params, events: b.events };
  },
};

// ---------------------------------------------------------------------------------------------
// 6. Stagnation dressed up as activity

const TRIVIAL = ["true", "echo ok", "cd .", "pwd", "echo 'checking'", "printf 'ready\\n'", ":", "echo $?", "cd . && pwd"];

const busyStagnation: CaseGenerator = {
  family: "busy-stagnation", kind: "loop", imitates: "busy-stagnation",
  draw(rng) {
    const { host, b, params } = startCase(rng, "Refactor the session handling so that tokens are refreshed before they expire.");
    const plan = `My plan is to first ${sentence(rng, 6)}, then update the ${rng.pick(WORDS)} ${rng.pick(WORDS)} so that ${sentence(rng, 8)}, and finally ${sentence(rng, 6)}. Let me proceed with the first step now.`;
    const share = rng.pick([0, 0.05, 0.1, 0.15, 0.2, 0.3]);
    const cycles = rng.int(4, 6);
    const rotate = rng.chance(0.5);
    const channel = rng.pick(["reasoning", "text", "both"]);
    Object.assign(params, { drift: share, cycles, rotate, channel });
    const copyStarts: number[] = [];
    const fixed = rng.pick(TRIVIAL);
    for (let k = 0; k < cycles; k++) {
      copyStarts.push(b.at);
      const cmd = rotate ? TRIVIAL[(k + rng.int(0, 8)) % TRIVIAL.length] : fixed;
      const out = cmd.startsWith("pwd") || cmd.endsWith("pwd") ? "/work/app" : cmd.startsWith("echo") || cmd.startsWith("printf") ? cmd.replace(/^(echo|printf) /, "").replace(/['\\n]/g, "") : "";
      const said = drift(rng, plan, share);
      b.step([{ call: host.shell(cmd), outcome: host.shellResult(cmd, out, 0, rng) }], channel === "text" ? undefined : said, channel === "reasoning" ? undefined : said);
    }
    return { family: this.family, kind: this.kind, params, events: b.events, copyStarts };
  },
};

/** A quick `pwd`/`ls` to get bearings, then real work: reads of new files, edits, test runs. */
const bearingsThenWork: CaseGenerator = {
  family: "bearings-then-work", kind: "lookalike", imitates: "busy-stagnation",
  draw(rng) {
    const { host, b, params } = startCase(rng, "Refactor the session handling so that tokens are refreshed before they expire.");
    const plan = `My plan is to first ${sentence(rng, 6)}, then update the handler so that ${sentence(rng, 8)}. Let me proceed.`;
    const steps = rng.int(4, 8);
    Object.assign(params, { steps });
    b.step([{ call: host.shell("pwd"), outcome: host.shellResult("pwd", "/work/app", 0, rng) }], plan, plan);
    for (let i = 0; i < steps; i++) {
      const path = FILES[i % FILES.length];
      const said = `${plan} Step ${i + 1}: now ${sentence(rng, 10)} in ${path}.`;
      if (i % 3 === 2) {
        const test = rng.pick(TESTS);
        b.step([{ call: host.shell(test), outcome: host.shellResult(test, `Tests: ${i} passed`, 0, rng) }], said);
      } else if (i % 3 === 1) b.step([{ call: host.edit(path, `old ${i}`, `new ${i}`), outcome: host.editResult(path) }], said);
      else b.step([{ call: host.read(path), outcome: { ok: true, text: codeBlock(rng, 5, `_${i}`) } }], said);
      if (rng.chance(0.3)) b.step([{ call: host.shell("echo done"), outcome: host.shellResult("echo done", "done", 0, rng) }], said);
    }
    b.say("Refactor complete.");
    return { family: this.family, kind: this.kind, params, events: b.events };
  },
};

// ---------------------------------------------------------------------------------------------
// 8. Loops across automatic nudges

const NUDGES = ["continue", "Continue.", "Please continue with the task.", "keep going", "Continue working on the task until it is complete."];

const nudgeLoop: CaseGenerator = {
  family: "nudge-loop", kind: "loop", imitates: "nudge-loop",
  draw(rng) {
    const { host, b, params } = startCase(rng, "Update the changelog for the release.");
    const nudge = rng.pick(NUDGES);
    const answer = rng.pick(["Done.", "Done!", "All tasks are complete.", "The task is complete.", "I have finished the task. Let me know if you need anything else."]);
    const shape = rng.pick(["text", "check-then-text", "completion-tool"]);
    const copies = rng.int(5, 7);
    const thinks = rng.chance(0.5);
    const spelled = rng.chance(0.3);
    const thought = `The user wants me to continue. ${rng.pick(["The task is already complete.", "Everything is done.", "The changelog entry is already there, nothing else to do."])}`;
    Object.assign(params, { nudge, answer, shape, copies, thinks, spelled });
    b.step([{ call: host.edit("CHANGELOG.md", "## Unreleased", `## Unreleased\n- ${sentence(rng, 6)}`), outcome: host.editResult("CHANGELOG.md") }], maybeReasoning(rng, "the changelog"));
    b.say(answer);
    const copyStarts: number[] = [];
    for (let k = 0; k < copies; k++) {
      copyStarts.push(b.at);
      b.wait(rng.int(1, 5));
      // Some harnesses vary case and punctuation ("continue", "Continue."): the same words all the same.
      b.user(spelled && k % 2 === 1 ? `${nudge.charAt(0).toUpperCase()}${nudge.slice(1).replace(/\.?$/, ".")}` : nudge);
      // The model's reasoning, when it shows any, says the same short thing each time.
      const reasoning = thinks ? drift(rng, thought, 0.1) : undefined;
      if (shape === "text") b.say(answer, reasoning);
      else if (shape === "check-then-text") {
        b.step([{ call: host.shell("git status --short"), outcome: host.shellResult("git status --short", " M CHANGELOG.md", 0, rng) }], reasoning);
        b.say(answer);
      } else b.step([{ call: { name: "attempt_completion", input: { result: answer } }, outcome: { ok: true, text: `<feedback>\n${nudge}\n</feedback>` } }], reasoning);
    }
    return { family: this.family, kind: this.kind, params, events: b.events, copyStarts };
  },
};

/** The same nudge after every turn, but each turn does new work (new files, new output). */
const nudgedProgress: CaseGenerator = {
  family: "nudged-progress", kind: "lookalike", imitates: "nudge-loop",
  draw(rng) {
    const { host, b, params } = startCase(rng, "Migrate every module to the new logger.");
    const nudge = rng.pick(NUDGES);
    const turns = rng.int(4, 8);
    Object.assign(params, { nudge, turns });
    for (let k = 0; k < turns; k++) {
      if (k > 0) b.user(nudge);
      const path = `src/mod${k}/index.ts`;
      b.step([{ call: host.read(path), outcome: { ok: true, text: codeBlock(rng, 4, `_${k}`) } }], maybeReasoning(rng, path));
      b.step([{ call: host.edit(path, `console.log(${k})`, `logger.info(${k})`), outcome: host.editResult(path) }]);
      b.say(`Migrated ${path}. ${turns - k - 1} modules left.`);
    }
    return { family: this.family, kind: this.kind, params, events: b.events };
  },
};

// ---------------------------------------------------------------------------------------------
// 9. The same failing call, which must fire at its documented threshold (warn at the 3rd)

const repeatedFailure: CaseGenerator = {
  family: "repeated-failure", kind: "loop", imitates: "repeated-failure",
  draw(rng) {
    const { host, b, params } = startCase(rng, "Get the tests passing.");
    const shape = rng.pick(["same-command", "same-read", "same-fetch"]);
    const copies = rng.int(5, 6);
    const command = rng.pick([...TESTS, "npm run build", "python manage.py migrate", "make -j4", "go run ./cmd/server"]);
    const err = rng.pick([
      "Error: Cannot find module './config/loader'\nRequire stack:\n- /work/app/src/index.js",
      "ModuleNotFoundError: No module named 'yaml'",
      "error[E0425]: cannot find value `tokens` in this scope\n --> src/parser.rs:42:9",
      "src/server.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.",
      "FAILED tests/test_api.py::test_login - AssertionError: assert 401 == 200",
    ]);
    const batch = rng.chance(0.2);
    const fetchTool = rng.pick(["fetch", "web_fetch", "WebFetch"]);
    const resource = rng.pick(["users", "items"]);
    const respell = rng.chance(0.4);
    Object.assign(params, { shape, copies, batch, respell });
    const copyStarts: number[] = [];
    for (let k = 0; k < copies; k++) {
      copyStarts.push(b.at);
      const reasoning = maybeReasoning(rng, "the error");
      const extra = batch ? companion(rng, host, k) : [];
      if (shape === "same-command") {
        // retried with its spelling varied: a space doubled, an argument quoted, a flag for the runner
        const spelled = respell ? respelled(command, k) : command;
        b.step([...extra, { call: host.shell(spelled), outcome: host.shellResult(spelled, `${err}\n(${rng.int(1, 60)}.${rng.int(10, 99)}s)`, rng.pick([1, 2]), rng) }], reasoning);
      }
      else if (shape === "same-read") {
        const p = `src/missing/${rng.pick(WORDS)}.ts`;
        const path = k === 0 ? p : (params.path as string);
        params.path = path;
        b.step([...extra, { call: host.read(path), outcome: { ok: false, text: `File not found: /work/app/${path}` } }], reasoning);
      } else {
        const url = `https://api.example.com/v2/${resource}?page=${k + 1}`;
        b.step([...extra, { call: { name: fetchTool, input: { url } }, outcome: { ok: false, text: `Request failed with status code 404 Not Found for ${url}` } }], reasoning);
      }
    }
    return { family: this.family, kind: this.kind, params, events: b.events, copyStarts };
  },
};

/** The k-th retry's spelling of a command: the same program on the same operands, written another way. */
function respelled(command: string, k: number): string {
  const words = command.split(" ");
  const last = words.length - 1;
  switch (k % 5) {
    case 1: return command.replace(" ", "  ");
    case 4: return last > 0 ? [...words.slice(0, last), `'${words[last]}'`].join(" ") : command;
    // a folder named with its trailing slash (`go run ./cmd/cache/`), else an operand quoted
    case 2: return last > 0 && /\/[\w-]+$/.test(words[last]) ? `${command}/` : last > 0 ? [...words.slice(0, last), `'${words[last]}'`].join(" ") : command;
    // a runner's own flag (`npx --yes jest`), else a verbose flag before the operand
    case 3: return /^(?:npx|bunx|pnpx)$/.test(words[0]) ? [words[0], "--yes", ...words.slice(1)].join(" ") : last >= 2 ? [...words.slice(0, last), "-v", words[last]].join(" ") : [words[0], "-v", ...words.slice(1)].join(" ");
    default: return command;
  }
}

// ---------------------------------------------------------------------------------------------
// 10. Mixed-outcome re-runs (look-alike)

const flakyReruns: CaseGenerator = {
  family: "flaky-reruns", kind: "lookalike", imitates: "repeated-failure",
  draw(rng) {
    const test = rng.pick(TESTS);
    const runs = rng.int(4, 8);
    const asked = rng.chance(0.6);
    const task = asked
      ? rng.pick([`Is \`${test}\` flaky? Run it ${runs} times.`, `I suspect the token refresh test is flaky. Run it ${runs} times and tell me what you see.`, `Run ${test} ${runs} times and tell me how often it fails.`, `Please run \`${test}\` ${["", "", "", "three", "four", "five", "six", "seven", "eight"][runs] || runs} times to check for flakiness.`])
      : `I think ${test} is flaky, can you check?`;
    const { host, b, params } = startCase(rng, task);
    Object.assign(params, { runs, asked });
    // Without a request the outcomes alternate; with one, they are any mix.
    let fail = rng.chance(0.5);
    for (let k = 0; k < runs; k++) {
      fail = asked ? rng.chance(0.5) : !fail;
      const out = fail ? `FAIL tests/api.test.ts\n  ✕ refreshes the token (${rng.int(100, 900)} ms)\n\nTests: 1 failed, 11 passed\nTime: ${rng.int(1, 9)}.${rng.int(10, 99)} s` : `PASS tests/api.test.ts\n\nTests: 12 passed\nTime: ${rng.int(1, 9)}.${rng.int(10, 99)} s`;
      b.step([{ call: host.shell(test), outcome: host.shellResult(test, out, fail ? 1 : 0, rng) }], maybeReasoning(rng, `run ${k + 1}`));
    }
    b.say(`The test failed in some runs and passed in others: it is flaky.`);
    return { family: this.family, kind: this.kind, params, events: b.events };
  },
};

// ---------------------------------------------------------------------------------------------
// 11. Bisecting (look-alike)

const bisecting: CaseGenerator = {
  family: "bisecting", kind: "lookalike", imitates: "unchanged-poll",
  draw(rng) {
    const { host, b, params } = startCase(rng, "Find which commit broke the login test.");
    const test = rng.pick(TESTS);
    const steps = rng.int(4, 7);
    const verb = rng.pick(["bisect", "checkout", "pull", "reset"]);
    Object.assign(params, { steps, verb });
    const failOut = `FAIL tests/login.test.ts\n  ✕ logs in (${rng.int(10, 90)} ms)`;
    const passOut = "PASS tests/login.test.ts\nTests: 4 passed";
    if (verb === "bisect") b.step([{ call: host.shell("git bisect start HEAD v1.2.0"), outcome: host.shellResult("git bisect start HEAD v1.2.0", "Bisecting: 31 revisions left to test after this (roughly 5 steps)", 0, rng) }]);
    let left = 31;
    for (let k = 0; k < steps; k++) {
      const bad = rng.chance(0.5);
      b.step([{ call: host.shell(test), outcome: host.shellResult(test, bad ? failOut : passOut, bad ? 1 : 0, rng) }], maybeReasoning(rng, "the test"));
      left = Math.floor(left / 2);
      const sha = rng.int(0x1000000, 0xfffffff).toString(16);
      let cmd: string;
      let out: string;
      if (verb === "bisect") { cmd = `git bisect ${bad ? "bad" : "good"}`; out = `Bisecting: ${left} revisions left to test after this (roughly ${Math.max(0, k)} steps)\n[${sha}] ${sentence(rng, 5)}`; }
      else if (verb === "checkout") { cmd = `git checkout ${sha}`; out = `HEAD is now at ${sha} ${sentence(rng, 5)}`; }
      else if (verb === "pull") { cmd = "git pull --ff-only"; out = `Updating ${sha}..${(Number.parseInt(sha, 16) + 1).toString(16)}\nFast-forward\n src/login.ts | ${k + 1} +-`; }
      else { cmd = `git reset --hard HEAD~${k + 1}`; out = `HEAD is now at ${sha} ${sentence(rng, 5)}`; }
      b.step([{ call: host.shell(cmd), outcome: host.shellResult(cmd, out, 0, rng) }]);
    }
    b.say("Found the first bad commit.");
    return { family: this.family, kind: this.kind, params, events: b.events };
  },
};

// ---------------------------------------------------------------------------------------------
// General look-alikes

const rerunAfterEdit: CaseGenerator = {
  family: "rerun-after-edit", kind: "lookalike", imitates: "repeated-failure",
  draw(rng) {
    const { host, b, params } = startCase(rng, "Fix the failing test.");
    const test = rng.pick(TESTS);
    const rounds = rng.int(3, 7);
    Object.assign(params, { rounds });
    // Each fix moves the outcome: one failing test fewer (issue 22: the same failure after an edit is the
    // loop of edits that change nothing, see ineffective-edits).
    for (let k = 0; k < rounds; k++) {
      const left = rounds - k;
      const out = `FAIL tests/api.test.ts\n${Array.from({ length: left }, (_, i) => `  ✕ case ${k + i} (${rng.int(10, 90)} ms)`).join("\n")}\n\nTests: ${left} failed, ${4 + k} passed`;
      b.step([{ call: host.shell(test), outcome: host.shellResult(test, out, 1, rng) }], maybeReasoning(rng, "the failure"));
      const path = rng.pick(FILES);
      b.step([{ call: host.edit(path, `old ${k} ${rng.int(0, 9999)}`, `new ${k}`), outcome: host.editResult(path) }]);
    }
    b.step([{ call: host.shell(test), outcome: host.shellResult(test, "PASS tests/api.test.ts", 0, rng) }]);
    return { family: this.family, kind: this.kind, params, events: b.events };
  },
};

const paging: CaseGenerator = {
  family: "paging", kind: "lookalike", imitates: "unchanged-poll",
  draw(rng) {
    const { host, b, params } = startCase(rng, "Summarise what the big module does.");
    const path = rng.pick(FILES);
    const pages = rng.int(4, 12);
    const size = rng.pick([50, 100, 200]);
    Object.assign(params, { pages, size });
    for (let k = 0; k < pages; k++) {
      const range: [number, number] = [k * size + 1, (k + 1) * size];
      const call = host.name === "cline" ? host.shell(`sed -n '${range[0]},${range[1]}p' ${path}`) : host.read(path, range);
      const text = codeBlock(rng, 6, `_${k}`);
      b.step([{ call, outcome: call.name === "execute_command" ? host.shellResult("", text, 0, rng) : { ok: true, text } }], maybeReasoning(rng, `lines ${range[0]}-${range[1]}`));
    }
    b.say("Summary follows.");
    return { family: this.family, kind: this.kind, params, events: b.events };
  },
};

const parallelReads: CaseGenerator = {
  family: "parallel-reads", kind: "lookalike", imitates: "unchanged-poll",
  draw(rng) {
    const { host, b, params } = startCase(rng, "Review the modules for error handling.");
    const batches = rng.int(2, 4);
    Object.assign(params, { batches });
    let n = 0;
    for (let k = 0; k < batches; k++) {
      const calls = [];
      for (let i = 0; i < rng.int(3, 6); i++) {
        const path = `src/area${k}/file${n++}.ts`;
        calls.push({ call: host.read(path), outcome: { ok: true, text: codeBlock(rng, 4, `_${n}`) } });
      }
      b.step(calls, maybeReasoning(rng, `batch ${k}`));
    }
    b.say("Review done.");
    return { family: this.family, kind: this.kind, params, events: b.events };
  },
};

// ---------------------------------------------------------------------------------------------
// 12. Loops nobody described (issue 22): no call repeats, yet nothing new comes back

/** Reworded searches against one folder or file, every one answering "nothing found". */
const rewordedSearch: CaseGenerator = {
  family: "reworded-search", kind: "loop", imitates: "reworded-search",
  draw(rng) {
    const { host, b, params } = startCase(rng, rng.pick(["Where is the retry limit configured?", "Find where the session token gets refreshed.", "¿Dónde se valida el token de sesión?", "Trouve où la limite de débit est définie."]));
    const scope = rng.pick(["src", "src/config", "lib/parser.py", "pkg/cache", "."]);
    const stems = rng.pick([["retryLimit", "retry_limit", "maxRetries", "MAX_RETRY", "retries\\s*=", "retryCount", "backoffLimit"], ["refreshToken", "refresh_token", "tokenRefresh", "renewSession", "rotateToken", "reissue", "expiresAt"], ["rateLimit", "rate_limit", "throttle", "RATE_", "limiter", "perMinute", "burst"]]);
    const n = rng.int(5, 7);
    const withPlan = host.plan !== undefined && rng.chance(0.3);
    Object.assign(params, { scope, searches: n, withPlan });
    const copyStarts: number[] = [];
    for (let k = 0; k < n; k++) {
      // Onset: the third empty search in a row (two misses are ordinary research).
      if (k >= 2) copyStarts.push(b.at);
      const pattern = stems[k % stems.length];
      const calls = [{ call: host.search(pattern, scope), outcome: host.searchNone(pattern, scope) }];
      if (withPlan && k % 2 === 1) calls.unshift(host.plan!(`Search for ${pattern}`));
      b.step(calls, maybeReasoning(rng, `another name for it (${pattern})`));
    }
    return { family: this.family, kind: this.kind, params, events: b.events, copyStarts };
  },
};

/** Probes that differ every time and bring nothing: no thinking to compare, no call repeated back to back. */
const PROBES = ["echo plan", "pwd", "echo '??'", "cd .", "ls -d .", "true", "echo ready", ": # noop", "printf 'ok\\n'"];
const silentProbes: CaseGenerator = {
  family: "silent-probes", kind: "loop", imitates: "busy-stagnation",
  draw(rng) {
    const { host, b, params } = startCase(rng, rng.pick(["Anything else to do on the export?", "Mach weiter, wenn noch etwas offen ist.", "继续完成任务。", "Continue if anything is left."]));
    const n = rng.int(6, 9);
    const order = [...PROBES].sort(() => rng.next() - 0.5);
    const emptyList = rng.chance(0.4);
    Object.assign(params, { probes: n, emptyList });
    const copyStarts: number[] = [];
    for (let k = 0; k < n; k++) {
      if (k >= 2) copyStarts.push(b.at);
      if (emptyList && k % 3 === 2) {
        const dir = `tmp/empty-${k}`;
        b.step([{ call: host.shell(`ls ${dir}`), outcome: host.shellResult(`ls ${dir}`, "", 0, rng) }]);
        continue;
      }
      // A plan update between probes is bookkeeping, not a probe: it is no copy of the repeated unit.
      if (host.plan && k % 4 === 3) { copyStarts.pop(); b.step([host.plan("Wait for the next instruction")]); continue; }
      const cmd = order[k % order.length];
      const out = cmd === "pwd" ? "/work/app" : cmd === "ls -d ." ? "." : cmd.startsWith("echo") || cmd.startsWith("printf") ? cmd.replace(/^(echo|printf) /, "").replace(/'|\\n/g, "") : "";
      b.step([{ call: host.shell(cmd), outcome: host.shellResult(cmd, out, 0, rng) }]);
    }
    return { family: this.family, kind: this.kind, params, events: b.events, copyStarts };
  },
};

/** Edits (each of another line) after which the test fails with the very same output, durations and timestamps aside. */
const ineffectiveEdits: CaseGenerator = {
  family: "ineffective-edits", kind: "loop", imitates: "ineffective-edits",
  draw(rng) {
    const { host, b, params } = startCase(rng, rng.pick(["Fix the failing test.", "Corrige le test qui échoue.", "Arregla la prueba que falla.", "修复失败的测试。"]));
    const test = rng.pick(TESTS);
    const path = rng.pick(FILES);
    const rounds = rng.int(5, 7);
    const failing = `FAIL tests/api.test.ts\n  ✕ keeps the limit (${rng.int(10, 90)} ms)\n    Expected: 3\n    Received: 0`;
    Object.assign(params, { test, path, rounds });
    b.step([{ call: host.shell(test), outcome: host.shellResult(test, `${failing}\n[${isoTime(rng)}]`, 1, rng) }], maybeReasoning(rng, "the failure"));
    const copyStarts: number[] = [];
    for (let k = 0; k < rounds; k++) {
      // Round 1's run is the first after an edit; the loop is the same failure after the second edit on.
      if (k >= 1) copyStarts.push(b.at);
      b.step([{ call: host.edit(path, `  const limit${k} = opts.limit;`, `  const limit${k} = opts.limit ?? ${k + 3};`), outcome: host.editResult(path) }], maybeReasoning(rng, "another place"));
      b.step([{ call: host.shell(test), outcome: host.shellResult(test, `${failing.replace(/\(\d+ ms\)/, `(${rng.int(10, 90)} ms)`)}\n[${isoTime(rng)}]`, 1, rng) }]);
    }
    return { family: this.family, kind: this.kind, params, events: b.events, copyStarts };
  },
};

/** A file read window by window to its end, then again from the top: the second sweep repeats the first. */
const wrappingPages: CaseGenerator = {
  family: "wrapping-pages", kind: "loop", imitates: "wrapping-pages",
  draw(rng) {
    const { host, b, params } = startCase(rng, "Summarise what the big module does.");
    const path = rng.pick(FILES);
    const pages = rng.int(3, 5);
    const size = rng.pick([50, 100]);
    const sweeps = rng.int(3, 4);
    const texts = Array.from({ length: pages }, (_, k) => codeBlock(rng, 6, `_${k}`));
    Object.assign(params, { pages, size, sweeps });
    const copyStarts: number[] = [];
    for (let sweep = 0; sweep < sweeps; sweep++) {
      // The repeated unit is a whole sweep: within one, every window is new.
      copyStarts.push(b.at);
      for (let k = 0; k < pages; k++) {
        const range: [number, number] = [k * size + 1, (k + 1) * size];
        // Cline's read_file takes no range: it pages with sed, as the paging look-alike does.
        const call = host.name === "cline" ? host.shell(`sed -n '${range[0]},${range[1]}p' ${path}`) : host.read(path, range);
        b.step([{ call, outcome: call.name === "execute_command" ? host.shellResult("", texts[k], 0, rng) : { ok: true, text: texts[k] } }], maybeReasoning(rng, `lines ${range[0]}-${range[1]}`));
      }
    }
    return { family: this.family, kind: this.kind, params, events: b.events, copyStarts };
  },
};

// ---------------------------------------------------------------------------------------------
// 13. Repetition the user asked for in vague words (look-alikes)

const VAGUE_RERUNS = [
  (t: string) => `\`${t}\` is flaky on CI. Re-run it a few times locally and tell me how often it fails.`,
  (t: string) => `Run ${t} several times and tell me whether it is stable.`,
  (t: string) => `Relance \`${t}\` plusieurs fois et dis-moi combien de fois il échoue.`,
  (t: string) => `Ejecuta \`${t}\` varias veces y dime con qué frecuencia falla.`,
  (t: string) => `Führe \`${t}\` ein paar Mal aus und sag mir, wie oft er fehlschlägt.`,
  (t: string) => `把 \`${t}\` 多运行几次，告诉我失败的频率。`,
  (t: string) => `Keep re-running ${t} until it passes twice in a row.`,
  // other wordings and languages: a stated repetition is read in whatever words it comes
  (t: string) => `Run \`${t}\` a handful of times to see whether it is flaky.`,
  (t: string) => `Re-run ${t} until it's green and tell me how many tries it took.`,
  (t: string) => `Lance \`${t}\` une dizaine de fois et note les échecs.`,
  (t: string) => `Ejecuta \`${t}\` un par de veces y dime si falla.`,
  (t: string) => `Führe \`${t}\` mehrfach aus und sag mir, ob er stabil ist.`,
  (t: string) => `Lass \`${t}\` immer wieder laufen, bis er durchläuft.`,
  (t: string) => `反复运行 \`${t}\`，看看它是否稳定。`,
  (t: string) => `Rode \`${t}\` algumas vezes e me diga com que frequência falha.`,
  (t: string) => `Esegui \`${t}\` più volte e dimmi quanto spesso fallisce.`,
  (t: string) => `\`${t}\` を何度か実行して、どのくらいの頻度で失敗するか教えて。`,
  (t: string) => `Запусти \`${t}\` несколько раз и скажи, как часто он падает.`,
  (t: string) => `\`${t}\`를 몇 번 실행해서 얼마나 자주 실패하는지 알려줘.`,
];

const vagueReruns: CaseGenerator = {
  family: "vague-reruns", kind: "lookalike", imitates: "repeated-failure",
  draw(rng) {
    const test = rng.pick(TESTS);
    const { host, b, params } = startCase(rng, rng.pick(VAGUE_RERUNS)(test));
    const runs = rng.int(4, 7);
    Object.assign(params, { runs });
    // Any mix, four identical failures in a row allowed: the requested work, whatever it answers.
    const outcomes = Array.from({ length: runs }, () => rng.chance(0.6));
    if (rng.chance(0.5)) for (let k = 0; k < Math.min(4, runs); k++) outcomes[k] = true;
    for (let k = 0; k < runs; k++) {
      const out = outcomes[k] ? `FAIL tests/api.test.ts\n  ✕ refreshes the token (2000 ms)\n\nTests: 1 failed, 11 passed` : `PASS tests/api.test.ts\n\nTests: 12 passed`;
      b.step([{ call: host.shell(test), outcome: host.shellResult(test, `${out}\nTime: ${rng.int(1, 9)}.${rng.int(10, 99)} s`, outcomes[k] ? 1 : 0, rng) }], maybeReasoning(rng, `run ${k + 1}`));
    }
    b.say("It failed in some of the runs.");
    return { family: this.family, kind: this.kind, params, events: b.events };
  },
};

const WAIT_REQUESTS = ["Wait for the release build to finish.", "Attends que le build de release soit terminé.", "Espera a que termine la compilación de la versión.", "Warte, bis der Release-Build fertig ist.", "等待发布构建完成。", "Deploy to staging and tell me when it's live.",
  "Continue à vérifier le déploiement jusqu'à ce qu'il soit terminé.", "Sigue comprobando el despliegue hasta que termine.", "Prüf weiter, ob das Deployment durch ist.",
  "Aguarde o build de release terminar.", "Aspetta che la build di release finisca.", "Дождись, пока сборка релиза завершится.", "リリースビルドが終わるまで待って。", "릴리스 빌드가 끝날 때까지 기다려 줘."];

/** `sleep 20; status` polls the user asked for, whose output advances every two or three polls (a counter, a timestamp). */
const advancingPoll: CaseGenerator = {
  family: "advancing-poll", kind: "lookalike", imitates: "unchanged-poll",
  draw(rng) {
    const { host, b, params } = startCase(rng, rng.pick(WAIT_REQUESTS));
    const sleep = rng.pick([15, 20, 30, 45]);
    const status = rng.pick(["gh run view 4711 --json status,jobs -q '.jobs[] | .name + \" \" + .status'", "kubectl rollout status deploy/api --timeout=5s", "curl -s https://ci.internal/api/builds/4711 | jq -r .progress"]);
    const command = rng.chance(0.5) ? `sleep ${sleep}; ${status}` : `sleep ${sleep} && ${status}`;
    const total = rng.int(8, 14);
    let done = rng.int(1, 3);
    const polls: number[] = [];
    while (done < total) { const hold = rng.int(1, 3); for (let i = 0; i < hold; i++) polls.push(done); done += rng.int(1, 3); }
    polls.push(total);
    const stamped = rng.chance(0.4);
    Object.assign(params, { command, polls: polls.length, stamped });
    for (const d of polls) {
      b.wait(sleep + rng.int(1, 4));
      const out = d >= total ? `all ${total} jobs finished: success` : `${total - d} pending, ${d} successful, 0 failing${stamped ? ` (as of ${isoTime(rng)})` : ""}`;
      b.step([{ call: host.shell(command), outcome: host.shellResult(command, out, 0, rng) }], maybeReasoning(rng, "the build"));
    }
    b.say("The release build is done.");
    return { family: this.family, kind: this.kind, params, events: b.events };
  },
};

export const toolClasses: CaseGenerator[] = [
  unchangedPoll, changingPoll, waitedPoll,
  nullWrite, sameContentElsewhere, rewriteAfterReading,
  rewriteChurn, tddEdits, incrementalBuild,
  busyStagnation, bearingsThenWork,
  nudgeLoop, nudgedProgress,
  repeatedFailure, flakyReruns,
  bisecting, rerunAfterEdit, paging, parallelReads,
  rewordedSearch, silentProbes, ineffectiveEdits, wrappingPages,
  vagueReruns, advancingPoll,
  // (last: the unit test draws the families from one stream, so the ones before keep their draws)
  respelledChange, respelledWithChanges,
];

/** For readers that want the case type without importing the contract separately. */
export type { GeneratedCase };
