// Replaced by the Roo adapter work: discovery of Roo Code / Kilo Code and their forks.
import type { HostAdapter, HostEnvironment } from "../hostAdapter";

export function createRooAdapters(_env: HostEnvironment): HostAdapter[] {
  return [];
}
