/**
 * What reaches a terminal: escape sequences in session text and file names are shown visibly in
 * human output (replay, stats, watch), JSON output stays exact, and error lines quote input only
 * up to a bound.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { main } from "../../src/cli/main";
import { bounded, visible } from "../../src/engine/printable";
import { cli } from "./cliKit";

const RETITLE = "\u001b]0;pwned\u0007";
const CLEAR = "\u001b[2J";
const CSI = "\u009b31m";
const BIDI = "\u202e";

/** A loop of six identical reads of a path carrying escape sequences, in a file whose name carries one too. */
function hostileTrace(): { dir: string; file: string; target: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-term-"));
  const target = `src/${RETITLE}${CLEAR}${CSI}${BIDI}config.ts`;
  const events: unknown[] = [{ t: "user", text: `fix it ${CLEAR}` }];
  for (let i = 0; i < 6; i++) {
    events.push({ t: "request" }, { t: "reasoning", delta: `reading again ${RETITLE}\n` });
    events.push({ t: "tool_call", id: `c${i}`, name: "read_file", input: { path: target } }, { t: "tool_result", id: `c${i}`, ok: true, output: `same ${CLEAR}` });
  }
  events.push({ t: "end" });
  const file = path.join(dir, `session${RETITLE}.trace.jsonl`);
  fs.writeFileSync(file, events.map((e) => JSON.stringify(e)).join("\n") + "\n");
  return { dir, file, target };
}

const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

describe("terminal output: session text cannot drive the terminal", () => {
  it("visible() writes control characters as escapes and leaves text, tabs and newlines alone", () => {
    assert.equal(visible(`a${RETITLE}b\tc\nd`), "a\\x1b]0;pwned\\x07b\tc\nd");
    assert.equal(visible(`${CSI}${BIDI}\r`), "\\x9b31m\\u202e\\x0d");
    assert.equal(visible("plain 思考"), "plain 思考");
  });

  it("replay and stats show escape sequences from session text and file names visibly", function () {
    this.timeout(30_000);
    const { file } = hostileTrace();
    for (const args of [["replay", "--explain", file], ["stats", file]]) {
      const r = cli(...args);
      assert.equal(r.code, 0, r.err);
      assert.doesNotMatch(r.out, RAW, `${args[0]} printed a raw control character`);
      assert.doesNotMatch(r.err, RAW);
      assert.match(r.out, /\\x1b\]0;pwned\\x07/, `${args[0]} did not show the escape visibly:\n${r.out}`);
    }
  });

  it("JSON output stays exact: the session's text parses back unchanged", function () {
    this.timeout(30_000);
    const { file, target } = hostileTrace();
    const r = cli("replay", "--json", file);
    assert.equal(r.code, 0, r.err);
    const doc = JSON.parse(r.out.trim());
    assert.equal(doc.file, file);
    assert.ok(JSON.stringify(doc).includes(JSON.stringify(target).slice(1, -1)), "the path with its escapes is in the JSON as it was");
  });

  it("watch's lines, and every command's error lines, are cleaned too", async () => {
    const lines: string[] = [];
    const io = { out: (t: string) => lines.push(t), err: (t: string) => lines.push(t) };
    assert.equal(await main(["watch", `--cline-data${CLEAR}`], io), 2);
    assert.equal(await main([`nope${RETITLE}`], io), 2);
    assert.ok(lines.length >= 2);
    for (const l of lines) assert.doesNotMatch(l, RAW, l);
  });
});

describe("error messages quote input only up to a bound", () => {
  it("bounded() cuts and says how much was left out, never splitting a surrogate pair", () => {
    assert.equal(bounded("abc", 5), "abc");
    assert.equal(bounded("abcdefgh", 3), "abc… (5 more characters)");
    assert.equal(bounded("ab😀cd", 3), "ab… (4 more characters)");
  });

  it("a 10 MB unknown event type, a 10 MB setting key and a 10 MB argument give short error lines", function () {
    this.timeout(60_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-bound-"));
    const huge = "X".repeat(10 * 1024 * 1024);
    const trace = path.join(dir, "big.trace.jsonl");
    fs.writeFileSync(trace, `{"t":"user","text":"go"}\n{"t":"${huge}"}\n`);
    const r = cli("replay", trace);
    assert.equal(r.code, 1);
    assert.match(r.err, /unknown event type "XXXX/);
    assert.ok(r.err.length < 4000, `error of ${r.err.length} characters`);
    const config = path.join(dir, "c.json");
    fs.writeFileSync(config, JSON.stringify({ detectors: { [huge.slice(0, 1024 * 1024)]: { warnAt: 1 } } }));
    const c = cli("replay", "--config", config, trace);
    assert.ok(c.err.length < 4000, `config warning of ${c.err.length} characters`);
    assert.match(c.err, /unknown detector/);
    const s = cli("replay", "--set", `${huge.slice(0, 100_000)}`, trace);
    assert.equal(s.code, 2);
    assert.ok(s.err.length < 4000, `--set error of ${s.err.length} characters`);
  });
});
