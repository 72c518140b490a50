/**
 * Whether Roo will approve a tool call by itself (so that answering its ask is impossible and only a
 * cancel can stop the call), predicted from `api.getConfiguration()` the way Roo's auto-approval
 * reads it (shared notes hosts/roo.md §3.4 B). undefined = cannot tell.
 */
import type { AskInfo } from "./translator";

const READ_TOOLS = new Set(["read_file", "list_files", "list_code_definition_names", "search_files", "codebase_search", "read_command_output", "fetch_instructions"]);
const WRITE_TOOLS = new Set(["write_to_file", "edit_file", "apply_diff", "insert_content", "search_and_replace", "generate_image"]);

function commandAllowed(command: string, allowed: unknown, denied: unknown): boolean {
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
  const c = command.trim().toLowerCase();
  const matches = (prefix: string) => prefix === "*" || c.startsWith(prefix.trim().toLowerCase());
  if (list(denied).some(matches)) return false;
  return list(allowed).some(matches);
}

export function predictAutoApproval(config: Record<string, unknown> | undefined, ask: AskInfo): boolean | undefined {
  if (!config || typeof config.autoApprovalEnabled !== "boolean") return undefined;
  if (!config.autoApprovalEnabled) return false;
  const on = (key: string) => config[key] === true;
  const name = ask.call?.name ?? "";
  switch (ask.ask) {
    case "command": {
      const command = typeof ask.call?.input.command === "string" ? ask.call.input.command : "";
      return on("alwaysAllowExecute") && commandAllowed(command, config.allowedCommands, config.deniedCommands);
    }
    case "use_mcp_server": return on("alwaysAllowMcp");
    case "followup": return on("alwaysAllowFollowupQuestions");
    case "tool":
      if (READ_TOOLS.has(name)) return on("alwaysAllowReadOnly");
      if (WRITE_TOOLS.has(name)) return on("alwaysAllowWrite");
      if (name === "switch_mode") return on("alwaysAllowModeSwitch");
      if (name === "new_task" || name === "finish_task") return on("alwaysAllowSubtasks");
      if (name === "update_todo_list") return true;
      return undefined;
    default:
      return undefined;
  }
}
