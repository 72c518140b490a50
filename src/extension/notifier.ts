/**
 * One notification per task, always current. A plain VS Code notification can be neither edited nor
 * closed by the extension, so a later rung could only queue behind a stale one whose button still
 * carried out the old rung. Here each task's notification is a live one (in VS Code a progress
 * notification, whose message can be replaced and which closes when told) and its actions are links
 * in the message: a later state replaces the text and the links in place, and a click on a link of
 * an older text (a race with an update) does nothing. No vscode import: the live notification is
 * handed in (unit-tested in plain Node).
 */
import type { InterventionRecord, SessionSummary } from "./sessionManager";
import { stateWords } from "./stateWords";

export type ToastSeverity = "info" | "warning" | "error";

export interface Toast {
  /** The task it is about (one notification per task). */
  sessionKey: string;
  /** The state's tone (the status bar's colour); the live notification itself has no colour of its own. */
  severity: ToastSeverity;
  /** The words, without the action links. */
  text: string;
  /** The one main action (carries out the question's step, or the host's remedy). */
  mainAction?: string;
  /** A question: offers Dismiss (no) besides the main action. */
  question?: boolean;
}

/** How a notification ended: its main action, "details", closed or dismissed, or replaced by a later state of its task. */
export type ToastResult = "main" | "details" | "closed" | "replaced";

export const SHOW_DETAILS = "Show details";
export const DISMISS = "Dismiss";

export type ToastPick = "main" | "details" | "close";

/** A notification whose text can be replaced and which can be closed. */
export interface LiveNotification {
  update(markdown: string): void;
  close(): void;
}

/**
 * Opens a live notification with this text (its links are the actions). It has one button of its
 * own, which closes it (VS Code shows a notification with a button expanded, so the links show
 * whole): `onClose` is called when the user presses it.
 */
export type ShowLive = (markdown: string, onClose: () => void) => LiveNotification;

/** The command link for one action of one version of a task's notification. */
export type LinkFor = (sessionKey: string, version: number, pick: ToastPick) => string;

interface Open { toast: Toast; version: number; live: LiveNotification; resolve(r: ToastResult): void; closeTimer?: ReturnType<typeof setTimeout> }

/** A notification with no question stays this long, then closes (the status bar and the panel keep the state). */
export const INFO_OPEN_MS = 5 * 60_000;

/** Text shown as plain text: a task title cannot become a link (or a command) in the message. */
export function plainText(s: string): string {
  return s.replace(/\[/g, "(").replace(/\]/g, ")");
}

/** The message: the words, then the actions as links. */
export function toastMarkdown(toast: Toast, version: number, linkFor: LinkFor): string {
  const link = (label: string, pick: ToastPick) => `[${label}](${linkFor(toast.sessionKey, version, pick)})`;
  const links: string[] = [];
  if (toast.mainAction) links.push(link(toast.mainAction, "main"));
  // The notification's own button closes it; a question also says in words that closing is "no".
  if (toast.question) links.push(link(DISMISS, "close"));
  links.push(link(SHOW_DETAILS, "details"));
  return `${plainText(toast.text)} ${links.join(" · ")}`;
}

export class TaskNotifier {
  private readonly open = new Map<string, Open>();
  private nextVersion = 1;
  /** Every notification opened, and every text it was given, oldest first (bounded): the integration suite reads it. */
  readonly shown: Array<{ sessionKey: string; text: string; at: number; replaced?: boolean }> = [];
  private static readonly MAX_SHOWN = 200;

  constructor(private readonly show: ShowLive, private readonly linkFor: LinkFor, private readonly now: () => number = Date.now,
    private readonly setTimer: (run: () => void, ms: number) => ReturnType<typeof setTimeout> = setTimeout) {}

  /**
   * Shows the toast: in the task's open notification if it has one (the earlier toast is answered
   * "replaced"), else in a new one. Resolves when the user acts on it, closes it or a later state replaces it.
   */
  notify(toast: Toast): Promise<ToastResult> {
    return new Promise((resolve) => {
      const version = this.nextVersion++;
      const markdown = toastMarkdown(toast, version, this.linkFor);
      const current = this.open.get(toast.sessionKey);
      this.record(toast, !!current);
      if (current) {
        if (current.closeTimer) clearTimeout(current.closeTimer);
        const entry: Open = { toast, version, live: current.live, resolve };
        this.open.set(toast.sessionKey, entry);
        current.resolve("replaced");
        try { current.live.update(markdown); } catch { /* a notification gone away: the next state opens a new one */ }
        this.expire(entry);
        return;
      }
      let live: LiveNotification;
      const onClose = () => { const now = this.open.get(toast.sessionKey); if (now && now.live === live) this.finish(toast.sessionKey, now, "closed"); };
      try { live = this.show(markdown, onClose); } catch { resolve("closed"); return; }
      const entry: Open = { toast, version, live, resolve };
      this.open.set(toast.sessionKey, entry);
      this.expire(entry);
    });
  }

  /**
   * Brings the task's open notification up to date without opening one (a state the user need not
   * be told about, such as "stopping the task…", must not leave an older text standing).
   */
  refresh(toast: Toast): void {
    const current = this.open.get(toast.sessionKey);
    if (!current || (current.toast.text === toast.text && current.toast.mainAction === toast.mainAction)) return;
    void this.notify(toast);
  }

  /** A link was clicked: acts only if it belongs to the text shown now. Returns whether it was taken. */
  pick(sessionKey: string, version: number, pick: ToastPick): boolean {
    const current = this.open.get(sessionKey);
    if (!current || current.version !== version) return false;
    if (pick === "main" && !current.toast.mainAction) return false;
    this.finish(sessionKey, current, pick === "main" ? "main" : pick === "details" ? "details" : "closed");
    return true;
  }

  /** Closes the task's notification (answered elsewhere, or the task's state no longer needs it). */
  close(sessionKey: string): void {
    const current = this.open.get(sessionKey);
    if (current) this.finish(sessionKey, current, "closed");
  }

  /** The notifications open now, by task. */
  openToasts(): Toast[] { return [...this.open.values()].map((o) => o.toast); }

  /** Nothing ever waits now (a later state replaces the open one); kept for the API's shape. */
  waitingToasts(): Toast[] { return []; }

  private finish(sessionKey: string, entry: Open, result: ToastResult): void {
    if (this.open.get(sessionKey) === entry) this.open.delete(sessionKey);
    if (entry.closeTimer) clearTimeout(entry.closeTimer);
    try { entry.live.close(); } catch { /* already gone */ }
    entry.resolve(result);
  }

  /** A notification that asks nothing closes by itself after a while. */
  private expire(entry: Open): void {
    if (entry.toast.question) return;
    entry.closeTimer = this.setTimer(() => { if (this.open.get(entry.toast.sessionKey) === entry) this.finish(entry.toast.sessionKey, entry, "closed"); }, INFO_OPEN_MS);
    (entry.closeTimer as { unref?: () => void }).unref?.();
  }

  private record(toast: Toast, replaced: boolean): void {
    this.shown.push({ sessionKey: toast.sessionKey, text: toast.text, at: this.now(), ...(replaced ? { replaced } : {}) });
    if (this.shown.length > TaskNotifier.MAX_SHOWN) this.shown.shift();
  }

  /** Closes every notification (on dispose). */
  dispose(): void {
    for (const [key, entry] of [...this.open]) this.finish(key, entry, "closed");
  }
}

const TOAST_SEVERITY: Record<string, ToastSeverity> = { warning: "warning", error: "error", neutral: "info" };
/** Titles in a notification are cut here: the panel has the rest. */
const TOAST_TITLE_CHARS = 48;

function shortTitle(title: string): string {
  const t = title.replace(/\s+/g, " ").trim();
  return t.length > TOAST_TITLE_CHARS ? `${t.slice(0, TOAST_TITLE_CHARS - 1).trimEnd()}…` : t;
}

/** The main action's label for a host's remedy. */
export const REMEDY_LABELS: Record<NonNullable<InterventionRecord["remedy"]>["offer"] & string, string> = { "install-cline-hook": "Install the Cline hook" };

/** The notification for one intervention: where, then the state in the same words as the status bar and the panel. */
export function toastFor(session: SessionSummary, record: Pick<InterventionRecord, "phase" | "action" | "remedy">): Toast {
  const words = stateWords(record.phase, record.action);
  const where = `${session.hostLabel} task “${shortTitle(session.title)}”`;
  if (record.phase === "unavailable" && record.remedy) {
    // Once per task: what would make acting possible, and the one action that gets there.
    return { sessionKey: session.key, severity: "warning", text: `${where}: ${words.sentence} ${record.remedy.fix}`,
      mainAction: record.remedy.offer ? REMEDY_LABELS[record.remedy.offer] : undefined };
  }
  return {
    sessionKey: session.key, severity: TOAST_SEVERITY[words.tone] ?? "info",
    text: `${where}: ${words.sentence}`,
    mainAction: record.phase === "asking" ? words.actLabel : undefined,
    question: record.phase === "asking" || undefined,
  };
}
