/**
 * What a tool call can and cannot tell about progress: a file read recorded with no text says
 * nothing either way (transcripts that keep no outputs are common), and a checkout in the temp
 * directory is a workspace, not a pile of throwaway probes.
 */
import * as assert from "node:assert/strict";
import { ToolLedger } from "../../src/engine/ledger";
import { LoopSession } from "../../src/engine/session";
import type { TraceEvent } from "../../src/engine/events";
import { createToolKnowledge } from "../../src/engine/toolKnowledge";
import { readTrace, request, runOnly, streamOf } from "./streamTestKit";

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

  it("judges a shell command's writes as it judges a write tool's: into the checkout they are work, into a probe folder they are not", () => {
    const { ledger, call } = session();
    const ws = "/tmp/gh-issue-solver-1763150450915";
    call("Read", { file_path: `${ws}/src/solve.mjs` }, "export function solve() {}\n");
    const start = ledger.epoch;
    call("Bash", { command: `cat > ${ws}/src/args.mjs <<'EOF'\nexport const parse = (argv) => argv.slice(2);\nEOF` }, "");
    assert.equal(ledger.epoch, start + 1, "a heredoc into the checkout");
    call("Bash", { command: `echo "export * from './args.mjs';" >> "${ws}/src/index.mjs"` }, "");
    assert.equal(ledger.epoch, start + 2, "an append into the checkout");
    call("Bash", { command: `cp ${ws}/src/solve.mjs ${ws}/src/solve.bak.mjs` }, "");
    assert.equal(ledger.epoch, start + 3, "a copy into the checkout");
    // a probe written by the shell and read back: its folder is the session's own, a write tool's edit there a probe too
    call("Bash", { command: "mkdir -p /tmp/probe && cat > /tmp/probe/run.py <<'EOF'\nprint(2)\nEOF" }, "");
    call("Read", { file_path: "/tmp/probe/run.py" }, "print(2)\n");
    call("Edit", { file_path: "/tmp/probe/run.py", old_string: "print(2)", new_string: "print(3)" }, "The file has been updated.");
    call("Bash", { command: "echo 'print(4)' > /tmp/probe/run.py && python3 /tmp/probe/run.py" }, "4\n");
    assert.equal(ledger.epoch, start + 3);
  });

  it("stays quiet on a Claude Code session building a feature in a checkout there through Bash heredocs, the typecheck clean after each", () => {
    // the same clean typecheck after each new file is a check of new work, not a command repeated for nothing
    const ws = "/tmp/gh-issue-solver-1763150450915";
    let n = 0;
    const step = (say: string, name: string, input: Record<string, unknown>, output: string): TraceEvent[] => {
      const id = `toolu_${n++}`;
      return [...request(streamOf("text", say), [{ t: "tool_call", id, name, input }]), { t: "tool_result", id, ok: true, output }];
    };
    const events: TraceEvent[] = [{ t: "user", text: "Add a --dry-run flag to the solver CLI." }];
    events.push(...step("Let me look at the entry point.", "Read", { file_path: `${ws}/src/cli.ts` }, "import { solve } from './solve';\nsolve(process.argv);\n"));
    events.push(...step("And the solver.", "Read", { file_path: `${ws}/src/solve.ts` }, "export function solve(argv: string[]) { return argv.length; }\n"));
    const modules = ["flags", "dryRun", "report", "plan", "summary", "output"];
    for (const m of modules) {
      events.push(...step(`Now the ${m} module.`, "Bash", { command: `cat > ${ws}/src/${m}.ts <<'EOF'\nexport function ${m}(argv: string[]): boolean {\n  return argv.includes("--${m}");\n}\nEOF` }, ""));
      events.push(...step("Typecheck.", "Bash", { command: `cd ${ws} && npx tsc --noEmit` }, ""));
    }
    const session = new LoopSession();
    assert.deepEqual(events.flatMap((e) => session.push(e)).map((i) => `${i.detector}: ${i.summary}`), []);
  });
});
