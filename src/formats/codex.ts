/**
 * Reader for Codex session files (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`). The lines
 * are translated by the Codex host's translator (src/hosts/codex/rolloutTranslator.ts), which
 * describes the format.
 */
import { CodexRolloutTranslator } from "../hosts/codex/rolloutTranslator";
import { firstLine } from "./exportHelpers";
import type { RecordedSession } from "./reader";
import { parseTranslated, translatedReader } from "./translatedLines";

const FORMAT = "codex";

export function parseCodex(text: string, file: string, lenient: boolean): RecordedSession {
  return parseTranslated(text, file, FORMAT, lenient, new CodexRolloutTranslator());
}

export const codexReader = translatedReader(
  FORMAT,
  "Codex session file ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl)",
  (path, isDirectory, head) => {
    if (isDirectory || !/\.jsonl$/i.test(path)) return false;
    // The first line is the session's metadata; its instructions make it long, but the type comes first.
    const first = firstLine(head);
    return first.startsWith("{") && /"type"\s*:\s*"session_meta"/.test(first) && /"payload"\s*:/.test(first);
  },
  () => new CodexRolloutTranslator(),
);
