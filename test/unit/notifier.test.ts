import * as assert from "node:assert/strict";
import { SHOW_DETAILS, TaskNotifier, type ToastSeverity } from "../../src/extension/notifier";

/** A fake notification area: each shown toast waits until the test closes it with a button (or none). */
function area() {
  const shown: Array<{ severity: ToastSeverity; text: string; buttons: string[]; close(pick?: string): void }> = [];
  const notifier = new TaskNotifier((severity, text, buttons) => new Promise((resolve) => shown.push({ severity, text, buttons, close: resolve })));
  return { notifier, shown };
}
const tick = () => new Promise((r) => setImmediate(r));

describe("notifications: one per task at a time", () => {
  it("shows the first at once with one main action and Show Details", async () => {
    const { notifier, shown } = area();
    const result = notifier.notify({ sessionKey: "a", severity: "warning", text: "asking", mainAction: "Stop the task" });
    assert.equal(shown.length, 1);
    assert.deepEqual(shown[0].buttons, ["Stop the task", SHOW_DETAILS]);
    shown[0].close("Stop the task");
    assert.equal(await result, "main");
    assert.equal(notifier.openToasts().length, 0);
  });

  it("a newer state for the same task waits, replacing an older one waiting, and shows when the open one closes", async () => {
    const { notifier, shown } = area();
    const first = notifier.notify({ sessionKey: "a", severity: "warning", text: "abort?", mainAction: "Abort the response" });
    const second = notifier.notify({ sessionKey: "a", severity: "warning", text: "stop?", mainAction: "Stop the task" });
    const third = notifier.notify({ sessionKey: "a", severity: "error", text: "stopped" });
    assert.equal(shown.length, 1, "never two at once for one task");
    assert.equal(await second, "replaced", "a question replaced before it showed is answered as replaced");
    assert.equal(notifier.waitingToast("a")?.text, "stopped");
    shown[0].close(undefined);
    assert.equal(await first, "closed");
    await tick();
    assert.equal(shown.length, 2);
    assert.equal(shown[1].text, "stopped");
    assert.deepEqual(shown[1].buttons, [SHOW_DETAILS]);
    assert.equal(notifier.openToasts().length, 1);
    shown[1].close(SHOW_DETAILS);
    assert.equal(await third, "details");
    assert.deepEqual(notifier.shown.map((s) => s.text), ["abort?", "stopped"]);
  });

  it("different tasks do not wait for each other", () => {
    const { notifier, shown } = area();
    void notifier.notify({ sessionKey: "a", severity: "info", text: "a" });
    void notifier.notify({ sessionKey: "b", severity: "info", text: "b" });
    assert.equal(shown.length, 2);
    assert.deepEqual(notifier.openToasts().map((t) => t.sessionKey).sort(), ["a", "b"]);
  });

  it("a show function that throws or rejects counts as closed and lets the next one through", async () => {
    let calls = 0;
    const notifier = new TaskNotifier(() => { calls++; if (calls === 1) throw new Error("no UI"); return Promise.reject(new Error("gone")); });
    assert.equal(await notifier.notify({ sessionKey: "a", severity: "info", text: "x" }), "closed");
    assert.equal(await notifier.notify({ sessionKey: "a", severity: "info", text: "y" }), "closed");
    assert.equal(notifier.openToasts().length, 0);
  });
});
