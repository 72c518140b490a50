/**
 * All five stream detectors together: productive look-alikes stay quiet, loops are caught by
 * the same detector at the same character however the text is chunked.
 */
import * as assert from "node:assert/strict";
import type { DetectorId } from "../../src/engine/detector";
import type { TraceEvent } from "../../src/engine/events";
import type { Intervention } from "../../src/engine/session";
import { StructureTracker, classifyLine } from "../../src/engine/structure";
import { charRangeOf, prose, request, runOnly, streamOf } from "./streamTestKit";

const STREAM: DetectorId[] = ["stream-repeat", "line-repeat", "near-duplicate", "list-template", "stagnation"];
const all = (events: TraceEvent[]) => runOnly(STREAM, events);
const user: TraceEvent = { t: "user", text: "go" };

const LOOKALIKES: Record<string, { channel: "reasoning" | "text"; text: string }> = {
  "repetitive code in a fence": { channel: "text", text: "Here's the module:\n\n```python\n" + Array.from({ length: 30 }, (_, i) => `def func_${String(i).padStart(2, "0")}():\n    print("func_${String(i).padStart(2, "0")}")\n\n\n`).join("") + "```\n\nEach function prints its own name.\n" },
  "code drafted in thinking": { channel: "reasoning", text: "I'll draft the mapping first.\n\n```ts\nswitch (status) {\n" + [408, 425, 429, 500, 502, 503, 504].map((c) => `  case ${c}: return 'retry'\n`).join("") + [400, 401, 403, 404, 409, 410, 422].map((c) => `  case ${c}: return 'fail'\n`).join("") + "  default: return status >= 500 ? 'retry' : 'fail'\n}\n```\n\nThat covers it; 429 should also honor Retry-After.\n" },
  "markdown table and dividers": { channel: "text", text: "| Option | Latency | Persistence |\n|---|---|---|\n" + ["Map", "LRU", "Redis", "Memcached", "SQLite"].map((o) => `| ${o} | ~0.01 ms | no |\n`).join("") + "\n+--------+--------+\n| legend | yes/no |\n+--------+--------+\n\n" + "─".repeat(40) + "\n" + "=".repeat(46) + "\n" + "-".repeat(46) + "\nRedis is the usual choice when several instances share a cache.\n" },
  "box-drawing benchmark output": { channel: "text", text: "╭" + "─".repeat(44) + "╮\n" + ["parse small", "parse medium", "parse large", "stringify small", "stringify large"].map((n, i) => `│ ${n.padEnd(18)} ${String(1000 * (i + 1)).padStart(10)}   0.8%  │\n`).join("") + "╰" + "─".repeat(44) + "╯\n" },
  "per-file report with one sentence under each heading": { channel: "text", text: ["auth", "billing", "cart", "catalog", "search", "shipping", "users"].map((f) => `### src/handlers/${f}.ts\n\nNo issues found. All awaited calls are inside try/catch and errors are passed to next().\n\n`).join("") + "Two files need fixes.\n" },
  "numbered plan naming a file per step": { channel: "text", text: Array.from({ length: 14 }, (_, i) => `${i + 1}. Update \`src/module${i}.ts\` to import the logger from the shared package and drop the local copy.\n`).join("") },
  "long varied reasoning": { channel: "reasoning", text: Array.from({ length: 30 }, (_, i) => prose(50, 300 + i)).join("\n\n") },
};

describe("stream detectors together", () => {
  for (const [name, { channel, text }] of Object.entries(LOOKALIKES)) {
    it(`stay quiet on ${name}`, () => {
      for (const size of [1, 40, { max: 40, seed: 9 }]) {
        assert.deepEqual(all([user, ...request(streamOf(channel, text, size))]).map((i) => `${i.detector}: ${i.summary}`), [], JSON.stringify(size));
      }
    });
  }

  it("stay quiet when every turn opens with the same sentence and says something new", () => {
    const opening = "Let me look at the failing test output again and compare it with the parser. ";
    const events: TraceEvent[] = [user];
    ["Row 3 has a quoted comma that split breaks.", "Row 7 has an escaped quote the tokenizer ends on.", "Row 9 keeps a carriage return in its last field.", "All rows should pass now; running the full suite."].forEach((n, i) => {
      events.push({ t: "request" }, ...streamOf("reasoning", opening + n), { t: "tool_call", id: `t${i}`, name: "execute_command", input: { command: "npx vitest run" } }, { t: "end" }, { t: "tool_result", id: `t${i}`, ok: true, output: `FAIL ${i}` });
      events.push({ t: "request" }, ...streamOf("reasoning", "Fix it."), { t: "tool_call", id: `e${i}`, name: "apply_diff", input: { path: "src/csv.ts", diff: `step ${i}` } }, { t: "end" }, { t: "tool_result", id: `e${i}`, ok: true, output: "Applied 1 change." });
    });
    assert.deepEqual(all(events), []);
  });

  const LOOPS: Record<string, { channel: "reasoning" | "text"; text: string; detector: DetectorId }> = {
    // a short chant (under near-duplicate's 12-word units), so that stream-repeat alone can see it
    "a chanted sentence": { channel: "text", text: "Done. " + "I will now mark the task as complete. ".repeat(8), detector: "stream-repeat" },
    "a returning line": { channel: "reasoning", text: Array.from({ length: 5 }, (_, i) => `I should re-run the failing test to see whether the handler is still called twice.\n${["Hmm.", "Okay.", "Wait."][i % 3]}\n`).join(""), detector: "line-repeat" },
    "an invented checklist": { channel: "text", text: "Here is the status:\n\n" + ["camera", "photo library", "microphone", "location", "contacts", "calendar", "reminders", "bluetooth", "speech recognition", "motion and fitness", "health", "homekit", "siri", "media library", "local network", "notifications", "face id", "nfc"].map((s) => `  [X] Fix bug where the app crashes when the user denies ${s} permissions.\n`).join(""), detector: "list-template" },
  };

  for (const [name, { channel, text, detector }] of Object.entries(LOOPS)) {
    it(`catch ${name} with ${detector} at the same character for any chunking`, () => {
      const ref = [user, ...request(streamOf(channel, text, 1))];
      const first = all(ref)[0];
      assert.equal(first?.detector, detector);
      const pos = charRangeOf(ref, first.event)[0];
      for (const size of [2, 13, 40, { max: 40, seed: 21 }, { max: 5, seed: 22 }]) {
        const events: TraceEvent[] = [user, ...request(streamOf(channel, text, size))];
        const iv: Intervention | undefined = all(events)[0];
        assert.equal(iv?.detector, detector, JSON.stringify(size));
        const [a, b] = charRangeOf(events, iv!.event);
        assert.ok(pos >= a && pos <= b, `${JSON.stringify(size)}: chunk ${a}-${b} misses ${pos}`);
      }
    });
  }
});

describe("stream detectors on odd input", () => {
  it("take empty chunks, CRLF, NUL, astral characters and one huge chunk without throwing", () => {
    const odd = "line one\r\nline two\r\n\u0000\u0000 😀😀😀 𝔘𝔫𝔦𝔠𝔬𝔡𝔢\n```\r\ncode\r\n```\r\n";
    const huge = prose(40000, 77);
    const events: TraceEvent[] = [user, { t: "request" }, { t: "reasoning", delta: "" }, { t: "text", delta: "" }, ...streamOf("text", odd.repeat(20), { max: 3, seed: 1 }), { t: "reasoning", delta: huge }, { t: "end" }, { t: "end" }, { t: "request" }, { t: "request" }];
    assert.doesNotThrow(() => all(events));
  });

  it("catch a loop that arrives in one huge chunk", () => {
    const ivs = all([user, ...request([{ t: "reasoning", delta: prose(500, 8) + "\n" + "I will check the handler file again before changing anything else here.\n".repeat(40) }])]);
    assert.ok(ivs.length >= 1);
    assert.equal(ivs[0].action, "abort");
    assert.equal(new Set(ivs.map((i) => i.detector)).size, ivs.length, "each detector reports the loop once");
  });
});

describe("markdown structure", () => {
  it("classifies lines", () => {
    const cases: Array<[string, string]> = [
      ["", "blank"], ["### src/a.ts", "heading"], ["**src/a.ts**", "heading"], ["| a | b |", "table"], ["|---|---|", "divider"],
      ["+--------+", "divider"], ["│ parse │", "table"], ["=====", "divider"], ["────────", "divider"], ["- item", "list"],
      ["12. step", "list"], ["  [X] done", "list"], ["    indented code();", "code"], ["const x = f(a, b);", "code"],
      ["I will remove the onClick handler.", "prose"], ["The fix (see #12) works.", "prose"], ["src/handlers/auth.ts:", "heading"], ["Let me trace through the logic:", "heading"],
    ];
    for (const [line, kind] of cases) assert.equal(classifyLine(line), kind, JSON.stringify(line));
  });

  it("follows fences, closing only on the same fence character", () => {
    const t = new StructureTracker();
    const kinds = ["text", "```ts", "~~~", "a = 1", "```", "after"].map((l) => t.lineKind(l));
    assert.deepEqual(kinds, ["prose", "fence", "code", "code", "fence", "prose"]);
  });
});
