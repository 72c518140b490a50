/**
 * Which heading a line counts under, for the detectors that keep text apart per heading (the same
 * sentence under each file's heading is a report, not a loop). A label line that names nothing, a
 * connector such as "To be sure:" or "Hmm, again:" (two or three short words ending in a colon, no
 * name, no longer word), heads no new section: what follows it is still under the heading before,
 * and a thought restated after each such connector is compared with its earlier copies.
 */
import type { StreamChannel } from "../streamText";

/** Longest word a connector label may hold (longer words name a subject: "Results", "changed"). */
const CONNECTOR_MAX_LETTERS = 5;
const LABEL_WORDS = /^[\p{Ll}]+(?:[,\s]+[\p{Ll}]+){1,2}:$/u;

/** Whether a section key (a normalised heading) is a connector label that names nothing. */
export function isConnectorLabel(section: string): boolean {
  if (section.length > 24 || !section.endsWith(":") || !LABEL_WORDS.test(section)) return false;
  for (const word of section.slice(0, -1).split(/[,\s]+/)) if (word.length > CONNECTOR_MAX_LETTERS) return false;
  return true;
}

/** Per channel: the heading a line counts under, connector labels passed over. */
export class SectionScopes {
  private last = new Map<StreamChannel, { raw: string; scope: string }>();

  of(channel: StreamChannel, section: string): string {
    const last = this.last.get(channel);
    if (last && last.raw === section) return last.scope;
    const scope = isConnectorLabel(section) ? (last?.scope ?? "") : section;
    this.last.set(channel, { raw: section, scope });
    return scope;
  }

  clear(): void { if (this.last.size > 0) this.last = new Map(); }
}
