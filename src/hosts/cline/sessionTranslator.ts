/**
 * Cline v4 session files (`sessions/<id>/<id>.messages.json`, extension v4 and CLI 3.x) → trace events.
 *
 * The SDK core rewrites the whole file once per completed turn, with Anthropic-style content
 * blocks: an assistant message is one request (thinking → reasoning, text → text, tool_use →
 * tool_call, metrics → usage on its end); a user message carries tool results or the user's
 * words. Messages are recognised by id, so a rewrite yields only what is new; a message that
 * grew (more blocks, longer text) yields only its growth.
 */
import type { TraceEvent, Usage } from "../../engine/events";
import { isRecord, type SessionContentBlock, type SessionMessage } from "./messages";
import type { TranslatorOptions } from "./classicTranslator";
import { safeJsonStringify } from "../../engine/json";

interface SeenMessage {
  /** Blocks fully emitted. */
  blocks: number;
  /** Characters emitted of the block at `blocks` (a text or thinking block that may still grow). */
  chars: number;
  ended: boolean;
  /** Role and opening words, to notice a message without id rewritten at a seen index (a checkpoint restore). */
  role: unknown;
  head: string;
}

/** Characters of a message's first block that identify it while it may still grow. */
const HEAD_CHARS = 32;

/** The first block's opening words (or its call id): a growing message keeps them, another message does not. */
function headOf(blocks: SessionContentBlock[]): string {
  const b = blocks[0];
  if (!b) return "";
  if (b.type === "tool_use") return `use:${typeof b.id === "string" ? b.id : ""}`;
  if (b.type === "tool_result") return `result:${typeof b.tool_use_id === "string" ? b.tool_use_id : ""}`;
  return `${String(b.type)}:${blockText(b).slice(0, HEAD_CHARS)}`;
}

/** Text of a text or thinking block; a field of another type (a host that changed its shape) reads as empty. */
function blockText(b: SessionContentBlock): string {
  const v: unknown = b.type === "thinking" ? b.thinking : b.text;
  return typeof v === "string" ? v : "";
}

/** Whether a message seen before at this key may be the same one, grown: same role, opening words continued. */
function continues(seen: SeenMessage, role: unknown, head: string): boolean {
  return seen.role === role && (head.startsWith(seen.head) || seen.head.startsWith(head));
}

/** Text of a user message that is the user speaking, not the runtime's own notices. */
function userWords(text: string): string | undefined {
  const wrapped = /^\s*<user_input[^>]*>([\s\S]*?)<\/user_input>\s*$/.exec(text);
  if (wrapped) return wrapped[1].trim();
  const t = text.trim();
  // Hooks' context (`<hook_context source="PreToolUse" …>`, Loop Sentinel's guidance among them) is the runtime speaking.
  if (t === "" || /^(\[ERROR\]|\[TASK RESUMPTION\]|<environment_details>|<system|<hook_context[\s>])/.test(t)) return undefined;
  return t;
}

/** A tool result's content as text: strings, text blocks, or the SDK's per-command records. */
export function resultContentText(content: unknown): { text: string; failed: boolean } {
  if (typeof content === "string") return { text: content, failed: false };
  if (!Array.isArray(content)) return { text: content === undefined ? "" : safeJsonStringify(content), failed: false };
  const parts: string[] = [];
  let failed = false;
  for (const c of content) {
    if (typeof c === "string") { parts.push(c); continue; }
    if (!isRecord(c)) continue;
    if (c.type === "text" && typeof c.text === "string") { parts.push(c.text); continue; }
    if (c.success === false) failed = true;
    const result = typeof c.result === "string" ? c.result : c.result !== undefined ? safeJsonStringify(c.result) : "";
    const error = typeof c.error === "string" ? c.error : "";
    parts.push([result, error].filter((s) => s !== "").join("\n"));
  }
  return { text: parts.join("\n"), failed };
}

function usageOf(m: SessionMessage): Usage | undefined {
  const x = m.metrics;
  if (!isRecord(x)) return undefined;
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
  const tokensIn = n(x.inputTokens);
  const usage: Usage = {};
  if (tokensIn !== undefined) usage.tokensIn = tokensIn + (n(x.cacheReadTokens) ?? 0) + (n(x.cacheWriteTokens) ?? 0);
  if (n(x.outputTokens) !== undefined) usage.tokensOut = n(x.outputTokens);
  if (n(x.cost) !== undefined) usage.cost = n(x.cost);
  return Object.keys(usage).length ? usage : undefined;
}

export class ClineSessionTranslator {
  private readonly seen = new Map<string, SeenMessage>();
  title: string | undefined;

  constructor(private readonly options: TranslatorOptions = {}) {}

  /** One message of `messages[]` (new or rewritten); `index` identifies it when it has no id. */
  message(index: number, raw: unknown): TraceEvent[] {
    if (!isRecord(raw)) return [];
    const m = raw as SessionMessage;
    const key = typeof m.id === "string" ? m.id : `#${index}`;
    const blocks: SessionContentBlock[] = typeof m.content === "string"
      ? [{ type: "text", text: m.content }]
      : Array.isArray(m.content) ? m.content.filter(isRecord) as SessionContentBlock[] : [];
    let seen = this.seen.get(key);
    const head = headOf(blocks);
    // Without an id, a message rewritten at a seen index (a checkpoint restore) is another message.
    if (seen && typeof m.id !== "string" && !continues(seen, m.role, head)) { this.seen.delete(key); seen = undefined; }
    if (seen) seen.head = head.length > seen.head.length ? head : seen.head;
    const out: TraceEvent[] = [];
    const ts = typeof m.ts === "number" && Number.isFinite(m.ts) ? m.ts : undefined;
    const stamp = <E extends TraceEvent>(e: E): E => { if (ts !== undefined) e.ts = ts; return e; };
    if (m.role === "assistant") {
      if (!seen) {
        seen = { blocks: 0, chars: 0, ended: false, role: m.role, head };
        this.seen.set(key, seen);
        const request: TraceEvent = { t: "request" };
        if (typeof m.modelInfo?.id === "string") request.model = m.modelInfo.id;
        out.push(stamp(request));
      }
      for (let i = seen.blocks; i < blocks.length; i++) {
        const b = blocks[i];
        const last = i === blocks.length - 1;
        if (b.type === "thinking" || b.type === "text") {
          const text = blockText(b);
          const from = i === seen.blocks ? seen.chars : 0;
          if (text.length > from) out.push(stamp({ t: b.type === "thinking" ? "reasoning" : "text", delta: text.slice(from) }));
          // The last text block may still grow in a later write; others are done.
          if (last) { seen.blocks = i; seen.chars = Math.max(from, text.length); break; }
        } else if (b.type === "tool_use") {
          const input = isRecord(b.input) ? b.input : b.input === undefined ? {} : { value: b.input };
          out.push(stamp({ t: "tool_call", id: typeof b.id === "string" ? b.id : `${key}:${i}`, name: typeof b.name === "string" ? b.name : "unknown_tool", input }));
        }
        seen.blocks = i + 1;
        seen.chars = 0;
      }
      if (!seen.ended) {
        const end: TraceEvent = { t: "end" };
        const usage = usageOf(m);
        if (usage) end.usage = usage;
        out.push(stamp(end));
        seen.ended = true;
      }
      return out;
    }
    if (m.role !== "user") return out;
    if (!seen) { seen = { blocks: 0, chars: 0, ended: true, role: m.role, head }; this.seen.set(key, seen); }
    for (let i = seen.blocks; i < blocks.length; i++) {
      const b = blocks[i];
      if (b.type === "tool_result") {
        const { text, failed } = resultContentText(b.content);
        const id = typeof b.tool_use_id === "string" ? b.tool_use_id : "";
        out.push(stamp(failed || b.is_error ? { t: "tool_result", id, ok: false, error: text } : { t: "tool_result", id, ok: true, output: text }));
      } else if (b.type === "text" && typeof b.text === "string") {
        const words = userWords(b.text);
        if (words !== undefined && !this.options.isEcho?.(words)) {
          if (this.title === undefined) this.title = words;
          out.push(stamp({ t: "user", text: words }));
        }
      }
      seen.blocks = i + 1;
    }
    return out;
  }
}

/** Whole-file translation (replay). */
export function translateSessionMessages(messages: unknown[], options: TranslatorOptions = {}): { events: TraceEvent[]; title?: string; skipped: number } {
  const t = new ClineSessionTranslator(options);
  const events: TraceEvent[] = [];
  let skipped = 0;
  messages.forEach((m, i) => { if (isRecord(m)) events.push(...t.message(i, m)); else skipped++; });
  return { events, title: t.title, skipped };
}
