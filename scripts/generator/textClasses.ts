/**
 * Text loop classes of issue 16 and their productive look-alikes, drawn with every parameter
 * varied: block length, period, chunk size, wording drift, markdown structure, tool calls between,
 * host shape. A loop case marks where each copy of its repeated unit begins.
 */
import { HOST_SHAPES, TraceBuilder } from "./kit";
import { CHANT_LINES, HEADINGS, MODULES, STEP_HEADINGS, drift, opener, paragraphs, sentence, thought } from "./prose";
import { LANGS, driftIn, sentenceIn, thoughtIn, vocabulary, type Lang } from "./languages";
import type { CaseGenerator, GeneratedCase, Rng } from "./types";

type Channel = "reasoning" | "text";

interface Setup { b: TraceBuilder; channel: Channel; params: GeneratedCase["params"] }

/** A session that starts the usual way: the user asks, the agent may already have looked around. */
function setup(rng: Rng, channel?: Channel): Setup {
  const shape = rng.pick(HOST_SHAPES);
  const maxChunk = rng.int(1, 40);
  const b = new TraceBuilder(rng, shape, maxChunk);
  const ch: Channel = channel ?? (rng.chance(0.7) ? "reasoning" : "text");
  b.user(rng.pick(["Fix the failing CSV import test.", "Why does the cache return stale values?", "Review the modules and report issues.", "Make the retry handler respect the timeout."]));
  b.request();
  const toolsBefore = rng.int(0, 2);
  for (let i = 0; i < toolsBefore; i++) {
    b.stream(ch, thought(rng, rng.int(1, 2)) + "\n");
    b.toolStep("read_file", { path: `src/${rng.pick(MODULES)}/index${i}.ts` }, Array.from({ length: rng.int(3, 12) }, (_, k) => `${k + 1} | ${sentence(rng)}`).join("\n"));
  }
  return { b, channel: ch, params: { host: shape, chunk: maxChunk, channel: ch, toolsBefore } };
}

/** Productive text before the loop starts. */
function preface(rng: Rng, s: Setup, max = 2): void {
  const n = rng.int(0, max);
  for (const p of paragraphs(rng, n)) s.b.stream(s.channel, p + "\n\n");
}

function loopCase(family: string, s: Setup, marks: number[]): GeneratedCase {
  s.b.end();
  const events = s.b.finish();
  return { family, kind: "loop", params: s.params, events, copyStarts: s.b.copyStarts(marks) };
}

function lookalikeCase(family: string, s: Setup): GeneratedCase {
  s.b.end();
  return { family, kind: "lookalike", params: s.params, events: s.b.finish() };
}

function distinct<T>(rng: Rng, xs: readonly T[], n: number): T[] {
  const pool = [...xs];
  const out: T[] = [];
  while (out.length < n && pool.length) out.push(pool.splice(Math.floor(rng.next() * pool.length), 1)[0]);
  return out;
}

const gen = (family: string, kind: "loop" | "lookalike", imitates: string, draw: (rng: Rng) => GeneratedCase): CaseGenerator => ({ family, kind, imitates, draw });

// ---------------------------------------------------------------- 1. short chanting
const shortChant = gen("short-chant", "loop", "short-chant", (rng) => {
  const s = setup(rng);
  preface(rng, s);
  const variant = rng.pick(["line", "alternation", "block"] as const);
  const period = variant === "line" ? 1 : variant === "alternation" ? 2 : rng.int(3, 5);
  const lines = distinct(rng, CHANT_LINES, period);
  const sep = variant === "alternation" ? rng.pick([" ", "\n", " "]) : variant === "block" ? rng.pick(["\n", "\n", "\n\n"]) : rng.pick([" ", "\n", "\n\n"]);
  // a chant is not always byte-exact: the separator wanders between a space and a newline
  const noisy = rng.chance(0.25);
  // or each copy is a response of its own, nothing done and nobody asking between ("I am done." per request)
  const perRequest = variant !== "block" && rng.chance(0.25);
  const marks: number[] = [];
  for (let c = 0; c < 10; c++) {
    const copy = lines.map((l) => l + (noisy ? rng.pick([" ", "\n"]) : sep)).join("");
    if (perRequest && c > 0) { s.b.end(); s.b.request(); }
    marks.push(s.b.stream(s.channel, perRequest ? copy.trim() : copy, true));
  }
  Object.assign(s.params, { variant, period, block: lines.join(sep).length + sep.length, noisy, perRequest });
  return loopCase("short-chant", s, marks);
});

// ---------------------------------------------------------------- 1b. a chant broken up
/**
 * A short sentence said again and again, not byte-exact: an opener before some copies ("Hmm, X."),
 * a connector line between some ("To be sure:", "Actually,"), two or three copies on one line.
 */
const interjectedChant = gen("interjected-chant", "loop", "short-chant", (rng) => {
  const s = setup(rng);
  preface(rng, s);
  const line = rng.pick(CHANT_LINES.filter((l) => l.split(" ").length >= 3));
  const connectors = ["To be sure:", "Actually,", "Let me see.", "Hmm.", "Once more:"];
  const copies = rng.int(5, 7);
  const marks: number[] = [];
  const said = (): string => { const o = opener(rng); return o === "" ? line : o + line[0].toLowerCase() + line.slice(1); };
  for (let c = 0; c < copies;) {
    // one to three copies on this line, each with an opener of its own
    const n = Math.min(copies - c, rng.chance(0.3) ? rng.int(2, 3) : 1);
    if (c > 0 && rng.chance(0.4)) s.b.stream(s.channel, rng.pick(connectors) + "\n");
    for (let k = 0; k < n; k++) marks.push(s.b.stream(s.channel, (k > 0 ? " " : "") + said(), true));
    s.b.stream(s.channel, "\n");
    c += n;
  }
  Object.assign(s.params, { line, copies });
  return loopCase("interjected-chant", s, marks);
});

// ---------------------------------------------------------------- 2. headed reasoning sections
const headedSections = gen("headed-sections", "loop", "headed-sections", (rng) => {
  const s = setup(rng, rng.chance(0.85) ? "reasoning" : "text");
  preface(rng, s, 1);
  const style = rng.pick(["bold", "bold-colon", "atx"] as const);
  const share = rng.int(0, 40) / 100;
  const base = thought(rng, rng.int(1, 5));
  const headings = distinct(rng, HEADINGS, 6);
  const marks: number[] = [];
  for (let c = 0; c < 6; c++) {
    const h = rng.chance(0.3) ? headings[0] : headings[c];
    const head = style === "bold" ? `**${h}**` : style === "bold-colon" ? `**${h}:**` : `### ${h}`;
    const body = c === 0 ? base : drift(rng, base, share);
    marks.push(s.b.stream(s.channel, `${head}\n\n${opener(rng)}${body}\n\n`, true));
  }
  Object.assign(s.params, { style, drift: share, block: base.length });
  return loopCase("headed-sections", s, marks);
});

// ---------------------------------------------------------------- 7. paraphrase without headings
const paraphrase = gen("paraphrase", "loop", "paraphrase", (rng) => {
  const s = setup(rng);
  preface(rng, s);
  const share = rng.int(10, 40) / 100;
  const base = thought(rng, rng.int(2, 4));
  const sep = rng.pick(["\n\n", "\n", " "]);
  const marks: number[] = [];
  for (let c = 0; c < 6; c++) marks.push(s.b.stream(s.channel, opener(rng) + (c === 0 ? base : drift(rng, base, share)) + sep, true));
  Object.assign(s.params, { drift: share, block: base.length, sep: JSON.stringify(sep) });
  return loopCase("paraphrase", s, marks);
});

// ---------------------------------------------------------------- long blocks with markdown structure
/** A whole analysis said again: paragraphs, a list, maybe code and a table, 5 to 4,000 characters. */
const blockRepeat = gen("block-repeat", "loop", "block-repeat", (rng) => {
  const s = setup(rng);
  preface(rng, s, 1);
  const target = Math.round(Math.exp(rng.next() * Math.log(4000 / 5)) * 5);
  const parts: string[] = [];
  let len = 0;
  const structures: string[] = [];
  while (len < target) {
    const room = target - len;
    let part: string;
    const kind = room < 60 ? "words" : rng.pick(["para", "para", "list", "code", "table", "heading"]);
    if (kind === "words") part = rng.pick(CHANT_LINES.filter((l) => l.length <= Math.max(9, room))) + "\n";
    else if (kind === "para") part = thought(rng, rng.int(1, 3)) + "\n\n";
    else if (kind === "list") part = Array.from({ length: rng.int(2, 4) }, () => `- ${sentence(rng)}`).join("\n") + "\n\n";
    else if (kind === "code") part = "```ts\n" + Array.from({ length: rng.int(2, 6) }, (_, i) => `const v${i} = ${rng.pick(MODULES)}.get("${rng.pick(MODULES)}");`).join("\n") + "\n```\n\n";
    else if (kind === "table") part = "| module | state |\n|---|---|\n" + distinct(rng, MODULES, rng.int(2, 4)).map((m) => `| ${m} | ${rng.pick(["ok", "stale", "broken"])} |`).join("\n") + "\n\n";
    else part = `**${rng.pick(STEP_HEADINGS)}**\n\n`;
    structures.push(kind);
    parts.push(part);
    len += part.length;
  }
  const block = parts.join("");
  const copies = 5;
  const marks: number[] = [];
  for (let c = 0; c < copies; c++) marks.push(s.b.stream(s.channel, block, true));
  Object.assign(s.params, { block: block.length, structure: [...new Set(structures)].join("+") });
  return loopCase("block-repeat", s, marks);
});

// ---------------------------------------------------------------- 9. off by one (text)
const offByOne = gen("off-by-one-text", "loop", "off-by-one", (rng) => {
  const s = setup(rng, rng.chance(0.8) ? "reasoning" : "text");
  preface(rng, s);
  const variant = rng.pick(["alternation", "short-sentence"] as const);
  const marks: number[] = [];
  if (variant === "alternation") {
    const a = thought(rng, rng.int(1, 3)), b = thought(rng, rng.int(1, 3));
    for (let c = 0; c < 6; c++) marks.push(s.b.stream(s.channel, `${a}\n${b}\n`, true));
    Object.assign(s.params, { variant, block: a.length + b.length + 2, period: 2 });
  } else {
    const line = rng.pick(["I need to check the config file.", "Let me look at the test again.", "The cache is probably stale.", "So the parser is the problem.", "I should re-run the failing test.", "That means the lock is held."]);
    const between = ["", "", "Hmm.", "Okay.", "Wait.", "Right, so.", "Let me see."];
    for (let c = 0; c < 8; c++) {
      const gap = rng.pick(between);
      marks.push(s.b.stream(s.channel, `${line}\n${gap ? gap + "\n" : ""}`, true));
    }
    Object.assign(s.params, { variant, block: line.length, period: 1 });
  }
  return loopCase("off-by-one-text", s, marks);
});

// ================================================================ look-alikes
const chantCode = gen("code-lookalike", "lookalike", "short-chant", (rng) => {
  const s = setup(rng);
  preface(rng, s, 1);
  const fenced = rng.chance(0.6);
  const names = distinct(rng, MODULES, rng.int(6, 14));
  const style = rng.pick(["guards", "switch", "asserts", "python"] as const);
  let code: string;
  if (style === "guards") code = names.map((n) => `  if (!${n}) {\n    return null;\n  }\n`).join("");
  else if (style === "switch") code = "switch (kind) {\n" + names.map((n) => `  case "${n}":\n    return true;\n`).join("") + "  default:\n    return false;\n}\n";
  else if (style === "asserts") code = names.map((n) => `    expect(result.ok).toBe(true);\n    expect(${n}).toBeDefined();\n`).join("");
  else code = names.map((n) => `def ${n}():\n    pass\n\n`).join("");
  const body = fenced ? "```\n" + code + "```\n" : code.split("\n").map((l) => (l ? "    " + l : l)).join("\n");
  s.b.stream(s.channel, `Here is the draft:\n\n${body}\n${sentence(rng)}\n`);
  Object.assign(s.params, { fenced, style, items: names.length });
  return lookalikeCase("code-lookalike", s);
});

const chantTable = gen("table-lookalike", "lookalike", "short-chant", (rng) => {
  const s = setup(rng, "text");
  preface(rng, s, 1);
  const names = distinct(rng, MODULES, rng.int(5, 16));
  const cols = rng.int(2, 5);
  const header = `| module | ${Array.from({ length: cols }, (_, i) => `check ${i + 1}`).join(" | ")} |\n|${"---|".repeat(cols + 1)}\n`;
  const rows = names.map((n) => `| ${n} | ${Array.from({ length: cols }, () => (rng.chance(0.85) ? "ok" : "fail")).join(" | ")} |\n`).join("");
  s.b.stream(s.channel, header + rows + "\n" + sentence(rng) + "\n");
  Object.assign(s.params, { rows: names.length, cols });
  return lookalikeCase("table-lookalike", s);
});

const chantList = gen("list-lookalike", "lookalike", "short-chant", (rng) => {
  const s = setup(rng, rng.chance(0.5) ? "text" : "reasoning");
  preface(rng, s, 1);
  const names = distinct(rng, MODULES, rng.int(5, 14));
  const style = rng.pick(["check", "colon", "dash", "numbered"] as const);
  const verdict = () => rng.pick(["ok", "ok", "ok", "passes", "needs a fix"]);
  const items = names.map((n, i) => style === "check" ? `- [x] ${n}: ${verdict()}` : style === "colon" ? `- **${n}**: ${verdict()}` : style === "dash" ? `- ${n} — ${verdict()}` : `${i + 1}. ${n}: ${verdict()}`);
  s.b.stream(s.channel, "Status:\n\n" + items.join("\n") + "\n\n" + sentence(rng) + "\n");
  Object.assign(s.params, { style, items: names.length });
  return lookalikeCase("list-lookalike", s);
});

const perItemReport = gen("per-item-report", "lookalike", "short-chant", (rng) => {
  const s = setup(rng, "text");
  const files = distinct(rng, MODULES, rng.int(5, 12)).map((m) => `src/${m}/${rng.pick(["index", "handler", "service", "store"])}.ts`);
  const style = rng.pick(["atx", "bold", "numbered", "label", "name-heading"] as const);
  const note = rng.pick(["No changes needed.", "Looks good.", "No issues found.", "No issues found. All awaited calls are inside try/catch and errors are passed to next().", "Unchanged; the import is already used."]);
  const text = files.map((f, i) => style === "name-heading" ? `**Checking ${f.split("/")[1]}**\n\n${note}\n\n` : style === "atx" ? `### ${f}\n\n${note}\n\n` : style === "bold" ? `**${f}**\n${note}\n\n` : style === "numbered" ? `${i + 1}. \`${f}\`\n   - ${note}\n` : `${f}:\n${note}\n\n`).join("");
  s.b.stream(s.channel, text + sentence(rng) + "\n");
  Object.assign(s.params, { style, items: files.length, note: note.length });
  return lookalikeCase("per-item-report", s);
});

const headedDistinct = gen("headed-distinct", "lookalike", "headed-sections", (rng) => {
  const s = setup(rng, "reasoning");
  const style = rng.pick(["bold", "atx"] as const);
  const headings = distinct(rng, STEP_HEADINGS, rng.int(5, 9));
  const withTools = rng.chance(0.5);
  const short = rng.chance(0.3);
  headings.forEach((h, i) => {
    const body = short ? sentence(rng) : thought(rng, rng.int(1, 4));
    s.b.stream(s.channel, `${style === "bold" ? `**${h}**` : `### ${h}`}\n\n${opener(rng)}${body}\n\n`);
    if (withTools && i % 2 === 1) s.b.toolStep("read_file", { path: `src/${MODULES[i]}.ts` }, `1 | ${sentence(rng)}\n2 | ${sentence(rng)}`);
  });
  Object.assign(s.params, { style, sections: headings.length, withTools, short });
  return lookalikeCase("headed-distinct", s);
});

/** 12. A checklist walked over ten modules in one template: the module is the subject of each paragraph. */
const templatedEnumeration = gen("templated-enumeration", "lookalike", "templated-enumeration", (rng) => {
  const s = setup(rng, rng.chance(0.8) ? "reasoning" : "text");
  const modules = distinct(rng, MODULES, rng.int(8, 12));
  const style = rng.pick(["paragraph", "headed", "list", "line", "sentence"] as const);
  const checks = rng.pick([
    ["imports checked", "no cycles", "public API covered by tests"],
    ["error handling reviewed", "every await is inside try/catch", "errors are passed to next()"],
    ["config keys read once at startup", "defaults documented", "no secrets logged"],
  ]);
  const verdicts = ["ok", "ok", "ok", "needs a fix", "ok, minor cleanup"];
  const long = rng.chance(0.5);
  const body = (m: string) => {
    const v = rng.pick(verdicts);
    const detail = long ? ` I went through ${m}'s entry point and its helpers; ${checks.join(", ")}, and the tests for ${m} exercise the edge cases.` : "";
    return { text: `Module ${m}: ${checks.join(", ")}.${detail} Verdict: ${v}.`, v };
  };
  const text = modules.map((m) => {
    const { text: t, v } = body(m);
    // no label: the module is named inside the sentence, as its subject
    if (style === "sentence") return `Next I checked the ${m} module and found ${checks.join(", ")}, so the verdict for ${m} is ${v}.\n\n`;
    if (style === "headed") return `**Checking ${m}**\n\n${t}\n\n`;
    if (style === "list") return `- ${t}\n`;
    if (style === "line") return `${t}\n`;
    return `${t}\n\n`;
  }).join("");
  s.b.stream(s.channel, `I'll walk the checklist over each module.\n\n${text}${sentence(rng)}\n`);
  Object.assign(s.params, { style, modules: modules.length, long });
  return lookalikeCase("templated-enumeration", s);
});

/** Productive reasoning that repeats structure: recurring short phrases, the same opening, steps. */
const productiveReasoning = gen("productive-reasoning", "lookalike", "paraphrase", (rng) => {
  const s = setup(rng);
  const variant = rng.pick(["interjections", "same-opening", "steps", "restated-once", "hypotheses"] as const);
  const n = rng.int(5, 10);
  const withTools = rng.chance(0.4);
  const tic = rng.pick(["Let me check.", "Okay.", "Hmm.", "Let me look at the next one.", "I need to check the config file."]);
  const openingLine = "Let me look at the failing test output again and compare it with the parser. ";
  const goal = thought(rng, 2);
  for (let i = 0; i < n; i++) {
    let p: string;
    if (variant === "interjections") p = `${tic}\n${thought(rng, rng.int(2, 4))}`;
    else if (variant === "same-opening") p = openingLine + thought(rng, rng.int(1, 3));
    else if (variant === "steps") p = `Step ${i + 1}: ${thought(rng, rng.int(1, 3))}`;
    else if (variant === "restated-once") p = i === 0 || i === n - 1 ? `${i ? "To sum up: " : ""}${i ? drift(rng, goal, 0.15) : goal}` : thought(rng, rng.int(2, 3));
    else p = `Hypothesis ${i + 1}: ${sentence(rng)} If that holds, ${sentence(rng).toLowerCase()} ${sentence(rng)}`;
    s.b.stream(s.channel, p + "\n\n");
    if (withTools && i % 3 === 2) s.b.toolStep("execute_command", { command: `npm test -- --grep ${MODULES[i]}` }, `${i + 3} passing\n${i % 2} failing`);
  }
  Object.assign(s.params, { variant, paragraphs: n, withTools });
  return lookalikeCase("productive-reasoning", s);
});

/** A long markdown answer: headings, paragraphs, lists, code and tables, each part new. */
const markdownDoc = gen("markdown-doc", "lookalike", "block-repeat", (rng) => {
  const s = setup(rng, rng.chance(0.6) ? "text" : "reasoning");
  const parts: string[] = [];
  const headings = distinct(rng, STEP_HEADINGS, rng.int(3, 7));
  for (const h of headings) {
    parts.push(rng.chance(0.5) ? `## ${h}\n\n` : `**${h}**\n\n`);
    for (let k = rng.int(1, 3); k > 0; k--) {
      const kind = rng.pick(["para", "list", "code", "table"]);
      if (kind === "para") parts.push(thought(rng, rng.int(1, 3)) + "\n\n");
      else if (kind === "list") parts.push(Array.from({ length: rng.int(2, 5) }, () => `- ${sentence(rng)}`).join("\n") + "\n\n");
      else if (kind === "code") parts.push("```ts\n" + Array.from({ length: rng.int(2, 8) }, (_, i) => `const v${i} = ${rng.pick(MODULES)}.get("${rng.pick(MODULES)}");`).join("\n") + "\n```\n\n");
      else parts.push("| module | state |\n|---|---|\n" + distinct(rng, MODULES, rng.int(2, 6)).map((m) => `| ${m} | ${rng.pick(["ok", "stale", "broken"])} |`).join("\n") + "\n\n");
    }
  }
  s.b.stream(s.channel, parts.join(""));
  Object.assign(s.params, { sections: headings.length, chars: parts.join("").length });
  return lookalikeCase("markdown-doc", s);
});

/** Options weighed side by side: one sentence shape, different content in several slots. */
const comparison = gen("option-comparison", "lookalike", "paraphrase", (rng) => {
  const s = setup(rng);
  const options = distinct(rng, ["an in-memory map", "an LRU cache", "Redis", "a SQLite table", "a file cache", "memcached", "a write-through cache", "no cache at all"], rng.int(4, 7));
  const adjectives = ["faster", "slower", "simpler", "harder to deploy", "cheaper", "safer", "more fragile"];
  const text = options.map((o, i) => `Option ${i + 1} is ${o}: it is ${rng.pick(adjectives)} than the current code, it ${rng.pick(["keeps", "loses", "shares"])} entries across restarts, and it ${rng.pick(["needs", "does not need"])} a new dependency, so ${rng.pick(["I would pick it", "I would rather not", "it is a fallback"])}.`).join(rng.pick(["\n\n", "\n"]));
  s.b.stream(s.channel, text + "\n\n" + sentence(rng) + "\n");
  Object.assign(s.params, { options: options.length });
  return lookalikeCase("option-comparison", s);
});

// ================================================================ issue 22: languages, wider drift, turns
/** A session in one of the languages, its user's request in that language's words. */
function setupIn(rng: Rng, lang: Lang, channel?: Channel): Setup {
  const s = setup(rng, channel);
  s.params.lang = lang;
  return s;
}

/** 1. A thought restated with 35-60% of its words changed, in any language: no sentence repeats. */
const paraphraseWide = gen("paraphrase-wide", "loop", "paraphrase", (rng) => {
  const lang = rng.pick(LANGS);
  const s = setupIn(rng, lang);
  for (let k = rng.int(0, 2); k > 0; k--) s.b.stream(s.channel, thoughtIn(rng, lang, rng.int(2, 3)) + "\n\n");
  const share = rng.int(35, 60) / 100;
  const base = thoughtIn(rng, lang, rng.int(2, 4));
  const sep = rng.pick(["\n\n", "\n\n", "\n"]);
  const marks: number[] = [];
  for (let c = 0; c < 6; c++) marks.push(s.b.stream(s.channel, (c === 0 ? base : driftIn(rng, lang, base, share)) + sep, true));
  Object.assign(s.params, { drift: share, block: base.length, sep: JSON.stringify(sep) });
  return loopCase("paraphrase-wide", s, marks);
});

/** 2. Text decaying into short fragments that recombine the same few words (a copy: three fragments). */
const fragments = gen("degenerate-fragments", "loop", "short-chant", (rng) => {
  const lang = rng.pick(LANGS);
  const s = setupIn(rng, lang);
  for (const p of [thoughtIn(rng, lang, rng.int(2, 3))]) s.b.stream(s.channel, p + "\n\n");
  const v = vocabulary(lang);
  // the few words: parts of one subject, object and clause
  const pool = [rng.pick(v.subjects), rng.pick(v.objects), rng.pick(v.verbs), rng.pick(v.clauses).split(" ").slice(0, 3).join(" ")];
  const words = lang === "zh" ? pool : pool.join(" ").split(" ").filter((w) => w.length > 2);
  const sep = rng.pick(["\n", "\n\n", " "]);
  const marks: number[] = [];
  for (let c = 0; c < 8; c++) {
    const copy = Array.from({ length: 3 }, () => {
      const n = rng.int(2, Math.min(5, words.length));
      const picked = Array.from({ length: n }, () => rng.pick(words));
      return picked.join(v.space) + rng.pick([".", "...", "", "!"]);
    }).join(sep);
    marks.push(s.b.stream(s.channel, copy + sep, true));
  }
  Object.assign(s.params, { words: words.length, sep: JSON.stringify(sep) });
  return loopCase("degenerate-fragments", s, marks);
});

/** 5a. The same question asked after every user reply ("yes", "no", "just do it"), lightly reworded. */
const turnQuestion = gen("turn-question", "loop", "turn-question", (rng) => {
  const lang = rng.pick(LANGS);
  const s = setupIn(rng, lang, "text");
  const v = vocabulary(lang);
  s.b.stream("text", thoughtIn(rng, lang, 2) + "\n\n");
  const question = rng.pick(v.questions) + (rng.chance(0.5) ? v.space + thoughtIn(rng, lang, 1) : "");
  const share = rng.int(0, 30) / 100;
  const marks: number[] = [];
  for (let c = 0; c < 6; c++) {
    if (c > 0) { s.b.end(); s.b.user(v.replies[c % v.replies.length]); s.b.request(); }
    marks.push(s.b.stream("text", (c === 0 ? question : driftIn(rng, lang, question, share)) + "\n", true));
  }
  Object.assign(s.params, { drift: share, block: question.length });
  return loopCase("turn-question", s, marks);
});

/** 5b. The same full answer again after every automatic nudge ("continue"). */
const nudgeAnswer = gen("nudge-answer", "loop", "block-repeat", (rng) => {
  const lang = rng.pick(LANGS);
  const s = setupIn(rng, lang, "text");
  const v = vocabulary(lang);
  const answer = Array.from({ length: rng.int(2, 4) }, () => thoughtIn(rng, lang, rng.int(2, 3))).join("\n\n") + "\n";
  const nudge = rng.pick(v.nudges);
  const share = rng.chance(0.5) ? 0 : rng.int(5, 25) / 100;
  const marks: number[] = [];
  for (let c = 0; c < 5; c++) {
    if (c > 0) { s.b.end(); s.b.user(nudge); s.b.request(); }
    marks.push(s.b.stream("text", c === 0 || share === 0 ? answer : answer.split("\n\n").map((p) => driftIn(rng, lang, p, share)).join("\n\n"), true));
  }
  Object.assign(s.params, { drift: share, block: answer.length });
  return loopCase("nudge-answer", s, marks);
});

// ---------------------------------------------------------------- issue 22 look-alikes
/** Parallel sentences 50-67% alike, each adding a new fact: a case analysis over codes. */
const parallelEnumeration = gen("parallel-enumeration", "lookalike", "paraphrase", (rng) => {
  const s = setup(rng, rng.chance(0.7) ? "reasoning" : "text");
  const codes = distinct(rng, ["OB", "OF", "OA", "OC", "OD", "OE", "OG", "OH", "OI", "OK", "OL", "OM"], rng.int(4, 8));
  const fmt = rng.pick(["`%Y-%m-%d`", "`DD/MM/YYYY`", "ISO 8601", "`HH:MM`", "`%H%M%S`", "RFC 2822"]);
  const fn = rng.pick(["format_value", "parse_record", "render_cell", "encode_field"]);
  const text = codes.map((c, i) => {
    const n = rng.int(2, 999), width = rng.int(1, 40);
    return rng.pick([
      `For '${c}' the ${fn} branch at line ${n} pads the value to ${width} characters and uses the ${fmt} format.`,
      `For '${c}', ${fn} reads field ${i + 2} and writes it with width ${width} in the ${fmt} format (line ${n}).`,
      `For '${c}' the value goes through ${fn} at line ${n}; width ${width}, ${fmt} format.`,
    ]);
  }).join(rng.pick(["\n", "\n\n", " "]));
  s.b.stream(s.channel, `Let me go through each code ${fn} handles.\n\n${text}\n\n${sentence(rng)}\n`);
  Object.assign(s.params, { codes: codes.length });
  return lookalikeCase("parallel-enumeration", s);
});

/** A final self-review weighing one check three ways, each from a new angle with its own facts. */
const selfReview = gen("self-review", "lookalike", "paraphrase", (rng) => {
  const s = setup(rng, "reasoning");
  const mod = rng.pick(MODULES);
  const fn = rng.pick(["normalizeRows", "applyLimit", "readHeader", "flushQueue", "retryRequest"]);
  const line = rng.int(20, 400);
  const angles = [
    `First, from the caller's side: ${mod}/api.ts calls ${fn} with the raw rows at line ${line + 3}, so an empty array reaches the new guard and returns [] as before.`,
    `Second, from the test's side: test/${mod}.test.ts covers the empty case in "${fn} returns empty" and the limit case in "caps at ${rng.int(2, 50)} rows", and both expect exactly what the patch returns.`,
    `Third, from the data's side: rows with a null id come from the ${rng.pick(["CSV import", "webhook", "admin form"])}, and the guard at line ${line} skips them before the limit of ${rng.int(10, 500)} is applied.`,
    `Finally, the type of the return value: ${fn} still returns Row[] (never undefined), so the ${rng.int(2, 9)} other call sites compile unchanged.`,
  ];
  s.b.stream(s.channel, `Let me review the change to ${fn} once more before finishing.\n\n${angles.slice(0, rng.int(3, 4)).join("\n\n")}\n\nThe check holds from every side, so the change is done.\n`);
  Object.assign(s.params, { angles: 3 });
  return lookalikeCase("self-review", s);
});

/** A plan settling where to insert one line: candidate places weighed, each naming another spot. */
const insertPlan = gen("insert-plan", "lookalike", "paraphrase", (rng) => {
  const s = setup(rng, "reasoning");
  const file = `src/${rng.pick(MODULES)}/${rng.pick(["index", "handler", "service"])}.ts`;
  const stmt = rng.pick(["`await lock.release();`", "`cache.delete(key);`", "`logger.flush();`", "`state.retries = 0;`"]);
  const spots = distinct(rng, ["right after the `validate()` call", "before the `return result;`", "inside the `finally` block", "at the top of `handleError`", "after the loop that builds `rows`", "in the `catch` branch"], rng.int(3, 5));
  const lines = spots.map((sp, i) => `Option ${i + 1}: insert ${stmt} ${sp} in ${file} (line ${rng.int(10, 300)}). ${rng.pick(["That runs on every path", "That misses the early return", "That runs twice when the retry fires", "That is after the error is thrown", "That keeps the lock for the whole request"])}${rng.pick([", which is what we want.", ", so it is not enough.", ", so it is wrong here."])}`);
  s.b.stream(s.channel, `Where should ${stmt} go?\n\n${lines.join("\n\n")}\n\nSo ${spots[0]} it is; I will make that edit now.\n`);
  Object.assign(s.params, { spots: spots.length });
  return lookalikeCase("insert-plan", s);
});

/** Productive reasoning in one of the languages: every paragraph a new thought, tools between. */
const productiveInLanguage = gen("productive-language", "lookalike", "paraphrase", (rng) => {
  const lang = rng.pick(LANGS);
  const s = setupIn(rng, lang);
  const n = rng.int(5, 9);
  for (let i = 0; i < n; i++) {
    s.b.stream(s.channel, thoughtIn(rng, lang, rng.int(2, 3)) + "\n\n");
    if (i % 3 === 2) s.b.toolStep("read_file", { path: `src/${MODULES[i]}.ts` }, `1 | ${sentenceIn(rng, lang)}\n2 | ${sentenceIn(rng, lang)}`);
  }
  Object.assign(s.params, { paragraphs: n });
  return lookalikeCase("productive-language", s);
});

/** A conversation over several user turns: each reply asks something else and gets its own answer. */
const conversation = gen("turn-conversation", "lookalike", "turn-question", (rng) => {
  const lang = rng.pick(LANGS);
  const s = setupIn(rng, lang, "text");
  const v = vocabulary(lang);
  const turns = rng.int(4, 7);
  for (let t = 0; t < turns; t++) {
    if (t > 0) { s.b.end(); s.b.user(rng.chance(0.4) ? rng.pick(v.replies) : sentenceIn(rng, lang)); s.b.request(); }
    s.b.stream("text", thoughtIn(rng, lang, rng.int(1, 3)) + (t === 1 && rng.chance(0.5) ? v.space + v.questions[0] : "") + "\n");
  }
  Object.assign(s.params, { turns });
  return lookalikeCase("turn-conversation", s);
});

export const textClasses: CaseGenerator[] = [
  shortChant, headedSections, paraphrase, blockRepeat, offByOne,
  chantCode, chantTable, chantList, perItemReport, headedDistinct, templatedEnumeration, productiveReasoning, comparison, markdownDoc,
  paraphraseWide, fragments, turnQuestion, nudgeAnswer,
  parallelEnumeration, selfReview, insertPlan, productiveInLanguage, conversation,
  interjectedChant,
];
