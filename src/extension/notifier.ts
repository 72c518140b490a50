/**
 * One notification per task at a time. VS Code cannot close or edit a notification it showed, so a
 * newer state for a task whose notification is still open waits, replacing any older one waiting,
 * and shows when the open one is closed or answered. A replaced question is answered "superseded".
 * No vscode import: the show function is handed in (unit-tested in plain Node).
 */
import type { InterventionRecord, SessionSummary } from "./sessionManager";
import { stateWords } from "./stateWords";

export type ToastSeverity = "info" | "warning" | "error";

export interface Toast {
  /** The task it is about (one at a time per task). */
  sessionKey: string;
  severity: ToastSeverity;
  text: string;
  /** The one main action; "Show Details" is always offered after it. */
  mainAction?: string;
}

/** How a notification ended: its main action, "details", closed without a choice, or replaced before it showed. */
export type ToastResult = "main" | "details" | "closed" | "replaced";

export const SHOW_DETAILS = "Show Details";

/** Shows one notification with its buttons; resolves with the picked button or undefined when closed. */
export type ShowToast = (severity: ToastSeverity, text: string, buttons: string[]) => PromiseLike<string | undefined>;

interface Waiting { toast: Toast; resolve(r: ToastResult): void }

export class TaskNotifier {
  private readonly open = new Map<string, Toast>();
  private readonly waiting = new Map<string, Waiting>();
  /** Every notification shown, oldest first (bounded): the integration suite reads it. */
  readonly shown: Array<{ sessionKey: string; text: string; at: number }> = [];
  private static readonly MAX_SHOWN = 200;

  constructor(private readonly show: ShowToast, private readonly now: () => number = Date.now) {}

  /** Shows the toast now, or once the task's open notification has closed (replacing any toast waiting). */
  notify(toast: Toast): Promise<ToastResult> {
    return new Promise((resolve) => {
      if (!this.open.has(toast.sessionKey)) { this.display(toast, resolve); return; }
      this.waiting.get(toast.sessionKey)?.resolve("replaced");
      this.waiting.set(toast.sessionKey, { toast, resolve });
    });
  }

  /** The notifications open now, by task. */
  openToasts(): Toast[] { return [...this.open.values()]; }

  /** The toasts waiting behind open ones (at most one per task). */
  waitingToasts(): Toast[] { return [...this.waiting.values()].map((w) => w.toast); }

  /** The toast waiting behind a task's open one, if any. */
  waitingToast(sessionKey: string): Toast | undefined { return this.waiting.get(sessionKey)?.toast; }

  private display(toast: Toast, resolve: (r: ToastResult) => void): void {
    this.open.set(toast.sessionKey, toast);
    this.shown.push({ sessionKey: toast.sessionKey, text: toast.text, at: this.now() });
    if (this.shown.length > TaskNotifier.MAX_SHOWN) this.shown.shift();
    const buttons = toast.mainAction && toast.mainAction !== SHOW_DETAILS ? [toast.mainAction, SHOW_DETAILS] : [SHOW_DETAILS];
    const closed = (pick: string | undefined) => {
      if (this.open.get(toast.sessionKey) === toast) this.open.delete(toast.sessionKey);
      resolve(pick === undefined ? "closed" : pick === SHOW_DETAILS ? "details" : "main");
      const next = this.waiting.get(toast.sessionKey);
      if (next) { this.waiting.delete(toast.sessionKey); this.display(next.toast, next.resolve); }
    };
    let shown: PromiseLike<string | undefined>;
    try { shown = this.show(toast.severity, toast.text, buttons); } catch { shown = Promise.resolve(undefined); }
    shown.then(closed, () => closed(undefined));
  }

  /** Resolves everything waiting as replaced (on dispose: nothing more is shown). */
  dispose(): void {
    for (const w of this.waiting.values()) w.resolve("replaced");
    this.waiting.clear();
  }
}

const TOAST_SEVERITY: Record<string, ToastSeverity> = { warning: "warning", error: "error", neutral: "info" };
/** Titles in a notification are cut here: the panel has the rest. */
const TOAST_TITLE_CHARS = 48;

function shortTitle(title: string): string {
  const t = title.replace(/\s+/g, " ").trim();
  return t.length > TOAST_TITLE_CHARS ? `${t.slice(0, TOAST_TITLE_CHARS - 1).trimEnd()}…` : t;
}

/** The notification for one intervention: where, then the state in the same words as the status bar and the panel. */
export function toastFor(session: SessionSummary, record: Pick<InterventionRecord, "phase" | "action">): Toast {
  const words = stateWords(record.phase, record.action);
  return {
    sessionKey: session.key, severity: TOAST_SEVERITY[words.tone] ?? "info",
    text: `${session.hostLabel} task “${shortTitle(session.title)}”: ${words.sentence}`,
    mainAction: record.phase === "asking" ? words.actLabel : undefined,
  };
}
