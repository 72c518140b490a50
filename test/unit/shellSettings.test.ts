import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { readShellSettings } from "../../src/extension/settings";
import { buildConfigurationContribution, detectorSettingsName } from "../../src/extension/settingsSchema";
import { COMMANDS, COMMAND_TITLES } from "../../src/extension/commandIds";
import { DETECTOR_DEFINITIONS } from "../../src/engine/detectors";
import { defaultConfig } from "../../src/engine/config";

const ROOT = path.resolve(__dirname, "../../..");

/** What vscode's getConfiguration("loopSentinel").get(key) returns for dotted contributed keys: a nested tree. */
function reader(values: Record<string, unknown>) {
  const tree: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    const parts = key.split(".");
    let node = tree;
    for (const p of parts.slice(0, -1)) node = (node[p] ??= {}) as Record<string, unknown>;
    node[parts[parts.length - 1]] = value;
  }
  return (key: string) => tree[key];
}

/** The defaults VS Code would report: every contributed property's default. */
function contributedDefaults(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of buildConfigurationContribution(DETECTOR_DEFINITIONS)) {
    for (const [k, schema] of Object.entries(c.properties)) out[k.slice("loopSentinel.".length)] = schema.default;
  }
  return out;
}

describe("shell settings → engine config", () => {
  it("the contributed defaults give the engine's defaults, with no warning", () => {
    const s = readShellSettings(reader(contributedDefaults()));
    assert.deepEqual(s.warnings, []);
    assert.deepEqual(s.engine, defaultConfig());
    assert.equal(s.actionPolicy, "automatic");
    assert.equal(s.notifications, true);
  });

  it("maps mode, policy, idle minutes and a detector threshold", () => {
    const s = readShellSettings(reader({ ...contributedDefaults(), mode: "warnOnly", actionPolicy: "ask", idleResetMinutes: 5, "sameToolCall.warnAt": 2 }));
    assert.deepEqual(s.warnings, []);
    assert.equal(s.engine.mode, "warnOnly");
    assert.equal(s.actionPolicy, "ask");
    assert.equal(s.engine.idleResetMs, 5 * 60_000);
    assert.equal(s.engine.detectors["tool-repeat"].warnAt, 2);
  });

  it("an invalid value is named in a warning and keeps its default", () => {
    const s = readShellSettings(reader({ ...contributedDefaults(), "sameToolCall.warnAt": -1, mode: "loud", actionPolicy: 3, idleResetMinutes: "soon", notifications: "yes" }));
    const def = defaultConfig();
    assert.equal(s.engine.detectors["tool-repeat"].warnAt, def.detectors["tool-repeat"].warnAt);
    assert.equal(s.engine.mode, "intervene");
    assert.equal(s.actionPolicy, "automatic");
    assert.equal(s.engine.idleResetMs, def.idleResetMs);
    assert.equal(s.notifications, true);
    for (const name of ["loopSentinel.sameToolCall.warnAt", "loopSentinel.mode", "loopSentinel.actionPolicy", "loopSentinel.idleResetMinutes", "loopSentinel.notifications"]) {
      assert.ok(s.warnings.some((w) => w.startsWith(name + ":")), `warning for ${name}: ${s.warnings.join(" | ")}`);
    }
  });

  it("per-tool overrides, tool names and guidance texts pass through; empty guidance means the built-in text", () => {
    const s = readShellSettings(reader({
      perTool: { read_command_output: { exempt: true }, execute_command: { warnAt: 5 } },
      toolNames: { read: ["mcp_read_doc"] },
      guidance: { "tool-repeat": "Stop: {summary}", "tool-cycle": "" },
    }));
    assert.deepEqual(s.warnings, []);
    assert.deepEqual(s.engine.perTool, { read_command_output: { exempt: true }, execute_command: { warnAt: 5 } });
    assert.deepEqual(s.engine.toolNames, { read: ["mcp_read_doc"] });
    assert.deepEqual(s.engine.guidance, { "tool-repeat": "Stop: {summary}" });
  });
});

describe("package.json contributes", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));

  it("configuration is in sync with the engine's detectors (run `npm run gen-settings` if not)", () => {
    assert.deepEqual(pkg.contributes.configuration, JSON.parse(JSON.stringify(buildConfigurationContribution(DETECTOR_DEFINITIONS))));
  });

  it("every detector has enabled and its three rungs as settings, with the engine's defaults", () => {
    const props = Object.assign({}, ...pkg.contributes.configuration.map((c: { properties: object }) => c.properties));
    for (const d of DETECTOR_DEFINITIONS) {
      for (const [param, value] of Object.entries(d.defaults)) {
        assert.equal(props[`loopSentinel.${detectorSettingsName(d)}.${param}`]?.default, value, `${d.id}.${param}`);
      }
    }
  });

  it("every command is contributed with the Loop Sentinel category", () => {
    const contributed = pkg.contributes.commands.map((c: { command: string; title: string; category: string }) => [c.command, c.title, c.category]);
    const expected = Object.entries(COMMANDS).map(([k, id]) => [id, COMMAND_TITLES[k as keyof typeof COMMANDS], "Loop Sentinel"]);
    assert.deepEqual(contributed, expected);
  });
});

describe("per-host action policy", () => {
  it("asks first on Cline by default, whatever the global policy, and obeys its own setting", () => {
    const read = (values: Record<string, unknown>) => readShellSettings((k) => values[k]);
    assert.equal(read({ actionPolicy: "automatic" }).hostPolicies.cline, "ask");
    assert.equal(read({ "cline.actionPolicy": "automatic" }).hostPolicies.cline, "automatic");
    const bad = read({ "cline.actionPolicy": "sometimes" });
    assert.equal(bad.hostPolicies.cline, "ask");
    assert.ok(bad.warnings.some((w) => w.startsWith("loopSentinel.cline.actionPolicy")));
  });
});

describe("detector settings under one name (issue 36, point 5)", () => {
  it("each detector's settings key is its plain name, the same as its settings group, card and panel row", () => {
    const names = DETECTOR_DEFINITIONS.map((d) => detectorSettingsName(d));
    assert.equal(new Set(names).size, names.length, "distinct keys");
    assert.equal(detectorSettingsName(DETECTOR_DEFINITIONS.find((d) => d.id === "tool-repeat")!), "sameToolCall");
    assert.equal(detectorSettingsName(DETECTOR_DEFINITIONS.find((d) => d.id === "stream-repeat")!), "repeatedPassage");
    for (const c of buildConfigurationContribution(DETECTOR_DEFINITIONS).slice(1, -1)) {
      // VS Code titles a setting by its key ("sameToolCall.warnAt" → "Same Tool Call: Warn At"): the words of the group's title.
      const key = Object.keys(c.properties)[0].split(".")[1];
      const wordified = key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
      assert.equal(wordified, c.title.toLowerCase().replace(/-/g, " "), `${key} reads as its group "${c.title}"`);
      assert.doesNotMatch(Object.keys(c.properties).join(" "), /detectors\.|-repeat|-failure|-retry/);
    }
  });

  it("an old key (detectors.<id>.<param>) is still read where the new one is not set, and said", () => {
    const s = readShellSettings(reader({ ...contributedDefaults(), "detectors.tool-repeat.warnAt": 4, "detectors.stream-repeat.enabled": false }));
    assert.equal(s.engine.detectors["tool-repeat"].warnAt, 4);
    assert.equal(s.engine.detectors["stream-repeat"].enabled, false);
    assert.deepEqual(s.legacyRead.sort(), ["loopSentinel.detectors.stream-repeat.enabled", "loopSentinel.detectors.tool-repeat.warnAt"]);
    const both = readShellSettings(reader({ ...contributedDefaults(), "sameToolCall.warnAt": 2, "detectors.tool-repeat.warnAt": 4 }));
    assert.equal(both.engine.detectors["tool-repeat"].warnAt, 2, "the new key wins where it is set");
  });

  it("an old value of the wrong shape for a known detector is left alone, never a crash", () => {
    const s = readShellSettings(reader({ ...contributedDefaults(), "detectors.tool-repeat": 5 }));
    assert.equal(s.engine.detectors["tool-repeat"].warnAt, defaultConfig().detectors["tool-repeat"].warnAt);
  });

  it("a hostile old settings object reads nothing odd", () => {
    const s = readShellSettings((key) => (key === "detectors" ? JSON.parse('{"__proto__": {"warnAt": 1}, "tool-repeat": {"constructor": 1}}') : undefined));
    assert.deepEqual(s.engine.detectors, defaultConfig().detectors);
  });
});

describe("dropdowns show words (issue 36, point 5)", () => {
  it("every enum setting has a label for each value", () => {
    for (const c of buildConfigurationContribution(DETECTOR_DEFINITIONS)) {
      for (const [key, schema] of Object.entries(c.properties)) {
        if (!Array.isArray(schema.enum)) continue;
        const labels = schema.enumItemLabels as string[] | undefined;
        assert.ok(labels && labels.length === (schema.enum as unknown[]).length, `${key} has enumItemLabels`);
        for (const l of labels) assert.match(l, /^[A-Z][a-z]+( [a-z]+)*$/, `${key}: "${l}" is words, not a value`);
      }
    }
  });
});

describe("the new detector keys outside VS Code (issue 36, point 5)", () => {
  it("the CLI's --config reads a settings.json with the new names, and the old ones", async () => {
    const { loadCliConfig } = await import("../../src/cli/loadConfig");
    const os = await import("node:os");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-cfg-"));
    try {
      const file = path.join(dir, "settings.json");
      fs.writeFileSync(file, JSON.stringify({ "loopSentinel.sameToolCall.warnAt": 4, "loopSentinel.detectors.tool-failure.warnAt": 2, "other.key": 1 }));
      const warnings: string[] = [];
      const config = loadCliConfig(file, [], (w) => warnings.push(w));
      assert.equal(config.detectors["tool-repeat"].warnAt, 4);
      assert.equal(config.detectors["tool-failure"].warnAt, 2);
      assert.deepEqual(warnings, []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the Kilo / opencode plugin's settings file reads the new names", async () => {
    const { settingsFromJson } = await import("../../src/hosts/opencode/settingsFile");
    const s = settingsFromJson({ "loopSentinel.repeatedPassage.enabled": false, "loopSentinel.sameToolCall.warnAt": 4 });
    assert.equal(s.engine.detectors["stream-repeat"].enabled, false);
    assert.equal(s.engine.detectors["tool-repeat"].warnAt, 4);
    assert.deepEqual(s.warnings, []);
  });
});
