// Bundles the extension, the CLI and the benchmark with esbuild (one file each, no runtime deps to ship).
import * as esbuild from "esbuild";
import * as fs from "node:fs";

const production = process.argv.includes("--production");
const common = { bundle: true, platform: "node", target: "node20", format: "cjs", sourcemap: !production, minify: production, logLevel: "warning" };

const entries = [
  { entryPoints: ["src/extension/extension.ts"], outfile: "dist/extension.js", external: ["vscode"] },
  { entryPoints: ["src/cli/main.ts"], outfile: "dist/cli.js", banner: { js: "#!/usr/bin/env node" } },
  { entryPoints: ["scripts/bench.ts"], outfile: "dist/bench.js" },
  // Cline's PreToolUse hook: run by Cline for every tool call, so small and on its own.
  { entryPoints: ["src/hosts/cline/hookScript.ts"], outfile: "dist/cline-hook.js", sourcemap: false },
  // Run by VS Code after an uninstall: removes that hook.
  { entryPoints: ["src/extension/uninstall.ts"], outfile: "dist/uninstall.js", sourcemap: false },
];

for (const e of entries) {
  if (!fs.existsSync(e.entryPoints[0])) { console.warn(`build: ${e.entryPoints[0]} not present yet, skipped`); continue; }
  await esbuild.build({ ...common, ...e });
}
fs.chmodSync("dist/cli.js", 0o755);
