import * as assert from "node:assert/strict";
import { feedOnly, step } from "./toolTestKit";
import type { TraceEvent } from "../../src/engine/events";

const feed = (events: TraceEvent[]) => feedOnly("tool-cycle", events);

describe("tool-cycle", () => {
  it("warns on the third identical A-B round (successful calls, so no failure count helps)", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "check the config" }];
    for (let i = 0; i < 5; i++) {
      evs.push(...step(`a${i}`, "read_file", { path: "src/config.ts" }, true, "export const x = 1"));
      evs.push(...step(`b${i}`, "list_files", { path: "src" }, true, "config.ts\nindex.ts"));
    }
    const ivs = feed(evs);
    assert.equal(ivs[0].action, "warn");
    assert.equal(ivs[0].evidence.count, 3);
    assert.equal(ivs[0].evidence.cycle?.length, 2);
    assert.equal(ivs.find((iv) => iv.action === "block")?.toolCallId, "b3");
  });

  it("finds a period-3 cycle", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "x" }];
    for (let i = 0; i < 4; i++) {
      evs.push(...step(`a${i}`, "search_files", { path: "src", regex: "Foo" }, true, "src/a.ts:1: Foo"));
      evs.push(...step(`b${i}`, "read_file", { path: "src/a.ts" }, true, "class Foo {}"));
      evs.push(...step(`c${i}`, "execute_command", { command: "npm test" }, false, "1 failing: Foo is not a function"));
    }
    const ivs = feed(evs);
    assert.ok(ivs.length > 0);
    assert.equal(ivs[0].evidence.cycle?.length, 3);
  });

  it("stays quiet for an edit-test cycle whose edits and test output change", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "fix the queue test" }];
    for (let i = 0; i < 5; i++) {
      evs.push(...step(`t${i}`, "execute_command", { command: "npx vitest run queue.test.ts" }, false, `FAIL queue.test.ts > case ${i}`));
      evs.push(...step(`e${i}`, "apply_diff", { path: "src/queue.ts", diff: `<<<<<<< SEARCH\nline ${i}\n=======\nfixed ${i}\n>>>>>>> REPLACE` }, true, "Applied 1 change."));
    }
    assert.deepEqual(feed(evs), []);
  });

  it("stays quiet when the same edit target gets a new replacement each round, even with the same test output", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "x" }];
    for (let i = 0; i < 5; i++) {
      evs.push(...step(`e${i}`, "Edit", { file_path: "/r/a.ts", old_string: "return a", new_string: `return a + ${i}` }, true, "edited"));
      evs.push(...step(`t${i}`, "Bash", { command: "npm test" }, false, "1 failing"));
    }
    assert.deepEqual(feed(evs), []);
  });

  it("treats sleep-and-poll rounds as polling", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "wait for CI" }];
    for (let i = 0; i < 6; i++) {
      evs.push(...step(`s${i}`, "Bash", { command: "sleep 60" }, true, ""));
      evs.push(...step(`p${i}`, "Bash", { command: "gh run list --limit 1" }, true, "in_progress"));
    }
    assert.deepEqual(feed(evs), []);
  });

  it("stays quiet for git status between commits", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "commit in two parts" }];
    evs.push(...step("s1", "execute_command", { command: "git status --short" }, true, " M a.ts\n M b.md"));
    evs.push(...step("c1", "execute_command", { command: "git commit -m 'a' a.ts" }, true, "[main 1a2b3c4] a"));
    evs.push(...step("s2", "execute_command", { command: "git status --short" }, true, " M b.md"));
    evs.push(...step("c2", "execute_command", { command: "git commit -m 'b' b.md" }, true, "[main 5d6e7f8] b"));
    evs.push(...step("s3", "execute_command", { command: "git status --short" }, true, ""));
    assert.deepEqual(feed(evs), []);
  });
});
