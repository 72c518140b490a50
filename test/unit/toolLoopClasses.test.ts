/**
 * The tool-channel loop classes of issue 16, one describe each: the loop caught within two
 * repetitions of its onset, and the look-alikes that must stay silent. Events are in the shapes the
 * hosts send (Claude Code's Bash/BashOutput/Write/Edit, Roo's execute_command envelope and
 * apply_diff, Gemini CLI's run_shell_command envelope). The last describe replays the generator.
 */
import * as assert from "node:assert/strict";
import type { TraceEvent } from "../../src/engine/events";
import { LoopSession, type Intervention } from "../../src/engine/session";
import { ToolLedger } from "../../src/engine/ledger";
import { createToolKnowledge } from "../../src/engine/toolKnowledge";
import { toolClasses } from "../../scripts/generator/toolClasses";
import { judge, seededRng } from "../../scripts/generator/runTool";
import { step } from "./toolTestKit";
import { heredocWriteTarget, isMutatingCommand, isTrivialCommand, waitSeconds } from "../../src/engine/shellCommands";
import { addedFileOf, replacementOf, saysNothingChanged } from "../../src/engine/signatures";

const feed = (events: TraceEvent[]): Intervention[] => {
  const s = new LoopSession();
  return events.flatMap((e) => s.push(e));
};

/** Index of the first event of each repetition, found by a marker the test pushes. */
class Trace {
  readonly events: TraceEvent[] = [];
  readonly starts: number[] = [];
  private n = 0;
  constructor(task: string) { this.events.push({ t: "user", text: task }); }
  copy(): this { this.starts.push(this.events.length); return this; }
  call(name: string, input: Record<string, unknown>, ok: boolean, text: string, reasoning?: string): this {
    const id = `c${this.n++}`;
    this.events.push({ t: "request" });
    if (reasoning) for (let i = 0; i < reasoning.length; i += 17) this.events.push({ t: "reasoning", delta: reasoning.slice(i, i + 17) });
    this.events.push({ t: "tool_call", id, name, input }, { t: "end" }, ok ? { t: "tool_result", id, ok, output: text } : { t: "tool_result", id, ok, error: text });
    return this;
  }
  say(text: string): this {
    this.events.push({ t: "request" });
    for (let i = 0; i < text.length; i += 13) this.events.push({ t: "text", delta: text.slice(i, i + 13) });
    this.events.push({ t: "end" });
    return this;
  }
  user(text: string): this { this.events.push({ t: "user", text }); return this; }
}

/** The repetition (0 = onset) in which the first intervention came, or undefined. */
function caughtAt(t: Trace): { rep: number | undefined; first?: Intervention } {
  const ivs = feed(t.events);
  if (ivs.length === 0) return { rep: undefined };
  let rep = -1;
  while (rep + 1 < t.starts.length && t.starts[rep + 1] <= ivs[0].event) rep++;
  return { rep, first: ivs[0] };
}

function assertInTime(t: Trace, detector?: string): Intervention {
  const { rep, first } = caughtAt(t);
  assert.ok(first, "the loop is caught");
  assert.ok(rep !== undefined && rep >= 0 && rep <= 2, `caught within two repetitions of onset (got repetition ${rep})`);
  if (detector) assert.equal(first.detector, detector);
  return first;
}

describe("class 3: polls whose output stopped changing", () => {
  it("catches a background command's reader answering the same after its output had moved", () => {
    const t = new Trace("Start the dev server and tell me when it is up.");
    for (let i = 0; i < 3; i++) t.call("BashOutput", { bash_id: "bash_1" }, true, `<status>running</status>\n<stdout>\ncompiled chunk ${i}\n</stdout>`);
    for (let i = 0; i < 5; i++) t.copy().call("BashOutput", { bash_id: "bash_1" }, true, `<status>running</status>\n\n<stdout>\n(no new output)\n</stdout>\n\n<timestamp>2026-11-24T20:0${i}:00.000Z</timestamp>`, "Let me check the server again.");
    assert.equal(assertInTime(t, "tool-repeat").toolCallId, undefined, "a live target is judged by its answer");
  });

  it("catches `tail -n 1` of a finished build behind Roo's envelope, short sleeps between", () => {
    const roo = (out: string) => `Command executed in terminal within working directory '/w'. Exit code: 0\nOutput:\n${out}`;
    const t = new Trace("Build it and tell me when it is done.");
    t.call("execute_command", { command: "tail -n 1 build.log" }, true, roo("step 1/3"));
    for (let i = 0; i < 5; i++) {
      t.copy().call("execute_command", { command: "sleep 5" }, true, roo(""));
      t.call("execute_command", { command: "tail -n 1 build.log" }, true, roo("webpack compiled successfully"));
    }
    assertInTime(t, "tool-repeat");
  });

  it("catches `git status` answering the same, even with nothing ever changing", () => {
    const t = new Trace("Check everything is committed.");
    for (let i = 0; i < 5; i++) t.copy().call("Bash", { command: "git status", description: "Status" }, true, "On branch main\nnothing to commit, working tree clean");
    assertInTime(t, "tool-repeat");
  });

  it("catches polling a CI run that already finished, however long the waits between", () => {
    const t = new Trace("Wait for CI.");
    t.call("Bash", { command: "gh run view 812 --json status,conclusion" }, true, `{"conclusion":"","status":"in_progress"}`);
    for (let i = 0; i < 5; i++) {
      t.copy().call("Bash", { command: "sleep 90" }, true, "");
      t.call("Bash", { command: "gh run view 812 --json status,conclusion" }, true, `{"conclusion":"failure","status":"completed"}`);
    }
    assertInTime(t, "tool-repeat");
  });

  it("still takes sleeps for waits after a wait of unknown length (`gh run watch`)", () => {
    const t = new Trace("Watch CI, then wait for the deploy.");
    t.call("Bash", { command: "gh run watch 812" }, true, "✓ main CI · 812\nTriggered via push");
    for (let i = 0; i < 4; i++) {
      t.call("Bash", { command: "kubectl get deploy api -o jsonpath='{.status.readyReplicas}'" }, true, "1");
      t.call("Bash", { command: "sleep 60" }, true, "");
    }
    t.call("Bash", { command: "kubectl get deploy api -o jsonpath='{.status.readyReplicas}'" }, true, "3");
    assert.deepEqual(feed(t.events), []);
  });

  it("stays silent on a poll whose output keeps moving, one unchanged answer at a time", () => {
    const t = new Trace("Run the build and tell me when it finishes.");
    const outs = ["building 1/9", "building 3/9", "building 3/9", "building 5/9", "building 5/9", "building 8/9", "done"];
    for (const o of outs) t.call("BashOutput", { bash_id: "bash_2" }, true, `<status>running</status>\n<stdout>\n${o}\n</stdout>`);
    assert.deepEqual(feed(t.events), []);
  });

  it("stays silent waiting for CI with a real wait between identical answers", () => {
    const t = new Trace("Push and wait for CI.");
    for (let i = 0; i < 4; i++) {
      t.call("run_shell_command", { command: "gh pr checks 42" }, true, "build\tpending\t0\thttps://ci.example/1");
      t.call("run_shell_command", { command: "sleep 90" }, true, "");
    }
    t.call("run_shell_command", { command: "gh pr checks 42" }, true, "build\tpass\t3m\thttps://ci.example/1");
    assert.deepEqual(feed(t.events), []);
  });
});

describe("class 4: writes that change nothing", () => {
  const content = "export const limits = {\n  perMinute: 60,\n  burst: 10,\n};\n";

  it("catches the same file written with the same content again and again", () => {
    const t = new Trace("Set the rate limits.");
    t.call("Write", { file_path: "/w/src/limits.ts", content }, true, "File created successfully at: /w/src/limits.ts");
    for (let i = 0; i < 4; i++) t.copy().call("Write", { file_path: "/w/src/limits.ts", content }, true, "File created successfully at: /w/src/limits.ts", "I will write the limits file.");
    assertInTime(t, "tool-repeat");
  });

  it("catches an edit whose replacement equals its target", () => {
    const t = new Trace("Fix the lint warning.");
    for (let i = 0; i < 4; i++) t.copy().call("apply_diff", { path: "src/a.ts", diff: "<<<<<<< SEARCH\n  const value = parse(x);\n=======\n  const value = parse(x);\n>>>>>>> REPLACE" }, true, "Changes successfully applied to src/a.ts.");
    assertInTime(t, "tool-repeat");
  });

  it("catches an edit that keeps answering that nothing changed, whatever its replacement", () => {
    const t = new Trace("Rename the option.");
    for (let i = 0; i < 4; i++) t.copy().call("search_and_replace", { path: "src/opts.ts", search: "maxRetry", replace: `maxRetries${i}` }, true, "No changes were made to the file.");
    assertInTime(t, "tool-repeat");
  });

  it("catches an edit applied once and then sent again, answered that old and new text are the same (opencode's wording)", () => {
    const t = new Trace("Bump the importer limit.");
    const edit = { filePath: "/w/.env.example", oldString: "IMPORTER_LIMIT=95", newString: "IMPORTER_LIMIT=95  # updated" };
    t.call("edit", edit, true, "Edit applied successfully.");
    // The answer opens with "Error:": its words are the status, so the repeats are failures foretold.
    for (let i = 0; i < 4; i++) t.copy().call("edit", edit, true, "Error: oldString and newString must be different", "Apply the change.");
    assertInTime(t, "tool-failure");
  });

  it("stays silent on the same content written to many files, and on a rewrite after a formatter changed the file", () => {
    const t = new Trace("Create the package skeleton, then format it.");
    for (let i = 0; i < 5; i++) t.call("Write", { file_path: `/w/pkg/m${i}/__init__.py`, content: "" }, true, "File created successfully");
    for (let i = 0; i < 2; i++) {
      t.call("Write", { file_path: "/w/pkg/settings.py", content: "DEBUG = False\n" }, true, "File created successfully");
      t.call("Bash", { command: "black pkg/settings.py" }, true, "reformatted pkg/settings.py\n1 file reformatted.");
    }
    assert.deepEqual(feed(t.events), []);
  });

  const heredoc = "cat > fix.patch << 'EOF'\n--- a/src/resolver.py\n+++ b/src/resolver.py\n@@ -27,6 +27,7 @@\n+from x import y\nEOF";

  it("catches the same heredoc written again and again with nothing learnt between", () => {
    const t = new Trace("Leave a patch file.");
    // The first write does the work; the loop is writing it again.
    t.call("bash", { command: heredoc }, true, "<returncode>0</returncode>\n<output>\n</output>");
    for (let i = 0; i < 5; i++) t.copy().call("bash", { command: heredoc }, true, "<returncode>0</returncode>\n<output>\n</output>");
    assertInTime(t, "tool-repeat");
  });

  it("stays silent on the same patch written again after reading new parts of the code each time", () => {
    const t = new Trace("Leave a patch file.");
    for (let i = 0; i < 4; i++) {
      t.call("bash", { command: heredoc }, true, "<returncode>0</returncode>\n<output>\n</output>");
      t.call("bash", { command: `sed -n '${250 + 20 * i},${270 + 20 * i}p' src/resolver.py` }, true, `<returncode>0</returncode>\n<output>\n    def match${i}(self, path):\n</output>`);
    }
    assert.deepEqual(feed(t.events), []);
  });

  it("catches a state-changing command respelled and run again, answering the same each time (flags, quotes, spaces; a description of its own)", () => {
    // opencode's bash, as loopgen renders it: `docker compose up -d profile`, then `--detach`, quoted, spaced
    const t = new Trace("Bring the profile service up and run its tests.");
    t.call("bash", { command: "docker compose up -d profile", description: "Runs docker compose" }, true, "no such service: profile");
    for (const c of ["docker compose  up -d profile", "docker compose up --detach profile", "docker compose up -d \"profile\"", " docker compose up -d profile", "docker compose up -d profile --quiet-pull"]) {
      t.copy().call("bash", { command: c, description: `Runs ${c.trim().split(" ")[0]}` }, true, "no such service: profile", "Retry with a small tweak.");
    }
    assertInTime(t, "tool-repeat");
  });

  it("catches it behind Gemini CLI's envelope, which echoes each spelling back", () => {
    const envelope = (c: string, pgid: number) => `Command: ${c}\nDirectory: (root)\nOutput: No local changes to save\nError: (none)\nExit Code: (none)\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: ${pgid}`;
    const t = new Trace("Stash my work and switch to the release branch.");
    t.call("run_shell_command", { command: "git stash" }, true, envelope("git stash", 6801));
    ["git  stash", "git 'stash'", "git stash -q", "git stash"].forEach((c, i) => t.copy().call("run_shell_command", { command: c }, true, envelope(c, 7000 + 17 * i)));
    assertInTime(t, "tool-repeat");
  });

  it("stays silent on that command respelled after an edit each time, or answering something new", () => {
    const t = new Trace("Scale the api deployment up step by step.");
    for (let i = 0; i < 5; i++) {
      t.call("Edit", { file_path: "k8s/deploy.yaml", old_string: `  replicas: ${i + 1}`, new_string: `  replicas: ${i + 2}` }, true, "The file has been updated.");
      t.call("Bash", { command: i % 2 ? "kubectl apply -f 'k8s/deploy.yaml'" : "kubectl  apply -f k8s/deploy.yaml" }, true, "deployment.apps/api configured");
    }
    for (let i = 0; i < 5; i++) t.call("Bash", { command: i % 2 ? "docker compose pull -q api" : "docker compose pull api" }, true, `api Pulling\n${i + 1} of 5 layers pulled`);
    assert.deepEqual(feed(t.events), []);
  });

  it("takes a write for idle only when nothing changed the file since the same content was written", () => {
    const ledger = new ToolLedger(createToolKnowledge());
    let n = 0;
    const write = (content: string) => {
      const id = `w${n++}`;
      const call = ledger.recordCall({ t: "tool_call", id, name: "write_to_file", input: { path: "a.py", content } }, n, n);
      ledger.recordResult({ t: "tool_result", id, ok: true, output: "saved" }, n);
      return call.unchanging;
    };
    const run = (command: string) => {
      const id = `r${n++}`;
      ledger.recordCall({ t: "tool_call", id, name: "execute_command", input: { command } }, n, n);
      ledger.recordResult({ t: "tool_result", id, ok: true, output: "" }, n);
    };
    assert.equal(write("x = 1\n"), false);
    assert.equal(write("x = 1\n"), true, "the same content again, nothing between");
    assert.equal(write("x = 2\n"), false);
    run("ruff format a.py");
    assert.equal(write("x = 2\n"), false, "a formatter may have changed the file");
    run("git checkout -- a.py");
    assert.equal(write("x = 2\n"), false, "so may a checkout");
    const epoch = ledger.epoch;
    ledger.recordCall({ t: "tool_call", id: "e", name: "Edit", input: { file_path: "a.py", old_string: "x = 2", new_string: "x = 3" } }, 90, 90);
    ledger.recordResult({ t: "tool_result", id: "e", ok: true, output: "Applied 0 replacements." }, 91);
    assert.equal(ledger.epoch, epoch, "an edit that says it replaced nothing is no progress");
  });
});

describe("class 5: rewriting one file over and over", () => {
  const body = (i: number) => `export function parse(tokens) {\n  return tokens.map((t) => unquote${i}(t.value));\n}\n`;

  it("catches five whole-file writes with nothing run between", () => {
    const t = new Trace("Make the parser handle nested quotes.");
    for (let i = 0; i < 7; i++) {
      if (i >= 2) t.copy();
      t.call("write_to_file", { path: "src/parser.ts", content: body(i) }, true, "The content was successfully saved to src/parser.ts.", "Maybe the problem is the unquoting. Let me rewrite it.");
    }
    const iv = assertInTime(t, "edit-retry");
    assert.equal(iv.evidence.count, 5);
  });

  it("catches edits of the lines the previous edit wrote, with the same failure after each", () => {
    const t = new Trace("Fix the failing parser test.");
    let current = "  return tokens.map((t) => t.value);";
    for (let i = 0; i < 7; i++) {
      if (i >= 2) t.copy();
      const next = `  return tokens.map((t) => unquote(t.value, ${i}));`;
      t.call("Edit", { file_path: "/w/src/parser.ts", old_string: current, new_string: next }, true, "The file /w/src/parser.ts has been updated.");
      t.call("Bash", { command: "npx jest parser" }, false, "FAIL tests/parser.test.ts\n  ● nested quotes › keeps escaped quote\n    Expected: \"a\\\"b\"\n    Received: \"a\"");
      current = next;
    }
    // Seen as rewrites of the streak's own lines, and as edits after which the failure is byte-identical.
    assert.ok(["edit-retry", "tool-progress"].includes(assertInTime(t).detector));
  });

  it("catches a script rewritten whole with heredocs, the same error after each run", () => {
    const t = new Trace("Make reproduce.py pass.");
    for (let i = 0; i < 7; i++) {
      if (i >= 2) t.copy();
      t.call("bash", { command: `cat > reproduce.py <<'EOF'\nfrom app import parse\nprint(parse("a${i}"))\nEOF\npython reproduce.py` }, false, "<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  File \"reproduce.py\", line 1, in <module>\nImportError: cannot import name 'parse' from 'app'\n</output>");
    }
    assertInTime(t);
  });

  it("stays silent on edit-test rounds whose test output changes", () => {
    const t = new Trace("Make the parser tests pass.");
    let current = "  return tokens;";
    for (let i = 0; i < 7; i++) {
      const next = `  return fix${i}(tokens);`;
      t.call("Edit", { file_path: "/w/src/parser.ts", old_string: current, new_string: next }, true, "The file /w/src/parser.ts has been updated.");
      t.call("Bash", { command: "npx jest parser" }, false, `Tests: ${7 - i} failed, ${i + 3} passed`);
      current = next;
    }
    assert.deepEqual(feed(t.events), []);
  });

  it("stays silent on a module grown by edits at new places, nothing run between", () => {
    const t = new Trace("Add the CRUD handlers.");
    const anchors = Array.from({ length: 8 }, (_, i) => `// --- section ${i}: handlers ---`);
    t.call("Write", { file_path: "/w/src/api.ts", content: anchors.join("\n\n") }, true, "File created successfully");
    anchors.forEach((a, i) => t.call("Edit", { file_path: "/w/src/api.ts", old_string: a, new_string: `${a}\nexport function handler${i}(req, res) {\n  res.send(db.get${i}(req.params.id));\n}` }, true, "The file /w/src/api.ts has been updated."));
    assert.deepEqual(feed(t.events), []);
  });
});

describe("class 5b: edits that say not where they are, one after another with nothing looked at", () => {
  // Copilot's insert_edit_into_file: a sketch of the new code with the untouched parts elided
  const sketch = (i: number) => ({ filePath: "/w/src/GatewayShop.vue", explanation: `Fix the layout, attempt ${i}`, code: `<template>\n  <!-- ...existing code... -->\n  <div class="shop-grid gap-${i}">\n    <ShopItem v-for="item in items" :key="item.id" :item="item" />\n  </div>\n  <!-- ...existing code... -->\n</template>` });
  const reasons = ["Let me fix the formatting of the component.", "Let me rewrite the component to fix the formatting.", "Some formatting issues remain; one more pass.", "Let me try a complete rewrite with a simpler structure.", "Let me simplify it further.", "Another approach to the layout."];

  it("catches a file edited over and over, one edit per response, nothing read, run or checked between", () => {
    for (const code of ["sketch", "opaque"] as const) {
      const t = new Trace("Improve the UI of the GatewayShop component.");
      for (let i = 0; i < 6; i++) {
        if (i >= 3) t.copy();
        const input = code === "sketch" ? sketch(i) : { filePath: "/w/src/GatewayShop.vue", explanation: reasons[i], code: `[edit +${4 + i}-${11 + i} not recorded]` };
        t.call("insert_edit_into_file", input, true, "The following files were successfully edited: /w/src/GatewayShop.vue", reasons[i]);
      }
      assert.equal(assertInTime(t, "edit-retry").evidence.count, 5, code);
    }
  });

  it("stays silent when each edit is checked, when the edits go to different files, and on many edits in one response", () => {
    const checked = new Trace("Improve the UI of the GatewayShop component.");
    for (let i = 0; i < 6; i++) {
      checked.call("insert_edit_into_file", sketch(i), true, "The following files were successfully edited: /w/src/GatewayShop.vue", reasons[i]);
      checked.call("get_errors", { filePaths: ["/w/src/GatewayShop.vue"] }, true, "No errors found");
    }
    assert.deepEqual(feed(checked.events), [], "checked");
    const files = new Trace("Give every page the new header.");
    for (let i = 0; i < 6; i++) files.call("insert_edit_into_file", { ...sketch(i), filePath: `/w/src/pages/Page${i}.vue` }, true, `The following files were successfully edited: /w/src/pages/Page${i}.vue`);
    assert.deepEqual(feed(files.events), [], "different files");
    const batch: TraceEvent[] = [{ t: "user", text: "Split the component's sections." }, { t: "request" }];
    for (let i = 0; i < 6; i++) batch.push({ t: "tool_call", id: `b${i}`, name: "insert_edit_into_file", input: sketch(i) });
    batch.push({ t: "end" });
    for (let i = 0; i < 6; i++) batch.push({ t: "tool_result", id: `b${i}`, ok: true, output: "The following files were successfully edited: /w/src/GatewayShop.vue" });
    assert.deepEqual(feed(batch), [], "one response");
  });
});

describe("class 6: stagnation dressed up as activity", () => {
  const plan = "My plan is to first read the session module, then update the refresh handler so that tokens are renewed before expiry, and finally add a test for it. Let me proceed with the first step now.";

  it("catches trivial commands alternating with the same plan within two cycles", () => {
    const t = new Trace("Refresh tokens before they expire.");
    const cmds = ["pwd", "true", "cd .", "echo 'checking'", "printf 'ready\\n'"];
    cmds.forEach((c, i) => t.copy().call("run_shell_command", { command: c }, true, `Command: ${c}\nDirectory: (root)\nOutput: ${c === "pwd" ? "/w" : "(empty)"}\nError: (none)\nExit Code: (none)\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: ${4000 + i}`, plan));
    assertInTime(t, "stagnation");
  });

  it("stays silent on a `pwd` for bearings followed by real work under the same plan", () => {
    const t = new Trace("Refresh tokens before they expire.");
    t.call("Bash", { command: "pwd" }, true, "/w", plan);
    t.call("Read", { file_path: "/w/src/session.ts" }, true, "export class Session {}", plan);
    t.call("Bash", { command: "echo done" }, true, "done", plan);
    t.call("Read", { file_path: "/w/src/refresh.ts" }, true, "export function refresh() {}", plan);
    t.call("Bash", { command: "echo done" }, true, "done", plan);
    t.call("Edit", { file_path: "/w/src/refresh.ts", old_string: "refresh() {}", new_string: "refresh() { renew(); }" }, true, "updated", plan);
    t.call("Bash", { command: "echo done" }, true, "done", plan);
    assert.deepEqual(feed(t.events), []);
  });
});

describe("class 8: loops across automatic nudges", () => {
  it("keeps the evidence across the same 'continue' and catches 'Done.' said again and again", () => {
    const t = new Trace("Update the changelog.");
    t.call("Edit", { file_path: "/w/CHANGELOG.md", old_string: "## Unreleased", new_string: "## Unreleased\n- faster cache" }, true, "updated");
    t.say("Done.");
    for (let i = 0; i < 5; i++) t.copy().user("continue").say("Done.");
    assertInTime(t, "stagnation");
  });

  it("catches attempt_completion answered with the same nudge", () => {
    const t = new Trace("Update the changelog.");
    for (let i = 0; i < 5; i++) t.copy().user("Please continue with the task.").call("attempt_completion", { result: "The changelog is updated." }, true, "<feedback>\nPlease continue with the task.\n</feedback>");
    assertInTime(t, "tool-repeat");
  });

  it("stays silent when each nudge brings new work", () => {
    const t = new Trace("Migrate every module to the new logger.");
    for (let i = 0; i < 6; i++) {
      if (i > 0) t.user("continue");
      t.call("read_file", { path: `src/mod${i}.ts` }, true, `console.log(${i})`);
      t.call("apply_diff", { path: `src/mod${i}.ts`, diff: `<<<<<<< SEARCH\nconsole.log(${i})\n=======\nlogger.info(${i})\n>>>>>>> REPLACE` }, true, "Changes successfully applied.");
      t.say("Done.");
    }
    assert.deepEqual(feed(t.events), []);
  });

  it("still starts afresh on a new user message", () => {
    const t = new Trace("Check the status.");
    for (let i = 0; i < 2; i++) t.call("Bash", { command: "git status" }, true, "nothing to commit");
    t.user("Now check it once more, please.");
    t.call("Bash", { command: "git status" }, true, "nothing to commit");
    assert.deepEqual(feed(t.events), []);
  });
});

describe("class 9: the same failing call at its documented thresholds (tool-failure 3 / 4 / 5)", () => {
  it("warns as the 3rd identical attempt is made (its answer is foretold) and refuses the 4th", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "build it" }];
    for (let i = 0; i < 5; i++) evs.push(...step(`b${i}`, "Bash", { command: "npm run build" }, false, "Exit code 1\nsrc/server.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'."));
    const ivs = feed(evs).filter((iv) => iv.detector === "tool-failure");
    assert.equal(ivs[0].action, "warn");
    assert.equal(evs[ivs[0].event].t, "tool_call");
    assert.equal((evs[ivs[0].event] as { id: string }).id, "b2");
    assert.equal(ivs.find((iv) => iv.action === "block")?.toolCallId, "b3");
  });

  it("waits for the 3rd answer when the retry is not foretold: the failures differed, or a wait came between", () => {
    const differing: TraceEvent[] = [{ t: "user", text: "build it" }];
    for (let i = 0; i < 3; i++) differing.push(...step(`d${i}`, "Bash", { command: "npm run build" }, false, `Exit code 1\nsrc/server.ts(${12 + i},5): error TS2322: Type 'string' is not assignable to type 'number'.`));
    const first = feed(differing).find((iv) => iv.detector === "tool-failure");
    assert.ok(!first || differing[first.event].t === "tool_result", "not warned before the answer");
    const waited: TraceEvent[] = [{ t: "user", text: "deploy it" }];
    for (let i = 0; i < 3; i++) {
      if (i > 0) waited.push(...step(`s${i}`, "Bash", { command: "sleep 30" }, true, ""));
      waited.push(...step(`w${i}`, "Bash", { command: "kubectl rollout status deploy/api" }, false, "error: deployment \"api\" exceeded its progress deadline"));
    }
    assert.equal(feed(waited).filter((iv) => iv.detector === "tool-failure" && waited[iv.event].t === "tool_call").length, 0, "a retry after a wait is a poll");
  });

  it("counts a failing read again despite a parallel read of another file that works", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "look at the config" }];
    for (let i = 0; i < 4; i++) {
      evs.push({ t: "request" }, { t: "tool_call", id: `m${i}`, name: "read_file", input: { path: "src/config/missing.ts" } }, { t: "tool_call", id: `o${i}`, name: "read_file", input: { path: `docs/notes${i}.md` } }, { t: "end" });
      evs.push({ t: "tool_result", id: `m${i}`, ok: false, error: "File not found: src/config/missing.ts" }, { t: "tool_result", id: `o${i}`, ok: true, output: `notes ${i}` });
    }
    const ivs = feed(evs);
    assert.equal(ivs[0]?.detector, "tool-failure");
    assert.equal((evs[ivs[0].event] as { id?: string }).id, "m2");
  });
});

describe("class 10: mixed-outcome re-runs stay silent", () => {
  const run = (fail: boolean) => (fail ? "FAIL tests/api.test.ts\n  ✕ refreshes the token (231 ms)\nTests: 1 failed, 11 passed" : "PASS tests/api.test.ts\nTests: 12 passed");

  it("lets the runs the user asked for through, whatever they answer", () => {
    const t = new Trace("Is `npx jest tests/api.test.ts` flaky? Run it 5 times.");
    for (const fail of [true, true, true, false, true]) t.call("execute_command", { command: "npx jest tests/api.test.ts", requires_approval: false }, !fail, run(fail));
    assert.deepEqual(feed(t.events), []);
  });

  it("lets asked-for runs through when the user names no command", () => {
    const t = new Trace("I suspect the token refresh test is flaky. Run it 5 times and tell me what you see.");
    for (const fail of [true, true, true, true, false]) t.call("Bash", { command: "npx jest -t 'refreshes the token'" }, !fail, run(fail));
    assert.deepEqual(feed(t.events), []);
  });

  it("takes a different outcome as news when the runs alternate", () => {
    const t = new Trace("I think the api test is flaky, can you check?");
    for (let i = 0; i < 6; i++) t.call("Bash", { command: "npx jest tests/api.test.ts" }, i % 2 === 1, run(i % 2 === 0));
    assert.deepEqual(feed(t.events), []);
  });
});

describe("class 11: bisecting stays silent", () => {
  it("takes every `git bisect good/bad` for a new working tree", () => {
    const t = new Trace("Find the commit that broke login.");
    t.call("Bash", { command: "git bisect start HEAD v1.2.0" }, true, "Bisecting: 31 revisions left to test after this (roughly 5 steps)");
    for (let i = 0; i < 5; i++) {
      t.call("Bash", { command: "go test ./pkg/login/..." }, false, "--- FAIL: TestLogin (0.01s)\nFAIL");
      t.call("Bash", { command: "git bisect bad" }, true, `Bisecting: ${15 >> i} revisions left to test after this\n[a1b2c3${i}] change ${i}`);
    }
    assert.deepEqual(feed(t.events), []);
  });
});

describe("tool classes from the generator (seed 16)", () => {
  // A regression guard on a small sample (the goal, 97% in time, is measured by runTool on thousands).
  it("catches every loop class within two repetitions in at least 95% of draws, with no false alarm on look-alikes", function () {
    // 25 families x 60 draws replayed whole: seconds alone, more on a machine shared with other runs.
    this.timeout(180_000);
    const rng = seededRng(16);
    for (const g of toolClasses) {
      let good = 0;
      const per = 60;
      for (let i = 0; i < per; i++) {
        const v = judge(g.draw(rng));
        if (g.kind === "loop" ? v.repetitions !== undefined && v.repetitions >= 0 && v.repetitions <= 2 : v.interventions === 0) good++;
      }
      const needed = g.kind === "loop" ? Math.ceil(0.95 * per) : per;
      assert.ok(good >= needed, `${g.family} (${g.kind}): ${good}/${per} as expected`);
    }
  });
});

describe("signals behind the tool classes", () => {
  it("tells no-op commands from real ones", () => {
    for (const c of ["true", "echo ok", "cd .", "pwd", "cd . && pwd", "printf 'ready\\n'", ":", "echo $?", "sleep 1 && echo done"]) assert.equal(isTrivialCommand(c), true, c);
    for (const c of ["ls", "echo x > notes.txt", "cd src && npm test", "echo $(cat a.txt)", "git status", "pwd; make"]) assert.equal(isTrivialCommand(c), false, c);
  });

  it("reads how long a wait waits", () => {
    assert.equal(waitSeconds("sleep 5 && tail -n 1 build.log"), 5);
    assert.equal(waitSeconds("sleep 2m"), 120);
    assert.equal(waitSeconds("sleep 10; sleep 20"), 30);
    assert.equal(waitSeconds("gh run watch 812"), Infinity);
    assert.equal(waitSeconds("git status"), 0);
  });

  it("takes formatters that write and bisect steps for changes, checks for none", () => {
    for (const c of ["black pkg/settings.py", "npx prettier --write src", "ruff format .", "cargo fmt", "gofmt -w main.go", "git bisect bad", "git bisect start HEAD v1.0"]) assert.equal(isMutatingCommand(c), true, c);
    assert.equal(heredocWriteTarget("cat > src/a.py <<'EOF'\nx = 1\nEOF\npython src/a.py"), "src/a.py");
    assert.equal(heredocWriteTarget("cat <<EOF > ./notes.md\nhi\nEOF"), "notes.md");
    assert.equal(heredocWriteTarget("cat > /tmp/probe.py <<'EOF'\nx\nEOF"), undefined, "a throwaway probe");
    assert.equal(heredocWriteTarget("cat src/a.py"), undefined);
    for (const c of ["black --check .", "npx prettier --check src", "ruff check .", "cargo fmt -- --check", "git bisect log"]) assert.equal(isMutatingCommand(c), false, c);
  });

  it("reads results that say nothing changed, and only those", () => {
    for (const t of ["No changes detected.", "Applied 0 replacements.", "0 occurrences replaced", "The file a.ts is unchanged", "Diff is empty; nothing to apply.", "No changes were made to the file."]) assert.equal(saysNothingChanged(t), true, t);
    for (const t of ["oldString and newString must be different", "No changes to make: old_string and new_string are exactly the same.", "The search text and replacement are identical"]) assert.equal(saysNothingChanged(t), true, t);
    for (const t of ["Applied 3 replacements.", "Successfully modified file: a.ts (1 replacements).", "The content was successfully saved to a.ts.", "Changes successfully applied.", "Edited a.ts: the old and new tests now share one fixture.", "Replaced the search box text; both pages are the same height now."]) assert.equal(saysNothingChanged(t), false, t);
  });

  it("reads target and replacement from edit pairs, SEARCH/REPLACE blocks and patches", () => {
    assert.deepEqual(replacementOf({ old_string: "a", new_string: "b" }), { target: "a", text: "b" });
    assert.deepEqual(replacementOf({ diff: "<<<<<<< SEARCH\n:start_line:3\n-------\nold\n=======\nnew\n>>>>>>> REPLACE" }), { target: "old", text: "new" });
    assert.deepEqual(replacementOf({ input: "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch" }), { target: "x = 1", text: "x = 2" });
    assert.equal(addedFileOf({ input: "*** Begin Patch\n*** Add File: a.py\n+x = 1\n+y = 2\n*** End Patch" }), "x = 1\ny = 2");
  });
});
