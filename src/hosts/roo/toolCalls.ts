/**
 * Roo's approval asks → tool calls with the agent's own tool names. The ask text says what the tool
 * will do (`ClineSayTool` JSON, a raw command, an MCP request); the name is Roo's native tool name so
 * the engine's tool table knows whether it reads, edits, searches or runs a command.
 */
import { parseJsonObject } from "./messages";

export interface RooToolCall {
  name: string;
  input: Record<string, unknown>;
}

/** `ClineSayTool.tool` → Roo's native tool name. */
const SAY_TOOL_NAMES: Record<string, string> = {
  readFile: "read_file",
  newFileCreated: "write_to_file",
  editedExistingFile: "edit_file",
  appliedDiff: "apply_diff",
  insertContent: "insert_content",
  searchAndReplace: "search_and_replace",
  listFilesTopLevel: "list_files",
  listFilesRecursive: "list_files",
  listCodeDefinitionNames: "list_code_definition_names",
  searchFiles: "search_files",
  codebaseSearch: "codebase_search",
  switchMode: "switch_mode",
  newTask: "new_task",
  finishTask: "finish_task",
  updateTodoList: "update_todo_list",
  runSlashCommand: "run_slash_command",
  generateImage: "generate_image",
  imageGenerated: "generate_image",
  readCommandOutput: "read_command_output",
  fetchInstructions: "fetch_instructions",
  skill: "skill",
};

/** Fields that describe the UI, not the call. */
const DISPLAY_FIELDS = new Set(["tool", "isOutsideWorkspace", "isProtected", "diffStats", "progressStatus"]);
/**
 * Tools whose `content` is their result (listing, search hits) or a display path: it is not part
 * of the call, and two identical calls can show different content.
 */
const CONTENT_IS_RESULT = new Set(["readFile", "listFilesTopLevel", "listFilesRecursive", "listCodeDefinitionNames", "searchFiles", "codebaseSearch"]);

function snakeCase(camel: string): string {
  return camel.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

function fromSayTool(text: string | undefined): RooToolCall | undefined {
  const o = parseJsonObject(text);
  if (!o || typeof o.tool !== "string") return undefined;
  const tool = o.tool;
  const input: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (DISPLAY_FIELDS.has(k) || v === undefined) continue;
    if (k === "content" && CONTENT_IS_RESULT.has(tool)) continue;
    if (k === "batchFiles" && Array.isArray(v)) {
      input.files = v.map((f) => (typeof f === "object" && f !== null ? { path: (f as Record<string, unknown>).path } : f));
      continue;
    }
    input[k] = v;
  }
  if (tool === "listFilesRecursive") input.recursive = true;
  if (tool === "listFilesTopLevel") input.recursive = false;
  return { name: SAY_TOOL_NAMES[tool] ?? snakeCase(tool), input };
}

function fromMcpRequest(text: string | undefined): RooToolCall | undefined {
  const o = parseJsonObject(text);
  if (!o) return undefined;
  const server = typeof o.serverName === "string" ? o.serverName : "mcp";
  if (o.type === "access_mcp_resource") return { name: "access_mcp_resource", input: { server, uri: o.uri } };
  const toolName = typeof o.toolName === "string" ? o.toolName : "unknown";
  let args: Record<string, unknown> = {};
  if (typeof o.arguments === "string" && o.arguments.trim() !== "") args = parseJsonObject(o.arguments) ?? { arguments: o.arguments };
  else if (typeof o.arguments === "object" && o.arguments !== null) args = o.arguments as Record<string, unknown>;
  return { name: `mcp__${server}__${toolName}`, input: args };
}

function fromFollowup(text: string | undefined): RooToolCall | undefined {
  if (text === undefined) return undefined;
  const o = parseJsonObject(text);
  const question = o && typeof o.question === "string" ? o.question : text;
  return { name: "ask_followup_question", input: { question } };
}

/**
 * The tool call an ask stands for, or undefined (not a tool ask, or text not parseable yet: a
 * partial ask's JSON may be cut mid-way).
 */
export function toolCallOfAsk(ask: string | undefined, text: string | undefined): RooToolCall | undefined {
  switch (ask) {
    case "tool": return fromSayTool(text);
    case "command": return text !== undefined && text.trim() !== "" ? { name: "execute_command", input: { command: text } } : undefined;
    case "use_mcp_server": return fromMcpRequest(text);
    case "followup": return fromFollowup(text);
    default: return undefined;
  }
}

/** Asks that stand for a tool call. */
export const TOOL_ASKS: ReadonlySet<string> = new Set(["tool", "command", "use_mcp_server", "followup"]);

/**
 * Roo reports a tool call with a missing required parameter only as an error say
 * ("Roo tried to use read_file without value for required parameter 'path'. Retrying...");
 * Kilo Code says "Kilo Code tried to use". Such a call never reaches an ask.
 */
const MISSING_PARAMETER = /tried to use (\w+) without value for required parameter '([^']+)'/;

export function missingParameterCall(text: string | undefined): { name: string; parameter: string } | undefined {
  const m = text ? MISSING_PARAMETER.exec(text) : null;
  return m ? { name: m[1], parameter: m[2] } : undefined;
}
