/**
 * The contract between the extension shell and one agent host (Roo Code, Kilo Code, Cline...).
 * An adapter turns the host's messages into trace events (adapters in) and carries out the
 * engine's interventions through the host's API (actions out). No detection logic lives here.
 * Kept free of `vscode` types so that adapters' pure parts and tests run in plain Node.
 */
import type { TraceEvent } from "../engine/events";
import type { Intervention } from "../engine/session";

export interface Disposable { dispose(): void }
export type Listener<T> = (value: T) => void;
export type Subscribe<T> = (listener: Listener<T>) => Disposable;

export type HostState =
  /** Host extension or data folder not found. */
  | "not-found"
  /** Found but not usable yet (extension not activated, API missing). */
  | "inactive"
  /** Connected and delivering events. */
  | "watching"
  /** Found but unusable: API of an unexpected shape, unreadable files. Detail says why. */
  | "error";

export interface HostStatus {
  hostId: string;
  label: string;
  state: HostState;
  /** One sentence for the status bar tooltip: why it is (not) watched. */
  detail: string;
  /** Sessions (tasks) seen so far. */
  sessions: number;
}

export interface HostSessionEvent {
  hostId: string;
  /** The host's task id; one engine session per task. */
  taskId: string;
  /** A readable task name (first user message), when known. */
  title?: string;
  event: TraceEvent;
  /** Called at once with the interventions this event caused (Cline's hook answers from them). */
  onInterventions?(interventions: Intervention[]): void;
}

export interface ActionOutcome {
  /** What was done, in a sentence, for the log and the panel ("cancelled task, sent guidance"). */
  done: string;
  ok: boolean;
  /**
   * Guidance was sent and the host will show whether the model got it: settles with the final
   * outcome (delivered, re-sent another way, or not delivered). Absent when nothing was sent or the
   * host cannot tell.
   */
  delivery?: Promise<ActionOutcome>;
  /** Taken but not carried out yet (guidance held until the host can take it): the UI must not say it was done. */
  deferred?: boolean;
}

/**
 * Why this host cannot carry out interventions on a task from here, and what would make it possible,
 * in plain words for the user (offered once per task instead of an action that would fail).
 */
export interface Remedy {
  /** Why nothing can be done from here ("Cline's API is not available in this window"). */
  why: string;
  /** What would make it possible, in a sentence or two. */
  fix: string;
  /** The one action the extension can offer for it, if any. */
  offer?: "install-cline-hook";
}

export interface HostAdapter extends Disposable {
  readonly hostId: string;
  readonly label: string;
  /** Starts watching; never throws (problems show in status()). */
  start(): Promise<void>;
  status(): HostStatus;
  readonly onStatusChange: Subscribe<HostStatus>;
  /**
   * The task's trace events. Guidance this adapter sent comes back from the host as a message:
   * the adapter drops those echoes, because a `user` event resets the engine's counts.
   */
  readonly onEvent: Subscribe<HostSessionEvent>;
  /**
   * Carries out one intervention on a task: warn (send guidance), block (refuse the pending call),
   * abort (cancel the running request, then guide), stop (halt the task). Never throws; a host that
   * cannot do an action says so in the outcome.
   */
  act(taskId: string, intervention: Intervention): Promise<ActionOutcome>;
  /**
   * The host carried this intervention out on its own, before it was raised (Cline's PreToolUse
   * hook answers the agent synchronously): what was done, or undefined when it is still to do.
   */
  handledByHost?(taskId: string, intervention: Intervention): ActionOutcome | undefined;
  /**
   * Asked before an intervention is offered or carried out: undefined when act() can work on this
   * task, else why not and what would make it possible (nothing is then asked, tried or sent).
   */
  cannotAct?(taskId: string, intervention: Intervention): Remedy | undefined;
}

/** A tiny event emitter with the Subscribe shape (vscode.EventEmitter is not available in plain Node). */
export class Emitter<T> {
  private listeners = new Set<Listener<T>>();
  readonly subscribe: Subscribe<T> = (listener) => {
    this.listeners.add(listener);
    return { dispose: () => { this.listeners.delete(listener); } };
  };
  fire(value: T): void {
    for (const l of [...this.listeners]) {
      try { l(value); } catch { /* a failing listener must not stop the others */ }
    }
  }
  dispose(): void { this.listeners.clear(); }
}

/** The status and session-event channels every host adapter offers, made once for all of them. */
export abstract class HostEvents {
  protected readonly statusEmitter = new Emitter<HostStatus>();
  protected readonly eventEmitter = new Emitter<HostSessionEvent>();
  readonly onStatusChange = this.statusEmitter.subscribe;
  readonly onEvent = this.eventEmitter.subscribe;
}

/** What a host factory needs from the extension: logging and settings, without vscode types. */
export interface HostEnvironment {
  log(line: string): void;
  /** Global storage folder of VS Code (…/User/globalStorage), where hosts keep their task files. */
  globalStorageRoot: string | undefined;
  /** Loop Sentinel's own global storage folder: state that must outlive a crash (a held auto-approval). */
  stateDir?: string;
  /** False while Loop Sentinel is off or warn-only: a host's own guard (Cline's hook) must let everything through. */
  mayIntervene?(): boolean;
  /** Whether a VS Code extension of this id is installed (absent outside VS Code). */
  extensionInstalled?(id: string): boolean;
}
