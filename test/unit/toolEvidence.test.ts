/**
 * What a tool call can and cannot tell about progress: a file read recorded with no text says
 * nothing either way (transcripts that keep no outputs are common), and a checkout in the temp
 * directory is a workspace, not a pile of throwaway probes.
 */
import * as assert from "node:assert/strict";
import { ToolLedger } from "../../src/engine/ledger";
import { createToolKnowledge } from "../../src/engine/toolKnowledge";
import { readTrace, runOnly } from "./streamTestKit";

describe("a file read recorded with no text", () => {
  it("is no step without progress: a recorded Claude Code session whose reads kept no output stays quiet one step short of the default", () => {
    // hive_claude_issue724: reads of a 900-line file, its windows recorded as "", then searches
    for (const session of ["corpus/hive_claude_issue724_draft1.trace.jsonl", "corpus/hive_claude_gist_d5059763.trace.jsonl"]) {
      assert.deepEqual(runOnly(["tool-progress"], readTrace(session), { warnAt: 4 }).map((i) => i.summary), [], session);
    }
  });
});

describe("a workspace in the temp directory", () => {
  const session = () => {
    const ledger = new ToolLedger(createToolKnowledge());
    let n = 0;
    const call = (name: string, input: Record<string, unknown>, output: string) => {
      const id = `c${n++}`;
      ledger.recordCall({ t: "tool_call", id, name, input }, n, n);
      ledger.recordResult({ t: "tool_result", id, ok: true, output }, n);
    };
    return { ledger, call };
  };

  it("moves the workspace on when the session edits a checkout there it has read from", () => {
    const { ledger, call } = session();
    call("Read", { file_path: "/tmp/gh-issue-solver-1763150450915/src/solve.mjs" }, "export function solve() {}\n");
    const before = ledger.epoch;
    call("Edit", { file_path: "/tmp/gh-issue-solver-1763150450915/src/solve.mjs", old_string: "solve()", new_string: "solve(argv)" }, "The file has been updated.");
    assert.equal(ledger.epoch, before + 1);
    // the folder is the workspace: a file there not read yet is the project's too
    call("Write", { file_path: "/tmp/gh-issue-solver-1763150450915/src/new.mjs", content: "export {};\n" }, "File created.");
    assert.equal(ledger.epoch, before + 2);
  });

  it("keeps probes as throwaway: in the temp root, and in a folder the session only reads back what it wrote", () => {
    const { ledger, call } = session();
    const start = ledger.epoch;
    call("Write", { file_path: "/tmp/test_fix.py", content: "print(1)\n" }, "File created.");
    call("Write", { file_path: "/tmp/probe/run.py", content: "print(2)\n" }, "File created.");
    call("Read", { file_path: "/tmp/probe/run.py" }, "print(2)\n");
    call("Write", { file_path: "/tmp/probe/run.py", content: "print(3)\n" }, "File updated.");
    assert.equal(ledger.epoch, start);
  });
});
