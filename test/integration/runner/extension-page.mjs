#!/usr/bin/env node
// Checks the page the Extensions view shows for the packed VSIX, as a user sees it: installs
// loop-sentinel-<version>.vsix into a throwaway code-server (no network), opens the installed
// extension's page with the mouse, and fails unless its README's picture loaded (VS Code's README
// webview loads images from https: and data: only; the package inlines the picture for that).
// Writes test-artifacts/extension-page.png. Needs test/integration/runner/install-host.sh and
// `npm run package` first. env: CODE_SERVER, CHROMIUM, TIMEOUT_MS (300000), KEEP_TMP=1.
import { spawn, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const CODE_SERVER = process.env.CODE_SERVER || path.join(root, ".vscode-test/host/bin/code-server");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const TIMEOUT_MS = Number(process.env.TIMEOUT_MS || 300_000);
const vsix = path.join(root, `${pkg.name}-${pkg.version}.vsix`);
const artifacts = path.join(root, "test-artifacts");
for (const [what, file] of [["code-server", CODE_SERVER], ["Chromium", CHROMIUM], ["the VSIX (npm run package)", vsix]]) {
  if (!fs.existsSync(file)) { console.error(`extension-page: no ${what} at ${file}`); process.exit(1); }
}

const PORT = await new Promise((resolve, reject) => {
  const probe = net.createServer().once("error", reject).listen(0, "127.0.0.1", () => { const { port } = probe.address(); probe.close(() => resolve(port)); });
});
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ls-extpage-"));
const dir = (d) => { const p = path.join(tmp, d); fs.mkdirSync(p, { recursive: true }); return p; };
fs.writeFileSync(path.join(dir("user-data/User"), "settings.json"), JSON.stringify({
  "workbench.startupEditor": "none", "telemetry.telemetryLevel": "off", "update.mode": "none",
  "extensions.autoUpdate": false, "extensions.autoCheckUpdates": false, "workbench.tips.enabled": false,
}));
fs.writeFileSync(path.join(tmp, "config.yaml"), `bind-addr: 127.0.0.1:${PORT}\nauth: none\ncert: false\n`);
const csArgs = ["--config", path.join(tmp, "config.yaml"), "--user-data-dir", path.join(tmp, "user-data"), "--extensions-dir", dir("extensions")];
const env = { ...process.env, TMPDIR: dir("tmp"), XDG_DATA_HOME: dir("xdg"), XDG_CONFIG_HOME: dir("xdg"), XDG_CACHE_HOME: dir("xdg") };
execFileSync(CODE_SERVER, [...csArgs, "--install-extension", vsix], { stdio: ["ignore", "ignore", "inherit"], env });
const server = spawn(CODE_SERVER, [...csArgs, "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust", dir("workspace")], { stdio: "ignore", detached: true, env });

let ok = false;
let browser;
const timer = setTimeout(() => { console.error(`extension-page: no result in ${TIMEOUT_MS} ms`); process.exit(1); }, TIMEOUT_MS);
try {
  for (const deadline = Date.now() + 60_000; ;) {
    const up = await new Promise((r) => http.get(`http://127.0.0.1:${PORT}/healthz`, (res) => { res.resume(); r(res.statusCode === 200); }).on("error", () => r(false)));
    if (up) break;
    if (Date.now() > deadline) throw new Error("code-server did not start in 60 s");
    await new Promise((r) => setTimeout(r, 250));
  }
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`http://127.0.0.1:${PORT}/?folder=${encodeURIComponent(path.join(tmp, "workspace"))}`, { waitUntil: "domcontentloaded", timeout: 120_000 });
  await page.waitForSelector(".activitybar", { timeout: 120_000 });
  // What a user does: the Extensions view, the installed list, a click on Loop Sentinel.
  await page.keyboard.press("Control+Shift+X");
  const search = page.locator(".extensions-viewlet .suggest-input-container textarea, .extensions-viewlet input").first();
  await search.waitFor({ timeout: 60_000 });
  await search.fill(`@installed ${pkg.displayName}`);
  await page.locator(".extensions-viewlet .monaco-list-row").filter({ hasText: pkg.displayName }).first().click({ timeout: 60_000 });
  let images = [];
  for (const deadline = Date.now() + 60_000; Date.now() < deadline && !ok;) {
    await page.waitForTimeout(500);
    images = [];
    for (const frame of page.frames()) {
      images.push(...await frame.evaluate(() => Array.from(document.images, (i) => ({ alt: i.alt, src: i.src.slice(0, 32), width: i.naturalWidth, loaded: i.complete && i.naturalWidth > 0 }))).catch(() => []));
    }
    // The README's pictures are the images with a description (the page's own icons have none or the name).
    ok = images.some((i) => i.alt.length > 20 && i.loaded && i.width > 100);
  }
  fs.mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, "extension-page.png") });
  const pictures = images.filter((i) => i.alt.length > 20);
  console.log(`extension-page: ${ok ? "the README's picture rendered" : "FAILED: the README's picture did not render"}: ${JSON.stringify(pictures)}`);
  // Issue 36, point 7: the page around the README. The header's description names the agents guarded,
  // no link goes to a placeholder, and the Changelog tab is the users' one.
  const header = await page.locator(".extension-editor > .header").first().innerText({ timeout: 10_000 }).catch(() => "");
  const missing = ["Roo Code", "Kilo Code", "Cline", "opencode", "Claude Code", "Copilot", "Codex"].filter((a) => !header.includes(a));
  if (missing.length) { ok = false; console.log(`extension-page: FAILED: the description does not name ${missing.join(", ")}: ${JSON.stringify(header.slice(0, 400))}`); }
  const placeholder = (await page.content()).includes("example.invalid");
  if (placeholder) { ok = false; console.log("extension-page: FAILED: a link goes to example.invalid"); }
  await page.locator(".extension-editor .navbar .action-label, .extension-editor .navbar a").filter({ hasText: /^Changelog$/ }).first().click({ timeout: 15_000 }).catch((e) => console.log(`extension-page: no Changelog tab (${e.message.split("\n")[0]})`));
  let changelog = "";
  for (const deadline = Date.now() + 30_000; Date.now() < deadline && !/What's new in Loop Sentinel/.test(changelog);) {
    await page.waitForTimeout(500);
    changelog = "";
    for (const frame of page.frames()) changelog += await frame.evaluate(() => document.body?.innerText ?? "").catch(() => "");
  }
  const userChangelog = /What's new in Loop Sentinel/.test(changelog) && !/issue \d+|G instructions|fingerprint/i.test(changelog);
  if (!userChangelog) { ok = false; console.log("extension-page: FAILED: the Changelog tab is not the users' changelog"); }
  await page.screenshot({ path: path.join(artifacts, "extension-page-changelog.png") });
  console.log(`extension-page: description names every agent: ${missing.length === 0}; placeholder links: ${placeholder}; users' changelog: ${userChangelog}`);
} catch (err) {
  console.error("extension-page:", err);
} finally {
  clearTimeout(timer);
  await browser?.close().catch(() => {});
  const kill = (sig) => { try { process.kill(-server.pid, sig); } catch { /* gone */ } };
  kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 2000));
  kill("SIGKILL");
  if (!process.env.KEEP_TMP) fs.rmSync(tmp, { recursive: true, force: true });
}
process.exit(ok ? 0 : 1);
