#!/usr/bin/env node
// Runs the integration suite (test/integration/suite, @vscode/test-electron's run() contract) inside a
// real VS Code extension host: code-server 4.100.3 driven by Debian's headless Chromium through
// playwright-core. Desktop VS Code / Electron cannot be downloaded here; where they can, the same suite
// runs under @vscode/test-electron (see test/integration/runner/electron.mjs).
//
// What it does: packs the extension under test from its VSIX (so the test sees exactly what users
// install), packs the test-only fake Roo extension into its own VSIX and installs it, starts
// code-server in a throwaway profile, opens the workbench with the extensionDevelopmentPath /
// extensionTestsPath payload, forwards the suite's output, takes the screenshots the suite asks for,
// and exits with the suite's result.
//
// env: CODE_SERVER (default .vscode-test/host/bin/code-server), CHROMIUM (/usr/bin/chromium),
//      PORT (default: a free one), TIMEOUT_MS (600000), KEEP_TMP=1, DEBUG_PAGE=1, LS_GREP (mocha grep);
//      for other suites in the same host (test/e2e/roo/run.mjs): LS_SUITE_DIR (the bundled suite),
//      LS_EXTRA_VSIX (more VSIXs to install, ':'-separated: the real Roo), LS_NO_FAKE_ROO=1, LS_ARTIFACTS.
import { spawn, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { format } from "node:util";
import { chromium } from "playwright-core";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const CODE_SERVER = process.env.CODE_SERVER || path.join(root, ".vscode-test/host/bin/code-server");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
// A free port unless one is given: parallel runs (other checkouts, CI) must not meet each other's server.
const PORT = Number(process.env.PORT) || await new Promise((resolve, reject) => {
  const probe = net.createServer().once("error", reject).listen(0, "127.0.0.1", () => { const { port } = probe.address(); probe.close(() => resolve(port)); });
});
const TIMEOUT_MS = Number(process.env.TIMEOUT_MS || 600_000);
const artifacts = process.env.LS_ARTIFACTS || path.join(root, "test-artifacts");
const vsix = path.join(root, `${pkg.name}-${pkg.version}.vsix`);
const suiteIndex = path.join(process.env.LS_SUITE_DIR || path.join(root, "out/integration-suite"), "index.js");
const fakeRooDir = path.join(root, "test/integration/fake-roo");
const vsceBin = path.join(root, "node_modules/.bin/vsce");

function fail(message) {
  console.error(`run-integration: ${message}`);
  process.exit(1);
}
if (!fs.existsSync(CODE_SERVER)) fail(`no code-server at ${CODE_SERVER}: run test/integration/runner/install-host.sh first`);
if (!fs.existsSync(CHROMIUM)) fail(`no Chromium at ${CHROMIUM}: run test/integration/runner/install-host.sh first`);
if (!fs.existsSync(vsix)) fail(`no ${path.basename(vsix)}: run npm run package first`);
if (!fs.existsSync(suiteIndex)) fail(`no ${path.relative(root, suiteIndex)}: run node test/integration/runner/build-suite.mjs first`);

fs.mkdirSync(artifacts, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ls-itest-"));
const dirs = Object.fromEntries(["user-data/User", "extensions", "workspace", "tmp", "xdg-data", "xdg-config", "xdg-cache", "ext", "home"].map((d) => [d, path.join(tmp, d)]));
for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });

// The extension under test, unpacked from its VSIX: a file missing from the package fails the suite.
execFileSync("unzip", ["-q", vsix, "extension/*", "-d", dirs.ext]);
const extensionDevelopmentPath = path.join(dirs.ext, "extension");

fs.writeFileSync(path.join(dirs["user-data/User"], "settings.json"), JSON.stringify({
  "workbench.startupEditor": "none", "telemetry.telemetryLevel": "off", "update.mode": "none",
  "extensions.autoUpdate": false, "extensions.autoCheckUpdates": false, "security.workspace.trust.enabled": false,
  "git.enabled": false, "chat.disableAIFeatures": true, "workbench.secondarySideBar.defaultVisibility": "hidden",
  "workbench.tips.enabled": false, "window.commandCenter": false,
  // A Cline data folder the suite writes tasks into (it does not exist until then: no Cline at start).
  "loopSentinel.cline.dataFolders": [path.join(tmp, "cline-data")],
}, null, 2));
const configFile = path.join(tmp, "config.yaml");
fs.writeFileSync(configFile, `bind-addr: 127.0.0.1:${PORT}\nauth: none\ncert: false\n`);
const csArgs = ["--config", configFile, "--user-data-dir", path.join(tmp, "user-data"), "--extensions-dir", dirs.extensions];
// Everything code-server and the extension host write (sockets, logs, heartbeat) stays in the run's temp dir.
const csEnv = {
  ...process.env, TMPDIR: dirs.tmp, XDG_DATA_HOME: dirs["xdg-data"], XDG_CONFIG_HOME: dirs["xdg-config"], XDG_CACHE_HOME: dirs["xdg-cache"],
  LS_TEST_ROOT: root, LS_TEST_ARTIFACTS: artifacts, LS_TEST_WORKSPACE: dirs.workspace, LS_TEST_USER_DATA: path.join(tmp, "user-data"),
  LS_TEST_CLINE_DATA: path.join(tmp, "cline-data"),
  // A home of the run's own: the machine's agents (a ~/.claude of the person running the suite) are
  // not this profile's, and the suite asserts what a user with none of them installed sees.
  HOME: path.join(tmp, "home"),
  // The Cline hook channel of this run only: parallel runs never answer each other's hooks.
  LOOP_SENTINEL_CHANNEL_DIR: path.join(tmp, "hook-channel"),
};

for (const extra of (process.env.LS_EXTRA_VSIX || "").split(":").filter(Boolean)) {
  const t = Date.now();
  execFileSync(CODE_SERVER, [...csArgs, "--install-extension", extra], { stdio: ["ignore", "ignore", "inherit"], env: csEnv });
  console.log(`run-integration: installed ${path.basename(extra)} in ${Date.now() - t} ms`);
}

// The test-only fake Roo extension gets its own VSIX and is installed like any other extension.
if (process.env.LS_NO_FAKE_ROO) {
  console.log("run-integration: no fake Roo in this run");
} else if (fs.existsSync(path.join(fakeRooDir, "package.json"))) {
  const fakeVsix = path.join(tmp, "fake-roo.vsix");
  execFileSync(vsceBin, ["package", "--no-dependencies", "--allow-missing-repository", "--skip-license", "-o", fakeVsix], { cwd: fakeRooDir, stdio: ["ignore", "ignore", "inherit"] });
  execFileSync(CODE_SERVER, [...csArgs, "--install-extension", fakeVsix], { stdio: "inherit", env: csEnv });
  csEnv.LS_TEST_FAKE_ROO = "1";
} else {
  console.log("run-integration: test/integration/fake-roo not present; detection tests will be skipped");
}

const started = Date.now();
const server = spawn(CODE_SERVER, [...csArgs, "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
  "--disable-getting-started-override", dirs.workspace], { stdio: ["ignore", "pipe", "pipe"], detached: true, env: csEnv });
const serverExited = new Promise((resolve) => server.on("exit", resolve));
const serverLog = fs.createWriteStream(path.join(artifacts, "code-server.log"));
server.stdout.pipe(serverLog);
server.stderr.pipe(serverLog);

function waitForHealth(deadline) {
  return new Promise((resolve, reject) => {
    const tick = () => http.get(`http://127.0.0.1:${PORT}/healthz`, (res) => { res.resume(); if (res.statusCode === 200) resolve(); else retry(); }).on("error", retry);
    const retry = () => (Date.now() > deadline ? reject(new Error("code-server did not start in 30 s")) : setTimeout(tick, 250));
    tick();
  });
}

let exitCode = 1;
let browser;
try {
  await waitForHealth(Date.now() + 30_000);
  const authority = `127.0.0.1:${PORT}`;
  const payload = [
    ["extensionDevelopmentPath", `vscode-remote://${authority}${extensionDevelopmentPath}`],
    ["extensionTestsPath", `vscode-remote://${authority}${suiteIndex}`],
  ];
  const url = `http://${authority}/?folder=${encodeURIComponent(dirs.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  browser = await chromium.launchPersistentContext(path.join(tmp, "chromium-profile"), {
    executablePath: CHROMIUM, headless: true, viewport: { width: 1280, height: 800 },
    env: { ...process.env, XDG_CONFIG_HOME: dirs["xdg-config"], XDG_CACHE_HOME: dirs["xdg-cache"] },
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  const shots = [];
  // The suite asks for a screenshot by logging "__SCREENSHOT__ /abs/file.png" and waiting for the file.
  // "__SCREENSHOT__ file.png hover=Text" first hovers the status bar item showing Text (its tooltip).
  // "__SCREENSHOT__ file.png clip=editor": only the editor area (the walkthrough's picture of the panel).
  const takeShot = async (file, hoverText) => {
    const clipEditor = hoverText === "clip=editor";
    if (clipEditor) hoverText = undefined;
    const part = `${file}.part.png`;
    if (hoverText) {
      await page.locator("#workbench\\.parts\\.statusbar .statusbar-item").filter({ hasText: hoverText }).first().hover();
      await page.locator(".monaco-hover, .workbench-hover").first().waitFor({ timeout: 5000 }).catch(() => console.error("no hover appeared"));
      await page.waitForTimeout(300);
    }
    const clip = clipEditor ? await page.locator("#workbench\\.parts\\.editor").boundingBox() : null;
    await page.screenshot({ path: part, ...(clip ? { clip } : {}) });
    if (hoverText) await page.mouse.move(640, 300);
    fs.renameSync(part, file);
    console.log(`screenshot: ${path.relative(root, file)}`);
  };
  // "__FOCUS__ #id marker": keyboard focus on an element of a webview (the panel), as a user tabbing to it.
  const focusInWebview = async (selector) => {
    for (const frame of page.frames()) {
      const target = frame.locator(selector);
      if ((await target.count().catch(() => 0)) > 0) { await target.first().focus(); return true; }
    }
    return false;
  };
  const done = new Promise((resolve) => {
    void page.exposeFunction("codeAutomationLog", (_type, args) => {
      const list = Array.isArray(args) ? args : [args];
      // The extension host forwards console calls with their printf-style arguments (mocha's "%s (%dms)").
      const line = format(...list);
      const m = /__SCREENSHOT__ (\S+\.png)(?: hover=(.+)| (clip=editor))?/.exec(line);
      const v = /__VIEWPORT__ (\d+)x(\d+) (\S+)/.exec(line);
      const f = /__FOCUS__ (\S+) (\S+)/.exec(line);
      if (f) shots.push(focusInWebview(f[1]).then((ok) => fs.writeFileSync(f[2], ok ? "focused" : "not found")).catch((e) => console.error("focus failed:", e)));
      else if (m) shots.push(takeShot(m[1], m[2] ?? m[3]).catch((e) => console.error("screenshot failed:", e)));
      else if (v) shots.push(page.setViewportSize({ width: Number(v[1]), height: Number(v[2]) }).then(() => fs.writeFileSync(v[3], "")).catch((e) => console.error("viewport failed:", e)));
      else console.log(line);
    });
    void page.exposeFunction("codeAutomationExit", (code) => resolve(code));
  });
  if (process.env.DEBUG_PAGE) page.on("console", (m) => console.log("[page]", m.text()));
  // A loaded machine (2 shared cores) can take longer than playwright's default 30 s to serve the workbench.
  await page.goto(url, { waitUntil: "domcontentloaded", timeout: 180_000 });
  let timer;
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`suite did not finish in ${TIMEOUT_MS} ms`)), TIMEOUT_MS); });
  exitCode = await Promise.race([done, timeout]);
  clearTimeout(timer);
  await Promise.all(shots);
  console.log(`run-integration: extension host exit code ${exitCode} after ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (err) {
  console.error("run-integration:", err);
  exitCode = 1;
} finally {
  if (browser) await browser.close().catch(() => {});
  // code-server forks the server, the extension host and the pty host: end the whole process group.
  const killGroup = (sig) => { try { process.kill(-server.pid, sig); } catch { /* already gone */ } };
  killGroup("SIGTERM");
  await Promise.race([serverExited, new Promise((r) => setTimeout(r, 5000))]);
  killGroup("SIGKILL");
  serverLog.end();
  if (!process.env.KEEP_TMP) fs.rmSync(tmp, { recursive: true, force: true });
  else console.log(`run-integration: kept ${tmp}`);
}
process.exit(typeof exitCode === "number" ? exitCode : 1);
