#!/usr/bin/env node
// `npm run test:e2e:roo`: the real Roo Code 3.52.1 from ../shared/hosts/roo-real (never copied into
// the project) and Loop Sentinel's VSIX in the integration suite's code-server host, the suite in
// test/e2e/roo/suite. Skips, saying so, when that VSIX is absent (a clone without ../shared).
// Then the same scenarios under Zoo Code's id: Roo's VSIX repacked with Zoo's publisher and name.
// env: ROO_VSIX (default ../shared/hosts/roo-real/roo-cline-3.52.1.vsix), LS_E2E_ZOO=0 to skip the Zoo pass.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const rooVsix = process.env.ROO_VSIX || path.resolve(root, "../shared/hosts/roo-real/roo-cline-3.52.1.vsix");
if (!fs.existsSync(rooVsix)) {
  console.log(`test:e2e:roo: SKIPPED: no real Roo VSIX at ${rooVsix} (it comes from ../shared/hosts/roo-real; set ROO_VSIX to run)`);
  process.exit(0);
}
const run = (env) => execFileSync(process.execPath, [path.join(root, "test/integration/runner/run-integration.mjs")], {
  stdio: "inherit", env: { ...process.env, LS_SUITE_DIR: path.join(root, "out/e2e-roo-suite"), LS_NO_FAKE_ROO: "1", ...env },
});
let failed = 0;
try { run({ LS_EXTRA_VSIX: rooVsix, LS_ARTIFACTS: path.join(root, "test-artifacts/e2e-roo") }); } catch { failed++; }

if (process.env.LS_E2E_ZOO !== "0") {
  // Zoo Code keeps Roo's API and commands; only its id (publisher.name) and storage folder differ.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ls-zoo-"));
  try {
    execFileSync("unzip", ["-q", rooVsix, "-d", tmp]);
    const pj = path.join(tmp, "extension/package.json");
    const p = JSON.parse(fs.readFileSync(pj, "utf8"));
    p.publisher = "ZooCodeOrganization"; p.name = "zoo-code"; p.displayName = "Zoo Code";
    fs.writeFileSync(pj, JSON.stringify(p, null, 2));
    const manifest = path.join(tmp, "extension.vsixmanifest");
    if (fs.existsSync(manifest)) {
      fs.writeFileSync(manifest, fs.readFileSync(manifest, "utf8").replace(/Publisher="[^"]*"/, 'Publisher="ZooCodeOrganization"').replace(/Id="roo-cline"/, 'Id="zoo-code"'));
    }
    const zooVsix = path.join(tmp, "zoo-code.vsix");
    execFileSync("zip", ["-q", "-r", zooVsix, "."], { cwd: tmp });
    run({ LS_EXTRA_VSIX: zooVsix, LS_E2E_ROO_ID: "ZooCodeOrganization.zoo-code", LS_E2E_HOST_LABEL: "Zoo Code", LS_ARTIFACTS: path.join(root, "test-artifacts/e2e-zoo") });
  } catch (e) {
    failed++;
    console.error(`test:e2e:roo (Zoo Code id): ${e.message}`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
process.exit(failed ? 1 : 0);
