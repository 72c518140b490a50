/**
 * The part of pi's extension API Loop Sentinel uses, written out from the type declarations of
 * `@mariozechner/pi-coding-agent` 0.73.1 (`dist/core/extensions/types.d.ts`) and `@mariozechner/pi-ai`
 * (`dist/types.d.ts`): pi is not a dependency (its extensions get the API object at load time), so
 * only what is read here is typed, and every field is checked before use (an older or newer pi may
 * send other shapes).
 */

/** `AssistantMessageEvent`: what `message_update` carries for each streamed piece. */
export interface PiStreamPiece {
  type: string; // "start" | "text_delta" | "thinking_delta" | "toolcall_delta" | "done" | "error" | ...
  delta?: unknown;
}

/** `AgentMessage`: user, assistant, toolResult, or an extension's custom message. */
export interface PiMessage {
  role?: unknown;
  content?: unknown;
  model?: unknown;
  usage?: unknown;
  stopReason?: unknown;
  [key: string]: unknown;
}

export interface PiToolCallEvent { type: "tool_call"; toolCallId: string; toolName: string; input: Record<string, unknown> }
export interface PiToolResultEvent { type: "tool_result"; toolCallId: string; toolName: string; input: Record<string, unknown>; content: unknown; isError: boolean }

export interface PiUi {
  notify(message: string, type?: "info" | "warning" | "error"): void;
  setStatus(key: string, text: string | undefined): void;
}

/** `ExtensionContext`, as every handler receives it. */
export interface PiContext {
  ui: PiUi;
  /** false in print (`-p`) and JSON mode; true in the interactive UI and RPC mode. */
  hasUI: boolean;
  cwd: string;
  isIdle(): boolean;
  /** Typed `void`; pi 0.73.1 returns the promise of its `AgentSession.abort()`, settled once the agent is idle. */
  abort(): unknown;
}

export interface PiCustomMessage { customType: string; content: string; display: boolean; details?: unknown }

export interface PiAutocompleteItem { value: string; label: string; description?: string }

export interface PiCommand {
  description?: string;
  getArgumentCompletions?: (prefix: string) => PiAutocompleteItem[] | null;
  handler: (args: string, ctx: PiContext) => Promise<void>;
}

/** `ExtensionAPI`: what the extension's factory is called with. */
export interface PiExtensionApi {
  on<E>(event: string, handler: (event: E, ctx: PiContext) => unknown): void;
  registerCommand(name: string, options: PiCommand): void;
  /**
   * deliverAs "steer" (while running): read by the model before its next request; idle with
   * triggerTurn: starts a turn; idle without: kept in the session for the next prompt.
   */
  sendMessage(message: PiCustomMessage, options?: { triggerTurn?: boolean; deliverAs?: "steer" | "followUp" | "nextTurn" }): void;
}
