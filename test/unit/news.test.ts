/**
 * The shared judgement of news (src/engine/news.ts) and the detectors that ask it: a page further on
 * is news whatever its words; an envelope around an empty payload found nothing; an outcome that
 * changed with nothing changed makes the call a sample, not a loop. Each with the loop it must
 * still catch.
 */
import * as assert from "node:assert/strict";
import { CursorMemory, emptyPayload } from "../../src/engine/news";
import { foundNothing } from "../../src/engine/detectors/searchSpiral";
import type { TraceEvent } from "../../src/engine/events";
import { LoopSession } from "../../src/engine/session";
import { feedOnly, step } from "./toolTestKit";
import { ToolLedger } from "../../src/engine/ledger";
import { createToolKnowledge } from "../../src/engine/toolKnowledge";

const feed = (events: TraceEvent[]) => { const s = new LoopSession(); return events.flatMap((e) => s.push(e)); };

describe("news: a cursor moved forward", () => {
  it("tells a call that pages forward from one that goes back or stays", () => {
    const c = new CursorMemory();
    assert.equal(c.advances("gh api 'repos/a/b/issues?per_page=100&page=1'"), false, "the first page is no advance over anything");
    assert.equal(c.advances("gh api 'repos/a/b/issues?per_page=100&page=2'"), true);
    assert.equal(c.advances("gh api 'repos/a/b/issues?per_page=100&page=3'"), true);
    assert.equal(c.advances("gh api 'repos/a/b/issues?per_page=100&page=1'"), false, "wrapped round to a page already read");
    assert.equal(c.advances("gh api 'repos/a/b/issues?per_page=100&page=1'"), false, "the same page again");
    assert.equal(c.advances("sed -n 1,50p src/app.py"), false);
    assert.equal(c.advances("sed -n 51,100p src/app.py"), true);
    assert.equal(c.advances("cat README.md"), false, "no numbers, no cursor");
  });

  it("lets a paging sweep whose pages answer alike through (every full page counts 100)", () => {
    for (const [tool, input] of [["shell", (p: number) => ({ command: ["bash", "-lc", `curl -s 'https://api.example.com/v2/orders?limit=50&offset=${p * 50}' | jq length`] })], ["read_file", (p: number) => ({ path: "logs/huge.log", offset: p * 200, limit: 200 })]] as const) {
      const evs: TraceEvent[] = [{ t: "user", text: "Count the orders." }];
      for (let p = 0; p < 8; p++) evs.push(...step(`p${p}`, tool, input(p), true, tool === "shell" ? "50" : "[lines hidden: 200 lines of the same repeated heartbeat]"));
      assert.deepEqual(feedOnly("tool-progress", evs), [], tool);
    }
  });

  it("still catches probes that go back to pages already read, answered alike", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Count the orders." }];
    for (let i = 0; i < 8; i++) evs.push(...step(`p${i}`, "shell", { command: `curl -s 'https://api.example.com/v2/orders?limit=50&offset=${(i % 2) * 50}' | jq length` }, true, "50"));
    assert.ok(feed(evs).length > 0);
  });
});

describe("news: an envelope around nothing", () => {
  it("reads an empty payload inside a host's JSON envelope as nothing found", () => {
    assert.equal(emptyPayload('{"content":[{"type":"text","text":"{\\"items\\":[]}"}]}'), true);
    assert.equal(emptyPayload('{"total_count":0,"incomplete_results":false,"items":[]}'), true);
    assert.equal(emptyPayload('{"content":[{"type":"text","text":"{\\"items\\":[{\\"id\\":7}]}"}]}'), false);
    assert.equal(emptyPayload('{"ok":true,"data":{"name":"api"}}'), false);
    assert.equal(emptyPayload("[]"), true);
    assert.equal(emptyPayload("no json here"), false);
    assert.equal(foundNothing(true, '{"content":[{"type":"text","text":"{\\"items\\":[]}"}]}'), true);
  });

  it("counts reworded MCP searches that all come back empty in their envelope", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Find where the retry limit is configured." }];
    ["retryLimit", "retry_limit", "maxRetries", "MAX_RETRY", "backoffLimit", "retryCount", "retries"].forEach((q, i) =>
      evs.push(...step(`s${i}`, "mcp__github__search_code", { q: `${q} repo:acme/api` }, true, `{"content":[{"type":"text","text":"{\\"total_count\\":0,\\"items\\":[]}"}]}`)));
    assert.ok(feed(evs).length > 0, "caught");
  });
});

describe("news: an outcome that changed by itself is a sample", () => {
  const run = (fail: boolean, i: number) => (fail ? `FAIL uploads.test.ts > resume after disconnect (timeout 5000ms)` : `PASS uploads.test.ts (1 test) ${2 + (i % 3) / 10}s`);

  it("lets re-runs of a test that already passed and failed with nothing changed through", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Is the upload resume test flaky?" }];
    [true, false, false, true, false, false].forEach((fail, i) => evs.push(...step(`r${i}`, "execute_command", { command: "npx vitest run uploads.test.ts -t 'resume'" }, !fail, run(fail, i))));
    assert.deepEqual(feed(evs), []);
  });

  it("still catches a test re-run again and again that never changes its answer", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Fix the upload test." }];
    for (let i = 0; i < 6; i++) evs.push(...step(`r${i}`, "execute_command", { command: "npx vitest run uploads.test.ts -t 'resume'" }, true, run(false, i)));
    assert.ok(feed(evs).length > 0);
  });
});

describe("news: answers that differ only by fresh identifiers", () => {
  const call = (i: number, output: string): TraceEvent[] => step(`q${i}`, "Bash", { command: "curl -s https://api.example.com/v1/jobs/latest" }, true, output);

  it("counts answers that differ only by a request id or a Unix time as the same answer", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Why is the latest job stuck?" }];
    for (let i = 0; i < 6; i++) evs.push(...call(i, `{"request_id":"${["3f2b", "9a1c", "77de", "c0fe", "5e5e", "1234"][i]}a1b2-1c2d-4e5f-8a9b-0123456789ab","ts":${1732800000 + i * 7},"status":"queued","position":4}`));
    assert.ok(feed(evs).length > 0, "the same answer, nothing new");
  });

  it("still tells answers apart whose content moved beside a fresh id", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Why is the latest job stuck?" }];
    for (let i = 0; i < 6; i++) evs.push(...call(i, `{"request_id":"${["3f2b", "9a1c", "77de", "c0fe", "5e5e", "1234"][i]}a1b2-1c2d-4e5f-8a9b-0123456789ab","ts":${1732800000 + i * 7},"status":"queued","position":${6 - i}}`));
    assert.deepEqual(feed(evs), []);
  });
});

describe("news: the same change applied again", () => {
  const edit = { file_path: "/w/src/cart.ts", old_string: "total += item.price", new_string: "total += item.price ?? 0" };

  it("marks the very edit that took, made again with nothing changed since, as changing nothing", () => {
    const ledger = new ToolLedger(createToolKnowledge());
    const make = (id: string, input: Record<string, unknown>) => {
      const call = ledger.recordCall({ t: "tool_call", id, name: "Edit", input }, 0, 0);
      ledger.recordResult({ t: "tool_result", id, ok: true, output: "The file /w/src/cart.ts has been updated." }, 1);
      return call;
    };
    assert.equal(make("a", edit).unchanging, false);
    const epoch = ledger.epoch;
    assert.equal(make("b", edit).unchanging, true, "the same edit again");
    assert.equal(ledger.epoch, epoch, "and moved nothing");
    assert.equal(make("c", { ...edit, new_string: "total += item.price || 0" }).unchanging, false, "another edit of the same text");
  });

  it("counts the very edit that took, made again with nothing between, as no change (the test after it is the same run)", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Make total() skip items without a price." }];
    for (let i = 0; i < 5; i++) {
      evs.push(...step(`e${i}`, "Edit", edit, true, "The file /w/src/cart.ts has been updated."));
      evs.push(...step(`t${i}`, "Bash", { command: "npx vitest run cart" }, false, "FAIL src/cart.test.ts > skips items without a price\nAssertionError: expected NaN to be 30"));
    }
    assert.ok(feed(evs).length > 0);
  });

  it("lets different edits of one file, each followed by the test, through", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Make total() skip items without a price." }];
    for (let i = 0; i < 5; i++) {
      evs.push(...step(`e${i}`, "Edit", { ...edit, new_string: `total += item.price ?? ${i}` }, true, "The file /w/src/cart.ts has been updated."));
      evs.push(...step(`t${i}`, "Bash", { command: "npx vitest run cart" }, false, `FAIL src/cart.test.ts > skips items without a price\nAssertionError: expected ${30 + i} to be 30`));
    }
    assert.deepEqual(feed(evs), []);
  });
});
