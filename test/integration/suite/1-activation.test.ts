import * as assert from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { ARTIFACTS, EXTENSION_ID, loopSentinel, waitFor } from "./helpers";

function findFiles(dir: string, match: (name: string) => boolean, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) findFiles(p, match, out);
    else if (match(entry.name)) out.push(p);
  }
  return out;
}

suite("activation", () => {
  test("activates in the extension host and measures its own activation", async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, "installed");
    const api = await loopSentinel();
    assert.ok(ext.isActive);
    assert.ok(api.activationMs > 0 && api.activationMs < 1000, `activate() took ${api.activationMs} ms`);
    console.log(`activate() took ${api.activationMs.toFixed(1)} ms (VS Code ${vscode.version}, ${vscode.env.appName}, node ${process.version})`);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(path.join(ARTIFACTS, "activation.json"), JSON.stringify({ activationMs: api.activationMs, vscode: vscode.version, app: vscode.env.appName }, null, 2));
  });

  test("registers every contributed command under the Loop Sentinel category", async () => {
    await loopSentinel();
    const contributed = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON.contributes.commands as Array<{ command: string; category: string }>;
    assert.ok(contributed.length >= 6);
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const c of contributed) {
      assert.strictEqual(c.category, "Loop Sentinel", c.command);
      assert.ok(registered.has(c.command), `${c.command} is registered`);
    }
  });

  test("the status bar item tells whether an agent host is watched", async () => {
    const api = await loopSentinel();
    const view = api.statusBar();
    assert.ok(["no-host", "watching"].includes(view.state), `state ${view.state}`);
    assert.match(view.text, /Loop Sentinel/);
    assert.strictEqual(view.background, undefined, "no alert colour without a loop");
    assert.match(view.tooltip, /command:loopSentinel\.showDiagnostics/, "tooltip links to the panel");
    assert.match(view.tooltip, /command:loopSentinel\.configure/, "tooltip links to the settings");
  });

  test("writes host connections and its activation to the Loop Sentinel log channel", async () => {
    await loopSentinel();
    const userData = process.env.LS_TEST_USER_DATA;
    assert.ok(userData, "the runner passes the user data folder");
    const log = await waitFor("the Loop Sentinel log file", () => {
      const files = findFiles(path.join(userData, "logs"), (n) => n.endsWith("Loop Sentinel.log"));
      const text = files.map((f) => fs.readFileSync(f, "utf8")).join("\n");
      return /activated in [\d.]+ ms/.test(text) ? text : undefined;
    });
    assert.match(log, /\[info\] hosts: /);
  });
});
