/**
 * e. Across requests: the agent says the same thing again in a new request. Two shapes:
 * - monologue: the same message again, neither copy with a tool call, no user input between:
 *   the agent is talking to itself, each copy is a wasted request (fires at the 2nd copy; a message
 *   too short to compare loosely, word for word the same, at the 3rd);
 * - no progress: the same thinking or message around tool calls that bring nothing new (each
 *   failed, or returned what the same call returned before, and nothing was written, edited or
 *   run that changes state), request after request (fires at the 3rd copy). A successful call
 *   with new output (polling whose output changes, reading a new file) is news and keeps this
 *   quiet; so does a message that changes with what was learnt.
 * "The same" is word 3-gram Jaccard similarity of the request's whole thinking + text, so an
 * agent that opens every turn with the same sentence but then says something new is fine. A
 * monologue reworded every time (same words, new order: word-set Jaccard) needs a 3rd copy.
 *
 * count = catches since the user last spoke (one per request): the first aborts, a second stops.
 */
import type { Detector, DetectorContext, DetectorDefinition, DetectorSettings, DetectorStatus, Finding } from "../detector";
import { STREAM_STRENGTH } from "../detector";
import type { StreamEvent } from "../events";
import { BoundedMap } from "../boundedMap";
import { excerpt } from "../guidance";
import type { CallRecord } from "../ledger";
import { CatchCounter, PieceString, numberSetting } from "../streamText";
import { WordTable, sortedJaccard, textKey, wordsOf } from "../words";

/** Two user messages that ask alike ("hi", "hi again"): half their words shared. Unknown counts as alike. */
function alikeMessages(a: ReadonlySet<string> | undefined, b: ReadonlySet<string> | undefined): boolean {
  if (!a || !b) return true;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared >= 0.5 * (a.size + b.size - shared);
}

function sameWords(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

export const STAGNATION_DEFAULTS: DetectorSettings = {
  enabled: true,
  warnAt: 0,
  blockAt: 1,
  stopAt: 2,
  /** How alike two requests' text must be (word 3-gram Jaccard, 0..1). */
  minSimilarity: 0.8,
  /** Messages in a row, with no tool call between them, that make a monologue loop. */
  monologueCopies: 2,
  /** Messages in a row, around tool calls that changed nothing, that make a loop. */
  noProgressCopies: 3,
  /** Requests with fewer words than this count only word for word, from the 3rd copy (a bare "Done." again is not yet stagnation). */
  minWords: 5,
  /** The no-progress shape needs messages at least this long (a bare "Running the tests." recurs in healthy work). */
  noProgressMinWords: 12,
  /** A monologue reworded each time: word-set Jaccard from which two messages say the same (0..1)... */
  paraphraseSimilarity: 0.5,
  /** ...in this many messages in a row... */
  paraphraseCopies: 3,
  /** ...each at least this many words long. */
  paraphraseMinWords: 15,
  /** Around tool calls that bring nothing new, a reworded message counts from this word-set Jaccard. */
  noProgressWordSimilarity: 0.75,
};

/** Output of a call whose result has not come (or never will). */
const UNKNOWN_OUTPUT = "";

/** Characters of each request's text kept for comparison. */
const MAX_REQUEST_CHARS = 6000;
const MAX_WORDS = 800;
/** Distinct words the word table holds before it starts afresh with those of the two requests compared. */
const MAX_TABLE_WORDS = 1 << 14;

interface RequestText {
  /**
   * The request's text as its chunks' pieces, joined once when read: appending each chunk with +=
   * made a string per chunk that lived as long as the request.
   */
  text: PieceString;
  /** The visible answer alone (text chunks, no thinking): said again word for word it is the loop, whatever the thinking says. */
  visible: PieceString;
  toolCalls: number;
  /** Calls that only went through the motions (`true`, `echo ok`, `cd .`, `pwd`). */
  noOps: number;
  /**
   * Waits, polls and calls made before (a status checked again): "still running, checking again" is
   * rightly said alike each time.
   */
  rechecks: number;
  /** The user message the request answers (hashed) and which one it was, to tell answers to the same nudge. */
  afterUser?: string;
  userTurn: number;
  /** The words of that user message: the same answer to a message alike ("hi", "hi again") is fair. */
  userWords?: ReadonlySet<string>;
  /** The channel of the latest chunk. */
  channel?: StreamEvent["t"];
  /** Results that were news: a success of a call not made before, or whose output changed. */
  news: number;
  epoch: number;
  event: number;
  /** Its words as ids in the detector's WordTable (renumbered in place when the table restarts), and its shingles sorted. */
  ids?: number[];
  shingles?: number[];
}


class StagnationDetector implements Detector {
  readonly id = "stagnation" as const;
  private current: RequestText | undefined;
  private previous: RequestText | undefined;
  /** Consecutive alike requests ending with the previous one, and their end events. */
  private streak = { monologue: 1, reworded: false, noProgress: 1, verbatim: 1, events: [] as number[] };
  private counter = new CatchCounter();
  private readonly minSimilarity: number;
  private readonly monologueCopies: number;
  private readonly noProgressCopies: number;
  private readonly minWords: number;
  private readonly noProgressMinWords: number;
  private readonly paraphraseSimilarity: number;
  private readonly paraphraseCopies: number;
  private readonly paraphraseMinWords: number;
  private readonly noProgressWordSimilarity: number;
  private lastSimilarity = 0;
  private table = new WordTable();
  /** Last output per call signature, to tell news from a repeat ("" until a call's result comes). */
  private outputs = new BoundedMap<string, string>(1024);
  /** First-time calls counted as news before their result, by call id. */
  private firstCalls = new BoundedMap<string, RequestText>(256);
  /** The latest user message (hashed) and how many the user sent, given to each request that answers them. */
  private lastUser: string | undefined;
  private lastUserWords: ReadonlySet<string> | undefined;
  private userTurn = 0;

  constructor(settings: DetectorSettings) {
    this.minSimilarity = numberSetting(settings, "minSimilarity", STAGNATION_DEFAULTS);
    this.monologueCopies = Math.max(2, numberSetting(settings, "monologueCopies", STAGNATION_DEFAULTS));
    this.noProgressCopies = Math.max(2, numberSetting(settings, "noProgressCopies", STAGNATION_DEFAULTS));
    this.minWords = numberSetting(settings, "minWords", STAGNATION_DEFAULTS);
    this.noProgressMinWords = numberSetting(settings, "noProgressMinWords", STAGNATION_DEFAULTS);
    this.paraphraseSimilarity = numberSetting(settings, "paraphraseSimilarity", STAGNATION_DEFAULTS);
    this.paraphraseCopies = Math.max(2, numberSetting(settings, "paraphraseCopies", STAGNATION_DEFAULTS));
    this.paraphraseMinWords = numberSetting(settings, "paraphraseMinWords", STAGNATION_DEFAULTS);
    this.noProgressWordSimilarity = numberSetting(settings, "noProgressWordSimilarity", STAGNATION_DEFAULTS);
  }

  onRequestStart(ctx: DetectorContext): Finding[] | void {
    // a request that never ended (cut stream) is judged when the next one starts
    const out = this.current ? this.finish(ctx) : undefined;
    this.current = this.newRequestText(ctx);
    this.counter.newRequest();
    return out;
  }

  onStream(ev: StreamEvent, ctx: DetectorContext): void {
    this.current ??= this.newRequestText(ctx);
    // thinking and the visible answer are two texts: "…to do." + "Done." must not make one word
    const delta = this.current.channel !== undefined && this.current.channel !== ev.t ? `\n${ev.delta}` : ev.delta;
    this.current.channel = ev.t;
    const room = MAX_REQUEST_CHARS - this.current.text.length;
    if (room > 0) this.current.text.push(delta.slice(0, room));
    if (ev.t === "text" && this.current.visible.length < MAX_REQUEST_CHARS) this.current.visible.push(ev.delta.slice(0, MAX_REQUEST_CHARS - this.current.visible.length));
  }

  private newRequestText(ctx: DetectorContext): RequestText {
    return { text: new PieceString(), visible: new PieceString(), toolCalls: 0, noOps: 0, rechecks: 0, news: 0, epoch: ctx.epoch, event: ctx.index, afterUser: this.lastUser, userTurn: this.userTurn, userWords: this.lastUserWords };
  }

  /**
   * The user spoke. The session resets the detectors on a new message, not on one said before word
   * for word (an autopilot's "continue"): two answers to that same nudge can then be compared.
   */
  onUser(text: string): void {
    const words = wordsOf(text, 200);
    this.lastUser = textKey(words.join(" "));
    this.lastUserWords = new Set(words);
    this.userTurn++;
  }

  onToolCall(call: CallRecord): void {
    // calls belong to the latest request, whether its stream has ended yet or not
    const r = this.current ?? this.previous;
    if (!r) return;
    r.toolCalls++;
    if (call.waits || call.pollRequested || this.outputs.peek(call.signature) !== undefined) r.rechecks++;
    // `true`, `echo ok`, `cd .`, `pwd`: activity that learns nothing, whether run before or not.
    if (call.noOp) { r.noOps++; return; }
    // A call never made before (a file not read yet) is news already: some hosts never report
    // its result (Roo shows no read result). A failure reported later takes it back.
    if (this.outputs.peek(call.signature) === undefined) {
      this.outputs.set(call.signature, UNKNOWN_OUTPUT);
      r.news++;
      this.firstCalls.set(call.id, r);
    }
  }

  onToolResult(call: CallRecord): void {
    if (!call.result || call.noOp) return;
    const before = this.outputs.get(call.signature);
    this.outputs.set(call.signature, call.result.outputHash);
    const counted = this.firstCalls.get(call.id);
    this.firstCalls.delete(call.id);
    if (counted) {
      if (!call.result.ok) counted.news--;
      return;
    }
    const r = this.current ?? this.previous;
    // a failure teaches nothing to act on; a success with new output does (against an earlier call
    // whose result never came, nothing tells)
    if (r && call.result.ok && before !== UNKNOWN_OUTPUT && before !== call.result.outputHash) r.news++;
  }

  onRequestEnd(ctx: DetectorContext): Finding[] | void {
    return this.current ? this.finish(ctx) : undefined;
  }

  /**
   * Words (as ids: wordsOf's words, with no string per word) and shingles of a request, computed
   * once and only when a comparison needs them.
   */
  private signature(r: RequestText): { ids: number[]; shingles: number[] } {
    if (!r.ids || !r.shingles) {
      const ids = this.table.idsOf(r.text.text(), MAX_WORDS);
      r.ids = ids;
      r.shingles = this.table.shingles(ids, ids.length >= 3 ? 3 : 1);
    }
    return { ids: r.ids, shingles: r.shingles };
  }

  /** Before two requests are compared: a table grown past its bound keeps only their words (the only ids read again). */
  private boundWordTable(a: RequestText, b: RequestText): void {
    if (!this.table.crowded(MAX_TABLE_WORDS)) return;
    const live: number[][] = [];
    if (a.ids) live.push(a.ids);
    if (b.ids) live.push(b.ids);
    this.table.restart(live);
  }

  /** Whether two requests' visible answers are word for word the same, and long enough to count alone. */
  private sameVisible(a: RequestText, b: RequestText): boolean {
    const x = this.table.idsOf(a.visible.text(), MAX_WORDS);
    const y = this.table.idsOf(b.visible.text(), MAX_WORDS);
    return x.length >= this.noProgressMinWords && sameWords(x, y);
  }

  /** Jaccard of two requests' word sets. */
  private wordSetJaccard(a: readonly number[], b: readonly number[]): number {
    return this.table.setJaccard(a, 0, a.length, b, 0, b.length);
  }

  private finish(ctx: DetectorContext): Finding[] | void {
    const cur = this.current!;
    this.current = undefined;
    cur.event = ctx.index;
    const prev = this.previous;
    this.previous = cur;
    const fresh = { monologue: 1, reworded: false, noProgress: 1, verbatim: 1, events: [cur.event] };
    // only three shapes can make a pair count: skip the text work for every other pair (most of them)
    const couldBeMonologue = prev !== undefined && prev.toolCalls === 0 && cur.toolCalls === 0;
    const couldBeNoProgress = prev !== undefined && prev.toolCalls > 0 && prev.news === 0 && ctx.epoch === prev.epoch;
    // the same message word for word around tool calls, whatever they brought: a model that does not
    // read what came back (the same sentence at every page of a file, the same answer after each retry)
    // (not a poll's "still running", said alike at every check; not a plan restated over work that changes things)
    const couldBeVerbatim = prev !== undefined && prev.toolCalls > 0 && prev.rechecks === 0 && prev.noOps === 0 && ctx.epoch === prev.epoch && cur.text.length === prev.text.length;
    if (!prev || (!couldBeMonologue && !couldBeNoProgress && !couldBeVerbatim)) {
      this.streak = fresh;
      return;
    }
    this.boundWordTable(prev, cur);
    const curSig = this.signature(cur);
    const prevSig = this.signature(prev);
    // Answers to the same repeated nudge: a bare "Done." again is the loop, however short.
    const nudged = cur.afterUser !== undefined && cur.afterUser === prev.afterUser && cur.userTurn !== prev.userTurn;
    const short = prevSig.ids.length < this.minWords || curSig.ids.length < this.minWords;
    // a bare "I am done." word for word, request after request with nothing done and nobody asking
    // in between, is the agent talking to itself however short (counted as answers to one nudge are)
    const sameShort = short && !nudged && couldBeMonologue && curSig.ids.length > 0 && sameWords(prevSig.ids, curSig.ids);
    if (short && !nudged && !sameShort) {
      this.streak = fresh;
      return;
    }
    // Across a reply that is not the same nudge again, only the same answer word for word counts,
    // and only a real one: a short "Done." after "thanks" is manners.
    if (cur.userTurn !== prev.userTurn && !nudged && (alikeMessages(prev.userWords, cur.userWords) || !(sameWords(prevSig.ids, curSig.ids) && curSig.ids.length >= this.noProgressMinWords))) {
      this.streak = fresh;
      return;
    }
    // the same visible answer word for word, with nothing done, whatever thinking came before it
    const sameAnswer = couldBeMonologue && !sameShort && prev.visible.length === cur.visible.length && prev.visible.length > 0 && this.sameVisible(prev, cur);
    const exact = sameShort || sameAnswer ? 1 : sortedJaccard(prevSig.shingles, curSig.shingles);
    // a message reworded each time keeps its words, not its word order
    // (answers to the same nudge are compared so however short: the nudge itself asks nothing new)
    const wordSimilarity = exact < this.minSimilarity && (nudged || Math.min(curSig.ids.length, prevSig.ids.length) >= this.paraphraseMinWords) ? this.wordSetJaccard(prevSig.ids, curSig.ids) : 0;
    const reworded = wordSimilarity >= this.paraphraseSimilarity;
    const similarity = reworded ? wordSimilarity : exact;
    this.lastSimilarity = similarity;
    if (exact < this.minSimilarity && !reworded) {
      this.streak = fresh;
      return;
    }
    // between the two messages: the previous request's tool calls, and what they changed
    // a message that comes with a tool call (a question to the user, a retry after an API error) is not a monologue
    const monologue = prev.toolCalls === 0 && cur.toolCalls === 0;
    // around tool calls a reworded message must keep more of its words: tool talk shares vocabulary;
    // not so around calls that were all no-ops (`true`, `pwd`): they are a monologue in disguise
    const noOpsOnly = prev.noOps === prev.toolCalls;
    const noProgress = (!reworded || noOpsOnly || wordSimilarity >= this.noProgressWordSimilarity) && prev.toolCalls > 0 && prev.news === 0 && ctx.epoch === prev.epoch && Math.min(curSig.ids.length, prevSig.ids.length) >= this.noProgressMinWords;
    const verbatim = couldBeVerbatim && curSig.ids.length >= this.noProgressMinWords && sameWords(prevSig.ids, curSig.ids);
    this.streak = {
      monologue: monologue ? this.streak.monologue + 1 : 1,
      reworded: monologue && (reworded || (this.streak.monologue > 1 && this.streak.reworded)),
      noProgress: noProgress ? this.streak.noProgress + 1 : 1,
      verbatim: verbatim ? this.streak.verbatim + 1 : 1,
      events: [...this.streak.events.slice(-15), cur.event],
    };
    // a short answer needs one copy more: short texts coincide more easily
    const monologueAt = short ? Math.max(this.monologueCopies, this.noProgressCopies) : this.streak.reworded ? this.paraphraseCopies : this.monologueCopies;
    const isMonologue = this.streak.monologue >= monologueAt;
    // word for word whatever the calls brought: one copy more than around calls that brought nothing
    const isVerbatim = !isMonologue && this.streak.noProgress < this.noProgressCopies && this.streak.verbatim > this.noProgressCopies;
    const copies = isMonologue ? this.streak.monologue : this.streak.noProgress >= this.noProgressCopies ? this.streak.noProgress : isVerbatim ? this.streak.verbatim : 0;
    if (!copies) return;
    const shape = isMonologue ? `${this.streak.reworded ? "in other words " : ""}with nothing done in between` : isVerbatim ? "word for word, whatever the tool calls between them brought back" : "while the tool calls between them brought nothing new";
    const key = `${this.id}:${textKey(wordsOf(cur.text.text(), 40).join(" "))}`;
    const count = this.counter.catch(key);
    if (count === undefined) return;
    const span = excerpt(cur.text.text(), 200);
    return [{
      detector: this.id,
      key,
      count,
      summary: `you have said the same thing in ${copies} requests in a row ${shape} ("${span}")`,
      suggestion: isMonologue
        ? "Saying it again will not get a different answer: use a tool to make progress, or finish with attempt_completion / ask the user a question."
        : "Repeating the same reasoning and checks is not moving the task: change approach (different file, different command, or an actual edit), or ask the user.",
      evidence: { events: [...this.streak.events.slice(-copies)], count: copies, span, similarity: Math.round(similarity * 100) / 100 },
    }];
  }

  /**
   * A new user message keeps the last answer before it: the same answer given again word for word
   * after a reply it ignores is the loop going on, not a fresh start. A manual or idle reset forgets it.
   */
  reset(newTurn?: boolean): void {
    this.current = undefined;
    if (!newTurn) this.previous = undefined;
    this.streak = { monologue: 1, reworded: false, noProgress: 1, verbatim: 1, events: [] };
    this.counter.reset();
    this.lastSimilarity = 0;
    this.outputs.clear();
    this.firstCalls.clear();
  }

  status(): DetectorStatus {
    const monologueAt = this.streak.reworded ? this.paraphraseCopies : this.monologueCopies;
    const progress = Math.max((this.streak.monologue - 1) / (monologueAt - 1), (this.streak.noProgress - 1) / (this.noProgressCopies - 1));
    return { id: this.id, enabled: true, progress: Math.min(1, progress), detail: this.previous ? `last two requests ${Math.round(this.lastSimilarity * 100)}% alike` : "" };
  }
}

export const stagnation: DetectorDefinition = {
  id: "stagnation",
  title: "Same message request after request",
  description: "Successive requests whose thinking and text say the same thing, with no tool call between them or none that changed anything.",
  channel: "stream",
  defaults: STAGNATION_DEFAULTS,
  create: (settings) => new StagnationDetector(settings),
  shortTitle: "Same message",
  strength: STREAM_STRENGTH,
  parameters: {
    minSimilarity: {
      description: "How alike (0 to 1, the share of three-word runs in common) the whole thinking and text of two requests must be to say the same thing. Example: `0.8` (the default).",
      tuning: true,
    },
    monologueCopies: {
      description: "Messages in a row saying the same thing, with no tool call between them and no message from you, that count. Example: `2` (the default): the agent repeating itself once without doing anything is caught.",
      tuning: true,
    },
    noProgressCopies: {
      description: "Messages in a row saying the same thing around tool calls that changed nothing (each failed, or answered what it answered before) that count. Example: `3` (the default).",
      tuning: true,
    },
    minWords: {
      description: "Requests with fewer words than this count only word for word the same, from the 3rd copy in a row with nothing done in between. Example: `5` (the default): one bare \"Done.\" after another is not stagnation, the third in a row is.",
      tuning: true,
    },
    noProgressMinWords: {
      description: "Words a message needs to count around tool calls that changed nothing (short status lines recur in healthy work). Example: `12` (the default): \"Running the tests.\" never counts.",
      tuning: true,
    },
    paraphraseSimilarity: {
      description: "For a monologue reworded each time: how alike (0 to 1, the share of words in common, in any order) two messages must be. Example: `0.5` (the default).",
      tuning: true,
    },
    paraphraseCopies: {
      description: "Reworded messages in a row (see *Paraphrase Similarity*) that count. Example: `3` (the default).",
      tuning: true,
    },
    paraphraseMinWords: {
      description: "Words each reworded message needs to count. Example: `15` (the default).",
      tuning: true,
    },
    noProgressWordSimilarity: {
      description: "Around tool calls that brought nothing new, a reworded message counts from this share of words in common (0 to 1, any order). Example: `0.75` (the default).",
      tuning: true,
    },
  },
};
