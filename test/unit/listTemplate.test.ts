import * as assert from "node:assert/strict";
import type { TraceEvent } from "../../src/engine/events";
import { charRangeOf, request, runOnly, streamOf } from "./streamTestKit";

const only = (events: TraceEvent[], overrides: Record<string, number | boolean> = {}) => runOnly(["list-template"], events, overrides);
const user: TraceEvent = { t: "user", text: "Read TODO.md and tell me what's left." };
const SLOTS = ["camera", "photo library", "microphone", "location", "contacts", "calendar", "reminders", "bluetooth", "speech recognition", "motion and fitness", "health", "homekit", "siri", "media library", "local network", "notifications", "face id", "nfc", "tracking", "files", "clipboard", "usb", "screen recording", "accessibility", "wallet"];

const checklist = (n: number, marker = "  [X] ") => "Here is the status:\n\n" + SLOTS.slice(0, n).map((s) => `${marker}Fix bug where the app crashes when the user denies ${s} permissions.\n`).join("");

describe("list-template", () => {
  it("catches an invented checklist with one slot changing, at the 15th item", () => {
    const text = checklist(25);
    const events = [user, ...request(streamOf("text", text))];
    const ivs = only(events);
    assert.equal(ivs.length, 1);
    assert.equal(ivs[0].action, "abort");
    assert.equal(ivs[0].evidence.count, 15);
    const end15 = text.indexOf("\n", text.indexOf(SLOTS[14] + " permissions"));
    const [a, b] = charRangeOf(events, ivs[0].event);
    assert.ok(end15 >= a && end15 <= b);
    assert.match(ivs[0].summary, /15 so far/);
  });

  it("works with any list marker, numbers and blank lines between items", () => {
    for (const marker of ["- ", "* ", "1. ", "- [ ] "]) {
      assert.equal(only([user, ...request(streamOf("reasoning", checklist(20, marker)))]).length, 1, marker);
    }
    const numbered = SLOTS.map((s, i) => `Step ${i + 1}: check that the ${s} permission prompt is handled.\n\n`).join("");
    assert.equal(only([user, ...request(streamOf("text", numbered))]).length, 1);
  });

  it("reads words apart at any run of blanks (tabs, no-break spaces, double spaces)", () => {
    const blanks = [" ", "\t", "  ", "\u00a0", " \t "];
    const text = "Here is the status:\n\n" + SLOTS.map((s, i) => `- Fix bug where the app crashes when the user denies ${s} permissions.`.split(" ").join(blanks[i % blanks.length]) + "\n").join("");
    const ivs = only([user, ...request(streamOf("text", text))]);
    assert.equal(ivs.length, 1);
    assert.equal(ivs[0].evidence.count, 15);
  });

  it("reads the template's words in any case, ASCII or not", () => {
    const ends = ["PERMISSIONS.", "permissions.", "Permissions."];
    const ascii = SLOTS.map((s, i) => `- Fix bug where the app crashes when the user denies ${s} ${ends[i % 3]}\n`).join("");
    const other = SLOTS.map((s, i) => `- Corriger le plantage quand l'utilisateur refuse ${s} à l'${i % 2 ? "ÉCRAN" : "écran"}.\n`).join("");
    for (const text of [ascii, other]) {
      const ivs = only([user, ...request(streamOf("text", "Here is the status:\n\n" + text))]);
      assert.equal(ivs.length, 1, text.slice(0, 80));
      assert.equal(ivs[0].evidence.count, 15);
    }
  });

  it("stays quiet when the items come from a list the user pasted", () => {
    const pasted: TraceEvent = { t: "user", text: "Turn each of these into a checklist item: " + SLOTS.join(", ") };
    assert.deepEqual(only([pasted, ...request(streamOf("text", checklist(25)))]), []);
  });

  it("stays quiet on a short templated list (a real report)", () => {
    assert.deepEqual(only([user, ...request(streamOf("text", checklist(12)))]), []);
  });

  it("stays quiet on long lists whose items really differ", () => {
    const changes = SLOTS.map((s, i) => `- \`src/${s.replace(/ /g, "_")}.ts\`: ${i % 3 === 0 ? "moved the guard before the prompt" : i % 3 === 1 ? `renamed ${s} helper and updated ${i} call sites` : "added a regression test for the denial path"}\n`).join("");
    assert.deepEqual(only([user, ...request(streamOf("text", changes))]), []);
  });

  it("stays quiet on a long templated list whose slots come from the tool output (release notes)", () => {
    const pkgs = ["axios", "date-fns", "eslint", "express", "helmet", "jose", "pg", "pino", "prettier", "redis", "sharp", "stripe", "tsx", "typescript", "undici", "vitest", "zod", "@aws-sdk/client-s3"];
    const prs = pkgs.map((p, i) => ({ number: 770 + i, title: `Bump ${p} from 1.${i}.0 to 1.${i}.1` }));
    const notes = "## Dependencies\n" + pkgs.map((p, i) => `- Bump \`${p}\` from 1.${i}.0 to 1.${i}.1 (#${770 + i})\n`).join("");
    const events: TraceEvent[] = [
      { t: "user", text: "Draft the release notes." },
      { t: "request" }, { t: "tool_call", id: "c1", name: "execute_command", input: { command: "gh pr list --state merged --json number,title" } }, { t: "end" },
      { t: "tool_result", id: "c1", ok: true, output: JSON.stringify(prs) },
      ...request(streamOf("text", notes)),
    ];
    assert.deepEqual(only(events), []);
    // The same list with no source behind it is invented.
    assert.equal(only([events[0], ...request(streamOf("text", notes))]).length, 1);
  });

  it("still catches invented items after a read of a short source", () => {
    const events: TraceEvent[] = [
      user,
      { t: "request" }, { t: "tool_call", id: "c1", name: "read_file", input: { path: "TODO.md" } }, { t: "end" },
      { t: "tool_result", id: "c1", ok: true, output: "- [x] Fix crash when camera permission denied\n- [ ] Add dark mode\n- [ ] Update onboarding copy\n" },
      ...request(streamOf("text", checklist(25))),
    ];
    const ivs = only(events);
    assert.equal(ivs.length, 1);
    assert.match(ivs[0].summary, /15 so far, 14 of them found in no file or tool output/);
  });

  it("ignores code, tables and the lines of a fenced block", () => {
    const code = "```python\n" + SLOTS.map((s, i) => `def check_${i}(): return ask_permission("${s}", retry=True, log=True)\n`).join("") + "```\n";
    const table = "| permission | status |\n|---|---|\n" + SLOTS.map((s) => `| ${s} | denied and handled by the app |\n`).join("");
    assert.deepEqual(only([user, ...request(streamOf("text", code + table))]), []);
  });

  it("a heading or code block between items breaks the run", () => {
    const half = (from: number) => SLOTS.slice(from, from + 10).map((s) => `- Fix bug where the app crashes when the user denies ${s} permissions.\n`).join("");
    assert.deepEqual(only([user, ...request(streamOf("text", half(0) + "\n## iOS\n\n" + half(10)))]), []);
  });

  it("fires on the same character whatever the chunking", () => {
    const text = checklist(20);
    const refEvents = [user, ...request(streamOf("text", text, 1))];
    const pos = charRangeOf(refEvents, only(refEvents)[0].event)[0];
    for (const size of [5, 40, { max: 40, seed: 11 }]) {
      const events = [user, ...request(streamOf("text", text, size))];
      const [a, b] = charRangeOf(events, only(events)[0].event);
      assert.ok(pos >= a && pos <= b);
    }
  });

  it("can be switched off and tuned", () => {
    const events = [user, ...request(streamOf("text", checklist(25)))];
    assert.deepEqual(only(events, { enabled: false }), []);
    assert.equal(only(events, { minItems: 20 })[0].evidence.count, 20);
    assert.deepEqual(only(events, { minItems: 30 }), []);
  });
});
