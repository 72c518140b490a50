/** Runs a whole recorded session through a fresh LoopSession. */
import type { EngineConfig } from "./config";
import type { TraceEvent } from "./events";
import { LoopSession, type Intervention, type SessionStats } from "./session";

export interface ReplayResult {
  interventions: Intervention[];
  stats: SessionStats;
  /** Detector failures caught (a bug, never expected): the event still counted for the others. */
  faults: { count: number; first?: string };
}

export function replayEvents(events: readonly TraceEvent[], config?: EngineConfig): ReplayResult {
  const session = new LoopSession(config);
  const interventions: Intervention[] = [];
  for (const ev of events) for (const iv of session.push(ev)) interventions.push(iv);
  return { interventions, stats: session.stats(), faults: session.faults };
}
