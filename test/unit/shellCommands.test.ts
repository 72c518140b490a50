import * as assert from "node:assert/strict";
import * as fc from "fast-check";
import { attemptShape, commandRead, commandSearch, isMutatingCommand, isWaitCommand, mainCommand, mutatingByGuards, mutatingByJoined, mutatingGuards, pathsMaybeWritten, samePathNamed } from "../../src/engine/shellCommands";

describe("shell commands", () => {
  it("tells mutating commands from reading ones", () => {
    for (const c of ["sed -i 's/a/b/' f.py", "cat > f.py <<'EOF'\nx\nEOF", "git commit -m x", "echo x >> log.txt", "git push origin HEAD", "gh pr ready 735", "gh pr edit 12 --body x", "npm install"]) {
      assert.ok(isMutatingCommand(c), c);
    }
    for (const c of ["cat f.py", "grep -rn foo src", "git status", "gh pr view 12", "gh run list --limit 1", "python -m pytest -q", "ls 2>/dev/null", "echo hi >&2"]) {
      assert.ok(!isMutatingCommand(c), c);
    }
  });

  it("judges a command pattern by pattern under the guards exactly as the joined pattern does", () => {
    // One command each mutating pattern matches, in their order: every pattern is seen matching once.
    const examples = [
      "edit 12:15", "sed -i 's/a/b/' f", "perl -pi -e 's/a/b/' f", "git apply x.patch", "rm -rf build", "git commit -m x",
      "git bisect good", "pnpm add left-pad", "pip3 install x", "go install ./...", "python3 -c \"open('f','w').write('x')\"",
      "node -e \"require('fs').writeFileSync('f','x')\"", "cat > f.py", "npx prettier --write src", "cargo fmt", "git fetch origin",
      "gh pr merge 3", "gh api repos/x -X POST", "kubectl apply -f x.yaml", "docker compose up", "Remove-Item x",
      "aws s3 cp a b", "pkill node", "start \"\" x.exe", "create reproduce.py",
    ];
    const guards = mutatingGuards();
    assert.equal(examples.length, guards.length, "an example for each pattern");
    guards.forEach(({ pattern, words }, i) => {
      assert.ok(pattern.test(examples[i]), `${pattern} matches ${examples[i]}`);
      if (words) assert.ok(words.some((w) => examples[i].includes(w)), `${examples[i]} holds a guard word of ${pattern}`);
    });
    const words = [...new Set(guards.flatMap((g) => g.words ?? []))];
    const token = fc.oneof(
      fc.constantFrom(...words, "i", "-i", "--in-place", "-pi", "-c", "-e", "--eval", "-", "<<", "<<EOF", ">", ">>", ">&2", "add", "commit", "push", "fetch", "pr", "api", "-X", "POST",
        "merge", "compose", "up", "apply", "bisect", "good", "open('f','w')", ".write(", "writeFileSync", "--write", "--fix", "-w", "--check", "--diff", "format", "check",
        "create", "delete", "deploy", "\"", "x.py", "12:15", "40", "-m", "s3", "cp", "npx", "uvx", "python3", "-m", "get", "build", "f.txt", "/tmp/x", "Remove-Item", "gh"),
      // Commands whole, to see every pattern match often, among others and cut by separators.
      fc.constantFrom(...examples, "git status", "git log --oneline", "npm test", "cat f.py", "python -m pytest -q", "gofmt -l .", "ruff check .", "docker ps", "kubectl get pods"),
      fc.string({ maxLength: 4 }),
    );
    const separator = fc.constantFrom(" ", " ", " ", "  ", ";", "; ", " && ", " | ", "(", "\n", "");
    const command = fc.array(fc.tuple(token, separator), { maxLength: 8 }).map((parts) => parts.map(([t, sep]) => t + sep).join("").trim());
    fc.assert(fc.property(command, (c) => {
      for (const { pattern, words: w } of guards) if (w && !pattern.ignoreCase && pattern.test(c)) assert.ok(w.some((x) => c.includes(x)), `${JSON.stringify(c)} matches ${pattern} without a guard word`);
      assert.equal(mutatingByGuards(c), mutatingByJoined(c), JSON.stringify(c));
    }), { numRuns: 20_000, seed: 35 });
  });

  it("recognises waits", () => {
    assert.ok(isWaitCommand("sleep 60"));
    assert.ok(isWaitCommand("sleep 30 && gh run list"));
    assert.ok(isWaitCommand("Start-Sleep -Seconds 5"));
    assert.ok(!isWaitCommand("grep sleep src"));
  });

  it("reads the file and range of display commands", () => {
    assert.deepEqual(commandRead("cat src/a.py"), { path: "src/a.py", range: "" });
    assert.deepEqual(commandRead("cd /testbed && sed -n '10,40p' src/a.py"), { path: "src/a.py", range: "10-40" });
    assert.deepEqual(commandRead("nl -ba src/a.py | sed -n '1,80p'"), { path: "src/a.py", range: "1-80" });
    assert.deepEqual(commandRead("head -n 50 a.py"), { path: "a.py", range: "head:50" });
    assert.equal(commandRead("cat a.py | python -"), undefined);
    assert.equal(commandRead("sed -i 's/x/y/' a.py"), undefined);
  });

  it("reads pattern and scope of shell searches", () => {
    assert.deepEqual(commandSearch(`grep -rn "legacyAuthToken" src/auth`), { pattern: "legacyAuthToken", scope: "src/auth" });
    assert.deepEqual(commandSearch(`cd /testbed && grep -rn --include=*.py -e 'def foo' . | head -20`), { pattern: "def foo", scope: "." });
    assert.deepEqual(commandSearch("rg -n foo"), { pattern: "foo", scope: "." });
    assert.deepEqual(commandSearch(`find / -name "settings.py" 2>/dev/null`), { pattern: "settings.py", scope: "/" });
    assert.notDeepEqual(commandSearch(`rg -n --hidden "X" .`), commandSearch(`rg -n "X" .`), "--hidden searches more places");
    assert.deepEqual(commandSearch(`rg -n "X" .`), commandSearch(`rg "X" .`), "output flags do not");
    assert.equal(commandSearch("grep foo a.py; rm a.py"), undefined);
    assert.equal(commandSearch("python run.py"), undefined);
  });
});

describe("shell redirects and state changes", () => {
  it("sees a redirect outside quotes only", () => {
    assert.ok(isMutatingCommand(`echo "a > b" > out.txt`));
    assert.ok(isMutatingCommand("printf 'x' >> notes.md"));
    assert.ok(!isMutatingCommand(`node -e "const f = (a) => a > 1; console.log(f(2))"`));
    assert.ok(!isMutatingCommand(`python3 -c "print(3 > 2)"`));
    assert.ok(!isMutatingCommand("taskinfo 2>nul"));
    assert.ok(!isMutatingCommand("grep -n 'a->b' src/x.c"));
  });

  it("sees cloud changes and process control as changes, and queries as reads", () => {
    assert.ok(isMutatingCommand("gcloud sql instances patch db --assign-ip"));
    assert.ok(isMutatingCommand("taskkill /F /IM proxy.exe"));
    assert.ok(!isMutatingCommand("gcloud sql instances describe db --format=yaml"));
    assert.ok(!isMutatingCommand("aws s3 ls s3://bucket"));
  });
});

describe("inline scripts", () => {
  it("sees inline Python and Node scripts that write files as changes", () => {
    assert.ok(isMutatingCommand("python3 - <<'EOF'\nimport re\np='src/a.py'\ns=open(p).read()\nopen(p,'w').write(s.replace('a','b'))\nEOF"));
    assert.ok(isMutatingCommand(`python -c "from pathlib import Path; Path('a.txt').write_text('x')"`));
    assert.ok(isMutatingCommand(`node -e "require('fs').writeFileSync('a.json', '{}')"`));
    assert.ok(!isMutatingCommand(`python3 -c "print(open('setup.cfg').read())"`));
    assert.ok(!isMutatingCommand("python3 reproduce.py"));
  });
});

describe("throwaway files and the step that does the work", () => {
  it("does not take writes to the temp directory for project changes", () => {
    assert.ok(!isMutatingCommand("cat > /tmp/probe.py <<'EOF'\nimport sys\nprint(sys.path)\nEOF\npython /tmp/probe.py"));
    assert.ok(!isMutatingCommand("cat <<'EOF' > /tmp/q.sql\nselect 1;\nEOF"));
    assert.ok(!isMutatingCommand("mkdir -p /tmp/scratch && cp src/a.py /tmp/scratch/ && python /tmp/scratch/a.py > /tmp/out.txt"));
    assert.ok(!isMutatingCommand("echo x > $TMPDIR/x.txt"));
    assert.ok(!isMutatingCommand("python3 - <<'EOF'\nprint(1 > 0)\nEOF"), "a > in a heredoc body is code");
    assert.ok(!isMutatingCommand("cat <<'EOF'\nplan\nEOF"), "a bare heredoc only prints");
    // The same commands aimed at the project are changes.
    assert.ok(isMutatingCommand("cat > scripts/probe.py <<'EOF'\nimport sys\nEOF\npython scripts/probe.py"));
    assert.ok(isMutatingCommand("cat <<'EOF' > src/q.sql\nselect 1;\nEOF"));
    assert.ok(isMutatingCommand("cp /tmp/fixed.py src/a.py"));
    assert.ok(isMutatingCommand("rm -rf /tmp/x build"));
  });

  it("finds the step that does the work", () => {
    assert.equal(mainCommand("cat > /tmp/p.py <<'EOF'\nimport x; y()\nEOF\npython /tmp/p.py"), "python /tmp/p.py");
    assert.equal(mainCommand("cd /testbed && python3 -c \"a(); b()\" | head -5"), "python3 -c \"a(); b()\"");
    assert.equal(mainCommand("npm install && npm test || echo failed"), "npm test");
    assert.equal(mainCommand("source .venv/bin/activate; export A=1; pytest -q; echo $?"), "pytest -q");
  });

  it("takes the program a feeder pipes into as the work, not the feeder", () => {
    assert.equal(mainCommand("cd /testbed && echo -n \"select 1;;\" | sqlfluff lint - 2>&1"), "sqlfluff lint - 2>&1");
    assert.equal(mainCommand("printf 'a\\nb' | python3 parse.py"), "python3 parse.py");
    assert.equal(mainCommand("cat input.json | jq .items"), "jq .items");
    // Display filters and fallbacks are not the work.
    assert.equal(mainCommand("cat src/app.py | head -40"), "cat src/app.py");
    assert.equal(mainCommand("pytest -q || echo failed"), "pytest -q");
  });

  it("names the paths a command may have written: none for read-only commands", () => {
    assert.deepEqual(pathsMaybeWritten("python - <<'PY'\nfrom pathlib import Path\nPath('pkg/voting.py').write_text('x')\nPY"), ["pkg/voting.py"]);
    assert.deepEqual(pathsMaybeWritten("node -e \"require('fs').writeFileSync('out/x.json', '{}')\""), ["out/x.json"]);
    assert.deepEqual(pathsMaybeWritten("python tools/regen.py"), ["tools/regen.py"]);
    for (const c of ["nl -ba pkg/voting.py | sed -n '1,80p'", "grep -n foo src/a.py || true", "git diff src/a.py", "cat a.py b.py | wc -l", "find src -name '*.py'"]) assert.deepEqual(pathsMaybeWritten(c), [], c);
    // changing commands that name no path (no `/`, no `.`) have none to forget
    for (const c of ["npm install", "make -j4", "cargo build --release", "npm test -- --grep x"]) assert.deepEqual(pathsMaybeWritten(c), [], c);
    assert.ok(samePathNamed("voting.py", "/testbed/pkg/voting.py") && samePathNamed("./pkg/voting.py", "pkg/voting.py"));
    assert.ok(!samePathNamed("voting.py", "pkg/novoting.py"));
  });

  it("compares throwaway probes by what they run, other commands as written", () => {
    assert.equal(attemptShape("cat > /tmp/a1.py <<'EOF'\nx\nEOF\npython /tmp/a1.py"), attemptShape("cat > /tmp/zz.py <<'EOF'\ny = 2\nEOF\npython /tmp/zz.py"));
    assert.notEqual(attemptShape("python3 -c \"import a\""), attemptShape("python3 -c \"import b\""));
  });
});
