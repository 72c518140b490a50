/**
 * Text that adds nothing: a run of passages of thinking or visible text, none of which brings a
 * content word, name or number the recent passages did not already have. Whatever the wording or
 * language, a thought circling one conclusion ("Wait, ... One more check ...") keeps re-using the
 * same few facts: its passages stop bringing new ones. Exact and reworded repeats are caught
 * earlier by stream-repeat, line-repeat and near-duplicate; this catches what none of them
 * recognises (drafts with half their words changed, fragments recombining a few words, the same
 * question after every user reply, the same answer after every nudge).
 *
 * A passage is the text of whole sentences and lines until it holds passageTokens content tokens
 * (ContentTokens: long words cut to their stem, names whole, CJK character pairs). It is stale when
 * at most staleShare of its tokens are new against the passages of the last `window` (per channel,
 * kept across requests and user turns), and it names nothing new (a new number, identifier or code
 * span is a new fact: an enumeration's items each bring one, a case analysis's expressions too; so is
 * a new word said twice in the passage, the subject of the next item of a checklist, where a
 * reworded thought swaps a synonym in once, and a new word in a title: a heading, an item label or a
 * bold line of its own). minRun stale passages in a row are a loop;
 * a passage with something new, or a change to the workspace, ends the run.
 *
 * count = 1 at minRun (warn); the hard rungs need more: 2 (abort) once the run is twice as long.
 * Cost: O(characters) per chunk, no string per word; memory: one token table per channel, bounded
 * by window passages.
 */
import type { CallRecord } from "../ledger";
import { STREAM_STRENGTH, type Detector, type DetectorContext, type DetectorDefinition, type DetectorSettings, type DetectorStatus, type Finding } from "../detector";
import { excerpt } from "../guidance";
import { numberSetting, type StreamChannel, type StreamLine, type StreamSentence } from "../streamText";
import { ContentTokens, NAME_TOKEN, SPAN_TOKEN } from "../words";
import { channelName } from "./streamRepeat";

export const TEXT_PROGRESS_DEFAULTS: DetectorSettings = {
  enabled: true,
  warnAt: 1,
  blockAt: 2,
  stopAt: 3,
  /** Stale passages in a row that make a loop (the warning; twice as many abort). */
  minRun: 5,
  /** Content tokens that make one passage. */
  passageTokens: 10,
  /** Share of a passage's tokens that may be new while it still adds nothing (0..1). */
  staleShare: 0.2,
  /** Share of its adjacent token pairs that may be new: known facts put together anew are progress (0..1). */
  stalePairShare: 0.15,
  /** Passages a token is remembered for, per channel. */
  window: 40,
};

/** Longest excerpt of a passage kept for the finding. */
const EXCERPT_CHARS = 160;
/** The token table never grows past this many slots (window × the longest passages fit well under it). */
const MAX_SLOTS = 1 << 16;

/** A sweep's live entries, set aside while the table is emptied (shared: a sweep runs to its end). */
let sweptKeys = new Uint32Array(0);
let sweptLast = new Int32Array(0);

/**
 * Token hash -> the last passage that used it, by open addressing (0: empty). Entries older than
 * the window are swept out when the table fills, so its size follows the window, not the session.
 */
export class TokenMemory {
  private keys = new Uint32Array(1024);
  private last = new Int32Array(1024);
  private used = 0;

  /** The last passage that used the token (0: none remembered), marked as used by passage now. */
  touch(hash: number, now: number, window: number): number {
    const mask = this.keys.length - 1;
    let slot = (hash ^ (hash >>> 15)) & mask;
    while (this.last[slot] !== 0) {
      if (this.keys[slot] === hash) {
        const before = this.last[slot];
        this.last[slot] = now;
        return before;
      }
      slot = (slot + 1) & mask;
    }
    this.keys[slot] = hash;
    this.last[slot] = now;
    if (++this.used * 2 > this.keys.length) this.sweep(now, window);
    return 0;
  }

  /**
   * Drops tokens not used within the window; grows when most are still live. The table is rebuilt
   * in place (new typed arrays each sweep cost more in allocation and page faults than the rebuild:
   * a 40 MB session sweeps ~550 times): the live entries are set aside, the table emptied, and they
   * go back in slot order, as into a new table.
   */
  private sweep(now: number, window: number): void {
    const keys = this.keys, last = this.last;
    if (sweptKeys.length < this.used) { sweptKeys = new Uint32Array(keys.length); sweptLast = new Int32Array(keys.length); }
    let live = 0;
    for (let s = 0; s < last.length; s++) {
      if (last[s] === 0 || now - last[s] > window) continue;
      sweptKeys[live] = keys[s];
      sweptLast[live++] = last[s];
    }
    const size = live * 4 > keys.length && keys.length < MAX_SLOTS ? keys.length * 2 : keys.length;
    if (size !== keys.length) { this.keys = new Uint32Array(size); this.last = new Int32Array(size); } else { keys.fill(0); last.fill(0); }
    // at the size bound the oldest half goes too
    const keep = live * 2 > size ? window >> 1 : window;
    const into = this.keys, intoLast = this.last, mask = size - 1;
    let used = 0;
    for (let k = 0; k < live; k++) {
      if (now - sweptLast[k] > keep) continue;
      const key = sweptKeys[k];
      let slot = (key ^ (key >>> 15)) & mask;
      while (intoLast[slot] !== 0) slot = (slot + 1) & mask;
      into[slot] = key;
      intoLast[slot] = sweptLast[k];
      used++;
    }
    this.used = used;
  }

  clear(): void {
    if (this.used === 0) return;
    this.keys = new Uint32Array(1024);
    this.last = new Int32Array(1024);
    this.used = 0;
  }
}

interface ChannelProgress {
  memory: TokenMemory;
  /** The passage being read: its number, tokens so far, new ones among them, and whether one names something new. */
  passage: number;
  tokens: number;
  fresh: number;
  freshName: boolean;
  /** Adjacent token pairs of the passage, and new ones among them: known facts put together anew are new. */
  pairs: number;
  freshPairs: number;
  /** Distinct tokens of the passage: one that says its own few words over and over has few. */
  distinct: number;
  /** Whether the passage names anything (a number, an identifier, a path: NAME_TOKEN). */
  named: boolean;
  /** The passage's new tokens (the first few), and whether one of them came again in it. */
  freshWords: number[];
  freshAgain: boolean;
  /** A tool call came while the passage was open: its words fall on both sides of a step. */
  acrossStep: boolean;
  startEvent: number;
  /** The start of its text, for the finding. */
  head: string;
  /** The run of stale passages: how long, the events its passages ended at (the last few), its key. */
  run: number;
  runEvents: number[];
  runKey: string;
  runHeads: string[];
  /** The workspace epoch when the last passage closed: a change ends the run. */
  epoch: number;
  /** This turn's (since the user last spoke) tokens, new ones among them, whether one is a new name. */
  turnTokens: number;
  turnFresh: number;
  turnFreshName: boolean;
  turnPairs: number;
  turnFreshPairs: number;
  /** Turns in a row whose whole answer brought nothing new, and the events they ended at. */
  turnRun: number;
  turnEvents: number[];
  turnHead: string;
  /** The line whose sentences were read so far, and up to where (the line then reads only the rest). */
  line: number;
  readTo: number;
}

/** A turn's answer is judged only from this many content tokens. */
const MIN_TURN_TOKENS = 6;
/** Share of a turn's tokens that may be new while the answer adds nothing (a whole answer reworded keeps most of them). */
const TURN_STALE_SHARE = 0.34;
/** ...and of its adjacent token pairs: a reworded question breaks some pairs, a new answer from known words most. */
const TURN_STALE_PAIR_SHARE = 0.5;
/** Turns in a row that added nothing after the first: the third copy of one answer is a loop. */
const MIN_TURN_RUN = 2;
/** A user reply with this many content tokens brings matter of its own ("yes", "continue", "just do it" bring none). */
const MIN_USER_TOKENS = 4;

/** Tool results remembered (by the ledger's output hash, clock times masked) to tell a new one. */
const RECENT_RESULTS = 64;

/** A line that is one bold phrase ("**Checking users**", "**Step 2:**"): a title, like a heading. */
function isBoldTitle(text: string): boolean {
  const t = text.trim();
  return t.length <= 80 && t.startsWith("**") && /\*\*:?$/.test(t) && t.indexOf("**", 2) === t.length - (t.endsWith(":") ? 3 : 2);
}

/** New tokens of a passage remembered, to see one said again in it. */
const MAX_FRESH_WORDS = 8;

/** Events kept as evidence of a run. */
const MAX_EVIDENCE = 12;

class TextProgressDetector implements Detector {
  readonly id = "text-progress" as const;
  private channels = new Map<StreamChannel, ChannelProgress>();
  private tokens = new ContentTokens();
  private readonly minRun: number;
  private readonly passageTokens: number;
  private readonly staleShare: number;
  private readonly window: number;
  private readonly stalePairShare: number;
  private runs = 0;
  /** Output hashes of the latest tool results ("": none), to tell a new one. */
  private resultHashes: string[] = new Array<string>(RECENT_RESULTS).fill("");
  private resultNext = 0;
  private strongest = { run: 0, detail: "" };
  /** The line being read is a title (a heading, an item label, a bold line of its own). */
  private titleLine = false;

  constructor(settings: DetectorSettings) {
    this.minRun = Math.max(2, numberSetting(settings, "minRun", TEXT_PROGRESS_DEFAULTS));
    this.passageTokens = Math.max(3, numberSetting(settings, "passageTokens", TEXT_PROGRESS_DEFAULTS));
    this.staleShare = Math.min(1, numberSetting(settings, "staleShare", TEXT_PROGRESS_DEFAULTS));
    this.stalePairShare = Math.min(1, numberSetting(settings, "stalePairShare", TEXT_PROGRESS_DEFAULTS));
    this.window = Math.max(this.minRun, Math.min(1000, numberSetting(settings, "window", TEXT_PROGRESS_DEFAULTS)));
  }

  private state(channel: StreamChannel): ChannelProgress {
    let s = this.channels.get(channel);
    if (!s) {
      s = { memory: new TokenMemory(), passage: 1, tokens: 0, fresh: 0, freshName: false, pairs: 0, freshPairs: 0, distinct: 0, named: false, freshWords: [], freshAgain: false, acrossStep: false, startEvent: -1, head: "", run: 0, runEvents: [], runKey: "", runHeads: [], epoch: 0, turnTokens: 0, turnFresh: 0, turnFreshName: false, turnPairs: 0, turnFreshPairs: 0, turnRun: 0, turnEvents: [], turnHead: "", line: -1, readTo: 0 };
      this.channels.set(channel, s);
    }
    return s;
  }

  /**
   * The user spoke (a reply, or a harness's nudge): the answer of the turn before is judged whole.
   * A reply that brings something of its own (minUserTokens content tokens or more) is new matter
   * to answer: the turn run ends there.
   */
  onUser(text: string, ctx: DetectorContext): Finding[] | void {
    this.tokens.read(text, 0, Math.min(text.length, 4000));
    const said = this.tokens.count;
    const found: Finding[] = [];
    for (const [channel, s] of this.channels) {
      const tokens = s.turnTokens, fresh = s.turnFresh, freshName = s.turnFreshName, head = s.turnHead, pairs = s.turnPairs, freshPairs = s.turnFreshPairs;
      s.turnPairs = 0;
      s.turnFreshPairs = 0;
      s.turnTokens = 0;
      s.turnFresh = 0;
      s.turnFreshName = false;
      s.turnHead = "";
      // the next turn's words are compared with this one's, the open passage's too (its counts go on)
      s.passage++;
      if (tokens < MIN_TURN_TOKENS) continue; // a bare acknowledgement says too little to judge
      // (known words put together anew are an answer of its own, as in a passage)
      const stale = !freshName && fresh <= TURN_STALE_SHARE * tokens && freshPairs <= TURN_STALE_PAIR_SHARE * pairs;
      if (!stale) { s.turnRun = 0; s.turnEvents = []; continue; }
      s.turnRun++;
      s.turnEvents.push(ctx.index);
      if (s.turnEvents.length > MAX_EVIDENCE) s.turnEvents.shift();
      const copies = s.turnRun + 1;
      if (s.turnRun >= MIN_TURN_RUN && (s.turnRun === MIN_TURN_RUN || s.turnRun === 2 * MIN_TURN_RUN)) {
        const span = excerpt(head, EXCERPT_CHARS);
        found.push({
          detector: this.id,
          key: `${this.id}:${channel}:turns:${s.turnRun === MIN_TURN_RUN ? ++this.runs : this.runs}`,
          count: s.turnRun >= 2 * MIN_TURN_RUN ? 2 : 1,
          summary: `your ${channelName(channel)} gave the same answer ${copies} turns in a row, whatever the reply: nothing new since the first ("${span}")`,
          suggestion: "Asking or saying it again does not move the task: take the reply as the answer and act on it, or say plainly what is blocking.",
          evidence: { events: [...s.turnEvents], count: copies, span },
        });
      }
    }
    if (said >= MIN_USER_TOKENS) for (const s of this.channels.values()) { s.turnRun = 0; s.turnEvents = []; }
    return found.length ? found : undefined;
  }

  /**
   * A tool result the session has not seen lately is news: the text around it is about new matter,
   * so the passage runs end (the same plan restated before each of several new reads is work). The
   * turn runs do not: a turn is judged on its answer.
   */
  onToolResult(call: CallRecord): Finding[] | void {
    const h = call.result?.outputHash;
    if (h === undefined) return;
    const seen = this.resultHashes;
    for (let k = 0; k < seen.length; k++) if (seen[k] === h) return;
    seen[this.resultNext] = h;
    this.resultNext = (this.resultNext + 1) % seen.length;
    for (const s of this.channels.values()) if (s.run > 0) { s.run = 0; s.runEvents = []; s.runHeads = []; }
  }

  /**
   * A step is taken while a passage is open: its words are narration on both sides of the step
   * ("Now let me run the script again:" before each new output). Such a passage is not text decaying
   * into fragments: its words said again are the same preface to another step. (The call's place
   * among the text is the model's own order, the same live and replayed; its result's place is not.)
   */
  onToolCall(): void {
    for (const s of this.channels.values()) if (s.tokens > 0) s.acrossStep = true;
  }

  onSentence(x: StreamSentence, ctx: DetectorContext): Finding[] | void {
    const s = this.state(x.channel);
    s.line = x.line;
    s.readTo = x.at + x.text.length;
    return this.read(s, x.channel, x.text, 0, x.text.length, x.event, ctx);
  }

  onLine(line: StreamLine, ctx: DetectorContext): Finding[] | void {
    // code, tables and dividers look alike by their nature; headings and list items are text
    if (line.kind !== "prose" && line.kind !== "list" && line.kind !== "heading") return;
    const s = this.state(line.channel);
    const from = line.id !== undefined && line.id === s.line ? Math.min(s.readTo, line.text.length) : 0;
    s.line = -1;
    s.readTo = 0;
    if (from >= line.text.length) return;
    // a heading or an item's title that says something new opens a new subject ("**Checking users**")
    this.titleLine = line.kind === "heading" || line.itemLabel === true || isBoldTitle(line.text);
    const found = this.read(s, line.channel, line.text, from, line.text.length, line.endEvent, ctx);
    this.titleLine = false;
    return found;
  }

  /** Reads a piece of a passage; the passage closes once it holds enough tokens. */
  private read(s: ChannelProgress, channel: StreamChannel, text: string, from: number, end: number, event: number, ctx: DetectorContext): Finding[] | void {
    const t = this.tokens;
    t.read(text, from, end);
    if (t.count === 0) return;
    if (s.tokens === 0) { s.startEvent = event; s.head = ""; }
    if (s.turnTokens === 0 && s.turnHead === "") s.turnHead = text.slice(from, Math.min(end, from + EXCERPT_CHARS));
    if (s.head.length < EXCERPT_CHARS) s.head += (s.head ? " " : "") + text.slice(from, Math.min(end, from + EXCERPT_CHARS));
    const hashes = t.hashes, kinds = t.kinds;
    // the token before, for pairs (spans stand outside the words' sequence; -1: none yet)
    let previous = -1;
    for (let k = 0; k < t.count; k++) {
      if (kinds[k] === SPAN_TOKEN) {
        // a code span not met lately is a new fact; it weighs nothing in the passage's length (its words do)
        const before = s.memory.touch(hashes[k], s.passage, this.window);
        if (before === 0 || s.passage - before > this.window) { s.freshName = true; s.turnFreshName = true; }
        s.named = true;
        continue;
      }
      // (every token counts toward the passage's length, a few words recombined too; only a first use can be new)
      s.tokens++;
      if (previous >= 0 && hashes[k] !== previous) {
        const pair = Math.imul(previous ^ 0x5bd1e995, 0x01000193) ^ hashes[k];
        const seen = s.memory.touch(pair >>> 0, s.passage, this.window);
        s.pairs++;
        s.turnPairs++;
        if (seen === 0 || s.passage - seen > this.window) { s.freshPairs++; s.turnFreshPairs++; }
      }
      previous = hashes[k];
      if (kinds[k] === NAME_TOKEN) s.named = true;
      const before = s.memory.touch(hashes[k], s.passage, this.window);
      if (before === s.passage) {
        // said earlier in this passage: a new word said again is what the passage is about
        if (!s.freshAgain && s.freshWords.includes(hashes[k])) s.freshAgain = true;
        continue;
      }
      s.distinct++;
      s.turnTokens++;
      if (before === 0 || s.passage - before > this.window) {
        s.fresh++;
        s.turnFresh++;
        if (s.freshWords.length < MAX_FRESH_WORDS) s.freshWords.push(hashes[k]);
        if (this.titleLine) s.freshAgain = true;
        if (kinds[k] === NAME_TOKEN) { s.freshName = true; s.turnFreshName = true; }
      }
    }
    if (s.tokens < this.passageTokens) return;
    return this.closePassage(s, channel, event, ctx);
  }

  private closePassage(s: ChannelProgress, channel: StreamChannel, event: number, ctx: DetectorContext): Finding[] | void {
    // new pairings of known words are progress (a walk through known facts), unless the passage only
    // recombines its own few words (half its tokens or more are repeats within it) within one step
    // (acrossStep read first: read only for the rare degenerate passage, its first read stopped the compiled code)
    const degenerate = !s.acrossStep && 2 * s.distinct <= s.tokens;
    // a new subject, named again within the passage (the next item of an enumeration: "Module
    // uploads: ... the tests for uploads ..."), is news; a synonym swapped in is said once
    const newSubject = s.freshAgain && !degenerate;
    const stale = !s.freshName && !newSubject && s.fresh <= this.staleShare * s.tokens && (s.freshPairs <= this.stalePairShare * s.pairs || degenerate);
    const head = s.head, named = s.named;
    s.passage++;
    s.tokens = 0;
    s.fresh = 0;
    s.freshName = false;
    s.pairs = 0;
    s.freshPairs = 0;
    s.distinct = 0;
    s.named = false;
    s.freshAgain = false;
    s.acrossStep = false;
    if (s.freshWords.length !== 0) s.freshWords.length = 0;
    // the workspace changed since the last passage: the text around it is about new work
    const moved = ctx.epoch !== s.epoch;
    s.epoch = ctx.epoch;
    if (!stale || moved) {
      if (s.run > 0) { s.run = 0; s.runEvents = []; s.runHeads = []; }
      if (!stale) return;
    }
    if (s.run === 0) s.runKey = `${this.id}:${channel}:${++this.runs}`;
    const before = s.run;
    // a stale passage that only says its own few words over and over is twice the evidence, three times
    // when it names nothing at all (words only, no code, path or number: text decaying into fragments;
    // a walk through calls of one function with other arguments names the same identifiers again)
    s.run += degenerate ? (named ? 2 : 3) : 1;
    s.runEvents.push(event);
    if (s.runEvents.length > MAX_EVIDENCE) s.runEvents.shift();
    if (s.runHeads.length < 3) s.runHeads.push(head);
    if (s.run > this.strongest.run) this.strongest = { run: s.run, detail: `${channelName(channel)}: ${s.run} passages, nothing new` };
    // a finding each time the run passes a multiple of minRun
    if (Math.floor(s.run / this.minRun) === Math.floor(before / this.minRun)) return;
    const count = Math.floor(s.run / this.minRun);
    const span = excerpt(s.runHeads[0], EXCERPT_CHARS);
    return [{
      detector: this.id,
      key: s.runKey,
      count,
      summary: `your ${channelName(channel)} went ${s.run} passages in a row with nothing new: no fact, name or number the ${channelName(channel)} just before had not already given ("${span}")`,
      suggestion: "Going over the same ground again does not move the task: state the conclusion once and act on it, or ask the user what is missing.",
      evidence: { events: [...s.runEvents], count: s.run, span },
    }];
  }

  /**
   * A new user turn keeps what was said and the run: the same question asked after every reply, in
   * whatever words, is a loop across turns. A manual or idle reset forgets it all.
   */
  reset(newTurn?: boolean): void {
    if (newTurn) {
      // (the results seen are kept too: the same output after a reply is no news)
      // a new key: the ladder starts afresh each turn, a run carried over warns again once it grows
      for (const [channel, s] of this.channels) if (s.run > 0) s.runKey = `${this.id}:${channel}:${++this.runs}`;
      return;
    }
    this.channels.clear();
    this.resultHashes.fill("");
    this.strongest = { run: 0, detail: "" };
  }

  status(): DetectorStatus {
    return { id: this.id, enabled: true, progress: Math.min(1, this.strongest.run / this.minRun), detail: this.strongest.detail };
  }
}

export const textProgress: DetectorDefinition = {
  id: "text-progress",
  title: "Text without progress",
  shortTitle: "Idle text",
  description: "Thinking or visible text that keeps going without adding anything new: passage after passage re-using the same facts, names and numbers, whatever the wording or language.",
  channel: "stream",
  defaults: TEXT_PROGRESS_DEFAULTS,
  create: (settings) => new TextProgressDetector(settings),
  strength: STREAM_STRENGTH,
  parameters: {
    minRun: {
      description: "Passages in a row that add nothing new before the text counts as a loop (the warning; twice as many abort the response). Example: `5` (the default): five paragraphs re-using the same facts, names and numbers.",
    },
    passageTokens: {
      description: "Content words and numbers that make one passage, the unit judged for something new. Example: `10` (the default); larger passages judge slower but see more context.",
      tuning: true,
    },
    staleShare: {
      description: "Share (0 to 1) of a passage's words and numbers that may be new while the passage still adds nothing. Example: `0.2` (the default): up to one word in five may be new.",
      tuning: true,
    },
    stalePairShare: {
      description: "Share (0 to 1) of a passage's adjacent word pairs that may be new while it still adds nothing: known facts put together anew count as progress. Example: `0.15` (the default).",
      tuning: true,
    },
    window: {
      description: "Passages a word is remembered for, per channel: a word last seen further back counts as new again. Example: `40` (the default).",
      tuning: true,
    },
  },
};
