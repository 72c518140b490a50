// Bundles the extension, the CLI, the OpenCode plugin, the pi extension and the benchmark with esbuild (one file each, no runtime deps to ship).
import * as esbuild from "esbuild";
import * as fs from "node:fs";
import * as path from "node:path";

const production = process.argv.includes("--production");
const version = JSON.parse(fs.readFileSync("package.json", "utf8")).version;
const common = { bundle: true, platform: "node", target: "node20", format: "cjs", sourcemap: !production, minify: production, logLevel: "warning" };

// The engine ships once in the VSIX: dist/agent-hook-engine.js carries every engine module (the
// headless hook needs it anyway), and the extension takes its engine from there instead of a copy
// of its own. The OpenCode plugin keeps its own: it is copied into the agent's folder alone.
const ENGINE_DIR = path.resolve("src/engine");
const SHARED_ENGINE = "./agent-hook-engine.js";
const engineFiles = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => d.isDirectory() ? engineFiles(path.join(dir, d.name)) : d.name.endsWith(".ts") ? [path.join(dir, d.name)] : []);
const engineKey = (file) => path.relative(ENGINE_DIR, file).split(path.sep).join("/");
const sharedEngineEntry = () => {
  const files = engineFiles(ENGINE_DIR).sort();
  return [
    `export * from "./src/hosts/hookAgents/headlessEntry";`,
    ...files.map((f, i) => `import * as m${i} from ${JSON.stringify("./" + path.relative(process.cwd(), f).split(path.sep).join("/"))};`),
    `export const engineModules = {${files.map((f, i) => `${JSON.stringify(engineKey(f))}: m${i}`).join(", ")}};`,
  ].join("\n");
};
/** Every import that lands in src/engine becomes a lookup in the shared engine bundle. */
const takeEngineFromShared = {
  name: "take-engine-from-shared",
  setup(build) {
    build.onResolve({ filter: /engine/ }, async (args) => {
      if (args.pluginData?.inner) return undefined;
      const r = await build.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, importer: args.importer, pluginData: { inner: true } });
      if (r.errors.length || !r.path.startsWith(ENGINE_DIR + path.sep)) return undefined;
      return { path: engineKey(r.path), namespace: "shared-engine" };
    });
    build.onLoad({ filter: /.*/, namespace: "shared-engine" }, (args) => ({
      contents: `const m = require(${JSON.stringify(SHARED_ENGINE)}).engineModules[${JSON.stringify(args.path)}]; if (!m) throw new Error("Loop Sentinel: the engine module ${args.path} is missing from ${SHARED_ENGINE}"); module.exports = m;`,
      loader: "js",
    }));
  },
};

const entries = [
  { entryPoints: ["src/extension/extension.ts"], outfile: "dist/extension.js", external: ["vscode", SHARED_ENGINE], plugins: [takeEngineFromShared] },
  { entryPoints: ["src/cli/main.ts"], outfile: "dist/cli.js", banner: { js: "#!/usr/bin/env node" } },
  // Loaded by opencode / Kilo 7 from their plugin folder: ESM, one named export (see its header).
  { entryPoints: ["src/hosts/opencode/plugin.ts"], outfile: "dist/opencode-plugin.js", format: "esm", sourcemap: false, banner: { js: `// loop-sentinel opencode plugin ${version}` } },
  { entryPoints: ["scripts/bench.ts"], outfile: "dist/bench.js" },
  // Cline's PreToolUse hook: run by Cline for every tool call, so small and on its own.
  { entryPoints: ["src/hosts/cline/hookScript.ts"], outfile: "dist/cline-hook.js", sourcemap: false },
  // Claude Code's, Copilot CLI's and Codex's tool-call hook: run for every call, so on its own too.
  { entryPoints: ["src/hosts/hookAgents/hookMain.ts"], outfile: "dist/agent-hook.js", sourcemap: false },
  // Its engine, loaded only when no running Loop Sentinel answers (the hook decides alone).
  // Also the extension's engine (see takeEngineFromShared).
  { entryPoints: ["src/hosts/hookAgents/headlessEntry.ts"], stdin: { contents: sharedEngineEntry(), resolveDir: process.cwd(), sourcefile: "agent-hook-engine-entry.ts", loader: "ts" }, outfile: "dist/agent-hook-engine.js", sourcemap: false, minify: true },
  // The pi extension (this package's `pi` manifest names it): pi loads it through jiti, which wants
  // the factory as the module itself (it does not unwrap a CommonJS `exports.default`). Not in the
  // VSIX (.vscodeignore lists what ships).
  { entryPoints: ["src/hosts/pi/extension.ts"], outfile: "dist/pi-extension.js", sourcemap: false, banner: { js: `// loop-sentinel pi extension ${version}` }, footer: { js: "module.exports = module.exports.default;" } },
  // Run by VS Code once Loop Sentinel is uninstalled (package.json "vscode:uninstall"): removes the
  // Kilo / opencode plugin and that hook.
  { entryPoints: ["src/extension/uninstall.ts"], outfile: "dist/uninstall.js", sourcemap: false },
];

/**
 * The agents' hook and its engine run once per tool call, in a new process (issue 35, part 4).
 * esbuild turns each `import * as fs from "node:fs"` into a copy of the module's exports
 * (__toESM: a getter defined per export, about 100 for node:fs, a dozen such imports), about
 * 1.5 ms of each call; the module object itself serves as well, since the code only reads its
 * exports. Built unminified, the copies taken out (a `.default` read of one stops the build), then
 * minified as asked.
 */
const HOOK_BUNDLES = new Set(["dist/agent-hook.js", "dist/agent-hook-engine.js"]);
async function buildHookBundle(e) {
  const minify = e.minify ?? common.minify;
  const out = await esbuild.build({ ...common, ...e, minify: false, write: false });
  let text = out.outputFiles.find((f) => f.path.endsWith(".js")).text;
  const names = [...text.matchAll(/var (\w+) = __toESM\(require\("node:[\w/]+"\)\)/g)].map((m) => m[1]);
  for (const n of names) if (new RegExp(`\\b${n}\\.default\\b`).test(text)) throw new Error(`build: ${e.outfile} reads ${n}.default: keep its __toESM`);
  text = text.replace(/__toESM\((require\("node:[\w/]+"\))\)/g, "$1");
  if (minify) text = (await esbuild.transform(text, { minify: true, format: "cjs", platform: "node", target: common.target })).code;
  fs.writeFileSync(e.outfile, text);
}

for (const e of entries) {
  if (!fs.existsSync(e.entryPoints[0])) { console.warn(`build: ${e.entryPoints[0]} not present yet, skipped`); continue; }
  // An entry written here (stdin) names its source file only for the check above.
  const { stdin, ...rest } = e;
  const entry = { ...rest, ...(stdin ? { stdin, entryPoints: undefined } : {}) };
  if (HOOK_BUNDLES.has(e.outfile)) await buildHookBundle(entry);
  else await esbuild.build({ ...common, ...entry });
}
fs.chmodSync("dist/cli.js", 0o755);
