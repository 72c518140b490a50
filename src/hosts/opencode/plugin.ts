/**
 * The Loop Sentinel plugin for OpenCode-based agents (opencode, Kilo Code 7 and its CLI), bundled
 * by scripts/build.mjs into dist/opencode-plugin.js: one ESM file the agent's server loads from
 * its plugin folder (`~/.config/opencode/plugin/`, `~/.config/kilo/plugin/`, or a project's
 * `.opencode/plugin/` / `.kilo/plugin/`).
 *
 * The module's only export is the plugin function: OpenCode calls every function a plugin file
 * exports (older releases) or its default `{id, server}` (newer ones); one named function works
 * with both.
 *
 * `LOOP_SENTINEL_OPENCODE_TRACE=FILE` appends every hook call as received (JSON lines): the
 * recording the adapter's tests replay.
 */
import { clientActions, type ClientLike } from "./actions";
import { OpencodeGuard } from "./guard";
import { isLoopbackUrl, PLUGIN_HEADER } from "../streamGuard/pluginHeader";
import { JsonLinesFile, reportFilePath, SettingsFile, settingsFilePath } from "./settingsFile";

interface PluginInputLike { client: ClientLike; directory?: string }

/** The longest a call refused by a stop is held back while the stop's abort reaches the server. */
const STOP_LANDS_MS = 2000;

export const LoopSentinel = async (input: PluginInputLike) => {
  const env = process.env;
  const report = new JsonLinesFile(reportFilePath(env), (m) => console.error(`[loop-sentinel] ${m}`));
  const trace = env.LOOP_SENTINEL_OPENCODE_TRACE ? new JsonLinesFile(env.LOOP_SENTINEL_OPENCODE_TRACE) : undefined;
  const settings = new SettingsFile(settingsFilePath(env));
  const guard = new OpencodeGuard({
    actions: clientActions(input.client),
    settings: () => settings.get(),
    report: (r) => report.append(r.type === "event" ? r : { ...r, pid: process.pid, directory: input.directory }, { soon: r.type === "event" }),
    now: () => Date.now(),
  });
  const record = (hook: string, i: unknown, o?: unknown) => trace?.append(o === undefined ? { at: Date.now(), hook, input: i } : { at: Date.now(), hook, input: i, output: o });
  report.append({ type: "loaded", pid: process.pid, directory: input.directory, settings: settings.file, at: Date.now() });
  process.once("exit", () => { report.flush(); trace?.flush(); });
  return {
    event: async (i: { event: unknown }) => {
      record("event", i);
      guard.take({ hook: "event", input: i });
    },
    "chat.message": async (i: Record<string, unknown>, o: { message?: unknown; parts?: unknown }) => {
      record("chat.message", i, o);
      guard.take({ hook: "chat.message", input: i, output: o });
    },
    // Towards Loop Sentinel's stream guard (a loopback base URL): this session is the plugin's to
    // guard, so the guard leaves its requests alone (one finding, one intervention).
    "chat.headers": async (i: { sessionID?: unknown; provider?: { options?: Record<string, unknown>; info?: { options?: Record<string, unknown> } } }, o: { headers?: Record<string, string> }) => {
      try {
        const base = i?.provider?.options?.baseURL ?? i?.provider?.info?.options?.baseURL;
        if (o?.headers && typeof i.sessionID === "string" && isLoopbackUrl(base)) o.headers[PLUGIN_HEADER] = i.sessionID;
      } catch { /* a header not added: the guard acts on the stream as for any agent */ }
    },
    "tool.execute.before": async (i: { tool?: unknown; sessionID?: unknown; callID?: unknown }, o: { args?: unknown }) => {
      record("tool.execute.before", i, o);
      try {
        guard.beforeTool(i, o); // throws to refuse the call
      } catch (refusal) {
        await guard.untilStopLands(i.sessionID, STOP_LANDS_MS);
        throw refusal;
      }
    },
    "tool.execute.after": async (i: Record<string, unknown>, o: { output?: unknown }) => {
      record("tool.execute.after", i, o);
      guard.afterTool(i, o);
    },
  };
};
