import * as assert from "node:assert/strict";
import { feedOnly, step } from "./toolTestKit";
import type { TraceEvent } from "../../src/engine/events";
import { fileReread, lineSpan } from "../../src/engine/detectors/fileReread";
import { ToolLedger } from "../../src/engine/ledger";
import { createToolKnowledge } from "../../src/engine/toolKnowledge";
import type { DetectorContext } from "../../src/engine/detector";

const feed = (events: TraceEvent[]) => feedOnly("file-reread", events);
const read = (id: string, path: string, extra: Record<string, unknown> = {}) => step(id, "read_file", { path, ...extra }, true, `// ${path}\nrouter.get('/', handler)\n`);

describe("file-reread", () => {
  // An audit sweep that starts re-reading files, interleaved with the odd fresh one.
  const sweep = ["users", "orders", "admin", "billing", "reports", "health", "users", "orders", "export", "admin", "users", "billing", "orders", "admin"];

  it("warns once four of the last ten reads are re-reads of unchanged files", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Audit all route handlers" }];
    sweep.forEach((f, i) => evs.push(...read(`r${i}`, `routes/${f}.ts`)));
    const ivs = feed(evs);
    assert.equal(ivs[0].action, "warn");
    assert.equal(ivs[0].evidence.count, 4);
    // the 4th re-read is the 11th read (users.ts again)
    assert.equal(ivs[0].evidence.path, "routes/users.ts");
    assert.ok(ivs.some((iv) => iv.action === "block" && iv.toolCallId !== undefined));
  });

  it("is quiet when every re-read follows an edit", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "x" }];
    sweep.forEach((f, i) => {
      evs.push(...read(`r${i}`, `routes/${f}.ts`));
      evs.push(...step(`e${i}`, "apply_diff", { path: `routes/${f}.ts`, diff: `<<<<<<< SEARCH\nline ${i}\n=======\nnew ${i}\n>>>>>>> REPLACE` }, true, "Applied."));
    });
    assert.deepEqual(feed(evs), []);
  });

  it("does not count paging through other ranges of one large file", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "find the token check" }];
    for (let i = 0; i < 12; i++) evs.push(...read(`p${i}`, "scripts/analyze.py", { start_line: i * 200 + 1, end_line: (i + 1) * 200 }));
    assert.deepEqual(feed(evs), []);
  });

  it("does not count zooming in on parts of a range read earlier (tracing code)", () => {
    assert.deepEqual(lineSpan("start_line=1,end_line=200"), [1, 200]);
    assert.deepEqual(lineSpan("limit=50,offset=100"), [100, 149]);
    assert.deepEqual(lineSpan("10-40"), [10, 40]);
    const evs: TraceEvent[] = [{ t: "user", text: "x" }];
    evs.push(...read("w", "a.py", { start_line: 1, end_line: 400 }));
    for (let i = 0; i < 4; i++) evs.push(...read(`s${i}`, "a.py", { start_line: i * 100 + 1, end_line: i * 100 + 50 }));
    assert.deepEqual(feed(evs), []);
  });

  it("counts the same ranges read again, and wider or whole-file re-reads covering an earlier read", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "x" }];
    const spans: [number, number][] = [[1, 50], [101, 150], [201, 250], [301, 350]];
    spans.forEach(([a, b], i) => evs.push(...read(`f${i}`, "a.py", { start_line: a, end_line: b })));
    evs.push(...read("o", "b.py"));
    spans.forEach(([a, b], i) => evs.push(...read(`g${i}`, "a.py", i % 2 === 0 ? { start_line: a, end_line: b } : { start_line: a - 10, end_line: b + 10 })));
    assert.equal(feed(evs)[0]?.evidence.count, 4);
    // Whole-file reads of files already read (in part) count too.
    const whole: TraceEvent[] = [{ t: "user", text: "x" }];
    ["a", "b", "c", "d"].forEach((f, i) => whole.push(...read(`p${i}`, `${f}.py`, { start_line: 10, end_line: 30 })));
    ["a", "b", "c", "d"].forEach((f, i) => whole.push(...read(`w${i}`, `${f}.py`)));
    assert.equal(feed(whole)[0]?.evidence.count, 4);
  });

  it("does not count reads of sub-ranges while tracing a call path across new files (bash-only agent)", () => {
    const cmds = [
      "sed -n '860,920p' src/pkg/schema.py", "sed -n '890,900p' src/pkg/schema.py", "sed -n '670,680p' src/pkg/schema.py",
      "sed -n '11,50p' src/pkg/exceptions.py", "sed -n '338,500p' src/pkg/fields.py", "sed -n '460,470p' src/pkg/fields.py",
      "sed -n '573,610p' src/pkg/schema.py", "sed -n '633,690p' src/pkg/schema.py", "sed -n '920,960p' src/pkg/schema.py",
      "sed -n '920,935p' src/pkg/schema.py", "sed -n '863,910p' src/pkg/schema.py",
    ];
    const evs: TraceEvent[] = [{ t: "user", text: "why is the validator called with None?" }];
    cmds.forEach((c, i) => evs.push(...step(`c${i}`, "bash", { command: `cd /testbed && ${c}` }, true, `<returncode>0</returncode>\n<output>\n${c}\n</output>`)));
    assert.deepEqual(feed(evs), []);
  });

  it("lets new files opened among re-reads weigh against a loop", () => {
    const run = (fresh: boolean) => {
      const evs: TraceEvent[] = [{ t: "user", text: "x" }];
      ["a", "b", "c"].forEach((f, i) => evs.push(...read(`f${i}`, `src/${f}.ts`)));
      ["a", "b", "c", "a"].forEach((f, i) => {
        evs.push(...read(`r${i}`, `src/${f}.ts`));
        evs.push(...read(`n${i}`, fresh ? `src/new${i}.ts` : `src/${["c", "a", "b", "c"][i]}.ts`));
      });
      return feed(evs);
    };
    assert.ok((run(false)[0]?.evidence.count ?? 0) >= 4);
    assert.deepEqual(run(true), []);
  });

  it("takes an inline script that names a file as a possible write of it, even when the script then failed", () => {
    const bash = (id: string, command: string, ok: boolean, out: string) => step(id, "bash", { command }, true, `<returncode>${ok ? 0 : 1}</returncode>\n<output>\n${out}\n</output>`);
    const run = (script: string) => {
      const evs: TraceEvent[] = [{ t: "user", text: "fix sample_weight with a None estimator" }];
      const files = ["voting", "base", "utils"];
      files.forEach((f, i) => evs.push(...bash(`v${i}`, `nl -ba pkg/${f}.py | sed -n '1,220p'`, true, `1 class ${f}`)));
      evs.push(...bash("p", script, false, "Patched voting.py (1 replacements)\nTraceback (most recent call last):\nValueError: boom"));
      [...files, "voting"].forEach((f, i) => evs.push(...bash(`r${i}`, `nl -ba pkg/${f}.py | sed -n '1,220p'`, true, `1 class ${f}`)));
      return feed(evs);
    };
    const patch = "python - <<'PY'\nfrom pathlib import Path\np = Path('pkg/voting.py')\ns = p.read_text().replace('a', 'b')\np.write_text(s)\nprint('Patched voting.py')\nraise ValueError('boom')\nPY";
    // voting.py was (maybe) rewritten: its next read is new; the other re-reads stay under the bar.
    assert.deepEqual(run(patch), []);
    // The same script without naming the file (a read-only probe) changes nothing: the re-reads count.
    assert.ok(run("python - <<'PY'\nimport math\nprint(math.pi)\nPY").length > 0);
  });

  it("sees parallel reads of distinct files as fan-out", () => {
    const files = ["a.ts", "b.ts", "c.ts", "d.ts", "e.ts", "f.ts"];
    const evs: TraceEvent[] = [
      { t: "user", text: "read them" }, { t: "request" },
      ...files.map((f, i): TraceEvent => ({ t: "tool_call", id: `b${i}`, name: "Read", input: { file_path: f } })),
      { t: "end" },
      ...files.map((f, i): TraceEvent => ({ t: "tool_result", id: `b${i}`, ok: true, output: f })),
    ];
    assert.deepEqual(feed(evs), []);
  });

  it("counts shell reads of bash-only agents, and sed -i as a change", () => {
    const cmds = ["cat src/a.py", "sed -n '10,40p' src/b.py", "nl -ba src/c.py", "cat src/a.py", "sed -n '10,40p' src/b.py", "nl -ba src/c.py", "cat src/a.py", "head -n 20 src/d.py", "sed -n '10,40p' src/b.py"];
    const run = (withEdits: boolean) => {
      const evs: TraceEvent[] = [{ t: "user", text: "x" }];
      cmds.forEach((c, i) => {
        evs.push(...step(`c${i}`, "bash", { command: `cd /testbed && ${c}` }, true, `<returncode>0</returncode>\n<output>\ncontent ${c}\n</output>`));
        if (withEdits) evs.push(...step(`e${i}`, "bash", { command: `sed -i 's/x${i}/y${i}/' src/a.py` }, true, "<returncode>0</returncode>\n<output>\n</output>"));
      });
      return feed(evs);
    };
    assert.equal(run(false)[0]?.evidence.count, 4);
    assert.deepEqual(run(true), []);
  });

  it("does not count a retry of a read that failed", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "x" }];
    for (let i = 0; i < 6; i++) evs.push(...step(`f${i}`, "read_file", { path: "missing.ts" }, false, "File not found: missing.ts"));
    assert.deepEqual(feed(evs), []);
  });

  it("does not count a re-read that shows new content (a log being written)", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "watch the logs" }];
    for (let i = 0; i < 12; i++) {
      evs.push(...step(`l${i}`, "read_file", { path: "logs/server.log" }, true, `line ${i}`));
      evs.push(...step(`o${i}`, "read_file", { path: "logs/worker.log" }, true, `job ${i}`));
    }
    assert.deepEqual(feed(evs), []);
  });

  it("leaves back-to-back identical reads to tool-repeat", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "x" }];
    for (let i = 0; i < 9; i++) evs.push(...read(`r${i}`, "src/config.ts"));
    assert.deepEqual(feed(evs), []);
  });

  it("keeps memory bounded over thousands of files and pages", () => {
    const tools = createToolKnowledge();
    const ledger = new ToolLedger(tools);
    const d = fileReread.create({ ...fileReread.defaults });
    const ctx = (index: number): DetectorContext => ({ index, ts: undefined, requestCount: index + 1, epoch: ledger.epoch, tools, ledger });
    for (let i = 0; i < 6000; i++) {
      const input = i % 2 === 0 ? { path: `src/f${i}.ts` } : { path: "big.log", start_line: i * 10, end_line: i * 10 + 9 };
      const call = ledger.recordCall({ t: "tool_call", id: `c${i}`, name: "read_file", input }, 2 * i, i);
      d.onToolCall?.(call, ctx(2 * i));
      ledger.recordResult({ t: "tool_result", id: `c${i}`, ok: true, output: `x${i}` }, 2 * i + 1);
      d.onToolResult?.(call, ctx(2 * i + 1));
    }
    const inner = d as unknown as { seen: { size: number; peek(k: string): { ranges: Map<string, unknown>; spans: unknown[] } | undefined }; recent: unknown[] };
    assert.ok(inner.seen.size <= 1024);
    assert.ok((inner.seen.peek("big.log")?.ranges.size ?? 0) <= 256);
    assert.ok((inner.seen.peek("big.log")?.spans.length ?? 0) <= 64);
    assert.ok(inner.recent.length <= 10);
    assert.ok(ledger.recent.length <= 256);
  });

  // Roo's read_file with several files: the answer holds each file under its own <file> element.
  const files: Record<string, string> = {
    "src/webhooks/dispatcher.ts": "export async function dispatch(d: Delivery) {\n  await send(d);\n}",
    "src/webhooks/retry.ts": "export function scheduleRetry(d: Delivery) {\n  return queue.add(d);\n}",
    "src/webhooks/backoff.ts": "export const backoff = (n: number) => 2 ** n * 1000;",
  };
  const batch = (id: string, paths: string[], content: (p: string) => string = (p) => files[p]) => step(id, "read_file", { args: { file: paths.map((path) => ({ path })) } }, true,
    `<files>\n${paths.map((p) => `<file><path>${p}</path>\n<content>\n${content(p)}\n</content>\n</file>`).join("\n")}\n</files>`);

  it("counts re-reads of unchanged files in reshuffled Roo batches", () => {
    const [d, r, b] = Object.keys(files);
    const evs: TraceEvent[] = [{ t: "user", text: "Explain the webhook retry path" }];
    evs.push(...batch("b0", [d, r, b]), ...batch("b1", [r, d]), ...batch("b2", [b, r, d]), ...batch("b3", [d]), ...batch("b4", [r, b]));
    const ivs = feed(evs);
    assert.equal(ivs[0]?.action, "warn");
    assert.ok((ivs[0]?.evidence.count ?? 0) >= 4);
  });

  it("does not count batch re-reads whose files show new content (logs being written)", () => {
    const logs = ["logs/api.log", "logs/worker.log"];
    const evs: TraceEvent[] = [{ t: "user", text: "Watch the logs while the job runs" }];
    for (let i = 0; i < 6; i++) evs.push(...batch(`l${i}`, i % 2 === 0 ? logs : [...logs].reverse(), (p) => `${p} line ${i}: processed ${i * 10} jobs`));
    assert.deepEqual(feed(evs), []);
  });
});
