/** A plain JSON object (not null, not an array): the check every reader of untrusted JSON needs. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
