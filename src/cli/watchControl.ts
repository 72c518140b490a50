/** How a caller (a test) stops a `watch` guard, whichever agent it watches (watch.ts, watchOpencode.ts). */
export interface WatchControl {
  /** Resolves when the guard has stopped; tests stop it through `signal`. */
  signal?: AbortSignal;
}
