// Builds loop-sentinel-<version>.vsix offline. vsce is run in a staging folder holding only what
// ships (the list in .vscodeignore): listing the whole checkout (node_modules, the test host) takes
// vsce most of a minute, the staging folder a second.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { extensionReadme } from "./vsix-readme.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const WALKTHROUGH = fs.readdirSync(path.join(root, "media/walkthrough")).map((f) => `media/walkthrough/${f}`);
// The README's pictures are inlined into the VSIX README (the only way they render offline) and not
// shipped again as files: nothing else opens them, and each copy costs the package its size.
const SHIPPED = ["dist/extension.js", "dist/opencode-plugin.js", "dist/cline-hook.js", "dist/agent-hook.js", "dist/agent-hook-engine.js", "dist/uninstall.js", "media/panel.js", "media/panel.css", "media/icon.png", ...WALKTHROUGH, "LICENSE"];
// The Changelog tab is for users (what changed for them, by version); the repository's CHANGELOG.md is the developers' log.
const USER_CHANGELOG = "docs/extension-changelog.md";
// --out FILE: where the VSIX goes; --no-build: pack the dist/ already built (the unit test that reads the package).
const outArg = process.argv.indexOf("--out");
const noBuild = process.argv.includes("--no-build");

if (!noBuild) {
  execFileSync(process.execPath, [path.join(root, "scripts/gen-settings.mjs")], { cwd: root, stdio: "inherit" });
  execFileSync(process.execPath, [path.join(root, "scripts/build.mjs"), "--production"], { cwd: root, stdio: "inherit" });
}

// The unit test packs into its own staging folder, so that it never meets an `npm run package`.
const stage = path.join(root, noBuild ? ".tmp/vsix-stage-test" : ".tmp/vsix-stage");
fs.rmSync(stage, { recursive: true, force: true });
for (const f of SHIPPED) {
  fs.mkdirSync(path.dirname(path.join(stage, f)), { recursive: true });
  fs.copyFileSync(path.join(root, f), path.join(stage, f));
}
const readme = extensionReadme(root);
fs.writeFileSync(path.join(stage, "README.md"), readme.text);
fs.copyFileSync(path.join(root, USER_CHANGELOG), path.join(stage, "CHANGELOG.md"));
// Of the scripts only the uninstall hook ships: it takes the Kilo / opencode plugin and the Cline hook out again.
// The pi manifest names dist/pi-extension.js, which the VSIX does not carry (pi loads it from this
// package or its npm tarball): it stays out, with its gallery keyword.
const { pi: _piManifest, ...vscodePkg } = pkg;
const staged = { ...vscodePkg, keywords: pkg.keywords.filter((k) => k !== "pi-package"), scripts: { "vscode:uninstall": pkg.scripts["vscode:uninstall"] }, devDependencies: {} };
fs.writeFileSync(path.join(stage, "package.json"), JSON.stringify(staged, null, 2));
fs.copyFileSync(path.join(root, ".vscodeignore"), path.join(stage, ".vscodeignore"));

const out = outArg > 0 ? path.resolve(process.argv[outArg + 1]) : path.join(root, `${pkg.name}-${pkg.version}.vsix`);
// --no-rewrite-relative-links: vsce would otherwise refuse the README's data: image (it wants https links to a repository).
// --allow-missing-repository: the package names no repository rather than a placeholder link that goes nowhere.
execFileSync(path.join(root, "node_modules/.bin/vsce"), ["package", "--no-dependencies", "--no-rewrite-relative-links", "--allow-missing-repository", "--out", out], { cwd: stage, stdio: noBuild ? "ignore" : "inherit" });
const kb = fs.statSync(out).size / 1024;
console.log(`package: ${path.relative(root, out)} ${kb.toFixed(1)} KB`);
// The size this project keeps for what every user downloads (the release build; --no-build packs the unminified test build).
const MAX_KB = 400;
if (!noBuild && kb > MAX_KB) { console.error(`package: ${kb.toFixed(1)} KB is over the ${MAX_KB} KB this project keeps`); process.exit(1); }
