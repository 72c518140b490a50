/** Tool loop classes of issue 16 and their look-alikes: written on the tool half's branch (issue16b). */
import type { CaseGenerator } from "./types";

export const toolClasses: CaseGenerator[] = [];
