/** Shared helpers of the integration suite (runs inside the extension host). */
import * as assert from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { LoopSentinelApi } from "../../../src/extension/extension";
import type { RenderReport } from "../../../src/extension/diagnosticsPanel";

export const EXTENSION_ID = "loop-sentinel.loop-sentinel";
// Bundled into out/integration-suite/ (the runner also passes the root explicitly).
export const ROOT = process.env.LS_TEST_ROOT ?? path.resolve(__dirname, "../..");
export const ARTIFACTS = process.env.LS_TEST_ARTIFACTS ?? path.join(ROOT, "test-artifacts");

export function fixture(...parts: string[]): string {
  return path.join(ROOT, "test/integration/fixtures", ...parts);
}

export async function loopSentinel(): Promise<LoopSentinelApi> {
  const ext = vscode.extensions.getExtension<LoopSentinelApi>(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is installed`);
  return ext.isActive ? ext.exports : ext.activate();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls until the check returns a truthy value; fails with the description after the timeout. */
export async function waitFor<T>(what: string, check: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** Resolves with the first panel render report that satisfies the predicate (subscribe before acting). */
export function nextRender(api: LoopSentinelApi, predicate: (r: RenderReport) => boolean, timeoutMs = 15_000): Promise<RenderReport> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { sub.dispose(); reject(new Error(`the diagnostics webview did not render the expected state in ${timeoutMs} ms`)); }, timeoutMs);
    const sub = api.onDidRenderPanel((r) => {
      if (!predicate(r)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(r);
    });
  });
}

/**
 * Asks the runner for a screenshot of the whole workbench and waits until it is written.
 * Toasts would cover the panel: they are cleared first, as a user reading the panel would, unless kept.
 */
export async function screenshot(name: string, hoverStatusBarText?: string, options: { keepToasts?: boolean; clipEditor?: boolean } = {}): Promise<string> {
  // Hidden, not closed: an open question stays open (it is in the notification centre).
  if (!options.keepToasts) await vscode.commands.executeCommand("notifications.hideToasts");
  await sleep(300);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, name);
  fs.rmSync(file, { force: true });
  console.log(`__SCREENSHOT__ ${file}${hoverStatusBarText ? ` hover=${hoverStatusBarText}` : options.clipEditor ? " clip=editor" : ""}`);
  await waitFor(`screenshot ${name}`, () => fs.existsSync(file), 15_000);
  return file;
}

export async function setSetting(key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration("loopSentinel").update(key, value, vscode.ConfigurationTarget.Global);
}

export function openTabLabels(): string[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => t.label));
}

export async function closeAllEditors(): Promise<void> {
  await vscode.commands.executeCommand("workbench.action.closeAllEditors");
}

/** Asks the runner to put keyboard focus on an element of an open webview (by CSS selector). */
export async function focusInWebview(selector: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const marker = path.join(ARTIFACTS, `.focus-${Date.now()}`);
  console.log(`__FOCUS__ ${selector} ${marker}`);
  await waitFor(`focus on ${selector}`, () => fs.existsSync(marker), 15_000);
  const said = fs.readFileSync(marker, "utf8");
  fs.rmSync(marker, { force: true });
  if (said !== "focused") throw new Error(`no ${selector} in any webview`);
}

/** Asks the runner to resize the browser window (the workbench follows) and waits until it has. */
export async function setViewport(width: number, height: number): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const marker = path.join(ARTIFACTS, `.viewport-${width}x${height}`);
  fs.rmSync(marker, { force: true });
  console.log(`__VIEWPORT__ ${width}x${height} ${marker}`);
  await waitFor(`viewport ${width}x${height}`, () => fs.existsSync(marker), 15_000);
  fs.rmSync(marker, { force: true });
  await sleep(500);
}
