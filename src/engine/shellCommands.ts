/**
 * What a shell command does, as far as loop detection cares: agents such as mini-swe-agent and
 * Claude Code read, search and edit through `bash`, so a `cat` is a read and a `sed -i` an edit.
 */
import { normaliseWhitespace } from "./signatures";

/** Programs or sub-commands that change files or state. */
const MUTATING_PATTERNS: RegExp[] = [
  /(^|[;&|(]\s*)(rm|mv|cp|mkdir|rmdir|touch|chmod|chown|ln|truncate|patch|tee|dd|install)\b/,
  /\bsed\s+(-[a-zA-Z]*i|--in-place)/,
  /\bperl\s+-[a-zA-Z]*i/,
  /(^|[^<>&0-9])>>?\s*(?!&|\/dev\/null)[^\s&|;]/, // output redirection to a file
  /\bgit\s+(commit|add|rm|mv|checkout|switch|reset|revert|merge|rebase|stash|apply|am|cherry-pick|restore|pull|clone|init|tag)\b/,
  /\b(npm|pnpm|yarn|bun)\s+(i|install|add|remove|uninstall|ci|update|upgrade|link)\b/,
  /\bpip3?\s+(install|uninstall)\b/,
  /\b(apt|apt-get|brew|cargo|go)\s+(install|remove|add|get|build)\b/,
  /\bpython3?\s+-c\s+.*\b(open\([^)]*['"][wa]['"]|write\(|\.write_text|unlink|rename|shutil)/,
  /\bcat\s*<<|\bcat\s+>/,
  /\bapply_patch\b|\bgit\s+apply\b/,
];

export function isMutatingCommand(command: string): boolean {
  const c = normaliseWhitespace(command);
  return MUTATING_PATTERNS.some((re) => re.test(c));
}

export interface CommandRead {
  path: string;
  /** A range key ("12-40", "head:50") when the command reads part of the file; "" for the whole file. */
  range: string;
}

/**
 * The file a read-only display command shows (`cat f`, `sed -n 10,20p f`, `head -n 50 f`, `nl -ba f`),
 * or undefined for anything else (pipelines into other programs, several files, mutations).
 */
export function commandRead(command: string): CommandRead | undefined {
  const c = normaliseWhitespace(command).replace(/^cd\s+\S+\s*&&\s*/, "");
  if (isMutatingCommand(c) || /[;&]|\|\s*(?!head|tail|nl|cat\b)/.test(c)) return undefined;
  let m = /^cat\s+(?:-[a-zA-Z]+\s+)*([^\s|]+)(?:\s*\|\s*(head|tail)\s+-n?\s*(\d+))?$/.exec(c);
  if (m) return { path: m[1], range: m[2] ? `${m[2]}:${m[3]}` : "" };
  m = /^nl\s+(?:-[a-zA-Z]+\s+)*([^\s|]+)(?:\s*\|\s*sed\s+-n\s+['"]?(\d+),(\d+)p['"]?)?$/.exec(c);
  if (m) return { path: m[1], range: m[2] ? `${m[2]}-${m[3]}` : "" };
  m = /^sed\s+-n\s+['"]?(\d+)(?:,(\d+))?p['"]?\s+([^\s|]+)$/.exec(c);
  if (m) return { path: m[3], range: `${m[1]}-${m[2] ?? m[1]}` };
  m = /^(head|tail)\s+(?:-n\s*|-)?(\d+)?\s*([^\s|]+)$/.exec(c);
  if (m) return { path: m[3], range: `${m[1]}:${m[2] ?? 10}` };
  return undefined;
}
