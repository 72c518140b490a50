/**
 * Readers for Cline's task files, so `replay` takes what Cline left on disk:
 * - classic: a task folder `tasks/<id>/` with `ui_messages.json` (extension v3, CLI 2.x), or that file;
 * - v4: a session folder `sessions/<id>/` with `<id>.messages.json` (extension v4, CLI 3.x), or that file.
 * Translation is the live watcher's own (src/hosts/cline), so replay and live agree.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { translateClassicMessages } from "../hosts/cline/classicTranslator";
import { isRecord } from "../hosts/cline/messages";
import { translateSessionMessages } from "../hosts/cline/sessionTranslator";
import { SessionFormatError, type RecordedSession, type SessionReader } from "./reader";
import { parseJsonDocument, readTextFile } from "./exportHelpers";

const CLASSIC_FILE = "ui_messages.json";

function readJson(file: string, format: string): unknown {
  const text = readTextFile(file, format);
  try { return parseJsonDocument(text, file, format); } catch (err) {
    const e = err as SessionFormatError;
    throw new SessionFormatError(file, `${e.detail}; is Cline still writing it?`, e.line, format);
  }
}

function isFile(p: string): boolean {
  try { return fs.statSync(p).isFile(); } catch { return false; }
}

export const clineClassicReader: SessionReader = {
  format: "cline-classic",
  description: "Cline task folder or ui_messages.json (extension v3, CLI 2.x)",
  detect(p, isDirectory) {
    if (isDirectory) return isFile(path.join(p, CLASSIC_FILE));
    return path.basename(p) === CLASSIC_FILE;
  },
  read(p, options): RecordedSession[] {
    const file = fs.statSync(p).isDirectory() ? path.join(p, CLASSIC_FILE) : p;
    const value = readJson(file, "cline-classic");
    if (!Array.isArray(value)) throw new SessionFormatError(file, "expected a JSON array of Cline messages", undefined, "cline-classic");
    const { events, skipped } = translateClassicMessages(value);
    if (skipped && !options.lenient) throw new SessionFormatError(file, `${skipped} message(s) are not objects (use --lenient to skip them)`, undefined, "cline-classic");
    return [{ file: p, format: "cline-classic", events, skipped }];
  },
};

/** `<id>.messages.json` of a session folder named `<id>`. */
function sessionFileOf(dir: string): string {
  return path.join(dir, `${path.basename(path.resolve(dir))}.messages.json`);
}

export const clineSessionReader: SessionReader = {
  format: "cline-session",
  description: "Cline v4 session folder or <id>.messages.json (extension v4, CLI 3.x)",
  detect(p, isDirectory, head) {
    if (isDirectory) return isFile(sessionFileOf(p));
    if (!/\.messages\.json$/i.test(p)) return false;
    return head === undefined || /"messages"\s*:/.test(head) || /"sessionId"\s*:/.test(head);
  },
  read(p, options): RecordedSession[] {
    const file = fs.statSync(p).isDirectory() ? sessionFileOf(p) : p;
    const value = readJson(file, "cline-session");
    if (!isRecord(value) || !Array.isArray(value.messages)) throw new SessionFormatError(file, `expected an object with a "messages" array`, undefined, "cline-session");
    const { events, skipped } = translateSessionMessages(value.messages);
    if (skipped && !options.lenient) throw new SessionFormatError(file, `${skipped} message(s) are not objects (use --lenient to skip them)`, undefined, "cline-session");
    return [{ file: p, format: "cline-session", events, skipped }];
  },
};

export const CLINE_READERS: SessionReader[] = [clineClassicReader, clineSessionReader];
