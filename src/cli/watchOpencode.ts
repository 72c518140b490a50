/**
 * `loop-sentinel watch --opencode URL [--password-env VAR]`: guards a running `opencode serve` or
 * `kilo serve` from outside, through its event stream and HTTP API (the plugin does it from
 * inside; this needs no installation). Prints sessions, interventions and what was done. Without
 * the plugin's hooks a call cannot be refused before it runs: a block aborts the response and
 * sends the guidance instead, and warnings are printed only.
 */
import { OpencodeGuard, type GuardRecord } from "../hosts/opencode/guard";
import { followEvents, httpActions } from "../hosts/opencode/eventStream";
import { isRecord } from "../engine/json";
import { flag, UsageError, type ParsedArgs } from "./args";
import type { CliIO } from "./io";
import { loadCliConfig } from "./loadConfig";
import type { WatchControl } from "./watchControl";

export async function runOpencodeWatch(args: ParsedArgs, io: CliIO, control: WatchControl): Promise<number> {
  const url = flag(args, "opencode")!;
  if (!/^https?:\/\//.test(url)) throw new UsageError(`--opencode needs the server's URL (http://127.0.0.1:4096), got "${url}"`);
  const passwordEnv = flag(args, "password-env");
  const password = passwordEnv !== undefined ? process.env[passwordEnv] : undefined;
  if (passwordEnv !== undefined && !password) throw new UsageError(`--password-env ${passwordEnv}: that variable is not set`);
  const user = flag(args, "user") ?? (passwordEnv?.startsWith("KILO") ? "kilo" : "opencode");
  const config = loadCliConfig(flag(args, "config"), args.flags.get("set") ?? [], io.err);
  const json = args.flags.has("json");
  const link = { base: url.replace(/\/+$/, ""), authorization: password ? `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` : undefined };

  const started = Date.now();
  const clock = () => new Date().toISOString().slice(11, 23);
  const directories = new Map<string, string>();
  let sessions = 0;
  let interventions = 0;
  const print = (text: string, record: Record<string, unknown>) => io.out(json ? JSON.stringify({ elapsedMs: Date.now() - started, ...record }) : `${clock()}  ${text}`);
  const show = (r: GuardRecord) => {
    switch (r.type) {
      case "started": sessions++; print(`session ${r.sessionId}${r.title ? `: ${r.title}` : ""}`, r); return;
      case "intervention": interventions++; print(`session ${r.sessionId}  ${r.action.toUpperCase().padEnd(5)} ${r.detector}: ${r.summary}\n               guidance: ${r.message}`, r); return;
      case "outcome": print(`session ${r.sessionId}  ${r.ok ? "done" : "FAILED"}: ${r.done}`, r); return;
      case "error": io.err(`loop-sentinel watch: ${r.message}`); return;
      case "config": for (const w of r.warnings) io.err(`config: ${w}`); return;
      default: return;
    }
  };
  const guard = new OpencodeGuard({
    actions: httpActions(link, (id) => directories.get(id)),
    settings: () => ({ engine: config, warnings: [] }),
    report: show,
    now: () => Date.now(),
    hooks: false,
  });

  const stop = new AbortController();
  const finish = () => stop.abort();
  process.on("SIGINT", finish);
  process.on("SIGTERM", finish);
  control.signal?.addEventListener("abort", finish);
  print(`watching ${link.base}`, { type: "watching", url: link.base });
  try {
    await followEvents(link, (event, directory) => {
      if (directory && isRecord(event) && isRecord(event.properties)) {
        const p = event.properties;
        const id = typeof p.sessionID === "string" ? p.sessionID : isRecord(p.info) && typeof p.info.sessionID === "string" ? p.info.sessionID : isRecord(p.part) && typeof p.part.sessionID === "string" ? p.part.sessionID : isRecord(p.info) && typeof p.info.id === "string" && event.type === "session.created" ? p.info.id : undefined;
        if (id) directories.set(id, directory);
      }
      guard.take({ hook: "event", input: { event } });
    }, (m) => io.err(`loop-sentinel watch: ${m}`), stop.signal);
  } finally {
    process.off("SIGINT", finish);
    process.off("SIGTERM", finish);
    control.signal?.removeEventListener("abort", finish);
  }
  await guard.idle();
  print(`done: ${sessions} session(s), ${interventions} intervention(s)`, { type: "done", sessions, interventions });
  return 0;
}
