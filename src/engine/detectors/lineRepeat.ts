/**
 * b. The same line or paragraph again and again in one request's thinking or text, adjacent or
 * not (A x A y A): normalised (case, spacing, list markers, emphasis, opening "Wait,"/"Hmm,")
 * so small drift in layout does not hide it. Short lines are ignored ("Let me check."), and so are code, tables,
 * dividers and headings. A line counts per heading: the same sentence under different headings
 * is a per-item report, not a loop; a list item counts within its list and under its parent
 * item (the same steps traced again in a new list, or one note under each file, are work).
 *
 * count = catches of this line since the user last spoke (one per request): the first aborts the
 * stream, a second catch of the same line stops the task.
 */
import type { Detector, DetectorContext, DetectorDefinition, DetectorSettings, DetectorStatus, Finding } from "../detector";
import type { StreamEvent } from "../events";
import { BoundedMap } from "../boundedMap";
import { excerpt } from "../guidance";
import { CatchCounter, StreamLines, normalizeLine, numberSetting, stripOpeners, textKey, type StreamChannel, type StreamLine, type StreamParagraph } from "../streamText";
import { channelName } from "./streamRepeat";

export const LINE_REPEAT_DEFAULTS: DetectorSettings = {
  enabled: true,
  warnAt: 0,
  blockAt: 1,
  stopAt: 2,
  /** Copies of one line (or paragraph) in one request that make a loop. */
  minCopies: 3,
  /** Lines shorter than this (normalised) are never counted. */
  minLineChars: 40,
  /** Paragraphs of several lines count as a whole from this length. */
  minParagraphChars: 80,
};

/** Distinct lines remembered per channel and request; the least recent are forgotten first. */
const MAX_TRACKED_LINES = 1024;
const MAX_EVENTS = 32;

interface Seen {
  count: number;
  events: number[];
  text: string;
}

class LineRepeatDetector implements Detector {
  readonly id = "line-repeat" as const;
  private lines = new StreamLines();
  private seen = new Map<StreamChannel, BoundedMap<string, Seen>>();
  private counter = new CatchCounter();
  private readonly minCopies: number;
  private readonly minLineChars: number;
  private readonly minParagraphChars: number;
  private strongest = { count: 0, detail: "" };

  constructor(settings: DetectorSettings) {
    this.minCopies = Math.max(2, numberSetting(settings, "minCopies", LINE_REPEAT_DEFAULTS));
    this.minLineChars = numberSetting(settings, "minLineChars", LINE_REPEAT_DEFAULTS);
    this.minParagraphChars = numberSetting(settings, "minParagraphChars", LINE_REPEAT_DEFAULTS);
  }

  onRequestStart(): void {
    this.lines.reset();
    this.seen.clear();
    this.counter.newRequest();
    this.strongest = { count: 0, detail: "" };
  }

  onStream(ev: StreamEvent, ctx: DetectorContext): Finding[] | void {
    const out: Finding[] = [];
    this.lines.push(ev.t, ev.delta, ctx.index, (l) => this.onLine(l, out), (p) => this.onParagraph(p, out));
    return out.length ? out : undefined;
  }

  onRequestEnd(ctx: DetectorContext): Finding[] | void {
    const out: Finding[] = [];
    this.lines.flush(ctx.index, (l) => this.onLine(l, out), (p) => this.onParagraph(p, out));
    return out.length ? out : undefined;
  }

  private onLine(line: StreamLine, out: Finding[]): void {
    if (line.kind !== "prose" && line.kind !== "list") return;
    const norm = stripOpeners(normalizeLine(line.text));
    if (norm.length < this.minLineChars) return;
    // list items count within their own list: steps re-traced in a new list are work, not a loop
    const scope = line.kind === "list" ? `${line.section}\u0000list ${line.list}\u0000${line.parent}` : line.section;
    this.count(line.channel, "line", scope, norm, line.text, line.endEvent, out);
  }

  private onParagraph(p: StreamParagraph, out: Finding[]): void {
    if (p.lines.length < 2) return; // a one-line paragraph is its line
    const norm = stripOpeners(p.lines.map((l) => normalizeLine(l.text)).join(" "));
    if (norm.length < this.minParagraphChars) return;
    this.count(p.channel, "paragraph", p.section, norm, p.text, p.endEvent, out);
  }

  private count(channel: StreamChannel, unit: "line" | "paragraph", section: string, norm: string, text: string, event: number, out: Finding[]): void {
    let seen = this.seen.get(channel);
    if (!seen) { seen = new BoundedMap(MAX_TRACKED_LINES); this.seen.set(channel, seen); }
    const id = `${unit}\u0000${section}\u0000${norm}`;
    let s = seen.get(id);
    if (!s) { s = { count: 0, events: [], text }; seen.set(id, s); }
    s.count++;
    if (s.events.length < MAX_EVENTS) s.events.push(event);
    if (s.count > this.strongest.count) this.strongest = { count: s.count, detail: `${channelName(channel)} ${unit} ×${s.count}: ${excerpt(text, 40)}` };
    if (s.count < this.minCopies) return;
    const key = `${this.id}:${channel}:${textKey(section + "\u0000" + norm)}`;
    const count = this.counter.catch(key, channel);
    if (count === undefined) return;
    const span = excerpt(s.text, 200);
    out.push({
      detector: this.id,
      key,
      count,
      summary: `your ${channelName(channel)} says the same ${unit} ${s.count} times ("${span}")`,
      suggestion: "It is already said: do not write it again. Decide on the next step and take it, or give the final answer.",
      evidence: { events: [...s.events], count: s.count, span },
    });
  }

  reset(): void {
    this.lines.reset();
    this.seen.clear();
    this.counter.reset();
    this.strongest = { count: 0, detail: "" };
  }

  status(): DetectorStatus {
    return { id: this.id, enabled: true, progress: Math.min(1, this.strongest.count / this.minCopies), detail: this.strongest.detail };
  }
}

export const lineRepeat: DetectorDefinition = {
  id: "line-repeat",
  title: "Repeated lines and paragraphs",
  description: "The same line or paragraph (normalised) several times in one response or thinking block, adjacent or not.",
  channel: "stream",
  defaults: LINE_REPEAT_DEFAULTS,
  create: (settings) => new LineRepeatDetector(settings),
};
