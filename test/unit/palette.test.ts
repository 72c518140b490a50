import * as assert from "node:assert/strict";
import { COMMAND_TITLES, COMMAND_WHEN, COMMANDS } from "../../src/extension/commandIds";

describe("the Command Palette: one command per job (issue 36, point 8)", () => {
  it("the mode is chosen by one palette command; the two switches that did the same job are hidden", () => {
    const visible = (Object.keys(COMMANDS) as Array<keyof typeof COMMANDS>).filter((k) => COMMAND_WHEN[k] !== "false");
    const modeCommands = visible.filter((k) => /warn-only|intervene|intervening/i.test(COMMAND_TITLES[k]));
    assert.deepEqual(modeCommands, ["chooseMode"]);
  });
});
