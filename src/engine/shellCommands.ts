/**
 * What a shell command does, as far as loop detection cares: agents such as mini-swe-agent and
 * Claude Code read, search and edit through `bash`, so a `cat` is a read and a `sed -i` an edit.
 */
import { normaliseWhitespace } from "./signatures";

/** Programs or sub-commands that change files or state. */
/** SWE-agent's editing commands (its agent-computer interface, run through a shell tool): `edit 12:15` with the new lines and `end_of_edit`, `insert 40`, `append`. */
const SWE_AGENT_EDITOR = /^(edit(?=\s+\d+:\d+)|insert(?=\s+\d+)|append\b)/;

/**
 * Commands that edit a file's text, as an editor tool would: SWE-agent's editor, `sed -i`, `perl -i`,
 * a patch applied. Not a checkout, a bisect step or an install, which move the workspace without the
 * agent writing code.
 */
const FILE_EDIT_PATTERNS: RegExp[] = [
  SWE_AGENT_EDITOR,
  /\bsed\s+(-[a-zA-Z]*i|--in-place)/,
  /\bperl\s+-[a-zA-Z]*i/,
  /\bapply_patch\b|\bgit\s+apply\b/,
];

/** Each with its guard words in MUTATING_GUARDS below, in the same order (a pattern added here needs its words there, and an example in shellCommands.test.ts). */
const MUTATING_PATTERNS: RegExp[] = [
  ...FILE_EDIT_PATTERNS,
  /(^|[;&|(]\s*)(rm|mv|cp|mkdir|rmdir|touch|chmod|chown|ln|truncate|patch|tee|dd|install)\b/,
  /\bgit\s+(commit|add|rm|mv|checkout|switch|reset|revert|merge|rebase|stash|apply|am|cherry-pick|restore|pull|clone|init|tag)\b/,
  // Bisecting checks out another commit at every step.
  /\bgit\s+bisect\s+(start|good|bad|new|old|skip|reset|run|replay)\b/,
  /\b(npm|pnpm|yarn|bun)\s+(i|install|add|remove|uninstall|ci|update|upgrade|link)\b/,
  /\bpip3?\s+(install|uninstall)\b/,
  /\b(apt|apt-get|brew|cargo|go)\s+(install|remove|add|get|build)\b/,
  // Inline scripts (`python3 -c`, `python3 - <<EOF`, `node -e`) that write files.
  /\bpython[\d.]*\s+(?:-c|-\s*<<|<<).*(\bopen\([^)]*['"][wax]b?\+?['"]|\.write\(|\.write_text|\.write_bytes|\bos\.(?:remove|unlink|rename|replace|makedirs|mkdir)|\bshutil\.|\.unlink\(|\.rename\()/,
  /\bnode\s+(?:-e|--eval|-\s*<<|<<).*\b(?:writeFileSync|writeFile|appendFileSync|appendFile|unlinkSync|renameSync|rmSync|mkdirSync|copyFileSync)\b/,
  // `cat > f <<EOF` / `cat <<EOF > f` write a file; a bare `cat <<EOF` only prints.
  /\bcat\s*(?:<<-?\s*\S+\s*)?>(?!&)/,
  // Formatters and fixers that rewrite files in place.
  /(^|[;&|(]\s*)(?:npx\s+|uvx\s+|python[\d.]*\s+-m\s+)?(?:black|isort|autopep8\s+.*(?:-i|--in-place)|yapf\s+.*(?:-i|--in-place)|rustfmt|gofmt\s+.*-w|goimports\s+.*-w|ruff\s+(?:format|check\s+.*--fix)|prettier\s+.*(?:--write|-w)|eslint\s+.*--fix|clang-format\s+.*-i|swiftformat|stylua)\b(?!\s+.*--(?:check|diff))/,
  /\b(?:cargo\s+fmt|dotnet\s+format|go\s+fmt|terraform\s+fmt|mix\s+format)\b(?!.*--(?:check|diff))/,
  // Remote state: after a push or a PR/issue change, the same status query may rightly answer anew.
  /\bgit\s+(push|fetch)\b/,
  /\bgh\s+(pr|issue|release|repo|gist|label|workflow|run|secret|variable|cache)\s+(create|edit|ready|merge|close|reopen|comment|review|delete|rerun|cancel|run|set|fork|lock|unlock|transfer|develop|upload|enable|disable)\b/,
  /\bgh\s+api\b.*(-X|--method)\s*(POST|PUT|PATCH|DELETE)\b/i,
  /\bkubectl\s+(apply|delete|create|patch|scale|rollout|replace)\b/,
  /\bdocker(?:-compose|\s+compose)?\s+(run|build|rm|rmi|up|down|restart|start|stop|pull)\b/,
  /\b(Remove-Item|Set-Content|Add-Content|Out-File|New-Item|Copy-Item|Move-Item|Rename-Item)\b/i,
  // Cloud and service state, processes started or stopped.
  /\b(gcloud|az|aws|gsutil|firebase|terraform|helm|flyctl|vercel|heroku)\b.*\s(create|delete|patch|update|deploy|add|remove|enable|disable|start|stop|restart|reset|attach|detach|apply|destroy|import|cp|mv|rm|set|put|rollback|upgrade|install)\b/,
  /(^|[;&|(]\s*)(kill|pkill|killall|taskkill|systemctl|service|launchctl|nohup)\b/,
  /(^|[;&|(]\s*)start\s+"/,
  // SWE-agent's `create reproduce.py`: a new file.
  /^create\s+[^\s;&|]+\s*$/,
];

/**
 * The patterns as one, for the judgement at every command: one scan of the command instead of one
 * per pattern (alternatives in a group of their own, the case-insensitive ones apart). Made at the
 * first command a process judges that the guards below do not settle.
 */
let anyMutating: RegExp | undefined;
let anyMutatingI: RegExp | undefined;

/**
 * Words at least one of which every match of a case-sensitive pattern holds, in the order of
 * MUTATING_PATTERNS (undefined: no guard, the pattern is always tried). A process that judges only
 * a few commands (the agents' hook loads the engine for every tool call, issue 35, part 4) would
 * spend more compiling the joined pattern, about 4 ms, than on everything else it does with a
 * command: there, only the patterns whose words the command holds are compiled and tried. A
 * pattern matches only where one of its words is, so the verdict is the joined pattern's
 * (shellCommands.test.ts checks each guard against its pattern).
 */
const MUTATING_GUARDS: readonly (readonly string[] | undefined)[] = [
  ["edit", "insert", "append"],
  ["sed"],
  ["perl"],
  ["apply"],
  ["rm", "mv", "cp", "mkdir", "touch", "chmod", "chown", "ln", "truncate", "patch", "tee", "dd", "install"],
  ["git"],
  ["git"],
  ["npm", "yarn", "bun"],
  ["pip"],
  ["apt", "brew", "cargo", "go"],
  ["python"],
  ["node"],
  ["cat"],
  ["black", "isort", "autopep8", "yapf", "rustfmt", "gofmt", "goimports", "ruff", "prettier", "eslint", "clang-format", "swiftformat", "stylua"],
  ["fmt", "format"],
  ["git"],
  ["gh"],
  undefined,
  ["kubectl"],
  ["docker"],
  undefined,
  ["gcloud", "az", "aws", "gsutil", "firebase", "terraform", "helm", "flyctl", "vercel", "heroku"],
  ["kill", "systemctl", "service", "launchctl", "nohup"],
  ["start"],
  ["create"],
];

/**
 * The first commands a process judges are judged pattern by pattern, under the guards; from then
 * on by the joined pattern, compiled once, which is cheaper for a process that judges many.
 */
const GUARDED_COMMANDS = 8;
let judged = 0;

/** The joined case-sensitive pattern's verdict on a (cleaned) command, by that pattern. */
export function mutatingByJoined(c: string): boolean {
  return (anyMutating ??= new RegExp(MUTATING_PATTERNS.filter((re) => !re.ignoreCase).map((re) => `(?:${re.source})`).join("|"))).test(c);
}

/** The same verdict, trying only the patterns whose guard words the command holds (every pattern when the guards do not line up with them). */
export function mutatingByGuards(c: string): boolean {
  if (MUTATING_GUARDS.length !== MUTATING_PATTERNS.length) return mutatingByJoined(c);
  return MUTATING_PATTERNS.some((re, i) => !re.ignoreCase && (MUTATING_GUARDS[i]?.some((w) => c.includes(w)) ?? true) && re.test(c));
}

/** The patterns and their guards, for the test that holds each guard to its pattern. */
export function mutatingGuards(): { pattern: RegExp; words: readonly string[] | undefined }[] {
  return MUTATING_PATTERNS.map((pattern, i) => ({ pattern, words: MUTATING_GUARDS[i] }));
}

function anyMutatingMatch(c: string): boolean {
  return judged++ < GUARDED_COMMANDS && !anyMutating ? mutatingByGuards(c) : mutatingByJoined(c);
}

function anyMutatingMatchI(c: string): boolean {
  return (anyMutatingI ??= new RegExp(MUTATING_PATTERNS.filter((re) => re.ignoreCase).map((re) => `(?:${re.source})`).join("|"), "i")).test(c);
}

const ANY_FILE_EDIT_PATTERN = new RegExp(FILE_EDIT_PATTERNS.map((re) => `(?:${re.source})`).join("|"));

/** Whether a (mutating) command edits a file's text the way an editor tool does (FILE_EDIT_PATTERNS). */
export function isFileEditCommand(command: string): boolean {
  return ANY_FILE_EDIT_PATTERN.test(command);
}

/** SWE-agent's editor command a command line opens with (`edit`, `insert`, `append`), or undefined. */
export function sweAgentEditor(command: string): string | undefined {
  return SWE_AGENT_EDITOR.exec(command)?.[1];
}

/** Output redirection to a file (not to /dev/null or nul, not `=>` or `->` inside code). */
const REDIRECT_TO_FILE = /(^|[^<>&0-9=\-])>>?\s*(?!&|\/dev\/null\b|nul\b)[^\s&|;>]/i;

/** The command with quoted strings emptied: a `>` inside `python -c "..."` is code, not a redirect. */
function withoutQuoted(command: string): string {
  return command.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, "''");
}

/** Commands that wait for time to pass: a repeat after one is polling, not a loop. */
const WAIT_PATTERNS: RegExp[] = [
  /(^|[;&|(]\s*)sleep\s+\d/,
  /\bStart-Sleep\b/i,
  /(^|[;&|(]\s*)timeout\s+\/t\s+\d/i,
  /\bgh\s+(run|pr)\s+(watch|checks\s+.*--watch)\b/,
  /(^|[;&|(]\s*)(watch|wait)\b/,
];

export function isWaitCommand(command: string): boolean {
  const c = normaliseWhitespace(command);
  return WAIT_PATTERNS.some((re) => re.test(c));
}

const SLEEP_SECONDS = /(?:^|[;&|(]\s*)(?:sleep\s+(\d+(?:\.\d+)?)([smhd]?)|Start-Sleep\s+(?:-s(?:econds)?\s+)?(\d+)|timeout\s+\/t\s+(\d+))/gi;
const UNIT_SECONDS: Record<string, number> = { "": 1, s: 1, m: 60, h: 3600, d: 86400 };

/**
 * How long a waiting command waits, in seconds: the sum of its sleeps (`sleep 5 && tail log` → 5).
 * Infinity for waits of unknown length (`gh run watch`, `wait`): they last until something moved.
 */
export function waitSeconds(command: string): number {
  const c = normaliseWhitespace(command);
  if (!isWaitCommand(c)) return 0;
  let total = 0;
  let sleeps = 0;
  for (const m of c.matchAll(SLEEP_SECONDS)) {
    sleeps++;
    total += m[1] !== undefined ? Number(m[1]) * (UNIT_SECONDS[m[2].toLowerCase()] ?? 1) : Number(m[3] ?? m[4]);
  }
  const otherWait = WAIT_PATTERNS.slice(3).some((re) => re.test(c));
  return sleeps === 0 || otherWait ? Infinity : total;
}

/**
 * The latest command isMutatingCommand judged and its answer: one call's command is judged by the
 * ledger, by commandRead and by file-reread in turn, and the answer depends on the text alone.
 */
let lastJudged: string | undefined;
let lastMutating = false;

/**
 * Whether a file a command or a write tool writes is a throwaway one (a probe script), not project
 * work. By default any file in the temp directory is; a session that works in a checkout there
 * judges by what it knows of that folder.
 */
export type ScratchJudge = (path: string) => boolean;

/**
 * Whether the command changes anything that counts as work: writes to files `isScratch` calls
 * throwaway do not (`cat > /tmp/p.py <<EOF`, `rm -f /tmp/x`), other writes, installs and in-place
 * edits do.
 */
export function isMutatingCommand(command: string, isScratch: ScratchJudge = isTempPath): boolean {
  // a judge of its own is asked about the command's temp files (and may note them), whatever was judged last
  if (isScratch !== isTempPath && TEMP_MENTION.test(command)) return judgeMutating(command, isScratch);
  if (command !== lastJudged) { lastMutating = judgeMutating(command, isTempPath); lastJudged = command; }
  return lastMutating;
}

function judgeMutating(command: string, isScratch: ScratchJudge): boolean {
  const c = withoutTempWrites(normaliseWhitespace(command), isScratch);
  // A heredoc's body is script text: a `>` in it is code, not a redirect.
  const line = withoutHeredocBodies(command);
  // (most commands have no heredoc: their line is the command, cleaned once)
  const bare = line === command ? c : withoutTempWrites(normaliseWhitespace(line), isScratch);
  return anyMutatingMatch(c) || anyMutatingMatchI(c) || (bare.includes(">") && REDIRECT_TO_FILE.test(withoutQuoted(bare)));
}

/** Where throwaway files go: /tmp, /var/tmp, $TMPDIR, %TEMP%, $env:TEMP. Files there are not project progress. */
const TEMP_DIR = String.raw`(?:\/tmp\/|\/private\/tmp\/|\/var\/tmp\/|\/var\/folders\/[^\s&|;>]*?\/T\/|\$\{?TMPDIR\}?\/?|%TEMP%\\?|%TMP%\\?|\$env:TEMP\\?|[A-Za-z]:\\Users\\[^\\\s]+\\AppData\\Local\\Temp\\)`;
const TEMP_PATH = String.raw`['"]?(?<![\w.~\/\\-])${TEMP_DIR}[^\s&|;>]*`;
const TEMP_REDIRECT = new RegExp(String.raw`(^|[^<>&0-9=\-])>>?\s*(${TEMP_PATH})`, "gi");
const TEMP_MENTION = new RegExp(TEMP_DIR, "i");
const TEMP_OPERAND = new RegExp(String.raw`^${TEMP_PATH}$`, "i");
/** File commands that only touch throwaway files (`mkdir -p /tmp/x`, `rm -f /tmp/x.py`, `cp a /tmp/b`). */
const TEMP_FILE_COMMAND = /(^|[;&|(]\s*)(rm|mkdir|touch|tee|cp|mv)((?:\s+[^\s;&|]+)+)/g;

/** Whether a path names a throwaway file in the OS temp directory. */
export function isTempPath(path: string): boolean {
  return TEMP_OPERAND.test(path);
}

const TEMP_FOLDER = new RegExp(String.raw`^${TEMP_DIR}[^\/\\\s]+[\/\\]`, "i");

/**
 * The folder right under the temp directory that a path lies in ("/tmp/checkout-12/src/a.ts" ->
 * "/tmp/checkout-12/"); undefined for a path that is not in such a folder. A checkout or a CI job's
 * workspace often lives there: its files are the project, not throwaway probes.
 */
export function tempFolderOf(path: string): string | undefined {
  return TEMP_FOLDER.exec(path)?.[0];
}

/** The command without its writes to throwaway files, so that scratch probes are not taken for progress. */
function withoutTempWrites(c: string, isScratch: ScratchJudge): string {
  // (both patterns name a temp path: most commands have none)
  if (!TEMP_MENTION.test(c)) return c;
  return c.replace(TEMP_REDIRECT, (all, lead: string, path: string) => (isScratch(unquoted(path)) ? lead : all)).replace(TEMP_FILE_COMMAND, (all, lead: string, program: string, rest: string) => {
    const operands = rest.trim().split(" ").filter((w) => !w.startsWith("-"));
    const written = program === "cp" || program === "mv" ? operands.slice(-1) : operands;
    return written.length > 0 && written.every((w) => isTempPath(w) && isScratch(unquoted(w))) ? lead : all;
  });
}

function unquoted(path: string): string {
  return path.replace(/^['"]|['"]$/g, "");
}

/** Heredoc bodies (`<<'EOF'` … `EOF`) replaced by nothing: what is left is the command line itself. */
export function withoutHeredocBodies(command: string): string {
  if (!command.includes("<<")) return command;
  return command.replace(/<<-?[ \t]*(['"]?)([A-Za-z_]\w*)\1([^\n]*)\n[\s\S]*?\n[ \t]*\2[ \t]*(?=\n|$)/g, "<<$2$3");
}

/** Steps of a command line that prepare or report rather than do the work (`cd x`, `export A=1`, `echo $?`). */
const SETUP_STEP = /^(?:cd|pushd|popd|export|set|unset|source|\.|alias|ulimit|umask|trap|echo|printf|true|false|exit|clear)\b|^\w+=\S*$/;

/** Marks the piece after `||` (a fallback, never the work). */
const OR_ELSE = "\u0000||";
/** Pipeline stages that only feed the next stage its input: a literal, a file or a heredoc. */
const FEEDER = /^(?:echo|printf|yes|cat)(?:\s|$)/;
/** Stages that only shape output for display: `cat f | head` is still a read of f. */
const OUTPUT_FILTER = /^(?:head|tail|less|more|wc|sort|uniq|cut|tr|nl|column|tee|grep|egrep|fgrep|rg)(?:\s|$)/;

/** The stage of one pipeline doing the work: the first, or the one a feeder (`echo x |`, `cat f |`) pipes into. */
function workOfPipeline(pieces: string[]): string {
  const first = pieces[0].trim();
  const next = pieces[1];
  if (next !== undefined && !next.startsWith(OR_ELSE) && next.trim() !== "" && FEEDER.test(first) && !OUTPUT_FILTER.test(next.trim())) return next.trim();
  return first;
}

/**
 * The step of a command line that does the work: the last one that is not set-up, a report or a
 * write of a throwaway file (`cat > /tmp/p.py <<EOF … EOF\npython /tmp/p.py` → `python /tmp/p.py`),
 * cut before `||` fallbacks and pipes. Separators inside quotes (`python -c "a; b"`) do not split.
 */
export function mainCommand(command: string): string {
  const steps: string[][] = [[""]];
  const text = withoutHeredocBodies(command);
  let quote = "";
  // Every character but the separators is kept as it is: the piece in progress is text[start..i),
  // added to the step's last piece when a separator (or the end) closes it.
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote !== "") {
      if (ch === "\\" && quote === '"') { i++; continue; }
      if (ch === quote) quote = "";
      continue;
    }
    if (ch === "'" || ch === '"') { quote = ch; continue; }
    const step = steps[steps.length - 1];
    if (ch === "\n" || ch === ";" || (ch === "&" && text[i + 1] === "&")) {
      step[step.length - 1] += text.slice(start, i);
      if (ch === "&") i++;
      steps.push([""]);
      start = i + 1;
      continue;
    }
    // `a | b` and `a || b`: the work is `a` (b filters its output or reports its failure), unless
    // `a` only feeds `b` its input (`echo "<sql>" | sqlfluff lint -`): then the work is `b`.
    if (ch === "|") {
      step[step.length - 1] += text.slice(start, i);
      if (text[i + 1] === "|") { i++; step.push(OR_ELSE); } else step.push("");
      start = i + 1;
    }
  }
  const last = steps[steps.length - 1];
  last[last.length - 1] += text.slice(start);
  const mains = steps.map(workOfPipeline).filter((s) => s !== "");
  for (let i = mains.length - 1; i >= 0; i--) {
    if (SETUP_STEP.test(mains[i]) || (/^cat\b/.test(mains[i]) && />/.test(mains[i]))) continue;
    return mains[i];
  }
  return mains[mains.length - 1] ?? "";
}

/**
 * What a command tries, for telling retries from new attempts: a throwaway script in the temp
 * directory (written by the command, or by a write tool before it) is the same probe whatever its
 * body and file name: `cat > /tmp/a.py <<EOF … EOF; python /tmp/a.py` → `python <tmp>`.
 */
export function attemptShape(command: string): string {
  const c = command.replace(/^(?:cd\s+\S+\s*&&\s*)+/, "");
  if (!new RegExp(TEMP_PATH, "i").test(c)) return c;
  const main = mainCommand(c).replace(/^(?:\w+=\S*\s+)+/, "");
  return normaliseWhitespace(main).replace(new RegExp(TEMP_PATH, "gi"), "<tmp>");
}

export interface CommandRead {
  path: string;
  /** A range key ("12-40", "head:50") when the command reads part of the file; "" for the whole file. */
  range: string;
}

/** The programs commandRead knows, as a command line starts with one. */
const DISPLAY_PROGRAM = /^(?:cat|nl|sed|head|tail)\s/;

/**
 * The file a read-only display command shows (`cat f`, `sed -n 10,20p f`, `head -n 50 f`, `nl -ba f`),
 * or undefined for anything else (pipelines into other programs, several files, mutations).
 */
export function commandRead(command: string): CommandRead | undefined {
  const c = normaliseWhitespace(command).replace(/^cd\s+\S+\s*&&\s*/, "");
  // (each display command below starts with its program: most commands are judged no further)
  if (!DISPLAY_PROGRAM.test(c) || isMutatingCommand(c) || /[;&]|\|(?!\s*(?:head|tail|nl|cat\b|sed\s+-n))/.test(c)) return undefined;
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

/** Splits a simple command line into words, honouring single and double quotes (no expansion). */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(command)) !== null) words.push(m[1] ?? m[2] ?? m[3]);
  return words;
}

export interface CommandSearch {
  pattern: string;
  /** Where it looks: the paths given, or "." */
  scope: string;
}

/** Search flags that look in more places: rg --hidden/-u/-uu/--no-ignore/-L, grep -R/--dereference-recursive, -a. */
const SCOPE_FLAGS = /^(--hidden|--no-ignore\S*|-u+|--unrestricted|-L|--follow|-R|--dereference-recursive|-a|--text|--binary|--search-zip|-z)$/;

/** grep options that take a value (so that the value is not taken for the pattern). */
const GREP_VALUE_OPTIONS = new Set(["-e", "-f", "-m", "-A", "-B", "-C", "--include", "--exclude", "--exclude-dir", "-g", "--glob", "-t", "--type", "--max-count", "--context"]);

/**
 * The pattern and scope of a shell search (`grep -rn pat src`, `rg pat`, `git grep pat`,
 * `find dir -name pat`), optionally piped into head/wc/sort; undefined for anything else.
 */
export function commandSearch(command: string): CommandSearch | undefined {
  const c = normaliseWhitespace(command).replace(/^cd\s+\S+\s*&&\s*/, "");
  if (/[;&]/.test(c.replace(/2>&1|2>\/dev\/null/g, ""))) return undefined;
  const [head, ...pipes] = c.split(/\s*\|\s*/);
  if (pipes.some((p) => !/^(head|tail|wc|sort|uniq|cut|grep -v)\b/.test(p))) return undefined;
  const words = shellWords(head.replace(/\s*2>(&1|\/dev\/null)/g, ""));
  let i = 0;
  if (words[0] === "git" && words[1] === "grep") i = 2;
  else if (["grep", "egrep", "fgrep", "rg", "ag", "ack"].includes(words[0])) i = 1;
  else if (words[0] === "find") {
    const nameAt = words.findIndex((w) => w === "-name" || w === "-iname" || w === "-path");
    if (nameAt < 0 || nameAt + 1 >= words.length) return undefined;
    const roots = words.slice(1, words.findIndex((w, k) => k > 0 && w.startsWith("-")));
    return { pattern: words[nameAt + 1], scope: roots.length > 0 ? roots.join(" ") : "." };
  } else return undefined;
  let pattern: string | undefined;
  const paths: string[] = [];
  const widening: string[] = [];
  for (; i < words.length; i++) {
    const w = words[i];
    if (w === "-e" && pattern === undefined && i + 1 < words.length) { pattern = words[++i]; continue; }
    if (GREP_VALUE_OPTIONS.has(w)) {
      if (i + 1 < words.length && /^(--include|--exclude|--exclude-dir|-g|--glob|-t|--type)$/.test(w)) widening.push(`${w}=${words[i + 1]}`);
      i++;
      continue;
    }
    if (w.startsWith("-")) {
      // Flags that search more places (hidden, ignored, binary files, symlinks) widen the scope too.
      if (SCOPE_FLAGS.test(w)) widening.push(w);
      continue;
    }
    if (pattern === undefined) pattern = w; else paths.push(w);
  }
  if (pattern === undefined) return undefined;
  const scope = paths.length > 0 ? paths.join(" ") : ".";
  return { pattern, scope: widening.length > 0 ? `${scope} ${widening.sort().join(" ")}` : scope };
}

/** Programs that only read or report (a step starting with one of them changes no file). */
const READ_ONLY_STEP = /^(?:cat|head|tail|less|more|nl|wc|ls|tree|stat|file|du|df|pwd|which|type|echo|printf|cd|pushd|popd|true|false|sleep|test|\[|sort|uniq|cut|tr|column|diff|cmp|jq|grep|egrep|fgrep|rg|ag|ack|sed(?!\s+(?:-[a-zA-Z]*i|--in-place))|awk|find(?!.*\s-(?:delete|exec|execdir|ok|fprint)\b)|git\s+(?:diff|log|show|status|blame|grep|ls-files|rev-parse|branch\s*$))(?:\s|$)/;
/** Inline scripts: their body can do anything to any path it names. */
const INLINE_SCRIPT = /\b(?:python[\d.]*|node|perl|ruby|php|deno|bun)\s+(?:-\S*\s+)*(?:-[ce]\b|--eval\b|-\s*<<|<<)/;
/** Path-like words: with a slash, or a file name with an extension (`voting.py`, `src/a.ts`). */
const PATH_WORD = /(?:[\w.~-]*\/)*[\w-][\w.-]*\.[A-Za-z][\w]{0,7}\b|(?:[\w.~-]+\/)+[\w.-]+/g;
const MAX_NAMED_PATHS = 64;

/**
 * The paths a command may have changed: every path it names (in an inline script's body too), unless
 * it is known to only read. `python - <<PY … Path('pkg/voting.py').write_text(…)` may have rewritten
 * pkg/voting.py even when the command failed afterwards. Empty for read-only commands.
 */
export function pathsMaybeWritten(command: string): string[] {
  // Every PATH_WORD has a `/` or a `.`: a command without either (`npm test -- --grep x`) names no
  // path, whether it only reads or not (file-reread asks at every command).
  if (!command.includes("/") && !command.includes(".")) return [];
  const line = withoutHeredocBodies(command);
  const inline = INLINE_SCRIPT.test(command);
  if (!inline) {
    // Separators inside quotes do not split (a rough cut: quoted text emptied first).
    const steps = withoutQuoted(line).split(/&&|\|\||[;|\n]/).map((s) => s.trim().replace(/^(?:\w+=\S*\s+)+/, "")).filter((s) => s !== "");
    if (!isMutatingCommand(command) && steps.every((s) => READ_ONLY_STEP.test(s))) return [];
  }
  const out = new Set<string>();
  for (const m of (inline ? command : line).matchAll(PATH_WORD)) {
    const p = m[0].replace(/^\.\//, "");
    if (/^\.+$/.test(p) || /^\d/.test(p) || /:\/\//.test(p)) continue;
    out.add(p);
    if (out.size >= MAX_NAMED_PATHS) break;
  }
  return [...out];
}

/** Whether a path a command names is the path a read named (`voting.py`, `./pkg/voting.py`, `/repo/pkg/voting.py`). */
export function samePathNamed(named: string, read: string): boolean {
  const a = named.startsWith("./") ? named.slice(2) : named;
  const b = read.startsWith("./") ? read.slice(2) : read;
  return a === b || endsWithSegment(b, a) || endsWithSegment(a, b);
}

/** `path.endsWith("/" + tail)`, without writing that string out (this runs for every remembered path). */
function endsWithSegment(path: string, tail: string): boolean {
  return path.length > tail.length && path.charCodeAt(path.length - tail.length - 1) === 47 && path.endsWith(tail);
}

/** Programs that neither look at the project nor change it: their output tells nothing new. */
const NO_OP_PROGRAMS = "true|false|:|echo|printf|pwd|cd|clear|date|whoami|sleep|exit|hostname";
const NO_OP_PROGRAM = new RegExp(`^(?:${NO_OP_PROGRAMS})$`);
/** A command line starting with one (as its first word, or cut off by a separator). */
const NO_OP_START = new RegExp(`^(?:${NO_OP_PROGRAMS})(?:[\\s;&|]|$)`);

/**
 * Whether a command only goes through the motions (`true`, `echo ok`, `cd .`, `pwd`, `sleep 1 && echo
 * done`): every step is a no-op program and nothing is redirected to a file.
 */
export function isTrivialCommand(command: string): boolean {
  const c = normaliseWhitespace(command);
  // (its first step's program must be one: most commands are judged no further)
  if (!NO_OP_START.test(c)) return false;
  const bare = withoutQuoted(c);
  if (bare === "" || REDIRECT_TO_FILE.test(bare) || /[`$]\(|`/.test(bare)) return false;
  return bare.split(/&&|\|\||[;|\n]/).every((step) => NO_OP_PROGRAM.test(step.trim().split(" ")[0] ?? ""));
}

/**
 * The project file a command writes whole with a heredoc (`cat > src/a.py <<'EOF' … EOF`, possibly
 * followed by running it): a whole-file write, as a write tool's. Undefined for other commands and
 * for throwaway files in the temp directory.
 */
export function heredocWriteTarget(command: string): string | undefined {
  const m = /^\s*cat\s*(?:<<-?\s*(['"]?)(\w+)\1\s*>\s*([^\s;&|<>]+)|>\s*([^\s;&|<>]+)\s*<<-?\s*(['"]?)(\w+)\5)[ \t]*\n/.exec(command);
  const path = m?.[3] ?? m?.[4];
  return path === undefined || isTempPath(path) ? undefined : path.replace(/^\.\//, "");
}
