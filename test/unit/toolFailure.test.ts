import * as assert from "node:assert/strict";
import { LoopSession } from "../../src/engine/session";
import type { TraceEvent } from "../../src/engine/events";
import { step } from "./toolTestKit";

const feed = (events: TraceEvent[]) => {
  const s = new LoopSession();
  return events.flatMap((e) => s.push(e));
};

describe("tool-failure", () => {
  const urls = ["", "/", "?lang=en", "#overview", "?ref=nav", "?v=2"].map((q) => `https://docs.vendor.example/api/v2/rate-limits${q}`);
  const fetches = (n: number): TraceEvent[] => [
    { t: "user", text: "find the rate-limit docs" },
    ...urls.slice(0, n).flatMap((u, i) => step(`f${i}`, "web_fetch", { url: u }, false, `HTTP 404 Not Found: ${u}`)),
  ];

  it("counts a 404 fetched with varying URLs as one failure: warn, then block the next call", () => {
    const ivs = feed(fetches(6)).filter((iv) => iv.detector === "tool-failure");
    assert.equal(ivs[0].action, "warn");
    assert.equal(ivs[0].evidence.count, 3);
    const block = ivs.find((iv) => iv.action === "block");
    assert.ok(block, "a later fetch is blocked");
    assert.match(block.toolCallId ?? "", /^f\d$/);
    assert.ok(ivs.some((iv) => iv.action === "stop"));
  });

  it("stays quiet for two failures", () => {
    assert.deepEqual(feed(fetches(2)), []);
  });

  it("takes a different error as a new attempt (retry with variation)", () => {
    const evs: TraceEvent[] = [
      { t: "user", text: "install" },
      ...step("a", "execute_command", { command: "npm install" }, false, "npm ERR! code ETIMEDOUT\nnpm ERR! network request failed"),
      ...step("b", "execute_command", { command: "npm install" }, false, "npm ERR! code ERESOLVE\nnpm ERR! Could not resolve dependency"),
      ...step("c", "execute_command", { command: "npm install --legacy-peer-deps" }, false, "npm ERR! code EACCES"),
      ...step("d", "execute_command", { command: "npm install --legacy-peer-deps --force" }, true, "added 812 packages"),
    ];
    assert.deepEqual(feed(evs), []);
  });

  it("restarts after an edit lands (re-running a failing test between fixes)", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "fix it" }];
    for (let i = 0; i < 5; i++) {
      evs.push(...step(`t${i}`, "bash", { command: "cd /testbed && python reproduce.py" }, false, "<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  File \"/testbed/reproduce.py\", line 3, in <module>\nAssertionError: wrong result\n</output>"));
      evs.push(...step(`e${i}`, "str_replace_editor", { command: "str_replace", path: "/testbed/a.py", old_str: `v${i}`, new_str: `v${i + 1}` }, true, "The file has been edited."));
    }
    assert.deepEqual(feed(evs), []);
  });

  it("does not join unrelated scripts that hit the same missing module", () => {
    const scripts = [
      "import numpy as np\n# Simulate the bug\ndef buggy_cstack(left, right):\n    noutp = left.shape[0] + right.shape[0]\n    return np.zeros((noutp, 2))\nprint(buggy_cstack(np.eye(2), np.eye(2)))",
      "from astropy.modeling import models as m\nfrom astropy.modeling.separable import separability_matrix\ncm = m.Linear1D(10) & m.Linear1D(5)\nprint(separability_matrix(cm))",
      "# Let's first examine the code structure\nimport astropy\nprint(astropy.__file__)\nimport astropy.modeling.separable as s\nprint(dir(s))",
    ];
    const evs: TraceEvent[] = [{ t: "user", text: "x" }];
    scripts.forEach((code, i) => evs.push(...step(`p${i}`, "bash", { command: `cd /testbed && python3 -c "${code}"` }, false, "<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nModuleNotFoundError: No module named 'numpy'\n</output>")));
    assert.deepEqual(feed(evs), []);
  });

  it("keeps programs of a shell tool apart", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "x" }];
    ["grep -rn foo src", "cat missing.txt", "ls nowhere"].forEach((c, i) => evs.push(...step(`s${i}`, "bash", { command: c }, false, `${c.split(" ")[0]}: x: No such file or directory`)));
    assert.deepEqual(feed(evs), []);
  });

  it("lets an unrelated call of the failing tool through", () => {
    const evs = fetches(4); // 4 failures: the block rung is reached, the stop rung not yet
    evs.push({ t: "request" }, { t: "tool_call", id: "other", name: "web_fetch", input: { url: "https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/429" } }, { t: "end" });
    const ivs = feed(evs);
    assert.ok(ivs.length > 0);
    assert.ok(!ivs.some((iv) => iv.toolCallId === "other"));
  });

  const gemini = (command: string, output: string, exit: number) =>
    `Command: ${command}\nDirectory: (root)\nOutput: ${output}\nError: (none)\nExit Code: ${exit}\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4242`;

  it("counts a Gemini run_shell_command that exited non-zero as a failure, though the host said success", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "install the sdk" }];
    ["", " --legacy-peer-deps", " --force", " --no-audit"].forEach((flags, i) => {
      const cmd = `npm install @acme/private-sdk${flags}`;
      evs.push(...step(`n${i}`, "run_shell_command", { command: cmd }, true, gemini(cmd, `npm ERR! code E404\nnpm ERR! 404 Not Found - GET https://registry.npmjs.org/@acme%2fprivate-sdk - Not found\nnpm ERR! A complete log of this run can be found in: /home/dev/.npm/_logs/2025-01-0${i}T10_00_00_000Z-debug-0.log`, 1)));
    });
    const ivs = feed(evs).filter((iv) => iv.detector === "tool-failure");
    assert.equal(ivs[0]?.evidence.count, 3);
  });

  it("takes failing polls after a wait as 'not yet'", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "wait for the rollout" }];
    for (let i = 0; i < 6; i++) {
      const cmd = "sleep 20 && kubectl -n staging rollout status deploy/api --timeout=5s";
      evs.push(...step(`w${i}`, "run_shell_command", { command: cmd }, true, gemini(cmd, `Waiting for deployment "api" rollout to finish: ${i} of 3 updated replicas are available...\nerror: timed out waiting for the condition`, 1)));
    }
    assert.deepEqual(feed(evs), []);
  });
});
