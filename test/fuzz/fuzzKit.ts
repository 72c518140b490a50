/**
 * Property-based fuzzing of every session reader and of the live translators (fast-check).
 * Inputs are real fixture files, mutated the ways files break in practice (cut mid-write, a byte
 * flipped, a field of another type, an unknown kind, thousands of nesting levels, invalid UTF-8,
 * BOM, CRLF), and arbitrary JSON. The properties:
 * - a reader returns sessions or throws a SessionFormatError, never anything else;
 * - every error is one line naming the file; every read is bounded in time;
 * - a good session beside the bad file is still reported by a folder walk;
 * - live: Cline's watcher over files rewritten, rolled back and cut mid-write gives the verdicts
 *   that replay of the final file gives; Roo's translator survives any message update.
 * The short run (npm test) and the long run (npm run fuzz) share this file.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { toTraceEvent, type TraceEvent } from "../../src/engine/events";
import { replayEvents } from "../../src/engine/replay";
import { LoopSession, type Intervention } from "../../src/engine/session";
import { collectSessions, SESSION_READERS } from "../../src/formats";
import { SessionFormatError } from "../../src/formats/reader";
import { ClineWatcher } from "../../src/hosts/cline/watcher";
import { snapshotMessage } from "../../src/hosts/roo/messages";
import { RooTaskTranslator } from "../../src/hosts/roo/translator";

const ROOT = path.resolve(__dirname, "../../..");
const FIX = path.join(ROOT, "test/fixtures");
/** A read of one fixture-sized input taking more CPU time than this is a hang (CPU, not wall time: the machine may be shared). */
export const MAX_READ_MS = 3000;

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

/** A fixture as laid out on disk: its files (relative path → text) and the path a user names. */
export interface Seed {
  kind: string;
  files: Record<string, string>;
  /** The file that gets mutated. */
  main: string;
  /** The path handed to the reader (the file, or its task folder). */
  target: string;
}

function read(rel: string): string { return fs.readFileSync(path.join(FIX, rel), "utf8"); }

export function loadSeeds(): Seed[] {
  const seeds: Seed[] = [];
  const file = (kind: string, rel: string, name = path.basename(rel)) => seeds.push({ kind, files: { [name]: read(rel) }, main: name, target: name });
  for (const s of ["loop_tool_identical_read_x6", "ok_git_status_between_ops", "loop_abab_edit_build_no_progress"]) file("trace", `scenarios/${s}.trace.jsonl`);
  file("claude-code", "formats/claude-code/transcript.jsonl", "4f1c2d3e-aaaa-bbbb-cccc-1234567890ab.jsonl");
  file("pi", "formats/pi/2025-09-02T14-00-00-000Z_0b6c1f0e-3c1a-4f1e-b7d2-5f0c9e2a7d11.jsonl");
  file("opencode", "formats/opencode/ses_6a1f3c2d9ffe.json");
  file("gemini-cli", "formats/gemini-cli/session-2025-09-02T14-00-0f1e2d3c.json");
  file("gemini-cli", "formats/gemini-cli/session-2025-09-02T14-00-0f1e2d3c.jsonl");
  file("gemini-cli", "formats/gemini-cli/checkpoint-divide-fix.json");
  // Recorded from the real CLIs: parallel calls, a search, an edit, reasoning.
  for (const f of fs.readdirSync(path.join(FIX, "recorded/codex/productive-parallel"))) file("codex", `recorded/codex/productive-parallel/${f}`);
  file("copilot-cli", "recorded/copilot-cli/productive-parallel/events.jsonl");
  const classic = "tasks/1795332497258";
  seeds.push({ kind: "cline-classic", files: { [`${classic}/ui_messages.json`]: read(`cline/classic/${classic}/ui_messages.json`) }, main: `${classic}/ui_messages.json`, target: classic });
  const v4 = "sessions/1795332070724_oh9x4";
  const v4file = `${v4}/1795332070724_oh9x4.messages.json`;
  seeds.push({ kind: "cline-session", files: { [v4file]: read(`cline/v4/${v4file}`) }, main: v4file, target: v4 });
  const rooDir = "roo/tasks";
  for (const id of fs.readdirSync(path.join(FIX, rooDir)).sort()) {
    const files: Record<string, string> = {};
    for (const f of fs.readdirSync(path.join(FIX, rooDir, id))) files[`tasks/${id}/${f}`] = read(`${rooDir}/${id}/${f}`);
    if (files[`tasks/${id}/ui_messages.json`] === undefined) continue;
    seeds.push({ kind: "roo-task", files, main: `tasks/${id}/ui_messages.json`, target: `tasks/${id}` });
  }
  return seeds;
}

// ---- mutations ---------------------------------------------------------------------------------

/** Every container and leaf of a JSON value, by path, for picking one to change. */
function pathsOf(value: unknown, max = 2000): (string | number)[][] {
  const out: (string | number)[][] = [];
  const stack: [unknown, (string | number)[]][] = [[value, []]];
  while (stack.length > 0 && out.length < max) {
    const [v, p] = stack.pop()!;
    out.push(p);
    if (Array.isArray(v)) v.forEach((c, i) => stack.push([c, [...p, i]]));
    else if (typeof v === "object" && v !== null) for (const [k, c] of Object.entries(v)) stack.push([c, [...p, k]]);
  }
  return out;
}

function setAt(root: unknown, p: (string | number)[], value: unknown): unknown {
  if (p.length === 0) return value;
  let node = root as Record<string | number, unknown>;
  for (const k of p.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
  Object.defineProperty(node, p[p.length - 1], { value, writable: true, enumerable: true, configurable: true });
  return root;
}

function deepValue(depth: number, leaf: unknown): string {
  return "{\"a\":[".repeat(depth) + JSON.stringify(leaf) + "]}".repeat(depth);
}

/** A change to one JSON document (a whole file, or one JSONL line). */
type JsonChange = { op: "swap"; at: number; value: unknown } | { op: "kind"; at: number; name: string } | { op: "deep"; at: number; depth: number };

function changeJson(text: string, c: JsonChange): string {
  // A document already made deep by an earlier mutation cannot be re-serialised: left as it is.
  try { return changeParsedJson(text, c); } catch (err) { if (err instanceof RangeError) return text; throw err; }
}

function changeParsedJson(text: string, c: JsonChange): string {
  let value: unknown;
  try { value = JSON.parse(text); } catch { return text; }
  const paths = pathsOf(value);
  const p = paths[c.at % paths.length];
  if (c.op === "swap") return JSON.stringify(setAt(value, p, c.value));
  if (c.op === "kind") {
    // An unknown kind: the first type-like field under the picked node gets a name no reader knows.
    const kindPaths = paths.filter((q) => ["t", "type", "say", "ask", "role", "kind"].includes(String(q[q.length - 1])));
    if (kindPaths.length === 0) return text;
    return JSON.stringify(setAt(value, kindPaths[c.at % kindPaths.length], c.name));
  }
  const marker = "\u0000DEEP\u0000";
  return JSON.stringify(setAt(value, p, marker)).replace(JSON.stringify(marker), deepValue(c.depth, "x"));
}

export type Mutation =
  | { op: "truncate"; at: number }
  | { op: "flip"; at: number; byte: number }
  | { op: "insertBytes"; at: number; bytes: number[] }
  | { op: "bom" } | { op: "crlf" }
  | { op: "json"; line: number; change: JsonChange }
  | { op: "duplicateLine"; line: number }
  | { op: "replace"; text: string };

const jsonChange: fc.Arbitrary<JsonChange> = fc.oneof(
  fc.record({ op: fc.constant("swap" as const), at: fc.nat(), value: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(42, true, null, [], {}, ["x"], { text: 1 }, "", -1, 1e308)) }),
  fc.record({ op: fc.constant("kind" as const), at: fc.nat(), name: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("tool_call_v9", "__proto__", "constructor", "")) }),
  fc.record({ op: fc.constant("deep" as const), at: fc.nat(), depth: fc.integer({ min: 500, max: 20000 }) }),
);

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant("truncate" as const), at: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("flip" as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("insertBytes" as const), at: fc.nat(), bytes: fc.array(fc.constantFrom(0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x00, 0x0a, 0x22, 0x7b), { minLength: 1, maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.constant({ op: "bom" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "crlf" as const }) },
  { weight: 6, arbitrary: fc.record({ op: fc.constant("json" as const), line: fc.nat(), change: jsonChange }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("duplicateLine" as const), line: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("replace" as const), text: fc.oneof(fc.json({ maxDepth: 3 }), fc.string({ maxLength: 200 })) }) },
);

/** The mutation's kind, for the figures of a run. */
export function mutationKind(m: Mutation): string {
  return m.op === "json" ? `json-${m.change.op}` : m.op;
}

export function mutate(text: string, m: Mutation): Buffer {
  const buf = Buffer.from(text, "utf8");
  switch (m.op) {
    case "truncate": return buf.subarray(0, m.at % (buf.length + 1));
    case "flip": { if (buf.length === 0) return buf; const b = Buffer.from(buf); b[m.at % b.length] ^= m.byte || 1; return b; }
    case "insertBytes": { const at = m.at % (buf.length + 1); return Buffer.concat([buf.subarray(0, at), Buffer.from(m.bytes), buf.subarray(at)]); }
    case "bom": return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), buf]);
    case "crlf": return Buffer.from(text.replace(/\n/g, "\r\n"), "utf8");
    case "replace": return Buffer.from(m.text, "utf8");
    case "duplicateLine": {
      const lines = text.split("\n");
      const i = m.line % lines.length;
      lines.splice(i, 0, lines[i]);
      return Buffer.from(lines.join("\n"), "utf8");
    }
    case "json": {
      // A whole-file JSON document, or one line of a JSONL file.
      try { JSON.parse(text); return Buffer.from(changeJson(text, m.change), "utf8"); } catch { /* JSONL */ }
      const lines = text.split("\n");
      const full = lines.map((l, i) => [l, i] as const).filter(([l]) => l.trim() !== "");
      if (full.length === 0) return buf;
      const [line, i] = full[m.line % full.length];
      lines[i] = changeJson(line, m.change);
      return Buffer.from(lines.join("\n"), "utf8");
    }
  }
}

// ---- reader properties -------------------------------------------------------------------------

function tmpDir(prefix: string): string { return fs.mkdtempSync(path.join(os.tmpdir(), prefix)); }

function writeFiles(dir: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  }
}

/** A session every walk must still report, whatever sits beside it. */
const GOOD_TRACE = ["{\"t\":\"user\",\"text\":\"go\"}", "{\"t\":\"request\"}", "{\"t\":\"text\",\"delta\":\"ok\"}", "{\"t\":\"end\"}"].join("\n") + "\n";

function checkError(err: unknown, dir: string): void {
  assert.ok(err instanceof SessionFormatError, `not a located error: ${(err as Error)?.stack ?? err}`);
  assert.ok(!/[\r\n]/.test(err.message), `error spans lines: ${JSON.stringify(err.message)}`);
  assert.ok(err.file.startsWith(dir), `error names no input file: ${err.message}`);
}

/**
 * One mutated fixture: read by its own reader and by every reader that claims it (nothing but
 * sessions or a SessionFormatError), walked beside a good trace (still reported), and replayed.
 */
export function checkReaderInput(seed: Seed, content: Buffer): void {
  const dir = tmpDir("ls-fuzz-");
  try {
    writeFiles(dir, { ...seed.files, [seed.main]: content, "good/ok.trace.jsonl": GOOD_TRACE });
    const target = path.join(dir, seed.target);
    const started = process.cpuUsage();
    for (const reader of SESSION_READERS) {
      const isDirectory = fs.statSync(target).isDirectory();
      let head: string | undefined;
      if (!isDirectory) head = fs.readFileSync(target).subarray(0, 4096).toString("utf8");
      if (!reader.detect(target, isDirectory, head)) continue;
      for (const lenient of [false, true]) {
        try {
          reader.read(target, { lenient });
        } catch (err) { checkError(err, dir); }
      }
    }
    const walked = collectSessions([dir], { lenient: false });
    for (const e of walked.errors) checkError(e, dir);
    assert.ok(walked.sessions.some((s) => s.file.endsWith(path.join("good", "ok.trace.jsonl"))), "the good session beside the bad file was lost");
    // What the walk returns is what replay, stats and convert use: valid events that serialise (convert writes them).
    for (const s of walked.sessions) {
      for (const e of s.events) toTraceEvent(JSON.parse(JSON.stringify(e)));
      const { faults } = replayEvents(s.events);
      assert.equal(faults.count, 0, `a detector failed: ${faults.first}`);
    }
    const ms = cpuMsSince(started);
    assert.ok(ms < MAX_READ_MS, `reading took ${ms.toFixed(0)} ms of CPU`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// ---- folder walks ------------------------------------------------------------------------------

/** One entry of a generated folder tree. */
export type WalkEntry =
  | { kind: "good"; dir: number }
  | { kind: "bad"; dir: number }
  | { kind: "loopLink"; dir: number; to: number }
  | { kind: "dangling"; dir: number }
  | { kind: "fifo"; dir: number };

export const walkTreeArb: fc.Arbitrary<WalkEntry[]> = fc.array(fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("good" as const), dir: fc.nat({ max: 5 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("bad" as const), dir: fc.nat({ max: 5 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("loopLink" as const), dir: fc.nat({ max: 5 }), to: fc.nat({ max: 5 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("dangling" as const), dir: fc.nat({ max: 5 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("fifo" as const), dir: fc.nat({ max: 5 }) }) },
), { minLength: 1, maxLength: 14 });

/** Folders 0..5 of a walk tree: a chain a/b/c plus siblings, so links can point up, down and across. */
const WALK_DIRS = ["", "a", "a/b", "a/b/c", "d", "d/e"];

/**
 * A folder tree with good traces, bad files, links back up the tree (loops), broken links and
 * FIFOs: every good trace is reported exactly once, every bad or broken path named in one line,
 * in bounded time.
 */
export function checkWalk(entries: WalkEntry[]): void {
  const root = tmpDir("ls-fuzz-walk-");
  try {
    for (const d of WALK_DIRS) fs.mkdirSync(path.join(root, d), { recursive: true });
    const good = new Set<string>();
    entries.forEach((e, i) => {
      const dir = path.join(root, WALK_DIRS[e.dir]);
      const name = path.join(dir, `${e.kind}${i}`);
      switch (e.kind) {
        case "good": fs.writeFileSync(`${name}.trace.jsonl`, GOOD_TRACE); good.add(fs.realpathSync(`${name}.trace.jsonl`)); break;
        case "bad": fs.writeFileSync(`${name}.trace.jsonl`, "{\"t\":\"user\",\"text\":\"x\"}\n{oops\n{\"t\":\"end\"}\n"); break;
        case "loopLink": fs.symlinkSync(path.join(root, WALK_DIRS[e.to]), name); break;
        case "dangling": fs.symlinkSync(path.join(root, "nowhere", String(i)), `${name}.trace.jsonl`); break;
        case "fifo": spawnSync("mkfifo", [name]); break;
      }
    });
    const started = process.cpuUsage();
    const { sessions, errors } = collectSessions([root], { lenient: false });
    assert.ok(cpuMsSince(started) < MAX_READ_MS, "the walk took too long");
    const reported = sessions.map((s) => fs.realpathSync(s.file));
    assert.equal(new Set(reported).size, reported.length, `a session was reported twice: ${reported.join(", ")}`);
    for (const g of good) assert.ok(reported.includes(g), `good session lost: ${g}`);
    // Each bad file and broken link named once (a folder reached again through a link is not walked again); FIFOs passed over.
    const bad = entries.filter((e) => e.kind === "bad" || e.kind === "dangling").length;
    assert.equal(errors.length, bad, `bad paths named: ${errors.map((e) => e.message).join(" | ")}`);
    for (const e of errors) checkError(e, root);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

// ---- live: Cline watcher against replay --------------------------------------------------------

/** One write of the task file: the first `count` messages, the last perhaps streamed part-way, or the text cut mid-write. */
export interface ClineWrite { count: number; partialChars?: number; cutAt?: number; garbage?: string }

export const clineWritesArb = (n: number): fc.Arbitrary<ClineWrite[]> => fc.array(
  fc.record({
    count: fc.integer({ min: 0, max: n }),
    partialChars: fc.option(fc.nat({ max: 400 }), { nil: undefined }),
    cutAt: fc.option(fc.nat(), { nil: undefined }),
  }),
  { minLength: 1, maxLength: 12 },
);

/**
 * Writes as Cline makes them: any prefix of the messages (a rollback shows an earlier prefix, and
 * the same messages may come back), but only the newest message streams, and it only grows: a
 * message once shown complete never turns partial again under the same timestamp.
 */
function realisticWrites(writes: ClineWrite[]): ClineWrite[] {
  let frontier = 0;
  let streamed: { count: number; chars: number } | undefined;
  return writes.map((w) => {
    let partialChars = w.partialChars;
    if (partialChars !== undefined) {
      const growing = w.count > frontier || (streamed !== undefined && streamed.count === w.count && partialChars >= streamed.chars);
      if (!growing) partialChars = undefined;
    }
    // Cut or invalid writes are never parsed, so they say nothing about what was shown.
    if (w.cutAt === undefined && w.garbage === undefined) {
      if (w.count > frontier || (streamed?.count === w.count && partialChars === undefined)) streamed = undefined;
      frontier = Math.max(frontier, w.count);
      if (partialChars !== undefined) streamed = { count: w.count, chars: partialChars };
      else if (w.count >= frontier) frontier = w.count;
    }
    return { ...w, partialChars };
  });
}

function verdicts(ivs: readonly Intervention[]): string[] {
  return ivs.map((iv) => `${iv.detector}:${iv.action}:${iv.key}`);
}

function classicFileAt(messages: unknown[], w: ClineWrite): string {
  const list = messages.slice(0, w.count).map((m) => m);
  const last = list[list.length - 1] as Record<string, unknown> | undefined;
  if (w.partialChars !== undefined && last && typeof last.text === "string" && (last.say === "text" || last.say === "reasoning")) {
    list[list.length - 1] = { ...last, text: last.text.slice(0, w.partialChars), partial: true };
  }
  const text = JSON.stringify(list);
  return w.cutAt === undefined ? text : text.slice(0, w.cutAt % text.length);
}

function sessionFileAt(doc: Record<string, unknown>, messages: unknown[], w: ClineWrite): string {
  const list = messages.slice(0, w.count);
  const last = list[list.length - 1] as Record<string, unknown> | undefined;
  if (w.partialChars !== undefined && last && Array.isArray(last.content) && last.content.length > 1) {
    // A response written while its blocks were still coming.
    list[list.length - 1] = { ...last, content: last.content.slice(0, 1 + (w.partialChars % last.content.length)) };
  }
  const text = JSON.stringify({ ...doc, messages: list });
  return w.cutAt === undefined ? text : text.slice(0, w.cutAt % text.length);
}

/**
 * Follows a Cline task file through the given writes (then the final file) with the live watcher
 * and checks the interventions equal those of replaying the final file. Returns the verdict count.
 */
export function checkClineLive(layout: "classic" | "v4", final: unknown, writes: ClineWrite[]): number {
  const dir = tmpDir("ls-fuzz-cline-");
  try {
    const id = layout === "classic" ? "1795332497258" : "1795332070724_oh9x4";
    const rel = layout === "classic" ? `tasks/${id}/ui_messages.json` : `sessions/${id}/${id}.messages.json`;
    const file = path.join(dir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const messages = layout === "classic" ? (final as unknown[]) : ((final as Record<string, unknown>).messages as unknown[]);
    const session = new LoopSession();
    const live: Intervention[] = [];
    const errors: string[] = [];
    const watcher = new ClineWatcher({
      roots: [dir],
      onEvent: (e) => { toTraceEvent(JSON.parse(JSON.stringify(e.event))); for (const iv of session.push(e.event)) live.push(iv); },
      onError: (m) => errors.push(m),
    });
    let stamp = 1_000_000;
    const write = (text: string) => {
      fs.writeFileSync(file, text);
      // A distinct mtime each write: the watcher reads on a changed stamp, size or inode.
      stamp += 1;
      fs.utimesSync(file, stamp, stamp);
      watcher.poll();
    };
    for (const w of realisticWrites(writes)) write(w.garbage !== undefined ? w.garbage : layout === "classic" ? classicFileAt(messages, w) : sessionFileAt(final as Record<string, unknown>, messages, w));
    const finalText = JSON.stringify(final);
    write(finalText);
    assert.ok(!errors.some((m) => /listener failed/.test(m)), errors.join("\n"));
    assert.equal(session.faults.count, 0, `a detector failed: ${session.faults.first}`);
    const read = collectSessions([path.join(dir, path.dirname(rel))], { lenient: true });
    const replayed = read.sessions.length > 0 ? replayEvents(read.sessions[0].events).interventions : [];
    // Replay closes the last request at the end of the file; live, the request is still open.
    assert.deepEqual(verdicts(live), verdicts(replayed).slice(0, live.length), `live ${verdicts(live).join(", ")} vs replay ${verdicts(replayed).join(", ")}`);
    assert.ok(replayed.length - live.length <= 1, `live missed verdicts: ${verdicts(live).join(", ")} vs replay ${verdicts(replayed).join(", ")}`);
    return replayed.length;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// ---- live: Roo message updates ----------------------------------------------------------------

/** A Roo message update: created or updated, perhaps partial, perhaps with fields of another type. */
export const rooUpdatesArb = (messages: unknown[]): fc.Arbitrary<{ index: number; action: "created" | "updated"; cut?: number; change?: JsonChange }[]> => fc.array(
  fc.record({
    index: fc.nat({ max: Math.max(0, messages.length - 1) }),
    action: fc.constantFrom("created" as const, "updated" as const),
    cut: fc.option(fc.nat({ max: 300 }), { nil: undefined }),
    change: fc.option(jsonChange, { nil: undefined, freq: 3 }),
  }),
  { minLength: 1, maxLength: 40 },
);

/** Feeds the updates to Roo's live translator and the engine: nothing throws, every event is a valid trace event. */
export function checkRooLive(messages: unknown[], updates: { index: number; action: "created" | "updated"; cut?: number; change?: JsonChange }[]): void {
  const translator = new RooTaskTranslator();
  const session = new LoopSession();
  const started = process.cpuUsage();
  for (const u of updates) {
    let value: unknown = messages[u.index];
    if (u.change) value = JSON.parse(changeJson(JSON.stringify(value), u.change));
    if (u.cut !== undefined && typeof value === "object" && value !== null && typeof (value as { text?: unknown }).text === "string") {
      value = { ...(value as object), text: (value as { text: string }).text.slice(0, u.cut), partial: true };
    }
    const m = snapshotMessage(value);
    if (!m) continue;
    const events: TraceEvent[] = translator.message(u.action, m);
    for (const e of events) { toTraceEvent(JSON.parse(JSON.stringify(e))); session.push(e); }
  }
  assert.equal(session.faults.count, 0, `a detector failed: ${session.faults.first}`);
  assert.ok(cpuMsSince(started) < MAX_READ_MS, "Roo updates took too long");
}

export function rooMessagesOf(seeds: Seed[]): unknown[][] {
  return seeds.filter((s) => s.kind === "roo-task").map((s) => JSON.parse(s.files[s.main]) as unknown[]);
}

// ---- long texts without spaces or newlines -----------------------------------------------------

/** Long unbroken texts as sessions carry them: a "!!!!" loop, CJK reasoning, base64. */
export type LongTextKind = "bang" | "cjk" | "base64";
export const LONG_TEXT_KINDS: readonly LongTextKind[] = ["bang", "cjk", "base64"];

export function longText(kind: LongTextKind, chars: number): string {
  if (kind === "bang") return "!".repeat(chars);
  if (kind === "cjk") return "思考中我们需要检查这个文件的内容".repeat(Math.ceil(chars / 16)).slice(0, chars);
  let out = "";
  for (let i = 0; out.length < chars; i++) out += Buffer.from(`chunk-${i}-${i * 7919}`).toString("base64").replace(/=/g, "");
  return out.slice(0, chars);
}

const TEXT_KEYS = new Set(["text", "delta", "content", "reasoning", "thinking", "thought", "output", "description", "message"]);

/** The path of the longest prose string (not embedded JSON) under a text-like key, else the longest string: where a session's prose sits. */
function longestTextPath(value: unknown): (string | number)[] | undefined {
  let best: { p: (string | number)[]; score: number } | undefined;
  const stack: [unknown, (string | number)[]][] = [[value, []]];
  while (stack.length > 0) {
    const [v, p] = stack.pop()!;
    if (typeof v === "string") {
      // Prose over embedded JSON (Roo's and Cline's tool asks are JSON in a "text" field).
      const score = v.length + (TEXT_KEYS.has(String(p[p.length - 1])) ? 1e9 : 0) + (/^\s*[[{]/.test(v) ? 0 : 1e10);
      if (!best || score > best.score) best = { p, score };
    } else if (Array.isArray(v)) v.forEach((c, i) => stack.push([c, [...p, i]]));
    else if (typeof v === "object" && v !== null) for (const [k, c] of Object.entries(v)) stack.push([c, [...p, k]]);
  }
  return best?.p;
}

/** The seed's main file with its longest prose replaced by `text` (a JSONL file: in its longest line's prose). */
export function withLongText(seed: Seed, text: string): Buffer {
  const body = seed.files[seed.main];
  const put = (docText: string): string | undefined => {
    let doc: unknown;
    try { doc = JSON.parse(docText); } catch { return undefined; }
    const p = longestTextPath(doc);
    return p ? JSON.stringify(setAt(doc, p, text)) : undefined;
  };
  const whole = put(body);
  if (whole !== undefined) return Buffer.from(whole, "utf8");
  const lines = body.split("\n");
  let at = -1;
  for (let i = 0; i < lines.length; i++) if (lines[i].trim() && (at < 0 || lines[i].length > lines[at].length) && put(lines[i]) !== undefined) at = i;
  if (at >= 0) lines[at] = put(lines[at])!;
  return Buffer.from(lines.join("\n"), "utf8");
}

/**
 * Roo's live translator over one message streaming a long unbroken text (whole text so far on each
 * update, as Roo sends it): bounded in time, the deltas add up to the text.
 */
export function checkRooLongText(text: string, updates: number): void {
  const translator = new RooTaskTranslator();
  const session = new LoopSession();
  const started = process.cpuUsage();
  let got = "";
  const feed = (action: "created" | "updated", m: unknown) => {
    for (const e of translator.message(action, snapshotMessage(m)!)) {
      if (e.t === "reasoning") got += e.delta;
      session.push(e);
    }
  };
  feed("created", { ts: 1, type: "say", say: "api_req_started", text: "{\"apiProtocol\":\"openai\"}" });
  for (let k = 1; k <= updates; k++) {
    const partial = k < updates;
    feed(k === 1 ? "created" : "updated", { ts: 2, type: "say", say: "reasoning", text: text.slice(0, Math.round((text.length * k) / updates)), partial });
  }
  assert.equal(got.length, text.length, "the streamed deltas do not add up to the text");
  assert.equal(session.faults.count, 0, `a detector failed: ${session.faults.first}`);
  const ms = cpuMsSince(started);
  assert.ok(ms < MAX_READ_MS, `a ${text.length}-character unbroken text took ${ms.toFixed(0)} ms of CPU live`);
}

/**
 * Writes the way a non-atomic writer leaves a task file between two reads: the whole file in
 * pieces (a prefix of its bytes), emptied and rewritten, briefly invalid, rolled back to fewer
 * messages, or grown to more. No streaming of partial messages: each message is shown whole.
 */
export const clineChunkedWritesArb = (n: number): fc.Arbitrary<ClineWrite[]> => fc.array(
  fc.oneof(
    { weight: 3, arbitrary: fc.record({ count: fc.integer({ min: 0, max: n }) }) },
    { weight: 3, arbitrary: fc.record({ count: fc.integer({ min: 0, max: n }), cutAt: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ count: fc.constant(0), garbage: fc.constantFrom("", "[", "[]", "{", "[{\"ts\":", "null", "[1,2", "\u0000\u0000") }) },
  ),
  { minLength: 1, maxLength: 16 },
);
