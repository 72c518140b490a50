/**
 * Reader for Copilot CLI session events (`$COPILOT_HOME/session-state/<session-id>/events.jsonl`,
 * and what `copilot -p ... --output-format json` prints). The lines are translated by the Copilot
 * host's translator (src/hosts/copilot/eventsTranslator.ts), which describes the format.
 */
import { CopilotEventsTranslator } from "../hosts/copilot/eventsTranslator";
import { firstLine } from "./exportHelpers";
import type { RecordedSession } from "./reader";
import { parseTranslated, translatedReader } from "./translatedLines";

const FORMAT = "copilot-cli";
/** Copilot's event types are dotted (`session.start`, `user.message`, `tool.execution_complete`). */
const EVENT_TYPE = /^\{\s*"type"\s*:\s*"(?:session|user|assistant|tool|system|hook)\.[a-z_.]+"/;

export function parseCopilotCli(text: string, file: string, lenient: boolean): RecordedSession {
  return parseTranslated(text, file, FORMAT, lenient, new CopilotEventsTranslator());
}

export const copilotCliReader = translatedReader(
  FORMAT,
  "Copilot CLI session events ($COPILOT_HOME/session-state/<id>/events.jsonl)",
  (path, isDirectory, head) => {
    if (isDirectory || !/\.jsonl$/i.test(path)) return false;
    const first = firstLine(head);
    return EVENT_TYPE.test(first) && /"data"\s*:/.test(first);
  },
  () => new CopilotEventsTranslator(),
);
