/**
 * The stream guard's HTTP side: a proxy on 127.0.0.1 between an agent and its model provider.
 * Model requests (Anthropic Messages, OpenAI Chat Completions and Responses, Gemini
 * generateContent) go through StreamGuardCore: the request may gain guidance or lose cut
 * reasoning, the streamed answer is read event by event and forwarded byte for byte as each event
 * completes, and may be cut. Everything else (model lists, token counts, unknown paths, a body
 * that is not JSON) passes through as it came.
 *
 * Trust: the base URL carries a per-guard random token and any request without it is refused;
 * requests go only to the configured upstream (no redirect is followed); authorization headers
 * pass through untouched and nothing here logs a header value or a body. If the upstream cannot
 * be reached the agent gets a 502 saying so, in its API's error shape, and retries as it would.
 */
import * as http from "node:http";
import * as https from "node:https";
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { EngineConfig } from "../../engine/config";
import { SseSplitter, type SseEvent } from "./sse";
import { streamReader, type WireFormat } from "./streamReaders";
import { errorAnswer, formatOf, ownAnswer, wantsStream } from "./requests";
import { cutWhole } from "./wholeAnswers";
import { MAX_GUARD_SESSIONS, StreamGuardCore, type GuardDeps, type GuardRecord, type RequestPlan } from "./guard";
import { BoundedMap } from "../../engine/boundedMap";
import { PLUGIN_HEADER } from "./pluginHeader";

/** A request body larger than this is not read whole: it is streamed upstream as it comes. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** A whole (non-streamed) answer larger than this is passed through unjudged. */
const MAX_WHOLE_ANSWER_BYTES = 16 * 1024 * 1024;
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer", "host", "content-length", PLUGIN_HEADER]);

export interface StreamGuardOptions {
  /** The provider's base URL the guard's base URL stands for (`https://api.anthropic.com`, `http://127.0.0.1:11434/v1`). */
  upstream: string;
  port?: number;
  /** The path token (tests); a random one otherwise. */
  token?: string;
  config: () => EngineConfig;
  report: (r: GuardRecord) => void;
  now?: () => number;
  /** Loop Sentinel's hook guards the agent's tool calls: the guard leaves tool findings to it. */
  toolsByHook?: boolean;
  /** The engine lives elsewhere (the extension's SessionManager): see GuardDeps.feed. */
  feed?: GuardDeps["feed"];
  /** Certificates to trust for an https upstream besides the system's (tests; users set NODE_EXTRA_CA_CERTS). */
  ca?: string | Buffer;
}

export interface ProxyStats { requests: number; guarded: number; passedThrough: number; refused: number; cuts: number; answeredHere: number; upstreamErrors: number; leftToPlugin: number }

export class StreamGuardProxy {
  readonly token: string;
  private readonly upstream: URL;
  private readonly core: StreamGuardCore;
  private server: http.Server | undefined;
  private readonly agent: http.Agent;
  readonly stats: ProxyStats = { requests: 0, guarded: 0, passedThrough: 0, refused: 0, cuts: 0, answeredHere: 0, upstreamErrors: 0, leftToPlugin: 0 };
  /** Sessions Loop Sentinel's plugin guards (reported once each). */
  private readonly pluginSessions = new BoundedMap<string, true>(MAX_GUARD_SESSIONS);
  /** Session keys of requests that offered tools: a later request of theirs without tools is a side request (a title, a summary). */
  private readonly toolSessions = new BoundedMap<string, true>(MAX_GUARD_SESSIONS);
  private base = "";

  constructor(private readonly options: StreamGuardOptions) {
    this.upstream = new URL(options.upstream);
    if (this.upstream.protocol !== "http:" && this.upstream.protocol !== "https:") throw new Error(`the upstream must be an http:// or https:// URL, got ${options.upstream}`);
    this.token = options.token ?? randomBytes(18).toString("base64url");
    this.core = new StreamGuardCore({ config: options.config, report: options.report, now: options.now ?? Date.now, toolsByHook: options.toolsByHook, feed: options.feed });
    this.agent = this.upstream.protocol === "https:" ? new https.Agent({ keepAlive: true, ...(options.ca ? { ca: options.ca } : {}) }) : new http.Agent({ keepAlive: true });
  }

  /** Starts listening on 127.0.0.1; returns the base URL to give the agent. */
  async listen(): Promise<string> {
    const server = http.createServer((req, res) => this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.options.port ?? 0, "127.0.0.1", () => { server.off("error", reject); resolve(); });
    });
    this.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/${this.token}`;
    return this.base;
  }

  get url(): string { return this.base; }

  /** The base URL of one named session (for an agent that sends no session id, e.g. the Copilot CLI). */
  sessionUrl(name: string): string { return `${this.base}.${encodeURIComponent(name)}`; }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    this.agent.destroy();
  }

  /** The session name a path's first segment gives, or undefined when it lacks the token. */
  private tokenOf(first: string): { name: string } | undefined {
    const dot = first.indexOf(".");
    const token = dot === -1 ? first : first.slice(0, dot);
    const a = Buffer.from(token);
    const b = Buffer.from(this.token);
    if (a.length !== b.length || !timingSafeEqual(a, b)) return undefined;
    let name = "default";
    try { if (dot !== -1) name = decodeURIComponent(first.slice(dot + 1)) || "default"; } catch { return undefined; }
    return { name };
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.stats.requests++;
    // A client that goes away mid-request is not the guard's failure: its socket's errors end that request only.
    req.on("error", () => res.destroy());
    res.on("error", () => { /* the client went away; res 'close' ends the upstream request */ });
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const rawPath = q === -1 ? url : url.slice(0, q);
    const query = q === -1 ? "" : url.slice(q + 1);
    const slash = rawPath.indexOf("/", 1);
    const first = slash === -1 ? rawPath.slice(1) : rawPath.slice(1, slash);
    const named = this.tokenOf(first);
    if (!named) {
      this.stats.refused++;
      req.resume();
      res.writeHead(403, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "Loop Sentinel stream guard: this address needs the guard's token (use the base URL it printed)" } }));
      return;
    }
    const rest = slash === -1 ? "" : rawPath.slice(slash);
    const base = this.upstream.pathname.replace(/\/+$/, "");
    const upstreamPath = `${base}${rest}${q === -1 ? "" : url.slice(q)}`;
    const format = formatOf(req.method ?? "GET", rest);
    const chunks: Buffer[] = [];
    let size = 0;
    let streamingBody: http.ClientRequest | undefined;
    req.on("data", (c: Buffer) => {
      if (streamingBody) return;
      chunks.push(c);
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        // Too large to read whole: sent on as it comes, unchanged.
        req.pause();
        streamingBody = this.forward(req, res, upstreamPath, undefined, Buffer.concat(chunks), true);
        req.on("data", (more: Buffer) => { if (!streamingBody!.write(more)) { req.pause(); streamingBody!.once("drain", () => req.resume()); } });
        req.on("end", () => streamingBody!.end());
        req.resume();
      }
    });
    req.on("end", () => {
      if (streamingBody) return;
      const body = Buffer.concat(chunks, size);
      if (!format) { this.stats.passedThrough++; this.forward(req, res, upstreamPath, undefined, body); return; }
      let parsed: Record<string, unknown> | undefined;
      try {
        const v: unknown = JSON.parse(body.toString("utf8"));
        if (v && typeof v === "object" && !Array.isArray(v)) parsed = v as Record<string, unknown>;
      } catch { /* not ours to judge: passed through as it came */ }
      if (!parsed) { this.stats.passedThrough++; this.forward(req, res, upstreamPath, undefined, body); return; }
      this.guarded(req, res, upstreamPath, format, parsed, body, named.name, rest, query);
    });
  }

  private guarded(req: http.IncomingMessage, res: http.ServerResponse, upstreamPath: string, format: WireFormat, parsed: Record<string, unknown>, body: Buffer, pathName: string, rest: string, query: string): void {
    const plugin = req.headers[PLUGIN_HEADER];
    if (plugin !== undefined) {
      // Loop Sentinel's plugin guards this session from inside its server: passed through untouched.
      const key = `plugin:${String(Array.isArray(plugin) ? plugin[0] : plugin).slice(0, 80)}`;
      if (!this.pluginSessions.peek(key)) { this.pluginSessions.set(key, true); this.options.report({ type: "left-to-plugin", session: key }); }
      this.stats.leftToPlugin++;
      this.stats.passedThrough++;
      this.forward(req, res, upstreamPath, undefined, body);
      return;
    }
    const { key, agent } = sessionOf(req.headers, format, pathName);
    const offersTools = Array.isArray(parsed.tools) && parsed.tools.length > 0;
    if (offersTools) this.toolSessions.set(key, true);
    else if (this.toolSessions.peek(key)) { this.stats.passedThrough++; this.forward(req, res, upstreamPath, undefined, body); return; }
    let plan: RequestPlan;
    try {
      plan = this.core.planRequest(key, agent, format, parsed);
    } catch (err) {
      // The guard's failure is never the agent's: the request goes on as it came.
      this.options.report({ type: "error", message: `while reading a ${format} request: ${(err as Error).message}` });
      this.stats.passedThrough++;
      this.forward(req, res, upstreamPath, undefined, body);
      return;
    }
    this.stats.guarded++;
    const stream = wantsStream(format, parsed, rest, query);
    if (plan.answer !== undefined) {
      this.stats.answeredHere++;
      const a = ownAnswer(format, parsed, plan.answer, stream);
      res.writeHead(200, { "content-type": a.contentType, "cache-control": "no-cache" });
      res.end(a.body);
      this.core.answeredHere(plan, format);
      return;
    }
    let out = body;
    if (plan.changed) {
      try { out = Buffer.from(JSON.stringify(parsed)); } catch { /* nested past what can be written back: sent as it came */ }
    }
    this.forward(req, res, upstreamPath, { format, plan, stream }, out);
  }

  /**
   * Sends the request upstream and its answer back: a guarded streamed answer through the reader,
   * anything else piped as it comes.
   */
  private forward(req: http.IncomingMessage, res: http.ServerResponse, path: string, guard: { format: WireFormat; plan: RequestPlan; stream: boolean } | undefined, body: Buffer, bodyFollows = false): http.ClientRequest {
    const headers: http.OutgoingHttpHeaders = {};
    const connectionListed = String(req.headers.connection ?? "").toLowerCase().split(",").map((s) => s.trim());
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined || HOP_BY_HOP.has(k) || connectionListed.includes(k)) continue;
      headers[k] = v;
    }
    headers.host = this.upstream.host;
    if (bodyFollows) headers["transfer-encoding"] = "chunked";
    else headers["content-length"] = String(body.length);
    // A guarded answer is read: it must come uncompressed.
    if (guard) headers["accept-encoding"] = "identity";
    const lib = this.upstream.protocol === "https:" ? https : http;
    const ureq = lib.request({ protocol: this.upstream.protocol, hostname: this.upstream.hostname, port: this.upstream.port || undefined, path, method: req.method, headers, agent: this.agent });
    let answered = false;
    ureq.on("error", (err) => {
      if (answered || res.destroyed) { res.destroy(); return; }
      answered = true;
      this.stats.upstreamErrors++;
      if (res.headersSent) { res.destroy(); return; }
      res.writeHead(502, { "content-type": "application/json" });
      res.end(errorAnswer(guard?.format, `Loop Sentinel stream guard: could not reach ${this.upstream.origin}: ${(err as NodeJS.ErrnoException).code ?? err.message}`));
    });
    res.on("close", () => { if (!res.writableFinished) ureq.destroy(); });
    ureq.on("response", (ures) => {
      answered = true;
      const status = ures.statusCode ?? 502;
      const rh: http.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(ures.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) rh[k] = v;
      const sse = String(ures.headers["content-type"] ?? "").includes("text/event-stream");
      const encoded = ures.headers["content-encoding"] !== undefined && ures.headers["content-encoding"] !== "identity";
      const json = String(ures.headers["content-type"] ?? "").includes("json");
      if (guard && !sse && json && status < 300 && !encoded) { this.judgeWhole(ures, res, status, ures.statusMessage, rh, guard.format, guard.plan); return; }
      if (!guard || !sse || !guard.stream || status >= 300 || encoded) {
        if (ures.headers["content-length"] !== undefined) rh["content-length"] = ures.headers["content-length"];
        res.writeHead(status, ures.statusMessage, rh);
        ures.pipe(res);
        if (guard && status < 300) ures.on("end", () => this.core.answered(guard.plan));
        ures.on("error", () => res.destroy());
        return;
      }
      // Headers go out with the first event (one packet, as a plain proxy sends them).
      res.writeHead(status, ures.statusMessage, rh);
      this.stream(ures, res, ureq, guard.format, guard.plan);
    });
    if (bodyFollows) ureq.write(body);
    else ureq.end(body);
    return ureq;
  }

  /** A guarded answer that came whole: read to its end, judged, and sent on as it came or cut. */
  private judgeWhole(ures: http.IncomingMessage, res: http.ServerResponse, status: number, message: string | undefined, rh: http.OutgoingHttpHeaders, format: WireFormat, plan: RequestPlan): void {
    const chunks: Buffer[] = [];
    let size = 0;
    let passing = false;
    ures.on("data", (c: Buffer) => {
      if (passing) { res.write(c); return; }
      chunks.push(c);
      size += c.length;
      if (size > MAX_WHOLE_ANSWER_BYTES) {
        // Too large to hold: sent on as it comes, unjudged.
        passing = true;
        res.writeHead(status, message, rh);
        res.write(Buffer.concat(chunks, size));
      }
    });
    ures.on("error", () => res.destroy());
    ures.on("end", () => {
      if (passing) { res.end(); return; }
      let body = Buffer.concat(chunks, size);
      try {
        const answer: unknown = JSON.parse(body.toString("utf8"));
        if (answer && typeof answer === "object" && !Array.isArray(answer)) {
          const verdict = this.core.whole(plan, format, answer as Record<string, unknown>);
          if (verdict) {
            cutWhole(format, answer as Record<string, unknown>, verdict.cut, verdict.chars, verdict.note);
            body = Buffer.from(JSON.stringify(answer));
            this.stats.cuts++;
            this.options.report({ type: "cut", session: plan.session.key, agent: plan.session.agent, action: verdict.action, format, streamedChars: verdict.chars, msFromFirstByte: 0, droppedCall: verdict.cut.part.kind === "call" ? "a tool call was not sent" : undefined });
          }
        }
      } catch (err) {
        this.options.report({ type: "error", message: `while reading a whole ${format} answer: ${(err as Error).message}` });
      }
      res.writeHead(status, message, { ...rh, "content-length": String(body.length) });
      res.end(body);
      this.core.answered(plan);
    });
  }

  /** A guarded SSE answer: each complete event is read, judged and forwarded (or held, or the answer cut). */
  private stream(ures: http.IncomingMessage, res: http.ServerResponse, ureq: http.ClientRequest, format: WireFormat, plan: RequestPlan): void {
    const splitter = new SseSplitter();
    const reader = streamReader(format, plan.answerAt);
    const events: SseEvent[] = [];
    let held: Buffer[] = [];
    let heldChars = 0;
    let passthrough = false;
    let finished = false;
    let streamedChars = 0;
    let firstByteAt: number | undefined;
    const now = this.options.now ?? Date.now;
    const write = (parts: Buffer[]) => {
      if (parts.length === 0) return;
      if (!res.write(parts.length === 1 ? parts[0] : Buffer.concat(parts))) {
        ures.pause();
        res.once("drain", () => ures.resume());
      }
    };
    ures.on("data", (chunk: Buffer) => {
      if (finished) return;
      firstByteAt ??= now();
      if (passthrough) { write([chunk]); return; }
      const out: Buffer[] = [];
      try {
        splitter.push(chunk, events);
        for (let i = 0; i < events.length; i++) {
          const ev = events[i];
          const r = reader.read(ev);
          const verdict = this.core.streamed(plan, r);
          let chars = 0;
          for (const p of r.pieces) chars += p.delta.length;
          if (verdict.kind === "cut") {
            finished = true;
            events.length = 0;
            write(out);
            const marks = reader.cutMarks();
            this.core.cut(plan, marks);
            // The event that decided is not forwarded: a call it completes (Gemini sends each whole) is dropped too.
            const droppedCall = held.length > 0 || r.hold ? "a tool call still streaming was not sent" : r.calls?.length ? "a tool call was not sent" : undefined;
            res.end(reader.end(verdict.note));
            ureq.destroy();
            ures.destroy();
            this.stats.cuts++;
            this.core.answered(plan);
            this.options.report({ type: "cut", session: plan.session.key, agent: plan.session.agent, action: verdict.action, format, streamedChars, msFromFirstByte: now() - firstByteAt, droppedCall });
            return;
          }
          if (r.release) { out.push(...held, ev.raw); streamedChars += heldChars + chars; held = []; heldChars = 0; continue; }
          if (held.length > 0 || r.hold) {
            held.push(ev.raw);
            heldChars += chars;
            if (r.calls) { out.push(...held); streamedChars += heldChars; held = []; heldChars = 0; }
            continue;
          }
          out.push(ev.raw);
          streamedChars += chars;
        }
        events.length = 0;
        if (splitter.overflowed) {
          // An event too long to judge: the rest of the answer passes through as it comes.
          passthrough = true;
          out.push(...held, splitter.takeRest());
          held = [];
        }
      } catch (err) {
        this.options.report({ type: "error", message: `while reading a ${format} answer: ${(err as Error).message}` });
        passthrough = true;
        events.length = 0;
        out.push(...held, splitter.takeRest());
        held = [];
      }
      write(out);
    });
    ures.on("end", () => {
      if (finished) return;
      finished = true;
      write([...held, splitter.takeRest()].filter((b) => b.length > 0));
      res.end();
      try { this.core.streamEnded(plan); } catch (err) { this.options.report({ type: "error", message: (err as Error).message }); }
      this.core.answered(plan);
    });
    ures.on("error", () => { if (!finished) { finished = true; res.destroy(); } });
  }
}

/** Which agent session a request belongs to: the id the agent sends, else the base URL's session name. */
export function sessionOf(headers: http.IncomingHttpHeaders, format: WireFormat, pathName: string): { key: string; agent: string } {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const claude = one(headers["x-claude-code-session-id"]);
  if (claude) return { key: `claude:${claude}`, agent: "claude" };
  const codex = one(headers["session-id"]);
  if (codex) return { key: `codex:${codex}`, agent: "codex" };
  const ua = String(one(headers["user-agent"]) ?? "").toLowerCase();
  const agent = ua.includes("copilot") ? "copilot" : ua.includes("gemini") ? "gemini" : format;
  return { key: `path:${pathName}`, agent };
}
