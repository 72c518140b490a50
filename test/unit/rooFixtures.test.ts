/** The recorded Roo streams and task folders are in the exact shapes of @roo-code/types. */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { TASKS, loadStream, streamNames } from "./rooTestKit";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const types = require("@roo-code/types") as {
  clineMessageSchema: { safeParse(v: unknown): { success: boolean; error?: { message: string } } };
  rooCodeEventsSchema: { shape: Record<string, { safeParse(v: unknown): { success: boolean; error?: { message: string } } }> };
};

describe("Roo fixtures against @roo-code/types", () => {
  it("has the four scripted scenarios and the streams replayed from the real Roo", () => {
    const names = streamNames();
    for (const n of ["productive", "reasoning-loop", "tool-loop-approval", "tool-loop-auto"]) assert.ok(names.includes(n), n);
    // The fake Roo must also replay what the real Roo 3.52.1 emitted (issue 15), not only scripted streams.
    assert.ok(names.filter((n) => n.startsWith("real-")).length >= 3, names.join(", "));
  });

  for (const name of streamNames()) {
    it(`${name}: every event matches rooCodeEventsSchema`, () => {
      const f = loadStream(name);
      assert.ok(f.events.length > 10);
      f.events.forEach((e, i) => {
        const schema = types.rooCodeEventsSchema.shape[e.name];
        assert.ok(schema, `event ${i}: "${e.name}" is not a Roo event name`);
        const r = schema.safeParse(e.args);
        assert.ok(r.success, `event ${i} (${e.name}): ${r.error?.message}`);
      });
    });
  }

  for (const id of fs.readdirSync(TASKS)) {
    it(`task folder ${id.slice(0, 8)}: ui_messages.json matches clineMessageSchema`, () => {
      const messages = JSON.parse(fs.readFileSync(path.join(TASKS, id, "ui_messages.json"), "utf8")) as unknown[];
      assert.ok(messages.length >= 3);
      messages.forEach((m, i) => {
        const r = types.clineMessageSchema.safeParse(m);
        assert.ok(r.success, `message ${i}: ${r.error?.message}`);
      });
    });
  }

  it("the schema check can fail: a message with an unknown say kind is rejected", () => {
    assert.equal(types.clineMessageSchema.safeParse({ ts: 1, type: "say", say: "thinking_out_loud", text: "x" }).success, false);
  });
});
