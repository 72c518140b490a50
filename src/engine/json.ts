/** A plain JSON object (not null, not an array): the check every reader of untrusted JSON needs. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * How deep a tool input or result may nest before the rest is kept as text. JSON from an agent is
 * untrusted: thousands of levels would overflow the stack of any recursive walk (JSON.stringify,
 * signatures), and no real tool input nests past a handful.
 */
export const MAX_JSON_DEPTH = 64;

function isContainer(v: unknown): v is object {
  return typeof v === "object" && v !== null;
}

/** Values that JSON leaves out of an object (and writes as null in an array). */
function isUnwritable(v: unknown): boolean {
  return v === undefined || typeof v === "function" || typeof v === "symbol";
}

export interface CanonicalJsonOptions {
  /** Object keys left out at every depth. */
  drop?: ReadonlySet<string>;
  /** Trim string values of object properties. */
  trimValues?: boolean;
}

/**
 * JSON text with object keys sorted, written without recursion, so any depth is safe. Same text
 * as fast-json-stable-stringify for plain JSON; a cycle is written as "[Circular]" instead of
 * throwing. Undefined when the value itself is not writable.
 */
export function canonicalJson(value: unknown, options: CanonicalJsonOptions = {}): string | undefined {
  const { drop, trimValues = false } = options;
  const out: string[] = [];
  interface Frame { container: object; keys: string[] | undefined; next: number; wrote: boolean }
  const stack: Frame[] = [];
  const onPath = new Set<object>();
  const write = (v: unknown, trim: boolean): void => {
    if (v === null) out.push("null");
    else if (typeof v === "string") out.push(JSON.stringify(trim ? v.trim() : v));
    else if (typeof v === "number") out.push(Number.isFinite(v) ? String(v) : "null");
    else if (typeof v === "boolean" || typeof v === "bigint") out.push(String(v));
    else if (isContainer(v)) {
      if (onPath.has(v)) { out.push('"[Circular]"'); return; }
      onPath.add(v);
      const isArray = Array.isArray(v);
      out.push(isArray ? "[" : "{");
      stack.push({ container: v, keys: isArray ? undefined : Object.keys(v).sort(), next: 0, wrote: false });
    } else out.push("null");
  };
  if (isUnwritable(value)) return undefined;
  write(value, false);
  while (stack.length > 0) {
    const f = stack[stack.length - 1];
    if (f.keys === undefined) {
      const items = f.container as unknown[];
      if (f.next >= items.length) { out.push("]"); stack.pop(); onPath.delete(f.container); continue; }
      if (f.next > 0) out.push(",");
      write(items[f.next++], false);
      continue;
    }
    if (f.next >= f.keys.length) { out.push("}"); stack.pop(); onPath.delete(f.container); continue; }
    const key = f.keys[f.next++];
    if (drop?.has(key)) continue;
    const v = (f.container as Record<string, unknown>)[key];
    if (isUnwritable(v)) continue;
    out.push(`${f.wrote ? "," : ""}${JSON.stringify(key)}:`);
    f.wrote = true;
    write(v, trimValues);
  }
  return out.join("");
}

/** Whether a value nests deeper than `max` containers (counted without recursion). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (!isContainer(v)) continue;
    if (depth >= max) return true;
    for (const child of Object.values(v)) if (isContainer(child)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * The value with everything nested deeper than `max` containers replaced by its canonical JSON
 * text: two identical deep inputs stay identical (a repeat is still a repeat) and every later
 * walk is shallow. Returns the value itself when it is shallow enough (the usual case: no copy).
 */
export function capJsonDepth<T>(value: T, max = MAX_JSON_DEPTH): T {
  if (!nestsDeeperThan(value, max)) return value;
  const copyOf = (v: object): object => (Array.isArray(v) ? [...v] : { ...v });
  const root = copyOf(value as object);
  const stack: [Record<string, unknown>, number][] = [[root as Record<string, unknown>, 1]];
  while (stack.length > 0) {
    const [copy, depth] = stack.pop()!;
    for (const key of Object.keys(copy)) {
      const child = copy[key];
      if (!isContainer(child)) continue;
      if (depth >= max) { setOwn(copy, key, canonicalJson(child)); continue; }
      const childCopy = copyOf(child) as Record<string, unknown>;
      setOwn(copy, key, childCopy);
      stack.push([childCopy, depth + 1]);
    }
  }
  return root as T;
}

/** Sets an own property, even one named "__proto__" (which plain assignment would turn into a prototype change). */
function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
}

/** JSON.stringify that cannot overflow the stack on deep values (deep parts become text first). */
export function safeJsonStringify(value: unknown): string {
  return JSON.stringify(capJsonDepth(value)) ?? "";
}
