/**
 * The part of Roo Code's exported API (`RooCodeAPI` in `@roo-code/types`) that Loop Sentinel uses,
 * and the duck-typing check that recognises it in any extension's exports (Roo Code, Roo Code
 * Nightly, Kilo Code 4–5, rebrands). No vscode import.
 */

export type RooListener = (...args: unknown[]) => void;

export interface RooApiLike {
  on(event: string, listener: RooListener): unknown;
  off?(event: string, listener: RooListener): unknown;
  removeListener?(event: string, listener: RooListener): unknown;
  startNewTask(options: { text?: string }): Promise<string>;
  cancelCurrentTask(): Promise<void>;
  sendMessage(message?: string, images?: string[]): Promise<void>;
  getCurrentTaskStack(): string[];
  isTaskInHistory?(taskId: string): Promise<boolean>;
  resumeTask?(taskId: string): Promise<void>;
  isReady?(): boolean;
  getConfiguration?(): Record<string, unknown>;
  /** Approves the waiting ask, through the chat view (no text). */
  pressPrimaryButton?(): Promise<void>;
  /** Zoo Code: approves the waiting ask without the chat view. */
  approveCurrentAsk?(): unknown;
  deleteQueuedMessage?(messageId: string): unknown;
}

/** Methods an export must have to be driven as a Roo host (events in, cancel/guide out). */
const REQUIRED_METHODS = ["on", "startNewTask", "cancelCurrentTask", "sendMessage", "getCurrentTaskStack"] as const;

/** Why these exports are not a usable Roo API, or undefined when they are. */
export function rooApiProblem(exports: unknown): string | undefined {
  if (exports === undefined || exports === null) return "it exports no API";
  if (typeof exports !== "object" && typeof exports !== "function") return "its exports are not an object";
  const o = exports as Record<string, unknown>;
  const missing = REQUIRED_METHODS.filter((m) => typeof o[m] !== "function");
  if (missing.length === REQUIRED_METHODS.length) return "it exports no Roo-compatible API";
  if (missing.length) return `its API lacks ${missing.join(", ")} (changed API?)`;
  if (typeof o.off !== "function" && typeof o.removeListener !== "function") return "its API cannot remove event listeners (changed API?)";
  return undefined;
}

export function isRooApi(exports: unknown): exports is RooApiLike {
  return rooApiProblem(exports) === undefined;
}
