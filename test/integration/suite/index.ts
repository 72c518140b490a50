/**
 * Test runner loaded by the extension host (extensionTestsPath): @vscode/test-electron's contract,
 * an exported run() that resolves when mocha passes. The code-server runner and test-electron both
 * call it. Results also go to test-artifacts/integration-results.json.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import Mocha from "mocha";

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: "tdd", color: false, timeout: 30_000, grep: process.env.LS_GREP || undefined });
  // Deterministic order: activation first, then commands, settings, live detection.
  const files = fs.readdirSync(__dirname).filter((f) => f.endsWith(".test.js")).sort();
  for (const f of files) mocha.addFile(path.join(__dirname, f));
  const artifacts = process.env.LS_TEST_ARTIFACTS;
  return new Promise((resolve, reject) => {
    const results: { passed: string[]; failed: Array<{ title: string; error: string }>; skipped: string[] } = { passed: [], failed: [], skipped: [] };
    const runner = mocha.run((failures) => {
      const line = `integration: ${runner.stats?.passes ?? 0} passed, ${runner.stats?.failures ?? 0} failed, ${runner.stats?.pending ?? 0} skipped`;
      console.log(line);
      if (artifacts) {
        fs.mkdirSync(artifacts, { recursive: true });
        fs.writeFileSync(path.join(artifacts, "integration-results.json"), JSON.stringify(results, null, 2));
      }
      if (failures > 0) reject(new Error(`${failures} integration test(s) failed`));
      else resolve();
    });
    runner.on("pass", (t) => results.passed.push(t.fullTitle()));
    runner.on("fail", (t, err) => results.failed.push({ title: t.fullTitle(), error: String((err as Error)?.stack ?? err) }));
    runner.on("pending", (t) => results.skipped.push(t.fullTitle()));
  });
}
