/**
 * The OpenCode server's event stream (`GET /global/event`, server-sent events) and its session
 * actions over HTTP, for `loop-sentinel watch --opencode`: the guard from outside the server.
 * `/global/event` wraps each event as `{directory, payload}`; actions name that directory.
 */
import { isRecord } from "../../engine/json";
import type { SessionActions } from "./guard";

/** Splits a server-sent-event stream into its `data` payloads, however the chunks fall. */
export class SseParser {
  private buffer = "";

  push(chunk: string): string[] {
    this.buffer += chunk.replace(/\r\n?/g, "\n");
    const out: string[] = [];
    let end: number;
    while ((end = this.buffer.indexOf("\n\n")) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, ""));
      if (data.length) out.push(data.join("\n"));
    }
    return out;
  }
}

export interface ServerLink {
  base: string;
  /** The Authorization header value, when the server has a password. */
  authorization?: string;
}

function headers(link: ServerLink): Record<string, string> {
  return { "content-type": "application/json", ...(link.authorization ? { authorization: link.authorization } : {}) };
}

/**
 * Follows the stream until `signal` aborts, reconnecting after a pause when it drops. Each event
 * comes with the project directory it belongs to (undefined on the per-project `/event` shape).
 */
export async function followEvents(link: ServerLink, onEvent: (event: unknown, directory: string | undefined) => void, onProblem: (message: string) => void, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    try {
      const res = await fetch(`${link.base}/global/event`, { headers: { ...headers(link), accept: "text/event-stream" }, signal });
      if (!res.ok || !res.body) throw new Error(`GET /global/event: HTTP ${res.status}`);
      const parser = new SseParser();
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        for (const data of parser.push(decoder.decode(chunk, { stream: true }))) {
          let value: unknown;
          try { value = JSON.parse(data); } catch { onProblem("an event that is not JSON skipped"); continue; }
          if (isRecord(value) && isRecord(value.payload)) onEvent(value.payload, typeof value.directory === "string" ? value.directory : undefined);
          else onEvent(value, undefined);
        }
      }
      if (!signal.aborted) onProblem("the event stream ended; reconnecting");
    } catch (err) {
      if (signal.aborted) return;
      onProblem(`${(err as Error).message}; retrying in 1 s`);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Abort and prompt over the server's HTTP API, in the session's own project directory. */
export function httpActions(link: ServerLink, directoryOf: (sessionId: string) => string | undefined): SessionActions {
  const call = async (route: string, sessionId: string, body?: unknown) => {
    const dir = directoryOf(sessionId);
    const res = await fetch(`${link.base}${route}${dir ? `?directory=${encodeURIComponent(dir)}` : ""}`, { method: "POST", headers: headers(link), body: body === undefined ? undefined : JSON.stringify(body) });
    if (!res.ok) throw new Error(`POST ${route}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
  };
  return {
    abort: (id) => call(`/session/${encodeURIComponent(id)}/abort`, id),
    prompt: (id, text, { noReply }) => call(`/session/${encodeURIComponent(id)}/prompt_async`, id, { noReply, parts: [{ type: "text", text }] }),
  };
}
