/**
 * Where the headless hook keeps each session's state (headlessState.ts), and the one answer the
 * hook's small entry gives from that state without loading the engine. No engine code here: this
 * is bundled into dist/agent-hook.js, which every hook call loads.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { AgentCall, Verdict } from "./dialect";

export const STATE_VERSION = 2;

/** The folder of session files: beside the hook channel's sockets, private to the user. */
export function sessionsDir(channel: string): string {
  return path.join(channel, "agent-sessions");
}

export function stateFileFor(dir: string, call: Pick<AgentCall, "agent" | "sessionId">): string {
  return path.join(dir, `${call.agent}-${nameHash(call.sessionId)}.json`);
}

/**
 * A file name for a session id (any text the agent sends): 96 bits of three FNV-1a hashes. Not
 * node:crypto, whose loading alone costs a headless call milliseconds; a clash is harmless, as
 * the file names its session and one of another session is started afresh (load).
 */
function nameHash(s: string): string {
  let a = 0x811c9dc5, b = 0x01000193 ^ s.length, c = 0x9e3779b9;
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    a = Math.imul(a ^ ch, 0x01000193);
    b = Math.imul(b ^ ch, 0x5bd1e995);
    c = Math.imul(c ^ ch, 0x85ebca6b) ^ (c >>> 13);
  }
  return [a, b, c].map((x) => (x >>> 0).toString(16).padStart(8, "0")).join("");
}

/**
 * Copilot's permissionRequest, headless, when the session's state settles it: the hook answers
 * there only to end a run Loop Sentinel stopped, and it feeds the engine nothing (guard.ts reads
 * the session file at the next pre or post). With no stop held (nearly always) the answer is to let
 * the call through and nothing changes, so loading the engine, reading its session back and writing
 * it again (about 20 ms, a third of what a Copilot tool call paid the hook: it runs three hooks a
 * call; issue 35, part 4) is skipped. No session file yet: the same, as a first call would answer.
 * Undefined whenever the engine path must decide: a stop to deliver, a turn id, a file of another
 * session or format, or one being written (it does not parse; the engine path waits on the lock).
 */
export function permissionFromState(call: AgentCall, channel: string): Verdict | undefined {
  if (call.point !== "permission" || call.turnId !== undefined) return undefined;
  let text: string;
  try { text = fs.readFileSync(stateFileFor(sessionsDir(channel), call), "utf8"); } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? { action: "allow" } : undefined;
  }
  let doc: { v?: unknown; state?: { sessionId?: unknown; stop?: { delivered?: unknown } } };
  try { doc = JSON.parse(text) as typeof doc; } catch { return undefined; }
  if (typeof doc !== "object" || doc === null || doc.v !== STATE_VERSION || typeof doc.state !== "object" || doc.state === null || doc.state.sessionId !== call.sessionId) return undefined;
  const stop = doc.state.stop;
  return stop === undefined || stop === null || (typeof stop === "object" && stop.delivered === true) ? { action: "allow" } : undefined;
}
