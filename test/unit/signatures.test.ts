import * as assert from "node:assert/strict";
import { callSignature, commandExitedNonZero, editTargetOf, errorFingerprint, hashText, isBannerLine, resultContent, searchHalvesOfDiff, someContentLine } from "../../src/engine/signatures";
import { createToolKnowledge } from "../../src/engine/toolKnowledge";

const tools = createToolKnowledge();
const sig = (name: string, input: Record<string, unknown>) => callSignature(name, tools.kindOfCall(name, input), input, tools);

describe("call signatures", () => {
  it("ignores key order and volatile fields", () => {
    assert.equal(
      sig("read_file", { path: "a.ts", start_line: 1, toolCallId: "x1" }),
      sig("read_file", { start_line: 1, path: "a.ts", toolCallId: "x2" }),
    );
    assert.notEqual(sig("read_file", { path: "a.ts" }), sig("read_file", { path: "b.ts" }));
  });

  it("normalises whitespace in commands and drops the description", () => {
    assert.equal(
      sig("Bash", { command: "npm   test\n", description: "Run tests" }),
      sig("Bash", { command: "npm test", description: "Run the tests again" }),
    );
    assert.notEqual(sig("Bash", { command: "npm test" }), sig("Bash", { command: "npm run lint" }));
  });

  it("keys Roo apply_diff by path and SEARCH text, not the replacement", () => {
    const diff = (r: string) => `<<<<<<< SEARCH\n:start_line:3\n-------\nconst a = 1\n=======\nconst a = ${r}\n>>>>>>> REPLACE`;
    assert.equal(sig("apply_diff", { path: "x.ts", diff: diff("2") }), sig("apply_diff", { path: "x.ts", diff: diff("3") }));
    assert.notEqual(sig("apply_diff", { path: "x.ts", diff: diff("2") }), sig("apply_diff", { path: "y.ts", diff: diff("2") }));
  });

  it("reads the SEARCH half of Cline's replace_in_file blocks", () => {
    const d = "------- SEARCH\nold line\n=======\nnew line\n+++++++ REPLACE";
    assert.equal(searchHalvesOfDiff(d), "old line");
  });

  it("keys Claude Code Edit and MultiEdit by old_string", () => {
    assert.equal(
      sig("Edit", { file_path: "/r/a.py", old_string: "x = 1", new_string: "x = 2" }),
      sig("Edit", { file_path: "/r/a.py", old_string: "x = 1", new_string: "x = 3" }),
    );
    const multi = (n: string) => ({ file_path: "/r/a.py", edits: [{ old_string: "a", new_string: n }, { old_string: "b", new_string: "c" }] });
    assert.equal(sig("MultiEdit", multi("1")), sig("MultiEdit", multi("2")));
    assert.match(editTargetOf(multi("1"), tools), /a\n?.*---.*b|a --- b/);
  });

  it("keys apply_patch by removed and context lines", () => {
    const patch = (added: string) => `*** Begin Patch\n*** Update File: src/a.ts\n@@\n const x = 1;\n-const y = 2;\n+${added}\n*** End Patch`;
    assert.equal(sig("apply_patch", { input: patch("const y = 3;") }), sig("apply_patch", { input: patch("const y = 4;") }));
    assert.notEqual(sig("apply_patch", { input: patch("a") }), sig("apply_patch", { input: patch("a").replace("-const y = 2;", "-const z = 2;") }));
  });

  it("keys Roo's multi-file apply_diff by each file's SEARCH text", () => {
    const call = (search: string, replace: string) => ({ args: { file: [{ path: "src/a.ts", diff: [{ content: `<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE`, start_line: 3 }] }] } });
    assert.equal(sig("apply_diff", call("a", "b")), sig("apply_diff", call("a", "c")));
    assert.notEqual(sig("apply_diff", call("a", "b")), sig("apply_diff", call("x", "b")));
  });

  it("classifies str_replace_editor by its sub-command", () => {
    assert.equal(tools.kindOfCall("str_replace_editor", { command: "view", path: "/a.py" }), "read");
    assert.equal(tools.kindOfCall("str_replace_editor", { command: "str_replace", path: "/a.py" }), "edit");
    assert.equal(tools.kindOfCall("str_replace_editor", { command: "create", path: "/a.py" }), "write");
  });

  it("takes a sub-command the editor does not have for no sub-command (an inherited name is not one)", () => {
    for (const command of ["constructor", "toString", "__proto__"]) assert.equal(tools.kindOfCall("str_replace_editor", { command, path: "/a.py" }), tools.kindOf("str_replace_editor"));
  });

  it("knows the tool names of the supported agents and honours configured names", () => {
    for (const [name, kind] of [
      ["read_file", "read"], ["Read", "read"], ["read", "read"], ["write_to_file", "write"], ["replace_in_file", "edit"],
      ["apply_diff", "edit"], ["Edit", "edit"], ["replace", "edit"], ["search_files", "search"], ["Grep", "search"],
      ["search_file_content", "search"], ["glob", "search"], ["execute_command", "command"], ["run_shell_command", "command"],
      ["bash", "command"], ["webfetch", "fetch"], ["web_fetch", "fetch"], ["list_directory", "list"], ["search_dir", "search"],
      ["mcp__github__read_file", "read"],
    ] as const) assert.equal(tools.kindOf(name), kind, name);
    assert.equal(tools.kindOf("frobnicate"), "other");
    assert.equal(createToolKnowledge({ search: ["frobnicate"] }).kindOf("frobnicate"), "search");
  });
});

describe("error fingerprints", () => {
  it("tells two runs of a linter apart by what follows a banner-only first line", () => {
    const lint = (finding: string) => `<returncode>65</returncode>\n<output>\n== [stdin] FAIL\n${finding}\nAll Finished!\n</output>`;
    const a = lint("L:   1 | P:  20 |  PRS | Line 1, Position 20: Found unparsable section: ';'");
    const b = lint("L:   1 | P:   1 |  PRS | Line 1, Position 1: Found unparsable section: ';;'");
    assert.notEqual(errorFingerprint(a), errorFingerprint(b));
    assert.equal(errorFingerprint(a), errorFingerprint(lint("L:   1 | P:  20 |  PRS | Line 1, Position 20: Found unparsable section: ';'")));
    assert.ok(isBannerLine("== [stdin] FAIL") && isBannerLine("FAIL src/app.test.ts") && isBannerLine("FAILED (errors=2)"));
    assert.ok(!isBannerLine("FAILED tests/test_a.py::test_x - AssertionError: boom") && !isBannerLine("error: pathspec 'x' did not match"));
    // A line that names the error keeps the plain fingerprint.
    assert.equal(errorFingerprint("Exit code 1\nerror: pathspec 'x' did not match\nmore"), "error: pathspec <quoted> did not match");
  });

  it("maps URL and number variants of one failure to one fingerprint", () => {
    assert.equal(
      errorFingerprint("HTTP 404 Not Found: https://docs.x.example/api/v2/rate-limits?lang=en"),
      errorFingerprint("HTTP 404 Not Found: https://docs.x.example/api/v2/rate-limits/index.html"),
    );
  });

  it("finds the error line under test-runner banners, whatever the verbosity", () => {
    const assertion = "E       AssertionError: assert '2024-03-10T02:30:00-05:00' == '2024-03-10T03:30:00-04:00'";
    const verbose = `<returncode>1</returncode>\n<output>\n============ test session starts ============\ncollected 6 items\n\ntests/test_tz.py F\n\n====== FAILURES ======\n${assertion}\n</output>`;
    const quiet = `<returncode>1</returncode>\n<output>\nF.....    [100%]\n${assertion}\n1 failed, 5 passed in 0.08s\n</output>`;
    assert.equal(errorFingerprint(verbose), errorFingerprint(quiet));
    assert.match(errorFingerprint(quiet), /^assertionerror/);
  });

  it("looks past harness envelopes to the error itself", () => {
    const msa = (err: string) => `<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  File "/testbed/r.py", line 3, in <module>\n    f()\n${err}\n</output>`;
    assert.equal(errorFingerprint(msa("NameError: name 'foo' is not defined")), "nameerror: name <quoted> is not defined");
    assert.notEqual(errorFingerprint(msa("NameError: name 'foo' is not defined")), errorFingerprint(msa("TypeError: bad operand")));
    assert.equal(errorFingerprint("Exit code 1\nerror: pathspec 'x' did not match"), "error: pathspec <quoted> did not match");
    assert.equal(errorFingerprint("<returncode>1</returncode>\n<output>\n</output>"), "");
  });

  it("reads a plain failure only up to its error line and what follows it, and finds what reading it all finds", () => {
    // A text without tags is read lazily; the same text under an `<output>` envelope line is cut into
    // all its lines first. Both must name the same error, detail lines included.
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `step ${i} of the build, all fine`);
    const texts = [
      ["== [stdin] FAIL", "L:   1 | P:  20 |  PRS | Found unparsable section", "L:   2 | P:   1 |  LT01 | Trailing space", "All Finished!", "more"],
      [...filler(3), "", "stdout: error TS2322: Type 'x' is not assignable", "  at src/a.ts:3:4"],
      [...filler(5), "E       AssertionError: assert 1 == 2", "E  next"],
      [...filler(250), "error: found late"],
      [...filler(2), "FAIL src/app.test.ts", "  ● app › renders", "", "    expected 1, got 2"],
      ["FAILED (errors=2)"],
      [...filler(199), "FAILED (errors=2)", "detail one", "detail two", "detail three", "detail four"],
      ["", "   ", "Exit code 1", "output:", "no such file: src/missing.ts"],
    ];
    for (const lines of texts) {
      const plain = lines.join("\n");
      assert.equal(errorFingerprint(plain), errorFingerprint(`<output>\n${plain}`), plain.slice(0, 60));
    }
  });
});

describe("stable output", () => {
  it("masks durations and clock times but keeps counts and states", async () => {
    const { stableOutput } = await import("../../src/engine/signatures");
    assert.equal(stableOutput("$ tsc --noEmit\nDone in 4.21s."), stableOutput("$ tsc --noEmit\nDone in 3.9s."));
    assert.equal(stableOutput("[2026-01-02T10:11:12Z] ok"), stableOutput("[2026-01-02T10:15:00Z] ok"));
    assert.equal(stableOutput("<Model object at 0x7f3a2b1c9d80>"), stableOutput("<Model object at 0x7f11aa0b3e10>"));
    assert.notEqual(stableOutput("2 failing"), stableOutput("1 failing"));
    // Gemini CLI's shell tool ends every result with the process group it ran in.
    assert.equal(stableOutput("Output: total.js\nProcess Group PGID: 5714"), stableOutput("Output: total.js\nProcess Group PGID: 6080"));
    assert.equal(stableOutput("Output: ok\nBackground PIDs: 12, 13"), stableOutput("Output: ok\nBackground PIDs: 99, 100"));
    assert.notEqual(stableOutput("Output: a.js\nProcess Group PGID: 5714"), stableOutput("Output: b.js\nProcess Group PGID: 5714"));
    assert.notEqual(stableOutput("workers: 3"), stableOutput("workers: 4"));
    assert.notEqual(stableOutput("in_progress (test 2/4)"), stableOutput("in_progress (test 3/4)"));
  });
});

describe("exit status in a successful result", () => {
  it("reads the shell envelope, not exit codes quoted in output", async () => {
    const { failedExitStatus } = await import("../../src/engine/signatures");
    assert.ok(failedExitStatus("<returncode>1</returncode>\n<output>\n</output>"));
    assert.ok(!failedExitStatus("<returncode>0</returncode>\n<output>\nok\n</output>"));
    assert.ok(failedExitStatus("Command: npm test\nDirectory: (root)\nOutput: 1 failing\nError: (none)\nExit Code: 1"));
    assert.ok(!failedExitStatus("Command: npm test\nDirectory: (root)\nOutput: ok\nExit Code: 0"));
    assert.ok(!failedExitStatus("build\t2025-11-14T20:18:52Z ##[error]Process completed with exit code 1."));
  });
});

describe("looseCommand", () => {
  it("drops flags and tidies operands of a simple command", async () => {
    const { looseCommand } = await import("../../src/engine/signatures");
    for (const c of ["ls", "ls .", "ls ./", "ls -1", "ls ", "cd /w && ls -la ."]) assert.equal(looseCommand(c), "ls");
    assert.equal(looseCommand("pytest -q tests/test_a.py"), looseCommand("pytest -x ./tests/test_a.py"));
    assert.notEqual(looseCommand("grep -rn foo src"), looseCommand("grep -rn bar src"));
  });

  it("keeps pipelines, lists and redirections exact", async () => {
    const { looseCommand } = await import("../../src/engine/signatures");
    assert.equal(looseCommand("ls -1 | wc -l"), "ls -1 | wc -l");
    assert.equal(looseCommand("make -j4 && make test"), "make -j4 && make test");
  });
});

describe("commands given as lists", () => {
  it("reads Codex's argv and Cline SDK's command list", async () => {
    const { createToolKnowledge } = await import("../../src/engine/toolKnowledge");
    const tools = createToolKnowledge();
    assert.equal(tools.commandOf({ command: ["bash", "-lc", "cargo test -q"] }), "cargo test -q");
    assert.equal(tools.commandOf({ command: ["git", "status"] }), "git status");
    assert.equal(tools.commandOf({ commands: ["npm ci", " npm test "] }), "npm ci && npm test");
    assert.equal(tools.kindOf("run_commands"), "command");
  });
});

describe("error line of go test output", () => {
  it("skips === RUN banners so -v and plain runs of one failure agree", async () => {
    const { errorFingerprint } = await import("../../src/engine/signatures");
    const plain = "Exit code 1\n--- FAIL: TestRetryBackoff (0.10s)\n    backoff_test.go:38: got 400ms, want 800ms\nFAIL";
    const verbose = "Exit code 1\n=== RUN   TestRetryBackoff\n--- FAIL: TestRetryBackoff (0.12s)\n    backoff_test.go:38: got 400ms, want 800ms\nFAIL";
    assert.equal(errorFingerprint(plain), errorFingerprint(verbose));
    assert.match(errorFingerprint(plain), /fail: testretrybackoff/);
  });
});

describe("command exit status in the host's envelope", () => {
  it("reads Roo's execute_command exit status from its first line only", () => {
    const roo = (status: string, out: string) => `Command executed in terminal within working directory '/home/dev/app'. ${status} Output:\n${out}`;
    assert.ok(commandExitedNonZero(roo("Command failed with exit code 1.", "ImportError: x")));
    assert.ok(!commandExitedNonZero(roo("Exit code: 0", "ok")));
    assert.ok(!commandExitedNonZero(roo("Exit code: 0", "CI log: Command failed with exit code 2.")), "an exit code in the output is not the command's");
    assert.ok(!commandExitedNonZero("Command failed with exit code 1."), "other envelopes are the host's business");
  });

  it("reads a status line of its own before the output or after it past a blank line (pi, Cline)", () => {
    assert.ok(commandExitedNonZero("no such service: pricing\n\nCommand exited with code 1"));
    assert.ok(commandExitedNonZero("\n> shop@1.0.0 build\nsrc/total.js(1,55): error TS2365\n\n\nCommand exited with code 2\n"));
    assert.ok(commandExitedNonZero("Exit code 1\n--- FAIL: TestRetryBackoff (0.10s)\nFAIL"));
    assert.ok(!commandExitedNonZero("Exit code 0\nok"));
    assert.ok(!commandExitedNonZero("step 3: Command exited with code 1\nretrying\nall good"), "a status quoted inside the output is not the command's");
    assert.ok(!commandExitedNonZero("CI log follows\nExit code 1\nthen green"), "only the first line can hold the status before the output");
  });
});

describe("someContentLine", () => {
  // Results with envelopes, tags, stream prefixes, blank lines and a cut inside a line: the lazy reader
  // must see exactly the lines resultContent joins, in order, and stop at the first that passes.
  const results = [
    "Command: npm test\nDirectory: (root)\nOutput: 2 failing\n  at a.test.ts:3\nExit Code: 1",
    "<returncode>1</returncode><output>error: missing file\n\nsecond line</output>",
    "stdout: hello\n\n\nstderr: world\n",
    "",
    "\n\n",
    "one line without a break",
    "x".repeat(50) + "\n" + "y".repeat(50),
  ];
  for (const [i, text] of results.entries()) {
    for (const max of [4000, 60, 10, 0]) {
      it(`reads the lines resultContent joins (result ${i}, first ${max} characters)`, () => {
        const seen: string[] = [];
        assert.equal(someContentLine(text, max, (line) => { seen.push(line); return false; }), false);
        const expected = resultContent(text, max);
        assert.deepEqual(seen, expected === "" ? [] : expected.split("\n"));
      });
    }
  }

  it("stops at the first line that passes", () => {
    const seen: string[] = [];
    assert.equal(someContentLine("a\nb\nc", 4000, (line) => { seen.push(line); return line === "b"; }), true);
    assert.deepEqual(seen, ["a", "b"]);
  });
});

describe("hashText", () => {
  it("hashes every UTF-16 code unit of a text, across its scratch chunks and lone surrogates alike", () => {
    const fnv = (t: string) => {
      let h = 0x811c9dc5;
      for (let i = 0; i < t.length; i++) { h ^= t.charCodeAt(i); h = Math.imul(h, 0x01000193); }
      return (h >>> 0).toString(36) + ":" + t.length.toString(36);
    };
    const texts = ["", "a", "Done in 4.21s\n", "é\u{1F600}\uD800x", "x".repeat(16383) + "\u{1F600}" + "y".repeat(20000), "ab".repeat(8192), "z".repeat(50000) + "\uDC00"];
    for (const t of texts) assert.equal(hashText(t), fnv(t), `length ${t.length}`);
    // one character changed far into a long text changes the hash
    assert.notEqual(hashText("q".repeat(40000) + "a"), hashText("q".repeat(40000) + "b"));
  });
});
