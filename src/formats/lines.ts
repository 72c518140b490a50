/**
 * A file read line by line in fixed-size pieces, so a session of any size replays in the same memory:
 * only the current piece and the line being assembled are held. UTF-8 sequences split across pieces
 * are joined (StringDecoder), a CRLF ending is the line's end, and a last line without a newline is
 * delivered as not terminated (a writer may still be writing it).
 */
import * as fs from "node:fs";
import { StringDecoder } from "node:string_decoder";

const PIECE_BYTES = 1 << 16;

/** `line` without its line end; `lineNo` counted from 1; `terminated` false only for a cut last line. */
export type LineSink = (line: string, lineNo: number, terminated: boolean) => void;

export function forEachLineOfFile(file: string, onLine: LineSink): void {
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.allocUnsafe(PIECE_BYTES);
    const decoder = new StringDecoder("utf8");
    // The start of a line that spans pieces: kept as pieces, so a very long line is joined once,
    // not re-scanned with every piece that extends it.
    let pending: string[] = [];
    let lineNo = 0;
    const emit = (line: string, terminated: boolean) => {
      onLine(terminated && line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line, ++lineNo, terminated);
    };
    for (;;) {
      const n = fs.readSync(fd, buf, 0, PIECE_BYTES, null);
      if (n === 0) break;
      const piece = decoder.write(buf.subarray(0, n));
      let start = 0;
      for (let nl = piece.indexOf("\n"); nl !== -1; nl = piece.indexOf("\n", start)) {
        const head = piece.slice(start, nl);
        if (pending.length) { pending.push(head); emit(pending.join(""), true); pending = []; } else emit(head, true);
        start = nl + 1;
      }
      if (start < piece.length) pending.push(piece.slice(start));
    }
    const last = pending.join("") + decoder.end();
    if (last !== "") emit(last, false);
  } finally {
    fs.closeSync(fd);
  }
}
