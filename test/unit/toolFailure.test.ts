import * as assert from "node:assert/strict";
import { LoopSession } from "../../src/engine/session";
import type { TraceEvent } from "../../src/engine/events";
import { feedOnly, step } from "./toolTestKit";

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

  it("counts one program run with its runner's flags and quoting varied as one attempt, the exit status read from pi's trailer", () => {
    const out = "cmd/ledger/main.go:22:2: undefined: config.LoadTimeout\n\nCommand exited with code 1";
    const cmds = ["go run ./cmd/ledger", "go run -v ./cmd/ledger", "go run './cmd/ledger'", "go run -race ./cmd/ledger", "go run  ./cmd/ledger"];
    const evs: TraceEvent[] = [{ t: "user", text: "get the ledger command running" }];
    // the host reports the call itself as done: only the trailer says it failed
    cmds.forEach((command, i) => evs.push(...step(`g${i}`, "bash", { command }, true, out)));
    const ivs = feedOnly("tool-failure", evs);
    assert.equal(ivs[0]?.action, "warn");
    assert.equal(ivs[0].evidence.count, 3, "warned at the third failure");
  });

  it("takes a command that changes things but exited non-zero as no change: its retries stay one streak", () => {
    const cmds = ["docker compose up -d pricing", "docker compose up -d 'pricing'", "docker compose  up -d pricing", "docker compose up -d pricing --quiet-pull"];
    const evs: TraceEvent[] = [{ t: "user", text: "bring the pricing service up" }];
    cmds.forEach((command, i) => evs.push(...step(`d${i}`, "bash", { command }, true, "no such service: pricing\n\nCommand exited with code 1")));
    assert.equal(feedOnly("tool-failure", evs)[0]?.action, "warn");
    // the same command succeeding each time is work done each time: no failure streak
    const up: TraceEvent[] = [{ t: "user", text: "bring the pricing service up" }];
    cmds.forEach((command, i) => up.push(...step(`u${i}`, "bash", { command }, true, " Container pricing-1  Started\n\nCommand exited with code 0")));
    assert.deepEqual(feedOnly("tool-failure", up), []);
  });

  it("keeps programs apart that one runner with the same flag starts (npx -y eslint / npx -y prettier)", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "lint and format" }];
    const cmds = ["npx -y eslint src", "npx -y prettier --check src", "npx -y tsc --noEmit", "npx -y stylelint src"];
    cmds.forEach((command, i) => evs.push(...step(`n${i}`, "bash", { command }, true, "npm ERR! code ENOTFOUND\nnpm ERR! network request failed\n\nCommand exited with code 1")));
    assert.deepEqual(feedOnly("tool-failure", evs), [], "four programs failing on one network error are four first tries");
  });

  it("counts one script run as python, python3 and a versioned path as one attempt, by its failing import", () => {
    const trace = "Traceback (most recent call last):\n  File \"/workspace/parcelhub/scripts/seed_locale.py\", line 19, in <module>\n    from parcelhub.settings import DATABASE_URL\nImportError: cannot import name 'DATABASE_URL' from 'parcelhub.settings'";
    const evs: TraceEvent[] = [{ t: "user", text: "seed the locales" }];
    ["python scripts/seed_locale.py", "python3 scripts/seed_locale.py", "/usr/bin/python3.11 'scripts/seed_locale.py'"].forEach((command, i) =>
      evs.push(...step(`s${i}`, "bash", { command }, false, trace)));
    const ivs = feed(evs).filter((iv) => iv.detector === "tool-failure");
    assert.equal(ivs[0]?.action, "warn");
    assert.equal(ivs[0]?.evidence.count, 3);
  });

  it("counts a program run by its folder as one attempt however the folder is spelled (./cmd/cache, ./cmd/cache/, 'cmd/cache')", () => {
    const error = "cmd/cache/main.go:23:2: undefined: config.LoadConfig\nexit code 1";
    const evs: TraceEvent[] = [{ t: "user", text: "start the cache service" }];
    ["go run ./cmd/cache", "go run  ./cmd/cache", "go run ./cmd/cache/", "go run -race 'cmd/cache'"].forEach((command, i) =>
      evs.push(...step(`g${i}`, "execute_command", { command }, false, error)));
    const ivs = feed(evs).filter((iv) => iv.detector === "tool-failure");
    assert.equal(ivs[0]?.action, "warn");
    assert.equal(ivs[0]?.evidence.count, 3);
    // another folder failing the same way is another program run
    const other: TraceEvent[] = [{ t: "user", text: "start the services" }];
    ["go run ./cmd/cache", "go run ./cmd/api", "go run ./cmd/worker/"].forEach((command, i) => other.push(...step(`o${i}`, "execute_command", { command }, false, error)));
    assert.deepEqual(feed(other).filter((iv) => iv.detector === "tool-failure"), []);
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
    assert.deepEqual(feedOnly("tool-failure", evs), []);
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

  const cargoError = (cmd: string) => `[execute_command for '${cmd}'] Result:\nCommand failed with exit code 101.\nOutput:\n    Updating crates.io index\nerror: no matching package named \`tokio-postgress\` found\nlocation searched: registry \`crates-io\`\nrequired by package \`ledger v0.1.0 (/home/dev/ledger)\``;

  it("counts sub-commands of one program failing the same way as one streak (cargo build, fetch, update)", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "add postgres support" }];
    ["cargo build", "cargo build --offline", "cargo fetch", "cargo update", "cargo build --features tls"].forEach((c, i) =>
      evs.push(...step(`c${i}`, "execute_command", { command: c }, false, cargoError(c))));
    const ivs = feed(evs).filter((iv) => iv.detector === "tool-failure");
    assert.equal(ivs[0]?.action, "warn");
    assert.equal(ivs[0]?.evidence.count, 3);
    assert.match(ivs[0]?.evidence.command ?? "", /^cargo (fetch|update)/);
  });

  it("ends a sub-command's streak when that sub-command succeeds (a flaky registry came back)", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "build it" }];
    evs.push(...step("a", "execute_command", { command: "cargo build" }, false, cargoError("cargo build")));
    evs.push(...step("b", "execute_command", { command: "cargo fetch" }, false, cargoError("cargo fetch")));
    evs.push(...step("c", "execute_command", { command: "cargo build" }, true, "[execute_command for 'cargo build'] Result:\nCommand executed successfully (exit code 0).\nOutput:\n    Finished dev [unoptimized] target(s) in 4.2s"));
    evs.push(...step("d", "execute_command", { command: "cargo fetch" }, false, cargoError("cargo fetch")));
    evs.push(...step("e", "execute_command", { command: "cargo update" }, false, cargoError("cargo update")));
    assert.deepEqual(feed(evs), []);
  });

  const rooRun = (out: string, exit: number) =>
    `Command executed in terminal within working directory '/home/dev/billing'. ${exit === 0 ? "Exit code: 0" : `Command failed with exit code ${exit}.`} Output:\n${out}`;
  const probe = (file: string, body: string) => `cat > /tmp/${file} <<'EOF'\n${body}\nEOF\npython /tmp/${file}`;
  const importError = (file: string, line: number) =>
    `Traceback (most recent call last):\n  File "/tmp/${file}", line ${line}, in <module>\n    from billing.ledger import settle_invoice\nImportError: cannot import name 'settle_invoice' from 'billing.ledger' (/home/dev/billing/src/billing/ledger.py)`;

  it("counts different throwaway /tmp probe scripts failing the same way as retries (Roo, exit code in the envelope)", () => {
    const bodies = [
      "import sys\nsys.path.insert(0, 'src')\nfrom billing.ledger import settle_invoice\nprint(settle_invoice)",
      "import os, sys\nsys.path.append(os.path.abspath('src'))\nprint(sys.path[-1])\nfrom billing.ledger import settle_invoice",
      "from billing.ledger import settle_invoice\nprint(settle_invoice)",
      "import importlib\nimportlib.invalidate_caches()\nfrom billing.ledger import settle_invoice",
    ];
    const evs: TraceEvent[] = [{ t: "user", text: "why does settling fail?" }];
    bodies.forEach((b, i) => evs.push(...step(`p${i}`, "execute_command", { command: probe(`probe_${i}x.py`, b) }, true, rooRun(importError(`probe_${i}x.py`, 3 + i), 1))));
    const ivs = feed(evs).filter((iv) => iv.detector === "tool-failure");
    assert.equal(ivs[0]?.action, "warn");
    assert.equal(ivs[0]?.evidence.count, 3);
  });

  it("takes /tmp probes that each get further (a new error each time) as progress", () => {
    const errors = [
      "ModuleNotFoundError: No module named 'billing'",
      "ImportError: cannot import name 'settle_invoice' from 'billing.ledger'",
      "TypeError: settle_invoice() missing 1 required positional argument: 'invoice_id'",
      "KeyError: 'currency'",
    ];
    const evs: TraceEvent[] = [{ t: "user", text: "why does settling fail?" }];
    errors.forEach((e, i) => evs.push(...step(`p${i}`, "execute_command", { command: probe(`try_${i}.py`, `from billing.ledger import settle_invoice\nsettle_invoice(${i})`) }, true,
      rooRun(`Traceback (most recent call last):\n  File "/tmp/try_${i}.py", line 2, in <module>\n${e}`, 1))));
    evs.push(...step("ok", "execute_command", { command: probe("try_9.py", "print('ok')") }, true, rooRun("ok", 0)));
    assert.deepEqual(feed(evs), []);
  });

  it("does not take a probe written to /tmp with a write tool for progress; a write to the project is", () => {
    const run = (dir: string) => {
      const evs: TraceEvent[] = [{ t: "user", text: "why does settling fail?" }];
      for (let i = 0; i < 4; i++) {
        const file = `${dir}/check_${i}.py`;
        evs.push(...step(`w${i}`, "write_to_file", { path: file, content: `from billing.ledger import settle_invoice\nprint(${i})` }, true, `The content was successfully saved to ${file}.`));
        evs.push(...step(`r${i}`, "execute_command", { command: `python ${file}` }, true, rooRun(importError(file, 1), 1)));
      }
      return feed(evs).filter((iv) => iv.detector === "tool-failure");
    };
    assert.equal(run("/tmp")[0]?.evidence.count, 3);
    assert.deepEqual(run("src/billing"), []);
  });
  describe("linter probes piped from echo (mini-swe-agent shape)", () => {
    const lint = (sql: string) => `cd /testbed && echo -n "${sql}" | sqlfluff lint - 2>&1`;
    const lintOutput = (findings: string[]) => `<returncode>65</returncode>\n<output>\n== [stdin] FAIL\n${findings.join("\n")}\nAll Finished!\n</output>`;
    const probes: [string, string[]][] = [
      ["select a from t;;", ["L:   1 | P:  17 |  PRS | Line 1, Position 17: Found unparsable section: ';'", "L:   1 | P:  17 | L009 | Files must end with a trailing newline."]],
      ["select a from t;;;", ["L:   1 | P:  17 |  PRS | Line 1, Position 17: Found unparsable section: ';;'", "L:   1 | P:  18 | L009 | Files must end with a trailing newline."]],
      [";", ["L:   1 | P:   1 |  PRS | Line 1, Position 1: Found unparsable section: ';'"]],
      [";;", ["L:   1 | P:   1 |  PRS | Line 1, Position 1: Found unparsable section: ';;'", "L:   1 | P:   2 | L009 | Files must end with a trailing newline."]],
      ["select 1;;select 2", ["L:   1 | P:  10 |  PRS | Line 1, Position 10: Found unparsable section: ';select 2'"]],
      ["select a from t", ["L:   1 | P:  15 | L009 | Files must end with a trailing newline."]],
    ];

    it("leaves alone edge cases probed with new SQL each time (the linter exits 65 on findings)", () => {
      const evs: TraceEvent[] = [{ t: "user", text: "fix the double-semicolon parse error" }];
      probes.forEach(([sql, findings], i) => evs.push(...step(`l${i}`, "bash", { command: lint(sql) }, true, lintOutput(findings))));
      assert.deepEqual(feed(evs).filter((iv) => iv.detector === "tool-failure"), []);
    });

    it("still catches the same probe failing the same way again and again", () => {
      const [sql, findings] = probes[0];
      const evs: TraceEvent[] = [{ t: "user", text: "fix the double-semicolon parse error" }];
      for (let i = 0; i < 5; i++) evs.push(...step(`l${i}`, "bash", { command: lint(sql) }, true, lintOutput(findings)));
      const ivs = feed(evs).filter((iv) => iv.detector === "tool-failure");
      assert.equal(ivs[0]?.action, "warn");
      assert.match(ivs[0].summary ?? ivs[0].message, /sqlfluff/);
      assert.ok(ivs.some((iv) => iv.action === "block" || iv.action === "stop"), ivs.map((iv) => iv.action).join(","));
    });
  });

  describe("a call whose input never failed before", () => {
    // One error line (numbers vary), similar commands, outputs that differ: experiments, not retries.
    const parse = (n: number) => `python3 -c "import json; json.loads('{\\"a\\": ${n},}')"`;
    const parseError = (n: number) => `<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  File "<string>", line 1, in <module>\njson.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column ${8 + String(n).length} (char ${7 + String(n).length})\n</output>`;
    const run = (ns: number[]) => {
      const evs: TraceEvent[] = [{ t: "user", text: "why does the config fail to parse?" }];
      ns.forEach((n, i) => evs.push(...step(`j${i}`, "bash", { command: parse(n) }, true, parseError(n))));
      return feedOnly("tool-failure", evs);
    };

    it("warns, but is neither refused nor stopped when every input is new and the answers differ", () => {
      const ivs = run([1, 22, 333, 4444, 55555, 666666]);
      assert.equal(ivs[0]?.action, "warn");
      assert.deepEqual(ivs.filter((iv) => iv.action !== "warn"), []);
    });

    it("is refused when it repeats an input that already failed", () => {
      const ivs = run([1, 22, 333, 4444, 1]);
      assert.ok(ivs.some((iv) => iv.action === "block" || iv.action === "stop"), ivs.map((iv) => iv.action).join(","));
    });
  });
});

describe("tool-failure over parallel batches", () => {
  /** One request whose several edits of one file all fail the same way (written before any error came back). */
  const batch = (r: number, n: number): TraceEvent[] => {
    const evs: TraceEvent[] = [{ t: "request" }];
    for (let i = 0; i < n; i++) evs.push({ t: "tool_call", id: `b${r}-${i}`, name: "apply_diff", input: { path: "src/parser.ts", diff: `<<<<<<< SEARCH\nold line ${r}-${i}\n=======\nnew line ${i}\n>>>>>>> REPLACE` } });
    evs.push({ t: "end" });
    for (let i = 0; i < n; i++) evs.push({ t: "tool_result", id: `b${r}-${i}`, ok: false, error: "No sufficiently similar match found (62% similar, needs 100%)" });
    return evs;
  };

  it("counts one failing batch as one attempt: five edits failing in one response are not a loop", () => {
    assert.deepEqual(feedOnly("tool-failure", [{ t: "user", text: "fix the parser" }, ...batch(0, 5)]), []);
  });

  it("still counts failing batches, one attempt each, across responses", () => {
    const ivs = feedOnly("tool-failure", [{ t: "user", text: "fix the parser" }, ...batch(0, 3), ...batch(1, 2), ...batch(2, 2)]);
    assert.equal(ivs[0]?.action, "warn");
    assert.equal(ivs[0]?.evidence.count, 3);
  });
});
