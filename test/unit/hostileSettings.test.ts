/**
 * Settings keys that name JavaScript built-ins ("__proto__", "constructor", "hasOwnProperty", ...)
 * through every settings source: the engine's resolveConfig, the CLI's --config (all three shapes)
 * and --set, the extension's settings reader and the Kilo/opencode plugin's settings file. None may
 * reach a prototype, throw, or pass unnamed.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { defaultConfig, resolveConfig } from "../../src/engine/config";
import { readShellSettings } from "../../src/extension/settings";
import { settingsFromJson } from "../../src/hosts/opencode/settingsFile";
import { cli, ROOT } from "./cliKit";

const LOOP_TRACE = path.join(ROOT, "test/fixtures/scenarios/loop_tool_identical_read_x6.trace.jsonl");
export const HOSTILE_KEYS = ["__proto__", "constructor", "prototype", "hasOwnProperty", "toString", "valueOf", "isPrototypeOf", "__defineGetter__", "__lookupGetter__", "propertyIsEnumerable", "toLocaleString"];

/** What a polluted run would change: the built-ins' own properties, compared after each attack. */
function builtIns(): unknown[] {
  return [Object.prototype, Object, Function.prototype, Array.prototype].flatMap((o) =>
    Object.getOwnPropertyNames(o).map((k) => { try { return [k, (o as Record<string, unknown>)[k]]; } catch { return [k, "(getter throws)"]; } }));
}

/** Parsed from text, as every source gets it: "__proto__" is then an own key, not the prototype. */
function hostileDocs(key: string): Record<string, unknown>[] {
  const k = JSON.stringify(key);
  return [
    `{${k}: {"enabled": false, "mode": "warnOnly"}}`,
    `{"detectors": {${k}: {"toString": 1, "keys": 1, "length": 1, "warnAt": 1}}}`,
    `{"detectors": {"tool-repeat": {${k}: 1}}}`,
    `{"guidance": {${k}: "hello"}}`,
    `{"toolNames": {${k}: ["x"]}}`,
    `{"perTool": {"read_file": {${k}: 1}}}`,
  ].map((t) => JSON.parse(t));
}

describe("hostile settings keys: every source looks up own keys of known settings only", () => {
  const before = builtIns();
  const defaults = defaultConfig();
  afterEach(() => assert.deepEqual(builtIns(), before, "a built-in was changed"));

  it("resolveConfig: refuses each key with a line naming it, keeps the defaults, never throws", () => {
    for (const key of HOSTILE_KEYS) {
      for (const doc of hostileDocs(key)) {
        const { config, warnings } = resolveConfig(doc);
        assert.deepEqual(config.detectors, defaults.detectors, `${key}: ${JSON.stringify(doc)}`);
        assert.equal(config.mode, "intervene");
        assert.ok(warnings.some((w) => w.includes(key)), `${key} not named: ${JSON.stringify(doc)} -> ${warnings.join(" | ")}`);
      }
    }
  });

  it("the CLI: --config in all three shapes and --set end in exit 0 with the key named, no stack trace", function () {
    this.timeout(60_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-keys-"));
    const file = path.join(dir, "c.json");
    const runs: Array<{ args: string[]; key: string }> = [];
    for (const [i, text] of [
      `{"detectors": {"__proto__": {"toString": 1}}}`,
      `{"detectors": {"constructor": {"keys": 1}}}`,
      `{"loopSentinel": {"detectors": {"hasOwnProperty": {"length": 1}}}}`,
      `{"loopSentinel.detectors.valueOf.length": 1}`,
    ].entries()) {
      const f = `${file}.${i}`;
      fs.writeFileSync(f, text);
      runs.push({ args: ["--config", f], key: Object.keys(JSON.parse(text).detectors ?? JSON.parse(text).loopSentinel?.detectors ?? { valueOf: 1 })[0] });
    }
    runs.push({ args: ["--set", "detectors.hasOwnProperty.length=1"], key: "hasOwnProperty" });
    runs.push({ args: ["--set", "detectors.tool-repeat.toString=1"], key: "toString" });
    for (const { args, key } of runs) {
      const r = cli("replay", ...args, LOOP_TRACE);
      assert.equal(r.code, 0, `${args.join(" ")}: ${r.err}`);
      assert.ok(r.err.includes(key), `${args.join(" ")}: ${r.err}`);
      assert.doesNotMatch(r.err, /internal error|\n\s+at /);
      assert.match(r.out, /tool-repeat/, "the defaults still judge the loop");
    }
  });

  it("the extension's settings: hostile keys in any object setting are named, the defaults kept", () => {
    for (const key of HOSTILE_KEYS) {
      for (const doc of hostileDocs(key)) {
        const s = readShellSettings((k) => (Object.hasOwn(doc, k) ? doc[k] : undefined));
        assert.deepEqual(s.engine.detectors, defaults.detectors);
        if (Object.keys(doc)[0] !== key) assert.ok(s.warnings.some((w) => w.includes(key)), `${key}: ${s.warnings.join(" | ")}`);
      }
    }
  });

  it("the Kilo/opencode plugin's settings file: no key reaches a prototype, unknown ones are named", () => {
    for (const key of HOSTILE_KEYS) {
      const k = JSON.stringify(key);
      for (const text of [`{"loopSentinel.${key}": {"mode": "warnOnly"}}`, `{"loopSentinel": {${k}: {"mode": "warnOnly"}}}`, `{${k}: {"mode": "warnOnly"}}`]) {
        const s = settingsFromJson(JSON.parse(text));
        assert.equal(s.engine.mode, "intervene", text);
        assert.ok(s.warnings.some((w) => w.includes(key)), `${text}: ${s.warnings.join(" | ")}`);
      }
      for (const doc of hostileDocs(key)) {
        const s = settingsFromJson({ loopSentinel: doc });
        assert.deepEqual(s.engine.detectors, defaults.detectors);
      }
    }
  });
});
