/**
 * Per-session calibration figures: how the session's tool calls repeat (by the ledger's own call
 * identity), how its streamed text repeats, and what the engine does with it under given settings.
 * Nothing here knows which detectors exist: interventions are taken as the engine reports them.
 */
import * as fs from "node:fs";
import type { EngineConfig } from "../engine/config";
import type { TraceEvent } from "../engine/events";
import { describeCall, ToolLedger, type CallRecord, type CallResult } from "../engine/ledger";
import type { Intervention } from "../engine/session";
import { hashText, normaliseWhitespace } from "../engine/signatures";
import { createToolKnowledge } from "../engine/toolKnowledge";

export type Outcome = "ok" | "error" | "no result";

export interface CallGroup {
  tool: string;
  /** Hash of the ledger's call signature: same hash ⇔ the engine sees the same call. */
  inputHash: string;
  outcome: Outcome;
  count: number;
  /** A short description of the call ("Bash \"npm test\""). */
  call: string;
}

export interface RepeatRun {
  length: number;
  call: string;
  /** Event index of the run's first call. */
  startEvent: number;
  /** Whether every call of the run returned the same output (undefined when results are missing). */
  identicalOutput?: boolean;
}

export interface SessionLabel {
  loop: boolean;
  kind?: string;
  onset?: number | null;
  deadline?: number | null;
}

export interface FiredIntervention {
  event: number;
  detector: string;
  action: string;
  summary: string;
}

export type Verdict = "caught" | "early" | "late" | "missed" | "false alarm" | "quiet" | "fired" | "nothing fired";

/** The calibration figures, all "bigger = more repetitive" except distinctCallPct. */
export interface SessionMetrics {
  sameCall: number;
  sameCallSameOutput: number;
  sameCallNoProgress: number;
  longestRun: number;
  sameError: number;
  sameFileReads: number;
  streamLineRepeat: number;
  distinctCallPct: number;
}

export interface SessionStatsReport {
  file: string;
  format: string;
  label?: SessionLabel;
  events: number;
  requests: number;
  toolCalls: number;
  distinctCalls: number;
  groups: CallGroup[];
  longestRun?: RepeatRun;
  /** Calls made more than once: how many distinct ones, and how many always got the same output back. */
  repeated: { calls: number; identicalOutput: number; differentOutput: number };
  metrics: SessionMetrics;
  interventions: FiredIntervention[];
  verdict: Verdict;
}

/** `x.trace.jsonl`, `x.jsonl`, `x.json` or a folder `x` → `x.label.json` beside it, when present. */
export function readLabelFor(file: string, warn: (line: string) => void): SessionLabel | undefined {
  const stem = file.replace(/[\\/]+$/, "").replace(/(\.trace)?\.jsonl?$/i, "");
  const labelFile = `${stem}.label.json`;
  if (!fs.existsSync(labelFile)) return undefined;
  try {
    const raw = JSON.parse(fs.readFileSync(labelFile, "utf8")) as Record<string, unknown>;
    if (typeof raw.loop !== "boolean") { warn(`${labelFile}: "loop" must be true or false; label ignored`); return undefined; }
    const num = (v: unknown) => (typeof v === "number" ? v : v === null ? null : undefined);
    return { loop: raw.loop, kind: typeof raw.kind === "string" ? raw.kind : undefined, onset: num(raw.onset), deadline: num(raw.deadline) };
  } catch (err) {
    warn(`${labelFile}: ${(err as Error).message}; label ignored`);
    return undefined;
  }
}

export function verdictOf(label: SessionLabel | undefined, interventions: readonly FiredIntervention[]): Verdict {
  const first = interventions[0]?.event;
  if (!label) return first === undefined ? "nothing fired" : "fired";
  if (!label.loop) return first === undefined ? "quiet" : "false alarm";
  if (first === undefined) return "missed";
  if (typeof label.onset === "number" && first < label.onset) return "early";
  if (typeof label.deadline === "number" && first > label.deadline) return "late";
  return "caught";
}

/** Lines shorter than this are too generic ("```", "}", "Done.") to count as repetition. */
const MIN_STREAM_LINE = 24;
/** A "line" with no end in sight is counted as it stands at this length. */
const MAX_PENDING = 2000;

/** Most copies of one line (or sentence) within a single model response. O(text). */
class StreamLineCounter {
  private counts = new Map<string, number>();
  private pending = "";
  max = 0;

  add(delta: string): void {
    this.pending += delta;
    // Only text with a line or sentence end in it is split, so each chunk costs O(chunk) amortised.
    if (!/[\n.!?]/.test(delta) && this.pending.length < MAX_PENDING) return;
    const parts = this.pending.split(/\n|(?<=[.!?])\s+/);
    this.pending = parts.pop() ?? "";
    for (const p of parts) this.count(p);
    // Counted in pieces of MAX_PENDING: one huge chunk without line ends (a 50 MB line) must not be
    // normalised and kept whole.
    let at = 0;
    while (this.pending.length - at >= MAX_PENDING) { this.count(this.pending.slice(at, at + MAX_PENDING)); at += MAX_PENDING; }
    if (at > 0) this.pending = this.pending.slice(at);
  }

  private count(line: string): void {
    const key = normaliseWhitespace(line).toLowerCase();
    if (key.length < MIN_STREAM_LINE) return;
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    if (n > this.max) this.max = n;
  }

  /** The response ended: count its last line and forget its lines. */
  endResponse(): void {
    this.count(this.pending);
    this.pending = "";
    this.counts.clear();
  }
}

function maxOf(values: Iterable<number>): number {
  let m = 0;
  for (const v of values) if (v > m) m = v;
  return m;
}

function bump<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/**
 * What the figures read of a call: its identity and outcome, not its input or output text, so a
 * session's figures hold a few fields per call rather than every output it returned.
 */
interface CallRow {
  name: string;
  kind: CallRecord["kind"];
  signature: string;
  epoch: number;
  eventIndex: number;
  target?: string;
  /** Only where describeCall reads it (calls without a target); else an empty object shared by all rows. */
  input: Record<string, unknown>;
  result?: Pick<CallResult, "ok" | "outputHash" | "errorFingerprint">;
}

function rowOf(call: CallRecord): CallRow {
  return { name: call.name, kind: call.kind, signature: call.signature, epoch: call.epoch, eventIndex: call.eventIndex, target: call.target, input: call.target === undefined ? call.input : NO_INPUT };
}

const NO_INPUT: Record<string, unknown> = Object.freeze({});

function outcomeOf(call: CallRow): Outcome {
  return call.result === undefined ? "no result" : call.result.ok ? "ok" : "error";
}

/** What callFigures reports. */
export type CallFigures = Omit<SessionStatsReport, "file" | "format" | "label" | "interventions" | "verdict">;

/** Counts over the calls as the shared ledger records them (same identity, same progress epochs). */
export function callFigures(events: readonly TraceEvent[], config: EngineConfig): CallFigures {
  const counter = new CallFigureCounter(config);
  for (const ev of events) counter.add(ev);
  return counter.figures();
}

/** callFigures fed one event at a time, so a streamed session is figured without keeping its events. */
export class CallFigureCounter {
  private readonly ledger: ToolLedger;
  private readonly calls: CallRow[] = [];
  /** Each call's row, found again when its result comes (the ledger hands back the record it made). */
  private readonly rows = new WeakMap<CallRecord, CallRow>();
  private readonly stream = new StreamLineCounter();
  private streamMax = 0;
  private requests = 0;
  private events = 0;

  constructor(config: EngineConfig) {
    this.ledger = new ToolLedger(createToolKnowledge(config.toolNames));
  }

  add(ev: TraceEvent): void {
    const i = this.events++;
    switch (ev.t) {
      case "request":
        this.ledger.settleUnanswered();
        this.streamMax = Math.max(this.streamMax, this.stream.max);
        this.stream.endResponse();
        this.requests++;
        break;
      case "reasoning": case "text":
        this.stream.add(ev.delta);
        break;
      case "end":
        this.stream.endResponse();
        break;
      case "tool_call": {
        if (this.requests === 0) this.requests = 1;
        const call = this.ledger.recordCall(ev, i, this.requests - 1);
        const row = rowOf(call);
        this.calls.push(row);
        this.rows.set(call, row);
        break;
      }
      case "tool_result": {
        // a record gets its result once, here, and never changes after: the row takes what the figures read
        const call = this.ledger.recordResult(ev, i);
        const row = call && this.rows.get(call);
        if (row && call.result) row.result = { ok: call.result.ok, outputHash: call.result.outputHash, errorFingerprint: call.result.errorFingerprint };
        break;
      }
      case "user":
        break;
    }
  }

  /** The figures once the last event is in (call once). */
  figures(): CallFigures {
    this.stream.endResponse();
    return figuresOfCalls(this.calls, this.events, this.requests, Math.max(this.streamMax, this.stream.max));
  }
}

function figuresOfCalls(calls: readonly CallRow[], events: number, requests: number, streamMax: number): CallFigures {
  const groups = new Map<string, CallGroup>();
  const bySignature = new Map<string, CallRow[]>();
  const sameOutput = new Map<string, number>();
  const sameEpoch = new Map<string, number>();
  const sameError = new Map<string, number>();
  const fileReads = new Map<string, number>();
  let longest: RepeatRun | undefined;
  let run: CallRow[] = [];
  const closeRun = () => {
    if (run.length >= 2 && (!longest || run.length > longest.length)) {
      const hashes = run.map((c) => c.result?.outputHash);
      longest = {
        length: run.length,
        call: describeCall(run[0]),
        startEvent: run[0].eventIndex,
        identicalOutput: hashes.includes(undefined) ? undefined : hashes.every((h) => h === hashes[0]),
      };
    }
  };
  for (const c of calls) {
    const inputHash = hashText(c.signature);
    const outcome = outcomeOf(c);
    const gk = `${inputHash}\u0000${outcome}`;
    const g = groups.get(gk);
    if (g) g.count++; else groups.set(gk, { tool: c.name, inputHash, outcome, count: 1, call: describeCall(c) });
    const list = bySignature.get(c.signature);
    if (list) list.push(c); else bySignature.set(c.signature, [c]);
    if (c.result) bump(sameOutput, `${c.signature}\u0000${c.result.outputHash}`);
    bump(sameEpoch, `${c.signature}\u0000${c.epoch}`);
    if (c.result && !c.result.ok && c.result.errorFingerprint) bump(sameError, `${c.name}\u0000${c.result.errorFingerprint}`);
    if (c.kind === "read" && c.target) bump(fileReads, `${c.target}\u0000${c.epoch}`);
    if (run.length > 0 && run[run.length - 1].signature !== c.signature) { closeRun(); run = []; }
    run.push(c);
  }
  closeRun();

  let repeatedCalls = 0, identical = 0, different = 0;
  for (const list of bySignature.values()) {
    if (list.length < 2) continue;
    repeatedCalls++;
    const hashes = list.filter((c) => c.result).map((c) => c.result!.outputHash);
    if (hashes.length < 2) continue;
    if (hashes.every((h) => h === hashes[0])) identical++; else different++;
  }
  return {
    events,
    requests,
    toolCalls: calls.length,
    distinctCalls: bySignature.size,
    groups: [...groups.values()].sort((a, b) => b.count - a.count || a.call.localeCompare(b.call)),
    longestRun: longest,
    repeated: { calls: repeatedCalls, identicalOutput: identical, differentOutput: different },
    metrics: {
      sameCall: maxOf([...bySignature.values()].map((l) => l.length)),
      sameCallSameOutput: maxOf(sameOutput.values()),
      sameCallNoProgress: maxOf(sameEpoch.values()),
      longestRun: longest?.length ?? (calls.length > 0 ? 1 : 0),
      sameError: maxOf(sameError.values()),
      sameFileReads: maxOf(fileReads.values()),
      streamLineRepeat: streamMax,
      distinctCallPct: calls.length === 0 ? 100 : Math.round((bySignature.size / calls.length) * 100),
    },
  };
}

/** The report of a session from what its replay fired and its call figures. */
export function sessionReport(session: { file: string; format: string }, interventions: readonly Intervention[], figures: CallFigures, label: SessionLabel | undefined): SessionStatsReport {
  const fired = interventions.map((iv) => ({ event: iv.event, detector: iv.detector, action: iv.action, summary: iv.summary }));
  return {
    file: session.file,
    format: session.format,
    ...(label ? { label } : {}),
    ...figures,
    interventions: fired,
    verdict: verdictOf(label, fired),
  };
}
