/**
 * The session's record of tool calls: one normalisation (kind, signature, target), one
 * progress epoch, one notion of parallel batch, shared by every tool detector. Bounded.
 */
import type { ToolCallEvent, ToolResultEvent } from "./events";
import { resultText } from "./events";
import { isMutatingCommand } from "./shellCommands";
import { callSignature, callTarget, errorFingerprint, hashText } from "./signatures";
import type { ToolKind, ToolKnowledge } from "./toolKnowledge";

export interface CallResult {
  ok: boolean;
  text: string;
  /** Hash of the output text (identical output ⇔ identical hash, up to collisions). */
  outputHash: string;
  /** Normalised first error line, for failures. */
  errorFingerprint?: string;
  eventIndex: number;
  ts?: number;
}

export interface CallRecord {
  id: string;
  name: string;
  kind: ToolKind;
  input: Record<string, unknown>;
  /** Tool + stable input, volatile fields dropped; edits keyed by path + target text. */
  signature: string;
  /** File, pattern, URL or command the call acts on. */
  target?: string;
  /** For command calls: whether the command changes files or state. */
  mutating: boolean;
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

/** How many settled calls the ledger keeps for detectors that look back (cycles, re-reads). */
export const LEDGER_HISTORY = 256;
/** Calls waiting for a result beyond this are forgotten oldest first (a host that never reports results). */
export const LEDGER_MAX_PENDING = 512;

export class ToolLedger {
  private readonly pending = new Map<string, CallRecord>();
  private readonly history: CallRecord[] = [];
  private epochValue = 0;
  private batchRequest = -1;
  private batchSize = 0;

  constructor(private readonly tools: ToolKnowledge) {}

  get epoch(): number { return this.epochValue; }

  /** Calls in call order, oldest first, at most LEDGER_HISTORY of them (results attached when known). */
  get recent(): readonly CallRecord[] { return this.history; }

  /** The calls of the batch (request) in progress. */
  currentBatch(requestIndex: number): CallRecord[] {
    const out: CallRecord[] = [];
    for (let i = this.history.length - 1; i >= 0 && this.history[i].requestIndex === requestIndex; i--) out.unshift(this.history[i]);
    return out;
  }

  recordCall(ev: ToolCallEvent, eventIndex: number, requestIndex: number): CallRecord {
    const kind = this.tools.kindOf(ev.name);
    const command = kind === "command" ? this.tools.commandOf(ev.input) : undefined;
    if (requestIndex !== this.batchRequest) { this.batchRequest = requestIndex; this.batchSize = 0; }
    const call: CallRecord = {
      id: ev.id,
      name: ev.name,
      kind,
      input: ev.input,
      signature: callSignature(ev.name, kind, ev.input, this.tools),
      target: callTarget(kind, ev.input, this.tools),
      mutating: kind === "write" || kind === "edit" || (command !== undefined && isMutatingCommand(command)),
      eventIndex,
      ts: ev.ts,
      requestIndex,
      batchPosition: this.batchSize++,
      epoch: this.epochValue,
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
    call.result = {
      ok: ev.ok,
      text,
      outputHash: hashText(text),
      errorFingerprint: ev.ok ? undefined : errorFingerprint(text),
      eventIndex,
      ts: ev.ts,
    };
    if (ev.ok && call.mutating) this.epochValue++;
    return call;
  }

  /**
   * A new request started: calls still waiting have been answered out of our sight
   * (hosts do not always report results). A mutation among them counts as progress.
   */
  settleUnanswered(): void {
    for (const call of this.pending.values()) if (call.mutating) { this.epochValue++; break; }
    this.pending.clear();
  }

  reset(): void {
    this.pending.clear();
    this.history.length = 0;
    this.batchRequest = -1;
    this.batchSize = 0;
    // The epoch keeps counting: detectors compare epochs, never reset them.
  }
}

/** A short human description of a call: `read_file src/a.ts`, `execute_command "npm test"`. */
export function describeCall(call: Pick<CallRecord, "name" | "target" | "input">, max = 80): string {
  let what = call.target;
  if (what === undefined) {
    const json = JSON.stringify(call.input);
    what = json === "{}" ? "" : json;
  }
  if (what.length > max) what = what.slice(0, max - 1) + "…";
  return what === "" ? call.name : `${call.name} ${/\s/.test(what) ? JSON.stringify(what) : what}`;
}
