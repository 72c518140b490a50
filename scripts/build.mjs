// Bundles the extension, the CLI, the OpenCode plugin, the pi extension and the benchmark with esbuild (one file each, no runtime deps to ship).
import * as esbuild from "esbuild";
import * as fs from "node:fs";

const production = process.argv.includes("--production");
const version = JSON.parse(fs.readFileSync("package.json", "utf8")).version;
const common = { bundle: true, platform: "node", target: "node20", format: "cjs", sourcemap: !production, minify: production, logLevel: "warning" };

const entries = [
  { entryPoints: ["src/extension/extension.ts"], outfile: "dist/extension.js", external: ["vscode"] },
  { entryPoints: ["src/cli/main.ts"], outfile: "dist/cli.js", banner: { js: "#!/usr/bin/env node" } },
  // Loaded by opencode / Kilo 7 from their plugin folder: ESM, one named export (see its header).
  { entryPoints: ["src/hosts/opencode/plugin.ts"], outfile: "dist/opencode-plugin.js", format: "esm", sourcemap: false, banner: { js: `// loop-sentinel opencode plugin ${version}` } },
  { entryPoints: ["scripts/bench.ts"], outfile: "dist/bench.js" },
  // Cline's PreToolUse hook: run by Cline for every tool call, so small and on its own.
  { entryPoints: ["src/hosts/cline/hookScript.ts"], outfile: "dist/cline-hook.js", sourcemap: false },
  // Claude Code's, Copilot CLI's and Codex's tool-call hook: run for every call, so on its own too.
  { entryPoints: ["src/hosts/hookAgents/hookMain.ts"], outfile: "dist/agent-hook.js", sourcemap: false },
  // Its engine, loaded only when no running Loop Sentinel answers (the hook decides alone).
  { entryPoints: ["src/hosts/hookAgents/headlessEntry.ts"], outfile: "dist/agent-hook-engine.js", sourcemap: false, minify: true },
  // The pi extension (this package's `pi` manifest names it): pi loads it through jiti, which wants
  // the factory as the module itself (it does not unwrap a CommonJS `exports.default`). Not in the
  // VSIX (.vscodeignore lists what ships).
  { entryPoints: ["src/hosts/pi/extension.ts"], outfile: "dist/pi-extension.js", sourcemap: false, banner: { js: `// loop-sentinel pi extension ${version}` }, footer: { js: "module.exports = module.exports.default;" } },
  // Run by VS Code once Loop Sentinel is uninstalled (package.json "vscode:uninstall"): removes the
  // Kilo / opencode plugin and that hook.
  { entryPoints: ["src/extension/uninstall.ts"], outfile: "dist/uninstall.js", sourcemap: false },
];

for (const e of entries) {
  if (!fs.existsSync(e.entryPoints[0])) { console.warn(`build: ${e.entryPoints[0]} not present yet, skipped`); continue; }
  await esbuild.build({ ...common, ...e });
}
fs.chmodSync("dist/cli.js", 0o755);
