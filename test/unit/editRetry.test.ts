import * as assert from "node:assert/strict";
import { LoopSession } from "../../src/engine/session";
import type { TraceEvent } from "../../src/engine/events";
import { step } from "./toolTestKit";

const feed = (events: TraceEvent[], config?: ConstructorParameters<typeof LoopSession>[0]) => {
  const s = new LoopSession(config);
  return events.flatMap((e) => s.push(e));
};
const diff = (search: string, replace: string) => `<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE`;
const notFound = "No sufficiently similar match found (62% similar, needs 100%). The SEARCH block must exactly match existing content.";

describe("edit-retry", () => {
  const wrongSearch = "export function Modal({ isOpen, onClose }: ModalProps) {";
  const replacements = ["open", "open: isOpenProp", "open = false", "open ", "open /* renamed */"];
  const retries = (n: number): TraceEvent[] => [
    { t: "user", text: "rename isOpen to open" },
    ...replacements.slice(0, n).flatMap((r, i) =>
      step(`d${i}`, "apply_diff", { path: "src/Modal.tsx", diff: diff(wrongSearch, `export function Modal({ ${r}, onClose }: ModalProps) {`) }, false, notFound)),
  ];

  it("warns on the third attempt of a failing edit whose replacement varies, then blocks it", () => {
    const ivs = feed(retries(5)).filter((iv) => iv.detector === "edit-retry");
    assert.equal(ivs[0].action, "warn");
    assert.equal(ivs[0].evidence.count, 3);
    assert.equal(ivs[0].evidence.path, "src/Modal.tsx");
    const block = ivs.find((iv) => iv.action === "block");
    assert.equal(block?.toolCallId, "d3");
  });

  it("is quiet for one retry", () => {
    assert.deepEqual(feed(retries(2)).filter((iv) => iv.detector === "edit-retry"), []);
  });

  it("starts over once the file was changed by another edit", () => {
    const evs = retries(2);
    evs.push(...step("ok", "write_to_file", { path: "src/Modal.tsx", content: "x" }, true, "written"));
    evs.push(...retries(3).slice(1 + 8));
    assert.deepEqual(feed(evs).filter((iv) => iv.detector === "edit-retry"), []);
  });

  it("keys Cline replace_in_file and Claude Edit by path and search text", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "x" }];
    for (let i = 0; i < 3; i++) evs.push(...step(`r${i}`, "Edit", { file_path: "/r/a.ts", old_string: "const a = 1", new_string: `const a = ${i + 2}` }, false, "String to replace not found in file."));
    const ivs = feed(evs).filter((iv) => iv.detector === "edit-retry");
    assert.equal(ivs.length, 1);
    assert.equal(ivs[0].toolCallId, undefined);
    assert.equal(ivs[0].action, "warn");
  });

  it("does not count edits of different targets in the same file", () => {
    const evs: TraceEvent[] = [{ t: "user", text: "x" }];
    for (let i = 0; i < 4; i++) evs.push(...step(`r${i}`, "replace_in_file", { path: "a.ts", diff: `------- SEARCH\nline ${i}\n=======\nnew ${i}\n+++++++ REPLACE` }, false, "The SEARCH block does not match anything in the file"));
    assert.deepEqual(feed(evs).filter((iv) => iv.detector === "edit-retry"), []);
  });
});

describe("edit-retry over parallel batches", () => {
  it("counts the same failing edit sent twice in one response as one attempt", async () => {
    const { feedOnly } = await import("./toolTestKit");
    const edit = (id: string): TraceEvent => ({ t: "tool_call", id, name: "replace_in_file", input: { path: "src/modal.tsx", diff: "<<<<<<< SEARCH\ntype ModalProps = {\n=======\ntype ModalProps = { open: boolean\n>>>>>>> REPLACE" } });
    const fail = (id: string): TraceEvent => ({ t: "tool_result", id, ok: false, error: "The SEARCH block does not match anything in the file." });
    const response = (r: number): TraceEvent[] => [{ t: "request" }, edit(`a${r}`), edit(`b${r}`), { t: "end" }, fail(`a${r}`), fail(`b${r}`)];
    assert.deepEqual(feedOnly("edit-retry", [{ t: "user", text: "x" }, ...response(0), ...response(1)]).map((i) => i.evidence.count), []);
    assert.equal(feedOnly("edit-retry", [{ t: "user", text: "x" }, ...response(0), ...response(1), ...response(2)])[0]?.evidence.count, 3);
  });
});
