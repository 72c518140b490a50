/**
 * What the user's request says about repetition: "run it 5 times", "re-run it a few times and tell
 * me how often it fails", "wait for the release build", "keep polling until it is green", in
 * English, French, Spanish, German and Chinese (and the counts and vague words of Portuguese,
 * Italian, Russian, Japanese and Korean). Runs the user asked for are the requested work, not
 * a loop: the detectors subtract them from their counts for the commands the request is about.
 */

/** What a stated repetition allows. */
export interface RepetitionIntent {
  /** Runs asked for: an explicit number, or what a vague word stands for; 1 when none was stated. */
  times: number;
  /** Whether the number was given or stood for by a word ("5 times", "a few times", "how often"). */
  counted: boolean;
  /** Whether the count was a number ("5 times", "cinq fois"): it applies to whichever command is run, as the user named it. */
  explicit: boolean;
  /** Whether the request asks to wait for something or poll it ("wait for CI", "keep checking"). */
  waits: boolean;
  /** Words and paths of the request (lowercased), to tell which commands it is about. */
  words: ReadonlySet<string>;
  /** Whether the request names any file, path or code-like word a command could be matched on. */
  namesSomething: boolean;
}

/** What vague words stand for, in runs. Bounded: a vague request buys a few more runs, not a licence to loop. */
const FEW = 5;
const SEVERAL = 6;
/** "How often does it fail", "until it passes": a sample, or as many as it takes, within reason. */
const SAMPLE = 10;
/** The most runs a stated number grants (a typo of "500 times" must not switch detection off). */
const MAX_TIMES = 50;

const NUMBER_WORDS: Record<string, number> = {
  once: 1, twice: 2, thrice: 3, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twenty: 20,
  une: 1, un: 1, deux: 2, trois: 3, quatre: 4, cinq: 5, sept: 7, huit: 8, neuf: 9, dix: 10, vingt: 20,
  una: 1, dos: 2, tres: 3, cuatro: 4, cinco: 5, seis: 6, siete: 7, ocho: 8, nueve: 9, diez: 10, veinte: 20,
  ein: 1, einmal: 1, zwei: 2, drei: 3, vier: 4, "fünf": 5, sechs: 6, sieben: 7, acht: 8, neun: 9, zehn: 10, zwanzig: 20,
  "一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10, "二十": 20,
  duas: 2, "três": 3, dez: 10, tre: 3, cinque: 5, dieci: 10, "два": 2, "три": 3, "пять": 5, "десять": 10,
};

/**
 * The patterns, made when the first user message is read rather than when the module loads: their
 * letter classes cost about a millisecond to parse, and the agents' hook loads the engine afresh
 * for every tool call (issue 35, part 4), while a user message comes only with a new prompt.
 */
function makePatterns() {
  const NUMBER = "\\d{1,3}|once|twice|thrice|two|three|four|five|six|seven|eight|nine|ten|twenty|une|un|deux|trois|quatre|cinq|six|sept|huit|neuf|dix|vingt|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|veinte|ein|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|zwanzig|duas|três|dez|tre|cinque|dieci|два|три|пять|десять";
  /** "5 times", "cinq fois", "tres veces", "drei Mal", "dreimal", "5x", "cinco vezes", "5 volte", "5 раз". */
  const EXPLICIT = new RegExp(`(?<![\\p{L}\\p{N}])(${NUMBER})\\s*(?:more\\s+|de\\s+plus\\s+|m[aá]s\\s+)?(?:times|runs|rounds|iterations|x(?![\\p{L}])|fois|veces|mal|male|vezes|volte|раза?)(?![\\p{L}])|(?<![\\p{L}\\p{N}])(once|twice|thrice|zweimal|dreimal|viermal|fünfmal|zehnmal)(?![\\p{L}])`, "gu");
  /** 三次, 5次, 两遍, 十回, 5回 (Japanese too), 5번 (Korean). */
  const EXPLICIT_ZH = /(\d{1,3}|二十|[一两二三四五六七八九十])\s*(?:次|遍|回|번)/gu;
  const FEW_WORDS = /\b(?:a few|a couple(?: of)?|few more|some more|a handful of|a bunch of|a number of) (?:more )?(?:times|runs|rounds|tries|attempts)\b|\bquelques fois\b|\bunas (?:cuantas|pocas) veces\b|\balgunas veces\b|\bun par de veces\b|\bein paar (?:mal|male)\b|\balgumas vezes\b|\balcune volte\b|几次|几遍|几回|何度か|何回か|数回|(?<!\p{L})несколько раз|몇 ?번/gu;
  /**
   * "Many", "multiple" and "several" count runs only with a word for runs after them: "make multiple tool
   * calls", "handle as many files as the project has" ask for no repetition.
   */
  const SEVERAL_WORDS = /\b(?:(?:several|many|multiple|numerous) (?:more )?(?:times|runs|rounds|tries|attempts|iterations)|repeatedly|again and again|over and over)\b|\bplusieurs fois\b|\b(?:à|a) plusieurs reprises\b|\bencore et encore\b|\bvarias veces\b|\brepetidamente\b|\buna y otra vez\b|\bmehrmals\b|\bmehrfach\b|\bmehrere (?:mal|male)\b|\bwiederholt\b|\bimmer wieder\b|\bv[áa]rias vezes\b|\brepetidas vezes\b|\bpiù volte\b|\bripetutamente\b|多次|反复|重复|何度も|繰り返し|(?<!\p{L})много раз|(?<!\p{L})неоднократно|(?<!\p{L})снова и снова|여러 ?번|반복/gu;
  const FREQUENCY_WORDS = /\bhow (?:often|frequently|many times)\b|\bwhat (?:fraction|percentage|share)\b|\bfailure rate\b|\bcombien de fois\b|\b(?:à|a) quelle fréquence\b|\bcon qué frecuencia\b|\bcuántas veces\b|\bwie (?:oft|häufig)\b|\bcom que frequência\b|\bquantas vezes\b|\bquanto spesso\b|\bcon (?:che|quale) frequenza\b|\bquante volte\b|多少次|频率|概率|几率|頻度|何回失敗|(?<!\p{L})как часто|(?<!\p{L})сколько раз|얼마나 자주|몇 번이나/gu;
  /** "About ten times", a sample in round words. */
  const TEN_OR_SO_WORDS = /\b(?:a dozen|a dozen or so|ten or so) (?:times|runs)\b|\bune dizaine de fois\b|\buna decena de veces\b|\betwa zehnmal\b|\buma dezena de vezes\b|\buna decina di volte\b|(?<!\p{L})десяток раз|十来次|十几次/gu;
  const UNTIL_WORDS = /\b(?:until|till|unless) (?:it|they|the [\w-]+|all(?: the)? [\w-]+|tests?|ci|everything|the build)(?: [\w-]+){0,2} (?:pass(?:es)?|succeeds?|works?|is green|are green|turns? green|goes green|is stable|fails)\b|\b(?:until|till) (?:it's|they're) (?:green|passing|stable|fixed)\b|\baté (?:que )?(?:\p{L}+ ){0,3}(?:passar|passe|funcionar|funcione)|\bfinché non (?:\p{L}+ ){0,3}(?:passa|passano|funziona)|通るまで|成功するまで|пока не (?:\p{L}+ ){0,3}(?:пройд|заработает)|통과할 때까지|\bjusqu'(?:à|a) ce qu(?:e|')(?:[\p{L}'-]+ ){0,3}(?:passe|passent|marche|fonctionne|réussisse|échoue)|\bhasta que (?:\p{L}+ ){0,3}(?:pase|pasen|funcione|falle)|\bbis (?:er|es|sie|der|die|das|alle)(?: \p{L}+){0,3} (?:durchläuft|besteht|grün|funktioniert|klappt|fehlschlägt)|直到.{0,8}(?:通过|成功|变绿|失败)/gu;
  /**
   * A word every branch of UNTIL_WORDS holds, under the same flags: a message without one cannot match
   * it, and is not run through it. Its letter classes make it costlier to compile than a
   * whole session's user messages are to read (a third of a replay's cost of its one message).
   */
  const UNTIL_ANCHOR = /until|till|unless|até|finché non|通るまで|成功するまで|пока не|통과할 때까지|jusqu'|hasta que|bis |直到/u;
  /**
   * Waiting for a person ("wait for feedback after every command", "wait for my reply") is a harness's
   * rule of conduct, not a thing to poll.
   */
  const WAIT_WORDS = /\bwait(?:ing)? (?:for|until|till|on)\b(?! (?:(?:the |my |your |our )?(?:feedback|response|reply|replies|answer|confirmation|approval|input|instructions?|user|me|us|permission|review)\b))|\bkeep (?:polling|checking|watching|an eye)\b|\bpoll(?:ing)?\b|\b(?:tell|let) me know when\b|\btell me when\b|\bonce it(?:'s| is) (?:done|finished|live|green)\b|\battend(?:s|re|ez)\b|\bsurveill|\bdis-moi quand\b|\bespera(?:r)?\b|\bav[ií]same cuando\b|\bwarte(?:n)?\b|\bbescheid,? (?:wenn|sobald)\b|\bsag mir,? (?:wenn|sobald)\b|\bcontinue (?:à|a|de) (?:vérifier|surveiller|regarder)\b|\bsigue (?:comprobando|revisando|consultando|mirando)\b|\bprüfe? (?:weiter|regelmäßig)\b|\bespere\b|\baguard(?:e|ar)\b|\baspett(?:a|are)\b|\battendi\b|\bcontinua a (?:controllare|verificare)\b|(?<!\p{L})подожди|(?<!\p{L})дождись|(?<!\p{L})ожидай|等待|等到|等一下|轮询|盯着|待って|待つ|終わるまで|기다려|기다리/gu;

  /**
   * A clause that asks for no repetition: negated ("don't just run it multiple times", "do not read it
   * again and again"), a limit ("never retry more than twice", "at most 3 times", "no more than"), a
   * condition ("if it fails several times"), or a complaint about what the agent keeps doing. Read in
   * the clause before the words of repetition, in the languages the counts are read in.
   */
  const NOT_ASKED = /(?<![\p{L}'])(?:don'?t|doesn'?t|didn'?t|do not|does not|did not|never|not|no|nor|avoid|without|instead of|rather than|stop|refrain|won'?t|will not|shouldn'?t|should not|mustn'?t|must not|can'?t|cannot|at most|more than|up to|maximum|limit|if|unless|whether|you keep|kept|keeps|stuck|looping|was|were|has been|have been|ne|n'|pas|jamais|sans|nunca|sin|nicht|nie|kein\p{L}*|ohne|não|sem|non|mai|senza|не|нет|без|никогда)(?![\p{L}'])|不|别|勿|没|無|ない|않|말고|하지 ?마/u;
  /** Where a clause begins: a sentence's end, a line, a semicolon or colon, a comma, or "but". */
  const CLAUSE_START = /[.!?;:,\n。！？；：，](?=\s|$)|[。！？；：，\n]|\bbut\b/gu;
  return { EXPLICIT, EXPLICIT_ZH, FEW_WORDS, SEVERAL_WORDS, FREQUENCY_WORDS, TEN_OR_SO_WORDS, UNTIL_WORDS, UNTIL_ANCHOR, WAIT_WORDS, NOT_ASKED, CLAUSE_START };
}

let madePatterns: ReturnType<typeof makePatterns> | undefined;
const patterns = () => (madePatterns ??= makePatterns());

/** The first match of `re` (global) in a clause that asks for it: not negated, limited or conditional. */
function firstAsked(re: RegExp, lower: string): RegExpExecArray | undefined {
  const { NOT_ASKED } = patterns();
  re.lastIndex = 0;
  for (let m = re.exec(lower); m; m = re.exec(lower)) {
    if (!NOT_ASKED.test(clauseBefore(lower, m.index))) return m;
    if (m[0].length === 0) re.lastIndex++;
  }
  return undefined;
}

function clauseBefore(lower: string, at: number): string {
  const { CLAUSE_START } = patterns();
  let start = 0;
  CLAUSE_START.lastIndex = 0;
  for (let m = CLAUSE_START.exec(lower); m && m.index < at; m = CLAUSE_START.exec(lower)) start = m.index + m[0].length;
  return lower.slice(start, at);
}

/** Words shorter than this (and common words) say nothing about which command a request means. */
const MIN_NAME = 4;

const SPLIT_REQUEST = /[\s`'"“”‘’()[\]{}<>,;!?。，；：！？]+/u;
/** Folder names and words every project has: naming one says nothing about which command is meant. */
const GENERIC = new Set(["test", "tests", "spec", "specs", "src", "lib", "libs", "internal", "scripts", "script", "home", "users", "node_modules", "dist", "build", "main", "index", "python", "python3", "node", "npm", "npx", "cargo", "pytest", "make", "bash", "then", "with", "from", "that", "this", "what", "when", "tell", "about"]);

/** The names a path or file word stands for: its parts, and each file's stem without extension or test affix (`tests/test_mailer.py` → mailer). */
function namesIn(word: string): string[] {
  const out: string[] = [];
  for (const part of word.split(/[/\\]+/)) {
    const stem = part.replace(/\.\w{1,5}$/, "");
    const core = stem.replace(/^test_|_test$|_spec$|\.(?:test|spec)$/, "");
    for (const n of [part, stem, core]) if (n.length >= MIN_NAME && !GENERIC.has(n) && !out.includes(n)) out.push(n);
  }
  return out;
}

/** Reads a user message. */
export function repetitionIntent(text: string): RepetitionIntent {
  const { EXPLICIT, EXPLICIT_ZH, FEW_WORDS, SEVERAL_WORDS, FREQUENCY_WORDS, TEN_OR_SO_WORDS, UNTIL_WORDS, UNTIL_ANCHOR, WAIT_WORDS } = patterns();
  let times = 1;
  let counted = false;
  let explicit = false;
  // Lowercased once for case-sensitive patterns: a case-insensitive Unicode pattern works out the case
  // variants of its letters when first run, which cost a process more than its messages do.
  const lower = text.toLowerCase();
  // Where each ask was read: the words of those sentences tell which commands it is about.
  const at: number[] = [];
  const m = firstAsked(EXPLICIT, lower);
  const zh = m ? undefined : firstAsked(EXPLICIT_ZH, lower);
  const word = m?.[1] ?? m?.[2] ?? zh?.[1] ?? "";
  if (word !== "") {
    const n = NUMBER_WORDS[word] ?? NUMBER_WORDS[word.replace(/mal$/, "")] ?? Number(word);
    if (Number.isFinite(n) && n > 1) { times = Math.min(MAX_TIMES, n); counted = true; explicit = true; at.push((m ?? zh)!.index); }
  }
  const asked = (re: RegExp) => { const found = firstAsked(re, lower); if (found) at.push(found.index); return found !== undefined; };
  const vague = asked(FREQUENCY_WORDS) || (UNTIL_ANCHOR.test(lower) && asked(UNTIL_WORDS)) || asked(TEN_OR_SO_WORDS) ? SAMPLE : asked(SEVERAL_WORDS) ? SEVERAL : asked(FEW_WORDS) ? FEW : 0;
  if (vague > times) { times = vague; counted = true; }
  const waits = asked(WAIT_WORDS);
  const words = new Set<string>();
  let namesSomething = false;
  for (const sentence of sentencesAround(lower, at)) {
    for (const w of sentence.split(SPLIT_REQUEST)) {
      const bare = w.replace(/^[.:]+|[.:]+$/g, "");
      if (bare.length < MIN_NAME) continue;
      words.add(bare);
      // A path, a file name with an extension, or an identifier (snake_case, camelCase, dotted) names a thing.
      if (/[/\\]|\.\w{1,5}$|_|\w[.:]\w/.test(bare)) {
        namesSomething = true;
        for (const n of namesIn(bare)) words.add(n);
      }
    }
  }
  return { times, counted, explicit, waits, words, namesSomething };
}

/** A sentence's end: a stop, a line, or the ideographic stops. */
const SENTENCE_END = /[.!?](?=\s|$)|\n|[。！？]/gu;

/**
 * The sentence of each ask and the one before it ("test_login is flaky. Re-run it a few times": "it"
 * is named just before): what the ask is about. The rest of a long message (a harness's standing
 * instructions, environment details, pasted logs) names files the ask is not about.
 */
function sentencesAround(lower: string, at: readonly number[]): string[] {
  if (at.length === 0) return [];
  const ends: number[] = [];
  SENTENCE_END.lastIndex = 0;
  for (let m = SENTENCE_END.exec(lower); m; m = SENTENCE_END.exec(lower)) ends.push(m.index + m[0].length);
  ends.push(lower.length);
  const out: string[] = [];
  for (const i of at) {
    const k = ends.findIndex((e) => e > i);
    out.push(lower.slice(k >= 2 ? ends[k - 2] : 0, ends[k]));
  }
  return out;
}

/** No repetition stated. */
export const NO_INTENT: RepetitionIntent = { times: 1, counted: false, explicit: false, waits: false, words: new Set(), namesSomething: false };

/**
 * Whether a command is one the request is about: it names a path or word of the request (the test
 * file, the script, the job), or the request names nothing a command could be matched on ("run the
 * tests a few times").
 */
export function commandMatches(intent: RepetitionIntent, command: string): boolean {
  if (!intent.namesSomething) return true;
  for (const w of command.toLowerCase().split(/[\s`'"=,;|&()<>]+/)) {
    if (w.length < MIN_NAME || w.startsWith("-")) continue;
    if (intent.words.has(w)) return true;
    for (const n of namesIn(w)) if (intent.words.has(n)) return true;
  }
  return false;
}
