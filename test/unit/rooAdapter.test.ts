/** Finding Roo-compatible hosts: installed or not, disabled, activating later, changed API, by shape. */
import * as assert from "node:assert/strict";
import type { HostStatus } from "../../src/hosts/hostAdapter";
import { createRooHostAdapters, type ExtensionLike, type ExtensionRegistry, type RooHostAdapter } from "../../src/hosts/roo/adapter";
import { fakeRoo, waitUntil } from "./rooTestKit";

class FakeExtension implements ExtensionLike {
  isActive = false;
  exports: unknown = undefined;
  activations = 0;
  constructor(readonly id: string, readonly packageJSON: ExtensionLike["packageJSON"], private readonly makeExports: () => unknown) {}
  activate(): Promise<unknown> {
    this.activations++;
    this.isActive = true;
    this.exports = this.makeExports();
    return Promise.resolve(this.exports);
  }
}

class FakeRegistry implements ExtensionRegistry {
  all: FakeExtension[] = [];
  private listeners: Array<() => void> = [];
  onDidChange(listener: () => void) {
    this.listeners.push(listener);
    return { dispose: () => { this.listeners = this.listeners.filter((l) => l !== listener); } };
  }
  change(): void { for (const l of this.listeners) l(); }
}

function setup(storage: string[] = []) {
  const registry = new FakeRegistry();
  const logs: string[] = [];
  const adapters = createRooHostAdapters({ extensions: registry, log: (l) => logs.push(l), storageExists: (f) => storage.includes(f) });
  const byId = (id: string) => adapters.find((a) => a.hostId === id) as RooHostAdapter;
  return { registry, adapters, byId, logs };
}

const rooPackage = { name: "roo-cline", displayName: "Roo Code", version: "3.52.1", publisher: "RooVeterinaryInc" };

describe("Roo host discovery", () => {
  it("nothing installed: every host says why it is not watched", async () => {
    const { adapters, byId } = setup(["kilocode.kilo-code"]);
    await Promise.all(adapters.map((a) => a.start()));
    assert.deepEqual(adapters.map((a) => a.hostId), ["roo-code", "roo-code-nightly", "kilo-code", "zoo-code", "costrict", "roo-compatible"]);
    assert.equal(byId("roo-code").status().state, "not-found");
    assert.match(byId("roo-code").status().detail, /Roo Code is not installed/);
    assert.match(byId("kilo-code").status().detail, /not enabled/, "storage left behind: installed once, now disabled");
    for (const a of adapters) a.dispose();
  });

  it("Roo Code installed but not yet active: activated, then watched; its events come through", async () => {
    const { registry, byId } = setup();
    const api = fakeRoo();
    const ext = new FakeExtension("RooVeterinaryInc.roo-cline", rooPackage, () => api);
    registry.all.push(ext);
    const roo = byId("roo-code");
    const statuses: HostStatus[] = [];
    roo.onStatusChange((s) => statuses.push(s));
    await roo.start();
    await waitUntil(() => roo.status().state === "watching");
    assert.equal(ext.activations, 1);
    assert.match(roo.status().detail, /watching Roo Code 3\.52\.1/);
    const events: string[] = [];
    roo.onEvent((e) => events.push(`${e.hostId}/${e.taskId}/${e.event.t}`));
    api.emit("message", { taskId: "t1", action: "created", message: { ts: 1, type: "say", say: "text", text: "Fix it" } });
    assert.deepEqual(events, ["roo-code/t1/user"]);
    assert.equal(roo.status().sessions, 1);
    assert.ok(statuses.length >= 1);
    roo.dispose();
    assert.equal(api.listenerCount("message"), 0);
  });

  for (const [hostId, id, label, folder] of [["zoo-code", "ZooCodeOrganization.zoo-code", "Zoo Code", "zoocodeorganization.zoo-code"], ["costrict", "zgsm-ai.zgsm", "CoStrict", "zgsm-ai.zgsm"]] as const) {
    it(`${label} (${id}) is known by name: its own host, label and storage folder`, async () => {
      const { registry, byId } = setup([folder]);
      const host = byId(hostId);
      const anyRoo = byId("roo-compatible");
      assert.equal(host.label, label);
      await host.start();
      await anyRoo.start();
      assert.match(host.status().detail, new RegExp(`${label} is not enabled`), "its storage folder is known");
      const api = fakeRoo();
      registry.all.push(new FakeExtension(id, { name: id.split(".")[1], displayName: label, version: "3.82.0", publisher: id.split(".")[0] }, () => api));
      await host.refresh();
      await anyRoo.refresh();
      await waitUntil(() => host.status().state === "watching");
      assert.match(host.status().detail, new RegExp(`watching ${label} 3\\.82\\.0`));
      assert.equal(anyRoo.status().state, "not-found", "not also taken as an unknown Roo-shaped extension");
      host.dispose();
      anyRoo.dispose();
    });
  }

  it("installed later: picked up on extensions.onDidChange; uninstalled: listeners removed", async () => {
    const { registry, byId } = setup();
    const roo = byId("roo-code");
    await roo.start();
    assert.equal(roo.status().state, "not-found");
    const api = fakeRoo();
    const ext = new FakeExtension("RooVeterinaryInc.roo-cline", rooPackage, () => api);
    await ext.activate();
    registry.all.push(ext);
    registry.change();
    await waitUntil(() => roo.status().state === "watching");
    assert.ok(api.listenerCount("message") > 0);
    registry.all = [];
    registry.change();
    await waitUntil(() => roo.status().state === "not-found");
    assert.equal(api.listenerCount("message"), 0);
    roo.dispose();
  });

  it("changed API: an export without cancelCurrentTask is an error that names what is missing", async () => {
    const { registry, byId } = setup();
    const ext = new FakeExtension("RooVeterinaryInc.roo-cline", rooPackage, () => ({ on() {}, off() {}, startNewTask() {}, sendMessage() {}, getCurrentTaskStack() {} }));
    await ext.activate();
    registry.all.push(ext);
    const roo = byId("roo-code");
    await roo.start();
    assert.equal(roo.status().state, "error");
    assert.match(roo.status().detail, /lacks cancelCurrentTask/);
    roo.dispose();
  });

  it("a reloaded host with a new API object is reconnected to the new one", async () => {
    const { registry, byId } = setup();
    let api = fakeRoo();
    const ext = new FakeExtension("RooVeterinaryInc.roo-cline", rooPackage, () => api);
    await ext.activate();
    registry.all.push(ext);
    const roo = byId("roo-code");
    await roo.start();
    const old = api;
    api = fakeRoo();
    await ext.activate();
    registry.change();
    await waitUntil(() => api.listenerCount("message") > 0);
    assert.equal(old.listenerCount("message"), 0);
    assert.equal(roo.status().state, "watching");
    roo.dispose();
  });

  it("Kilo Code 4–5 (Roo's API under its own id, with an extra cancelTask) is watched", async () => {
    const { registry, byId } = setup();
    const api = Object.assign(fakeRoo(), { cancelTask: async () => undefined });
    const ext = new FakeExtension("kilocode.kilo-code", { name: "kilo-code", displayName: "Kilo Code", version: "5.10.4" }, () => api);
    registry.all.push(ext);
    const kilo = byId("kilo-code");
    await kilo.start();
    await waitUntil(() => kilo.status().state === "watching");
    assert.match(kilo.status().detail, /Kilo Code 5\.10\.4/);
    const other = byId("roo-compatible");
    await other.start();
    assert.equal(other.status().state, "not-found", "a known host is not also counted as 'other'");
    other.dispose();
    kilo.dispose();
  });

  it("Kilo Code 7 (no exported API) is found but not watched, and says why", async () => {
    const { registry, byId } = setup();
    const ext = new FakeExtension("kilocode.kilo-code", { name: "kilo-code", displayName: "Kilo Code", version: "7.2.40" }, () => undefined);
    await ext.activate();
    registry.all.push(ext);
    const kilo = byId("kilo-code");
    await kilo.start();
    assert.equal(kilo.status().state, "error");
    assert.match(kilo.status().detail, /Kilo Code 7.*export no extension API/);
    kilo.dispose();
  });

  it("any other extension is watched by the shape of its exports, not by its id", async () => {
    const { registry, byId } = setup();
    const api = fakeRoo();
    const other = new FakeExtension("loop-sentinel-test.fake-roo", { name: "fake-roo", displayName: "Fake Roo" }, () => api);
    const unrelated = new FakeExtension("someone.markdown-tools", { name: "markdown-tools" }, () => ({ render() {} }));
    await other.activate();
    await unrelated.activate();
    registry.all.push(unrelated, other);
    const compatible = byId("roo-compatible");
    await compatible.start();
    assert.equal(compatible.status().state, "watching");
    assert.match(compatible.status().detail, /Fake Roo/);
    assert.equal(byId("roo-code").status().state, "not-found");
    compatible.dispose();
  });

  it("a Roo-shaped extension that activates after us is found by a later look", async function () {
    this.timeout(8000);
    const { registry, byId } = setup();
    const api = fakeRoo();
    const late = new FakeExtension("loop-sentinel-test.fake-roo", { name: "fake-roo", displayName: "Fake Roo" }, () => api);
    registry.all.push(late);
    const compatible = byId("roo-compatible");
    await compatible.start();
    assert.equal(compatible.status().state, "not-found");
    await late.activate(); // no VS Code event tells anyone
    await waitUntil(() => compatible.status().state === "watching", 5000, 50);
    compatible.dispose();
  });
});
