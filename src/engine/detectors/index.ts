/** Every detector, in the order the session runs them. Add a detector here and nowhere else. */
import type { DetectorDefinition } from "../detector";
import { toolRepeat } from "./toolRepeat";
import { toolFailure } from "./toolFailure";
import { editRetry } from "./editRetry";
import { searchSpiral } from "./searchSpiral";
import { toolCycle } from "./toolCycle";
import { fileReread } from "./fileReread";
import { toolProgress } from "./toolProgress";
import { streamRepeat } from "./streamRepeat";
import { lineRepeat } from "./lineRepeat";
import { nearDuplicate } from "./nearDuplicate";
import { listTemplate } from "./listTemplate";
import { stagnation } from "./stagnation";
import { textProgress } from "./textProgress";

export const DETECTOR_DEFINITIONS: readonly DetectorDefinition[] = [
  toolRepeat,
  toolFailure,
  editRetry,
  searchSpiral,
  toolCycle,
  fileReread,
  toolProgress,
  streamRepeat,
  lineRepeat,
  nearDuplicate,
  listTemplate,
  stagnation,
  textProgress,
];

/**
 * A detector's settings key, from its one name (shortTitle): "Same tool call" → `sameToolCall`, so
 * that VS Code's Settings editor titles its settings "Same Tool Call: Warn At" under the group "Same
 * tool call" (it titles a setting by its key). Until issue 36 the keys were `detectors.<id>.<param>`,
 * still read everywhere.
 */
export function detectorSettingsName(d: Pick<DetectorDefinition, "shortTitle">): string {
  const words = d.shortTitle.split(/[\s-]+/).filter(Boolean).map((w) => w.toLowerCase());
  return words.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join("");
}

/** The detector whose settings key this is (`sameToolCall` → tool-repeat), if any. */
export function detectorIdForSettingsName(name: string): DetectorDefinition["id"] | undefined {
  return DETECTOR_DEFINITIONS.find((d) => detectorSettingsName(d) === name)?.id;
}
