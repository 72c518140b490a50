/**
 * Holding a Roo-compatible host's auto-approval while a tool loop is on its ladder, so that the
 * call Loop Sentinel refuses waits at an approval ask it can answer, instead of running before the
 * refusal arrives (Roo approves an auto-approved call the moment its ask completes).
 *
 * Only the master switch (`autoApprovalEnabled`) is touched, through the host's own
 * `toggleAutoApprove` command; the per-tool settings stay as the user set them, so a held call is
 * approved on the user's behalf exactly when those settings would have approved it. The switch is
 * put back only if it is still off: a user who turned it on meanwhile is not overruled.
 *
 * A hold outlives nothing: it is written to a small file before the switch is turned off, and
 * removed once the switch is back. Loop Sentinel deactivated or killed mid-hold leaves the record;
 * the next connection to that host finds it (its window gone, or its own earlier life in this
 * process) and turns the switch back on. No vscode import: the switch and the file are injected.
 */
import * as fs from "node:fs";
import { writeFileAtomic } from "../atomicFile";
import * as path from "node:path";

/** The host's auto-approval master switch. */
export interface AutoApprovalSwitch {
  /** Whether auto-approval is on now; undefined when it cannot tell. */
  enabled(): boolean | undefined;
  /** Flips it (Roo's `<prefix>.toggleAutoApprove`, carried out by its chat view). */
  toggle(): Promise<void>;
}

/** One hold in progress, as written down before the switch is turned off. */
export interface HoldRecord {
  /** The extension host process that holds it. */
  pid: number;
  /** This holder's identity within that process (an extension re-activated in the same host is a new one). */
  holder: string;
  at: number;
  /** The host's name, for the log. */
  label: string;
}

/** Where holds are written down: one record per host extension id. */
export interface HoldStore {
  read(): Record<string, HoldRecord>;
  write(records: Record<string, HoldRecord>): void;
}

/** A JSON file as the hold store (Loop Sentinel's own global storage folder). */
export function fileHoldStore(file: string): HoldStore {
  return {
    read() {
      try {
        const v = JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
        return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, HoldRecord>) : {};
      } catch { return {}; }
    },
    write(records) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      writeFileAtomic(file, JSON.stringify(records, null, 2));
    },
  };
}

function pidAlive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (err) { return (err as NodeJS.ErrnoException).code === "EPERM"; }
}

export interface HoldOptions {
  /** The host extension's id: the key of its record. */
  key: string;
  label: string;
  switch: AutoApprovalSwitch;
  store?: HoldStore;
  log(line: string): void;
  /** How long to wait for the switch to show the flip (the host's chat view carries it out). */
  confirmMs?: number;
  pid?: number;
  alive?(pid: number): boolean;
  now?(): number;
}

let holders = 0;

export class AutoApprovalHold {
  private holding = false;
  private readonly holder = `${Date.now().toString(36)}-${++holders}`;
  private readonly pid: number;
  private busy: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: HoldOptions) {
    this.pid = o.pid ?? process.pid;
  }

  /** Whether this connection holds the host's auto-approval now. */
  get held(): boolean { return this.holding; }

  /**
   * Turns auto-approval off, if it is on. True once it is confirmed off and written down; false
   * when it was off already (nothing to hold) or the host did not carry out the flip.
   */
  hold(): Promise<boolean> {
    return this.serially(async () => {
      if (this.holding) return true;
      if (this.o.switch.enabled() !== true) return false;
      // Written down first: a crash between the flip and the record would leave the switch off unrecorded.
      this.writeRecord({ pid: this.pid, holder: this.holder, at: (this.o.now ?? Date.now)(), label: this.o.label });
      try { await this.o.switch.toggle(); } catch (err) {
        this.removeRecord();
        this.o.log(`${this.o.label}: could not hold auto-approval: ${(err as Error).message}`);
        return false;
      }
      // Held from here even when the flip is not seen yet: the chat view carries it out, late on a
      // busy machine, and a flip that lands after we gave up would leave every call waiting for an
      // answer nobody gives. Release looks at the switch itself and puts back only what is off.
      this.holding = true;
      this.o.log(await this.settles(false)
        ? `${this.o.label}: auto-approval held (the next call of the loop waits for Loop Sentinel's answer)`
        : `${this.o.label}: auto-approval hold asked for; ${this.o.label}'s chat view has not carried it out yet`);
      return true;
    });
  }

  /** Puts auto-approval back on, unless someone turned it on meanwhile. */
  release(why: string): Promise<void> {
    return this.serially(async () => {
      if (!this.holding) return;
      this.holding = false;
      await this.restore(why);
    });
  }

  /**
   * At connection: a hold written down by a holder that is gone (its window closed or crashed, or an
   * earlier activation in this process) is undone. A live holder in another window is left alone.
   */
  recover(): Promise<void> {
    return this.serially(async () => {
      const all = this.o.store?.read() ?? {};
      const r = Object.hasOwn(all, this.o.key) ? all[this.o.key] : undefined;
      if (!r || typeof r !== "object") return;
      const gone = r.pid === this.pid ? r.holder !== this.holder : !(this.o.alive ?? pidAlive)(r.pid);
      if (!gone) return;
      await this.restore("left by a Loop Sentinel that stopped mid-hold");
    });
  }

  private async restore(why: string): Promise<void> {
    if (this.o.switch.enabled() === false) {
      try { await this.o.switch.toggle(); } catch (err) { this.o.log(`${this.o.label}: could not turn auto-approval back on: ${(err as Error).message}`); }
      if (!(await this.settles(true))) {
        // Kept written down: the next connection tries again.
        this.o.log(`${this.o.label}: auto-approval is still off after trying to restore it (${why}); will retry at the next connection`);
        return;
      }
      this.o.log(`${this.o.label}: auto-approval restored (${why})`);
    }
    this.removeRecord();
  }

  private async settles(on: boolean): Promise<boolean> {
    const deadline = Date.now() + (this.o.confirmMs ?? 2000);
    for (;;) {
      if (this.o.switch.enabled() === on) return true;
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  private writeRecord(r: HoldRecord): void {
    if (!this.o.store) return;
    try { this.o.store.write({ ...this.o.store.read(), [this.o.key]: r }); } catch (err) { this.o.log(`${this.o.label}: could not write down the auto-approval hold: ${(err as Error).message}`); }
  }

  private removeRecord(): void {
    if (!this.o.store) return;
    try {
      const all = this.o.store.read();
      if (!Object.hasOwn(all, this.o.key)) return;
      delete all[this.o.key];
      this.o.store.write(all);
    } catch (err) { this.o.log(`${this.o.label}: could not clear the auto-approval hold record: ${(err as Error).message}`); }
  }

  private serially<T>(step: () => Promise<T>): Promise<T> {
    const run = this.busy.then(step, step);
    this.busy = run.catch(() => undefined);
    return run;
  }
}
