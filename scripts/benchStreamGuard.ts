/**
 * What the stream guard (`loop-sentinel proxy`) adds, against a bare pass-through proxy (pipe in,
 * pipe out, nothing read) in front of the same local provider serving the same Anthropic SSE
 * streams: time to first byte of a short answer to a 40 KB request (median, interleaved runs),
 * time for a long streamed answer (deltas of 1-40 characters, best of 3) and per event, 20
 * sessions streaming at once, and the heap over a 50 MB answer. The guard runs the whole engine on
 * every delta in warn-only mode (it reports, never cuts, so every stream runs to its end); a
 * second row has detection off (parsing and forwarding only).
 * Budget (issue 34): at most +2 ms median time to first byte.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { defaultConfig, type EngineConfig } from "../src/engine/config";
import { StreamGuardProxy } from "../src/hosts/streamGuard/proxy";
import { rng } from "./rng";

export const TTFB_BUDGET_MS = 2;

const WORDS = ("the a function returns config loader path value test error file module import export class should check whether this " +
  "that because then when before after update handler parser token stream request response cache index build compile run fix bug " +
  "issue option setting default user session event state detector result output input line column offset buffer window chunk hash").split(" ");


/** An Anthropic SSE answer of about `bytes` bytes, produced piece by piece (a 50 MB one is never held whole). */
function* answer(bytes: number, seed: number): Generator<string> {
  const r = rng(seed);
  const ev = (type: string, d: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...d })}\n\n`;
  yield ev("message_start", { message: { id: "msg_bench", type: "message", role: "assistant", model: "bench", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } });
  yield ev("content_block_start", { index: 0, content_block: { type: "thinking", thinking: "", signature: "" } });
  let written = 0;
  let text = "";
  while (written < bytes) {
    while (text.length < 40) {
      const n = 6 + Math.floor(r() * 14);
      for (let i = 0; i < n; i++) text += (r() < 0.1 ? `${WORDS[Math.floor(r() * WORDS.length)]}${Math.floor(r() * 100000)}` : WORDS[Math.floor(r() * WORDS.length)]) + " ";
      text += r() < 0.15 ? ".\n\n" : ". ";
    }
    const n = 1 + Math.floor(r() * 40);
    const e = ev("content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: text.slice(0, n) } });
    text = text.slice(n);
    written += e.length;
    yield e;
  }
  yield ev("content_block_delta", { index: 0, delta: { type: "signature_delta", signature: "sig" } });
  yield ev("content_block_stop", { index: 0 });
  yield ev("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 1 } });
  yield ev("message_stop", {});
}

/** The provider: `x-bench-bytes` says how long an answer to stream. Writes in 16 KB pieces, minding backpressure. */
async function provider(): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const bytes = Number(req.headers["x-bench-bytes"] ?? 0);
      res.writeHead(200, { "content-type": "text/event-stream" });
      const it = answer(bytes, 7);
      const pump = () => {
        let buf = "";
        for (;;) {
          const n = it.next();
          if (n.done) { if (buf) res.write(buf); res.end(); return; }
          buf += n.value;
          if (buf.length >= 16384) { const ok = res.write(buf); buf = ""; if (!ok) { res.once("drain", pump); return; } }
        }
      };
      pump();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** The floor: a proxy that reads nothing, pipes both ways. */
async function barePassThrough(upstream: string): Promise<{ server: http.Server; url: string }> {
  const up = new URL(upstream);
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, host: up.host };
    delete headers.connection;
    const u = http.request({ hostname: up.hostname, port: up.port, path: req.url, method: req.method, headers, agent }, (ures) => { res.writeHead(ures.statusCode ?? 502, ures.headers); ures.pipe(res); });
    u.on("error", () => res.destroy());
    req.pipe(u);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A request carrying `calls` tool calls and their results of `size` characters each. */
function conversation(calls: number, size: number): string {
  const messages: unknown[] = [{ role: "user", content: [{ type: "text", text: "Fix the failing test in this folder." }] }];
  for (let i = 0; i < calls; i++) {
    messages.push({ role: "assistant", content: [{ type: "text", text: `Step ${i}.` }, { type: "tool_use", id: `toolu_${i}`, name: "Read", input: { file_path: `/src/mod${i}.ts` } }] });
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: `// module ${i}\n` + "export const value = 1;\n".repeat(Math.ceil(size / 24)).slice(0, size) }] });
  }
  return JSON.stringify({ model: "bench", stream: true, max_tokens: 32000, tools: [{ name: "Read", input_schema: { type: "object" } }], messages });
}

const clientAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function call(base: string, bytes: number, body: string, session: string): Promise<{ ttfb: number; total: number; received: number }> {
  const url = new URL(`${base}/v1/messages`);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname: url.hostname, port: url.port, path: url.pathname, method: "POST", agent: clientAgent, headers: { "content-type": "application/json", "x-bench-bytes": String(bytes), "x-claude-code-session-id": session, "x-api-key": "bench" } }, (res) => {
      let ttfb = 0;
      let received = 0;
      res.on("data", (c: Buffer) => { if (!received) ttfb = performance.now() - t0; received += c.length; });
      res.on("end", () => resolve({ ttfb, total: performance.now() - t0, received }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

export async function benchStreamGuard(out: (line: string) => void = (l) => process.stdout.write(l + "\n")): Promise<void> {
  const up = await provider();
  const bare = await barePassThrough(up.url);
  const watching: EngineConfig = { ...defaultConfig(), mode: "warnOnly" };
  // Detection off: every detector switched off, so the guard only splits, reads and forwards.
  const base = defaultConfig();
  const off: EngineConfig = { ...base, detectors: Object.fromEntries(Object.entries(base.detectors).map(([id, d]) => [id, { ...d, enabled: false }])) as EngineConfig["detectors"] };
  let reports = 0;
  const guard = new StreamGuardProxy({ upstream: up.url, config: () => watching, report: () => { reports++; } });
  const guardOff = new StreamGuardProxy({ upstream: up.url, config: () => off, report: () => {} });
  const routes = { bare: bare.url, guard: await guard.listen(), off: await guardOff.listen() };
  const request = (pad: number) => JSON.stringify({ model: "bench", stream: true, max_tokens: 32000, tools: [{ name: "Bash", input_schema: { type: "object" } }], messages: [{ role: "user", content: [{ type: "text", text: "x".repeat(pad) }] }] });
  out("\nstream guard (loop-sentinel proxy) against a bare pass-through proxy, same local provider, Anthropic SSE");
  try {
    // Time to first byte: a short answer to a 40 KB request (a conversation of 20 tool calls and
    // their results), in one session as an agent sends them, interleaved, after a warm-up.
    const small = conversation(20, 2000);
    const ttfb: Record<string, number[]> = { bare: [], guard: [], off: [] };
    for (let i = 0; i < 70; i++) {
      for (const k of ["bare", "guard", "off"] as const) {
        const r = await call(routes[k], 2000, small, "ttfb");
        if (i >= 10) ttfb[k].push(r.ttfb);
      }
    }
    const added = median(ttfb.guard) - median(ttfb.bare);
    out(`time to first byte (${(small.length / 1024).toFixed(0)} KB request, median of 60): bare ${median(ttfb.bare).toFixed(2)} ms, guard ${median(ttfb.guard).toFixed(2)} ms (+${added.toFixed(2)} ms; budget +${TTFB_BUDGET_MS} ms), detection off ${median(ttfb.off).toFixed(2)} ms`);
    // A session's first request: its engine is made, and the whole conversation read once.
    const firsts: number[] = [];
    const bares: number[] = [];
    for (let i = 0; i < 20; i++) { firsts.push((await call(routes.guard, 2000, small, `first-${i}`)).ttfb); bares.push((await call(routes.bare, 2000, small, `first-${i}`)).ttfb); }
    out(`a new session's first request (same 40 KB): +${(median(firsts) - median(bares)).toFixed(2)} ms (median of 20)`);

    // One long answer: 5 MB of deltas of 1-40 characters.
    const big = request(200);
    const MB5 = 5 * 1024 * 1024;
    const events = [...answer(MB5, 7)].length;
    const best: Record<string, number> = {};
    for (const k of ["bare", "guard", "off"] as const) {
      const runs: number[] = [];
      for (let i = 0; i < 3; i++) { const r = await call(routes[k], MB5, big, `long-${k}-${i}`); if (r.received < MB5) throw new Error(`${k}: the answer was cut (${r.received} bytes)`); runs.push(r.total); }
      best[k] = Math.min(...runs);
    }
    out(`a 5 MB answer (${events} events, best of 3): bare ${best.bare.toFixed(0)} ms, guard ${best.guard.toFixed(0)} ms (${(best.guard / best.bare).toFixed(2)}x, +${((best.guard - best.bare) * 1000 / events).toFixed(1)} µs/event), detection off ${best.off.toFixed(0)} ms (${(best.off / best.bare).toFixed(2)}x)`);

    // 20 sessions at once, 1 MB each.
    const together = async (k: "bare" | "guard") => {
      const t0 = performance.now();
      await Promise.all(Array.from({ length: 20 }, (_, i) => call(routes[k], 1024 * 1024, big, `many-${k}-${i}`)));
      return performance.now() - t0;
    };
    const many = { bare: Math.min(await together("bare"), await together("bare")), guard: Math.min(await together("guard"), await together("guard")) };
    out(`20 sessions streaming 1 MB each at once: bare ${many.bare.toFixed(0)} ms, guard ${many.guard.toFixed(0)} ms (${(many.guard / many.bare).toFixed(2)}x)`);

    // Memory over a 50 MB answer through the guard.
    // Heap held while it streams: collected and read every 250 ms (what is live, not garbage not yet collected).
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const before = process.memoryUsage().heapUsed;
    const held: number[] = [];
    const sampler = setInterval(() => { gc?.(); held.push(process.memoryUsage().heapUsed - before); }, 250);
    const huge = await call(routes.guard, 50 * 1024 * 1024, big, "huge");
    clearInterval(sampler);
    gc?.();
    const after = process.memoryUsage().heapUsed;
    const tenth = Math.max(1, Math.floor(held.length / 10));
    const mb = (xs: number[]) => (Math.max(...xs) / 1048576).toFixed(1);
    out(`a 50 MB answer through the guard: ${(huge.total / 1000).toFixed(1)} s; heap held ${gc ? `at most +${mb(held.slice(0, tenth))} MB in its first tenth, +${mb(held.slice(-tenth))} MB in its last, ` : "(run with --expose-gc) "}+${((after - before) / 1048576).toFixed(2)} MB after; ${reports} reports in warn-only mode`);
  } finally {
    await guard.close();
    await guardOff.close();
    clientAgent.destroy();
    for (const s of [bare.server, up.server]) { s.closeAllConnections?.(); await new Promise<void>((r) => s.close(() => r())); }
  }
}
