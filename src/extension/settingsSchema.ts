/**
 * The `contributes.configuration` of package.json, generated from the engine's detector list so
 * that every detector and threshold has a setting. `npm run gen-settings` writes it; a unit test
 * checks that package.json matches. No vscode import: the generator runs in plain Node.
 */
import type { DetectorDefinition } from "../engine/detector";

export const SETTINGS_SECTION = "loopSentinel";

type JsonSchema = Record<string, unknown>;

export interface ConfigurationCategory {
  id: string;
  title: string;
  order: number;
  properties: Record<string, JsonSchema>;
}

const RUNG_TEXT: Record<string, string> = {
  warnAt: "Strength at which the agent gets a warning with guidance. 0 switches this rung off.",
  blockAt: "Strength at which the repeated tool call is refused (stream detectors: the response is aborted). 0 switches this rung off.",
  stopAt: "Strength at which the task is stopped and handed back to you. 0 switches this rung off.",
};

/** "minLineLength" → "Min line length". */
export function humanise(param: string): string {
  const words = param.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function detectorProperties(d: DetectorDefinition, order: number): Record<string, JsonSchema> {
  const props: Record<string, JsonSchema> = {};
  const prefix = `${SETTINGS_SECTION}.detectors.${d.id}`;
  let i = 0;
  for (const [param, value] of Object.entries(d.defaults)) {
    const key = `${prefix}.${param}`;
    const base = { order: order * 100 + i++ };
    if (param === "enabled") {
      props[key] = { ...base, type: "boolean", default: value, markdownDescription: `**${d.title}**: ${d.description}` };
    } else if (typeof value === "boolean") {
      props[key] = { ...base, type: "boolean", default: value, description: `${d.title}: ${humanise(param)}.` };
    } else if (param in RUNG_TEXT) {
      props[key] = { ...base, type: "integer", minimum: 0, default: value, description: `${d.title}: ${RUNG_TEXT[param]}` };
    } else {
      props[key] = { ...base, type: "number", minimum: 0, default: value, description: `${d.title}: ${humanise(param)} (detector parameter).` };
    }
  }
  return props;
}

function generalProperties(definitions: readonly DetectorDefinition[]): Record<string, JsonSchema> {
  const ids = definitions.map((d) => d.id);
  const p = `${SETTINGS_SECTION}.`;
  const rung = { type: "integer", minimum: 0 };
  return {
    [`${p}enabled`]: { order: 0, type: "boolean", default: true, description: "Watch agent sessions for loops. When off, nothing is detected and no task is touched." },
    [`${p}mode`]: {
      order: 1, type: "string", enum: ["intervene", "warnOnly"], default: "intervene",
      enumDescriptions: ["Warn, refuse repeated calls, abort looping responses and stop tasks, step by step.", "Only show warnings here; never send anything to the agent or touch its task."],
      description: "What Loop Sentinel may do when it detects a loop.",
    },
    [`${p}actionPolicy`]: {
      order: 2, type: "string", enum: ["automatic", "ask"], default: "automatic",
      enumDescriptions: ["Act on the agent's task as soon as a loop is detected.", "Ask you first, in a notification, before anything is sent to the agent or its task is touched."],
      description: "Whether actions on a task (guidance, refusing a call, aborting, stopping) need your OK first.",
    },
    [`${p}cline.actionPolicy`]: {
      order: 2, type: "string", enum: ["ask", "automatic"], default: "ask",
      enumDescriptions: ["Ask you first: Cline cannot cancel one response and carry on, so every action lands in its task.", "Act on Cline tasks as soon as a loop is detected."],
      description: "Whether actions on Cline tasks need your OK first (overrides Action Policy for Cline).",
    },
    [`${p}cline.dataFolders`]: {
      order: 2, type: "array", items: { type: "string" }, default: [],
      markdownDescription: "Extra Cline data folders to watch, besides the extension's own storage and `~/.cline/data` (e.g. a CLI run with its own `HOME`). Each may hold `tasks/<id>/ui_messages.json` (classic) or `sessions/<id>/<id>.messages.json` (v4).",
    },
    [`${p}resetOnUserMessage`]: { order: 3, type: "boolean", default: true, description: "A new message from you starts every count afresh." },
    [`${p}idleResetMinutes`]: { order: 4, type: "number", minimum: 0, default: 30, description: "Counts start afresh after this many minutes without activity in a task. 0 = never." },
    [`${p}maxAbortsPerTurn`]: { order: 5, type: "integer", minimum: 0, default: 2, description: "Looping responses aborted in one turn before the next abort becomes a stop. 0 = no limit." },
    [`${p}notifications`]: { order: 6, type: "boolean", default: true, description: "Show a notification when Loop Sentinel warns or intervenes (the status bar always shows it)." },
    [`${p}perTool`]: {
      order: 7, type: "object", default: {},
      markdownDescription: "Per-tool thresholds and exemptions, by the agent's tool name, e.g. `{ \"read_command_output\": { \"exempt\": true }, \"execute_command\": { \"warnAt\": 5 } }`. They override the detector's rungs for findings about that tool.",
      additionalProperties: {
        type: "object", additionalProperties: false,
        properties: { warnAt: rung, blockAt: rung, stopAt: rung, exempt: { type: "boolean", description: "Record calls of this tool but never intervene on them." } },
      },
    },
    [`${p}toolNames`]: {
      order: 8, type: "object", default: {},
      markdownDescription: "Extra tool names per kind, for agents or MCP servers Loop Sentinel does not know, e.g. `{ \"read\": [\"mcp_read_doc\"] }`.",
      additionalProperties: false,
      properties: Object.fromEntries(["read", "write", "edit", "search", "list", "command", "fetch"].map((k) => [k, { type: "array", items: { type: "string" } }])),
    },
    [`${p}guidance`]: {
      order: 9, type: "object", default: {},
      markdownDescription: "Guidance sent to the agent, per detector, replacing the built-in text for warnings, refusals and aborts. `{summary}`, `{suggestion}` and `{count}` are filled in.",
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
export const USER_ONLY_SETTINGS: ReadonlySet<string> = new Set(["enabled", "mode", "actionPolicy", "cline.actionPolicy", "cline.dataFolders", "guidance"]);

export function buildConfigurationContribution(definitions: readonly DetectorDefinition[]): ConfigurationCategory[] {
  const general = generalProperties(definitions);
  for (const key of USER_ONLY_SETTINGS) general[`${SETTINGS_SECTION}.${key}`] = { ...general[`${SETTINGS_SECTION}.${key}`], scope: "machine" };
  const categories: ConfigurationCategory[] = [{ id: "loopSentinel.general", title: "Loop Sentinel", order: 0, properties: general }];
  definitions.forEach((d, i) => {
    categories.push({ id: `loopSentinel.detector.${d.id}`, title: `Detector: ${d.title}`, order: i + 1, properties: detectorProperties(d, i + 1) });
  });
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
