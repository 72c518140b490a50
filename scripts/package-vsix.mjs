// Builds loop-sentinel-<version>.vsix offline. vsce is run in a staging folder holding only what
// ships (the list in .vscodeignore): listing the whole checkout (node_modules, the test host) takes
// vsce most of a minute, the staging folder a second.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const SHIPPED = ["dist/extension.js", "dist/opencode-plugin.js", "dist/cline-hook.js", "dist/uninstall.js", "media/panel.js", "media/panel.css", "media/icon.png", "README.md", "LICENSE", "CHANGELOG.md"];

execFileSync(process.execPath, [path.join(root, "scripts/gen-settings.mjs")], { cwd: root, stdio: "inherit" });
execFileSync(process.execPath, [path.join(root, "scripts/build.mjs"), "--production"], { cwd: root, stdio: "inherit" });

const stage = path.join(root, ".tmp/vsix-stage");
fs.rmSync(stage, { recursive: true, force: true });
for (const f of SHIPPED) {
  fs.mkdirSync(path.dirname(path.join(stage, f)), { recursive: true });
  fs.copyFileSync(path.join(root, f), path.join(stage, f));
}
// The README image ships in the package (relative link kept): the Extensions view shows it offline.
if (fs.existsSync(path.join(root, "docs"))) fs.cpSync(path.join(root, "docs"), path.join(stage, "docs"), { recursive: true });
// Of the scripts only the uninstall hook ships: it takes the Kilo / opencode plugin and the Cline hook out again.
const staged = { ...pkg, scripts: { "vscode:uninstall": pkg.scripts["vscode:uninstall"] }, devDependencies: {} };
fs.writeFileSync(path.join(stage, "package.json"), JSON.stringify(staged, null, 2));
fs.copyFileSync(path.join(root, ".vscodeignore"), path.join(stage, ".vscodeignore"));

const out = path.join(root, `${pkg.name}-${pkg.version}.vsix`);
execFileSync(path.join(root, "node_modules/.bin/vsce"), ["package", "--no-dependencies", "--no-rewrite-relative-links", "--out", out], { cwd: stage, stdio: "inherit" });
console.log(`package: ${path.relative(root, out)} ${(fs.statSync(out).size / 1024).toFixed(1)} KB`);
