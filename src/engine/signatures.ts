/**
 * Call signatures: what makes two tool calls "the same call". Written once here and used by
 * every tool detector, so that they agree on identity.
 */
import { canonicalJson } from "./json";
import type { ToolKind, ToolKnowledge } from "./toolKnowledge";

/** Input fields that change per call without changing what the call does. */
export const VOLATILE_INPUT_KEYS = new Set([
  "id", "_id", "toolCallId", "tool_call_id", "callId", "call_id", "requestId", "request_id", "traceId", "spanId",
  "nonce", "timeout", "timeout_ms", "timeoutMs", "description", "task_progress", "requires_approval",
  "is_background", "run_in_background",
  // Commentary some agents attach to every call (Cursor's explanation, Kilo/Roo reasons, model thoughts).
  "explanation", "reason", "rationale", "thought", "thoughts", "intent",
]);

/** Edit inputs whose text is the replacement, not the target: dropped so that retries with a new replacement match. */
export const REPLACEMENT_KEYS = new Set([
  "new_string", "newString", "new_str", "replace", "replacement", "new_text", "newText", "content_new", "new",
]);

/** Fields holding the text an edit looks for. */
export const EDIT_TARGET_KEYS = ["old_string", "oldString", "old_str", "search", "find", "old_text", "oldText", "target", "diff", "patch", "line", "start_line"];

/** Whitespace that normaliseWhitespace would change: a run, a character other than a space, or at either end. */
const UNNORMAL_WHITESPACE = /\s\s|[^\S ]|^\s|\s$/;

export function normaliseWhitespace(s: string): string {
  // Most texts (commands, targets, text normalised before) are already so: no copy for them.
  if (!UNNORMAL_WHITESPACE.test(s)) return s;
  return s.replace(/\s+/g, " ").trim();
}

/**
 * The input as sorted JSON with volatile fields dropped at every depth and property strings trimmed.
 * Written without recursion: a tool input is untrusted and may nest thousands of levels.
 */
function stableInputText(input: Record<string, unknown>): string {
  return canonicalJson(input, { drop: VOLATILE_INPUT_KEYS, trimValues: true }) ?? "";
}

/**
 * SEARCH/REPLACE blocks: keep only the SEARCH halves. Roo's apply_diff writes `<<<<<<< SEARCH`,
 * Cline's replace_in_file `------- SEARCH`; both end the search half at `=======`.
 */
export function searchHalvesOfDiff(diff: string): string {
  const parts: string[] = [];
  const re = /(?:<{7}|-{7}) SEARCH[^\n]*\n(?::start_line:\s*\d+\s*\n-{3,}\s*\n)?([\s\S]*?)\n?={7}/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(diff)) !== null) parts.push(m[1]);
  return parts.length > 0 ? parts.join("\n---\n") : diff;
}

/**
 * Unified diffs and apply_patch envelopes (`*** Update File: x` + `-old`/`+new` lines): keep the
 * file headers, the removed lines and the context, drop the added lines (the replacement).
 */
export function targetLinesOfPatch(patch: string): string {
  if (!/^(?:\*\*\* (?:Begin Patch|Update File|Add File|Delete File)|@@|--- )/m.test(patch)) return patch;
  return patch.split("\n").filter((l) => !l.startsWith("+") || l.startsWith("+++")).join("\n");
}

/** The part of an edit call that says what is being changed, without what it is changed to. */
export function editTargetOf(input: Record<string, unknown>, tools: ToolKnowledge): string {
  const path = tools.pathOf(input) ?? "";
  let target = "";
  for (const k of EDIT_TARGET_KEYS) {
    const v = input[k];
    if (typeof v === "string" && v !== "") {
      target = k === "diff" ? targetLinesOfPatch(searchHalvesOfDiff(v)) : k === "patch" ? targetLinesOfPatch(v) : v;
      break;
    }
    if (typeof v === "number") { target = String(v); break; }
  }
  // Claude Code's MultiEdit and similar: a list of {old_string, new_string}.
  if (target === "" && Array.isArray(input.edits)) {
    target = input.edits
      .map((e) => (typeof e === "object" && e !== null ? editTargetOf(e as Record<string, unknown>, tools).split("\u0000")[1] : ""))
      .join("\n---\n");
  }
  // Roo's multi-file apply_diff: {args:{file:[{path, diff:[{content, start_line}]}]}} (or `files`).
  const files = (input.files ?? (input.args as Record<string, unknown> | undefined)?.file) as unknown;
  if (target === "" && Array.isArray(files)) {
    target = files.slice(0, 32).map((f) => {
      if (typeof f !== "object" || f === null) return "";
      const entry = f as Record<string, unknown>;
      const diffs = Array.isArray(entry.diff) ? entry.diff : [entry.diff];
      const halves = diffs.map((d) => {
        const text = typeof d === "string" ? d : typeof d === "object" && d !== null ? (d as Record<string, unknown>).content : undefined;
        return typeof text === "string" ? searchHalvesOfDiff(text) : "";
      });
      return `${tools.pathOf(entry) ?? ""}: ${halves.join("\n---\n")}`;
    }).join("\n===\n");
  }
  // apply_patch tools often take the patch under `input` or `patchText`.
  if (target === "") {
    for (const k of ["input", "patchText", "patch_text"]) {
      const v = input[k];
      if (typeof v === "string" && v !== "") { target = targetLinesOfPatch(v); break; }
    }
  }
  // An edit that says not where it is (Copilot's insert_edit_into_file, a sketch of the new code
  // with the rest elided): only the whole input tells two of them apart, not the file alone.
  if (target === "") return `${path}\u0000\u0001${hashText(stableInputText(input))}`;
  return `${path}\u0000${normaliseWhitespace(target)}`;
}

/** Tool name plus a stable rendering of what the call asks for. */
export function callSignature(name: string, kind: ToolKind, input: Record<string, unknown>, tools: ToolKnowledge): string {
  if (kind === "edit") return `${name}\u0001edit\u0001${editTargetOf(input, tools)}`;
  if (kind === "command") {
    const cmd = tools.commandOf(input);
    if (cmd !== undefined) {
      // (most command calls hold the command alone: nothing else to write out)
      const rest = hasOnlyCommand(input) ? "{}" : stableInputText({ ...input, command: undefined, cmd: undefined });
      return `${name}\u0001cmd\u0001${normaliseWhitespace(cmd)}\u0001${rest}`;
    }
  }
  return `${name}\u0001${stableInputText(input)}`;
}

/** Whether an input has no field but `command` or `cmd` (stableInputText of the rest would be "{}"). */
function hasOnlyCommand(input: Record<string, unknown>): boolean {
  for (const k in input) if (k !== "command" && k !== "cmd") return false;
  return true;
}

/** An operand as it names its file or folder: unquoted, without `./` before it or `/` after it. */
export function tidyOperand(operand: string): string {
  // (each pattern only where its first or last character is: most operands have none to tidy)
  let o = operand;
  if (o.startsWith('"') || o.startsWith("'")) o = o.replace(/^(["'])(.*)\1$/, "$2");
  if (o.startsWith("./")) o = o.slice(2);
  if (o.endsWith("/")) o = o.replace(/(.)\/+$/, "$1");
  return o;
}

/**
 * A command with its flags dropped and its operands tidied (`ls ./` = `ls .` = `ls -1` = `ls`), for
 * counting repeats that only vary the spelling. Only simple commands are loosened: a pipeline,
 * a list or a redirection keeps its exact form. Output-aware counts use it, so `ls` and `ls -la`
 * (different output) never merge.
 */
export function looseCommand(command: string): string {
  const c = normaliseWhitespace(command).replace(/^cd\s+\S+\s*&&\s*/, "");
  if (/[|;&<>`$(]/.test(c)) return c;
  // the program, then its operands tidied (flags and operands naming the current folder dropped)
  const words = c.split(" ");
  let loose = words[0];
  for (let i = 1; i < words.length; i++) {
    if (words[i].startsWith("-")) continue;
    const operand = tidyOperand(words[i]);
    if (operand !== "." && operand !== "./" && operand !== "") loose += " " + operand;
  }
  return loose;
}

/** The identity for success-repeat counts: the signature, with commands loosened (see looseCommand). */
export function repeatKeyOf(name: string, kind: ToolKind, input: Record<string, unknown>, tools: ToolKnowledge, signature: string): string {
  if (kind !== "command") return signature;
  const cmd = tools.commandOf(input);
  return cmd === undefined ? signature : `${name}\u0001loose\u0001${looseCommand(cmd)}`;
}

/** Tool + the whole input (volatile fields dropped, replacement text kept): the very same call. */
export function exactInputKey(name: string, input: Record<string, unknown>): string {
  return `${name}\u0001${stableInputText(input)}`;
}

/** The thing a call acts on (file, URL, search pattern, command), for target-keyed counts. */
export function callTarget(kind: ToolKind, input: Record<string, unknown>, tools: ToolKnowledge): string | undefined {
  switch (kind) {
    case "read": case "write": case "edit": case "list": return tools.pathOf(input);
    case "search": return tools.patternOf(input);
    case "command": { const c = tools.commandOf(input); return c === undefined ? undefined : normaliseWhitespace(c); }
    case "fetch": return tools.urlOf(input) ?? tools.patternOf(input);
    default: return undefined;
  }
}

/**
 * Whether a result the host reported as a success says, in the shell tool's own envelope, that the
 * command failed: mini-swe-agent's leading `<returncode>N</returncode>`, Gemini CLI's `Exit Code: N`
 * line after its `Command:` header. Exit codes quoted inside ordinary output (a CI log) do not count.
 */
export function failedExitStatus(text: string): boolean {
  const head = /^\s*<returncode>\s*(-?\d+)\s*<\/returncode>/.exec(text);
  if (head) return head[1] !== "0";
  if (!/^Command: /.test(text)) return false;
  const m = /^Exit Code: (-?\d+)\s*$/m.exec(text);
  return m !== null && m[1] !== "0";
}

/**
 * Whether a command result says in its first line that the command exited non-zero, though the host
 * reported the tool call itself as a success: Roo Code's execute_command answers "Command executed in
 * terminal within working directory '…'. Command failed with exit code 1. Output:" ("Exit code: 0" on
 * success), or a status line of its own: first ("Exit code 1") or last past a blank line (pi's
 * "Command exited with code 2"). The ledger keeps the host's own verdict (the tool ran); failure
 * counting reads this.
 */
export function commandExitedNonZero(text: string): boolean {
  const roo = /^Command executed in terminal\b[^\n]*?(?:Command failed with exit code (-?\d+)|Exit code: (-?\d+)|(Command execution was not successful))/.exec(text.slice(0, 600));
  if (roo !== null) return roo[3] !== undefined || (roo[1] ?? roo[2]) !== "0";
  // other harnesses put the status on a line of its own before the output ("Exit code 1") or after
  // it, past a blank line (pi's "Command exited with code 2"); a code quoted inside the output is not one
  const head = /^Exit code:? (-?\d+)\n/.exec(text.slice(0, 40));
  if (head) return head[1] !== "0";
  const tail = /\n\n(?:Command exited with code|Process exited with code) (-?\d+)\s*$/.exec(text.slice(-80));
  return tail !== null && tail[1] !== "0";
}

/** Lines that wrap a result rather than say what went wrong (harness envelopes, exit-code banners). */
const ENVELOPE_LINE = /^(?:command|directory|signal|background pids|process group pgid):.*$|^\((?:none|empty)\)$|^(?:<\/?[a-z_]+>\s*)+$|^<returncode>.*<\/returncode>$|^exit(?:ed with)? code:? *-?\d+$|^\[[\w-]+ for .*\] result:?$|^(?:error|stderr|output|result)s?:?$|^command (?:failed|exited)\b.*\bcode\b.*$|^command executed in terminal\b.*$|^[-=_*#`~>|]+$|^=== (?:RUN|PAUSE|CONT|NAME)\b.*$/i;
const ERROR_HINT = /\b(?:\w*Error|\w*Exception|ERR!|error|fatal|panic(?:ked)?|fail(?:s|ed|ure)?|not found|no such|cannot|can't|unable to|denied|refused|invalid|missing|undefined|unknown|unexpected|timed? ?out)\b/i;
const EXCEPTION_LINE = /^(?:[\w.]*\.)?\w*(?:Error|Exception|Exit|Interrupt|Failure)\b(?::|$)/;

/**
 * The line that names the error: for a Python traceback the exception line at its end, otherwise the
 * first line that is not an envelope. Empty when the result says nothing (an empty failing grep).
 */
export function errorLine(text: string): string {
  return errorLineAt(text)?.line ?? "";
}

/** What contentLines removes from a line: exit-code and stream tags, a leading `output:`. */
const RETURNCODE_TAG = /<returncode>[^<]*<\/returncode>/gi;
const ENVELOPE_TAG = /<\/?(?:output|returncode|exception|error|stdout|stderr)>/gi;
const STREAM_PREFIX = /^(?:output|stdout|stderr):\s+(?=\S)/i;

/** The result's lines without harness envelopes (Gemini CLI's "Command: …\nDirectory: …\nOutput: …\nExit Code: 1", `<returncode>`). */
function contentLines(text: string): string[] {
  // The tags need a `<` and the prefix a `:`: in a text without one, no line has what it would remove.
  const tags = text.includes("<");
  const prefixes = text.includes(":");
  const out: string[] = [];
  for (const raw of text.split("\n")) {
    const l = contentLine(raw, tags, prefixes);
    if (l !== undefined) out.push(l);
  }
  return out;
}

/** One line of a result as contentLines keeps it; undefined when it is empty or an envelope. */
function contentLine(raw: string, tags: boolean, prefixes: boolean): string | undefined {
  let l = tags ? raw.replace(RETURNCODE_TAG, "").replace(ENVELOPE_TAG, "").trim() : raw.trim();
  if (prefixes) l = l.replace(STREAM_PREFIX, "");
  return l !== "" && !ENVELOPE_LINE.test(l) ? l : undefined;
}

/** The lines of a result's first `maxChars` characters without harness envelopes (see contentLines), joined by newlines. */
export function resultContent(text: string, maxChars: number): string {
  return contentLines(text.length > maxChars ? text.slice(0, maxChars) : text).join("\n");
}

/**
 * Whether test holds for one of the lines resultContent(text, maxChars) joins, read in order and
 * only up to the first that does: a caller looking for one line need not cut and clean them all.
 */
export function someContentLine(text: string, maxChars: number, test: (line: string) => boolean): boolean {
  const cut = text.length > maxChars ? text.slice(0, maxChars) : text;
  const tags = cut.includes("<");
  const prefixes = cut.includes(":");
  for (let start = 0; start <= cut.length;) {
    const end = cut.indexOf("\n", start);
    const stop = end < 0 ? cut.length : end;
    const line = contentLine(cut.slice(start, stop), tags, prefixes);
    if (line !== undefined && test(line)) return true;
    start = stop + 1;
  }
  return false;
}

/** Whether errorLine finds any line in the text (it answers "" when not), reading only up to the first. */
export function hasContentLine(text: string): boolean {
  const tags = text.includes("<");
  const prefixes = text.includes(":");
  for (let start = 0; start <= text.length;) {
    const end = text.indexOf("\n", start);
    const stop = end < 0 ? text.length : end;
    if (contentLine(text.slice(start, stop), tags, prefixes) !== undefined) return true;
    start = stop + 1;
  }
  return false;
}

/**
 * A status line that names no error of its own (`== [stdin] FAIL`, `FAIL src/a.test.ts`, `FAILED
 * (errors=2)`): once bracketed parts, file names and punctuation are gone, only status words are left.
 */
export function isBannerLine(line: string): boolean {
  // A failure's error line is asked about by its fingerprint, its detail and tool-failure's sample in turn.
  if (line !== lastBannerLine) { lastIsBanner = judgeBanner(line); lastBannerLine = line; }
  return lastIsBanner;
}

let lastBannerLine: string | undefined;
let lastIsBanner = false;

function judgeBanner(line: string): boolean {
  // A banner is a few words: a long line is not one, and the path-stripping pattern below would be
  // quadratic on a long line without spaces (a minified file, a huge JSON value).
  if (line.length > MAX_BANNER_CHARS) return false;
  // The words left are runs of the line's own letters, and one must be a fail… or error… word.
  if (!FAIL_OR_ERROR.test(line)) return false;
  const words = line.replace(/\[[^\]]*\]|\([^)]*\)/g, " ").replace(/\S*[\\/.:]\S*/g, " ").replace(/[^\p{L}\s]+/gu, " ").trim().split(/\s+/).filter((w) => w !== "");
  return words.length > 0 && words.length <= 3 && words.every((w) => /^(?:fail(?:s|ed|ure|ures|ing)?|errors?|errored|not|ok)$/i.test(w)) && words.some((w) => !/^(?:not|ok)$/i.test(w));
}

const FAIL_OR_ERROR = /fail|err/i;

/** Longest line that may be a status banner. */
const MAX_BANNER_CHARS = 200;

/** How many lines after a banner say what failed. */
const BANNER_DETAIL_LINES = 3;

/**
 * When the error line is only a banner (a linter's `== [stdin] FAIL`), the lines after it that say
 * what failed, with per-run noise masked but positions and messages kept: two findings of a linter
 * at different places are different errors. Empty when the error line says it all.
 */
export function errorDetail(text: string): string {
  const at = errorLineAt(text);
  if (!at || !isBannerLine(at.line)) return "";
  return stableOutput(at.lines.slice(at.index + 1, at.index + 1 + BANNER_DETAIL_LINES).join("\n"))
    .slice(0, 600)
    .toLowerCase()
    .replace(/[a-z][a-z0-9+.-]*:\/\/\S+/g, "<url>")
    .replace(/(?:[a-z]:)?(?:[\w.-]*[\\/])+[\w.-]+/g, "<path>")
    .replace(/\b[0-9a-f]{7,}\b/g, "<id>")
    .replace(/[ \t]+/g, " ");
}

/** The error line, its index among the content lines, and the content lines up to at least the BANNER_DETAIL_LINES after it. */
interface ErrorLineAt { line: string; index: number; lines: string[] }

/**
 * The latest text errorLineAt read and its answer: one failing result is read by the ledger's
 * fingerprint and by several detectors in turn (error line, detail, sample, "found nothing"), and
 * the answer depends on the text alone. Callers only read the answer (never change its lines).
 */
let lastErrorText: string | undefined;
let lastErrorAt: ErrorLineAt | undefined;

function errorLineAt(text: string): ErrorLineAt | undefined {
  if (text !== lastErrorText) { lastErrorAt = findErrorLine(text); lastErrorText = text; }
  return lastErrorAt;
}

const TRACEBACK = "Traceback (most recent call last)";

function findErrorLine(text: string): ErrorLineAt | undefined {
  // Without tags to remove, a content line is a piece of one line of the text: a text without the
  // words has no traceback, and its error line is among the first lines (read only up to it and its detail).
  if (text.includes("<") || text.includes(TRACEBACK)) return findErrorLineIn(contentLines(text));
  const prefixes = text.includes(":");
  const lines: string[] = [];
  let found: ErrorLineAt | undefined;
  for (let start = 0; start <= text.length;) {
    const end = text.indexOf("\n", start);
    const stop = end < 0 ? text.length : end;
    const l = contentLine(text.slice(start, stop), false, prefixes);
    start = stop + 1;
    if (l === undefined) continue;
    lines.push(l);
    const i = lines.length - 1;
    if (found === undefined && i < MAX_ERROR_SCAN) {
      const said = saysError(l);
      if (said !== undefined) found = { line: said, index: i, lines };
    }
    // (the first line is the answer when none of the first MAX_ERROR_SCAN says error)
    const answer = found?.index ?? (i >= MAX_ERROR_SCAN - 1 ? 0 : -1);
    if (answer >= 0 && i >= answer + BANNER_DETAIL_LINES) break;
  }
  if (lines.length === 0) return undefined;
  return found ?? { line: lines[0], index: 0, lines };
}

/** The error line of a whole text's content lines (see contentLines). */
function findErrorLineIn(lines: string[]): ErrorLineAt | undefined {
  const at = (index: number) => ({ line: lines[index], index, lines });
  if (lines.length === 0) return undefined;
  const tb = lines.findIndex((l) => l.startsWith(TRACEBACK));
  if (tb >= 0) {
    for (let i = lines.length - 1; i > tb; i--) if (EXCEPTION_LINE.test(lines[i])) return at(i);
    return at(lines.length - 1);
  }
  // Test runners and build tools print banners and progress first: the error is the first line
  // that says so (pytest's "E   AssertionError", "npm ERR!", "error TS2322", "fatal:").
  const scan = Math.min(lines.length, MAX_ERROR_SCAN);
  for (let i = 0; i < scan; i++) {
    const said = saysError(lines[i]);
    if (said !== undefined) return { line: said, index: i, lines };
  }
  return at(0);
}

/** How many content lines are searched for the one that says error. */
const MAX_ERROR_SCAN = 200;
/** pytest's error lines: "E   AssertionError: …". */
const E_LINE = /^E\s{2,}\S/;

/** The error a content line says (pytest's E prefix taken off), or undefined if it says none. */
function saysError(l: string): string | undefined {
  if (E_LINE.test(l)) return l.replace(/^E\s+/, "");
  return ERROR_HINT.test(l) ? l : undefined;
}

/**
 * The error line with the parts that vary between retries of the same mistake replaced by
 * placeholders (URLs, paths, quoted text, numbers, hex ids), lower-cased.
 */
export function errorFingerprint(text: string): string {
  const detail = errorDetail(text);
  let line = errorLine(text).slice(0, 300).toLowerCase();
  // (each mask needs a character most error lines lack: without it the scan changes nothing)
  if (line.includes("://")) line = line.replace(/[a-z][a-z0-9+.-]*:\/\/\S+/g, "<url>");
  if (line.includes('"') || line.includes("'") || line.includes("`")) line = line.replace(/(["'`])(?:(?!\1).){0,200}\1/g, "<quoted>");
  if (line.includes("/") || line.includes("\\")) line = line.replace(/(?:[a-z]:)?(?:[\w.-]*[\\/])+[\w.-]+/g, "<path>");
  line = line
    .replace(/\b[0-9a-f]{7,}\b/g, "<id>")
    .replace(/\d+(?:\.\d+)?/g, "<num>")
    .replace(/\s+/g, " ")
    .trim();
  // A banner alone would make every run of a linter "the same error": what follows it tells them
  // apart; so does the named error under a harness's sentence ("Your proposed edit has introduced new
  // syntax error(s)" over "E999 SyntaxError: unmatched ')'").
  const named = detail === "" ? namedErrorUnder(text) : "";
  return detail !== "" ? `${line}\u0002${detail}` : named !== "" ? `${line}\u0002${named}` : line;
}

/** A line naming an error by its type or code: `ValueError: …`, `E999 SyntaxError: …`, `error[E0308]: …`, `TS2322`. */
const NAMED_ERROR = /\b[A-Z]\w*(?:Error|Exception)\b|\b[A-Z]{1,3}\d{3,5}\b|\berror\[[A-Z]?\d+\]/;

/** The named error in the lines right under a prose error line that names none; "" when there is none. */
function namedErrorUnder(text: string): string {
  const at = errorLineAt(text);
  if (!at || NAMED_ERROR.test(at.line)) return "";
  const end = Math.min(at.lines.length, at.index + 1 + BANNER_DETAIL_LINES);
  for (let i = at.index + 1; i < end; i++) if (NAMED_ERROR.test(at.lines[i])) return at.lines[i].slice(0, 200).toLowerCase();
  return "";
}

/**
 * The same text in a string of its own. V8 keeps a substring of a long text (a line split from a
 * tool's output) as a view that holds the whole text alive: a line kept for a summary would keep
 * its output for as long as the summary is remembered.
 */
export function ownCopy(s: string): string {
  return (" " + s).slice(1);
}

/** How many characters hashText copies out at a time (its scratch space is twice that in bytes). */
const HASH_CHUNK = 16384;
/**
 * hashText's scratch space: the text's UTF-16 code units, copied out natively. Reading them from a
 * typed array costs a third less than charCodeAt, which checks the string's representation at every
 * character (and hashText reads every tool output).
 */
const hashUnits = new Uint16Array(HASH_CHUNK);
const hashBytes = Buffer.from(hashUnits.buffer, hashUnits.byteOffset, hashUnits.byteLength);

/** A fast 32-bit FNV-1a hash for output comparison (a collision only merges two outputs), over UTF-16 code units. */
export function hashText(s: string): string {
  const length = s.length;
  let h = 0x811c9dc5;
  for (let start = 0; start < length; start += HASH_CHUNK) {
    const n = Math.min(HASH_CHUNK, length - start);
    // (utf16le writes each code unit as it is, a lone surrogate too)
    hashBytes.write(n === length ? s : s.slice(start, start + n), 0, "utf16le");
    for (let i = 0; i < n; i++) {
      h ^= hashUnits[i];
      h = Math.imul(h, 0x01000193);
    }
  }
  return (h >>> 0).toString(36) + ":" + length.toString(36);
}

/** Character trigrams of a text's first `max` characters (whitespace collapsed, lower-cased). */
function trigrams(s: string, max: number): Set<string> {
  const t = normaliseWhitespace(s).toLowerCase().slice(0, max);
  const out = new Set<string>();
  for (let i = 0; i + 3 <= t.length; i++) out.add(t.slice(i, i + 3));
  if (out.size === 0 && t !== "") out.add(t);
  return out;
}

/**
 * How alike two call targets are (0..1, Dice coefficient over character trigrams): URLs that differ
 * in a query string score high, two unrelated Python scripts low. Bounded by `max` characters.
 */
export function textSimilarity(a: string, b: string, max = 400): number {
  if (a === b) return 1;
  const ta = trigrams(a, max);
  const tb = trigrams(b, max);
  if (ta.size === 0 || tb.size === 0) return 0;
  let shared = 0;
  for (const g of ta) if (tb.has(g)) shared++;
  return (2 * shared) / (ta.size + tb.size);
}

/**
 * Output with the parts that change on every run of the same thing (durations, clock times,
 * ISO timestamps, object addresses, temporary names) replaced, so that "Done in 4.21s" and
 * "Done in 3.98s" count as the same result.
 * Counts, states and ids stay: "2 failing" → "1 failing" is a change.
 */
const UUID_START = /[0-9a-f]{8}-[0-9a-f]{4}-/i;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const UNIX_TIME = /(?<![\d.])1[5-9]\d{8}(?:\d{3})?(?![\d.])/;
const UNIX_TIMES = /(?<![\d.])1[5-9]\d{8}(?:\d{3})?(?![\d.])/g;

export function stableOutput(text: string): string {
  // Each pattern needs a character or word most outputs lack: looking for it first spares most
  // outputs most of the scans (an output is read at every tool result).
  const colon = text.includes(":");
  let out = text;
  if (colon && out.includes("-")) out = out.replace(/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g, "<time>");
  if (colon) out = out.replace(/\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, "<time>");
  out = out.replace(/\b\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|s|sec|secs|seconds?|m|mins?|minutes?)\b(?![\w/])/g, "<dur>");
  // Per-run noise: object addresses ("at 0x7f3a…") and random temporary names.
  if (out.includes("0x") || out.includes("0X")) out = out.replace(/\b0x[0-9a-f]{6,}\b/gi, "<addr>");
  // Process ids a shell tool reports on a line of their own (Gemini CLI's "Process Group PGID: 5714").
  if (colon && /pg?id/i.test(out)) out = out.replace(/^((?:process group )?(?:pgid|pids?)|background pids):[ \t]*\d+(?:[ \t]*,[ \t]*\d+)*[ \t]*$/gim, "$1: <pid>");
  if (out.includes("/tmp/")) out = out.replace(/\/tmp\/(?:tmp|pytest-\d+\/)[\w.-]*/g, "/tmp/<tmp>");
  // Fresh identifiers: a UUID minted per call (a request id, an agent id, a temp name) and a Unix
  // time in seconds or milliseconds (2017-2033) tell nothing about what was asked.
  if (out.includes("-") && UUID_START.test(out)) out = out.replace(UUID, "<uuid>");
  if (UNIX_TIME.test(out)) out = out.replace(UNIX_TIMES, "<time>");
  // A shell tool's envelope that echoes the command (Gemini CLI, Qwen Code: "Command: …\nDirectory: …"):
  // the echo is the call, not its answer; `git  stash` and `git 'stash'` answered alike answered the same
  if (out.startsWith("Command: ")) out = out.replace(/^Command: [\s\S]*?\n(?=Directory: )/, "");
  return out;
}

/** Fields holding the whole content a write call puts in its file. */
const WRITTEN_CONTENT_KEYS = ["content", "contents", "file_text", "text", "data"];

/** The content a write call puts in its file, when it says. */
export function writtenContentOf(input: Record<string, unknown>): string | undefined {
  for (const k of WRITTEN_CONTENT_KEYS) if (typeof input[k] === "string") return input[k] as string;
  return addedFileOf(input);
}

/** The whole content of a file an apply_patch envelope adds (`*** Add File: x` and only `+` lines): a write. */
export function addedFileOf(input: Record<string, unknown>): string | undefined {
  for (const k of ["input", "patch", "patchText", "patch_text"]) {
    const v = input[k];
    if (typeof v !== "string" || !/^\*\*\* Add File: /m.test(v)) continue;
    const body = v.split("\n").filter((l) => !/^\*\*\* /.test(l));
    if (body.some((l) => l !== "" && !l.startsWith("+"))) return undefined;
    return body.filter((l) => l.startsWith("+")).map((l) => l.slice(1)).join("\n");
  }
  return undefined;
}

const TARGET_REPLACEMENT_PAIRS: [string, string][] = [
  ["old_string", "new_string"], ["oldString", "newString"], ["old_str", "new_str"], ["old_text", "new_text"], ["oldText", "newText"], ["search", "replace"],
];

/**
 * What an edit looks for and what it puts instead: a target/replacement pair of fields, or the
 * halves of SEARCH/REPLACE blocks (Roo's apply_diff, Cline's replace_in_file). Undefined for other shapes.
 */
export function replacementOf(input: Record<string, unknown>): { target: string; text: string } | undefined {
  for (const [t, r] of TARGET_REPLACEMENT_PAIRS) {
    if (typeof input[t] === "string" && typeof input[r] === "string") return { target: input[t] as string, text: input[r] as string };
  }
  const patch = ["patch", "input", "patchText", "patch_text", "diff"].map((k) => input[k]).find((v): v is string => typeof v === "string" && v !== "");
  if (patch !== undefined && /^(?:\*\*\* (?:Begin Patch|Update File)|@@|--- )/m.test(patch)) {
    // A unified diff or apply_patch envelope: the removed lines are the target, the added ones the replacement.
    const lines = patch.split("\n");
    const removed = lines.filter((l) => l.startsWith("-") && !l.startsWith("---")).map((l) => l.slice(1));
    const added = lines.filter((l) => l.startsWith("+") && !l.startsWith("+++")).map((l) => l.slice(1));
    return removed.length + added.length === 0 ? undefined : { target: removed.join("\n"), text: added.join("\n") };
  }
  // MCP filesystem servers' edit_file: {path, edits: [{oldText, newText}, ...]}.
  const edits = input.edits;
  if (Array.isArray(edits) && edits.length > 0 && typeof edits[0] === "object" && edits[0] !== null) {
    const pairs = edits.slice(0, 32).map((e) => (typeof e === "object" && e !== null ? replacementOf(e as Record<string, unknown>) : undefined)).filter((r) => r !== undefined);
    if (pairs.length > 0) return { target: pairs.map((r) => r!.target).join("\n---\n"), text: pairs.map((r) => r!.text).join("\n---\n") };
  }
  const diff = input.diff;
  if (typeof diff !== "string") return undefined;
  const targets: string[] = [];
  const texts: string[] = [];
  const re = /(?:<{7}|-{7}) SEARCH[^\n]*\n(?::start_line:\s*\d+\s*\n-{3,}\s*\n)?([\s\S]*?)\n?={7}\n([\s\S]*?)\n?(?:>{7}|\+{7}) REPLACE/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(diff)) !== null) { targets.push(m[1]); texts.push(m[2]); }
  return targets.length === 0 ? undefined : { target: targets.join("\n---\n"), text: texts.join("\n---\n") };
}

/** A write or edit result saying that nothing changed ("No changes detected", "0 replacements", an empty diff, old and new text the same). */
const NOTHING_CHANGED = /\bno (?:changes?|modifications?|differences?|edits?)\b(?! (?:added|to commit))|\b(?:0|zero) (?:replacements?|occurrences? (?:were )?(?:replaced|changed)|changes?|edits?|substitutions?|lines? changed)\b|\bnothing (?:to (?:change|replace|update|apply)|(?:was |has been )?changed)\b|\b(?:is|are|was|were|remains?|left) (?:already )?unchanged\b|\bidentical to (?:the )?(?:current|existing)\b|\bempty (?:diff|patch)\b|\b(?:old|search)[_ ]?(?:string|text) and (?:the )?(?:new|replace)(?:[_ ]?(?:string|text)|ment)? (?:must (?:be different|differ)|are (?:exactly )?(?:the same|identical))\b/i;

export function saysNothingChanged(text: string): boolean {
  return NOTHING_CHANGED.test(text.slice(0, 300));
}
