/**
 * Both ends of the hook channel (see hookProtocol.ts): the server the extension and `watch` run,
 * and the client the hook script uses. Plain Node.
 */
import * as fs from "node:fs";
import type * as Net from "node:net";
import {
  encodeReply, encodeRequest, endpointFor, ensurePrivateDir, listEndpoints, MAX_LINE_BYTES, parseReply, parseRequest,
  strongerReply, type HookQuery, type HookReply,
} from "./hookProtocol";

/**
 * node:net, loaded when first used: a hook that finds no running Loop Sentinel never connects, and
 * loading it would cost every such hook call about 2 ms of its start.
 */
let netModule: typeof Net | undefined;
function net(): typeof Net {
  return (netModule ??= require("node:net") as typeof Net);
}

/** A connection that sends no complete line within this long is dropped. */
const SERVER_READ_MS = 2_000;
/**
 * Connections waiting to be accepted: an agent running many calls at once (or several agents) can
 * start thousands of hooks together; Node's default of 511 refuses the rest at once. The system
 * caps it (net.core.somaxconn, 4096 on current Linux).
 */
const LISTEN_BACKLOG = 8_192;
/** A connection refused because the server's queue is full is tried again after about this long. */
const RETRY_MS = 10;
const RETRY_MAX_MS = 80;

export interface HookServerOptions {
  dir: string;
  /** Answers one query; must be quick (the hook waits at most HOOK_DEADLINE_MS). */
  answer(query: HookQuery): HookReply;
  onError?(message: string): void;
}

/** Listens on this process's endpoint in the channel folder until close(). */
export class HookServer {
  private server: Net.Server | undefined;
  readonly endpoint: string;

  constructor(private readonly options: HookServerOptions) {
    this.endpoint = endpointFor(options.dir);
  }

  /** Throws "cannot serve the Cline hook channel: <why>" when the folder is not private (ensurePrivateDir) or the socket cannot listen. */
  async listen(): Promise<void> {
    ensurePrivateDir(this.options.dir);
    // Our own pid's socket can only be left from an earlier run of this process id: it is stale.
    if (process.platform !== "win32") { try { fs.unlinkSync(this.endpoint); } catch { /* none */ } }
    const server = net().createServer((socket) => this.serve(socket));
    server.on("error", (err) => this.options.onError?.(`hook channel: ${err.message}`));
    await new Promise<void>((resolve, reject) => {
      const failed = (err: Error) => reject(new Error(`cannot serve the Cline hook channel at ${this.endpoint}: ${err.message}`));
      server.once("error", failed);
      server.listen({ path: this.endpoint, backlog: LISTEN_BACKLOG }, () => { server.off("error", failed); resolve(); });
    });
    if (process.platform !== "win32") { try { fs.chmodSync(this.endpoint, 0o600); } catch { /* the folder is private anyway */ } }
    this.server = server;
  }

  private serve(socket: Net.Socket): void {
    let buf = "";
    socket.setEncoding("utf8");
    socket.setTimeout(SERVER_READ_MS, () => socket.destroy());
    socket.on("error", () => { /* the hook gave up: nothing to do */ });
    socket.on("data", (chunk: string) => {
      buf += chunk;
      const nl = buf.indexOf("\n");
      if (nl < 0) {
        if (buf.length > MAX_LINE_BYTES) socket.destroy();
        return;
      }
      const query = parseRequest(buf.slice(0, nl));
      let reply: HookReply;
      if (!query) reply = { known: false, action: "allow" };
      else {
        try { reply = this.options.answer(query); } catch (err) {
          this.options.onError?.(`hook channel: answering failed: ${(err as Error).message}`);
          reply = { known: false, action: "allow" };
        }
      }
      socket.end(encodeReply(reply));
    });
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (process.platform !== "win32") { try { fs.unlinkSync(this.endpoint); } catch { /* gone */ } }
  }
}

/**
 * Asks one endpoint; undefined on any failure or when the deadline passes. A connection refused
 * because the server's queue is full (a flood of hooks at once) is tried again until the deadline.
 */
function askOne(endpoint: string, line: string, deadline: number): Promise<HookReply | undefined> {
  return new Promise((resolve) => {
    let done = false;
    let socket: Net.Socket | undefined;
    let retry: NodeJS.Timeout | undefined;
    let tries = 0;
    const finish = (r: HookReply | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(retry);
      socket?.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => finish(undefined), Math.max(0, deadline - Date.now()));
    const attempt = () => {
      retry = undefined;
      if (done) return;
      let buf = "";
      let connected = false;
      const s = net().createConnection(endpoint);
      socket = s;
      s.setEncoding("utf8");
      s.on("connect", () => { connected = true; s.write(line); });
      s.on("data", (chunk: string) => {
        buf += chunk;
        const nl = buf.indexOf("\n");
        if (nl >= 0) finish(parseReply(buf.slice(0, nl)));
        else if (buf.length > MAX_LINE_BYTES) finish(undefined);
      });
      s.on("error", (err: NodeJS.ErrnoException) => {
        const queueFull = !connected && (err.code === "EAGAIN" || err.code === "ECONNREFUSED");
        if (!queueFull || Date.now() + RETRY_MS >= deadline) { finish(undefined); return; }
        s.destroy();
        // Backing off (with jitter) keeps a flood of hooks from hammering a server that is catching up.
        const wait = Math.min(RETRY_MAX_MS, RETRY_MS * 2 ** tries++) * (0.5 + Math.random());
        retry = setTimeout(attempt, Math.min(wait, Math.max(0, deadline - Date.now() - 1)));
      });
      s.on("close", () => { if (socket === s && !retry) finish(buf.includes("\n") ? parseReply(buf.slice(0, buf.indexOf("\n"))) : undefined); });
    };
    attempt();
  });
}

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (err) { return (err as NodeJS.ErrnoException).code === "EPERM"; }
}

/**
 * Asks every serving process at once and takes the strongest answer from one that knows the task.
 * Never waits past `timeoutMs`; no server, a dead one, a slow one or a garbled answer count as "allow".
 * Only asks sockets this user owns in a folder closed to others (listEndpoints): a channel another
 * user could have set up is not asked at all, and stderr gets one line saying why.
 */
export async function askChannel(dir: string, query: HookQuery, timeoutMs: number): Promise<HookReply | undefined> {
  const deadline = Date.now() + timeoutMs;
  const endpoints = listEndpoints(dir).filter((e) => alive(e.pid));
  if (endpoints.length === 0) return undefined;
  const line = encodeRequest(query);
  const replies = await Promise.all(endpoints.map((e) => askOne(e.endpoint, line, deadline)));
  let best: HookReply | undefined;
  for (const r of replies) best = strongerReply(best, r);
  return best;
}
