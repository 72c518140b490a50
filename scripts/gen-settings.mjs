// Writes package.json's contributes.commands and contributes.configuration from the engine's
// detector list (src/engine/detectors) and the shell's command table, so every detector and
// threshold has a setting. Writes only when something changed. `--check` exits 1 when stale.
import * as esbuild from "esbuild";
import * as fs from "node:fs";
import Module from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const check = process.argv.includes("--check");

const entry = `
export { DETECTOR_DEFINITIONS } from "./src/engine/detectors";
export { buildConfigurationContribution, buildUntrustedWorkspaces, MISSING_DESCRIPTION } from "./src/extension/settingsSchema";
export { COMMANDS, COMMAND_TITLES, COMMAND_WHEN } from "./src/extension/commandIds";
`;
const built = await esbuild.build({
  stdin: { contents: entry, resolveDir: root, loader: "ts", sourcefile: "gen-settings-entry.ts" },
  bundle: true, platform: "node", format: "cjs", write: false, logLevel: "warning",
});
const mod = new Module("gen-settings-entry");
mod.paths = Module._nodeModulePaths(root);
mod._compile(built.outputFiles[0].text, path.join(root, "gen-settings-entry.js"));
const { DETECTOR_DEFINITIONS, buildConfigurationContribution, buildUntrustedWorkspaces, MISSING_DESCRIPTION, COMMANDS, COMMAND_TITLES, COMMAND_WHEN } = mod.exports;
const configuration = buildConfigurationContribution(DETECTOR_DEFINITIONS);
// A parameter added to a detector's defaults without its entry in that detector's `parameters`:
// said here, and test/unit/settingsDescriptions fails on it.
for (const c of configuration) {
  for (const [key, schema] of Object.entries(c.properties)) {
    if (schema.markdownDescription === MISSING_DESCRIPTION) console.error(`gen-settings: ${key} has no description: add it to the detector's \`parameters\` (src/engine/detectors)`);
  }
}

const file = path.join(root, "package.json");
const text = fs.readFileSync(file, "utf8");
const pkg = JSON.parse(text);
const commands = Object.entries(COMMANDS).map(([k, id]) => ({ command: id, title: COMMAND_TITLES[k], category: "Loop Sentinel" }));
// Each palette command only where it applies (its context keys are set by the extension).
const commandPalette = Object.entries(COMMAND_WHEN).map(([k, when]) => ({ command: COMMANDS[k], when }));
pkg.contributes = { ...pkg.contributes, commands, menus: { ...pkg.contributes.menus, commandPalette }, configuration };
pkg.capabilities = { ...pkg.capabilities, untrustedWorkspaces: buildUntrustedWorkspaces(DETECTOR_DEFINITIONS) };
const next = JSON.stringify(pkg, null, 2) + "\n";
if (next === text) process.exit(0);
if (check) {
  console.error("package.json contributes are out of date: run `npm run gen-settings`");
  process.exit(1);
}
fs.writeFileSync(file, next);
console.log(`gen-settings: package.json contributes updated (${DETECTOR_DEFINITIONS.length} detectors)`);
