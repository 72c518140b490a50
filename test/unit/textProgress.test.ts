/**
 * text-progress: a run of passages, or of turns, that brings no content word, name or number the
 * recent text did not already have is a loop in any wording or language; text that adds facts,
 * or puts known ones together anew, is not.
 */
import * as assert from "node:assert/strict";
import type { TraceEvent } from "../../src/engine/events";
import { ContentTokens, NAME_TOKEN } from "../../src/engine/words";
import { prose, readTrace, request, rng, runOnly, streamOf } from "./streamTestKit";

const user = (text: string): TraceEvent => ({ t: "user", text });
const tp = (events: TraceEvent[]) => runOnly(["text-progress"], events);

describe("content tokens", () => {
  it("keep stems of long words, names whole, CJK pairs, and drop function words and lone digits", () => {
    const t = new ContentTokens();
    t.read("The timeout is configured twice in parse_snapshot at line 42; step 3.");
    const kinds = Array.from(t.kinds.subarray(0, t.count));
    // timeout, configured (stem), twice, parse_snapshot (name), line, 42 (name); "step" is a word, "3" is not
    assert.equal(t.count, 7);
    assert.equal(kinds.filter((k) => k === NAME_TOKEN).length, 2);
    t.read("configure configuration"); // one stem
    assert.equal(t.hashes[0], t.hashes[1]);
    t.read("缓存层读取了过期的令牌");
    assert.equal(t.count, 10); // 11 characters, 10 pairs
    t.read("Je pense que cette correction est dans le fichier");
    assert.equal(t.count, 3); // pense, correction, fichier
  });
});

describe("text-progress", () => {
  const facts = "The deadline in parse_snapshot is applied twice, and the inner value overrides the outer one, so the setting does not matter and deleting the later one resolves the problem.";
  it("warns on a thought re-derived over and over with nothing new, then aborts once the run is twice as long", () => {
    const words = facts.split(" ");
    const copies = Array.from({ length: 14 }, (_, i) => [...words.slice(i % 5), ...words.slice(0, i % 5)].join(" ")).join("\n\n");
    const found = tp([user("Why is the timeout ignored?"), ...request(streamOf("reasoning", prose(80, 3) + "\n\n" + copies + "\n"))]);
    assert.deepEqual(found.map((i) => i.action), ["warn", "abort"]);
    assert.match(found[0].summary, /passages in a row with nothing new/);
  });

  // (a walk through known facts that puts them together anew: the recorded corpus session
  // msa_deepseek_django12470, replayed by recordedSessions and labelledCases, stays quiet)

  it("stays quiet on an enumeration whose parallel sentences each add a code and a number", () => {
    const codes = ["OB", "OF", "OA", "OC", "OD", "OE", "OG", "OH", "OI", "OK"];
    const text = codes.map((c, i) => `For '${c}' the format_value branch at line ${100 + 7 * i} pads the value to ${10 + i} characters and uses the ISO format.`).join("\n");
    assert.deepEqual(runOnly(["text-progress", "near-duplicate"], [user("Check every code."), ...request(streamOf("reasoning", text + "\n"))]), []);
  });

  /**
   * A run of steps, each narrated in one short line before its call ("Now let me run the
   * reproduction script again:", "Let me install scipy:"), each call answering something new or
   * the same; `late` moves every result after the first chunk of the text that follows it, as a
   * host writing its rows in another order would deliver it.
   */
  const narratedSteps = (outputs: string[], late: boolean, install: (i: number) => string): TraceEvent[] => {
    const lines = ["Now let me run the reproduction script again:", "Let me install more dependencies:"];
    const events: TraceEvent[] = [user("Fix the import error in the solar package.")];
    let held: TraceEvent | undefined;
    outputs.forEach((output, i) => {
      const text = streamOf("text", lines[i % lines.length], { max: 12, seed: 40 + i });
      events.push({ t: "request" }, text[0]);
      if (held) events.push(held);
      events.push(...text.slice(1), { t: "tool_call", id: `s${i}`, name: "bash", input: { command: i % 2 ? install(i) : "python reproduce_issue.py" } }, { t: "end" });
      const result: TraceEvent = { t: "tool_result", id: `s${i}`, ok: true, output };
      if (late) held = result; else events.push(result);
    });
    if (held) events.push(held);
    return events;
  };

  it("stays quiet on short narration between steps whose outputs are new: its words said again are each step's preface, not fragments", () => {
    const outputs = Array.from({ length: 16 }, (_, i) => i % 2 ? `Successfully installed dep${i}-1.${i}.0` : `ModuleNotFoundError: No module named 'dep${i + 1}'`);
    for (const late of [false, true]) assert.deepEqual(runOnly(["text-progress"], narratedSteps(outputs, late, (i) => `pip install dep${i}`), { minRun: 3 }).map((i) => i.summary), [], `late: ${late}`);
    // DeepSeek on pvlib 1854, recorded: the same narration before each new output
    assert.deepEqual(runOnly(["text-progress"], readTrace("corpus/msa_deepseek_pvlib1854_rerun.trace.jsonl"), { minRun: 3 }).map((i) => i.summary), []);
  });

  it("still catches that narration before calls that answer the same every time, whether a result comes before or after the next text", () => {
    const outputs = Array.from({ length: 40 }, () => "ModuleNotFoundError: No module named 'pvlib'");
    const verdicts = [false, true].map((late) => runOnly(["text-progress"], narratedSteps(outputs, late, (i) => `pip show dep${i}`)).map((i) => `${i.action} ${i.event}`));
    assert.equal(verdicts[0][0]?.split(" ")[0], "warn");
    assert.deepEqual(verdicts[1], verdicts[0]);
  });

  it("catches the same question asked after every short reply, in French, on its third copy", () => {
    const q = "Voulez-vous que je garde l'ancien schéma pour la migration, ou que je le supprime et reconstruise la table ?";
    const events: TraceEvent[] = [user("Migre la base de données vers le nouveau schéma.")];
    const replies = ["oui", "non", "vas-y", "d'accord"];
    for (let turn = 0; turn < 5; turn++) {
      if (turn > 0) events.push(user(replies[turn - 1]));
      events.push(...request(streamOf("text", q + "\n")));
    }
    const found = tp(events);
    assert.equal(found.length >= 1, true);
    assert.equal(found[0].action, "warn");
    // the user message after the third copy
    assert.equal(events[found[0].event].t, "user");
    assert.equal(events.slice(0, found[0].event).filter((e) => e.t === "user").length, 3);
  });

  it("stays quiet when the user's replies bring matter of their own", () => {
    const q = "Should I change the config loader or patch the retry handler first? Please confirm before I touch anything.";
    const events: TraceEvent[] = [user("Fix the retry bug.")];
    ["Patch the retry handler, the loader is fine already.", "Use the exponential backoff helper from utils.", "Also cap the delay at thirty seconds please."].forEach((r) => events.push(...request(streamOf("text", q + "\n")), user(r)));
    events.push(...request(streamOf("text", q + "\n")));
    assert.deepEqual(tp(events), []);
  });

  describe("text decaying into fragments that recombine a few words", () => {
    const lead = "Donc la correction consiste à empêcher le routeur de traiter le fichier de verrou comme le délai par défaut après la première reprise. La couche de cache lit le saut de ligne final après la première reprise.";
    const vocab = ["lit", "ligne", "final", "saut", "verrou", "routeur"];
    /** Fragments of 2 to 5 of the few words, chosen by seed, each on its own line. */
    const fragments = (seed: number, n: number) => {
      const r = rng(seed);
      return Array.from({ length: n }, () => Array.from({ length: 2 + Math.floor(r() * 4) }, () => vocab[Math.floor(r() * vocab.length)]).join(" ") + [".", "...", "!", ""][Math.floor(r() * 4)]);
    };

    it("warns once two passages of them said nothing but those words (words only, nothing named)", () => {
      for (const seed of [1, 2, 3, 4, 5]) {
        const frags = fragments(seed, 16);
        const text = lead + "\n\n" + frags.join("\n\n") + "\n";
        const events = [user("Corrige le délai."), ...request(streamOf("reasoning", text))];
        const found = tp(events);
        assert.ok(found.length >= 1, `seed ${seed}: caught`);
        // the words said by the time it warned: two passages' worth (10 content tokens each) and the part of one more
        const said = events.slice(0, found[0].event + 1).map((e) => (e.t === "reasoning" ? e.delta : "")).join("").slice(lead.length);
        const words = said.split(/\s+/).filter((w) => /\p{L}{3,}/u.test(w)).length;
        assert.ok(words <= 32, `seed ${seed}: warned after ${words} words of fragments`);
      }
    });

    // (their look-alike, a walk through calls of one function with other arguments that names the
    // same identifiers line after line, is the recorded session msa_deepseek_django12470, replayed
    // quiet by labelledCases: only a passage that names nothing counts three times)
  });

  it("stays quiet on a checklist walked over each module in one template: each item's new subject is named again in it", () => {
    const modules = ["audit", "uploads", "inventory", "payments", "sessions", "webhooks", "reports", "users"];
    const item = (m: string, i: number) => `- Module ${m}: error handling reviewed, every await is inside try/catch, errors are passed to next(). I went through ${m}'s entry point and its helpers; error handling reviewed, every await is inside try/catch, errors are passed to next(), and the tests for ${m} exercise the edge cases. Verdict: ${i % 3 ? "ok" : "needs a fix"}.`;
    const text = "I'll walk the checklist over each module.\n\n" + modules.map(item).join("\n") + "\n";
    assert.deepEqual(tp([user("Review error handling in every module."), ...request(streamOf("reasoning", text))]), []);
  });

  it("stays quiet on a per-item report: the same verdict under a title naming each item", () => {
    const items = ["payments", "users", "exports", "search", "uploads", "imports", "notifications", "inventory", "billing", "reports"];
    for (const title of [(m: string) => `**Checking ${m}**`, (m: string) => `### Checking ${m}`]) {
      const text = items.map((m) => `${title(m)}\n\nNo issues found. All awaited calls are inside try/catch and errors are passed to next().\n\n`).join("");
      assert.deepEqual(tp([user("Review error handling in every module."), ...request(streamOf("text", text))]), [], title("x"));
    }
  });

  it("stays quiet on long varied reasoning", () => {
    assert.deepEqual(tp([user("go"), ...request(streamOf("reasoning", Array.from({ length: 30 }, (_, i) => prose(50, 300 + i)).join("\n\n")))]), []);
  });
});
