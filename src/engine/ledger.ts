/**
 * The session's record of tool calls: one normalisation (kind, signature, target), one
 * progress epoch, one notion of parallel batch, shared by every tool detector. Bounded.
 */
import type { ToolCallEvent, ToolResultEvent } from "./events";
import { resultText } from "./events";
import { commandRead, commandSearch, isMutatingCommand, isTempPath, isTrivialCommand, isWaitCommand, samePathNamed, tempFolderOf, waitSeconds } from "./shellCommands";
import { callSignature, callTarget, commandExitedNonZero, repeatKeyOf, errorFingerprint, exactInputKey, failedExitStatus, hashText, normaliseWhitespace, replacementOf, saysNothingChanged, stableOutput, writtenContentOf, addedFileOf } from "./signatures";
import type { ToolKind, ToolKnowledge } from "./toolKnowledge";
import { safeJsonStringify } from "./json";
import { BoundedMap } from "./boundedMap";
import { commandMatches, NO_INTENT, repetitionIntent, type RepetitionIntent } from "./intent";
import { leadsWithFailure, saysNotApplied } from "./news";

export interface CallResult {
  ok: boolean;
  text: string;
  /** Hash of the output text with durations and clock times masked (same result ⇔ same hash, up to collisions). */
  outputHash: string;
  /** Normalised first error line, for failures. */
  errorFingerprint?: string;
  /** Whether the answer says it found nothing (search answers; judged once, on first asking: see foundNothingIn). */
  nothingFound?: boolean;
  eventIndex: number;
  ts?: number;
}

/** One file (or part of one) that a call shows: a read tool or a display command such as `cat`. */
export interface FileRead {
  path: string;
  /** Which part: "" for the whole file, "12-40", "offset:200+100", "head:50"... */
  range: string;
}

/** What a search call (native or `grep`/`rg`/`find` in a shell) looks for, and where. */
export interface SearchInfo {
  pattern: string;
  scope: string;
}

export interface CallRecord {
  id: string;
  name: string;
  kind: ToolKind;
  input: Record<string, unknown>;
  /** Tool + stable input, volatile fields dropped; edits keyed by path + target text. */
  signature: string;
  /** The signature with commands loosened (flags and spelling of operands ignored), for output-aware repeat counts. */
  repeatKey: string;
  /** Hash of tool + the whole stable input, replacement text included (same edit, not just same target). */
  inputHash: string;
  /** Files the call shows, for re-read counting (native reads and shell display commands). */
  reads?: FileRead[];
  /** Pattern and scope, for search calls and shell searches. */
  search?: SearchInfo;
  /** Whether the call waits for time to pass (`sleep 60`): repeats after it are polls. */
  waits: boolean;
  /** How many waiting calls the session had made before this one. */
  waitCount: number;
  /** Seconds the session's waiting calls waited in all, this one included (a wait of unknown length counts an hour). */
  waitedSeconds: number;
  /**
   * How many runs of this call the user asked for in the latest message ("run `x` three times"
   * → 3; named without a count → 1); 0 when the user did not name it.
   */
  requested: number;
  /** Whether the user asked to wait for or poll something this call may be checking ("wait for CI"). */
  pollRequested: boolean;
  /** File, pattern, URL or command the call acts on. */
  target?: string;
  /** For command calls: the command line as given (newlines and heredocs kept). */
  command?: string;
  /** For command calls: whether the command changes files or state. */
  mutating: boolean;
  /** A command that does nothing (`echo ok`, `pwd`, `cd .`): judged once here, asked by several detectors. */
  noOp: boolean;
  /**
   * A write or edit that changes nothing: the content this session last wrote to that file with
   * nothing changed since, or a replacement equal to its target. Its success is no progress.
   */
  unchanging: boolean;
  eventIndex: number;
  ts?: number;
  /** Index of the request the call was made in: calls sharing it form one parallel batch. */
  requestIndex: number;
  /** Position within its batch (0 for the first call of a request). */
  batchPosition: number;
  /** Progress epoch when the call was made. */
  epoch: number;
  result?: CallResult;
}

/** How much of the latest user message is kept for telling requested repeats. */
const MAX_USER_TEXT = 8000;

/** What a wait of unknown length counts as, in seconds. */
const UNKNOWN_WAIT_SECONDS = 3600;
/** Files whose last written content is remembered, to tell a write that changes nothing. */
const MAX_WRITTEN_FILES = 256;
/** Call signatures whose latest outcome is remembered, to tell news. */
const MAX_OUTCOMES = 1024;
/**
 * How many calls the ledger keeps for detectors that look back: tool-cycle, the one reader, looks at
 * most its scan (64) plus its longest period (16) back. Each call kept holds its whole output, so a
 * longer history only keeps outputs past a young-generation GC (promoted, medium-lived garbage).
 */
export const LEDGER_HISTORY = 80;
/** Calls waiting for a result beyond this are forgotten oldest first (a host that never reports results). */
export const LEDGER_MAX_PENDING = 512;
/** Workspace folders in the temp directory remembered (a session works in one or two). */
const MAX_TEMP_FOLDERS = 16;

export class ToolLedger {
  private pending = new Map<string, CallRecord>();
  private readonly history: CallRecord[] = [];
  private epochValue = 0;
  private waitValue = 0;
  private waitedValue = 0;
  /** Per file: hash of the content this session last wrote to it, and the epoch that write left. */
  private readonly written = new BoundedMap<string, { hash: string; epoch: number; news: number }>(MAX_WRITTEN_FILES);
  /**
   * The file of the latest write and the epoch it left. Every write moves the epoch first, so only
   * the latest write can be one with nothing changed since.
   */
  private lastWrite: { path: string; epoch: number } | undefined;
  /** The command that made the latest change, what it answered, the epoch it opened and the news count then. */
  private lastCommandChange: { repeatKey: string; outputHash: string; epoch: number; news: number } | undefined;
  /** The edit (its exact input, hashed) that made the latest change, and the epoch it left. */
  private lastEdit: { hash: string; epoch: number } | undefined;
  /**
   * Results that told something new: a first success of a call, or an outcome that changed (reading
   * back what this session wrote excepted). A write repeated after news may be a considered choice.
   */
  private newsValue = 0;
  /**
   * Folders under the temp directory the session works in: it read, searched or listed something
   * there that it had not written itself (a checkout in /tmp). Writes there are the project's.
   */
  private readonly tempWorkspaces = new BoundedMap<string, true>(MAX_TEMP_FOLDERS);
  /** Throwaway files this session wrote in the temp directory: reading one back shows no workspace. */
  private readonly scratchWritten = new BoundedMap<string, true>(MAX_WRITTEN_FILES);
  /** Latest outcome per call signature, to tell news. */
  private readonly outcomes = new BoundedMap<string, string>(MAX_OUTCOMES);
  /** The latest user message, whitespace-normalised and cut, to tell requested repeats. */
  private userText = "";
  /** What the latest message said about repetition (see intent.ts). */
  private intent: RepetitionIntent = NO_INTENT;
  private batchRequest = -1;
  private batchSize = 0;

  constructor(private readonly tools: ToolKnowledge) {}

  get epoch(): number { return this.epochValue; }

  /** The user spoke: remember what they asked for, so that runs they requested are not a loop. */
  noteUserMessage(text: string): void {
    this.userText = normaliseWhitespace(text).slice(0, MAX_USER_TEXT);
    // Read with its line breaks: a line ends a sentence, and an ask is about its own sentences.
    this.intent = repetitionIntent(text.slice(0, MAX_USER_TEXT));
  }

  private requestedRuns(target: string | undefined, kind: ToolKind, command: string | undefined): number {
    // "Is it flaky? Run it 5 times", "re-run it a few times and tell me how often it fails": the runs
    // asked for are of a command, the one the request names (its test file, its script) or, when it
    // names nothing, any.
    if (kind === "command" && this.intent.counted && command !== undefined && (this.intent.explicit || commandMatches(this.intent, command))) return this.intent.times;
    if (target === undefined || this.userText === "") return 0;
    const t = normaliseWhitespace(target);
    return t.length >= 4 && this.userText.includes(t) ? this.intent.times : 0;
  }

  /** How many waiting calls (`sleep`, `gh run watch`) the session has made. */
  get waitCount(): number { return this.waitValue; }

  /** Calls in call order, oldest first, at most LEDGER_HISTORY of them (results attached when known). */
  get recent(): readonly CallRecord[] { return this.history; }

  /** The calls of the batch (request) in progress. */
  currentBatch(requestIndex: number): CallRecord[] {
    const out: CallRecord[] = [];
    for (let i = this.history.length - 1; i >= 0 && this.history[i].requestIndex === requestIndex; i--) out.unshift(this.history[i]);
    return out;
  }

  recordCall(ev: ToolCallEvent, eventIndex: number, requestIndex: number): CallRecord {
    const kind = this.tools.kindOfCall(ev.name, ev.input);
    const command = kind === "command" ? this.tools.commandOf(ev.input) : undefined;
    if (requestIndex !== this.batchRequest) { this.batchRequest = requestIndex; this.batchSize = 0; }
    const waits = command !== undefined && isWaitCommand(command);
    // A scratch file in the temp directory (a probe script) is not project progress; a file of a
    // workspace there (a checkout the session reads from) is, whether a tool or a command writes it.
    const scratch = (kind === "write" || kind === "edit") && this.isScratch(this.tools.pathOf(ev.input) ?? "");
    const mutating = ((kind === "write" || kind === "edit") && !scratch) || (command !== undefined && isMutatingCommand(command, this.isScratch));
    let reads: FileRead[] | undefined;
    let search: SearchInfo | undefined;
    if (kind === "read") reads = readsOf(ev.input, this.tools);
    else if (kind === "search") {
      const pattern = this.tools.patternOf(ev.input);
      if (pattern !== undefined) search = { pattern, scope: this.tools.searchScopeOf(ev.input) ?? "." };
    } else if (command !== undefined && !mutating) {
      const shown = commandRead(command);
      if (shown) reads = [shown];
      else search = commandSearch(command);
    }
    if (kind === "read" || kind === "search" || kind === "list") this.noteTempLooks(reads, kind === "search" ? search?.scope : kind === "list" ? this.tools.pathOf(ev.input) : undefined);
    // A wait of unknown length (`gh run watch`) counts as an hour: long, and the sum stays a number.
    if (waits) { this.waitValue++; this.waitedValue += Math.min(waitSeconds(command!), UNKNOWN_WAIT_SECONDS); }
    const signature = callSignature(ev.name, kind, ev.input, this.tools);
    // Outside edits and commands the signature is tool + stable input, which is the exact input key:
    // hash it rather than write the input out again.
    const exactKey = kind === "edit" || command !== undefined ? exactInputKey(ev.name, ev.input) : signature;
    const inputHash = hashText(exactKey);
    const target = callTarget(kind, ev.input, this.tools);
    const call: CallRecord = {
      id: ev.id,
      name: ev.name,
      kind,
      input: ev.input,
      signature,
      repeatKey: repeatKeyOf(ev.name, kind, ev.input, this.tools, signature),
      inputHash,
      reads,
      search,
      waits,
      waitCount: this.waitValue,
      waitedSeconds: this.waitedValue,
      requested: this.requestedRuns(target, kind, command),
      pollRequested: this.intent.waits && command !== undefined && commandMatches(this.intent, command),
      target,
      command,
      mutating,
      noOp: command !== undefined && kind === "command" && isTrivialCommand(command),
      unchanging: mutating && this.changesNothing(kind, ev.input, inputHash),
      eventIndex,
      ts: ev.ts,
      requestIndex,
      batchPosition: this.batchSize++,
      epoch: this.epochValue,
      // Present from the start, so that attaching the result later stores into the record itself
      // rather than growing it a separate property store.
      result: undefined,
    };
    // A host may reuse an id (a retried call): the newer call replaces the older pending one.
    this.pending.set(ev.id, call);
    if (this.pending.size > LEDGER_MAX_PENDING) this.pending.delete(this.pending.keys().next().value as string);
    this.history.push(call);
    if (this.history.length > LEDGER_HISTORY) this.history.shift();
    return call;
  }

  /** Attaches a result to its call; undefined when no call with that id is waiting. */
  recordResult(ev: ToolResultEvent, eventIndex: number): CallRecord | undefined {
    const call = this.pending.get(ev.id);
    if (!call) return undefined;
    this.pending.delete(ev.id);
    const text = resultText(ev);
    // A shell command that exited non-zero failed, even when the host reported the tool call as a
    // success; so did a change whose answer says it was not applied, or opens with an error.
    const ok = ev.ok && !failedExitStatus(text) && !(call.mutating && (saysNotApplied(text) || leadsWithFailure(text)));
    call.result = {
      ok,
      text,
      outputHash: hashText(stableOutput(text)),
      errorFingerprint: ok ? undefined : errorFingerprint(text),
      nothingFound: undefined,
      eventIndex,
      ts: ev.ts,
    };
    // "Success" that says nothing changed ("No changes detected", "0 replacements") is no progress either;
    // nor is the very command that made the latest change run again and answering the same (a second
    // `npm install`, the same heredoc written again, `docker compose up -d x` respelled with `--detach`
    // or quotes: flags and spelling aside, as repeat counts take it): it did what it did the first time.
    const last = this.lastCommandChange;
    const sameAgain = call.kind === "command" && last !== undefined && last.epoch === this.epochValue && last.news === this.newsValue && last.repeatKey === call.repeatKey && last.outputHash === call.result.outputHash;
    // (a command the host ran but whose exit status says it failed changed nothing to count on either)
    if (ok && call.mutating && !call.unchanging && !sameAgain && !(call.kind === "command" && commandExitedNonZero(text)) && !((call.kind === "write" || call.kind === "edit") && saysNothingChanged(text))) {
      this.epochValue++;
      this.noteWritten(call);
      this.lastEdit = call.kind === "edit" ? { hash: call.inputHash, epoch: this.epochValue } : undefined;
      this.lastCommandChange = call.kind === "command" ? { repeatKey: call.repeatKey, outputHash: call.result.outputHash, epoch: this.epochValue, news: this.newsValue } : undefined;
    } else if (!call.mutating) this.noteNews(call);
    return call;
  }

  /**
   * The one judgement of a throwaway file, for write tools and shell commands alike: in the temp
   * directory, outside a workspace there. A file judged so is the session's own (reading it back
   * makes no workspace of its folder).
   */
  private readonly isScratch = (path: string): boolean => {
    const scratch = isTempPath(path) && !this.inTempWorkspace(path);
    if (scratch) this.scratchWritten.set(path, true);
    return scratch;
  };

  private inTempWorkspace(path: string): boolean {
    const folder = tempFolderOf(path);
    return folder !== undefined && this.tempWorkspaces.peek(folder) !== undefined;
  }

  /** A look into a folder under the temp directory at something the session did not write there: a workspace. */
  private noteTempLooks(reads: readonly FileRead[] | undefined, where: string | undefined): void {
    if (reads) for (const r of reads) this.noteTempLook(r.path);
    if (where !== undefined) this.noteTempLook(where);
  }

  private noteTempLook(path: string): void {
    const folder = tempFolderOf(path);
    if (folder !== undefined && this.scratchWritten.peek(path) === undefined) this.tempWorkspaces.set(folder, true);
  }

  /** Whether this session wrote the file (named relative or absolute) and nothing changed since. */
  private wroteUnchanged(path: string): boolean {
    const w = this.lastWrite;
    return w !== undefined && w.epoch === this.epochValue && samePathNamed(w.path, path);
  }

  private noteNews(call: CallRecord): void {
    const result = call.result!;
    // Reading back a file this session wrote, unchanged since, shows its own writing.
    if (call.reads?.some((r) => this.wroteUnchanged(r.path))) return;
    const outcome = `${result.ok ? "ok" : "fail"}\u0001${result.outputHash}`;
    const before = this.outcomes.peek(call.signature);
    this.outcomes.set(call.signature, outcome);
    // A first failure says "still broken"; a first success, or an outcome that changed, is new.
    if (before === undefined ? result.ok : before !== outcome) this.newsValue++;
  }

  /** Whether a write or edit would leave its file as it is: see CallRecord.unchanging. */
  private changesNothing(kind: ToolKind, input: Record<string, unknown>, inputHash: string): boolean {
    // A patch that adds a whole file is a write of that file.
    if (kind === "edit" && addedFileOf(input) !== undefined) kind = "write";
    if (kind === "edit") {
      // The very edit that made the latest change, again with nothing changed since: whether it took
      // or not, doing it twice changes nothing more.
      const last = this.lastEdit;
      if (last !== undefined && last.hash === inputHash && last.epoch === this.epochValue) return true;
      const replacement = replacementOf(input);
      return replacement !== undefined && replacement.target !== "" && normaliseWhitespace(replacement.target) === normaliseWhitespace(replacement.text);
    }
    if (kind !== "write") return false;
    const path = this.tools.pathOf(input);
    const content = writtenContentOf(input);
    if (path === undefined || content === undefined) return false;
    const last = this.written.peek(path);
    // Anything that changed since (another write, a command) may have changed the file: rewriting it is not idle.
    return last !== undefined && last.epoch === this.epochValue && last.news === this.newsValue && last.hash === hashText(content);
  }

  private noteWritten(call: CallRecord): void {
    if (call.kind !== "write" && addedFileOf(call.input) === undefined) return;
    const path = this.tools.pathOf(call.input);
    const content = writtenContentOf(call.input);
    if (path === undefined || content === undefined) return;
    this.written.set(path, { hash: hashText(content), epoch: this.epochValue, news: this.newsValue });
    this.lastWrite = { path, epoch: this.epochValue };
  }

  /**
   * A new request started: calls still waiting have been answered out of our sight
   * (hosts do not always report results). A mutation among them counts as progress.
   */
  settleUnanswered(): void {
    // Every request starts here, most with nothing waiting: clearing an empty Map would still make it a new table.
    if (this.pending.size === 0) return;
    for (const call of this.pending.values()) if (call.mutating && !call.unchanging) { this.epochValue++; break; }
    // a new map, not clear(): the calls waiting (outputs and all) die young (see LineRepeatDetector.onRequestStart)
    this.pending = new Map();
  }

  reset(): void {
    this.pending.clear();
    this.history.length = 0;
    this.batchRequest = -1;
    this.batchSize = 0;
    // The epoch keeps counting: detectors compare epochs, never reset them.
  }
}

/** Input keys that select part of a file. */
const RANGE_KEYS = ["offset", "limit", "start_line", "end_line", "startLine", "endLine", "line_range", "line_ranges", "view_range", "line_number", "lines", "range", "page"];

function rangeOf(entry: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const k of RANGE_KEYS) {
    const v = entry[k];
    if (v === undefined || v === null || v === "") continue;
    parts.push(`${k}=${typeof v === "object" ? safeJsonStringify(v) : String(v)}`);
  }
  return parts.join(",");
}

/**
 * The files a read call shows. Roo's read_file may carry several (`args.file[]` or `files[]`, each
 * with its own line ranges); other agents name one path with offset/limit or a line range.
 */
export function readsOf(input: Record<string, unknown>, tools: ToolKnowledge): FileRead[] | undefined {
  const list = (input.files ?? (input.args as Record<string, unknown> | undefined)?.file) as unknown;
  if (Array.isArray(list) && list.length > 0) {
    const out: FileRead[] = [];
    for (const f of list.slice(0, 32)) {
      if (typeof f !== "object" || f === null) continue;
      const path = tools.pathOf(f as Record<string, unknown>);
      if (path !== undefined) out.push({ path, range: rangeOf(f as Record<string, unknown>) });
    }
    return out.length > 0 ? out : undefined;
  }
  const path = tools.pathOf(input);
  return path === undefined ? undefined : [{ path, range: rangeOf(input) }];
}

/** A short human description of a call: `read_file src/a.ts`, `execute_command "npm test"`. */
export function describeCall(call: Pick<CallRecord, "name" | "target" | "input">, max = 80): string {
  let what = call.target;
  if (what === undefined) {
    const json = safeJsonStringify(call.input);
    what = json === "{}" ? "" : json;
  }
  if (what.length > max) what = what.slice(0, max - 1) + "…";
  return what === "" ? call.name : `${call.name} ${/\s/.test(what) ? JSON.stringify(what) : what}`;
}
