/**
 * The `contributes.configuration` of package.json, generated from the engine's detector list so
 * that every detector and threshold has a setting. `npm run gen-settings` writes it; a unit test
 * checks that package.json matches. No vscode import: the generator runs in plain Node.
 */
import type { DetectorDefinition } from "../engine/detector";

export const SETTINGS_SECTION = "loopSentinel";

type JsonSchema = Record<string, unknown>;

export { detectorSettingsName } from "../engine/detectors";
import { detectorSettingsName } from "../engine/detectors";

/** Where the detector settings lived before (`loopSentinel.detectors.<id>.<param>`): read where the new key is not set. */
export const LEGACY_DETECTORS_KEY = "detectors";

export interface ConfigurationCategory {
  id: string;
  title: string;
  order: number;
  properties: Record<string, JsonSchema>;
}

/** The steps of the ladder, as each detector's Warn At / Block At / Stop At describe them. */
function rungDescription(d: DetectorDefinition, rung: "warnAt" | "blockAt" | "stopAt", value: number | boolean): string {
  const unit = d.strength.unit;
  const example = `Example: \`${value}\` (the default)`;
  switch (rung) {
    case "warnAt":
      return `**Warn** the agent at this many ${unit}: it gets a message saying what repeats and what to do instead. \`0\` = never warn. ${example}${value === 0 ? ": this detector does not warn, its first step is Block At." : ` warns when the count reaches ${value}.`}`;
    case "blockAt":
      return d.channel === "stream"
        ? `**Abort the response** at this many ${unit}: the looping answer is cut off and the agent is asked to go on differently. \`0\` = never abort. ${example} aborts at the ${value === 1 ? "first catch" : `count ${value}`}.`
        : `**Refuse the call** at this many ${unit}: the repeated call is not run and the agent gets the advice as its answer (where the agent cannot refuse a call, it is warned). \`0\` = never refuse. ${example} refuses the call that brings the count to ${value}.`;
    case "stopAt":
      return `**Stop the task** and hand it back to you at this many ${unit}. \`0\` = never stop. ${example} stops ${d.channel === "stream" && value === 2 ? "the task when the same passage is caught a second time" : `when the count reaches ${value}`}.`;
  }
}

/** Marks a fine-tuning knob in its description and lets `@tag:tuning` find them all. */
const TUNING_PREFIX = "*Tuning.* ";
const TUNING_TAGS = ["tuning"];

/** What a parameter without a description gets: the settings test fails on it and names the detector's file. */
export const MISSING_DESCRIPTION = "No description yet.";

function detectorProperties(d: DetectorDefinition, order: number): Record<string, JsonSchema> {
  const props: Record<string, JsonSchema> = {};
  const prefix = `${SETTINGS_SECTION}.${detectorSettingsName(d)}`;
  let i = 0;
  for (const [param, value] of Object.entries(d.defaults)) {
    const key = `${prefix}.${param}`;
    const base = { order: order * 100 + i++ };
    if (param === "enabled") {
      props[key] = {
        ...base, type: "boolean", default: value,
        markdownDescription: `**${d.shortTitle}**: ${d.description}\n\nCounts *${d.strength.unit}*: ${d.strength.meaning} *Warn At*, *Block At* and *Stop At* say at which count each step comes.`,
      };
    } else if (param === "warnAt" || param === "blockAt" || param === "stopAt") {
      props[key] = { ...base, type: "integer", minimum: 0, default: value, markdownDescription: rungDescription(d, param, value) };
    } else {
      const info = Object.hasOwn(d.parameters, param) ? d.parameters[param] : undefined;
      const text = info?.description ?? MISSING_DESCRIPTION;
      const type = typeof value === "boolean" ? { type: "boolean" } : { type: "number", minimum: 0 };
      props[key] = { ...base, ...type, default: value, markdownDescription: info?.tuning ? TUNING_PREFIX + text : text, ...(info?.tuning ? { tags: TUNING_TAGS } : {}) };
    }
  }
  return props;
}

/** The settings most users change: whether it runs, what it may do, whether it asks, what it tells you. */
function generalProperties(): Record<string, JsonSchema> {
  const p = `${SETTINGS_SECTION}.`;
  return {
    [`${p}enabled`]: { order: 0, type: "boolean", default: true, description: "Watch agent sessions for loops. When off, nothing is detected and no task is touched." },
    [`${p}mode`]: {
      // enumItemLabels: the dropdown shows words, not the stored values (`warnOnly`).
      order: 1, type: "string", enum: ["intervene", "warnOnly"], enumItemLabels: ["Intervene", "Warn only"], default: "intervene",
      enumDescriptions: ["Warn, refuse repeated calls, abort looping responses and stop tasks, step by step.", "Only show warnings here; never send anything to the agent or touch its task."],
      markdownDescription: "What Loop Sentinel may do when it detects a loop. It acts in steps as a loop goes on: first it **warns** the agent with advice, then **refuses** the repeated call (or aborts a looping response), then **stops** the task and hands it back to you. Each detector counts in its own unit (the tool-call detectors count calls or attempts, the text detectors count catches of a looping passage) and has a number for each step: *Warn At*, *Block At*, *Stop At*.",
    },
    [`${p}actionPolicy`]: {
      order: 2, type: "string", enum: ["automatic", "ask"], enumItemLabels: ["Act by itself", "Ask first"], default: "automatic",
      enumDescriptions: ["Act on the agent's task as soon as a loop is detected.", "Ask you first, in a notification, before anything is sent to the agent or its task is touched."],
      description: "Whether actions on a task (guidance, refusing a call, aborting, stopping) need your OK first.",
    },
    [`${p}cline.actionPolicy`]: {
      order: 3, type: "string", enum: ["ask", "automatic"], enumItemLabels: ["Ask first", "Act by itself"], default: "ask",
      enumDescriptions: ["Ask you first: Cline cannot cancel one response and carry on, so every action lands in its task.", "Act on Cline tasks as soon as a loop is detected."],
      description: "Whether actions on Cline tasks need your OK first (overrides Action Policy for Cline).",
    },
    [`${p}cline.dataFolders`]: {
      order: 4, type: "array", items: { type: "string" }, default: [],
      markdownDescription: "Extra Cline data folders to watch, besides the extension's own storage and `~/.cline/data` (e.g. a CLI run with its own `HOME`). Each may hold `tasks/<id>/ui_messages.json` (classic) or `sessions/<id>/<id>.messages.json` (v4).",
    },
    [`${p}notifications`]: { order: 5, type: "boolean", default: true, description: "Show a notification when Loop Sentinel warns or intervenes (the status bar always shows it)." },
    [`${p}streamGuard.enabled`]: {
      order: 6, type: "boolean", default: false,
      markdownDescription: "Run the stream guard while VS Code runs: the requests of the agents in *Stream Guard: Agents* pass through a guard on this computer (127.0.0.1), which reads each answer as it streams, cuts a looping one mid-stream and adds guidance to the agent's next request. While it is on, each agent's endpoint setting points at the guard (Claude Code: `env.ANTHROPIC_BASE_URL` in `~/.claude/settings.json`; Codex: your provider's `base_url` in `~/.codex/config.toml`; the Copilot CLI: `COPILOT_PROVIDER_BASE_URL` in VS Code's terminals), and the guard sends the requests on to the endpoint that was set before. Turned off, or when VS Code closes, every file is put back as it was, byte for byte. Your API keys pass through untouched and nothing is logged or stored. User settings only.",
    },
    [`${p}streamGuard.agents`]: {
      order: 7, type: "array", default: ["claude", "codex", "copilot"], uniqueItems: true,
      items: { type: "string", enum: ["claude", "codex", "copilot"], enumDescriptions: ["Claude Code (CLI and VS Code extension): env.ANTHROPIC_BASE_URL in ~/.claude/settings.json", "Codex: the base_url of your own model provider in ~/.codex/config.toml", "Copilot CLI with your own provider (COPILOT_PROVIDER_BASE_URL), in VS Code's terminals"] },
      markdownDescription: "Which agents the stream guard points at itself while *Stream Guard: Enabled* is on. An agent without an endpoint to point (Codex on OpenAI's own provider, the Copilot CLI on GitHub's service) is left as it is, and the log says why.",
    },
  };
}

/** Knobs for fine-tuning: when counts start over, per-tool exceptions, unknown tools, the words sent. */
function tuningProperties(definitions: readonly DetectorDefinition[]): Record<string, JsonSchema> {
  const ids = definitions.map((d) => d.id);
  const p = `${SETTINGS_SECTION}.`;
  const rung = { type: "integer", minimum: 0 };
  return {
    [`${p}resetOnUserMessage`]: { order: 0, type: "boolean", default: true, description: "A new message from you starts every count afresh: the agent gets a clean slate with each instruction." },
    [`${p}idleResetMinutes`]: { order: 1, type: "number", minimum: 0, default: 30, markdownDescription: "Minutes without activity in a task after which every count starts afresh. `0` = never. Example: `30` (the default): a task resumed after lunch is judged anew." },
    [`${p}maxAbortsPerTurn`]: { order: 2, type: "integer", minimum: 0, default: 2, markdownDescription: "Looping responses aborted in one turn (between two messages of yours) before the next abort becomes a stop of the task. `0` = no limit. Example: `2` (the default): the third looping response of a turn stops the task." },
    [`${p}perTool`]: {
      order: 3, type: "object", default: {},
      markdownDescription: "Per-tool thresholds and exemptions, by the agent's tool name, e.g. `{ \"read_command_output\": { \"exempt\": true }, \"execute_command\": { \"warnAt\": 5 } }`. They override the detector's *Warn At*, *Block At* and *Stop At* for findings about that tool.",
      additionalProperties: {
        type: "object", additionalProperties: false,
        properties: { warnAt: rung, blockAt: rung, stopAt: rung, exempt: { type: "boolean", description: "Record calls of this tool but never intervene on them." } },
      },
    },
    [`${p}toolNames`]: {
      order: 4, type: "object", default: {},
      markdownDescription: "Extra tool names per kind, for agents or MCP servers Loop Sentinel does not know, e.g. `{ \"read\": [\"mcp_read_doc\"] }`.",
      additionalProperties: false,
      properties: Object.fromEntries(["read", "write", "edit", "search", "list", "command", "fetch"].map((k) => [k, { type: "array", items: { type: "string" } }])),
    },
    [`${p}guidance`]: {
      order: 5, type: "object", default: {},
      markdownDescription: "Guidance sent to the agent, per detector, replacing the built-in text for warnings, refusals and aborts. `{summary}`, `{suggestion}` and `{count}` are filled in, e.g. `{ \"tool-repeat\": \"Stop: {summary}. {suggestion}\" }`.",
      additionalProperties: false,
      properties: Object.fromEntries(ids.map((id) => [id, { type: "string" }])),
    },
  };
}

/**
 * Settings only the user decides (user or remote settings, never a workspace's): whether the guard
 * runs, what it may do and ask, the text it sends to the agent, and which folders it reads. A cloned
 * repository's `.vscode/settings.json` must not switch the guard off or put words in the agent's mouth.
 */
export const USER_ONLY_SETTINGS: ReadonlySet<string> = new Set(["enabled", "mode", "actionPolicy", "cline.actionPolicy", "cline.dataFolders", "guidance", "streamGuard.enabled", "streamGuard.agents"]);

/**
 * One group per detector, titled with its name; a group's id is its settings' key prefix, so the
 * Settings editor titles each setting by its own name ("Warn At"), not by the key's ids.
 */
export function buildConfigurationContribution(definitions: readonly DetectorDefinition[]): ConfigurationCategory[] {
  const general = generalProperties();
  const tuning = tuningProperties(definitions);
  for (const key of USER_ONLY_SETTINGS) {
    const full = `${SETTINGS_SECTION}.${key}`;
    const group = full in general ? general : tuning;
    group[full] = { ...group[full], scope: "machine" };
  }
  const categories: ConfigurationCategory[] = [{ id: `${SETTINGS_SECTION}.general`, title: "General", order: 0, properties: general }];
  definitions.forEach((d, i) => {
    categories.push({ id: `${SETTINGS_SECTION}.${detectorSettingsName(d)}`, title: d.shortTitle, order: i + 1, properties: detectorProperties(d, i + 1) });
  });
  categories.push({ id: `${SETTINGS_SECTION}.tuning`, title: "Tuning", order: definitions.length + 1, properties: tuning });
  return categories;
}

/**
 * package.json's `capabilities.untrustedWorkspaces`: in Restricted Mode every Loop Sentinel setting
 * is taken from the user's settings only (thresholds at 0, exemptions or tool lists from a workspace
 * could switch detection off as surely as `enabled`). Trusted workspaces may tune thresholds.
 */
export function buildUntrustedWorkspaces(definitions: readonly DetectorDefinition[]): Record<string, unknown> {
  const keys = buildConfigurationContribution(definitions).flatMap((c) => Object.keys(c.properties));
  return {
    supported: "limited",
    description: "In Restricted Mode Loop Sentinel keeps watching, with your user settings only: a workspace cannot switch it off, loosen its thresholds or change the guidance it sends to the agent.",
    restrictedConfigurations: keys,
  };
}
