import * as assert from "node:assert/strict";
import { feedOnly, step } from "./toolTestKit";
import type { TraceEvent } from "../../src/engine/events";
import { foundNothing, patternKey } from "../../src/engine/detectors/searchSpiral";

const feed = (events: TraceEvent[]) => feedOnly("search-spiral", events);

describe("search-spiral", () => {
  const widening = ["src/auth", "src", "packages", ".", "..", "node_modules/@corp", "/usr/local/lib"];

  it("warns when one pattern comes back empty from a fourth wider place, then blocks the next widening", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Where is legacyAuthToken defined?" }];
    widening.forEach((p, i) => evs.push(...step(`s${i}`, "search_files", { path: p, regex: "legacyAuthToken" }, true, "Found 0 results.")));
    const ivs = feed(evs);
    assert.equal(ivs[0].action, "warn");
    assert.equal(ivs[0].evidence.count, 4);
    assert.equal(ivs[0].evidence.pattern, "legacyAuthToken");
    assert.equal(ivs.find((iv) => iv.action === "block")?.toolCallId, "s6");
  });

  it("counts shell greps of bash-only agents the same way", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "find it" }];
    ["src", "lib", "tests", ".", "/usr/lib/python3"].forEach((p, i) =>
      evs.push(...step(`g${i}`, "bash", { command: `cd /testbed && grep -rn "legacy_auth_token" ${p}` }, false, "<returncode>1</returncode>\n<output>\n</output>")));
    assert.equal(feed(evs)[0]?.evidence.count, 4);
  });

  it("stays quiet when each package search finds results (monorepo sweep)", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Find all usages of createLogger across packages" }];
    ["api", "web", "worker", "cli", "sdk", "shared"].forEach((p, i) =>
      evs.push(...step(`m${i}`, "grep", { pattern: "createLogger\\(", path: `packages/${p}` }, true, `packages/${p}/src/index.ts:3: const log = createLogger('${p}')`)));
    assert.deepEqual(feed(evs), []);
  });

  it("ends the spiral once the pattern is found somewhere", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "x" }];
    ["a", "b"].forEach((p, i) => evs.push(...step(`e${i}`, "Grep", { pattern: "needle", path: p }, true, "No files found")));
    evs.push(...step("hit", "Grep", { pattern: "needle", path: "d" }, true, "d/x.ts"));
    ["e", "f", "g"].forEach((p, i) => evs.push(...step(`f${i}`, "Grep", { pattern: "needle", path: p }, true, "No files found")));
    assert.deepEqual(feed(evs), []);
  });

  it("does not count different patterns in different places", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "x" }];
    ["alpha", "beta", "gamma", "delta", "epsilon"].forEach((q, i) => evs.push(...step(`q${i}`, "search_files", { path: `dir${i}`, regex: q }, true, "Found 0 results.")));
    assert.deepEqual(feed(evs), []);
  });

  it("recognises empty answers and pattern variants", () => {
    assert.ok(foundNothing(true, "Found 0 results."));
    assert.ok(foundNothing(true, 'No matches found for pattern "x" in path "."'));
    assert.ok(foundNothing(false, "<returncode>1</returncode>\n<output>\n</output>"));
    assert.ok(!foundNothing(true, "src/a.ts:3: match"));
    assert.equal(patternKey("legacyAuthToken\\b"), patternKey("legacy_auth_token"));
  });

  it("counts a new file filter in the same directory as a new place", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "x" }];
    ["*.ts", "*.tsx", "*.js", "*.mjs", "*.json"].forEach((g, i) => evs.push(...step(`g${i}`, "Grep", { pattern: "legacyAuthToken", path: "src", glob: g }, true, "No files found")));
    assert.equal(feed(evs)[0]?.evidence.count, 4);
  });

  it("counts regex variants of one name as one spiral", () => {
    const tries: [string, string][] = [["registerWebhookHandler", "src/webhooks"], ["registerWebhookHandler", "src"], ["registerWebhookHandler", "."],
      ["registerWebhook(Handler)?", "."], ["register_?[Ww]ebhook", "packages"], ["registerWebhookHandler", ".."], ["registerWebhook", "node_modules/@acme"],
      ["registerWebhookHandler", "/usr/lib/node_modules"]];
    const evs: TraceEvent[] = [{ t: "user", text: "Where do we register webhook handlers?" }];
    tries.forEach(([regex, path], i) => evs.push(...step(`v${i}`, "search_files", { path, regex, file_pattern: "*.ts" }, true, `[search_files for '${regex}'] Result:\nFound 0 results.`)));
    const ivs = feed(evs);
    assert.equal(ivs[0]?.action, "warn");
    assert.equal(ivs[0]?.evidence.count, 4);
    assert.equal(patternKey("register_?[Ww]ebhook"), patternKey("registerWebhook(Handler)?"));
    assert.ok(ivs.some((iv) => iv.action === "block" && iv.toolCallId === "v7"), "the sixth new place is refused at the call");
  });

  const packages = ["api", "web", "worker", "cli", "sdk", "shared", "jobs", "admin"];
  const parallelGreps = (tag: string, hits: boolean): TraceEvent[] => [
    { t: "request" },
    ...packages.map((p, i): TraceEvent => ({ t: "tool_call", id: `${tag}${i}`, name: "Grep", input: { pattern: "legacyLogger\\(", path: `packages/${p}` } })),
    { t: "end" },
    ...packages.map((p, i): TraceEvent => ({ t: "tool_result", id: `${tag}${i}`, ok: true, output: hits ? `packages/${p}/src/log.ts` : "No files found" })),
  ];

  it("takes an empty re-check after edits as verification, not a spiral", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Replace legacyLogger( everywhere" }, ...parallelGreps("a", true)];
    packages.forEach((p, i) => evs.push(...step(`e${i}`, "Edit", { file_path: `packages/${p}/src/log.ts`, old_string: "legacyLogger(", new_string: "logger(" }, true, "The file has been updated.")));
    evs.push(...parallelGreps("b", false));
    assert.deepEqual(feed(evs), []);
  });

  it("takes one parallel fan-out over sibling places as one search", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "Is legacyLogger( still used anywhere?" }, ...parallelGreps("a", false)];
    assert.deepEqual(feed(evs), []);
  });

  it("starts over after an edit", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "x" }];
    ["src", "lib", "."].forEach((p, i) => evs.push(...step(`s${i}`, "Grep", { pattern: "fooBarBaz", path: p }, true, "No files found")));
    evs.push(...step("w", "Write", { file_path: "src/fooBarBaz.ts", content: "export const fooBarBaz = 1;" }, true, "File created"));
    ["tests", "scripts", "docs"].forEach((p, i) => evs.push(...step(`t${i}`, "Grep", { pattern: "fooBarBaz", path: p }, true, "No files found")));
    assert.deepEqual(feed(evs), []);
  });
  describe("misses spread over productive work (adding a feature that does not exist yet)", () => {
    const grep = (id: string, pattern: string, where: string) => step(id, "bash", { command: `grep -n "${pattern}" ${where}` }, true, "<returncode>1</returncode>\n<output>\n</output>");
    const cat = (id: string, path: string) => step(id, "bash", { command: `cat ${path}` }, true, `<returncode>0</returncode>\n<output>\n# ${path}\ndef add_item(self, title, link): ...\n</output>`);

    it("does not merge a name with a longer name that contains it", () => {
      const evs: TraceEvent[] = [{ t: "user", text: "Add support for item_comments to the feed" }];
      evs.push(...grep("a", "comments", "tests/feeds/tests.py"), ...grep("b", "item_comments", "."));
      evs.push(...grep("c", "comments", "tests/utils/test_feedgen.py"), ...grep("d", "item_comments", "pkg/feeds/views.py"));
      evs.push(...grep("e", "comments", "docs"), ...grep("f", "item_comments", "tests"));
      assert.deepEqual(feed(evs), []);
    });

    it("does not count misses with new files read between them", () => {
      const evs: TraceEvent[] = [{ t: "user", text: "Add support for item_comments to the feed" }];
      ["tests/feeds/tests.py", "tests/utils/test_feedgen.py", "pkg/feeds/views.py", "pkg/utils/feedgen.py", "docs/ref/feeds.txt"].forEach((where, i) => {
        evs.push(...grep(`g${i}`, "item_comments", where));
        evs.push(...cat(`r${i}`, `pkg/module_${i}.py`));
      });
      assert.deepEqual(feed(evs), []);
    });

    it("does not count misses far apart", () => {
      const evs: TraceEvent[] = [{ t: "user", text: "x" }];
      ["src", "lib", "tests", ".", ".."].forEach((where, i) => {
        evs.push(...grep(`g${i}`, "legacyAuthToken", where));
        // Re-reading one file is no new information, but twenty calls make the misses unrelated.
        for (let k = 0; k < 20; k++) evs.push(...step(`x${i}_${k}`, "bash", { command: `python -m pytest -q -k case_${i}_${k}` }, true, "<returncode>0</returncode>\n<output>\n1 passed\n</output>"));
      });
      assert.deepEqual(feed(evs), []);
    });

    it("still counts misses close together with only known files re-read between them", () => {
      const evs: TraceEvent[] = [{ t: "user", text: "x" }, ...cat("r", "pkg/app.py")];
      ["src", "lib", "tests", ".", ".."].forEach((where, i) => {
        evs.push(...grep(`g${i}`, "legacyAuthToken", where));
        evs.push(...cat(`r${i}`, "pkg/app.py"));
      });
      assert.equal(feed(evs)[0]?.evidence.count, 4);
    });
  });
});
