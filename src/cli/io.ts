/** Where CLI commands print; tests pass their own to capture output. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
}

/** Exit codes: results printed; bad input (the good results still printed); a usage error. 70 is a bug. */
export const EXIT_OK = 0;
export const EXIT_BAD_INPUT = 1;
export const EXIT_USAGE = 2;

/**
 * Reports each path that could not be read, one line each, and says what the exit code is: bad
 * input is reported after the good sessions are out, never instead of them.
 */
export function reportReadErrors(command: string, errors: readonly Error[], found: number, io: CliIO): number {
  for (const e of errors) io.err(`loop-sentinel ${command}: ${e.message}`);
  if (found === 0 && errors.length === 0) { io.err(`loop-sentinel ${command}: no sessions found in the given paths`); return EXIT_BAD_INPUT; }
  if (errors.length > 0) io.err(`loop-sentinel ${command}: ${errors.length} path(s) could not be read${found > 0 ? `; the ${found} session(s) above were read` : ""}`);
  return errors.length > 0 ? EXIT_BAD_INPUT : EXIT_OK;
}

export const processIO: CliIO = {
  out: (t) => process.stdout.write(t.endsWith("\n") ? t : t + "\n"),
  err: (t) => process.stderr.write(t.endsWith("\n") ? t : t + "\n"),
};
