// Replaced by the Cline adapter work: the task-file watcher and Cline's API actions.
import type { HostAdapter, HostEnvironment } from "../hostAdapter";

export function createClineAdapters(_env: HostEnvironment): HostAdapter[] {
  return [];
}
