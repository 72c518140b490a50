/**
 * Reading opencode's message parts, shared by the live translator (this host) and the reader of
 * `opencode export` files (src/formats/opencode.ts), which sits on the floor above.
 */
import type { Usage } from "../../engine/events";
import { isRecord, sumNumbers } from "../../engine/json";

/**
 * Whether a tool part whose state is "completed" still failed: a command that exited non-zero
 * (`metadata.exit`), or a tool that reports an error in its metadata.
 */
export function completedButFailed(state: Record<string, unknown>): boolean {
  const meta = state.metadata;
  if (!isRecord(meta)) return false;
  if (typeof meta.exit === "number" && meta.exit !== 0) return true;
  return meta.error !== undefined && meta.error !== null && meta.error !== false && meta.error !== "";
}

/** A step's or a message's tokens and cost (opencode's `tokens` shape) as the trace's usage. */
export function opencodeUsage(tokens: unknown, cost: unknown): Usage | undefined {
  let tokensIn: number | undefined;
  let tokensOut: number | undefined;
  if (isRecord(tokens)) {
    const cache = isRecord(tokens.cache) ? tokens.cache : {};
    tokensIn = sumNumbers(tokens.input, cache.read, cache.write);
    tokensOut = sumNumbers(tokens.output, tokens.reasoning);
  }
  const c = sumNumbers(cost);
  if (tokensIn === undefined && tokensOut === undefined && c === undefined) return undefined;
  return { tokensIn, tokensOut, cost: c };
}
