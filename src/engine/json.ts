/** A plain JSON object (not null, not an array): the check every reader of untrusted JSON needs. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Sums numeric fields that may be missing; undefined when none is a number. */
export function sumNumbers(...values: unknown[]): number | undefined {
  let total: number | undefined;
  for (const v of values) if (typeof v === "number" && Number.isFinite(v)) total = (total ?? 0) + v;
  return total;
}

/** Milliseconds from an ISO string or a number (seconds are told apart from milliseconds by size). */
export function toMillis(v: unknown): number | undefined {
  if (typeof v === "number" && Number.isFinite(v)) return v < 1e11 ? v * 1000 : v;
  if (typeof v === "string" && v !== "") {
    const ms = Date.parse(v);
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
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

interface Frame { container: object; keys: string[] | undefined; next: number; wrote: boolean }

/** Containers open at once up to which a cycle is looked for along the stack itself, not in a set. */
const SHALLOW_STACK = 16;

/**
 * JSON text with object keys sorted, written without recursion, so any depth is safe. Same text
 * as fast-json-stable-stringify for plain JSON; a cycle is written as "[Circular]" instead of
 * throwing. Undefined when the value itself is not writable.
 */
export function canonicalJson(value: unknown, options: CanonicalJsonOptions = {}): string | undefined {
  if (isUnwritable(value)) return undefined;
  if (!isContainer(value)) return scalarJson(value, false);
  const { drop, trimValues = false } = options;
  // Most tool inputs are one object of plain values: written without the walk's stack and closures.
  const flat = flatObjectJson(value, drop, trimValues);
  if (flat !== undefined) return flat;
  // Runs for every tool call: one string built up and one frame per container, little else.
  const stack: Frame[] = [];
  /** The containers on the stack, once it is deep (a cycle is an ancestor written again). */
  let onPath: Set<object> | undefined;
  let out = "";
  const open = (v: object): void => {
    if (onPath === undefined && stack.length >= SHALLOW_STACK) onPath = new Set(stack.map((f) => f.container));
    onPath?.add(v);
    const isArray = Array.isArray(v);
    out += isArray ? "[" : "{";
    stack.push({ container: v, keys: isArray ? undefined : sortedKeys(v), next: 0, wrote: false });
  };
  const isOpen = (v: object): boolean => {
    if (onPath !== undefined) return onPath.has(v);
    for (let i = 0; i < stack.length; i++) if (stack[i].container === v) return true;
    return false;
  };
  open(value);
  while (stack.length > 0) {
    const f = stack[stack.length - 1];
    let v: unknown;
    let trim = false;
    if (f.keys === undefined) {
      const items = f.container as unknown[];
      if (f.next >= items.length) { out += "]"; stack.pop(); onPath?.delete(f.container); continue; }
      if (f.next > 0) out += ",";
      v = items[f.next++];
    } else {
      if (f.next >= f.keys.length) { out += "}"; stack.pop(); onPath?.delete(f.container); continue; }
      const key = f.keys[f.next++];
      if (drop?.has(key)) continue;
      v = (f.container as Record<string, unknown>)[key];
      if (isUnwritable(v)) continue;
      out += `${f.wrote ? "," : ""}${jsonString(key)}:`;
      f.wrote = true;
      trim = trimValues;
    }
    if (!isContainer(v)) out += scalarJson(v, trim);
    else if (isOpen(v)) out += '"[Circular]"';
    else open(v);
  }
  return out;
}

/** canonicalJson of an object none of whose (kept) values is a container; undefined for any other value. */
function flatObjectJson(value: object, drop: ReadonlySet<string> | undefined, trim: boolean): string | undefined {
  if (Array.isArray(value)) return undefined;
  const keys = sortedKeys(value);
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (drop?.has(key)) continue;
    const v = (value as Record<string, unknown>)[key];
    if (isContainer(v)) return undefined;
    if (isUnwritable(v)) continue;
    out += `${out.length > 1 ? "," : ""}${jsonString(key)}:${scalarJson(v, trim)}`;
  }
  return out + "}";
}

/** A value that is not a container, as canonicalJson writes it (unwritable ones, in an array, as null). */
function scalarJson(v: unknown, trim: boolean): string {
  if (typeof v === "string") return jsonString(trim ? v.trim() : v);
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : "null";
  if (typeof v === "boolean" || typeof v === "bigint") return String(v);
  return "null";
}

/** What JSON.stringify escapes in a string: a quote, a backslash, a control character, a surrogate (paired ones are only checked there). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify(s): the same text, without calling it for the usual string that needs no escape (the call costs more than the check). */
function jsonString(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

/** Object.keys(v).sort(): keys are distinct, so any sort by code units gives the one order; small ones are sorted in place. */
function sortedKeys(v: object): string[] {
  const keys = Object.keys(v);
  if (keys.length > 8) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i];
    let j = i - 1;
    while (j >= 0 && keys[j] > k) { keys[j + 1] = keys[j]; j--; }
    keys[j + 1] = k;
  }
  return keys;
}

/**
 * Whether a value nests deeper than `max` containers. Recursive, but never more than `max` calls
 * deep however deep the value. Runs on every tool call's input (a few keys, rarely nested): for-in
 * over own keys allocates nothing, where Object.values made an array per container.
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  if (!isContainer(value)) return false;
  if (max <= 0) return true;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const child = (value as Record<string, unknown>)[key];
    if (isContainer(child) && nestsDeeperThan(child, max - 1)) return true;
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
