/** The OpenCode server's SDK client (as handed to plugins) as the guard's session actions. */
import type { SessionActions } from "./guard";

/** The part of the SDK client (`@opencode-ai/sdk`, as the server hands it to plugins) used here. */
export interface ClientLike {
  session: {
    abort(options: { path: { id: string } }): Promise<{ error?: unknown }>;
    promptAsync?(options: { path: { id: string }; body: { noReply?: boolean; parts: { type: "text"; text: string }[] } }): Promise<{ error?: unknown }>;
    prompt(options: { path: { id: string }; body: { noReply?: boolean; parts: { type: "text"; text: string }[] } }): Promise<{ error?: unknown }>;
  };
}

function failed(what: string, result: { error?: unknown } | undefined): void {
  if (result && result.error !== undefined && result.error !== null) {
    throw new Error(`${what}: ${typeof result.error === "string" ? result.error : JSON.stringify(result.error)}`);
  }
}

/** The server's client as the guard's actions. */
export function clientActions(client: ClientLike): SessionActions {
  return {
    async abort(id) { failed("abort", await client.session.abort({ path: { id } })); },
    async prompt(id, text, { noReply }) {
      const options = { path: { id }, body: { noReply, parts: [{ type: "text" as const, text }] } };
      if (typeof client.session.promptAsync === "function") { failed("prompt", await client.session.promptAsync(options)); return; }
      // Without prompt_async the call lasts as long as the response it starts: do not wait for it.
      void client.session.prompt(options).catch(() => undefined);
    },
  };
}

