/**
 * Value helpers for agents' transcript lines, shared by the host line translators (which read a
 * transcript as it grows) and the format readers above them (which read it whole).
 */
import { isRecord, safeJsonStringify } from "../engine/json";
export { toMillis } from "../engine/json";

/** Text of a message content that is a string or a list of blocks ({type:"text",text} and the like). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const parts: string[] = [];
    for (const block of content) {
      if (typeof block === "string") parts.push(block);
      else if (isRecord(block) && typeof block.text === "string") parts.push(block.text);
    }
    return parts.join("\n");
  }
  if (isRecord(content) && typeof content.text === "string") return content.text;
  return "";
}

/** A tool input must be an object in the trace; anything else is kept under "input". */
export function toInput(v: unknown): Record<string, unknown> {
  if (isRecord(v)) return v;
  if (typeof v === "string") {
    try {
      const parsed = JSON.parse(v);
      if (isRecord(parsed)) return parsed;
    } catch { /* not JSON: keep the raw text */ }
  }
  return v === undefined || v === null ? {} : { input: v };
}

export function toText(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === undefined || v === null) return "";
  return safeJsonStringify(v);
}
