/**
 * The real agents recorded for the reader fixtures: where each comes from on npm, how it is pointed
 * at the fake model, how it is run non-interactively, and where it leaves its session files.
 * Every run gets its own HOME and XDG folders under .tmp, so nothing touches the machine's own.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { ToolNaming } from "./fakeModel";
import type { ScenarioName } from "./scenarios";

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

export const AGENTS: Agent[] = [GEMINI, CLAUDE_CODE, PI, OPENCODE];
