/** Scripted sessions shared by the agents' e2e suite and the latency script. */
import type { Step } from "./fakeModel";

/** Fix a failing test the way a careful agent does: read, test, edit, re-read, re-test, note. */
export const PRODUCTIVE: Step[] = [
  { text: "Reading the code.", call: { kind: "read", path: "calc.js" } },
  { text: "Running the test.", call: { kind: "shell", command: "node test.js" } },
  { text: "The sign is wrong.", call: { kind: "edit", path: "calc.js", old: "a - b", new: "a + b" } },
  { text: "Checking the edit.", call: { kind: "read", path: "calc.js" } },
  { text: "Testing again.", call: { kind: "shell", command: "node test.js" } },
  { text: "Writing a note.", call: { kind: "write", path: "NOTES.md", content: "add() subtracted; fixed.\n" } },
  { text: "Checking the note.", call: { kind: "read", path: "NOTES.md" } },
  { text: "Tidying the note.", call: { kind: "edit", path: "NOTES.md", old: "fixed.", new: "fixed, test passes." } },
  { text: "Re-reading the note.", call: { kind: "read", path: "NOTES.md" } },
  { text: "What changed.", call: { kind: "shell", command: "git status --short" } },
  { text: "Final test run.", call: { kind: "shell", command: "node test.js" } },
  { text: "Fixed: add() now adds; the test passes." },
];
