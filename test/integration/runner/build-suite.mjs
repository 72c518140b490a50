// Bundles the integration suite (index.ts and every *.test.ts) with esbuild into out/integration-suite/:
// one self-contained file each, so the suite does not depend on the rest of out/ (which other builds rewrite)
// or on the whole tree type-checking. `vscode` and `mocha` stay external (the extension host provides one,
// node_modules the other).
import * as esbuild from "esbuild";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
// Usage: build-suite.mjs [suiteDir outDir] (default: the integration suite)
const suiteDir = path.resolve(root, process.argv[2] || "test/integration/suite");
const outdir = path.resolve(root, process.argv[3] || "out/integration-suite");
const entries = fs.readdirSync(suiteDir).filter((f) => f === "index.ts" || f.endsWith(".test.ts")).map((f) => path.join(suiteDir, f));
fs.rmSync(outdir, { recursive: true, force: true });
await esbuild.build({
  entryPoints: entries, outdir, bundle: true, platform: "node", target: "node20", format: "cjs",
  external: ["vscode", "mocha"], sourcemap: "inline", logLevel: "warning",
});
console.log(`build-suite: ${entries.length} files → ${path.relative(root, outdir)}`);
