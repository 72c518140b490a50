import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { agentPickItems, agentPresence, presentAgents } from "../../src/hosts/hookAgents/presence";
import { hostLines } from "../../src/extension/statusView";
import { emptyStateText } from "../../src/extension/panelWords";
import { COMMAND_TITLES } from "../../src/extension/commandIds";
import { INSTALL_COMMAND_TITLE } from "../../src/hosts/hookAgents";

describe("hook agents are named only when they are there (issue 36, point 3)", () => {
  let home: string;
  let bin: string;
  let env: NodeJS.ProcessEnv;
  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), "ls-presence-"));
    bin = path.join(home, "bin");
    fs.mkdirSync(bin);
    env = { HOME: home, PATH: bin };
  });
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  it("the tooltip names the install command as the palette does", () => {
    assert.equal(INSTALL_COMMAND_TITLE, COMMAND_TITLES.installAgentHook);
  });

  it("none installed: none present", () => {
    assert.deepEqual(presentAgents({ env, extensionInstalled: () => false, hookInstalled: () => false }), []);
  });

  it("a home folder, a command on the PATH, an extension or the hook each make one present", () => {
    fs.mkdirSync(path.join(home, ".codex"));
    fs.writeFileSync(path.join(bin, "claude"), "#!/bin/sh\n", { mode: 0o755 });
    assert.equal(agentPresence("codex", { env }), "home");
    assert.equal(agentPresence("claude", { env }), "command");
    assert.equal(agentPresence("copilot", { env }), undefined);
    assert.equal(agentPresence("copilot", { env, extensionInstalled: (id) => id === "github.copilot-chat" }), "extension");
    assert.equal(agentPresence("copilot", { env, hookInstalled: (a) => a === "copilot" }), "hook");
    assert.deepEqual(presentAgents({ env }), ["claude", "codex"]);
  });

  it("the install picker ticks only the agents found here", () => {
    const items = agentPickItems(["claude", "copilot", "codex"], ["codex"]);
    assert.deepEqual(items.map((i) => [i.label, i.picked]), [["Claude Code", false], ["GitHub Copilot CLI", false], ["Codex", true]]);
    assert.deepEqual(agentPickItems(["claude", "copilot", "codex"], []).filter((i) => i.picked), [], "none found: none ticked");
  });

  it("a file that is not executable is not a command", () => {
    fs.writeFileSync(path.join(bin, "claude"), "not a program", { mode: 0o644 });
    assert.equal(agentPresence("claude", { env }), undefined);
  });

  it("an agent not found is in the tooltip's 'Not installed' line and never in the panel's 'Watching'", () => {
    const hosts = [
      { hostId: "cline", label: "Cline", state: "not-found" as const, detail: "", sessions: 0 },
      { hostId: "agent-hooks", label: "Claude Code / Copilot CLI / Codex", state: "not-found" as const, detail: "", sessions: 0 },
    ];
    assert.doesNotMatch(hostLines(hosts), /found, not connected/);
    const found = hosts.filter((h) => h.state !== "not-found").map((h) => h.label);
    assert.match(emptyStateText({ found, watching: [] }), /^No supported agent is installed/);
  });
});
