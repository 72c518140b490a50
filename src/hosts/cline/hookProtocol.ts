/**
 * The local channel between Loop Sentinel's Cline `PreToolUse` hook and whatever runs the engine
 * (the extension, or `loop-sentinel watch --cline-data`). Plain Node, no `vscode`: the hook script,
 * the CLI and the extension all bundle it.
 *
 * Channel: one Unix socket (Windows: named pipe) per serving process, in a folder only the user can
 * enter: `$XDG_RUNTIME_DIR/loop-sentinel/` or `<tmpdir>/loop-sentinel-<uid>/` (mode 0700, checked).
 * No TCP. One request line, one reply line, newline-delimited JSON, then the connection closes.
 *
 * What Cline hands a `PreToolUse` hook on stdin (captured from the real programs, see
 * test/fixtures/cline-hook/):
 * - classic core (extension v3, CLI 2.x): `{hookName: "PreToolUse", taskId: "<task folder id>",
 *   preToolUse: {toolName, parameters: {<name>: "<string>"}}}`;
 * - SDK core (extension v4, CLI 3.x): `{hookName: "tool_call", taskId: "conv_…",
 *   sessionContext: {rootSessionId: "<session folder id>"}, tool_call: {id, name, input},
 *   preToolUse: {toolName, parameters}}`.
 * What it reads back on stdout: `{cancel, contextModification, errorMessage}`. Both cores end the
 * whole run on `cancel: true` (classic: the task is cancelled and asks to resume; SDK: the run is
 * aborted). `contextModification` reaches the model next to that call's result.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isRecord } from "../../engine/json";

export const PROTOCOL_VERSION = 1;
/** The hook gives up on the channel after this long and lets the call through. */
export const HOOK_DEADLINE_MS = 300;
/** Longest request or reply line accepted (a call's input is cut down to fit). */
export const MAX_LINE_BYTES = 256 * 1024;

export type ClineEngine = "classic" | "sdk";

/** A tool call Cline is about to run, as the hook reports it. */
export interface HookQuery {
  engine: ClineEngine;
  /** The task (classic) or session (SDK) folder id: the id the task-file watcher knows it by. */
  taskId: string;
  /** SDK only: the model's tool-call id, the same as in the session file. */
  toolCallId?: string;
  toolName: string;
  input: Record<string, unknown>;
}

export type HookAction = "allow" | "warn" | "block" | "stop";

export interface HookReply {
  /** The server follows this task (a server watching other folders says false). */
  known: boolean;
  action: HookAction;
  message?: string;
  detector?: string;
  summary?: string;
}

export interface ChannelRequest { v: number; type: "preToolUse"; query: HookQuery }
export interface ChannelReply extends HookReply { v: number }

/** What Cline reads from the hook's stdout. */
export interface ClineHookOutput { cancel: boolean; contextModification?: string; errorMessage?: string }

const ALLOW: ClineHookOutput = { cancel: false };

/**
 * Parses the JSON Cline writes to the hook's stdin. Undefined for anything that is not a
 * PreToolUse call we can name (the hook then lets the call through).
 */
export function parseHookInput(text: string): HookQuery | undefined {
  let doc: unknown;
  try { doc = JSON.parse(text); } catch { return undefined; }
  if (!isRecord(doc)) return undefined;
  const call = isRecord(doc.tool_call) ? doc.tool_call : undefined;
  if (call && typeof call.name === "string") {
    const session = isRecord(doc.sessionContext) && typeof doc.sessionContext.rootSessionId === "string" ? doc.sessionContext.rootSessionId : undefined;
    const taskId = session ?? (typeof doc.taskId === "string" ? doc.taskId : undefined);
    if (!taskId) return undefined;
    const input = isRecord(call.input) ? call.input : call.input === undefined ? {} : { value: call.input };
    const query: HookQuery = { engine: "sdk", taskId, toolName: call.name, input };
    if (typeof call.id === "string") query.toolCallId = call.id;
    return query;
  }
  const pre = isRecord(doc.preToolUse) ? doc.preToolUse : undefined;
  if (!pre || typeof pre.toolName !== "string" || typeof doc.taskId !== "string") return undefined;
  const params = isRecord(pre.parameters) ? pre.parameters : {};
  return { engine: "classic", taskId: doc.taskId, toolName: pre.toolName, input: classicInput(params) };
}

/**
 * Classic Cline hands every parameter as the model wrote it, as a string; its task file (what the
 * watcher counts) keeps fewer: approval flags and progress lists are not part of what the call does.
 */
function classicInput(params: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) {
    if (k === "requires_approval" || k === "task_progress") continue;
    input[k] = k === "recursive" && (v === "true" || v === "false") ? v === "true" : v;
  }
  return input;
}

/** The engine's verdict on the call, in the words Cline's hook contract understands. */
export function clineOutputFor(reply: HookReply | undefined): ClineHookOutput {
  if (!reply || !reply.message) return ALLOW;
  const text = /^Loop Sentinel\b/.test(reply.message) ? reply.message : `Loop Sentinel: ${reply.message}`;
  if (reply.action === "warn") return { cancel: false, contextModification: text };
  if (reply.action === "block" || reply.action === "stop") return { cancel: true, errorMessage: text };
  return ALLOW;
}

/** The stronger of two replies (a server that knows the task beats one that does not). */
export function strongerReply(a: HookReply | undefined, b: HookReply | undefined): HookReply | undefined {
  if (!a) return b;
  if (!b) return a;
  if (a.known !== b.known) return a.known ? a : b;
  const rank: Record<HookAction, number> = { allow: 0, warn: 1, block: 2, stop: 3 };
  return rank[b.action] > rank[a.action] ? b : a;
}

/** Checks one reply line; undefined when it is not a reply of ours. */
export function parseReply(line: string): HookReply | undefined {
  let doc: unknown;
  try { doc = JSON.parse(line); } catch { return undefined; }
  if (!isRecord(doc) || doc.v !== PROTOCOL_VERSION || typeof doc.known !== "boolean") return undefined;
  if (doc.action !== "allow" && doc.action !== "warn" && doc.action !== "block" && doc.action !== "stop") return undefined;
  const reply: HookReply = { known: doc.known, action: doc.action };
  if (typeof doc.message === "string") reply.message = doc.message;
  if (typeof doc.detector === "string") reply.detector = doc.detector;
  if (typeof doc.summary === "string") reply.summary = doc.summary;
  return reply;
}

/** Checks one request line. */
export function parseRequest(line: string): HookQuery | undefined {
  let doc: unknown;
  try { doc = JSON.parse(line); } catch { return undefined; }
  if (!isRecord(doc) || doc.v !== PROTOCOL_VERSION || doc.type !== "preToolUse" || !isRecord(doc.query)) return undefined;
  const q = doc.query;
  if ((q.engine !== "classic" && q.engine !== "sdk") || typeof q.taskId !== "string" || typeof q.toolName !== "string" || !isRecord(q.input)) return undefined;
  const query: HookQuery = { engine: q.engine, taskId: q.taskId, toolName: q.toolName, input: q.input };
  if (typeof q.toolCallId === "string") query.toolCallId = q.toolCallId;
  return query;
}

export function encodeRequest(query: HookQuery): string {
  return JSON.stringify({ v: PROTOCOL_VERSION, type: "preToolUse", query } satisfies ChannelRequest) + "\n";
}

export function encodeReply(reply: HookReply): string {
  return JSON.stringify({ v: PROTOCOL_VERSION, ...reply } satisfies ChannelReply) + "\n";
}

/** The folder that holds the serving processes' sockets; the env var overrides it (tests, odd setups). */
export function channelDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LOOP_SENTINEL_CHANNEL_DIR) return env.LOOP_SENTINEL_CHANNEL_DIR;
  if (process.platform !== "win32" && env.XDG_RUNTIME_DIR) return path.join(env.XDG_RUNTIME_DIR, "loop-sentinel");
  const uid = typeof process.getuid === "function" ? process.getuid() : os.userInfo().username;
  return path.join(os.tmpdir(), `loop-sentinel-${uid}`);
}

/** This process's endpoint: a socket file in the channel folder, or a named pipe on Windows. */
export function endpointFor(dir: string, pid = process.pid): string {
  if (process.platform === "win32") return `\\\\.\\pipe\\loop-sentinel-${Buffer.from(dir).toString("hex").slice(-24)}-cline-${pid}`;
  return path.join(dir, `cline-${pid}.sock`);
}

const ENDPOINT_NAME = /^cline-(\d+)\.sock$/;

/** What a client says on stderr when it will not use the channel (one line per call). */
export type ChannelWarn = (line: string) => void;
const stderrWarn: ChannelWarn = (line) => { try { process.stderr.write(`${line}\n`); } catch { /* no stderr: nothing to tell */ } };

function ownUid(): number | undefined {
  return typeof process.getuid === "function" ? process.getuid() : undefined;
}

/**
 * Why `dir` may not carry the channel, or undefined when it may: it must be a real folder (not a
 * link), owned by this user, with no permission bits for group or others. Anyone else who can
 * create or own a socket in it could answer the agent's guard (put text in its context, refuse
 * every call) or keep the user's own server out.
 */
export function channelDirProblem(dir: string): string | undefined {
  if (process.platform === "win32") return undefined; // named pipes: no folder
  let st: fs.Stats;
  try { st = fs.lstatSync(dir); } catch (err) { return `${dir} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`; }
  if (st.isSymbolicLink()) return `${dir} is a link, not a folder`;
  if (!st.isDirectory()) return `${dir} is not a folder`;
  const uid = ownUid();
  if (uid !== undefined && st.uid !== uid) return `${dir} belongs to another user (uid ${st.uid}, you are ${uid})`;
  if ((st.mode & 0o077) !== 0) return `${dir} is open to other users (mode ${(st.mode & 0o777).toString(8).padStart(4, "0")})`;
  return undefined;
}

/** Why one endpoint file may not be asked, or undefined when it may: one this user owns. */
function endpointProblem(file: string): string | undefined {
  let st: fs.Stats;
  try { st = fs.lstatSync(file); } catch { return undefined; } // gone since the listing: nothing to ask
  const uid = ownUid();
  if (uid !== undefined && st.uid !== uid) return `${file} belongs to another user (uid ${st.uid})`;
  return undefined;
}

/**
 * Every serving process's endpoint, with its pid (a dead pid's socket is left over from a crash).
 * Only in a private folder (channelDirProblem) and only sockets this user owns: the rest is left
 * out, and `warn` gets one line saying why. A missing folder is simply no server.
 */
export function listEndpoints(dir: string, warn: ChannelWarn = stderrWarn): { endpoint: string; pid: number }[] {
  if (process.platform === "win32") {
    const prefix = `loop-sentinel-${Buffer.from(dir).toString("hex").slice(-24)}-cline-`;
    let names: string[] = [];
    try { names = fs.readdirSync("\\\\.\\pipe\\"); } catch { return []; }
    return names.filter((n) => n.startsWith(prefix)).map((n) => ({ endpoint: `\\\\.\\pipe\\${n}`, pid: Number(n.slice(prefix.length)) }));
  }
  if (!fs.existsSync(dir)) return [];
  const problem = channelDirProblem(dir);
  if (problem) {
    warn(`loop-sentinel: not using the hook channel: ${problem}; letting the call through`);
    return [];
  }
  let names: string[];
  try { names = fs.readdirSync(dir); } catch { return []; }
  const out: { endpoint: string; pid: number }[] = [];
  const refused: string[] = [];
  for (const n of names) {
    const m = ENDPOINT_NAME.exec(n);
    if (!m) continue;
    const endpoint = path.join(dir, n);
    const why = endpointProblem(endpoint);
    if (why) refused.push(why);
    else if (!fs.lstatSync(endpoint, { throwIfNoEntry: false })?.isSocket()) continue; // a crash's leftover file, or gone: nothing to ask
    else out.push({ endpoint, pid: Number(m[1]) });
  }
  if (refused.length > 0) warn(`loop-sentinel: skipped ${refused.length} hook endpoint(s) not safe to ask: ${refused[0]}${refused.length > 1 ? ", ..." : ""}`);
  return out;
}

/**
 * Creates the channel folder (0700) or checks an existing one: a real folder (not a link), owned by
 * this user, closed to others (an own folder left open is closed first). Throws with the reason
 * otherwise: serving there would let another user talk to the agent's guard.
 */
export function ensurePrivateDir(dir: string): void {
  if (process.platform === "win32") return; // named pipes: no folder
  try { fs.mkdirSync(dir, { recursive: true, mode: 0o700 }); } catch { /* something is there already: checked below */ }
  let problem = channelDirProblem(dir);
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  const uid = ownUid();
  if (problem && st?.isDirectory() && (uid === undefined || st.uid === uid) && (st.mode & 0o077) !== 0) {
    fs.chmodSync(dir, 0o700);
    problem = channelDirProblem(dir);
  }
  if (problem) throw new Error(`cannot serve the Cline hook channel: ${problem}. Remove it, or set LOOP_SENTINEL_CHANNEL_DIR (watch: --channel-dir) to a folder of your own`);
}

/** Cuts a call's input down to fit a request line (long file contents are not needed to count it). */
export function boundedInput(input: Record<string, unknown>, maxChars = 64 * 1024): Record<string, unknown> {
  if (JSON.stringify(input).length <= maxChars) return input;
  const out: Record<string, unknown> = {};
  const share = Math.floor(maxChars / Math.max(1, Object.keys(input).length));
  for (const [k, v] of Object.entries(input)) {
    const s = typeof v === "string" ? v : JSON.stringify(v) ?? "";
    out[k] = s.length > share ? s.slice(0, share) : v;
  }
  return out;
}
