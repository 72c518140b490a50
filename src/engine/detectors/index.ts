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
