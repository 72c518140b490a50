/**
 * The part of the agents' hook that needs the engine, bundled apart (dist/agent-hook-engine.js):
 * the hook loads it only when no running Loop Sentinel answered, so a call answered over the
 * channel never pays for loading the engine.
 */
import { resolveConfig, type EngineConfig } from "../../engine/config";
export { decideHeadless } from "./headlessState";

export function configFrom(raw: Record<string, unknown>): EngineConfig {
  return resolveConfig(raw).config;
}
