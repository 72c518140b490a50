/**
 * What a new user meets: the page the Extensions view shows (the README packed into the VSIX) and
 * the Get Started walkthrough. The package is built here from the dist/ that `npm test` built, and
 * read back as VS Code reads it.
 */
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { readSessions } from "../../src/formats";
import { replayEvents } from "../../src/engine/replay";
import { COMMANDS } from "../../src/extension/commandIds";
import { EXAMPLE_SESSION, WALKTHROUGH_ID } from "../../src/extension/walkthroughIds";

const ROOT = path.resolve(__dirname, "../../..");
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));

/** The packed VSIX's files (name → bytes), built once for the tests below. */
let packed: Map<string, Buffer> | undefined;
function vsix(): Map<string, Buffer> {
  if (packed) return packed;
  assert.ok(fs.existsSync(path.join(ROOT, "dist/extension.js")), "dist/ is built (npm test builds it before the unit tests)");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-vsix-"));
  try {
    const file = path.join(dir, "test.vsix");
    execFileSync(process.execPath, [path.join(ROOT, "scripts/package-vsix.mjs"), "--no-build", "--out", file], { cwd: ROOT, stdio: "pipe" });
    execFileSync("unzip", ["-q", file, "-d", path.join(dir, "x")]);
    packed = new Map();
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else packed!.set(path.relative(path.join(dir, "x"), p).split(path.sep).join("/"), fs.readFileSync(p));
      }
    };
    walk(path.join(dir, "x"));
    return packed;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function packedReadme(): string {
  const files = vsix();
  const name = [...files.keys()].find((f) => /^extension\/readme\.md$/i.test(f));
  assert.ok(name, "the VSIX has a README");
  return files.get(name)!.toString("utf8");
}

describe("the Extensions view page (the VSIX's README)", function () {
  this.timeout(120_000);

  it("opens with what Loop Sentinel does for the user, then a picture, the agents it guards and how to use it", () => {
    const readme = packedReadme();
    const lines = readme.split("\n");
    assert.equal(lines[0], "# Loop Sentinel");
    const intro = readme.slice(0, readme.indexOf("\n## "));
    assert.match(intro, /agent/i);
    assert.doesNotMatch(intro, /npm |node |Quick start|benchmark/i, "no set-up commands before the user content");
    const headings = lines.filter((l) => l.startsWith("## "));
    assert.match(headings[0], /agents/i);
    assert.match(headings[1], /how to use/i);
    const picture = readme.search(/!\[[^\]]+\]\(/);
    assert.ok(picture > 0 && picture < readme.indexOf("\n## "), "the picture comes before the first section");
  });

  it("its picture is a PNG that renders offline (a data: URI, which VS Code's README view allows), packed once", () => {
    const readme = packedReadme();
    const images = [...readme.matchAll(/!\[([^\]]*)\]\(([^)]+)\)/g)];
    assert.ok(images.length >= 1);
    for (const [, alt, src] of images) {
      assert.ok(alt.length > 20, "the picture says what it shows");
      // The README webview's policy is `img-src https: data:` with no base for relative paths.
      const m = /^data:image\/png;base64,([A-Za-z0-9+/=]+)$/.exec(src);
      assert.ok(m, `image ${src.slice(0, 40)}… is inlined`);
      const bytes = Buffer.from(m[1], "base64");
      assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "a PNG");
      // Issue 36: the picture was packed twice (inlined and as a file).
      const again = [...vsix().entries()].find(([name, b]) => name.endsWith(".png") && b.equals(bytes));
      assert.equal(again, undefined, "not packed a second time as a file");
      // Wide enough to stay readable when the page's 576-px column shows it (and no wider than needed).
      const width = bytes.readUInt32BE(16);
      assert.ok(width >= 1000 && width <= 1400, `width ${width}`);
    }
  });

  it("the page around it: the description names the agents guarded, no placeholder link, a changelog for users", () => {
    for (const agent of ["Roo Code", "Kilo Code", "Cline", "opencode", "Claude Code", "Copilot", "Codex"]) assert.ok(pkg.description.includes(agent), `description names ${agent}`);
    const manifest = vsix().get("extension/package.json")!.toString("utf8");
    assert.doesNotMatch(manifest, /example\.invalid/);
    for (const [, link] of packedReadme().matchAll(/\]\((?!data:)([^)]+)\)/g)) assert.match(link, /^https:\/\//, `a link that goes somewhere: ${link}`);
    const changelog = [...vsix().entries()].find(([name]) => /^extension\/changelog\.md$/i.test(name));
    assert.ok(changelog, "a changelog ships");
    const text = changelog[1].toString("utf8");
    assert.match(text, /^## \d+\.\d+\.\d+/m, "by version");
    assert.doesNotMatch(text, /issue \d+|G instructions|bench|fingerprint|detector\.ts|src\//i, "written for users, not a developer's log");
  });

  it("has nothing that scrolls sideways: no code blocks, no tables, no long unbroken code", () => {
    const readme = packedReadme();
    assert.doesNotMatch(readme, /^```/m, "code block");
    assert.doesNotMatch(readme, /^\s*\|.*\|\s*$/m, "table");
    for (const [code] of readme.matchAll(/`[^`\n]+`/g)) assert.ok(code.length <= 50, `${code} is too long to wrap`);
  });

  it("the repository's README keeps the two set-up commands for contributors", () => {
    const repoReadme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    assert.match(repoReadme, /npm install && npm run demo/);
    assert.match(repoReadme, /^npm test\b/m);
  });
});

describe("the Get Started walkthrough", function () {
  this.timeout(120_000);
  const walkthrough = (pkg.contributes.walkthroughs as Array<{ id: string; steps: Array<Record<string, any>> }>).find((w) => w.id === WALKTHROUGH_ID);
  const contributed = new Set((pkg.contributes.commands as Array<{ command: string }>).map((c) => c.command));

  it("is contributed, and the command that opens it is too", () => {
    assert.ok(walkthrough, WALKTHROUGH_ID);
    assert.ok(contributed.has(COMMANDS.openWalkthrough));
    assert.equal(COMMANDS.openWalkthrough, "loopSentinel.openWalkthrough", "the empty panel calls this id");
  });

  it("covers the agents watched, an example to try, and the choice of warn-only or intervene", () => {
    const text = walkthrough!.steps.map((s) => `${s.title} ${s.description}`).join("\n");
    assert.match(text, /Roo Code/);
    assert.match(text, /Cline/);
    assert.match(text, /example/i);
    assert.match(text, /warn only/i);
    assert.match(text, /intervene/i);
  });

  it("every step's media is in the repository and in the package, and every command it names exists", () => {
    const files = vsix();
    for (const step of walkthrough!.steps) {
      const media = step.media as Record<string, unknown>;
      const refs = [media.image, media.markdown, media.svg].filter((m): m is string => typeof m === "string");
      assert.ok(refs.length > 0, `${step.id} has media`);
      if (media.image) assert.ok(typeof media.altText === "string" && media.altText.length > 20, `${step.id}: the image says what it shows`);
      for (const ref of refs) {
        assert.ok(fs.existsSync(path.join(ROOT, ref)), `${step.id}: ${ref} exists`);
        assert.ok(files.has(`extension/${ref}`), `${step.id}: ${ref} is packed`);
      }
      const commands = [
        ...[...String(step.description).matchAll(/\(command:([\w.]+)/g)].map((m) => m[1]),
        ...(step.completionEvents as string[]).filter((e) => e.startsWith("onCommand:")).map((e) => e.slice("onCommand:".length)),
      ];
      assert.ok(commands.length > 0, `${step.id} has a button`);
      for (const id of commands) assert.ok(contributed.has(id), `${step.id}: command ${id} is contributed`);
      for (const e of step.completionEvents as string[]) {
        const setting = /^onSettingChanged:(.+)$/.exec(e)?.[1];
        if (setting) assert.ok(pkg.contributes.configuration.some((c: { properties: object }) => setting in c.properties), `${step.id}: setting ${setting}`);
      }
    }
  });

  it("every file the extension opens from its own folder ships in the package (hook programs included)", () => {
    const files = vsix();
    // What the extension's code reads beside itself: context.asAbsolutePath("...") and the file names it builds them from.
    const wanted = new Set<string>();
    const srcDir = path.join(ROOT, "src/extension");
    for (const f of fs.readdirSync(srcDir).filter((n) => n.endsWith(".ts"))) {
      const text = fs.readFileSync(path.join(srcDir, f), "utf8");
      for (const m of text.matchAll(/asAbsolutePath\(\s*["'`]([^"'`$]+)["'`]\s*\)/g)) wanted.add(m[1]);
    }
    assert.ok(wanted.has("dist/agent-hook.js"), `found: ${[...wanted].join(", ")}`);
    // The agents' hook loads its engine bundle from beside itself when no running guard answers.
    wanted.add("dist/agent-hook-engine.js");
    for (const f of wanted) assert.ok(files.has(`extension/${f}`), `${f} is packed`);
  });

  it("the example session it replays is packed and shows every step: a warning, a refused call, a stop", () => {
    assert.ok(vsix().has(`extension/${EXAMPLE_SESSION}`));
    const [session] = readSessions([path.join(ROOT, EXAMPLE_SESSION)], { lenient: false });
    const actions = replayEvents(session.events).interventions.map((i) => i.action);
    assert.deepEqual([...new Set(actions)], ["warn", "block", "stop"]);
  });
});
