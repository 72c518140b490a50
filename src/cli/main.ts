/** The `loop-sentinel` command line: the engine in plain Node over recorded or live sessions. */
import { isMainThread } from "node:worker_threads";
import { SessionFormatError } from "../formats/reader";
import { UsageError } from "./args";
import { processIO, type CliIO } from "./io";
import { quoted, visible } from "../engine/printable";
import { REPLAY_USAGE, runReplay } from "./replay";
import { WATCH_USAGE, runWatch } from "./watch";
import { CONVERT_USAGE, runConvert } from "./convert";
import { STATS_USAGE, runStats } from "./stats";
import { INSTALL_PLUGIN_USAGE, REMOVE_PLUGIN_USAGE, runInstallPlugin, runRemovePlugin } from "./plugin";
import { CLINE_HOOK_USAGE, runClineHook } from "./clineHook";
import { HOOKS_USAGE, runHooks } from "./hooks";
import { PROXY_USAGE, RUN_USAGE, runProxy, runRun } from "./streamGuard";

type Command = { usage: string; run: (argv: string[], io: CliIO) => number | Promise<number> };

/** Subcommands; each lives in its own file. */
export const COMMANDS: Record<string, Command> = {
  replay: { usage: REPLAY_USAGE, run: runReplay },
  watch: { usage: WATCH_USAGE, run: (argv, io) => runWatch(argv, io) },
  convert: { usage: CONVERT_USAGE, run: runConvert },
  stats: { usage: STATS_USAGE, run: runStats },
  "install-plugin": { usage: INSTALL_PLUGIN_USAGE, run: (argv, io) => runInstallPlugin(argv, io) },
  "remove-plugin": { usage: REMOVE_PLUGIN_USAGE, run: runRemovePlugin },
  "cline-hook": { usage: CLINE_HOOK_USAGE, run: runClineHook },
  hooks: { usage: HOOKS_USAGE, run: runHooks },
  proxy: { usage: PROXY_USAGE, run: (argv, io) => runProxy(argv, io) },
  run: { usage: RUN_USAGE, run: (argv, io) => runRun(argv, io) },
};

function usage(): string {
  return ["usage:", ...Object.values(COMMANDS).map((c) => `  loop-sentinel ${c.usage}`)].join("\n");
}

/** Commands whose human output shows session text and file names: control characters are shown visibly there. */
const SHOWS_SESSION_TEXT = new Set(["replay", "stats", "watch", "proxy", "run"]);

/**
 * The output a person reads: an escape sequence from a session or a file name (`ESC]0;…BEL`
 * retitles the terminal, `ESC[2J` clears it) is printed as visible text. `--json` output is left
 * exact (JSON already escapes C0 controls); error lines are always cleaned.
 */
export function humanIO(io: CliIO, json: boolean): CliIO {
  return { out: json ? (t) => io.out(t) : (t) => io.out(visible(t)), err: (t) => io.err(visible(t)) };
}

export async function main(argv: string[], given: CliIO = processIO): Promise<number> {
  const [name, ...rest] = argv;
  // After "--" the words are another program's (`run -- codex exec --json`).
  const own = rest.includes("--") ? rest.slice(0, rest.indexOf("--")) : rest;
  const io = SHOWS_SESSION_TEXT.has(name) ? humanIO(given, own.includes("--json")) : { out: (t: string) => given.out(t), err: (t: string) => given.err(visible(t)) };
  if (!name || name === "--help" || name === "-h" || name === "help") { io.out(usage()); return name ? 0 : 2; }
  const command = COMMANDS[name];
  if (!command) { io.err(`loop-sentinel: unknown command ${quoted(name)}\n${usage()}`); return 2; }
  if (own.includes("--help") || own.includes("-h")) { io.out(`usage: loop-sentinel ${command.usage}`); return 0; }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) { io.err(`loop-sentinel ${name}: ${err.message}`); return 2; }
    if (err instanceof SessionFormatError) { io.err(`loop-sentinel ${name}: ${err.message}`); return 1; }
    throw err;
  }
}

// A worker thread (stats) loads this same file as its script: only the main thread runs a command.
if (require.main === module && isMainThread) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err) => {
    process.stderr.write(`loop-sentinel: internal error: ${(err as Error).stack ?? err}\n`);
    process.exitCode = 70;
  });
}
