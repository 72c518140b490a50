/**
 * The extension's stream guard points Claude Code and Codex at itself by editing the one setting
 * each reads its endpoint from, and puts every file back byte for byte (src/hosts/streamGuard/pointing.ts).
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ROOT } from "./cliKit";
import { currentUpstream, pointAgentAt, pointedFileFor, pointings, restoreAgent, restoreOrphans } from "../../src/hosts/streamGuard/pointing";

const GUARD = "http://127.0.0.1:41234/AAAAAAAAAAAAAAAAAAAAAAAA";
const GUARD2 = "http://127.0.0.1:41999/BBBBBBBBBBBBBBBBBBBBBBBB";

function sandbox(): { env: NodeJS.ProcessEnv; root: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "ls-pointing-"));
  return { root, env: { HOME: root, CLAUDE_CONFIG_DIR: path.join(root, "claude"), CODEX_HOME: path.join(root, "codex"), LOOP_SENTINEL_HOME: path.join(root, "ls") } };
}

function write(file: string, text: string): Buffer {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return fs.readFileSync(file);
}

/** A pid that was a process and is not any more. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(r.stdout.toString());
}

describe("stream guard in the extension: pointing the agents' endpoint at it", () => {
  it("Claude Code: sets env.ANTHROPIC_BASE_URL beside the user's own settings and variables, and puts the file back byte for byte", () => {
    const { env } = sandbox();
    const file = pointedFileFor("claude", env);
    const before = write(file, '{\n\t"model": "opus",\n\t"env": {\n\t\t"DISABLE_TELEMETRY": "1"\n\t},\n\t"hooks": {}\n}');
    const r = pointAgentAt("claude", GUARD, env);
    assert.equal(r.state, "pointed", r.detail);
    assert.equal(r.upstream, "https://api.anthropic.com");
    const doc = JSON.parse(fs.readFileSync(file, "utf8"));
    assert.deepEqual(doc, { model: "opus", env: { DISABLE_TELEMETRY: "1", ANTHROPIC_BASE_URL: GUARD }, hooks: {} });
    assert.match(fs.readFileSync(file, "utf8"), /^\{\n\t"model"/, "the file's indentation is kept");
    assert.equal(currentUpstream("claude", env).upstream, "https://api.anthropic.com", "a pointing of ours is seen through");
    const back = restoreAgent("claude", env);
    assert.equal(back.state, "restored", back.detail);
    assert.ok(fs.readFileSync(file).equals(before), "byte for byte");
    assert.deepEqual(pointings(env), []);
  });

  it("Claude Code: the endpoint the user had (a gateway) becomes the guard's upstream, and comes back", () => {
    const { env } = sandbox();
    const file = pointedFileFor("claude", env);
    const before = write(file, JSON.stringify({ env: { ANTHROPIC_BASE_URL: "https://gateway.example.com/anthropic" } }, null, 4) + "\n");
    assert.equal(pointAgentAt("claude", GUARD, env).upstream, "https://gateway.example.com/anthropic");
    assert.equal(pointAgentAt("claude", GUARD, { ...env, ANTHROPIC_BASE_URL: "http://elsewhere" }).upstream, "https://gateway.example.com/anthropic", "pointing again keeps the first upstream");
    restoreAgent("claude", env);
    assert.ok(fs.readFileSync(file).equals(before));
  });

  it("Claude Code: no settings file yet: it is created with the one variable, and removed again with the folders it needed", () => {
    const { env, root } = sandbox();
    const file = pointedFileFor("claude", env);
    const r = pointAgentAt("claude", GUARD, { ...env, ANTHROPIC_BASE_URL: "http://127.0.0.1:11434" });
    assert.equal(r.upstream, "http://127.0.0.1:11434", "the variable the agent would have read");
    assert.deepEqual(JSON.parse(fs.readFileSync(file, "utf8")), { env: { ANTHROPIC_BASE_URL: GUARD } });
    restoreAgent("claude", env);
    assert.equal(fs.existsSync(file), false);
    assert.equal(fs.existsSync(path.join(root, "claude")), false, "the folder made for it is gone too");
  });

  it("a file it cannot read is left exactly as it is, with a clear reason, and nothing recorded", () => {
    const { env } = sandbox();
    const file = pointedFileFor("claude", env);
    const before = write(file, '{ "model": "opus", // a comment\n');
    const r = pointAgentAt("claude", GUARD, env);
    assert.equal(r.state, "unreadable");
    assert.match(r.detail, /not a JSON object .* left it alone/);
    assert.ok(fs.readFileSync(file).equals(before));
    const odd = write(file, '{"env": ["ANTHROPIC_BASE_URL"]}');
    assert.equal(pointAgentAt("claude", GUARD, env).state, "unreadable");
    assert.ok(fs.readFileSync(file).equals(odd));
    assert.deepEqual(pointings(env), []);
    assert.equal(restoreAgent("claude", env).state, "absent");
  });

  it("Codex: changes only the chosen provider's base_url value (comments, quotes, CRLF and other providers kept), and puts it back byte for byte", () => {
    const { env } = sandbox();
    const file = pointedFileFor("codex", env);
    const text = ['# my codex', 'model = "gpt-5"', "model_provider = 'local'  # the box under the desk", "", '[model_providers.other]', 'base_url = "http://other:1/v1"', "", "[model_providers.local]", 'name = "Local"', "base_url = 'http://10.0.0.5:8000/v1'   # vLLM", 'wire_api = "responses"', ""].join("\r\n");
    const before = write(file, text);
    const r = pointAgentAt("codex", GUARD, env);
    assert.equal(r.state, "pointed", r.detail);
    assert.equal(r.upstream, "http://10.0.0.5:8000/v1");
    const now = fs.readFileSync(file, "utf8");
    assert.equal(now, text.replace("base_url = 'http://10.0.0.5:8000/v1'", `base_url = '${GUARD}'`), "one value changed, nothing else");
    assert.equal(restoreAgent("codex", env).state, "restored");
    assert.ok(fs.readFileSync(file).equals(before));
  });

  it("Codex on OpenAI's own provider, or without a config: nothing changed, and said why", () => {
    const { env } = sandbox();
    const file = pointedFileFor("codex", env);
    assert.equal(pointAgentAt("codex", GUARD, env).state, "not-configured");
    assert.equal(fs.existsSync(file), false);
    const before = write(file, 'model = "gpt-5"\n');
    const r = pointAgentAt("codex", GUARD, env);
    assert.equal(r.state, "not-configured");
    assert.match(r.detail, /OpenAI's own endpoint/);
    write(file, 'model_provider = "mine"\n[model_providers.mine]\nname = "x"\n');
    assert.match(pointAgentAt("codex", GUARD, env).detail, /no base_url for the provider "mine"/);
    write(file, before.toString());
    assert.ok(fs.readFileSync(file).equals(before));
  });

  it("a file changed since the pointing: only our value goes back, the user's change stays", () => {
    const { env } = sandbox();
    const file = pointedFileFor("claude", env);
    write(file, JSON.stringify({ env: { ANTHROPIC_BASE_URL: "https://gateway.example.com" } }, null, 2) + "\n");
    pointAgentAt("claude", GUARD, env);
    const doc = JSON.parse(fs.readFileSync(file, "utf8"));
    doc.model = "sonnet";
    fs.writeFileSync(file, JSON.stringify(doc, null, 2) + "\n");
    const r = restoreAgent("claude", env);
    assert.equal(r.state, "restored");
    assert.deepEqual(JSON.parse(fs.readFileSync(file, "utf8")), { env: { ANTHROPIC_BASE_URL: "https://gateway.example.com" }, model: "sonnet" });
    // Codex: the same for its line.
    const toml = pointedFileFor("codex", env);
    write(toml, 'model_provider = "p"\n[model_providers.p]\nbase_url = "http://up:1/v1"\n');
    pointAgentAt("codex", GUARD, env);
    fs.appendFileSync(toml, 'env_key = "K"\n');
    restoreAgent("codex", env);
    assert.equal(fs.readFileSync(toml, "utf8"), 'model_provider = "p"\n[model_providers.p]\nbase_url = "http://up:1/v1"\nenv_key = "K"\n');
  });

  it("another window's guard is left alone; a window that is gone (a crash) has its pointing put back at the next start", () => {
    const { env } = sandbox();
    const file = pointedFileFor("claude", env);
    const before = write(file, '{"model":"opus"}');
    pointAgentAt("claude", GUARD, env, process.ppid);
    const r = restoreAgent("claude", env, process.pid);
    assert.equal(r.state, "left", r.detail);
    assert.equal(JSON.parse(fs.readFileSync(file, "utf8")).env.ANTHROPIC_BASE_URL, GUARD);
    // This window takes over: the upstream is still the user's, not the other guard.
    const mine = pointAgentAt("claude", GUARD2, env, process.pid);
    assert.equal(mine.upstream, "https://api.anthropic.com");
    assert.equal(restoreOrphans(env).length, 0, "a live owner is no orphan");
    // Its window is gone.
    pointAgentAt("claude", GUARD, env, deadPid());
    const back = restoreOrphans(env);
    assert.deepEqual(back.map((x) => x.state), ["restored"]);
    assert.ok(fs.readFileSync(file).equals(before));
  });

  it("a URL of an unknown guard is never taken for the upstream", () => {
    const { env } = sandbox();
    const file = pointedFileFor("claude", env);
    const before = write(file, JSON.stringify({ env: { ANTHROPIC_BASE_URL: "http://127.0.0.1:5555/CCCCCCCCCCCCCCCCCCCCCCCC" } }));
    const r = pointAgentAt("claude", GUARD, env);
    assert.equal(r.state, "left");
    assert.ok(fs.readFileSync(file).equals(before));
  });

  it("uninstalling Loop Sentinel (its vscode:uninstall script) puts a pointing back byte for byte, whoever's window it was", () => {
    const { env, root } = sandbox();
    const file = pointedFileFor("claude", env);
    const before = write(file, '{"model":"x"}');
    pointAgentAt("claude", GUARD, env, process.pid);
    const r = spawnSync(process.execPath, [path.join(ROOT, "dist/uninstall.js")], { env: { ...env, PATH: process.env.PATH, XDG_DATA_HOME: path.join(root, "data"), XDG_CONFIG_HOME: path.join(root, "config") }, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Claude Code's endpoint is back as it was/);
    assert.ok(fs.readFileSync(file).equals(before));
    assert.deepEqual(pointings(env), []);
  });
});
