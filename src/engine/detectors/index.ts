/** Every detector, in the order the session runs them. Add a detector here and nowhere else. */
import type { DetectorDefinition } from "../detector";
import { toolRepeat } from "./toolRepeat";

export const DETECTOR_DEFINITIONS: readonly DetectorDefinition[] = [
  toolRepeat,
];
