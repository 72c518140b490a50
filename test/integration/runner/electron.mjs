#!/usr/bin/env node
// The same integration suite under @vscode/test-electron, for machines that can download desktop
// VS Code (this one cannot: see run-integration.mjs). Runs the built extension from the checkout.
// Usage: npm run test:integration:electron
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { runTests } from "@vscode/test-electron";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
try {
  await runTests({
    version: "1.100.3",
    extensionDevelopmentPath: root,
    extensionTestsPath: path.join(root, "out/integration-suite/index.js"),
    launchArgs: ["--disable-extensions", "--disable-workspace-trust"],
    extensionTestsEnv: { LS_TEST_ROOT: root, LS_TEST_ARTIFACTS: path.join(root, "test-artifacts") },
  });
} catch (err) {
  console.error("integration tests failed:", err);
  process.exit(1);
}
