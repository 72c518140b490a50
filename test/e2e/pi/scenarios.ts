/**
 * The scripted sessions the pi suite and the side-by-side comparison run: loops, and productive
 * sessions that look like them. Tool names and inputs are pi 0.73.1's own (`bash {command}`,
 * `read {path, offset, limit}`, `edit {path, edits}`, `write {path, content}`).
 */
import type { Step } from "./fakeModel";

/** One paragraph of a reasoning loop, as models repeat it word for word. */
export const LOOP_PARAGRAPH =
  "Wait, maybe I should double-check whether the test file really exists before I change anything. " +
  "Let me think about it again from the start, because I want to be completely sure about it. ";
/** The loop streams 40 copies, 40 characters every 15 ms: about 7,500 characters in 2.9 s. */
export const LOOP_COPIES = 40;
const PACE = { chars: 40, delayMs: 15 };

const bash = (command: string) => ({ name: "bash", args: { command } });
const read = (p: string, offset?: number, limit?: number) => ({ name: "read", args: offset === undefined ? { path: p } : { path: p, offset, limit } });
const edit = (p: string, oldText: string, newText: string) => ({ name: "edit", args: { path: p, edits: [{ oldText, newText }] } });
const write = (p: string, content: string) => ({ name: "write", args: { path: p, content } });

export interface Scenario {
  name: string;
  /** Loop or look-alike: a look-alike any guard acts on is a false alarm. */
  loop: boolean;
  steps: Step[];
  /** Extra workspace files. */
  files?: Record<string, string>;
  /** Where the loop starts: the request (1-based) and, for a stream loop, the character in its stream. */
  onset: { request: number; char?: number };
}

export const REASONING_LOOP: Scenario = {
  name: "reasoning-loop",
  loop: true,
  steps: [
    { thinking: LOOP_PARAGRAPH.repeat(LOOP_COPIES), text: "Let me look.", call: bash("ls"), pace: PACE },
    { text: "Reading the test.", call: read("test.js") },
    { text: "Done: the test adds 2 and 3." },
  ],
  // The loop starts where the first copy ends: every character after it repeats.
  onset: { request: 1, char: LOOP_PARAGRAPH.length },
};

export const IDENTICAL_CALLS: Scenario = {
  name: "identical-calls",
  loop: true,
  steps: Array.from({ length: 12 }, (_, i) => ({ text: `Listing the folder (${i + 1}).`, call: bash("ls") })),
  onset: { request: 2 },
};

export const FAILING_COMMAND: Scenario = {
  name: "failing-command",
  loop: true,
  steps: Array.from({ length: 10 }, (_, i) => ({ text: i === 0 ? "Running the test." : "Running the test again.", call: bash("node test.js") })),
  onset: { request: 2 },
};

export const REREADS: Scenario = {
  name: "rereads",
  loop: true,
  steps: Array.from({ length: 10 }, () => ({ text: "Reading calc.js once more.", call: read("calc.js") })),
  onset: { request: 2 },
};

/** A test fixed step by step: the same test run after each edit, re-reads after each edit. */
export const RETESTS_AFTER_EDITS: Scenario = {
  name: "retests-after-edits",
  loop: false,
  steps: [
    { text: "Running the test.", call: bash("node test.js") },
    { text: "Reading the code.", call: read("calc.js") },
    { text: "Trying multiplication first.", call: edit("calc.js", "a - b", "a * b") },
    { text: "Testing again.", call: bash("node test.js") },
    { text: "Still wrong; reading it again.", call: read("calc.js") },
    { text: "Now addition.", call: edit("calc.js", "a * b", "a + b") },
    { text: "Testing again.", call: bash("node test.js") },
    { text: "Adding a second case.", call: write("test2.js", "const { add } = require('./calc');\nif (add(-1, 1) !== 0) process.exit(1);\nconsole.log('ok 2');\n") },
    { text: "Running both.", call: bash("node test.js && node test2.js") },
    { text: "Final run.", call: bash("node test.js") },
    { text: "Fixed: add() adds; both tests pass." },
  ],
  onset: { request: 0 },
};

/** A build polled until it is done: the same command, a different answer each time. */
export const POLLING: Scenario = {
  name: "polling",
  loop: false,
  files: {
    "progress.js": "const fs=require('fs');const f='.progress';const n=(fs.existsSync(f)?+fs.readFileSync(f,'utf8'):0)+1;fs.writeFileSync(f,String(n));console.log(n<7?`building: ${n*14}% (${n} of 7 modules)`:'build finished: 7 of 7 modules');\n",
  },
  steps: [
    ...Array.from({ length: 7 }, (_, i) => ({ text: i === 0 ? "Checking the build." : "Still building; checking again.", call: bash("node progress.js") })),
    { text: "The build finished." },
  ],
  onset: { request: 0 },
};

/** A long log read page by page. */
export const PAGING: Scenario = {
  name: "paging",
  loop: false,
  steps: [
    ...Array.from({ length: 8 }, (_, i) => ({ text: `Reading lines ${i * 50 + 1}-${i * 50 + 50}.`, call: read("big.log", i * 50 + 1, 50) })),
    { text: "The log shows 400 events; none failed." },
  ],
  onset: { request: 0 },
};

export const LOOPS = [REASONING_LOOP, IDENTICAL_CALLS, FAILING_COMMAND, REREADS];
export const LOOKALIKES = [RETESTS_AFTER_EDITS, POLLING, PAGING];
