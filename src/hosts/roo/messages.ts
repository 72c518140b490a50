/**
 * The parts of Roo Code's `ClineMessage` (and Kilo Code's copy of it) that Loop Sentinel reads,
 * as declared in `@roo-code/types` (`clineMessageSchema`). Only types: the runtime package is a
 * test-only dependency.
 */

import { isRecord } from "../../engine/json";

export interface RooMessage {
  /** Creation time; also the message's identity: every update of one message keeps it. */
  ts: number;
  type: "ask" | "say";
  ask?: string;
  say?: string;
  text?: string;
  images?: string[];
  /** true: still streaming; false: the streamed message is complete; absent: created complete. */
  partial?: boolean;
  isAnswered?: boolean;
  isProtected?: boolean;
}

export interface RooMessageEvent {
  taskId: string;
  action: "created" | "updated";
  message: RooMessage;
}

/** `ClineApiReqInfo`, the JSON in an `api_req_started` message's text. */
export interface RooApiRequestInfo {
  apiProtocol?: string;
  tokensIn?: number;
  tokensOut?: number;
  cacheWrites?: number;
  cacheReads?: number;
  cost?: number;
  cancelReason?: string;
  streamingFailedMessage?: string;
}

/** Asks that approve a tool call; answering them with text refuses the call. */
export const APPROVAL_ASKS: ReadonlySet<string> = new Set(["tool", "command", "use_mcp_server"]);
/** Asks after a cancel (the task can be resumed with a message). */
export const RESUME_ASKS: ReadonlySet<string> = new Set(["resume_task", "resume_completed_task"]);

/**
 * A copy of the fields we read. Roo emits the live object it keeps mutating; strings are immutable,
 * so copying the fields (not the characters) is a full snapshot, in time independent of the text.
 * Returns undefined for something that is not a message.
 */
export function snapshotMessage(value: unknown): RooMessage | undefined {
  if (!isRecord(value)) return undefined;
  const { ts, type } = value;
  if (typeof ts !== "number" || !Number.isFinite(ts) || (type !== "ask" && type !== "say")) return undefined;
  const m: RooMessage = { ts, type };
  if (typeof value.ask === "string") m.ask = value.ask;
  if (typeof value.say === "string") m.say = value.say;
  if (typeof value.text === "string") m.text = value.text;
  if (Array.isArray(value.images)) m.images = value.images.filter((i): i is string => typeof i === "string");
  if (typeof value.partial === "boolean") m.partial = value.partial;
  if (typeof value.isAnswered === "boolean") m.isAnswered = value.isAnswered;
  if (typeof value.isProtected === "boolean") m.isProtected = value.isProtected;
  return m;
}

export function snapshotMessageEvent(value: unknown): RooMessageEvent | undefined {
  if (!isRecord(value)) return undefined;
  const { taskId, action } = value;
  if (typeof taskId !== "string" || (action !== "created" && action !== "updated")) return undefined;
  const message = snapshotMessage(value.message);
  return message ? { taskId, action, message } : undefined;
}

export function parseJsonObject(text: string | undefined): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return isRecord(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

export function parseApiRequestInfo(text: string | undefined): RooApiRequestInfo {
  const o = parseJsonObject(text) ?? {};
  const num = (k: string) => (typeof o[k] === "number" && Number.isFinite(o[k]) ? (o[k] as number) : undefined);
  const str = (k: string) => (typeof o[k] === "string" ? (o[k] as string) : undefined);
  return {
    apiProtocol: str("apiProtocol"),
    tokensIn: num("tokensIn"),
    tokensOut: num("tokensOut"),
    cacheWrites: num("cacheWrites"),
    cacheReads: num("cacheReads"),
    cost: num("cost"),
    cancelReason: str("cancelReason"),
    streamingFailedMessage: str("streamingFailedMessage"),
  };
}
