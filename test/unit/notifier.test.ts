import * as assert from "node:assert/strict";
import { DISMISS, SHOW_DETAILS, TaskNotifier, toastFor, toastMarkdown, type ToastPick } from "../../src/extension/notifier";
import type { SessionSummary } from "../../src/extension/sessionManager";
import { clineRemedy } from "../../src/hosts/cline/remedy";

/** A fake notification area: live notifications whose text the notifier replaces, closed by it. */
function area() {
  const live: Array<{ texts: string[]; closed: boolean; onClose(): void }> = [];
  const linkFor = (key: string, version: number, pick: ToastPick) => `command:pick?${encodeURIComponent(JSON.stringify([key, version, pick]))}`;
  const notifier = new TaskNotifier((markdown, onClose) => {
    const n = { texts: [markdown], closed: false, onClose };
    live.push(n);
    return { update: (m) => { n.texts.push(m); }, close: () => { n.closed = true; } };
  }, linkFor);
  /** The links of a message: label → [key, version, pick]. */
  const links = (markdown: string) => new Map([...markdown.matchAll(/\[([^\]]+)\]\(command:pick\?([^)]+)\)/g)].map((m) => [m[1], JSON.parse(decodeURIComponent(m[2])) as [string, number, ToastPick]]));
  const click = (markdown: string, label: string) => { const l = links(markdown).get(label); assert.ok(l, `link ${label} in ${markdown}`); return notifier.pick(...l); };
  return { notifier, live, links, click };
}

const session: SessionSummary = { key: "cline:t1", hostId: "cline", hostLabel: "Cline", taskId: "t1", title: "List [the](command:x) files", replay: false };

describe("notifications: one per task, always current", () => {
  it("a question offers its step, Dismiss and Show details as links; its step acts", async () => {
    const { notifier, live, links, click } = area();
    const result = notifier.notify(toastFor(session, { phase: "asking", action: "abort" }));
    assert.equal(live.length, 1);
    assert.deepEqual([...links(live[0].texts[0]).keys()], ["Abort the response", DISMISS, SHOW_DETAILS]);
    assert.ok(click(live[0].texts[0], "Abort the response"));
    assert.equal(await result, "main");
    assert.equal(live[0].closed, true);
    assert.equal(notifier.openToasts().length, 0);
  });

  it("a later rung replaces the text of the same notification; the old question is answered 'replaced' and its link does nothing", async () => {
    const { notifier, live, links, click } = area();
    const first = notifier.notify(toastFor(session, { phase: "asking", action: "abort" }));
    const second = notifier.notify(toastFor(session, { phase: "asking", action: "stop" }));
    assert.equal(live.length, 1, "never a second notification for one task, never a queue");
    assert.equal(await first, "replaced");
    assert.equal(live[0].texts.length, 2);
    assert.deepEqual([...links(live[0].texts[1]).keys()], ["Stop the task", DISMISS, SHOW_DETAILS]);
    // A click on the old text's button (a race with the update) must not carry out the old rung.
    assert.equal(click(live[0].texts[0], "Abort the response"), false);
    assert.equal(notifier.openToasts().length, 1);
    assert.ok(click(live[0].texts[1], "Stop the task"));
    assert.equal(await second, "main");
  });

  it("refresh moves an open notification on to the latest state and never opens one", async () => {
    const { notifier, live, links } = area();
    const first = notifier.notify(toastFor(session, { phase: "failed", action: "abort" }));
    notifier.refresh(toastFor(session, { phase: "failed", action: "stop" }));
    assert.equal(await first, "replaced");
    assert.equal(live.length, 1);
    assert.match(live[0].texts.at(-1)!, /could not stop the task/);
    assert.doesNotMatch(live[0].texts.at(-1)!, /abort/);
    assert.deepEqual([...links(live[0].texts.at(-1)!).keys()], [SHOW_DETAILS], "a state with nothing to decide offers no action");
    notifier.refresh(toastFor({ ...session, key: "other" }, { phase: "failed", action: "stop" }));
    assert.equal(live.length, 1, "refresh opens nothing");
  });

  it("different tasks have a notification each; close() closes one", async () => {
    const { notifier, live } = area();
    const a = notifier.notify({ sessionKey: "a", severity: "info", text: "a" });
    void notifier.notify({ sessionKey: "b", severity: "info", text: "b" });
    assert.equal(live.length, 2);
    notifier.close("a");
    assert.equal(await a, "closed");
    assert.equal(live[0].closed, true);
    assert.deepEqual(notifier.openToasts().map((t) => t.sessionKey), ["b"]);
    notifier.dispose();
  });

  it("the notification's own close button answers it as closed (a question: dismissed)", async () => {
    const { notifier, live } = area();
    const result = notifier.notify(toastFor(session, { phase: "asking", action: "stop" }));
    live[0].onClose();
    assert.equal(await result, "closed");
    assert.equal(notifier.openToasts().length, 0);
  });

  it("a show function that throws counts as closed", async () => {
    const notifier = new TaskNotifier(() => { throw new Error("no UI"); }, () => "command:x");
    assert.equal(await notifier.notify({ sessionKey: "a", severity: "info", text: "x" }), "closed");
    assert.equal(notifier.openToasts().length, 0);
  });

  it("a task title cannot inject a link", () => {
    const md = toastMarkdown(toastFor(session, { phase: "done", action: "stop" }), 1, () => "command:pick");
    assert.doesNotMatch(md, /\]\(command:x\)/);
  });

  it("a Cline task seen only through its files: the one offer is the hook, in plain words, never a failing step", () => {
    const remedy = clineRemedy({ hookInstalled: false, extensionInstalled: false, taskFile: "/home/u/.cline/data/sessions/s1/s1.messages.json" });
    const toast = toastFor(session, { phase: "unavailable", action: "abort", remedy });
    assert.equal(toast.mainAction, "Install the Cline hook");
    assert.equal(toast.question, undefined);
    assert.match(toast.text, /cannot act on this task from here/);
    assert.match(toast.text, /loop-sentinel watch --cline-data \/home\/u\/\.cline\/data --interrupt/);
    assert.doesNotMatch(toast.text, /Abort the response|stopped|API|PreToolUse|rung/);
    const installed = toastFor(session, { phase: "unavailable", action: "stop", remedy: clineRemedy({ hookInstalled: true, extensionInstalled: true }) });
    assert.equal(installed.mainAction, undefined, "nothing to offer once the hook is in");
  });
});
