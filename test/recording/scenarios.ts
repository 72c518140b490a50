/**
 * What the scripted model does in each recorded session, independent of any agent's tool names or
 * wire protocol. The fake model picks the step from how many tool results the conversation it is
 * sent already holds, so an agent's side requests (titles, routing, checks) never shift the script.
 *
 * The work folder is a tiny project whose `npm run build` fails with a type error until
 * `src/total.js` is fixed: the loop keeps rebuilding without changing anything, the productive
 * session reads, fixes and rebuilds (the same command twice, with a fix in between: a look-alike
 * that must stay silent).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

export type Action =
  | { kind: "shell"; command: string }
  | { kind: "read"; path: string }
  | { kind: "write"; path: string; content: string }
  | { kind: "edit"; path: string; old: string; new: string }
  | { kind: "search"; pattern: string; path: string };

export interface Step {
  thought?: string;
  text: string;
  /** Undefined for the final answer. */
  action?: Action;
  /** More calls in the same response, after `action` (a parallel batch); each adds a tool result. */
  parallel?: Action[];
}

/** The calls of one step, in the order the model sends them. */
export const actionsOf = (step: Step): Action[] => (step.action ? [step.action, ...(step.parallel ?? [])] : []);

export type ScenarioName = "build-loop" | "productive" | "reread-loop" | "productive-retest" | "edit-loop" | "listing-loop" | "productive-listing" | "productive-parallel";

/**
 * Scenarios recorded for every agent. The first two are the issue's; the others are held out: the
 * readers were not changed for them (edit-loop was recorded after the readers and tests were done).
 */
export const SCENARIOS: ScenarioName[] = ["build-loop", "productive", "reread-loop", "productive-retest", "edit-loop", "listing-loop", "productive-listing"];

/**
 * Recorded only for the agents that name a search tool and send parallel calls (Codex, Copilot CLI):
 * a search, two reads in one response, a fix, then the build and the tests in one response.
 */
export const PARALLEL_SCENARIOS: ScenarioName[] = ["productive-parallel"];

export const PROMPTS: Record<ScenarioName, string> = {
  "build-loop": "The build is broken. Run npm run build and make it pass.",
  productive: "The build is broken. Run npm run build and make it pass.",
  "reread-loop": "What does src/total.js export?",
  "edit-loop": "Make total() skip items without a price.",
  "listing-loop": "Which files are in src?",
  "productive-listing": "Add src/tax.js, src/discount.js and src/shipping.js, each exporting a placeholder function, and check each lands in src.",
  "productive-retest": "Make npm test pass, then add a test for an empty list and make sure it passes too.",
  "productive-parallel": "Find where prices are summed, fix the build, and check both the build and the tests.",
};

const FIXED_TOTAL = "exports.total = (items) => items.reduce((sum, x) => sum + x.price, 0);\n";
const WITH_EMPTY_TEST = "const assert = require('assert');\nconst { total } = require('./src/total');\nassert.strictEqual(total([{ price: 2 }, { price: 3 }]), 5);\nassert.strictEqual(total([]), 0);\nconsole.log('tests passed: 2');\n";

const BUILD_THOUGHTS = [
  "The build failed with a type error. Let me run it again to see whether it is stable.",
  "Running the build once more to check the error before I change anything.",
  "The error might have been transient; I will rebuild.",
  "Let me try the build again and look closely at the output.",
  "I should confirm the failure by running the build again.",
  "Once more: the build output should tell me what is wrong.",
  "Let me run the build again.",
];

/** The step of a plan whose steps may hold several calls: each call's result moves the script on by one. */
function planStep(plan: Step[], n: number, final: Step): Step {
  let done = 0;
  for (const step of plan) {
    if (done === n) return step;
    done += actionsOf(step).length;
    if (done > n) return final; // a result count inside a batch: the agent answered part of it
  }
  return final;
}

export function stepOf(scenario: ScenarioName, n: number): Step {
  switch (scenario) {
    case "productive-parallel":
      return planStep([
        {
          thought: "Find where the prices are summed, and read the code and its test side by side.",
          text: "Searching for the sum and reading the files.",
          action: { kind: "search", pattern: "reduce", path: "src" },
          parallel: [{ kind: "read", path: "src/total.js" }, { kind: "read", path: "test.js" }],
        },
        { thought: "total adds the items themselves; it should add their prices.", text: "Fixing total.", action: { kind: "edit", path: "src/total.js", old: "sum + x,", new: "sum + x.price," } },
        { thought: "Check the build and the tests at once.", text: "Building and testing.", action: { kind: "shell", command: "npm run build" }, parallel: [{ kind: "shell", command: "npm test" }] },
      ], n, { text: "Fixed: total sums item prices; the build and the tests pass." });
    case "build-loop":
      if (n < 7) return { thought: BUILD_THOUGHTS[n], text: n === 0 ? "I'll start by running the build." : "Running the build again.", action: { kind: "shell", command: "npm run build" } };
      return { text: "The build still fails with the same error; I could not fix it." };
    case "reread-loop":
      if (n < 6) return { thought: n === 0 ? "I need to read the file to see what it exports." : "Let me look at the file once more to be sure.", text: "Reading src/total.js.", action: { kind: "read", path: "src/total.js" } };
      return { text: "src/total.js exports a function `total`." };
    case "edit-loop":
      // Reads once (some agents refuse edits of unread files), then retries an edit whose search text is not in the file.
      if (n === 0) return { thought: "Read the function first.", text: "Reading src/total.js.", action: { kind: "read", path: "src/total.js" } };
      if (n < 7) return { thought: n === 1 ? "Replace the reducer body." : "The edit did not apply; try it again.", text: "Editing total.", action: { kind: "edit", path: "src/total.js", old: "sum + item.price", new: "sum + (item.price ?? 0)" } };
      return { text: "I could not apply the edit." };
    case "listing-loop":
      // A command that succeeds with the same output every time, run again and again.
      if (n < 7) return { thought: n === 0 ? "List the folder." : "Let me list the folder again to be sure.", text: "Listing src.", action: { kind: "shell", command: "ls src" } };
      return { text: "src holds total.js." };
    case "productive-listing": {
      // The same listing after each new file: the output changes every time (the look-alike of listing-loop).
      const names = ["tax", "discount", "shipping"];
      if (n < 6) {
        const name = names[Math.floor(n / 2)];
        if (n % 2 === 0) return { thought: `Create src/${name}.js.`, text: `Writing src/${name}.js.`, action: { kind: "write", path: `src/${name}.js`, content: `exports.${name} = () => 0;\n` } };
        return { thought: "Check the folder.", text: "Listing src.", action: { kind: "shell", command: "ls src" } };
      }
      return { text: "Added tax.js, discount.js and shipping.js to src." };
    }
    case "productive": {
      const plan: Step[] = [
        { thought: "First, see how the build fails.", text: "Running the build.", action: { kind: "shell", command: "npm run build" } },
        { thought: "The checker complains about src/total.js; read it.", text: "Reading src/total.js.", action: { kind: "read", path: "src/total.js" } },
        { thought: "total sums the items themselves instead of their prices. Fix it.", text: "Fixing total.", action: { kind: "write", path: "src/total.js", content: FIXED_TOTAL } },
        { thought: "Rebuild to confirm the fix.", text: "Rebuilding.", action: { kind: "shell", command: "npm run build" } },
        { thought: "The build passes; run the tests as a last check.", text: "Running the tests.", action: { kind: "shell", command: "npm test" } },
      ];
      return plan[n] ?? { text: "Fixed: total now sums item prices; the build and the tests pass." };
    }
    case "productive-retest": {
      const plan: Step[] = [
        { thought: "Start by running the tests.", text: "Running the tests.", action: { kind: "shell", command: "npm test" } },
        { thought: "The test fails on the sum; the function adds items, not prices.", text: "Reading src/total.js.", action: { kind: "read", path: "src/total.js" } },
        { thought: "Fix the sum.", text: "Fixing total.", action: { kind: "write", path: "src/total.js", content: FIXED_TOTAL } },
        { thought: "Run the tests again after the fix.", text: "Re-running the tests.", action: { kind: "shell", command: "npm test" } },
        { thought: "Now add the empty-list test; read the test file first.", text: "Reading test.js.", action: { kind: "read", path: "test.js" } },
        { thought: "Add the empty-list case.", text: "Adding a test.", action: { kind: "write", path: "test.js", content: WITH_EMPTY_TEST } },
        { thought: "Run the tests again to check the new one.", text: "Re-running the tests.", action: { kind: "shell", command: "npm test" } },
      ];
      return plan[n] ?? { text: "Done: total sums prices, and the empty-list test passes." };
    }
  }
}

/** Lays out the project the scenarios work on. */
export function makeWorkFolder(dir: string): void {
  fs.mkdirSync(path.join(dir, "src"), { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "shop", version: "1.0.0", private: true, scripts: { build: "node check.js", test: "node test.js" } }, null, 2) + "\n");
  fs.writeFileSync(path.join(dir, "src", "total.js"), "exports.total = (items) => items.reduce((sum, x) => sum + x, 0);\n");
  // A stand-in type checker: deterministic output, exit code 2 while the bug is there.
  fs.writeFileSync(path.join(dir, "check.js"), [
    "const src = require('fs').readFileSync(__dirname + '/src/total.js', 'utf8');",
    "if (!src.includes('x.price')) {",
    "  console.error(\"src/total.js(1,55): error TS2365: Operator '+' cannot be applied to types 'number' and 'Item'.\");",
    "  console.error('Found 1 error in src/total.js:1');",
    "  process.exit(2);",
    "}",
    "console.log('Build complete: 0 errors.');",
    "",
  ].join("\n"));
  // Its own repository, so that agents looking for git see this project, not the one recording it.
  execFileSync("git", ["init", "-q", "-b", "main", dir]);
  fs.writeFileSync(path.join(dir, "test.js"), "const assert = require('assert');\nconst { total } = require('./src/total');\nassert.strictEqual(total([{ price: 2 }, { price: 3 }]), 5);\nconsole.log('tests passed: 1');\n");
}
