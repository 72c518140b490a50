/**
 * What Claude Code, the GitHub Copilot CLI, Codex, Gemini CLI and Qwen Code hand a tool-call hook
 * on stdin, and what each reads back on stdout. Captured from the real CLIs (Claude Code 2.1.332,
 * Copilot CLI 1.0.102, Codex 0.171.0, Gemini CLI 0.61.0, Qwen Code 0.24.4; samples in
 * test/fixtures/hook-agents/).
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
 * - Gemini CLI: `BeforeTool` / `AfterTool` with Claude's field names but no call id (a call and its
 *   result are paired by name and input, as Copilot's); `tool_response` is `{llmContent,
 *   returnDisplay, error?}`; `BeforeAgent` (once per user prompt) has `prompt`. Deny: `{decision:
 *   "deny", reason}` (the model reads "Tool execution blocked: reason"); context:
 *   `hookSpecificOutput.additionalContext` (appended to the result in `<hook_context>`);
 *   `continue:false` ends the run without running the call.
 * - Qwen Code: Claude's shape and answers, plus `prompt_id` (one per user prompt: its turn) and
 *   `tool_call_id` (the model's call id); a call that fails reports to `PostToolUseFailure` with
 *   `error` instead of `tool_response`. No output ends a run (`continue:false` is one more refusal).
 */
import { isRecord } from "../../engine/json";

export type AgentName = "claude" | "copilot" | "codex" | "gemini" | "qwen";
export const AGENT_NAMES: readonly AgentName[] = ["claude", "copilot", "codex", "gemini", "qwen"];
export const AGENT_LABELS: Record<AgentName, string> = { claude: "Claude Code", copilot: "GitHub Copilot CLI", codex: "Codex", gemini: "Gemini CLI", qwen: "Qwen Code" };

/** The agents a hook answer can end the run of (the others: the stop rung refuses every further call of the turn). */
export function endsRun(agent: AgentName): boolean {
  return agent === "claude" || agent === "gemini";
}

/** Which hook point a call comes from; "prompt" is a user prompt (Gemini's BeforeAgent): no call, a new start. */
export type HookPoint = "pre" | "post" | "permission" | "prompt";

/** One hook call, whichever agent made it. */
export interface AgentCall {
  agent: AgentName;
  point: HookPoint;
  sessionId: string;
  /** Codex's turn id, Qwen's prompt id: the user turn (a new one starts the counts afresh, as a new user message does). */
  turnId?: string;
  /** Claude, Codex and Qwen give the model's call id; Copilot and Gemini do not. */
  toolCallId?: string;
  toolName: string;
  input: Record<string, unknown>;
  /** post only: how the call went. */
  result?: { ok: boolean; text: string };
  /** Claude, Codex, Gemini and Qwen: the session's file, written as the run goes. */
  transcriptPath?: string;
  /** The answer must be in Claude's shape (Claude, Codex, Qwen, Copilot's PascalCase hooks). */
  claudeShaped: boolean;
  /** The hook event as the agent named it, where the answer must name it back (Qwen's PostToolUseFailure). */
  event?: string;
  /** prompt: what the user asked. */
  prompt?: string;
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

/** The text of a Gemini-style `llmContent`: a string, a part or a list of parts. */
function partsText(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  const parts = Array.isArray(v) ? v : isRecord(v) ? [v] : [];
  const out: string[] = [];
  for (const p of parts) {
    if (typeof p === "string") out.push(p);
    else if (isRecord(p) && typeof p.text === "string") out.push(p.text);
  }
  return out.length > 0 ? out.join("\n") : undefined;
}

function responseText(v: unknown): string {
  if (typeof v === "string") return v;
  if (!isRecord(v)) return v === undefined || v === null ? "" : JSON.stringify(v);
  const llm = partsText(v.llmContent);
  if (llm !== undefined) return llm;
  const parts = [v.stdout, v.stderr, v.output, v.content, v.textResultForLlm].filter((x): x is string => typeof x === "string" && x !== "");
  return parts.length > 0 ? parts.join("\n") : JSON.stringify(v);
}

/** Whether a Claude-shaped tool response reports a failure (an error field, a non-zero exit, an interruption). */
function responseOk(v: unknown): boolean {
  if (!isRecord(v)) return true;
  if (v.is_error === true || v.isError === true || v.interrupted === true || v.success === false) return false;
  // Gemini's: `error` is set when the tool failed.
  if (v.error !== undefined && v.error !== null && v.error !== "") return false;
  const code = v.exitCode ?? v.exit_code ?? v.returnCode;
  return !(typeof code === "number" && code !== 0);
}

/**
 * Gemini CLI's and Qwen Code's shell result: "Output: ..." (Qwen: "Command: ...") and the tool's own
 * lines after it, wrapped by Gemini in `<untrusted_context>`. The process group and background ids
 * differ on every run, so identical runs would never read identical: they are dropped, and the
 * wrapper with them. The last "Exit Code: N" (N not 0) or "Signal: S" line says the command failed.
 */
export function shellEnvelope(text: string): { text: string; failed: boolean } | undefined {
  const body = text.replace(/^\s*<untrusted_context>\s*/, "").replace(/\s*<\/untrusted_context>\s*$/, "");
  if (!/^(?:Output|Command): /.test(body)) return undefined;
  const exits = [...body.matchAll(/^Exit Code: (-?\d+)\s*$/gm)];
  const signals = [...body.matchAll(/^Signal: (.+?)\s*$/gm)];
  const failed = (exits.length > 0 && exits[exits.length - 1][1] !== "0") ||
    (signals.length > 0 && !/^(?:\(none\)|0|null)$/.test(signals[signals.length - 1][1])) ||
    /^Command was (?:automatically )?cancelled\b/m.test(body);
  return { text: body.replace(/^(?:Process Group PGID|Background PIDs): .*$\n?/gm, "").replace(/\n+$/, ""), failed };
}

const SHELL_TRAILER = /\n?<shellId: [^>]*>\s*$/;

const POINT_OF: Record<string, HookPoint> = {
  PreToolUse: "pre", PostToolUse: "post", preToolUse: "pre", postToolUse: "post", permissionRequest: "permission", PermissionRequest: "permission",
  // Gemini CLI's names; Qwen's failed calls report apart.
  BeforeTool: "pre", AfterTool: "post", BeforeAgent: "prompt", PostToolUseFailure: "post",
  pre: "pre", post: "post", permission: "permission", prompt: "prompt",
};

/**
 * Parses a hook's stdin. `pointArg` is the hook point named on the command line (Copilot's
 * camelCase pre and post inputs do not say which they are). Undefined for anything that is not a
 * tool call (or a user prompt) we can name: the hook then lets it through.
 */
export function parseAgentCall(agent: AgentName, pointArg: string | undefined, text: string): AgentCall | undefined {
  let doc: unknown;
  try { doc = JSON.parse(text); } catch { return undefined; }
  if (!isRecord(doc)) return undefined;
  const snake = str(doc.tool_name) !== undefined || str(doc.session_id) !== undefined;
  const eventName = str(doc.hook_event_name) ?? str(doc.hookName);
  const point = POINT_OF[eventName ?? pointArg ?? ""] ?? (doc.toolResult !== undefined || doc.tool_response !== undefined ? "post" : undefined);
  if (!point) return undefined;
  if (snake) {
    const sessionId = str(doc.session_id);
    if (!sessionId) return undefined;
    const claudeShaped = agent !== "gemini";
    if (point === "prompt") {
      const call: AgentCall = { agent, point, sessionId, toolName: "", input: {}, claudeShaped };
      if (typeof doc.prompt === "string") call.prompt = doc.prompt;
      return call;
    }
    const toolName = str(doc.tool_name);
    if (!toolName) return undefined;
    const call: AgentCall = { agent, point, sessionId, toolName, input: inputOf(doc.tool_input), claudeShaped };
    if (eventName) call.event = eventName;
    // Qwen gives the model's call id (its transcript's) beside its own.
    const id = str(doc.tool_call_id) ?? str(doc.tool_use_id);
    if (id) call.toolCallId = id;
    // Qwen's prompt id names the user turn, as Codex's turn id does.
    const turn = str(doc.turn_id) ?? (agent === "qwen" ? str(doc.prompt_id) : undefined);
    if (turn) call.turnId = turn;
    const transcript = str(doc.transcript_path);
    if (transcript) call.transcriptPath = transcript;
    if (point === "post") {
      // Qwen's PostToolUseFailure: the error instead of a response.
      if (doc.tool_response === undefined && doc.error !== undefined) call.result = { ok: false, text: responseText(doc.error) };
      else call.result = { ok: responseOk(doc.tool_response), text: responseText(doc.tool_response) };
      if (agent === "gemini" || agent === "qwen") {
        const shell = shellEnvelope(call.result.text);
        if (shell) call.result = { ok: call.result.ok && !shell.failed, text: shell.text };
      }
    }
    return call;
  }
  if (point === "prompt") return undefined;
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
  if (v.action === "allow" || !v.message || call.point === "prompt") return undefined;
  const text = modelText(v.message);
  if (call.point === "permission") {
    // Copilot only: the one answer that ends its run.
    return v.action === "stop" ? { behavior: "deny", message: text, interrupt: true } : undefined;
  }
  if (call.agent === "gemini") return geminiOutput(call, v, text);
  if (call.point === "pre") {
    if (v.action === "warn") return undefined; // context goes after the result (post)
    const deny = call.claudeShaped
      ? { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: text } }
      : { permissionDecision: "deny", permissionDecisionReason: text };
    // Claude ends the run on continue:false, and runs the call anyway unless it is denied as well.
    if (v.action === "stop" && call.agent === "claude") return { ...deny, continue: false, stopReason: text };
    return deny;
  }
  // Qwen reads a failed call's context only under the event's own name.
  const context = call.claudeShaped
    ? { hookSpecificOutput: { hookEventName: call.event === "PostToolUseFailure" ? call.event : "PostToolUse", additionalContext: text } }
    : { additionalContext: text };
  if (v.action === "stop" && call.agent === "claude") return { ...context, continue: false, stopReason: text };
  return context;
}

/**
 * Gemini CLI: a refusal is `decision: "deny"`; `continue: false` ends the run, and is read before
 * the refusal, so the stopped call never runs (after the call: its result is replaced by the stop).
 */
function geminiOutput(call: AgentCall, v: Verdict, text: string): Record<string, unknown> | undefined {
  if (v.action === "stop") return { continue: false, stopReason: text, decision: "deny", reason: text };
  if (call.point === "pre") return v.action === "warn" ? undefined : { decision: "deny", reason: text };
  return { hookSpecificOutput: { hookEventName: "AfterTool", additionalContext: text } };
}
