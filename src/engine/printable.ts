/**
 * Text from sessions, files and settings as messages may show it: control characters written
 * visibly (a terminal must not obey an escape sequence found in a session), quoted input cut to a
 * bound (a 10 MB value must not become a 10 MB error line).
 */

/** How much of a quoted value a message shows. */
export const QUOTE_MAX_CHARS = 120;

/** `text` cut to `max` characters, saying how much was left out. */
export function bounded(text: string, max = QUOTE_MAX_CHARS): string {
  if (text.length <= max) return text;
  // Never cut a surrogate pair in two.
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}… (${text.length - end} more characters)`;
}

/** A value quoted for a message: JSON-quoted, cut to a bound. */
export function quoted(value: unknown, max = QUOTE_MAX_CHARS): string {
  const text = typeof value === "string" ? value : typeof value === "number" && !Number.isFinite(value) ? String(value) : JSON.stringify(value) ?? String(value);
  return typeof value === "string" ? JSON.stringify(bounded(text, max)) : bounded(text, max);
}

// C0 controls but tab and newline, DEL, C1 controls (0x9b is a one-byte CSI on some terminals), and
// the bidirectional overrides that reorder what a line appears to say.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** Control characters as visible escapes (`\x1b`, `\u202e`); tabs and newlines kept. O(length). */
export function visible(text: string): string {
  CONTROL.lastIndex = 0;
  if (!CONTROL.test(text)) return text;
  CONTROL.lastIndex = 0;
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
