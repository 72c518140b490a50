/**
 * The real agents recorded for the reader fixtures: where each comes from on npm, how it is pointed
 * at the fake model, how it is run non-interactively, and where it leaves its session files.
 * Every run gets its own HOME and XDG folders under .tmp, so nothing touches the machine's own.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { PlayOptions, ToolNaming } from "./fakeModel";
import { PARALLEL_SCENARIOS, SCENARIOS, type Action, type ScenarioName } from "./scenarios";

export interface RunPlan {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

export interface Agent {
  /** Folder name under test/fixtures/recorded and .tmp/agents. */
  name: string;
  pkg: string;
  version: string;
  naming: (work: string) => ToolNaming;
  /** How the fake model speaks to it where agents differ (the thinking field of chat completions). */
  play?: PlayOptions;
  /** The scenarios recorded (default: SCENARIOS). */
  scenarios?: ScenarioName[];
  /** Writes the agent's settings into `home` and says how to run one prompt in `work`. */
  prepare(o: { home: string; work: string; port: number; prompt: string; bin: (name: string) => string }): RunPlan;
  /** The session files the run left, to keep as fixtures (after `finish`, if any). */
  sessionFiles(o: { home: string; work: string }): string[];
  /** Extra runs of a scenario with the agent's settings changed (written into `home` after `prepare`). */
  variants?: { name: string; scenario: ScenarioName; tweak: (home: string) => void }[];
  /** Keep what the run printed on stdout as a fixture too, under this name (a JSON event stream). */
  keepStdoutAs?: string;
  /** Extra steps after the run (e.g. an export command), returning files it wrote. */
  finish?(o: { home: string; work: string; env: NodeJS.ProcessEnv; bin: (name: string) => string; out: string }): string[];
}

/** Every file under `dir` whose path matches. */
export function findFiles(dir: string, match: RegExp): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p); else if (match.test(p)) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

function isolatedEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // Only what a shell needs: none of the machine's keys or settings leak into a recording.
  for (const k of ["PATH", "LANG", "TERM", "TMPDIR", "SHELL"]) if (process.env[k] !== undefined) env[k] = process.env[k];
  return {
    ...env, HOME: home, USERPROFILE: home, NO_COLOR: "1", CI: "1",
    XDG_CONFIG_HOME: path.join(home, ".config"), XDG_DATA_HOME: path.join(home, ".local", "share"),
    XDG_CACHE_HOME: path.join(home, ".cache"), XDG_STATE_HOME: path.join(home, ".local", "state"),
  };
}

export const GEMINI: Agent = {
  name: "gemini-cli",
  pkg: "@google/gemini-cli",
  version: "0.61.0",
  naming: (work) => (a) => {
    if (a.kind === "shell") return { name: "run_shell_command", args: { command: a.command, description: `Run ${a.command}` } };
    if (a.kind === "read") return { name: "read_file", args: { file_path: path.join(work, a.path) } };
    if (a.kind === "edit") return { name: "replace", args: { file_path: path.join(work, a.path), old_string: a.old, new_string: a.new, instruction: "Skip items without a price." } };
    if (a.kind === "search") return { name: "search_file_content", args: { pattern: a.pattern, dir_path: path.join(work, a.path) } };
    return { name: "write_file", args: { file_path: path.join(work, a.path), content: a.content } };
  },
  prepare({ home, port, prompt, bin }) {
    const dir = path.join(home, ".gemini");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "settings.json"), JSON.stringify({
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      security: { folderTrust: { enabled: false }, auth: { selectedType: "gemini-api-key" } },
      // Gemini CLI's own guard ends the turn at the 5th identical call; off, the session shows what
      // the reader alone must catch (the seven builds).
      model: { disableLoopDetection: true },
    }, null, 2));
    return {
      command: bin("gemini"),
      args: ["--yolo", "-m", "gemini-2.5-pro", "-p", prompt],
      env: { ...isolatedEnv(home), GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}`, GEMINI_API_KEY: "fake-key", GEMINI_CLI_NO_RELAUNCH: "true" },
    };
  },
  sessionFiles: ({ home }) => findFiles(path.join(home, ".gemini", "tmp"), /[\\/]chats[\\/].*\.jsonl?$/),
  variants: [{
    // The CLI's own guard on, as shipped: it stops the turn at the 5th identical call, records its
    // "Potential loop detected" note as a user record, then rewrites the history with `$set`.
    name: "build-loop-guarded",
    scenario: "build-loop",
    tweak: (home) => {
      const file = path.join(home, ".gemini", "settings.json");
      const settings = JSON.parse(fs.readFileSync(file, "utf8"));
      settings.model.disableLoopDetection = false;
      fs.writeFileSync(file, JSON.stringify(settings, null, 2));
    },
  }],
};

export const CLAUDE_CODE: Agent = {
  name: "claude-code",
  pkg: "@anthropic-ai/claude-code",
  version: "2.1.331",
  naming: (work) => (a) => {
    if (a.kind === "shell") return { name: "Bash", args: { command: a.command, description: `Run ${a.command}` } };
    if (a.kind === "read") return { name: "Read", args: { file_path: path.join(work, a.path) } };
    if (a.kind === "edit") return { name: "Edit", args: { file_path: path.join(work, a.path), old_string: a.old, new_string: a.new } };
    if (a.kind === "search") return { name: "Grep", args: { pattern: a.pattern, path: path.join(work, a.path) } };
    return { name: "Write", args: { file_path: path.join(work, a.path), content: a.content } };
  },
  prepare({ home, port, prompt, bin }) {
    fs.mkdirSync(path.join(home, ".claude"), { recursive: true });
    return {
      command: bin("claude"),
      // Tools allowed by name: --dangerously-skip-permissions refuses to run as root.
      args: ["-p", prompt, "--model", "claude-sonnet-4-5", "--allowedTools", "Bash,Read,Write,Edit", "--output-format", "json"],
      env: {
        ...isolatedEnv(home), ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`, ANTHROPIC_API_KEY: "sk-ant-fake",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1", DISABLE_TELEMETRY: "1", DISABLE_ERROR_REPORTING: "1",
      },
    };
  },
  sessionFiles: ({ home }) => findFiles(path.join(home, ".claude", "projects"), /\.jsonl$/),
};

export const PI: Agent = {
  name: "pi",
  pkg: "@mariozechner/pi-coding-agent",
  version: "0.73.1",
  naming: () => (a) => {
    if (a.kind === "shell") return { name: "bash", args: { command: a.command } };
    if (a.kind === "read") return { name: "read", args: { path: a.path } };
    if (a.kind === "edit") return { name: "edit", args: { path: a.path, edits: [{ oldText: a.old, newText: a.new }] } };
    if (a.kind === "search") return { name: "bash", args: { command: `grep -rn "${a.pattern}" ${a.path}` } };
    return { name: "write", args: { path: a.path, content: a.content } };
  },
  prepare({ home, port, prompt, bin }) {
    const dir = path.join(home, ".pi", "agent");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "models.json"), JSON.stringify({
      providers: {
        fake: {
          baseUrl: `http://127.0.0.1:${port}/v1`, api: "openai-completions", apiKey: "fake-key",
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
          models: [{ id: "fake-model", reasoning: true }],
        },
      },
    }, null, 2));
    return { command: bin("pi"), args: ["--mode", "json", "--model", "fake/fake-model", prompt], env: { ...isolatedEnv(home), PI_SKIP_VERSION_CHECK: "1" } };
  },
  sessionFiles: ({ home }) => findFiles(path.join(home, ".pi", "agent", "sessions"), /\.jsonl$/),
  keepStdoutAs: "pi-mode-json.jsonl",
};

export const OPENCODE: Agent = {
  name: "opencode",
  pkg: "opencode-ai",
  version: "1.18.33",
  naming: (work) => (a) => {
    if (a.kind === "shell") return { name: "bash", args: { command: a.command, description: `Run ${a.command}` } };
    if (a.kind === "read") return { name: "read", args: { filePath: path.join(work, a.path) } };
    if (a.kind === "edit") return { name: "edit", args: { filePath: path.join(work, a.path), oldString: a.old, newString: a.new } };
    if (a.kind === "search") return { name: "grep", args: { pattern: a.pattern, path: path.join(work, a.path) } };
    return { name: "write", args: { filePath: path.join(work, a.path), content: a.content } };
  },
  prepare({ home, port, prompt, bin }) {
    const env = isolatedEnv(home);
    const dir = path.join(env.XDG_CONFIG_HOME as string, "opencode");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "opencode.json"), JSON.stringify({
      $schema: "https://opencode.ai/config.json",
      autoupdate: false,
      share: "disabled",
      model: "fake/fake-model",
      permission: { edit: "allow", bash: "allow", webfetch: "deny" },
      provider: {
        fake: {
          npm: "@ai-sdk/openai-compatible",
          name: "Fake",
          options: { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: "fake-key" },
          models: { "fake-model": { name: "Fake model", reasoning: true, tool_call: true } },
        },
      },
    }, null, 2));
    return {
      command: bin("opencode"),
      args: ["run", "--model", "fake/fake-model", prompt],
      env: { ...env, OPENCODE_DISABLE_AUTOUPDATE: "1", OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_LSP_DOWNLOAD: "true" },
    };
  },
  sessionFiles: () => [],
  // opencode keeps sessions in its SQLite database; `opencode export` is the file a user gets.
  finish({ work, env, bin, out }) {
    const run = (args: string[]) => execFileSync(bin("opencode"), args, { cwd: work, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
    const sessions = JSON.parse(run(["session", "list", "--format", "json"])) as { id: string }[];
    return sessions.map(({ id }) => {
      const name = `${id}.json`;
      fs.writeFileSync(path.join(out, name), run(["export", id]));
      return name;
    });
  },
};

/** A file's text now, in the work folder (undefined when it is not there yet). */
function currentText(work: string, file: string): string | undefined {
  try { return fs.readFileSync(path.join(work, file), "utf8"); } catch { return undefined; }
}

/**
 * Codex's patch envelope for a scripted write or edit, as the model writes it: whole lines, so an
 * edit replaces the line holding its old text (and names the old text as a line of its own when the
 * file has no such line: the patch then fails to apply, as a wrong edit does).
 */
function codexPatch(work: string, a: Extract<Action, { kind: "write" | "edit" }>): string {
  const current = currentText(work, a.path);
  const lines = (text: string, sign: string) => text.replace(/\n$/, "").split("\n").map((l) => sign + l);
  let body: string[];
  if (a.kind === "write") body = current === undefined ? [`*** Add File: ${a.path}`, ...lines(a.content, "+")] : [`*** Update File: ${a.path}`, "@@", ...lines(current, "-"), ...lines(a.content, "+")];
  else {
    const line = current?.split("\n").find((l) => l.includes(a.old));
    body = [`*** Update File: ${a.path}`, "@@", ...(line === undefined ? [`-${a.old}`, `+${a.new}`] : [`-${line}`, `+${line.replace(a.old, a.new)}`])];
  }
  return ["*** Begin Patch", ...body, "*** End Patch"].join("\n");
}

export const CODEX: Agent = {
  name: "codex",
  pkg: "@openai/codex",
  version: "0.171.0",
  scenarios: [...SCENARIOS, ...PARALLEL_SCENARIOS],
  // Codex offers the model one shell tool, `exec_command {cmd}`; it reads with sed, searches with
  // rg and edits with `apply_patch`, which the shell tool runs itself.
  naming: (work) => (a) => {
    if (a.kind === "shell") return { name: "exec_command", args: { cmd: a.command } };
    if (a.kind === "read") return { name: "exec_command", args: { cmd: `sed -n '1,200p' ${a.path}` } };
    if (a.kind === "search") return { name: "exec_command", args: { cmd: `rg -n "${a.pattern}" ${a.path}` } };
    return { name: "exec_command", args: { cmd: `apply_patch <<'PATCH'\n${codexPatch(work, a)}\nPATCH` } };
  },
  prepare({ home, port, prompt, bin }) {
    const codexHome = path.join(home, ".codex");
    fs.mkdirSync(codexHome, { recursive: true });
    // "responses" is the only wire API 0.171.0 accepts for a custom provider.
    fs.writeFileSync(path.join(codexHome, "config.toml"), [
      'model = "gpt-5.1-codex"', 'model_provider = "fake"', 'model_reasoning_summary = "auto"', "",
      "[model_providers.fake]", 'name = "fake"', `base_url = "http://127.0.0.1:${port}/v1"`, 'wire_api = "responses"', 'env_key = "FAKE_API_KEY"', "",
    ].join("\n"));
    return {
      command: bin("codex"),
      // No approvals and no sandbox (bwrap needs privileges the recording may not have).
      args: ["exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", prompt],
      env: { ...isolatedEnv(home), CODEX_HOME: codexHome, FAKE_API_KEY: "fake-key-5d2e91" },
    };
  },
  sessionFiles: ({ home }) => findFiles(path.join(home, ".codex", "sessions"), /rollout-[^\\/]*\.jsonl$/),
};

export const COPILOT: Agent = {
  name: "copilot-cli",
  pkg: "@github/copilot",
  version: "1.0.102",
  scenarios: [...SCENARIOS, ...PARALLEL_SCENARIOS],
  play: { reasoningField: "reasoning_text" },
  naming: (work) => (a) => {
    const file = (p: string) => path.join(work, p);
    if (a.kind === "shell") return { name: "bash", args: { command: a.command, description: `Run ${a.command}` } };
    if (a.kind === "read") return { name: "view", args: { path: file(a.path) } };
    if (a.kind === "search") return { name: "grep", args: { pattern: a.pattern, paths: file(a.path), "-n": true } };
    if (a.kind === "edit") return { name: "edit", args: { path: file(a.path), old_str: a.old, new_str: a.new } };
    // `create` refuses a file that is there: the model edits it whole instead.
    const current = currentText(work, a.path);
    return current === undefined
      ? { name: "create", args: { path: file(a.path), file_text: a.content } }
      : { name: "edit", args: { path: file(a.path), old_str: current, new_str: a.content } };
  },
  prepare({ home, port, prompt, bin }) {
    const env = isolatedEnv(home);
    return {
      command: bin("copilot"),
      args: ["-p", prompt, "--allow-all-tools", "--no-ask-user", "--output-format", "json"],
      env: {
        ...env, COPILOT_HOME: path.join(home, ".copilot"), COPILOT_OFFLINE: "true", COPILOT_AUTO_UPDATE: "false",
        // Bring your own key: no GitHub login. The key is masked wherever the CLI prints it: a unique one.
        COPILOT_PROVIDER_BASE_URL: `http://127.0.0.1:${port}/v1`, COPILOT_PROVIDER_API_KEY: "fake-key-5d2e91", COPILOT_MODEL: "fake-model",
        // The first start unpacks ~235 MB: kept beside the install, not in each run's HOME.
        XDG_CACHE_HOME: path.resolve(path.dirname(bin("copilot")), "..", "..", ".cache"),
      },
    };
  },
  sessionFiles: ({ home }) => findFiles(path.join(home, ".copilot", "session-state"), /events\.jsonl$/),
  // `--output-format json` prints the same events, with the streamed deltas and a closing summary.
  keepStdoutAs: "copilot-output.jsonl",
};

export const AGENTS: Agent[] = [GEMINI, CLAUDE_CODE, PI, OPENCODE, CODEX, COPILOT];
