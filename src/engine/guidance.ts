/**
 * The words sent back to the model (and shown to the user) when a detector fires.
 * Templates are configurable per detector; {summary}, {suggestion} and {count} are filled in.
 */
import type { Action, DetectorId, Finding } from "./detector";

const DEFAULT_TEMPLATE: Record<Action, string> = {
  warn: "Loop Sentinel: {summary}. {suggestion}",
  block: "Loop Sentinel refused this call: {summary}. The earlier result is already in your context. {suggestion}",
  abort: "Loop Sentinel stopped your last response: {summary}. Do not repeat it. {suggestion}",
  stop: "Loop Sentinel stopped the task: {summary}. It kept repeating after earlier guidance. Please review and give the agent new direction.",
};

export function guidanceFor(finding: Finding, action: Action, templates: Partial<Record<DetectorId, string>>): string {
  const template = (action !== "stop" && templates[finding.detector]) || DEFAULT_TEMPLATE[action];
  return template
    .replace(/\{summary\}/g, finding.summary)
    .replace(/\{suggestion\}/g, finding.suggestion)
    .replace(/\{count\}/g, String(finding.count))
    .replace(/\.\s*\./g, ".");
}

/** Cuts a repeated span to something a person can read in a notification or panel. */
export function excerpt(text: string, max = 240): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : flat.slice(0, max - 1) + "…";
}
