/**
 * The Loop Sentinel extension for pi (`@mariozechner/pi-coding-agent`), bundled by
 * scripts/build.mjs into dist/pi-extension.js and named by this package's `pi` manifest, so that
 * `pi install <this package>` (or `pi -e <this package>` for one run) loads it.
 *
 * pi calls the default export with its extension API once per session runtime. It must be the
 * module's only export: pi's loader (jiti) hands over the whole module object otherwise. Every handler
 * runs inside pi's agent loop: each is quick, and none throws (see PiGuard.guarded; a throw from
 * `tool_call` would refuse the call).
 *
 * Settings: the same file and keys as the OpenCode plugin and the CLI's `--config`
 * (`$LOOP_SENTINEL_CONFIG`, else `~/.config/loop-sentinel/settings.json`: `{"loopSentinel.mode":
 * "warnOnly"}`, `{"loopSentinel": {...}}` or the keys bare), read again when it changes.
 * Report: JSON lines of what it did (`$LOOP_SENTINEL_PI_REPORT`, else
 * `$XDG_STATE_HOME/loop-sentinel/pi.jsonl`), readable by the user only.
 * `LOOP_SENTINEL_PI_TRACE=FILE` appends every event pi sent it (JSON lines, streamed pieces cut to
 * their type and delta): the recordings the unit tests replay (test/fixtures/pi-extension/).
 */
import { JsonLinesFile, SettingsFile, settingsFilePath } from "../opencode/settingsFile";
import { PiGuard, type PiActions, type PiOverride } from "./guard";
import { piReportFilePath } from "./reportFile";
import type { PiAutocompleteItem, PiContext, PiExtensionApi, PiMessage, PiStreamPiece, PiToolCallEvent, PiToolResultEvent } from "./piApi";

/** How long after an abort pi may take to be idle before the guidance is given up. */
const IDLE_WAIT_MS = 15_000;
const IDLE_POLL_MS = 20;
const CUSTOM_TYPE = "loop-sentinel";

const SUBCOMMANDS: { value: string; description: string }[] = [
  { value: "status", description: "what Loop Sentinel watches and what it did in this session" },
  { value: "on", description: "watch and act: warn, refuse repeated calls, cut looping responses, stop" },
  { value: "off", description: "watch nothing until pi ends (or /loop-sentinel on)" },
  { value: "warn-only", description: "tell you about loops, send nothing to the model" },
  { value: "reset", description: "forget the counts so far (what repeated was fine)" },
];

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export default function loopSentinel(pi: PiExtensionApi): void {
  const report = new JsonLinesFile(piReportFilePath(), (m) => console.error(`[loop-sentinel] ${m}`));
  const trace = process.env.LOOP_SENTINEL_PI_TRACE ? new JsonLinesFile(process.env.LOOP_SENTINEL_PI_TRACE) : undefined;
  const settings = new SettingsFile(settingsFilePath());
  /** The context of the latest event: the actions act on the session it belongs to. */
  let ctx: PiContext | undefined;
  let lastStatus: string | undefined;
  const message = (content: string) => ({ customType: CUSTOM_TYPE, content, display: true });

  const actions: PiActions = {
    async abortAndWait() {
      const c = ctx;
      if (!c) return false;
      // pi 0.73.1's ctx.abort() gives the promise of its session's abort (idle once settled); an
      // older or newer one may not: pi's own idle flag decides either way.
      try {
        await Promise.resolve(c.abort());
        const deadline = Date.now() + IDLE_WAIT_MS;
        while (!c.isIdle()) {
          if (Date.now() > deadline) return false;
          await sleep(IDLE_POLL_MS);
        }
      } catch {
        // The session is gone: print mode ends pi with the aborted run, and its ctx then throws.
        return false;
      }
      // Let the prompt that ran finish its own bookkeeping before a new turn starts.
      await new Promise<void>((resolve) => setImmediate(resolve));
      return true;
    },
    steer(text) { pi.sendMessage(message(text), { deliverAs: "steer" }); },
    resume(text) { pi.sendMessage(message(text), { triggerTurn: true }); },
    leaveNote(text) { pi.sendMessage(message(text)); },
    notify(text, level) { if (ctx?.hasUI) ctx.ui.notify(text, level); },
    status(text) {
      if (!ctx?.hasUI || text === lastStatus) return;
      lastStatus = text;
      ctx.ui.setStatus(CUSTOM_TYPE, text);
    },
  };

  const guard = new PiGuard({
    actions,
    settings: () => settings.get(),
    report: (r) => report.append(r),
    now: () => Date.now(),
  });
  process.once("exit", () => { report.flush(); trace?.flush(); });

  // Each handler notes the context first: the actions need the running session's.
  const on = <E>(event: string, handle: (e: E) => unknown) => pi.on<E>(event, (e, c) => {
    ctx = c;
    if (trace) trace.append({ at: Date.now(), event, data: traced(event, e) }, { soon: true });
    return handle(e);
  });
  on<{ reason?: unknown }>("session_start", () => {
    report.append({ type: "loaded", pid: process.pid, cwd: ctx?.cwd ?? "", settings: settings.file, at: Date.now() });
    guard.showState();
  });
  on<{ prompt?: unknown }>("before_agent_start", (e) => { guard.prompt(e?.prompt); });
  on<{ message?: PiMessage }>("message_start", (e) => { guard.messageStart(e?.message); });
  on<{ assistantMessageEvent?: PiStreamPiece }>("message_update", (e) => { guard.messageUpdate(e?.assistantMessageEvent); });
  on<{ message?: PiMessage }>("message_end", (e) => {
    const replacement = guard.messageEnd(e?.message);
    return replacement ? { message: replacement } : undefined;
  });
  on<PiToolCallEvent>("tool_call", (e) => guard.toolCall(e));
  on<PiToolResultEvent>("tool_result", (e) => { guard.toolResult(e); });
  on("session_shutdown", () => { report.flush(); trace?.flush(); });

  pi.registerCommand("loop-sentinel", {
    description: "Loop Sentinel: status, on, off, warn-only, reset",
    getArgumentCompletions(prefix: string): PiAutocompleteItem[] | null {
      const items = SUBCOMMANDS.filter((s) => s.value.startsWith(prefix.trim())).map((s) => ({ value: s.value, label: s.value, description: s.description }));
      return items.length > 0 ? items : null;
    },
    async handler(args, c) {
      ctx = c;
      const verb = args.trim().toLowerCase() || "status";
      switch (verb) {
        case "status": break;
        case "on": case "off": case "warn-only":
          guard.setOverride(verb as PiOverride);
          break;
        case "reset":
          guard.reset();
          break;
        default:
          if (c.hasUI) c.ui.notify(`/loop-sentinel ${verb}: expected one of ${SUBCOMMANDS.map((s) => s.value).join(", ")}`, "error");
          return;
      }
      if (c.hasUI) c.ui.notify(guard.statusReport(settings.file), "info");
    },
  });
}

/**
 * What the trace keeps of an event: a streamed piece without the whole message so far it carries,
 * a prompt without the system prompt (it names the user's folders).
 */
function traced(event: string, e: unknown): unknown {
  if (typeof e !== "object" || e === null) return e;
  if (event === "before_agent_start") return { type: event, prompt: (e as { prompt?: unknown }).prompt };
  if (event !== "message_update") return e;
  const piece = (e as { assistantMessageEvent?: PiStreamPiece }).assistantMessageEvent;
  return { assistantMessageEvent: piece && { type: piece.type, delta: piece.delta } };
}
