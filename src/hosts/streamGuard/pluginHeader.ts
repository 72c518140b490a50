/**
 * The header by which Loop Sentinel's plugin inside an opencode or Kilo server tells the stream
 * guard that it guards the session itself (its `chat.headers` hook adds it, carrying the server's
 * session id). The guard then leaves that session's requests alone: one finding, one intervention.
 * Added only towards a loopback base URL (where a guard can be), and the guard never forwards it:
 * a provider never learns of it. Its own file: the plugin bundle takes nothing else of the guard.
 */
export const PLUGIN_HEADER = "x-loop-sentinel-plugin";

/** Whether a provider's base URL is on this computer (the only place a stream guard listens). */
export function isLoopbackUrl(url: unknown): boolean {
  if (typeof url !== "string") return false;
  try {
    const h = new URL(url).hostname;
    return h === "127.0.0.1" || h === "localhost" || h === "[::1]";
  } catch { return false; }
}
