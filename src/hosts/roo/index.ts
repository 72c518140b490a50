/**
 * Roo Code, Roo Code Nightly, Kilo Code (4–5) and any extension exporting Roo Code's API: live
 * message stream in, cancel / guide / refuse out. The only file here that touches `vscode`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { HostAdapter, HostEnvironment } from "../hostAdapter";
import { createRooHostAdapters, type ExtensionRegistry } from "./adapter";
import { fileHoldStore } from "./autoApprovalHold";

export function createRooAdapters(env: HostEnvironment): HostAdapter[] {
  const extensions: ExtensionRegistry = {
    get all() { return vscode.extensions.all; },
    onDidChange: (listener) => vscode.extensions.onDidChange(listener),
  };
  return createRooHostAdapters({
    extensions,
    log: (line) => env.log(line),
    storageExists: (folder) => env.globalStorageRoot !== undefined && fs.existsSync(path.join(env.globalStorageRoot, folder)),
    globalStorageRoot: env.globalStorageRoot,
    hostSetting: (key) => vscode.workspace.getConfiguration().get(key),
    runCommand: (id) => Promise.resolve(vscode.commands.executeCommand(id)),
    holdStore: env.stateDir ? fileHoldStore(path.join(env.stateDir, "roo-auto-approval-holds.json")) : undefined,
  });
}
