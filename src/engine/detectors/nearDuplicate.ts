/**
 * c. Paragraphs, long lines, or sentences of long lines, whose wording drifts a little between
 * copies: the same thought restated again and again in other words, which exact matching
 * misses. Openers ("Wait,", "Hmm, actually") are not part of a unit. Each unit is compared
 * with the recent units of the same channel and heading by word 3-gram Jaccard similarity; a
 * unit alike to minCopies - 1 earlier ones is a loop. Code, tables, dividers and list items are
 * not units (lists are list-template's), and the same text under different headings is a
 * per-item report, not a loop; so are units that differ in one short slot only when they are
 * short or the slot names a file or identifier ("Updated a.ts to use the logger." / "Updated
 * b.ts ...").
 *
 * Reworded copies keep most of their words but few word triples, so units are also alike by
 * word set (beyond a shared opening), provided they keep some word pairs and content words. Titles
 * that only restate ("Confirming the fix", "Verifying the approach") do not wall off what is under
 * them; headings and labels that name items do, and so does one template over several subjects
 * (the same name standing in aligned places). A thought that drifts further each time is counted
 * through its cluster.
 *
 * Cost per unit: O(window × unit words), units being ≥ minWords words; memory: window units.
 * count = catches since the user last spoke (one per request), plus one once the caught thought has
 * two copies more or its copies are all but word for word the same: the first catch of a reworded
 * thought warns, the grown thought or a second catch aborts, a third stops.
 * Units that are only loosely alike (synonyms swapped in, the frame kept in order, nothing new named)
 * need a copy more.
 */
import type { Detector, DetectorDefinition, DetectorSettings, DetectorStatus, Finding } from "../detector";
import { STREAM_STRENGTH } from "../detector";
import { excerpt } from "../guidance";
import { CatchCounter, numberSetting, stripOpeners, type StreamChannel, type StreamLine, type StreamParagraph, type StreamSentence } from "../streamText";
import { ContentTokens, NAME_TOKEN, SPAN_TOKEN, WordTable, countWords, idsFrom, wordsKey, wordsOf } from "../words";
import { channelName } from "./streamRepeat";
import { SectionScopes } from "./sectionScope";

export const NEAR_DUPLICATE_DEFAULTS: DetectorSettings = {
  enabled: true,
  warnAt: 1,
  blockAt: 2,
  stopAt: 3,
  /** Alike units (this one included) that make a loop. */
  minCopies: 3,
  /** Word 3-gram Jaccard similarity from which two units are alike (0..1)... */
  minSimilarity: 0.5,
  /**
   * ...or word-set Jaccard: a thought restated with 10-40% of its words changed or its clauses
   * moved keeps most of its words but few of its word triples (0 switches this off).
   */
  minWordSetSimilarity: 0.45,
  /** Units shorter than this many words are not compared. */
  minWords: 12,
  /** Recent units each new one is compared with, per channel. */
  window: 12,
  /** Also compare the sentences of long prose lines (a paragraph written as one line, a run-on loop). */
  sentenceUnits: true,
};

/**
 * A line judged so far (at a stop, before its newline) is compared only with units it has at least
 * this share of the words of: a shorter one may be the opening of a longer line ("I re-ran the
 * suite." then something new each time), which only the whole line shows.
 */
const SO_FAR_MIN_SHARE = 0.9;

/** Words of a unit compared at most (a long paragraph is judged on its first part). */
const MAX_UNIT_WORDS = 300;

/** Units shorter than this that differ from each other in one short slot are template instances... */
const TEMPLATE_MAX_WORDS = 30;
const TEMPLATE_MAX_SLOT = 3;
/** A slot names an item only if one of its words is at least this long (or looks like a name). */
const SLOT_MIN_CHARS = 5;
/** ...and so are longer ones whose slot names something: a file, a path, a version, an identifier. */
const ENTITY = /[\d._/-]/;

/**
 * Whether two units are one template with one slot filled differently ("Updated a.ts to use the
 * logger." / "Updated b.ts to use the logger."): a per-item report, not a thought restated.
 */
function oneSlotApart(a: readonly string[], b: readonly string[]): boolean {
  const limit = Math.min(a.length, b.length);
  let p = 0;
  while (p < limit && a[p] === b[p]) p++;
  let q = 0;
  while (q < limit - p && a[a.length - 1 - q] === b[b.length - 1 - q]) q++;
  if (a.length - p - q > TEMPLATE_MAX_SLOT || b.length - p - q > TEMPLATE_MAX_SLOT || p + q >= limit) return false;
  // a word put in or left out is a rewording: an item's slot holds another name on both sides
  if (a.length - p - q === 0 || b.length - p - q === 0) return false;
  const slot = [...a.slice(p, a.length - q), ...b.slice(p, b.length - q)];
  // a slot of little words only ("the" / "this", "a" / "") is a rewording, not another item
  if (!slot.some((w) => w.length >= SLOT_MIN_CHARS || ENTITY.test(w))) return false;
  if (a.length < TEMPLATE_MAX_WORDS && b.length < TEMPLATE_MAX_WORDS) return true;
  return slot.some((w) => ENTITY.test(w));
}

/** A label opening a unit ("Module auth:", "Option 2 is Redis:"): what the unit is about. */
const LEADING_LABEL = /^\W*([^:.!?\n]{1,60}?)\*{0,2}:\s/;
const LABEL_MAX_WORDS = 8;
/** What only a name holds: a digit, a path or file separator, an underscore, code quotes (a hyphen is just a word: "Double-checking"). */
const NAME = /[\d#./_`@\\()[\]{}<>=]/;
/** A code span near the start of a unit ("The `AzureKeyCredential` is ..."): the item it describes. */
const LEADING_CODE = /^[^`\n]{0,40}?`([^`\n]{1,60})`/;
/** Units that open a section under a title are compared from this many words: the title says what they are. */
const SECTION_BODY_MIN_WORDS = 6;
const SENTENCE_MIN_WORDS = 8;

/** What a unit says it is about: a leading label, or else a code span near its start (kept with its backticks). */
function labelOf(text: string): { words: string[]; raw: string } | undefined {
  const m = LEADING_LABEL.exec(text);
  if (m) {
    const words = wordsOf(m[1], LABEL_MAX_WORDS + 1).map((w) => w.replace(/\d+/g, "#"));
    if (words.length > 0 && words.length <= LABEL_MAX_WORDS) return { words, raw: m[1] };
  }
  const code = LEADING_CODE.exec(text);
  return code ? { words: [code[1].toLowerCase()], raw: `\`${code[1]}\`` } : undefined;
}

/**
 * Whether two headings or labels name different items of one enumeration rather than retitle one
 * thought: a name (a path, a file, an identifier, a single word), or one template whose leading
 * words stay and whose rest changes ("Checking auth" / "Checking billing", "Module #: auth").
 * Reasoning titles that restate ("Confirming the fix" / "Verifying the approach") change their lead.
 */
function namesItems(a: readonly string[], b: readonly string[], rawA: string, rawB: string): boolean {
  if (NAME.test(rawA) || NAME.test(rawB)) return true;
  if (a.length <= 1 || b.length <= 1) return true;
  return a[0] === b[0];
}

function count(words: readonly string[], w: string): number {
  let n = 0;
  for (const x of words) if (x === w) n++;
  return n;
}

/**
 * Whether the units are one template over two subjects ("... checked the auth module ... the
 * verdict for auth is ok." / "... billing ... for billing ..."): aligned from the start or from the
 * end, the same word of one stands in two places or more where the other has its own, and neither
 * mentions the other's. A restated thought keeps its subject.
 */
function subjectsDiffer(a: readonly string[], b: readonly string[]): boolean {
  const n = Math.min(a.length, b.length);
  let inA: Set<string> | undefined, inB: Set<string> | undefined;
  for (const fromEnd of [false, true]) {
    const pairs = new Map<string, number>();
    for (let k = 0; k < n; k++) {
      const x = fromEnd ? a[a.length - 1 - k] : a[k], y = fromEnd ? b[b.length - 1 - k] : b[k];
      if (x === y) continue;
      const key = `${x}\u0000${y}`;
      const seen = (pairs.get(key) ?? 0) + 1;
      pairs.set(key, seen);
      if (seen !== 2) continue;
      inA ??= new Set(a);
      inB ??= new Set(b);
      // a subject may be named like a word of the template ("the imports module ... imports
      // checked"): then it stands in more places in its own unit than in the other; short everyday
      // words are left out (a synonym swapped in twice, "the" -> "this", is a rewording)
      const own = (w: string, mine: readonly string[], other: readonly string[], inOther: Set<string>) => !inOther.has(w) || (w.length >= 5 && count(mine, w) >= count(other, w) + 2);
      if (own(x, a, b, inB) && own(y, b, a, inA)) return true;
    }
  }
  return false;
}

/** A unit this alike to a member of a drifting thought's cluster joins the whole cluster. */
const CHAIN_SIMILARITY = 0.55;

/** Units this alike are the same words: repeated among new material, they are a refrain. */
const REFRAIN_SIMILARITY = 0.9;

/**
 * A thought restated with synonyms swapped in (40% of its words changed, "I need to change X so the
 * maximum comes from the options" / "I must modify X so the cap is taken from the config") keeps
 * fewer of its words than the word-set test asks, but its frame: the words it keeps stay in their
 * order. Loosely alike: this word-set Jaccard, this share of the longer unit's words in one common
 * order, this content-word Jaccard (one frame over other subjects keeps its order, not its content),
 * and nothing named (a number, an identifier) that the earlier unit did not name. Being loose, such a
 * likeness needs a copy more than minCopies.
 */
const LOOSE_WORD_SET_SIMILARITY = 0.3;
const LOOSE_ORDER_SHARE = 0.55;
const LOOSE_CONTENT_SIMILARITY = 0.4;
/** Units longer than this are not compared loosely (the common order costs one unit's words times the other's). */
const LOOSE_MAX_WORDS = 80;
const LOOSE_EXTRA_COPIES = 1;

/**
 * Class 9 of the restated thought: the same claims reached again in new words. A verdict or an act
 * has many words in an agent's self-talk ("done", "finished", "complete"; "passes", "is green",
 * "succeeds"; "invoke", "call", "use"), and a restatement swaps them freely; put to one word per
 * meaning, what a unit claims is compared as a set. Only everyday verdict and act words are merged
 * (never names: a claim about another file or number is another claim), and the words must still
 * share some pairs in order (see MIN_PAIR_SIMILARITY) and name nothing new. Being loose, it needs a copy more.
 */
const CLAIM_MEANINGS: Record<string, string> = {
  done: "done complete completed finished ready wrapped",
  pass: "pass passes passed passing green succeeds succeeded succeed works working clean",
  fail: "fail fails failed failing broken red",
  build: "build builds compile compiles compiled compilation",
  test: "test tests checks specs suite",
  call: "call invoke use trigger",
  report: "report return hand present",
  result: "result results outcome",
  issue: "issue problem bug",
  change: "change modify update alter adjust tweak",
  fix: "fix repair resolve",
  verify: "verify confirm ensure double-check",
  seems: "seems appears looks",
  everything: "everything whole thing",
};
const CLAIM_WORDS = new Map<string, number>(Object.values(CLAIM_MEANINGS).flatMap((words, meaning) => words.split(" ").map((w) => [w, meaning] as [string, number])));
/** The claims' Jaccard that makes two units alike, and the verdicts or acts each must make to be compared so. */
const CLAIMS_SIMILARITY = 0.55;
const CLAIMS_MIN_MEANINGS = 2;
/** The meanings that are verdicts (done, passes, fails): a unit compared by its claims reaches one. */
const VERDICT_MASK = ["done", "pass", "fail"].reduce((mask, v) => mask | (1 << Object.keys(CLAIM_MEANINGS).indexOf(v)), 0);

/** The set bits of a mask. */
function bitCount(mask: number): number {
  let n = 0;
  for (let m = mask; m !== 0; m &= m - 1) n++;
  return n;
}
/** Units claiming fewer things than this are not compared by claims. */
const CLAIMS_MIN_WORDS = 4;

/** Word-pair Jaccard below which two units with the same words do not say the same thing in other words. */
const MIN_PAIR_SIMILARITY = 0.1;

/** Content-word Jaccard below which two units with alike words and word pairs speak of other things. */
const MIN_CONTENT_SIMILARITY = 0.3;
/** Words that carry no content however long they are (shorter words are never content words). */
const FUNCTION_WORDS = new Set("that this with from then when have will into also just only does what which there their because since while after before should would could about them they were been being here where these those some such than very more most other each".split(" "));

/** Distinct words the detector's word ids are kept for; past that the table keeps only those of the units in the window. */
const MAX_TABLE_WORDS = 1 << 12;
/**
 * The bound the table starts with, doubled at each restart up to MAX_TABLE_WORDS: the first
 * restarts come in the first units, before compare is compiled (a call compare first makes after
 * that, at a table's first restart, would throw its compiled code away).
 */
const FIRST_TABLE_WORDS = 1 << 9;

/** Kind of a word in the detector's WordTable: a content word (long enough, not a function word). */
const CONTENT = 1;
const kindOfWord = (w: string): number => (w.length >= 4 && !FUNCTION_WORDS.has(w) ? CONTENT : 0);

/**
 * Word-set similarity of what two units say beyond a shared opening or closing: paragraphs that
 * all open with the same sentence and then say something new are judged on the new part.
 */
function bagSimilarity(table: WordTable, a: Unit, b: Unit, atLeast: number): number {
  // ids are equal exactly when words are
  const x = a.ids, y = b.ids;
  const limit = Math.min(x.length, y.length);
  let p = 0;
  while (p < limit && x[p] === y[p]) p++;
  let q = 0;
  while (q < limit - p && x[x.length - 1 - q] === y[y.length - 1 - q]) q++;
  // all the words: b's word set is held by the table (b is the unit being compared with several)
  if (p + q < 3) return table.jaccardWithHeldWords(x, (a.distinct ??= table.distinctCount(x)), atLeast);
  return table.setJaccard(x, p, x.length - q, y, p, y.length - q);
}

/** The unit's label (read the first time it is asked for). */
function labelOfUnit(u: Unit): string[] | null {
  if (u.label === undefined) {
    const label = labelOf(u.labelStrip ? stripOpeners(u.labelSource) : u.labelSource);
    u.label = label?.words ?? null;
    u.labelText = label?.raw ?? "";
  }
  return u.label;
}

/** Whether the text has at least n spaces (a cheap lower bound on its word count). */
function hasSpaces(text: string, n: number): boolean {
  let found = 0;
  for (let i = text.indexOf(" "); i >= 0 && found < n; i = text.indexOf(" ", i + 1)) found++;
  return found >= n;
}

type UnitKind = "line" | "paragraph" | "sentence";

/** A line id no line has (StreamLines counts them from 1). */
const NO_LINE = -1;

/** The index of the first word read (from index from on) that starts at or after position at of the line. */
function firstWordFrom(words: LineWords, at: number, from: number): number {
  let j = from;
  while (j < words.count && words.starts[j] < at) j++;
  return j;
}

/** An earlier unit alike to the one compared, how alike, and whether only loosely. */
interface Alike { unit: Unit; similarity: number; loose: boolean }

interface Unit {
  /** Word ids in the detector's WordTable (renumbered in place when it restarts). */
  ids: number[];
  /**
   * Its words, distinct word 3-gram and 2-gram hashes (in no order): computed when a
   * comparison first needs them (most units are told apart from the others by shingles and word
   * sets alone).
   */
  words?: string[];
  shingles?: number[];
  pairs?: number[];
  /** How many distinct words it has, for word-set similarity with the unit being compared. */
  distinct?: number;
  /** Words of the label the unit opens with (digits as #), null if none; read when a comparison needs it. */
  label?: string[] | null;
  labelText: string;
  /** What the label is read from, and whether its openers are still to strip. */
  labelSource: string;
  labelStrip: boolean;
  /** The heading the unit is compared under: its own for item headings, "" under titles that restate. */
  scope: string;
  section: string;
  event: number;
  channel: StreamChannel;
  /** Key of the drifting thought this unit belongs to, inherited from the earliest alike unit (its own made when first read). */
  cluster?: string;
  /** The first unit of its kind under its heading: what the section says. */
  leads: boolean;
  /** Alike to no earlier unit: something new was said. */
  novel: boolean;
  /** The unit's text (openers stripped), and the names and numbers it gives (read when a comparison needs them). */
  text: string;
  facts?: Set<number>;
  /** The names it gives, as namesIn reads them (for the loose likeness only). */
  names?: Set<string>;
  /**
   * What it claims, read when a comparison needs it: its content word ids and its verdict and act
   * meanings (as -1 - meaning), sorted, no repeats. Forgotten when the table renumbers.
   */
  claims?: Int32Array;
  /** The verdict and act meanings it makes, a bit each (read first: most units make fewer than two). */
  claimMask?: number;
}

const WORD_RUN = /[\p{L}\p{N}_]+(?:[./\\-][\p{L}\p{N}_]+)*/gu;
const NAME_LIKE = /[\p{N}_./\\]|\p{Ll}\p{Lu}|^\p{Lu}{2,}$/u;

/** The names and numbers a text gives: words with a digit, an underscore, a path or file separator, an inner capital, or all in capitals. */
function namesIn(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.slice(0, MAX_UNIT_WORDS * 12).matchAll(WORD_RUN)) if (NAME_LIKE.test(m[0]) && m[0].length >= 2) names.add(m[0].toLowerCase());
  return names;
}

/**
 * The words of the sentences read so far of a channel's current line (by scanWords), so the line
 * takes them instead of reading its text again: the sentences of a long line cover most of it.
 */
interface LineWords {
  /** The line's id (StreamLine.id, StreamSentence.line). */
  line: number;
  ids: number[];
  /** Where each word starts in the line. */
  starts: number[];
  count: number;
  /** Where the next sentence starts in the line: the sentences read cover the line up to here, each followed by a space or tab. */
  next: number;
  /** The table's restarts when the first sentence was read (ids from before a restart mean nothing after it). */
  restarts: number;
  /** false once a sentence could not be read this way (a character only the regex reads, a gap): the line reads its own text. */
  usable: boolean;
}

class NearDuplicateDetector implements Detector {
  readonly id = "near-duplicate" as const;
  /** Per channel, the recent units of each kind. */
  private recent = new Map<StreamChannel, Record<UnitKind, Unit[]>>();
  private counter = new CatchCounter();
  private readonly minCopies: number;
  private readonly minSimilarity: number;
  private readonly minWords: number;
  private readonly window: number;
  private readonly sentenceUnits: boolean;
  private readonly minWordSetSimilarity: number;
  /** Per channel: the last heading seen, and the scope each heading got (bounded: headings of one request). */
  private headings = new Map<string, { last: string; scopes: Map<string, string> }>();
  private strongest = { alike: 0, detail: "" };
  private table = new WordTable(kindOfWord);
  /** Distinct words past which the table restarts (see FIRST_TABLE_WORDS). */
  private tableWords = FIRST_TABLE_WORDS;
  private lineWords = new Map<StreamChannel, LineWords>();
  private factTokens = new ContentTokens();
  /** Clusters caught in this request, and whether the catch was already the grown one (the harder rung). */
  private caughtThisRequest = new Map<string, { count: number; grown: boolean }>();
  /** The heading each unit is compared under, connectors ("To be sure:") passed over. */
  private sections = new SectionScopes();
  /** Per channel: the unfinished line last judged (onLineSoFar; NO_LINE: none), its length then, the unit it left in the window, and whether longer units were passed over. */
  private lineSoFar = new Map<StreamChannel, { line: number; length: number; unit: Unit | undefined; passedOver: boolean }>();
  /** The unit the last compare put in the window (undefined: none). */
  private lastUnit: Unit | undefined;
  /** The unit being compared is a line so far (onLineSoFar). */
  private judgingSoFar = false;
  /** Whether that comparison passed over a longer unit (SO_FAR_MIN_SHARE). */
  private soFarPassedOver = false;

  constructor(settings: DetectorSettings) {
    this.minCopies = Math.max(2, numberSetting(settings, "minCopies", NEAR_DUPLICATE_DEFAULTS));
    this.minSimilarity = numberSetting(settings, "minSimilarity", NEAR_DUPLICATE_DEFAULTS);
    this.minWords = Math.max(3, numberSetting(settings, "minWords", NEAR_DUPLICATE_DEFAULTS));
    this.window = Math.max(this.minCopies, Math.min(64, numberSetting(settings, "window", NEAR_DUPLICATE_DEFAULTS)));
    this.sentenceUnits = settings.sentenceUnits !== false;
    this.minWordSetSimilarity = numberSetting(settings, "minWordSetSimilarity", NEAR_DUPLICATE_DEFAULTS);
  }

  onRequestStart(): void {
    // (new maps, not clear(): see LineRepeatDetector.onRequestStart)
    if (this.recent.size > 0) this.recent = new Map();
    // a new request's lines are new lines (ids never come again); the arrays are kept for them
    for (const words of this.lineWords.values()) words.usable = false;
    if (this.headings.size > 0) this.headings = new Map();
    this.counter.newRequest();
    if (this.caughtThisRequest.size > 0) this.caughtThisRequest = new Map();
    this.sections.clear();
    this.strongest = { alike: 0, detail: "" };
  }

  onLine(line: StreamLine): Finding[] | void {
    const found = this.readLine(line);
    return found && [found];
  }

  /**
   * A line so far, its last sentence just ended: judged now, as the line it may be (a thought
   * ending its line is caught with its last chunk). Its unit stands in the window until the line
   * comes whole: the same text is not judged again, a longer one takes its place.
   */
  onLineSoFar(line: StreamLine): Finding[] | void {
    const found = this.readLine(line, true);
    return found && [found];
  }

  /** A line so far can only be alike to a line this request already had. */
  wantsLineSoFar(channel: StreamChannel): boolean {
    return (this.recent.get(channel)?.line.length ?? 0) > 0;
  }

  onParagraph(p: StreamParagraph): Finding[] | void {
    const found = this.readParagraph(p);
    return found && [found];
  }

  onSentence(x: StreamSentence): Finding[] | void {
    if (!this.sentenceUnits) return;
    const words = this.lineWordsOf(x.channel);
    // a sentence is about what its line opens with ("Module auth: ... The tests for auth pass.")
    const section = this.sections.of(x.channel, x.section);
    const found = this.compare(x.channel, "sentence", x.text, section, x.event, x.lineHead, x, section !== x.section);
    // too short to be a unit, its words are still the line's (unless a line so far read them already)
    if (x.line !== words.line || x.at >= words.next) this.readSentenceWords(words, x);
    return found && [found];
  }

  private readLine(line: StreamLine, soFar = false): Finding | undefined {
    const judged = this.lineSoFar.get(line.channel);
    if (judged && judged.line === line.id) {
      // judged already, as it stands (unless longer units were passed over then: judged whole now)
      if (judged.length === line.text.length && !judged.passedOver) return;
      // the line grew past the stop it was judged at: the whole line takes the place of what it was
      const recent = this.recent.get(line.channel)?.line;
      if (judged.unit && recent && recent[recent.length - 1] === judged.unit) recent.pop();
      // (marked as judging no line rather than deleted: a Map emptied by delete shrinks its table, each time)
      judged.line = NO_LINE;
      judged.unit = undefined;
    }
    // a list item's wrapped text is the item's (list items are list-template's)
    if (line.kind !== "prose" || line.continuation) return;
    const section = this.sections.of(line.channel, line.section);
    this.lastUnit = undefined;
    this.judgingSoFar = soFar;
    this.soFarPassedOver = false;
    const found = this.compare(line.channel, "line", line.text, section, line.endEvent, line.text, line, section !== line.section);
    this.judgingSoFar = false;
    if (soFar && line.id !== undefined) {
      const mark = judged ?? { line: NO_LINE, length: 0, unit: undefined, passedOver: false };
      mark.line = line.id;
      mark.length = line.text.length;
      mark.unit = this.lastUnit;
      mark.passedOver = this.soFarPassedOver;
      if (!judged) this.lineSoFar.set(line.channel, mark);
    }
    return found;
  }

  private readParagraph(p: StreamParagraph): Finding | undefined {
    if (p.lines.length < 2 || p.lines.some((l) => l.kind === "list")) return;
    // a paragraph of long lines is judged line by line already; of short lines, as a whole
    for (const l of p.lines) if (countWords(l.text, this.minWords) >= this.minWords) return;
    const section = this.sections.of(p.channel, p.section);
    return this.compare(p.channel, "paragraph", p.text, section, p.endEvent, p.text, undefined, section !== p.section);
  }

  /** Compares a unit with the recent ones of its kind and keeps it among them: the finding if it makes a loop. */
  private compare(channel: StreamChannel, unitKind: UnitKind, text: string, section: string, event: number, labelSource = text, from?: StreamSentence | StreamLine, afterConnector = false): Finding | undefined {
    // a sentence's words are read for its line too, and a line takes those its sentences read
    const sentence = unitKind === "sentence" ? (from as StreamSentence | undefined) : undefined, line = unitKind === "line" ? (from as StreamLine | undefined) : undefined;
    const scope = this.scopeOf(channel, section);
    // the body of a section under a title that restates, and a sentence of a run-on line (a thought
    // restated in short sentences), are judged from fewer words
    // (so is what follows a connector, "To be sure:": the thought said again after it)
    const minWords = (section !== "" && scope === "") || afterConnector ? Math.min(this.minWords, SECTION_BODY_MIN_WORDS) : unitKind === "sentence" ? Math.min(this.minWords, SENTENCE_MIN_WORDS) : this.minWords;
    if (!hasSpaces(text, minWords - 1)) return; // too short to be a unit: skip the word split
    const stripped = stripOpeners(text);
    if (this.table.crowded(this.tableWords)) this.restartWordTable();
    const ids = (sentence ? this.sentenceIds(sentence, stripped) : line ? (this.judgingSoFar ? this.soFarIds(line, stripped) : this.lineIds(line, stripped)) : undefined) ?? this.table.idsOf(stripped, MAX_UNIT_WORDS);
    if (ids.length < minWords) return;
    // the label and cluster key, like the unit's words and shingles, wait until a comparison reads them
    // every field set from the start (those read later as undefined): all units share one shape, so
    // reading them in the comparison loop stays fast
    const unit: Unit = { ids, words: undefined, shingles: undefined, pairs: undefined, distinct: undefined, label: undefined, labelText: "", labelSource: labelSource === text ? stripped : labelSource, labelStrip: labelSource !== text, scope, section, event, channel, cluster: undefined, leads: true, novel: true, text: stripped, facts: undefined, names: undefined, claims: undefined, claimMask: undefined };
    let recentOfChannel = this.recent.get(channel);
    if (!recentOfChannel) { recentOfChannel = { line: [], paragraph: [], sentence: [] }; this.recent.set(channel, recentOfChannel); }
    const recent = recentOfChannel[unitKind];
    unit.leads = recent.length === 0 || recent[recent.length - 1].section !== section;
    // made for the first alike unit (most units have none)
    let alike: Alike[] | undefined;
    // walking back from the newest: what was said between each earlier unit and this one
    let novelSince = 0;
    for (let i = recent.length - 1; i >= 0; i--) {
      const u = recent[i];
      if (i < recent.length - 1 && recent[i + 1].novel) novelSince++;
      if (u.scope !== scope) continue;
      // under another title only what each section opens with is compared: a refrain closing each
      // step of a guide ("Run the tests now and commit.") is structure, a section restating is not
      if (u.section !== section && !(u.leads && unit.leads)) continue;
      // a line so far much shorter than an earlier one may be only its opening: the whole line decides
      if (this.judgingSoFar && ids.length < SO_FAR_MIN_SHARE * u.ids.length) { this.soFarPassedOver = true; continue; }
      const like = this.likeness(u, unit, novelSince);
      if (like) (alike ??= []).push(like);
    }
    this.lastUnit = unit;
    // the window moved along by hand: shift() would shrink the array's store and push() grow it back
    if (recent.length < this.window) recent.push(unit);
    else {
      for (let k = 1; k < recent.length; k++) recent[k - 1] = recent[k];
      recent[recent.length - 1] = unit;
    }
    const copies = alike ? this.copiesOf(unit, alike, recent) : 1;
    if (copies > this.strongest.alike) this.strongest = { alike: copies, detail: `${channelName(channel)}: ${copies} alike ${unitKind}s` };
    if (!alike) return;
    // only loosely alike to what came before: one copy more
    const needed = alike.every((a) => a.loose) ? this.minCopies + LOOSE_EXTRA_COPIES : this.minCopies;
    if (copies < needed) return;
    return this.findingFor(unit, alike, copies, needed, unitKind, text);
  }

  /**
   * How alike an earlier unit u is to unit (the one being compared, whose shingles and words the
   * table holds): undefined if not alike. The rarer tests are here, apart from compare's loop: a
   * path first taken late stops the compiled code of the function it is in, and this one is small.
   */
  private likeness(u: Unit, unit: Unit, novelSince: number): Alike | undefined {
    const ids = unit.ids;
    // the unit's shingles and words are held by the table for all the comparisons of this unit (sets
    // in any order: only their sizes and members are read); below the threshold, the similarity
    // itself is not needed, so its count stops once too few can be in common
    const uShingles = (u.shingles ??= this.table.distinctShingles(u.ids, 3));
    unit.shingles ??= this.table.holdShingles(ids, 3);
    let similarity = this.table.jaccardWithHeldShingles(uShingles, 3, this.minSimilarity);
    let loose = false, claimed = false;
    if (similarity < this.minSimilarity) {
      if (this.minWordSetSimilarity <= 0) return undefined;
      unit.distinct ??= this.table.holdWords(ids);
      const canBeLoose = ids.length <= LOOSE_MAX_WORDS && u.ids.length <= LOOSE_MAX_WORDS;
      const bag = bagSimilarity(this.table, u, unit, canBeLoose ? Math.min(LOOSE_WORD_SET_SIMILARITY, this.minWordSetSimilarity) : this.minWordSetSimilarity);
      if (bag < this.minWordSetSimilarity) {
        if (!canBeLoose) return undefined;
        // the same claims in other words ("done", "finished"; "the build passes", "it compiles"), or
        // synonyms swapped in with the frame kept in its order; either way nothing named that was not named before
        claimed = this.sameClaims(u, unit);
        if (!claimed && (bag < LOOSE_WORD_SET_SIMILARITY || this.table.commonOrderLength(u.ids, ids) < LOOSE_ORDER_SHARE * Math.max(u.ids.length, ids.length))) return undefined;
        if (this.namesSomethingNew(unit, u)) return undefined;
        loose = true;
      }
      // words in some order of their own: a restated thought keeps some of its word pairs, a bag of
      // a small vocabulary (varied text on one topic) does not
      const uPairs = (u.pairs ??= this.table.distinctShingles(u.ids, 2));
      unit.pairs ??= this.table.holdShingles(ids, 2);
      if (this.table.jaccardWithHeldShingles(uPairs, 2, MIN_PAIR_SIMILARITY) < MIN_PAIR_SIMILARITY) return undefined;
      // and what it is about: one sentence shape filled with other things ("The log shows the
      // cookie changing, so the reader is involved." / "... the lock file ..., so the limiter ...")
      // shares its frame, not its content words
      // (loosely alike, most of what it is about must be the same: one sentence frame over other
      // subjects, "make the build script stop treating the old schema as ...", keeps its order too)
      // (the same claims are the same content, whatever words carry them)
      if (!claimed && this.table.setJaccard(u.ids, 0, u.ids.length, ids, 0, ids.length, CONTENT) < (loose ? LOOSE_CONTENT_SIMILARITY : MIN_CONTENT_SIMILARITY)) return undefined;
      similarity = bag;
    }
    const uWords = this.wordsOfUnit(u), words = this.wordsOfUnit(unit);
    if (oneSlotApart(uWords, words) || subjectsDiffer(uWords, words)) return undefined;
    // parallel sentences that each give a fact the other lacks (a code, a number, a name) are an
    // enumeration or a case analysis, however alike their wording: a restated thought adds none
    if (this.eachAddsAFact(u, unit)) return undefined;
    // the same words again with mostly new things said since: a refrain opening or closing each
    // step (line-repeat's to judge), not a thought restated in other words
    if (similarity >= REFRAIN_SIMILARITY && novelSince > 0) return undefined;
    // one template over several subjects ("Module auth: ...", "Module billing: ..."): work, not a loop
    const uLabel = labelOfUnit(u), unitLabel = labelOfUnit(unit);
    if (uLabel && unitLabel && uLabel.join(" ") !== unitLabel.join(" ") && namesItems(uLabel, unitLabel, u.labelText, unit.labelText)) return undefined;
    return { unit: u, similarity, loose };
  }

  /**
   * The copies of the thought unit (alike to the earlier units alike) restates, itself included; it
   * joins the cluster of the earliest of them.
   */
  private copiesOf(unit: Unit, alike: Alike[], recent: Unit[]): number {
    // one key per drifting thought however far it drifts: the earliest alike unit (found last,
    // walking back) names it
    unit.cluster = this.clusterOf(alike[alike.length - 1].unit);
    unit.novel = false;
    // a thought drifting further each time is alike to its last wording, not always to its first:
    // the copies are the units of its cluster, joined through a close likeness (one template filled
    // with other content is alike, but loosely); under titles that only restate, any likeness
    let members = 0;
    const chainAt = unit.leads && unit.section !== "" && unit.scope === "" ? this.minWordSetSimilarity : CHAIN_SIMILARITY;
    if (alike.some((a) => a.similarity >= chainAt)) for (const u of recent) if (u !== unit && u.scope === unit.scope && this.clusterOf(u) === unit.cluster) members++;
    return Math.max(alike.length, members) + 1;
  }

  /** The finding for a unit whose copies make a loop, text being the unit's as it came (undefined if this request caught it so already). */
  private findingFor(unit: Unit, alike: Alike[], copies: number, needed: number, unitKind: UnitKind, text: string): Finding | undefined {
    const channel = unit.channel, event = unit.event;
    const key = this.clusterOf(unit);
    // the first catch warns; the hard rungs need more evidence (aborting productive reasoning costs
    // the whole response): the thought restated twice more, copies all but word for word the same,
    // or a catch again in a later request
    const similarity = Math.min(...alike.map((a) => a.similarity));
    const grown = copies >= needed + 2 || similarity >= REFRAIN_SIMILARITY;
    let caught = this.counter.catch(key, channel);
    if (caught === undefined) {
      const before = this.caughtThisRequest.get(key);
      if (!before || before.grown || !grown) return;
      caught = before.count;
    }
    this.caughtThisRequest.set(key, { count: caught, grown });
    const count = caught + (grown ? 1 : 0);
    const span = excerpt(text, 200);
    return {
      detector: this.id,
      key,
      count,
      summary: `your ${channelName(channel)} restates the same ${unitKind} in other words ${copies} times (${Math.round(similarity * 100)}%+ alike: "${span}")`,
      suggestion: "Rewording it does not move the task: settle on one conclusion and act on it, or try a genuinely different approach.",
      evidence: { events: [...alike.map((a) => a.unit.event).reverse(), event], count: copies, span, similarity: Math.round(similarity * 100) / 100 },
    };
  }

  /**
   * Reads all the words of a sentence into its line's words, if they are still to be had: the
   * sentences of a line come in order, the first at its start, each right after the last one's
   * space (StreamLines cuts them so).
   */
  private readSentenceWords(words: LineWords, x: StreamSentence): boolean {
    if (x.line !== words.line) this.startLine(words, x.line);
    if (!words.usable) return false;
    // (stored whichever it is: a store first made late, at a gap, would stop the compiled caller)
    words.usable = x.at === words.next && words.restarts === this.table.restarts;
    if (!words.usable) return false;
    return this.readWords(words, x.text, 0, x.at);
  }

  /** The channel's line words (made the first time). */
  private lineWordsOf(channel: StreamChannel): LineWords {
    let words = this.lineWords.get(channel);
    if (!words) { words = { line: -1, ids: [], starts: [], count: 0, next: 0, restarts: 0, usable: false }; this.lineWords.set(channel, words); }
    return words;
  }

  /** The line words made over for another line, none read yet. */
  private startLine(words: LineWords, line: number): void {
    words.line = line;
    words.count = 0;
    words.next = 0;
    words.restarts = this.table.restarts;
    words.usable = true;
  }

  /**
   * Reads text from index from on (text starting at offset in the line) into the line's words, up to
   * its end, which a space follows in the line: false, the words no longer usable, once a character
   * only the regex reads is met.
   */
  private readWords(words: LineWords, text: string, from: number, offset: number): boolean {
    const count = this.table.scanWords(text, from, text.length, offset, words.ids, words.starts, words.count, Infinity);
    if (count < 0) { words.usable = false; return false; }
    words.count = count;
    words.next = offset + text.length + 1;
    return true;
  }

  /** The ids of a sentence unit (idsOf its stripped text), read with all its words for its line; undefined if they cannot be. */
  private sentenceIds(x: StreamSentence, stripped: string): number[] | undefined {
    const words = this.lineWords.get(x.channel);
    if (!words) return undefined;
    if (this.wordsCover(words, x)) {
      // read already, with the line so far that reached past it
      const from = firstWordFrom(words, x.at, 0), to = firstWordFrom(words, x.at + x.text.length, from);
      return idsFrom(x.text, x.text.length - stripped.length, MAX_UNIT_WORDS, words.ids, words.starts, from, to, x.at);
    }
    const from = x.line === words.line ? words.count : 0;
    if (!this.readSentenceWords(words, x)) return undefined;
    return idsFrom(x.text, x.text.length - stripped.length, MAX_UNIT_WORDS, words.ids, words.starts, from, words.count, x.at);
  }

  /** Whether the line's words read so far hold all of this sentence's (a line so far cut past it read them). */
  private wordsCover(words: LineWords, x: StreamSentence): boolean {
    return x.line === words.line && words.usable && words.restarts === this.table.restarts && x.at + x.text.length < words.next;
  }

  /**
   * The ids of a line so far cut at a space (a word ends there), its words read into the line's words
   * from where they stopped: the sentences and the whole line to come take them from there, so each
   * judgement of a growing line reads only what was added. Undefined if they cannot be had, or the
   * line was cut where a word may go on (a chunk's end): it reads its own words then.
   */
  private soFarIds(line: StreamLine, stripped: string): number[] | undefined {
    if (line.id === undefined || !line.followedBySpace) return undefined;
    const words = this.lineWordsOf(line.channel);
    if (words.line !== line.id) this.startLine(words, line.id);
    if (!words.usable || words.restarts !== this.table.restarts) return undefined;
    const text = line.text;
    if (words.next < text.length && !this.readWords(words, text, words.next, 0)) return undefined;
    return idsFrom(text, text.length - stripped.length, MAX_UNIT_WORDS, words.ids, words.starts, 0, words.count, 0);
  }

  /**
   * The ids of a line unit (idsOf its stripped text) from the words its sentences already read, and
   * its text after them; undefined if they are not all to be had or a restart renumbered the table since.
   */
  private lineIds(line: StreamLine, stripped: string): number[] | undefined {
    const words = this.lineWords.get(line.channel);
    if (!words || line.id === undefined || words.line !== line.id || !words.usable || words.next === 0 || words.restarts !== this.table.restarts) return undefined;
    const text = line.text;
    // the words from the cut on: those of the sentences after it, then the rest of the line (as many as are taken)
    const cut = text.length - stripped.length;
    if (cut > words.next) return undefined;
    let before = 0;
    while (before < words.count && words.starts[before] < cut) before++;
    const wanted = before + MAX_UNIT_WORDS - words.count;
    if (wanted > 0) {
      const count = this.table.scanWords(text, words.next, text.length, 0, words.ids, words.starts, words.count, wanted);
      if (count < 0) return undefined;
      words.count = count;
      words.next = text.length + 1;
    }
    return idsFrom(text, cut, MAX_UNIT_WORDS, words.ids, words.starts, 0, words.count, 0);
  }

  /** Whether each of two units names something (a number, an identifier, a code) the other does not. */
  private eachAddsAFact(a: Unit, b: Unit): boolean {
    const fa = this.factsOf(a), fb = this.factsOf(b);
    if (fa.size === 0 || fb.size === 0) return false;
    let aNew = false, bNew = false;
    for (const f of fa) if (!fb.has(f)) { aNew = true; break; }
    if (!aNew) return false;
    for (const f of fb) if (!fa.has(f)) { bNew = true; break; }
    return bNew;
  }

  /**
   * Whether a unit names something (a number, a path, an identifier, a code in capitals) the other
   * does not. Hyphenated words ("re-run", "double-check") are words here: a synonym, not a fact.
   */
  private namesSomethingNew(unit: Unit, before: Unit): boolean {
    const known = (before.names ??= namesIn(before.text));
    for (const f of (unit.names ??= namesIn(unit.text))) if (!known.has(f)) return true;
    return false;
  }

  private factsOf(u: Unit): Set<number> {
    if (u.facts) return u.facts;
    const t = this.factTokens;
    t.read(u.text, 0, Math.min(u.text.length, MAX_UNIT_WORDS * 12));
    const facts = new Set<number>();
    // (a code span is a fact by its exact text: `-pk` and `pk` are two)
    for (let k = 0; k < t.count; k++) if (t.kinds[k] === NAME_TOKEN || t.kinds[k] === SPAN_TOKEN) facts.add(t.hashes[k]);
    return (u.facts = facts);
  }

  /** The key of the unit's drifting thought: its own first 30 words unless it inherited one. */
  private clusterOf(u: Unit): string {
    return (u.cluster ??= `${this.id}:${u.channel}:${wordsKey(this.wordsOfUnit(u), 30)}`);
  }

  /**
   * Whether two units make the same claims: two verdicts or acts at least each, and their content
   * words, each verdict and act put to one meaning, mostly the same.
   */
  private sameClaims(a: Unit, b: Unit): boolean {
    // a verdict in common first (most units give none): acts and objects alone ("build", "test", "change") are any talk about code
    const ma = this.claimMaskOf(a);
    if ((ma & VERDICT_MASK) === 0) return false;
    const mb = this.claimMaskOf(b);
    if ((ma & mb & VERDICT_MASK) === 0 || bitCount(ma) < CLAIMS_MIN_MEANINGS || bitCount(mb) < CLAIMS_MIN_MEANINGS) return false;
    const x = this.claimsOf(a), y = this.claimsOf(b);
    if (x.length < CLAIMS_MIN_WORDS || y.length < CLAIMS_MIN_WORDS) return false;
    let common = 0;
    for (let i = 0, j = 0; i < x.length && j < y.length;) {
      if (x[i] === y[j]) { common++; i++; j++; } else if (x[i] < y[j]) i++; else j++;
    }
    return common / (x.length + y.length - common) >= CLAIMS_SIMILARITY;
  }

  /**
   * Per word id, its verdict or act meaning, read once per word: 0 not read yet, 1 none, 2 + the
   * meaning. Read anew after the table renumbers its words.
   */
  private meanings = new Uint8Array(FIRST_TABLE_WORDS);
  private meaningsRestarts = 0;

  private meaningOf(id: number): number {
    if (this.meaningsRestarts !== this.table.restarts) { this.meanings.fill(0); this.meaningsRestarts = this.table.restarts; }
    if (id >= this.meanings.length) { const grown = new Uint8Array(Math.max(2 * this.meanings.length, id + 1)); grown.set(this.meanings); this.meanings = grown; }
    let m = this.meanings[id];
    if (m === 0) { const meaning = CLAIM_WORDS.get(this.table.word(id)); m = this.meanings[id] = meaning === undefined ? 1 : 2 + meaning; }
    return m - 2;
  }

  private claimMaskOf(u: Unit): number {
    if (u.claimMask !== undefined) return u.claimMask;
    let mask = 0;
    for (const id of u.ids) { const m = this.meaningOf(id); if (m >= 0) mask |= 1 << m; }
    return (u.claimMask = mask);
  }

  private claimsOf(u: Unit): Int32Array {
    if (u.claims) return u.claims;
    const found: number[] = [];
    for (const id of u.ids) {
      const meaning = this.meaningOf(id);
      const w = this.table.word(id);
      if (meaning >= 0) found.push(-1 - meaning);
      // (a contraction, "i'll", "it's", is a function word however long)
      else if (kindOfWord(w) === CONTENT && !w.includes("'")) found.push(id);
    }
    const sorted = Int32Array.from(found).sort();
    let n = 0;
    for (let k = 0; k < sorted.length; k++) {
      if (k > 0 && sorted[k] === sorted[k - 1]) continue;
      sorted[n++] = sorted[k];
    }
    return (u.claims = sorted.slice(0, n));
  }

  private wordsOfUnit(u: Unit): string[] {
    return (u.words ??= Array.from(u.ids, (id) => this.table.word(id)));
  }

  /** Between units: a table grown past its bound keeps only the words of the units in the window. */
  private restartWordTable(): void {
    const live: number[][] = [];
    for (const kinds of this.recent.values()) {
      for (const units of [kinds.line, kinds.paragraph, kinds.sentence]) for (const u of units) { live.push(u.ids); u.claims = undefined; }
    }
    this.table.restart(live);
    this.tableWords = Math.min(MAX_TABLE_WORDS, 2 * this.tableWords);
  }

  /**
   * Under which heading a unit is compared. Headings that name items (paths, identifiers, one
   * template over several names) keep their text apart: the same note under each file is a report.
   * Titles that only retitle the reasoning ("Confirming the fix", then "Verifying the approach")
   * do not: what is said under them is compared across them.
   */
  private scopeOf(channel: StreamChannel, section: string): string {
    if (section === "" || section.startsWith("item\u0000")) return section;
    let h = this.headings.get(channel);
    if (!h) { h = { last: "", scopes: new Map() }; this.headings.set(channel, h); }
    let scope = h.scopes.get(section);
    if (scope === undefined) {
      const words = wordsOf(section, 16);
      const last = h.last ? wordsOf(h.last, 16) : undefined;
      const named = NAME.test(section) || (last !== undefined && namesItems(last, words, h.last, section));
      scope = named ? section : "";
      // an earlier title of the same template was taken for a retitle: it names items too
      if (named && h.last && h.scopes.get(h.last) === "") h.scopes.set(h.last, h.last);
      if (h.scopes.size < 256) h.scopes.set(section, scope);
    }
    if (h.last !== section) h.last = section;
    return scope;
  }

  reset(): void {
    this.lineSoFar.clear();
    this.lineWords.clear();
    this.headings.clear();
    this.recent.clear();
    this.counter.reset();
    this.caughtThisRequest.clear();
    this.sections.clear();
    this.strongest = { alike: 0, detail: "" };
  }

  status(): DetectorStatus {
    return { id: this.id, enabled: true, progress: Math.min(1, this.strongest.alike / this.minCopies), detail: this.strongest.detail };
  }
}

export const nearDuplicate: DetectorDefinition = {
  id: "near-duplicate",
  title: "Reworded repetition",
  description: "Paragraphs, lines or sentences whose wording drifts between copies: the same thought restated again and again, under new titles too.",
  channel: "stream",
  defaults: NEAR_DUPLICATE_DEFAULTS,
  create: (settings) => new NearDuplicateDetector(settings),
  shortTitle: "Reworded repeats",
  strength: STREAM_STRENGTH,
  parameters: {
    minCopies: {
      description: "Alike paragraphs, lines or sentences (the newest included) that count. Example: `3` (the default): the same thought in other words for the third time is caught.",
      tuning: true,
    },
    minSimilarity: {
      description: "How alike two passages must be (0 to 1, the share of three-word runs they have in common) to be copies. Example: `0.5` (the default); `0.8` catches only near-identical wording.",
      tuning: true,
    },
    minWordSetSimilarity: {
      description: "Second test of likeness (0 to 1, the share of words they have in common, in any order): catches a thought restated with its clauses moved or some words changed. `0` switches this test off. Example: `0.45` (the default).",
      tuning: true,
    },
    minWords: {
      description: "Passages shorter than this many words are not compared. Example: `12` (the default): short remarks like \"Now let me run the tests.\" never count.",
      tuning: true,
    },
    window: {
      description: "How many recent passages each new one is compared with (per thinking or answer text). Example: `12` (the default).",
      tuning: true,
    },
    sentenceUnits: {
      description: "Also compare the sentences of long single-line paragraphs, where a loop can run on without a line break. Example: on (the default); off compares whole lines and paragraphs only.",
      tuning: true,
    },
  },
};
