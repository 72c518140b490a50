/** Shared builders for the tool detectors' tests: events in the shapes Roo and Cline traces carry. */
import { defaultConfig } from "../../src/engine/config";
import type { DetectorId } from "../../src/engine/detector";
import type { TraceEvent } from "../../src/engine/events";
import { LoopSession, type Intervention } from "../../src/engine/session";

/** One model step with one tool call and its result. */
export const step = (id: string, name: string, input: Record<string, unknown>, ok: boolean, text: string): TraceEvent[] => [
  { t: "request" }, { t: "tool_call", id, name, input }, { t: "end" },
  ok ? { t: "tool_result", id, ok, output: text } : { t: "tool_result", id, ok, error: text },
];

/**
 * Replays events with only one detector switched on: the session acts once per event on the
 * highest rung, so with all detectors on a neighbour's verdict could hide the one under test.
 */
export function feedOnly(id: DetectorId, events: TraceEvent[]): Intervention[] {
  const config = defaultConfig();
  for (const other of Object.keys(config.detectors) as DetectorId[]) config.detectors[other].enabled = other === id;
  const s = new LoopSession(config);
  return events.flatMap((e) => s.push(e));
}
