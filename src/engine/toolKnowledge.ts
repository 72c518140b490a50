/**
 * What each agent's tool names do. The trace keeps the agent's own names; the detectors ask
 * this table whether a call reads, writes, edits, searches or runs a command.
 */

export type ToolKind = "read" | "write" | "edit" | "search" | "list" | "command" | "fetch" | "other";

export interface ToolNameLists {
  read: string[];
  write: string[];
  edit: string[];
  search: string[];
  list: string[];
  command: string[];
  fetch: string[];
}

/**
 * Names from Roo/Kilo, Cline, pi, opencode, Claude Code, Gemini CLI and Qwen Code, Codex, GitHub Copilot
 * (VS Code agent mode and CLI), MCP filesystem and shell servers, mini-swe-agent and SWE-agent.
 */
export const DEFAULT_TOOL_NAMES: ToolNameLists = {
  read: [
    "read_files",
    "read_file", "read", "Read", "view", "open", "read_many_files", "readfile", "fetch_instructions",
    "access_mcp_resource", "ctx_read", "str_replace_based_edit_tool:view", "NotebookRead", "read_text_file",
    "view_file", "read_text_file", "read_multiple_files", "read_media_file", "get_file_contents", "read_notebook",
    "read_bash",
  ],
  write: [
    "write_to_file", "write", "Write", "write_file", "create_file", "create", "new_file", "NotebookEdit",
    "generate_image", "delete_file", "save_file", "create_or_update_file", "create_new_file",
  ],
  edit: [
    "editor",
    "apply_diff", "edit", "Edit", "MultiEdit", "replace", "replace_in_file", "search_and_replace", "search_replace",
    "insert_content", "edit_file", "apply_patch", "patch", "str_replace", "str_replace_editor", "multiedit",
    "edit_block", "replace_string_in_file", "multi_replace_string_in_file", "multi_replace_file_content", "insert_edit_into_file",
    "edit_notebook_file", "smart_edit",
  ],
  search: [
    "search_codebase",
    "search_files", "grep", "Grep", "glob", "Glob", "search", "codebase_search", "search_file_content", "find",
    "rg", "ripgrep", "ctx_grep", "ctx_find", "find_file", "search_dir", "search_file", "list_code_definition_names",
    "grep_search", "file_search", "codesearch", "semantic_search", "search_code", "search_text", "test_search",
    "find_files", "search_in_files",
  ],
  list: ["list_files", "ls", "LS", "list_directory", "list", "tree", "list_dir", "directory_tree", "list_allowed_directories", "list_directory_with_sizes"],
  command: [
    "run_commands", "execute_bash", "execute_ipython_cell",
    "execute_command", "bash", "Bash", "shell", "run_shell_command", "run_command", "terminal", "exec", "ctx_shell",
    "BashOutput", "run_in_terminal", "execute", "shell_command", "local_shell", "exec_command", "container.exec", "unified_exec",
  ],
  fetch: ["fetch_web_content", "web_fetch", "webfetch", "WebFetch", "fetch", "fetch_url", "google_web_search", "web_search", "WebSearch", "websearch", "browser_action", "url_screenshot", "fetch_webpage", "open_simple_browser"],
};

/**
 * Tools that keep the agent's own plan or to-do list (Codex update_plan, Claude Code TodoWrite, Gemini
 * write_todos, Copilot manage_todo_list, Qwen todo_write, Roo update_todo_list): they tell the
 * session nothing about the project and change nothing in it.
 */
const PLAN_TOOL_NAMES = new Set(["update_plan", "todowrite", "todoread", "todo_write", "todo_read", "write_todos", "manage_todo_list", "update_todo_list", "todo", "think", "sequentialthinking", "sequential_thinking", "save_memory"]);

/** Whether a tool keeps the agent's plan (by its name, or an MCP tool's last part). */
export function isPlanTool(name: string): boolean {
  const lower = name.toLowerCase();
  if (PLAN_TOOL_NAMES.has(lower)) return true;
  // (asked at every result: a name without the separators, the usual one, is its own last part)
  if (!lower.includes("__") && !lower.includes(".") && !lower.includes("/")) return false;
  const tail = lower.split(/__|\.|\//).pop() ?? lower;
  return tail !== lower && PLAN_TOOL_NAMES.has(tail);
}

/** Sub-commands of the multi-command file editors (str_replace_editor, str_replace_based_edit_tool). */
const EDITOR_SUBCOMMANDS: Record<string, ToolKind> = {
  view: "read", create: "write", str_replace: "edit", insert: "edit", undo_edit: "edit",
};

/** str_replace_editor, str_replace_based_edit_tool, text_editor and kin, in any case (a test asked at every call with a `command`). */
function isEditorTool(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.includes("str_replace") || lower.includes("editor");
}

const PATH_KEYS = ["path", "file_path", "filePath", "file", "filename", "target_file", "absolute_path", "notebook_path", "uri"];
const PATTERN_KEYS = ["regex", "pattern", "query", "search", "term", "q"];
const SCOPE_DIR_KEYS = ["path", "paths", "dir", "directory", "dir_path", "cwd", "root", "target_directory"];
const SCOPE_FILTER_KEYS = ["include", "glob", "file_pattern", "filePattern", "type"];
const COMMAND_KEYS = ["command", "cmd", "script", "commandLine"];
const URL_KEYS = ["url", "href", "uri"];

export interface ToolKnowledge {
  kindOf(name: string): ToolKind;
  /**
   * The kind of one call: like kindOf, but multi-command tools (SWE-agent's and Anthropic's
   * str_replace_editor, whose `command` is view/create/str_replace/insert) are classified by input.
   */
  kindOfCall(name: string, input: Record<string, unknown>): ToolKind;
  /** The file a read/write/edit call targets, if it names one. */
  pathOf(input: Record<string, unknown>): string | undefined;
  /** The search pattern of a search call. */
  patternOf(input: Record<string, unknown>): string | undefined;
  /** Where a search call looks (directory or glob). */
  searchScopeOf(input: Record<string, unknown>): string | undefined;
  /** The shell command of a command call. */
  commandOf(input: Record<string, unknown>): string | undefined;
  urlOf(input: Record<string, unknown>): string | undefined;
}

/**
 * Commands given as lists: Cline's SDK `run_commands {commands: [...]}` (several command lines,
 * one for our purposes) and Codex's `shell {command: ["bash", "-lc", "..."]}` (an argv).
 */
function commandList(input: Record<string, unknown>): string | undefined {
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((c): c is string => typeof c === "string" && c.trim() !== "").map((c) => c.trim()) : []);
  const argv = strings(input.command ?? input.cmd);
  if (argv.length > 0) {
    // A shell running a script: the script is the command.
    if (argv.length >= 3 && /^(?:\S*\/)?(?:ba|z|da)?sh$/.test(argv[0]) && /^-\w*c$/.test(argv[1])) return argv.slice(2).join(" ");
    return argv.join(" ");
  }
  const list = strings(input.commands);
  return list.length > 0 ? list.join(" && ") : undefined;
}

function firstString(input: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const k of keys) {
    const v = input[k];
    if (typeof v === "string" && v.trim() !== "") return v.trim();
  }
  // Roo's read_file takes {args:{file:[{path}]}} or {files:[{path}]}: look one level into the first file entry.
  const files = (input.files ?? (input.args as Record<string, unknown> | undefined)?.file) as unknown;
  if (Array.isArray(files) && files.length > 0 && typeof files[0] === "object" && files[0] !== null) {
    return firstString(files[0] as Record<string, unknown>, keys);
  }
  return undefined;
}

/** Fields in which apply_patch tools (Codex and kin) take their patch. */
const PATCH_KEYS = ["input", "patch", "patchText", "patch_text"];

/** The one file an apply_patch envelope or unified diff changes (`*** Update File: a.ts`, `+++ b/a.ts`); undefined for several. */
function patchPathOf(input: Record<string, unknown>): string | undefined {
  for (const k of PATCH_KEYS) {
    const v = input[k];
    if (typeof v !== "string") continue;
    const files = new Set<string>();
    for (const m of v.slice(0, 20000).matchAll(/^(?:\*\*\* (?:Add|Update|Delete) File: (.+)|\+\+\+ (?:b\/)?(.+))$/gm)) {
      const path = (m[1] ?? m[2]).trim();
      if (path !== "/dev/null") files.add(path);
    }
    if (files.size === 1) return [...files][0];
    if (files.size > 1) return undefined;
  }
  return undefined;
}

export function createToolKnowledge(overrides?: Partial<ToolNameLists>): ToolKnowledge {
  const byName = new Map<string, ToolKind>();
  const lowerByName = new Map<string, ToolKind>();
  const lists: ToolNameLists = { ...DEFAULT_TOOL_NAMES };
  for (const kind of Object.keys(lists) as (keyof ToolNameLists)[]) {
    const extra = overrides?.[kind];
    if (extra) lists[kind] = [...extra, ...lists[kind]];
  }
  // Earlier kinds win on a clash; overrides come first within each kind, and are applied
  // first overall so that a user moving a name to another kind is obeyed.
  if (overrides) {
    for (const kind of Object.keys(overrides) as (keyof ToolNameLists)[]) {
      for (const n of overrides[kind] ?? []) { byName.set(n, kind); lowerByName.set(n.toLowerCase(), kind); }
    }
  }
  for (const kind of Object.keys(lists) as (keyof ToolNameLists)[]) {
    for (const n of lists[kind]) {
      if (!byName.has(n)) byName.set(n, kind);
      if (!lowerByName.has(n.toLowerCase())) lowerByName.set(n.toLowerCase(), kind);
    }
  }
  const kindOf = (name: string): ToolKind => {
    // Asked at every call: the name as given is the usual answer, so the other spellings are only made when it is not.
    const exact = byName.get(name) ?? lowerByName.get(name.toLowerCase());
    if (exact !== undefined) return exact;
    // MCP tools arrive as "server.tool" or "mcp__server__tool": classify by the last part.
    const tail = name.split(/__|\.|\//).pop() ?? name;
    const byTail = lowerByName.get(tail.toLowerCase());
    if (byTail !== undefined) return byTail;
    // MCP tools also come as "mcp_server_tool" (Copilot, Cline): try the name without its first parts.
    if (/^mcp[_-]/i.test(name)) {
      const parts = name.toLowerCase().split(/[_-]/);
      for (let i = 2; i < parts.length - 1; i++) {
        const rest = lowerByName.get(parts.slice(i).join("_"));
        if (rest !== undefined) return rest;
      }
    }
    return "other";
  };
  /** Names the user placed in a kind: their word beats a multi-command editor's sub-command. */
  const overridden = new Set<string>();
  for (const list of Object.values(overrides ?? {})) for (const n of list ?? []) overridden.add(n);
  return {
    kindOf,
    kindOfCall(name, input) {
      const explicit = byName.get(name);
      if (explicit !== undefined && overridden.has(name)) return explicit;
      const sub = input.command;
      // (the name first: looking a command line up as a sub-command would make V8 internalise it)
      // (own entries only: "constructor" is no sub-command)
      if (typeof sub === "string" && isEditorTool(name) && Object.hasOwn(EDITOR_SUBCOMMANDS, sub)) return EDITOR_SUBCOMMANDS[sub];
      return kindOf(name);
    },
    pathOf: (input) => firstString(input, PATH_KEYS) ?? patchPathOf(input),
    patternOf: (input) => firstString(input, PATTERN_KEYS),
    searchScopeOf(input) {
      // Where a search looks: the directory, plus the file filter when there is one (a new glob is a new place).
      const dir = firstString(input, SCOPE_DIR_KEYS);
      const filter = firstString(input, SCOPE_FILTER_KEYS);
      if (dir === undefined && filter === undefined) return undefined;
      return filter === undefined ? dir : `${dir ?? "."} ${filter}`;
    },
    commandOf: (input) => firstString(input, COMMAND_KEYS) ?? commandList(input),
    urlOf: (input) => firstString(input, URL_KEYS),
  };
}
