/** The replay command as a user runs it: the bundled dist/cli.js in a child process. */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { CLI, cli, ROOT } from "./cliKit";

const SCEN = path.join(ROOT, "test/fixtures/scenarios");


function tmpFile(name: string, text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-cli-"));
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
}

describe("loop-sentinel replay", () => {
  before(function () { if (!fs.existsSync(CLI)) throw new Error("dist/cli.js missing: run npm run build"); });

  it("prints one JSON object per file with the contract's fields", () => {
    const files = ["loop_tool_identical_read_x6", "ok_git_status_between_ops"].map((s) => path.join(SCEN, `${s}.trace.jsonl`));
    const r = cli("replay", "--json", ...files);
    assert.equal(r.code, 0, r.err);
    const lines = r.out.trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(lines.length, 2);
    assert.equal(lines[0].file, files[0]);
    assert.equal(lines[0].events, fs.readFileSync(files[0], "utf8").trim().split("\n").length);
    assert.ok(lines[0].interventions.length > 0);
    for (const iv of lines[0].interventions) {
      assert.equal(typeof iv.event, "number");
      assert.ok(["warn", "block", "abort", "stop"].includes(iv.action));
      assert.equal(typeof iv.detector, "string");
      assert.equal(typeof iv.message, "string");
      assert.equal(typeof iv.evidence, "object");
    }
    assert.deepEqual(lines[1].interventions, []);
  });

  it("walks a folder and prints a readable timeline by default", () => {
    const r = cli("replay", SCEN);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /loop_tool_identical_read_x6\.trace\.jsonl/);
    assert.match(r.out, /guidance: /);
    assert.match(r.out, /\d+ session\(s\), \d+ with interventions/);
  });

  it("names file and line of a bad line, exits non-zero and prints no result", () => {
    const f = tmpFile("bad.trace.jsonl", '{"t":"user","text":"hi"}\n{"t":"request"}\n{"t":"tool_call","id":"1"}\n');
    const r = cli("replay", "--json", f);
    assert.notEqual(r.code, 0);
    assert.equal(r.out, "");
    assert.match(r.err, new RegExp(`${f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3: `));
  });

  it("reports invalid JSON and unknown event kinds with their line", () => {
    assert.match(cli("replay", tmpFile("a.trace.jsonl", '{"t":"user","text":"x"}\nnot json\n')).err, /a\.trace\.jsonl:2: not valid JSON/);
    assert.match(cli("replay", tmpFile("b.trace.jsonl", '{"t":"thought","delta":"x"}\n')).err, /b\.trace\.jsonl:1: unknown event type "thought"/);
  });

  it("--lenient skips bad lines, says how many, and counts only good events", () => {
    const f = tmpFile("c.trace.jsonl", '{"t":"user","text":"x"}\nnot json\n{"t":"request"}\n');
    const r = cli("replay", "--json", "--lenient", f);
    assert.equal(r.code, 0, r.err);
    assert.equal(JSON.parse(r.out).events, 2);
    assert.match(r.err, /skipped 1 bad line/);
  });

  it("fails clearly on a missing file, an unknown option and a bad config", () => {
    assert.match(cli("replay", "/nonexistent/x.trace.jsonl").err, /no such file/);
    assert.equal(cli("replay", "--frobnicate", SCEN).code, 2);
    const cfg = tmpFile("cfg.json", "{ nope");
    const r = cli("replay", "--config", cfg, SCEN);
    assert.equal(r.code, 2);
    assert.match(r.err, /not valid JSON/);
  });

  it("applies --config and --set to the engine", () => {
    const file = path.join(SCEN, "loop_tool_identical_read_x6.trace.jsonl");
    const off = tmpFile("off.json", JSON.stringify({ enabled: false }));
    assert.deepEqual(JSON.parse(cli("replay", "--json", "--config", off, file).out).interventions, []);
    const warnOnly = JSON.parse(cli("replay", "--json", "--set", "mode=warnOnly", file).out);
    assert.ok(warnOnly.interventions.length > 0 && warnOnly.interventions.every((i: { action: string }) => i.action === "warn"));
  });
});

describe("loop-sentinel help", () => {
  it("prints every command's usage, and one command's with --help", () => {
    const all = cli("--help");
    assert.equal(all.code, 0);
    for (const c of ["replay", "watch", "convert", "stats"]) assert.match(all.out, new RegExp(`loop-sentinel ${c} `));
    const one = cli("stats", "--help");
    assert.equal(one.code, 0);
    assert.match(one.out, /^usage: loop-sentinel stats /);
    assert.equal(cli("frobnicate").code, 2);
  });
});
