import * as assert from "node:assert/strict";
import { LoopSession } from "../../src/engine/session";
import type { TraceEvent } from "../../src/engine/events";
import { commandMatches, repetitionIntent } from "../../src/engine/intent";
import { createToolKnowledge, isPlanTool } from "../../src/engine/toolKnowledge";
import { feedOnly, step } from "./toolTestKit";

const feed = (events: TraceEvent[]) => {
  const s = new LoopSession();
  return events.flatMap((e) => s.push(e));
};

const gemini = (command: string, out: string) => `Command: ${command}\nDirectory: (root)\nOutput: ${out}\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4242`;

describe("tool-progress: steps that bring nothing new", () => {
  it("catches probes that differ every time and answer nothing (no call repeated, no thinking)", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Anything left?" }];
    const probes: [string, string][] = [["echo plan", "plan"], ["pwd", "/work/app"], ["echo '??'", "??"], ["cd .", ""], ["ls -d .", "."], ["true", ""], ["echo ready", "ready"]];
    probes.forEach(([c, o], i) => evs.push(...step(`p${i}`, "run_shell_command", { command: c }, true, gemini(c, o))));
    const ivs = feed(evs);
    assert.ok(ivs.length > 0, "caught");
    assert.equal(ivs[0].detector, "tool-progress");
    assert.equal(ivs[0].event, evs.findIndex((e) => e.t === "tool_call" && e.id === "p4"), "warned as the fifth probe begins");
    assert.match(ivs[0].summary, /^4 steps in a row, nothing new: /);
  });

  it("catches reworded searches of one folder that all find nothing", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Where is the retry limit set?" }];
    ["retryLimit", "retry_limit", "maxRetries", "MAX_RETRY", "backoffLimit", "retryCount"].forEach((p, i) => evs.push(...step(`g${i}`, "Grep", { pattern: p, path: "src/config" }, true, "No matches found")));
    const ivs = feedOnly("tool-progress", evs);
    assert.ok(ivs.length > 0, "caught");
    assert.equal(ivs[0].event, evs.findIndex((e) => e.t === "tool_call" && e.id === "g4"), "warned as the fifth search begins");
  });

  it("stays silent on research that finds things, reads new files and edits", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Add a retry limit." }];
    for (let i = 0; i < 8; i++) {
      evs.push(...step(`r${i}`, "Read", { file_path: `/w/src/mod${i}.ts` }, true, `export function handler${i}(x: number) {\n  return x * ${i};\n}`));
      evs.push(...step(`g${i}`, "Grep", { pattern: `handler${i}`, path: "src" }, true, `src/mod${i}.ts:1:export function handler${i}`));
    }
    assert.deepEqual(feedOnly("tool-progress", evs), []);
  });

  it("counts plan updates for nothing, either way", () => {
    assert.equal(isPlanTool("update_plan"), true);
    assert.equal(isPlanTool("TodoWrite"), true);
    assert.equal(isPlanTool("mcp__tasks__todo_write"), true);
    assert.equal(isPlanTool("Read"), false);
    // an MCP tool's last part, after any of its separators
    assert.equal(isPlanTool("tasks.update_plan"), true);
    assert.equal(isPlanTool("server/TodoWrite"), true);
    assert.equal(isPlanTool("update_plan_file"), false);
    const evs: TraceEvent[] = [{ t: "user", text: "Go on." }];
    for (let i = 0; i < 8; i++) {
      evs.push(...step(`t${i}`, "update_plan", { plan: [{ step: `step ${i}`, status: "in_progress" }] }, true, "Plan updated"));
      evs.push(...step(`r${i}`, "Read", { file_path: `/w/src/new${i}.ts` }, true, `const value${i} = ${i};`));
    }
    assert.deepEqual(feedOnly("tool-progress", evs), []);
  });
});

describe("tool-progress: edits that change nothing about the outcome", () => {
  const failing = (ms: number) => `FAIL tests/api.test.ts\n  ✕ keeps the limit (${ms} ms)\n    Expected: 3\n    Received: 0`;

  it("catches the fourth byte-identical failure after an edit (durations aside), though each edit resets the exact counts", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Fix the failing test." }];
    evs.push(...step("t0", "Bash", { command: "npx jest tests/api.test.ts" }, false, failing(12)));
    for (let i = 1; i <= 5; i++) {
      evs.push(...step(`e${i}`, "Edit", { file_path: "/w/src/limit.ts", old_string: `const a${i} = 1;`, new_string: `const a${i} = 2;` }, true, "The file /w/src/limit.ts has been updated."));
      evs.push(...step(`t${i}`, "Bash", { command: "npx jest tests/api.test.ts" }, false, failing(10 + i)));
    }
    const ivs = feedOnly("tool-progress", evs);
    assert.ok(ivs.length > 0, "caught");
    assert.match(ivs[0].summary, /^3 changes in a row, nothing new: after each, Bash "npx jest tests\/api\.test\.ts" failed with the very same output/);
    // The third identical failure after an edit is the finding: it comes with the answer of t3.
    const t3 = evs.findIndex((e) => e.t === "tool_result" && e.id === "t3");
    assert.equal(ivs[0].event, t3);
  });

  it("stays silent when each edit moves the failure (tests after real fixes)", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Fix the failing tests." }];
    for (let i = 0; i < 6; i++) {
      evs.push(...step(`t${i}`, "Bash", { command: "npx jest" }, false, `Tests: ${6 - i} failed, ${4 + i} passed`));
      evs.push(...step(`e${i}`, "Edit", { file_path: `/w/src/f${i}.ts`, old_string: "a", new_string: "b" }, true, "The file has been updated."));
    }
    assert.deepEqual(feedOnly("tool-progress", evs), []);
  });

  it("takes checkouts between identical failures for findings, not ineffective edits (git bisect)", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Find the commit that broke login." }];
    for (let i = 0; i < 6; i++) {
      evs.push(...step(`t${i}`, "Bash", { command: "go test ./pkg/login/..." }, false, "--- FAIL: TestLogin (0.01s)\nFAIL"));
      evs.push(...step(`b${i}`, "Bash", { command: "git bisect bad" }, true, `Bisecting: ${40 >> i} revisions left to test after this\n[a1b2c3${i}] change ${i}`));
    }
    assert.deepEqual(feedOnly("tool-progress", evs), []);
  });
});

describe("intent from the request: repetition asked for in words", () => {
  it("reads numbers and vague words in five languages", () => {
    const cases: [string, number][] = [
      ["Run `npm test` 5 times.", 5],
      ["Lance les tests trois fois.", 3],
      ["Ejecuta la prueba cinco veces.", 5],
      ["Führe den Test dreimal aus.", 3],
      ["把测试运行五次。", 5],
      ["Re-run it a few times locally and tell me how often it fails.", 10],
      ["Relance-le plusieurs fois.", 6],
      ["Ejecútalo varias veces.", 6],
      ["Führe ihn ein paar Mal aus.", 5],
      ["多运行几次这个测试。", 5],
      ["Keep re-running it until it passes.", 10],
      ["Continue working on the task until it is complete.", 1],
      ["Fix the bug in the parser.", 1],
    ];
    for (const [text, times] of cases) assert.equal(repetitionIntent(text).times, times, text);
  });

  it("reads other wordings, and the counts and vague words of Portuguese, Italian, Russian, Japanese and Korean", () => {
    const cases: [string, number][] = [
      ["Run `cargo test parser` a handful of times to see whether it is flaky.", 5],
      ["Re-run it until it's green.", 10],
      ["Lance le test une dizaine de fois.", 10],
      ["Ejecuta la prueba un par de veces.", 5],
      ["Führe den Test mehrfach aus.", 6],
      ["Lass ihn immer wieder laufen.", 6],
      ["Rode o teste cinco vezes.", 5],
      ["Rode o teste algumas vezes e me diga com que frequência falha.", 10],
      ["Esegui il test 4 volte.", 4],
      ["Esegui il test più volte.", 6],
      ["Запусти тест 5 раз.", 5],
      ["Запусти тест несколько раз.", 5],
      ["テストを3回実行して。", 3],
      ["テストを何度か実行して。", 5],
      ["테스트를 3번 실행해 줘.", 3],
      ["테스트를 여러 번 실행해 줘.", 6],
      ["Корректно обработай пустой список.", 1],
      ["Aggiungi un controllo per la lista vuota.", 1],
    ];
    for (const [text, times] of cases) assert.equal(repetitionIntent(text).times, times, text);
    for (const text of ["Sigue comprobando el despliegue.", "Aguarde o build terminar.", "Aspetta che la build finisca.", "Дождись окончания сборки.", "ビルドが終わるまで待って。", "빌드가 끝날 때까지 기다려 줘."]) assert.equal(repetitionIntent(text).waits, true, text);
  });

  it("reads 'until it passes' in each of its wordings (each is looked for only in a message with its leading word)", () => {
    const untilPasses = ["Run it until it passes.", "Keep going till the tests are green.", "Re-run it unless the build fails.", "Re-run it until it's green.", "RUN IT UNTIL IT PASSES.",
      "Rode até que o teste passe.", "Esegui finché non passa.", "テストが通るまで実行して。", "成功するまで実行して。", "Запускай, пока не пройдут тесты.", "Запускай, пока не заработает.",
      "테스트가 통과할 때까지 실행해 줘.", "Relance jusqu'a ce qu'il marche.", "Ejecútalo hasta que pase.", "Starte es, bis alle Tests durchläuft.", "运行直到通过。"];
    for (const text of untilPasses) assert.equal(repetitionIntent(text).times, 10, text);
  });

  it("reads waits and polls in five languages", () => {
    for (const text of ["Wait for the release build.", "Keep polling the deploy.", "Attends que le build soit terminé.", "Espera a que termine el build.", "Warte auf den Build.", "等待构建完成。", "Deploy it and tell me when it's live."]) assert.equal(repetitionIntent(text).waits, true, text);
    for (const text of ["Fix the failing test.", "Refactor the session handling."]) assert.equal(repetitionIntent(text).waits, false, text);
  });

  it("applies a vague count to the command the request names, by its file or test name", () => {
    const intent = repetitionIntent("test_respects_the_limit in tests/reminders.rs is flaky on CI. Re-run it a few times.");
    assert.equal(commandMatches(intent, "cargo test --test reminders"), true);
    assert.equal(commandMatches(intent, "python -m pytest tests/test_mailer.py -q"), false);
    assert.equal(commandMatches(repetitionIntent("Run the tests a few times."), "npm test"), true, "a request that names nothing means any command");
  });

  it("lets requested re-runs of a flaky test answer the same four times in a row", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "test_login in tests/test_auth.py is flaky on CI. Re-run it a few times locally and tell me how often it fails." }];
    const outs = ["5 passed in 2.1s", "5 passed in 1.9s", "5 passed in 2.4s", "5 passed in 2.0s", "1 failed, 4 passed in 2.2s", "5 passed in 2.2s"];
    outs.forEach((o, i) => evs.push(...step(`r${i}`, "Bash", { command: "python -m pytest tests/test_auth.py -q" }, true, o)));
    assert.deepEqual(feed(evs), []);
  });

  it("lets polls the user asked to wait for answer the same between advances", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Wait for the release build to finish." }];
    const command = "sleep 20; gh run view 4711 --json status";
    let ts = 1_700_000_000_000;
    for (const pending of [6, 4, 4, 4, 2, 2, 1, 1, 1, 0]) {
      ts += 24_000;
      const id = `p${ts}`;
      evs.push({ t: "request", ts }, { t: "tool_call", id, name: "Bash", input: { command }, ts }, { t: "end", ts }, { t: "tool_result", id, ok: true, output: pending ? `${pending} pending, ${10 - pending} successful` : "all checks passed", ts: ts + 21_000 });
    }
    assert.deepEqual(feed(evs), []);
  });
});

describe("tool knowledge of the dialects", () => {
  it("knows Codex, Copilot, Claude Code, Qwen Code and MCP tool names", () => {
    const k = createToolKnowledge();
    const expected: [string, string][] = [
      ["shell", "command"], ["exec_command", "command"], ["apply_patch", "edit"], ["update_plan", "other"],
      ["run_in_terminal", "command"], ["grep_search", "search"], ["replace_string_in_file", "edit"], ["fetch_webpage", "fetch"],
      ["Bash", "command"], ["Read", "read"], ["Edit", "edit"], ["Grep", "search"],
      ["run_shell_command", "command"], ["search_file_content", "search"], ["replace", "edit"],
      ["mcp__filesystem__read_text_file", "read"], ["mcp__filesystem__edit_file", "edit"], ["mcp_github_search_code", "search"], ["directory_tree", "list"],
    ];
    for (const [name, kind] of expected) assert.equal(k.kindOf(name), kind, name);
  });
});
