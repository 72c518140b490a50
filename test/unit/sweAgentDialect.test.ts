/**
 * SWE-agent's agent-computer interface run through a shell tool (`edit 12:15` … `end_of_edit`,
 * `create`, `open`, `search_dir`), as benchmark trajectories record it: every call "succeeds", and
 * an edit's answer says in words whether it was applied. Loops in it, and the productive sessions
 * that look like them.
 */
import * as assert from "node:assert/strict";
import type { TraceEvent } from "../../src/engine/events";
import { LoopSession } from "../../src/engine/session";
import { leadsWithFailure, saysNotApplied } from "../../src/engine/news";
import { isMutatingCommand } from "../../src/engine/shellCommands";
import { step } from "./toolTestKit";

const feed = (events: TraceEvent[]) => { const s = new LoopSession(); return events.flatMap((e) => s.push(e)); };
const FILE = "/repo/src/pkg/handler.py";

/** SWE-agent's answer to an edit its linter refused: the would-be file, then the status sentence. */
function refusedEdit(error: string, lines: number): string {
  const shown = Array.from({ length: lines }, (_, i) => `${280 + i}:        value_${i} = compute(${i})`).join("\n");
  return `Your proposed edit has introduced new syntax error(s). Please understand the fixes and retry your edit commmand.\n\nERRORS:\n- ${error}\n\nThis is how your edit would have looked if applied\n-------------------------------------------------\n[File: ${FILE} (372 lines total)]\n${shown}\n-------------------------------------------------\nYour changes have NOT been applied. Please fix your edit command and try again.\nYou either need to 1) Specify the correct start/end line arguments or 2) Correct your edit code.\nDO NOT re-run the same failed edit command. Running it again will lead to the same error.`;
}
const appliedEdit = (n: number) => `[File: ${FILE} (${372 + n} lines total)]\n(236 more lines above)\n${280 + n}:        required = [\n${281 + n}:            'Rows', 'Columns',\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.`;
const edit = (body: string) => `edit 287:295\n${body}\nend_of_edit`;

describe("SWE-agent's interface through a shell tool", () => {
  it("knows its editing commands as changes, and an edit refused in words as not applied", () => {
    assert.equal(isMutatingCommand(edit("    x = 1")), true);
    assert.equal(isMutatingCommand("create reproduce.py"), true);
    assert.equal(isMutatingCommand("open src/pkg/handler.py 293"), false);
    assert.equal(isMutatingCommand("search_dir \"required_elements\""), false);
    assert.equal(saysNotApplied(refusedEdit("E999 SyntaxError: unmatched ')'", 40)), true);
    assert.equal(saysNotApplied(appliedEdit(1)), false);
    assert.equal(saysNotApplied("All 12 tests passed; 0 rejected inputs."), false);
  });

  it("catches an edit refused with the same syntax error again and again, its text reworded each time", () => {
    for (const lines of [8, 40, 120]) {
      const evs: TraceEvent[] = [{ t: "user", text: "Fix the handler's pixel check." }];
      for (let i = 0; i < 6; i++) evs.push(...step(`e${i}`, "bash", { command: edit(`    required_elements = [\n        'BitsAllocated', 'Rows', 'Columns'${",".repeat(i % 2)}\n    ]]`) }, true, refusedEdit("E999 SyntaxError: unmatched ']'", lines)));
      const ivs = feed(evs);
      assert.ok(ivs.length > 0, `caught (${lines} lines shown)`);
      const fourth = evs.findIndex((e) => e.t === "tool_call" && e.id === "e3");
      assert.ok(ivs[0].event <= fourth + 2, `warned by the fourth refused edit (first at ${ivs[0].event})`);
    }
  });

  it("lets refused edits with different errors, then an applied one, through (the model reads each error)", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Fix the handler's pixel check." }];
    ["E999 SyntaxError: unmatched ']'", "E999 SyntaxError: unmatched ')'", "E999 IndentationError: unexpected indent"].forEach((err, i) =>
      evs.push(...step(`e${i}`, "bash", { command: edit(`    attempt ${i}`) }, true, refusedEdit(err, 30))));
    evs.push(...step("ok", "bash", { command: edit("    required = ['Rows', 'Columns']") }, true, appliedEdit(1)));
    evs.push(...step("run", "bash", { command: "python reproduce_bug.py" }, true, "Script completed successfully, no errors. Result: True"));
    assert.deepEqual(feed(evs), []);
  });

  it("lets edit, run, edit, run with a changing answer through; catches a run whose answer no applied edit changes", () => {
    const productive: TraceEvent[] = [{ t: "user", text: "Fix the crash." }];
    for (let i = 0; i < 5; i++) {
      productive.push(...step(`e${i}`, "bash", { command: edit(`    step_${i} = fix(${i})`) }, true, appliedEdit(i)));
      productive.push(...step(`r${i}`, "bash", { command: "python reproduce.py" }, true, `Traceback (most recent call last):\n  File "reproduce.py", line ${3 + i}\nValueError: stage ${i} failed`));
    }
    assert.deepEqual(feed(productive), []);
    const stuck: TraceEvent[] = [{ t: "user", text: "Fix the crash." }];
    for (let i = 0; i < 6; i++) {
      stuck.push(...step(`e${i}`, "bash", { command: edit(`    step_${i} = fix(${i})`) }, true, appliedEdit(i)));
      stuck.push(...step(`r${i}`, "bash", { command: "python reproduce.py" }, true, "Traceback (most recent call last):\n  File \"reproduce.py\", line 3\nValueError: bad header"));
    }
    assert.ok(feed(stuck).length > 0, "edits that change nothing about the failure");
  });

  it("lets scrolling through a long file through, and catches the same search run again and again", () => {
    const scrolling: TraceEvent[] = [{ t: "user", text: "Find where the header is parsed." }, ...step("o", "bash", { command: `open ${FILE}` }, true, `[File: ${FILE} (900 lines total)]\n1:import os`)];
    for (let i = 0; i < 8; i++) scrolling.push(...step(`s${i}`, "bash", { command: "scroll_down" }, true, `[File: ${FILE} (900 lines total)]\n(${100 * (i + 1)} more lines above)\n${100 * (i + 1) + 1}:    def part_${i}(self):`));
    assert.deepEqual(feed(scrolling), []);
    const searching: TraceEvent[] = [{ t: "user", text: "Find where the header is parsed." }];
    for (let i = 0; i < 5; i++) searching.push(...step(`q${i}`, "bash", { command: 'search_dir "parse_header"' }, true, 'No matches found for "parse_header" in /repo'));
    assert.ok(feed(searching).length > 0);
  });

  it("reads a change whose answer opens with an error or usage line as failed, not what a file shows below it", () => {
    for (const failed of ["Error: File 'reproduce.py' already exists.\n[File: /repo/reproduce.py (20 lines total)]\n1:import os", "usage: create <filename>", "mkdir: cannot create directory 'build': File exists", "cp: missing operand", "fatal: pathspec 'x.py' did not match any files", "  error: unexpected argument '--force' found"])
      assert.equal(leadsWithFailure(failed), true, failed);
    for (const fine of [appliedEdit(2), "[File: /repo/errors.py (3 lines total)]\n1:Error: this line is the file's own text", "Error handling added to 3 call sites.", "Errors fixed: 2", "Wrote 14 lines to errors.log", ""])
      assert.equal(leadsWithFailure(fine), false, fine);
  });

  it("catches a create of a file that exists, made again and again, by the fourth; a create that failed once, then open and edit, stays quiet", () => {
    const exists = "Error: File 'reproduce_bug.py' already exists.\n[File: /repo/reproduce_bug.py (20 lines total)]\n1:import numpy as np\n2:from pydicom import Dataset";
    const stuck: TraceEvent[] = [{ t: "user", text: "Reproduce the bug first." }];
    for (let i = 0; i < 5; i++) stuck.push(...step(`c${i}`, "bash", { command: "create reproduce_bug.py" }, true, exists));
    const ivs = feed(stuck);
    const fourth = stuck.findIndex((e) => e.t === "tool_call" && e.id === "c3");
    assert.ok(ivs.length > 0 && ivs[0].event <= fourth, `warned by the fourth create (first at ${ivs[0]?.event})`);
    const productive: TraceEvent[] = [{ t: "user", text: "Reproduce the bug first." }, ...step("c", "bash", { command: "create reproduce_bug.py" }, true, exists)];
    productive.push(...step("o", "bash", { command: "open reproduce_bug.py" }, true, exists.slice(exists.indexOf("\n") + 1)));
    productive.push(...step("e", "bash", { command: edit("print('Script completed successfully, no errors.')") }, true, appliedEdit(1)));
    productive.push(...step("r", "bash", { command: "python reproduce_bug.py" }, true, "AttributeError: 'FileDataset' object has no attribute 'PixelRepresentation'"));
    assert.deepEqual(feed(productive), []);
  });

  it("catches each of its commands sent again and again with the same answer by the fifth copy; the same commands moving through the file stay quiet", () => {
    const window = (line: number) => `[File: ${FILE} (381 lines total)]\n(${line - 6} more lines above)\n${Array.from({ length: 10 }, (_, i) => `${line - 5 + i}:    value_${line + i} = compute(${i})`).join("\n")}\n(${381 - line - 5} more lines below)`;
    const shapes: Array<[string, string]> = [
      [`open ${FILE} 255`, window(255)],
      ["goto 300", window(300)],
      ['search_file "PixelRepresentation"', `Found 2 matches for "PixelRepresentation" in ${FILE}:\nLine 141:    pixel_repr = ds.PixelRepresentation\nLine 301:    if ds.PixelRepresentation == 1:\nEnd of matches`],
      ["scroll_down", `[File: ${FILE} (381 lines total)]\n(371 more lines above)\n372:    return arr\n381:    return out`],
      ['python -c "import pydicom; print(pydicom.__version__)"', "2.1.0.dev0"],
    ];
    for (const [command, answer] of shapes) {
      const evs: TraceEvent[] = [{ t: "user", text: "Fix the handler's pixel check." }];
      for (let i = 0; i < 6; i++) evs.push(...step(`s${i}`, "bash", { command }, true, answer));
      const ivs = feed(evs);
      const fifth = evs.findIndex((e) => e.t === "tool_call" && e.id === "s4");
      assert.ok(ivs.length > 0 && ivs[0].event <= fifth, `${command}: by the fifth copy (first at ${ivs[0]?.event})`);
    }
    const moving: TraceEvent[] = [{ t: "user", text: "Fix the handler's pixel check." }];
    for (let i = 0; i < 6; i++) moving.push(...step(`g${i}`, "bash", { command: `goto ${100 + 50 * i}` }, true, window(100 + 50 * i)));
    assert.deepEqual(feed(moving), []);
  });
});
