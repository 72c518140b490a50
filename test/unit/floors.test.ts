import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";

/**
 * The architecture's floors: a file imports only from its own floor or below, so the engine runs
 * without any host, a host's translator without the readers built on it, and no module waits on
 * another that waits on it.
 */
const SRC = path.resolve(__dirname, "../../../src");
const FLOOR: Record<string, number> = { engine: 0, hosts: 1, formats: 2, stats: 3, extension: 4, cli: 5 };

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : e.name.endsWith(".ts") ? [p] : [];
  });
}

/** The files under src that `file` imports (types included: an upward type is an upward arrow too). */
function localImports(file: string): string[] {
  const text = fs.readFileSync(file, "utf8");
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*"(\.{1,2}\/[^"]*)"/g)) {
    const target = path.resolve(path.dirname(file), m[1]);
    const resolved = [`${target}.ts`, path.join(target, "index.ts")].find((p) => fs.existsSync(p));
    if (resolved) out.push(resolved);
  }
  return out;
}

const floorOf = (file: string) => path.relative(SRC, file).split(path.sep)[0];

describe("floors", () => {
  const files = sourceFiles(SRC);
  const graph = new Map(files.map((f) => [f, localImports(f)]));

  it("finds the source tree and its floors", () => {
    assert.ok(files.length > 50);
    for (const f of files) assert.ok(floorOf(f) in FLOOR, `${path.relative(SRC, f)} is on no known floor`);
  });

  it("no file imports from a floor above its own", () => {
    const upward: string[] = [];
    for (const [file, deps] of graph) {
      for (const dep of deps) {
        if (FLOOR[floorOf(dep)] > FLOOR[floorOf(file)]) upward.push(`${path.relative(SRC, file)} -> ${path.relative(SRC, dep)}`);
      }
    }
    assert.deepEqual(upward, []);
  });

  it("no two modules import each other, directly or round a ring", () => {
    const state = new Map<string, "open" | "done">();
    const rings: string[] = [];
    const stack: string[] = [];
    const visit = (file: string): void => {
      state.set(file, "open");
      stack.push(file);
      for (const dep of graph.get(file) ?? []) {
        const s = state.get(dep);
        if (s === "open") rings.push(stack.slice(stack.indexOf(dep)).concat(dep).map((f) => path.relative(SRC, f)).join(" -> "));
        else if (s === undefined) visit(dep);
      }
      stack.pop();
      state.set(file, "done");
    };
    for (const f of files) if (!state.has(f)) visit(f);
    assert.deepEqual(rings, []);
  });
});
