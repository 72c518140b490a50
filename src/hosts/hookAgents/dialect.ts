/**
 * What Claude Code, the GitHub Copilot CLI and Codex hand a tool-call hook on stdin, and what
 * each reads back on stdout. Captured from the real CLIs (Claude Code 2.1.332, Copilot CLI
 * 1.0.102, Codex 0.171.0; samples in test/fixtures/hook-agents/).
 *
 * - Claude Code: `{session_id, transcript_path, cwd, hook_event_name, tool_name, tool_input,
 *   tool_use_id}`, PostToolUse adds `tool_response`. Deny: `hookSpecificOutput.permissionDecision`
 *   "deny" with a reason (the model reads it as the tool's error); context after the result:
 *   `hookSpecificOutput.additionalContext`; `continue:false` ends the run (the call still runs
 *   unless it is denied too).
 * - Copilot CLI, camelCase keys (`preToolUse`, ...): `{sessionId, timestamp, cwd, toolName,
 *   toolArgs}`, postToolUse adds `toolResult {resultType, textResultForLlm}`; permissionRequest
 *   `{hookName, sessionId, toolName, toolInput}`. No call id, no transcript path. Flat output:
 *   `{permissionDecision, permissionDecisionReason}`, `{additionalContext}`; `continue:false` is
 *   ignored, and only a permissionRequest answer `{behavior:"deny", message, interrupt:true}` ends
 *   the run. A call refused in preToolUse never reaches permissionRequest.
 * - Copilot CLI, PascalCase keys (or a project's `.claude/settings.json`): Claude's shape, no
 *   transcript path; Claude's output is accepted, but nothing ends the run.
 * - Codex: Claude's shape plus `turn_id` and `model`; its shell tool shows as `Bash`
 *   `{command}`, `tool_response` is a string. Deny and context as Claude's; no output ends a run.
 */
import { isRecord } from "../../engine/json";

export type AgentName = "claude" | "copilot" | "codex";
export const AGENT_NAMES: readonly AgentName[] = ["claude", "copilot", "codex"];
export const AGENT_LABELS: Record<AgentName, string> = { claude: "Claude Code", copilot: "GitHub Copilot CLI", codex: "Codex" };

/** Which hook point a call comes from. */
export type HookPoint = "pre" | "post" | "permission";

/** One hook call, whichever agent made it. */
export interface AgentCall {
  agent: AgentName;
  point: HookPoint;
  sessionId: string;
  /** Codex: the user turn (a new one starts the counts afresh, as a new user message does). */
  turnId?: string;
  /** Claude and Codex give the model's call id; Copilot does not. */
  toolCallId?: string;
  toolName: string;
  input: Record<string, unknown>;
  /** post only: how the call went. */
  result?: { ok: boolean; text: string };
  /** Claude and Codex: the session's transcript file, written as the run goes. */
  transcriptPath?: string;
  /** The answer must be in Claude's shape (Claude, Codex, Copilot's PascalCase hooks). */
  claudeShaped: boolean;
}

/** What Loop Sentinel decided for this hook call, before it is put in the agent's words. */
export interface Verdict {
  action: "allow" | "warn" | "block" | "stop";
  message?: string;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

function inputOf(v: unknown): Record<string, unknown> {
  if (isRecord(v)) return v;
  if (typeof v === "string") {
    try { const parsed = JSON.parse(v); if (isRecord(parsed)) return parsed; } catch { /* a plain string */ }
    return { input: v };
  }
  return v === undefined || v === null ? {} : { input: v };
}

function responseText(v: unknown): string {
  if (typeof v === "string") return v;
  if (!isRecord(v)) return v === undefined || v === null ? "" : JSON.stringify(v);
  const parts = [v.stdout, v.stderr, v.output, v.content, v.textResultForLlm].filter((x): x is string => typeof x === "string" && x !== "");
  return parts.length > 0 ? parts.join("\n") : JSON.stringify(v);
}

/** Whether a Claude-shaped tool response reports a failure (an error field, a non-zero exit, an interruption). */
function responseOk(v: unknown): boolean {
  if (!isRecord(v)) return true;
  if (v.is_error === true || v.isError === true || v.interrupted === true || v.success === false) return false;
  const code = v.exitCode ?? v.exit_code ?? v.returnCode;
  return !(typeof code === "number" && code !== 0);
}

const SHELL_TRAILER = /\n?<shellId: [^>]*>\s*$/;

const POINT_OF: Record<string, HookPoint> = {
  PreToolUse: "pre", PostToolUse: "post", preToolUse: "pre", postToolUse: "post", permissionRequest: "permission", PermissionRequest: "permission",
  pre: "pre", post: "post", permission: "permission",
};

/**
 * Parses a hook's stdin. `pointArg` is the hook point named on the command line (Copilot's
 * camelCase pre and post inputs do not say which they are). Undefined for anything that is not a
 * tool call we can name: the hook then lets it through.
 */
export function parseAgentCall(agent: AgentName, pointArg: string | undefined, text: string): AgentCall | undefined {
  let doc: unknown;
  try { doc = JSON.parse(text); } catch { return undefined; }
  if (!isRecord(doc)) return undefined;
  const snake = str(doc.tool_name) !== undefined;
  const point = POINT_OF[str(doc.hook_event_name) ?? str(doc.hookName) ?? pointArg ?? ""] ?? (doc.toolResult !== undefined || doc.tool_response !== undefined ? "post" : undefined);
  if (!point) return undefined;
  if (snake) {
    const sessionId = str(doc.session_id);
    const toolName = str(doc.tool_name);
    if (!sessionId || !toolName) return undefined;
    const call: AgentCall = { agent, point, sessionId, toolName, input: inputOf(doc.tool_input), claudeShaped: true };
    const id = str(doc.tool_use_id);
    if (id) call.toolCallId = id;
    const turn = str(doc.turn_id);
    if (turn) call.turnId = turn;
    const transcript = str(doc.transcript_path);
    if (transcript) call.transcriptPath = transcript;
    if (point === "post") call.result = { ok: responseOk(doc.tool_response), text: responseText(doc.tool_response) };
    return call;
  }
  const sessionId = str(doc.sessionId);
  const toolName = str(doc.toolName);
  if (!sessionId || !toolName) return undefined;
  const call: AgentCall = { agent, point, sessionId, toolName, input: inputOf(doc.toolArgs ?? doc.toolInput), claudeShaped: false };
  if (point === "post") {
    const r = isRecord(doc.toolResult) ? doc.toolResult : {};
    let text = responseText(r.textResultForLlm ?? r);
    let ok = r.resultType === undefined || r.resultType === "success";
    // Copilot's shell numbers each run in a trailer ("<shellId: 7 completed with exit code 0>"):
    // bookkeeping, not output; identical runs must read identical. Its exit code is the outcome.
    const trailer = SHELL_TRAILER.exec(text);
    if (trailer) {
      const code = /exit code (-?\d+)/.exec(trailer[0]);
      text = text.slice(0, trailer.index);
      if (code && code[1] !== "0") ok = false;
    }
    call.result = { ok, text };
  }
  return call;
}

/** The text the model reads, wherever the agent puts it (after "hook error:", "Denied by preToolUse hook:", ...). */
export function modelText(message: string): string {
  return /^Loop Sentinel\b/.test(message) ? message : `Loop Sentinel: ${message}`;
}

/** The verdict in the agent's words; undefined means print nothing (the call goes ahead unchanged). */
export function agentOutput(call: AgentCall, v: Verdict): Record<string, unknown> | undefined {
  if (v.action === "allow" || !v.message) return undefined;
  const text = modelText(v.message);
  if (call.point === "permission") {
    // Copilot only: the one answer that ends its run.
    return v.action === "stop" ? { behavior: "deny", message: text, interrupt: true } : undefined;
  }
  if (call.point === "pre") {
    if (v.action === "warn") return undefined; // context goes after the result (post)
    const deny = call.claudeShaped
      ? { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: text } }
      : { permissionDecision: "deny", permissionDecisionReason: text };
    // Claude ends the run on continue:false, and runs the call anyway unless it is denied as well.
    if (v.action === "stop" && call.agent === "claude") return { ...deny, continue: false, stopReason: text };
    return deny;
  }
  const context = call.claudeShaped
    ? { hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: text } }
    : { additionalContext: text };
  if (v.action === "stop" && call.agent === "claude") return { ...context, continue: false, stopReason: text };
  return context;
}
