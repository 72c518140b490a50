/** Shared helpers for the Roo tests: the recorded streams and the fake Roo API (plain JS, also the test extension's). */
import * as fs from "node:fs";
import * as path from "node:path";
import { EventEmitter } from "node:events";

export const REPO = path.resolve(__dirname, "../../..");
export const STREAMS = path.join(REPO, "test/integration/fixtures/roo");
export const TASKS = path.join(REPO, "test/fixtures/roo/tasks");

export interface FixtureEvent { at: number; name: string; args: unknown[]; awaitResponse?: { userApprovesAfterMs?: number } }
export interface StreamFixture { description: string; taskId: string; configuration: Record<string, unknown>; events: FixtureEvent[] }

export function loadStream(name: string): StreamFixture {
  return JSON.parse(fs.readFileSync(path.join(STREAMS, `${name}.json`), "utf8")) as StreamFixture;
}

export function streamNames(): string[] {
  return fs.readdirSync(STREAMS).filter((f) => f.endsWith(".json")).map((f) => f.replace(/\.json$/, "")).sort();
}

export interface FakeCall { method: string; args: unknown[]; at: number }
export interface FakeEmitted { name: string; at: number; summary: { ts?: number; type?: string; ask?: string; say?: string; partial?: boolean; text?: string } | unknown }

/** The fake Roo API (test/integration/fake-roo/fakeRooApi.js): Roo's semantics, recorded calls. */
export interface FakeRoo extends EventEmitter {
  startNewTask(o: { text?: string }): Promise<string>;
  cancelCurrentTask(): Promise<void>;
  sendMessage(text?: string, images?: string[]): Promise<void>;
  pressPrimaryButton(): Promise<void>;
  getCurrentTaskStack(): string[];
  isTaskInHistory(id: string): Promise<boolean>;
  resumeTask(id: string): Promise<void>;
  getConfiguration(): Record<string, unknown>;
  __test: {
    calls: FakeCall[];
    emitted: FakeEmitted[];
    replay(file: string | StreamFixture, options?: { delayMs?: number; taskId?: string }): Promise<{ aborted: boolean }>;
    reset(): void;
    state(): { current?: string; replaying: boolean; waiting?: string; queued: number };
  };
}

/** Roo's real timings divided by 10, so action sequences run fast but keep their order. */
export const FAST_TIMING = { cancelResolves: 8, taskRecreated: 7, resumeAsk: 20, resumable: 220, interactive: 200, nextRequest: 23 };

export function fakeRoo(timing = FAST_TIMING): FakeRoo {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { FakeRooApi } = require(path.join(REPO, "test/integration/fake-roo/fakeRooApi.js")) as { FakeRooApi: new (o: unknown) => FakeRoo };
  return new FakeRooApi({ timing });
}

/** Calls that act on the task (reads like getCurrentTaskStack are not actions). */
export function actionCalls(api: FakeRoo): FakeCall[] {
  return api.__test.calls.filter((c) => ["cancelCurrentTask", "sendMessage", "pressPrimaryButton", "pressSecondaryButton", "resumeTask", "startNewTask", "clearCurrentTask"].includes(c.method));
}

export function waitUntil(cond: () => boolean, timeoutMs = 5000, stepMs = 5): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (cond()) return resolve();
      if (Date.now() - started > timeoutMs) return reject(new Error(`condition not met within ${timeoutMs} ms`));
      setTimeout(tick, stepMs);
    };
    tick();
  });
}
