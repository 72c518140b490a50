/**
 * Shapes of Cline's task files, as far as Loop Sentinel reads them (see hosts/cline.md):
 * classic `ui_messages.json` (extension v3, CLI 2.x) and v4 `<id>.messages.json` (extension v4, CLI 3.x).
 * Everything is optional: files from other Cline versions must degrade, not crash.
 */

export { isRecord } from "../../engine/json";

/** One entry of classic `ui_messages.json` (Cline's `ClineMessage`). */
export interface ClineMessage {
  ts?: number;
  type?: "ask" | "say" | string;
  ask?: string;
  say?: string;
  text?: string;
  reasoning?: string;
  partial?: boolean;
  commandCompleted?: boolean;
  modelInfo?: { providerId?: string; modelId?: string; mode?: string };
  /** Length of the API conversation history when the row was logged: rows of one response share it. */
  conversationHistoryIndex?: number;
}

/** The JSON text of a `say:"api_req_started"` message (Cline's `ClineApiReqInfo`). */
export interface ClineApiReqInfo {
  request?: string;
  tokensIn?: number;
  tokensOut?: number;
  cacheWrites?: number;
  cacheReads?: number;
  cost?: number;
  cancelReason?: string;
  streamingFailedMessage?: string;
}

/** The JSON text of a `say/ask:"tool"` message (Cline's `ClineSayTool`). */
export interface ClineSayTool {
  tool?: string;
  path?: string;
  diff?: string;
  content?: string;
  regex?: string;
  filePattern?: string;
  operationIsLocatedInWorkspace?: boolean;
  [key: string]: unknown;
}

/** A content block of a v4 session message (Anthropic style). */
export interface SessionContentBlock {
  type?: string;
  text?: string;
  thinking?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}

/** One entry of `messages[]` in a v4 `<id>.messages.json`. */
export interface SessionMessage {
  id?: string;
  role?: "user" | "assistant" | string;
  content?: string | SessionContentBlock[];
  ts?: number;
  modelInfo?: { id?: string; provider?: string };
  metrics?: { inputTokens?: number; outputTokens?: number; cacheReadTokens?: number; cacheWriteTokens?: number; cost?: number };
}

/** The whole v4 `<id>.messages.json`. */
export interface SessionFile {
  version?: number;
  sessionId?: string;
  messages?: SessionMessage[];
}

/** Asks where Cline waits for the user's reply (a `sendMessage` is taken as an answer). */
export const REPLY_ASKS: ReadonlySet<string> = new Set([
  "followup", "plan_mode_respond", "act_mode_respond", "completion_result", "resume_task",
  "resume_completed_task", "mistake_limit_reached", "api_req_failed",
]);

/** Asks where Cline waits for an approval (a `sendMessage` there rejects the call, with the text as feedback). */
export const APPROVAL_ASKS: ReadonlySet<string> = new Set([
  "tool", "command", "browser_action_launch", "use_mcp_server",
]);

/** Parses JSON text that may be absent or broken; undefined instead of an exception. */
export function parseJsonText(text: string | undefined): unknown {
  if (typeof text !== "string" || text === "") return undefined;
  try { return JSON.parse(text); } catch { return undefined; }
}
