/** A small argument parser: flags, flags with values, positionals; errors name the flag. */
export class UsageError extends Error {}

export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string[]>;
}

/** `valued` lists flags that take a value (`--config FILE`, `--set k=v` may repeat). */
export function parseArgs(argv: string[], valued: string[], booleans: string[]): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") { positionals.push(...argv.slice(i + 1)); break; }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      if (valued.includes(name)) {
        const value = eq > 0 ? a.slice(eq + 1) : argv[++i];
        if (value === undefined) throw new UsageError(`--${name} needs a value`);
        flags.set(name, [...(flags.get(name) ?? []), value]);
      } else if (booleans.includes(name)) {
        flags.set(name, ["true"]);
      } else {
        throw new UsageError(`unknown option --${name}`);
      }
    } else positionals.push(a);
  }
  return { positionals, flags };
}

export function flag(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags.get(name);
  return v ? v[v.length - 1] : undefined;
}
