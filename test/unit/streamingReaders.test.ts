/**
 * Claude Code and pi sessions are replayed as streams (memory flat in the file's size): the streamed
 * reading must hand over exactly the events, counts and errors of reading the file whole, on the
 * real agents' files and on the same files damaged in the ways files get damaged (a line cut
 * mid-write, a bad line inside, CRLF, a BOM, entries out of order, a sub-agent's own transcript).
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TraceEvent } from "../../src/engine/events";
import { claudeCodeReader } from "../../src/formats/claudeCode";
import { MAX_WHOLE_FILE_BYTES } from "../../src/formats/exportHelpers";
import { readSessions } from "../../src/formats";
import { piReader } from "../../src/formats/pi";
import type { SessionReader } from "../../src/formats/reader";

const FIXTURES = path.resolve(__dirname, "../../../test/fixtures");

function jsonlFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? jsonlFiles(p) : p.endsWith(".jsonl") ? [p] : [];
  });
}

type Outcome = { sessions: Array<{ events: TraceEvent[]; skipped: number; ignored?: Record<string, number> }> } | { error: string };

function whole(reader: SessionReader, file: string, lenient: boolean): Outcome {
  try {
    return { sessions: reader.read(file, { lenient }).map((s) => ({ events: s.events, skipped: s.skipped, ignored: s.ignored })) };
  } catch (err) { return { error: (err as Error).message }; }
}

function streamed(reader: SessionReader, file: string, lenient: boolean): Outcome {
  const events: TraceEvent[] = [];
  try {
    const s = reader.stream!(file, { lenient }, (e) => events.push(e));
    return { sessions: s ? [{ events, skipped: s.skipped, ignored: s.ignored }] : [] };
  } catch (err) { return { error: (err as Error).message }; }
}

/** The ways a JSONL session file arrives damaged or re-encoded; each keeps the header line first. */
const VARIANTS: Record<string, (lines: string[]) => string> = {
  "as written": (l) => l.join("\n") + "\n",
  "no final newline": (l) => l.join("\n"),
  "CRLF": (l) => l.join("\r\n") + "\r\n",
  "BOM": (l) => "\ufeff" + l.join("\n") + "\n",
  "blank lines between": (l) => l.join("\n\n  \n") + "\n",
  "a bad line inside": (l) => [...l.slice(0, 3), '{"type": "user", "mess', ...l.slice(3)].join("\n") + "\n",
  "cut last line": (l) => [...l, '{"type":"assistant","message":{"id":"m'].join("\n"),
  "bad last line, ended": (l) => [...l, '{"type":"assistant","message":{"id":"m'].join("\n") + "\n",
  "bad last line, then spaces": (l) => [...l, '{"type":"assistant","message":{"id":"m', "   "].join("\n"),
  "a malformed entry, then a bad line": (l) => [...l.slice(0, 2), '{"no":"type"}', ...l.slice(2), "{oops", ...l.slice(-1)].join("\n") + "\n",
  "a malformed entry": (l) => [...l.slice(0, 4), "[1,2]", ...l.slice(4)].join("\n") + "\n",
  "entries reversed": (l) => [l[0], ...l.slice(1).reverse()].join("\n") + "\n",
  // a parent written after its child, the last entry still last
  "two entries swapped": (l) => [l[0], l[1], l[3], l[2], ...l.slice(4)].join("\n") + "\n",
  "sidechain only": (l) => [l[0], ...l.slice(1).map((x) => x.replace(/"isSidechain"\s*:\s*false/g, '"isSidechain":true'))].join("\n") + "\n",
  "no conversation": (l) => l.filter((x) => !/"type"\s*:\s*"(user|assistant)"/.test(x)).join("\n") + "\n",
};

describe("streamed Claude Code and pi sessions equal the whole-file reading", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-stream-readers-"));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const cases: Array<[SessionReader, string]> = [
    ...[...jsonlFiles(path.join(FIXTURES, "recorded/claude-code")), ...jsonlFiles(path.join(FIXTURES, "formats/claude-code")), path.join(FIXTURES, "formats/broken/bad-line.claude.jsonl")].map((f): [SessionReader, string] => [claudeCodeReader, f]),
    ...[...jsonlFiles(path.join(FIXTURES, "recorded/pi")), ...jsonlFiles(path.join(FIXTURES, "formats/pi")), path.join(FIXTURES, "formats/broken/pi-message-without-role.jsonl")].map((f): [SessionReader, string] => [piReader, f]),
  ];

  it("has the agents' files to compare on", () => {
    assert.ok(cases.filter(([r]) => r === claudeCodeReader).length >= 8);
    assert.ok(cases.filter(([r]) => r === piReader).length >= 14);
  });

  for (const [reader, file] of cases) {
    it(`${reader.format}: ${path.relative(FIXTURES, file)}, in ${Object.keys(VARIANTS).length} variants, strict and lenient`, () => {
      const lines = fs.readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "");
      let compared = 0;
      for (const [variant, write] of Object.entries(VARIANTS)) {
        const p = path.join(dir, `${reader.format}-${variant.replace(/\W+/g, "-")}.jsonl`);
        fs.writeFileSync(p, write(lines));
        for (const lenient of [false, true]) {
          assert.deepEqual(streamed(reader, p, lenient), whole(reader, p, lenient), `${variant}${lenient ? " (lenient)" : ""}`);
          compared++;
        }
      }
      assert.equal(compared, 2 * Object.keys(VARIANTS).length);
    });
  }

  it("hands a request's events over once it has ended, not at the end of the file", () => {
    const p = path.join(dir, "two-requests.jsonl");
    const assistant = (id: string, text: string, usage: number) => ({ type: "assistant", sessionId: "s", isSidechain: false, message: { id, role: "assistant", model: "m", content: [{ type: "text", text }], usage: { output_tokens: usage } } });
    const user = (text: string) => ({ type: "user", sessionId: "s", isSidechain: false, message: { role: "user", content: text } });
    // a streamed message: its later line carries the final usage, which the request event must show
    fs.writeFileSync(p, [user("go"), assistant("a", "one", 1), assistant("a", "two", 7), user("again"), assistant("b", "three", 3)].map((x) => JSON.stringify(x)).join("\n") + "\n");
    const seen: string[] = [];
    claudeCodeReader.stream!(p, { lenient: false }, (e) => seen.push(e.t === "request" ? `request:${e.usage?.tokensOut}` : e.t));
    assert.deepEqual(seen, ["user", "request:7", "text", "text", "end", "user", "request:3", "text", "end"]);
  });

  it("refuses, with a clear error, a one-document file too large to read whole", () => {
    const folder = path.join(dir, "task-huge");
    fs.mkdirSync(folder);
    const file = path.join(folder, "ui_messages.json");
    fs.writeFileSync(file, "[]");
    fs.truncateSync(file, MAX_WHOLE_FILE_BYTES + 1); // sparse: no disk, no time
    assert.throws(() => readSessions([folder], { lenient: false }), /ui_messages\.json: .*MB is more than the 256 MB read whole; this format is one JSON document/);
    fs.truncateSync(file, 2);
    assert.deepEqual(readSessions([folder], { lenient: false }).map((s) => s.events.length), [0]);
  });
});
