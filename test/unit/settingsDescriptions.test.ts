/**
 * Settings that explain themselves: every setting Loop Sentinel contributes says what it changes,
 * in which unit, with an example, in words a user knows. A detector parameter added without a
 * description (in its detector's `parameters`, beside its defaults) fails here, naming the detector.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { DETECTOR_DEFINITIONS } from "../../src/engine/detectors";
import { settingsCommandFor } from "../../src/extension/settingsTab";
import { MISSING_DESCRIPTION, SETTINGS_SECTION, detectorSettingsName, buildConfigurationContribution, type ConfigurationCategory } from "../../src/extension/settingsSchema";

const ROOT = path.resolve(__dirname, "../../..");
const RUNGS = new Set(["enabled", "warnAt", "blockAt", "stopAt"]);

/** Words that carry no meaning of their own in a setting's text. */
const FILLER = new Set(("a an the of in on at to for by with and or is are be it its this that these those as from " +
  "detector detectors parameter parameters setting settings value number loop sentinel loopsentinel e g").split(" "));

/** The lower-case words of a text or a key ("pollsPerRepeat" → polls, per, repeat; "tool-repeat" → tool, repeat). */
function words(text: string): string[] {
  return text.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
}

/**
 * The words a description says beyond the setting's own name and its group's title: a placeholder
 * ("Tool-repeat: Polls per repeat (detector parameter).") says none.
 */
export function wordsBeyondName(key: string, groupTitle: string, description: string): string[] {
  const named = new Set([...words(key), ...words(groupTitle)]);
  return words(description).filter((w) => !named.has(w) && !FILLER.has(w) && !/^\d+$/.test(w));
}

/**
 * What the Settings editor puts before a setting's name: its key without the last part, less the
 * longest leading part it shares with its group's id (VS Code's trimCategoryForGroup).
 */
function settingsEditorCategory(key: string, groupId: string): string {
  const category = key.slice(0, key.lastIndexOf("."));
  const parts = groupId.split(".");
  for (let n = parts.length; n > 0; n--) {
    const head = parts.slice(0, n).join(".");
    if (category === head) return "";
    if (category.startsWith(head + ".")) return category.slice(head.length + 1);
  }
  return category;
}

function textOf(schema: Record<string, unknown>): string {
  return String(schema.markdownDescription ?? schema.description ?? "");
}

const packageJson = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
const sources: Array<[string, ConfigurationCategory[]]> = [
  ["package.json", packageJson.contributes.configuration],
  ["the generator", buildConfigurationContribution(DETECTOR_DEFINITIONS)],
];

describe("settings descriptions", () => {
  it("the check itself: a placeholder that restates the name fails, a real description passes", () => {
    assert.deepEqual(wordsBeyondName("loopSentinel.detectors.tool-repeat.pollsPerRepeat", "Identical tool calls", "Tool-repeat: Polls per repeat (detector parameter)."), []);
    assert.ok(wordsBeyondName("loopSentinel.idleResetMinutes", "Tuning", "Minutes without activity after which every count starts afresh. Example: `30`.").length >= 5);
  });

  for (const [source, categories] of sources) {
    it(`no description in ${source} only restates its setting's name`, () => {
      const thin: string[] = [];
      for (const c of categories) {
        for (const [key, schema] of Object.entries(c.properties)) {
          const beyond = wordsBeyondName(key, c.title, textOf(schema));
          if (beyond.length < 6 || textOf(schema).includes(MISSING_DESCRIPTION)) thin.push(`${key}: "${textOf(schema)}"`);
        }
      }
      assert.deepEqual(thin, [], "say what the setting changes, its unit and an example");
    });
  }

  it("every detector parameter is described beside its defaults, with an example, and marked as tuning or not", () => {
    const problems: string[] = [];
    for (const d of DETECTOR_DEFINITIONS) {
      for (const param of Object.keys(d.defaults)) {
        if (RUNGS.has(param)) continue;
        const info = Object.hasOwn(d.parameters, param) ? d.parameters[param] : undefined;
        if (!info) { problems.push(`${d.id}.${param}: no entry in the detector's \`parameters\` (src/engine/detectors)`); continue; }
        if (!/Example/.test(info.description)) problems.push(`${d.id}.${param}: no "Example:" in its description`);
        if (!/`[^`]+`|\bon\b|\boff\b/.test(info.description)) problems.push(`${d.id}.${param}: its example names no value`);
      }
      for (const param of Object.keys(d.parameters)) {
        if (!Object.hasOwn(d.defaults, param)) problems.push(`${d.id}.${param}: described but not a parameter (left over after a rename?)`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it("every detector says what its count counts, and its step settings use that unit", () => {
    for (const d of DETECTOR_DEFINITIONS) {
      assert.ok(d.strength.unit.length > 0 && d.strength.meaning.split(/\s+/).length >= 8, `${d.id}: say what one unit of its count is`);
      const group = buildConfigurationContribution(DETECTOR_DEFINITIONS).find((c) => c.id === `${SETTINGS_SECTION}.${detectorSettingsName(d)}`);
      assert.ok(group, `${d.id} has its own group`);
      for (const rung of ["warnAt", "blockAt", "stopAt"]) {
        assert.match(textOf(group.properties[`${SETTINGS_SECTION}.${detectorSettingsName(d)}.${rung}`]), new RegExp(`this many ${d.strength.unit}`), `${d.id}.${rung}`);
      }
    }
    // The text detectors count catches, the tool detectors calls or attempts: the two must not read alike.
    const units = (channel: string) => new Set(DETECTOR_DEFINITIONS.filter((d) => d.channel === channel).map((d) => d.strength.unit));
    for (const u of units("stream")) assert.ok(!units("tool").has(u), `"${u}" is used by stream and tool detectors alike`);
  });

  it("groups are titled by name (no ids, no \"Detector:\" prefix) and each detector group's id is its keys' prefix", () => {
    const ids = new Set<string>(DETECTOR_DEFINITIONS.map((d) => d.id));
    for (const c of buildConfigurationContribution(DETECTOR_DEFINITIONS)) {
      assert.doesNotMatch(c.title, /^Detector|Loop Sentinel/, c.title);
      for (const w of c.title.toLowerCase().split(/\s+/)) assert.ok(!ids.has(w), `${c.title} holds the id ${w}`);
      // The table of contents is about 170 px wide in a 1280 px window: longer titles are cut off.
      assert.ok(c.title.length <= 18, `"${c.title}" fits the settings table of contents`);
      // The Settings editor strips the group id from a key to title the setting: "Warn At", not "Detectors > Tool-repeat: Warn At".
      for (const key of Object.keys(c.properties)) {
        const category = settingsEditorCategory(key, c.id);
        assert.ok(!category.split(".").some((part) => ids.has(part) || part === "detectors"), `${key} is titled "${category}: ..." under group ${c.id}`);
      }
    }
  });

  it("the tuning knobs are marked and can be listed together (@tag:tuning)", () => {
    const all = Object.assign({}, ...buildConfigurationContribution(DETECTOR_DEFINITIONS).map((c) => c.properties)) as Record<string, Record<string, unknown>>;
    let tuning = 0;
    for (const d of DETECTOR_DEFINITIONS) {
      for (const [param, info] of Object.entries(d.parameters)) {
        const schema = all[`${SETTINGS_SECTION}.${detectorSettingsName(d)}.${param}`];
        if (!info.tuning) continue;
        tuning++;
        assert.match(textOf(schema), /^\*Tuning\.\*/, `${d.id}.${param}`);
        assert.deepEqual(schema.tags, ["tuning"]);
      }
    }
    assert.ok(tuning > 0);
  });
});

describe("Configure opens the tab that holds the main switches", () => {
  it("the Remote tab in a remote window (SSH, WSL, containers, code-server), the User tab in a local one", () => {
    // The switches are machine-scoped: in a remote window only the Remote tab can set them.
    const machineScoped = buildConfigurationContribution(DETECTOR_DEFINITIONS)[0].properties[`${SETTINGS_SECTION}.enabled`];
    assert.equal(machineScoped.scope, "machine");
    assert.deepEqual(settingsCommandFor("ssh-remote", "@ext:x.y"), ["workbench.action.openRemoteSettings", { query: "@ext:x.y" }]);
    assert.deepEqual(settingsCommandFor(undefined, "@ext:x.y"), ["workbench.action.openSettings", { query: "@ext:x.y" }]);
  });
});
