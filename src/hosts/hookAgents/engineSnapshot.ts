/**
 * The headless hook's engine session carried from one hook process to the next as data, so that a
 * call does not replay the session's whole event log through a fresh engine (replaying is most of
 * a headless call's time: the engine's code runs cold in each new process).
 *
 * Generic over the engine's objects: the session's object graph (its detectors' plain fields,
 * arrays, Maps, Sets, typed arrays, shared references) is written as a list of nodes, and read back
 * into objects of the same classes. What is made from the settings alone (the config, the tool
 * knowledge with its functions, the session's own callbacks) is not written: it is taken from a
 * session made afresh with the same settings. Anything the writer does not know how to carry (a
 * function elsewhere, an accessor, a symbol key, an unknown class) makes it give up, and the hook
 * replays the log as before: a snapshot is a shortcut, never the only way.
 *
 * A snapshot is only valid for the same engine build (the classes are found by name) and the same
 * settings: the caller keys it by both.
 */
import type { EngineConfig } from "../../engine/config";
import { ChunkIndex, RepeatTracker } from "../../engine/detectors/streamRepeat";
import { Item } from "../../engine/detectors/listTemplate";
import { TokenMemory } from "../../engine/detectors/textProgress";
import { LoopSession } from "../../engine/session";
import { hashText } from "../../engine/signatures";
import { Paragraph, PieceString } from "../../engine/streamText";
import { StructureTracker } from "../../engine/structure";
import { StampedSet } from "../../engine/words";

/**
 * The classes a session makes only once events come (a tracker per stream channel, a paragraph, a
 * list item): the rest are found in a fresh session. A class missing here is found by a short
 * made-up session instead, which costs a cold engine far more (see engineClasses).
 */
const MADE_LATER: readonly (abstract new (...a: never[]) => object)[] = [ChunkIndex, RepeatTracker, Item, TokenMemory, Paragraph, PieceString, StructureTracker, StampedSet];

/** A value: a JSON primitive, or a tagged array (a reference to a node, undefined, a number JSON cannot hold). */
type Value = string | number | boolean | null | [string, ...(string | number)[]];
/** A node: ["o", class, key, value, ...] | ["a", value, ...] | ["m", key, value, ...] | ["s", value, ...] | ["t", type, base64 bytes | length, fill, index, value, ...] | ["x", anchor]. */
type Node = (string | Value)[];
export interface EngineSnapshot {
  nodes: Node[];
  /**
   * The nodes holding a function slot: the reader looks for slots only there, not through every
   * value of every node (most of a restore's own time in a hook process, issue 35, part 4).
   * Absent (an older snapshot): every node is looked through.
   */
  functionNodes?: number[];
}

class Unsupported extends Error {}

const EMPTY_NODE: Node = [];
const UNDEFINED: Value = ["u"];
const HOLE: Value = ["h"];

const TYPED: Record<string, new (b: ArrayBuffer) => ArrayLike<number>> = {
  Uint8Array, Int8Array, Uint16Array, Int16Array, Uint32Array, Int32Array, Float32Array, Float64Array, Uint8ClampedArray,
};

/** The parts of a session made from its settings alone: kept from the fresh session, never written. */
function anchorsOf(session: LoopSession): Map<unknown, string> {
  const s = session as unknown as Record<string, unknown>;
  const anchors = new Map<unknown, string>();
  for (const name of ["config", "tools"]) if (typeof s[name] === "object" && s[name] !== null) anchors.set(s[name], name);
  return anchors;
}

/**
 * A typed array as its bytes, or, when all of it is one value (an index sized for thousands of
 * entries, still empty), as that value. Both by native calls, never a loop over the entries: the
 * hook runs this code cold, once a process, and a loop over tens of thousands of entries got hot
 * enough for V8 to start optimizing it on a background thread, which the process then waited for
 * at exit: about 11 ms of each headless call, on top of the scan's own 3 ms (issue 35, part 4).
 * (The reader still takes the older form, a fill value and the entries that differ.)
 */
function typedNode(type: string, view: ArrayLike<number> & { buffer: ArrayBufferLike; byteLength: number }): Node {
  const bytes = Buffer.from(view.buffer, 0, view.byteLength);
  if (view.length > 0 && type !== "Float32Array" && type !== "Float64Array") {
    const fill = view[0];
    const same = new (TYPED[type] as unknown as new (length: number) => Uint32Array)(view.length).fill(fill);
    if (bytes.equals(Buffer.from(same.buffer, 0, same.byteLength))) return ["t", type, view.length, fill];
  }
  return ["t", type, bytes.toString("base64")];
}

function typedFrom(n: Node): object | undefined {
  const Typed = Object.hasOwn(TYPED, n[1] as string) ? TYPED[n[1] as string] : undefined;
  if (!Typed) return undefined;
  if (typeof n[2] === "number") {
    const t = new (Typed as unknown as new (length: number) => Uint32Array)(n[2]);
    t.fill(n[3] as number);
    for (let k = 4; k + 1 < n.length; k += 2) t[n[k] as number] = n[k + 1] as number;
    return t;
  }
  const bytes = Buffer.from(n[2] as string, "base64");
  // Copied into a buffer of its own, aligned for the element size.
  const copy = new ArrayBuffer(bytes.length);
  new Uint8Array(copy).set(bytes);
  return new Typed(copy);
}

/** A function's identity across processes: the same code at the same place. */
function sourceKey(f: unknown): string {
  return hashText(Function.prototype.toString.call(f as () => unknown));
}

function className(proto: object): string {
  const ctor = (proto as { constructor?: unknown }).constructor;
  if (typeof ctor !== "function" || !ctor.name || Object.getPrototypeOf(proto) !== Object.prototype) throw new Unsupported("class");
  return ctor.name;
}

/** The session as data; undefined when it holds something this cannot carry. */
export function snapshotSession(session: LoopSession): EngineSnapshot | undefined {
  const anchors = anchorsOf(session);
  const ids = new Map<object, number>();
  const nodes: Node[] = [];
  const pending: object[] = [];
  const functionNodes = new Set<number>();
  /** The node being written: a function slot found in it is listed. */
  let current = 0;
  /** Where each object was first found: its holder and the key there (none inside a Map or Set). */
  const foundAt = new Map<object, [object, string | number] | undefined>();
  const ref = (o: object, holder: object | undefined, key: string | number): Value => {
    let id = ids.get(o);
    if (id === undefined) { id = nodes.length; ids.set(o, id); nodes.push(EMPTY_NODE); pending.push(o); foundAt.set(o, holder && [holder, key]); }
    return ["r", id];
  };
  /** A value held at `key` of `holder` (no holder: inside a Map or Set). */
  const value = (v: unknown, holder?: object, key: string | number = 0): Value => {
    switch (typeof v) {
      case "string": case "boolean": return v;
      case "number": return Number.isFinite(v) && !Object.is(v, -0) ? v : ["n", String(Object.is(v, -0) ? "-0" : v)];
      case "undefined": return UNDEFINED;
      case "object": return v === null ? null : ref(v, holder, key);
      case "function": return functionSlot(v, holder && [holder, key]);
      default: throw new Unsupported(typeof v);
    }
  };
  /**
   * A function a detector holds (a word classifier given to its word table): made by the
   * constructors from code alone, so the fresh session has the same one at the same place. Written
   * as that place, and its source to check it is the same function.
   */
  const functionSlot = (f: unknown, at: [object, string | number] | undefined): Value => {
    const steps: (string | number)[] = [];
    for (let cur = at; cur; cur = foundAt.get(cur[0])) {
      steps.unshift(cur[1]);
      if (cur[0] === session) { functionNodes.add(current); return ["f", sourceKey(f), ...steps]; }
    }
    throw new Unsupported("function");
  };
  try {
    ref(session, undefined, 0);
    for (let i = 0; i < pending.length; i++) {
      const o = pending[i];
      const id = ids.get(o)!;
      current = id;
      const anchor = anchors.get(o);
      if (anchor !== undefined) { nodes[id] = ["x", anchor]; continue; }
      const proto = Object.getPrototypeOf(o) as object | null;
      if (Array.isArray(o)) {
        if (proto !== Array.prototype) throw new Unsupported("array");
        const node: Node = ["a"];
        let present = 0;
        // A hole (an index never set) stays a hole: loops over the array skip it.
        for (let k = 0; k < o.length; k++) if (k in o) { present++; node.push(value(o[k], o, k)); } else node.push(HOLE);
        if (Object.keys(o).length !== present) throw new Unsupported("array with properties");
        nodes[id] = node;
      } else if (o instanceof Map) {
        if (proto !== Map.prototype) throw new Unsupported("map");
        const node: Node = ["m"];
        for (const [k, v] of o) node.push(value(k), value(v));
        nodes[id] = node;
      } else if (o instanceof Set) {
        if (proto !== Set.prototype) throw new Unsupported("set");
        const node: Node = ["s"];
        for (const v of o) node.push(value(v));
        nodes[id] = node;
      } else if (ArrayBuffer.isView(o)) {
        const type = (o as unknown as { constructor: { name: string } }).constructor.name;
        const view = o as unknown as Uint8Array;
        // A view of part of a buffer, or of one another views share, would come back as a copy of its own.
        if (!(type in TYPED) || proto !== TYPED[type].prototype || view.byteOffset !== 0 || view.byteLength !== view.buffer.byteLength) throw new Unsupported("typed array");
        nodes[id] = typedNode(type, view);
      } else {
        const node: Node = ["o", proto === Object.prototype ? "" : proto === null ? "null" : className(proto)];
        const keys = Object.keys(o);
        // Class fields are plain enumerable properties; anything else is not known here.
        if (Object.getOwnPropertyNames(o).length !== keys.length || Object.getOwnPropertySymbols(o).length > 0) throw new Unsupported("hidden key");
        const r = o as Record<string, unknown>;
        for (const key of keys) {
          const v = r[key];
          // The session's own callbacks are made by its constructor: the fresh session has them.
          if (typeof v === "function" && o === session) continue;
          node.push(key, value(v, o, key));
        }
        nodes[id] = node;
      }
    }
  } catch (err) {
    if (err instanceof Unsupported) return undefined;
    throw err;
  }
  return { nodes, functionNodes: [...functionNodes] };
}

/** Every class reachable from a value's graph, by name (a name two classes share is left out). */
function collectClasses(root: object, into: Map<string, object | null>): void {
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null || seen.has(v)) continue;
    seen.add(v);
    const proto = Object.getPrototypeOf(v) as object | null;
    if (proto && proto !== Object.prototype && !Array.isArray(v) && !(v instanceof Map) && !(v instanceof Set) && !ArrayBuffer.isView(v)) {
      try { addClass(into, proto); } catch { /* not a plain class instance: the writer would not have written it */ }
    }
    if (v instanceof Map) for (const [k, x] of v) stack.push(k, x);
    else if (v instanceof Set) for (const x of v) stack.push(x);
    else if (!ArrayBuffer.isView(v)) for (const key of Object.getOwnPropertyNames(v)) {
      const d = Object.getOwnPropertyDescriptor(v, key);
      if (d && "value" in d) stack.push(d.value);
    }
  }
}

/** The classes a fresh session holds and those made later, by name; undefined for a name two classes share. */
function knownClasses(fresh: LoopSession): Map<string, object | null> {
  const classes = new Map<string, object | null>();
  collectClasses(fresh, classes);
  for (const cls of MADE_LATER) addClass(classes, cls.prototype as object);
  return classes;
}

function addClass(into: Map<string, object | null>, proto: object): void {
  const name = className(proto);
  const known = into.get(name);
  if (known === undefined) into.set(name, proto); else if (known !== proto) into.set(name, null);
}

/** Every class a short made-up session brings out: for a class the list above misses. */
let probed: Map<string, object | null> | undefined;
function probedClasses(config: EngineConfig): Map<string, object | null> {
  if (probed) return probed;
  const classes = new Map<string, object | null>();
  const probe = new LoopSession(config);
  const line = "The build fails because the config file is missing a key, so I will add it now.\n";
  const events = [
    { t: "user", text: "fix the build", ts: 1 },
    { t: "request", ts: 2 },
    { t: "reasoning", delta: `${line}${line}- first item of the list\n- second item of the list\n\nA new paragraph. It has two sentences here.\n` },
    { t: "text", delta: `${line}1. one\n2. two\n` },
    { t: "tool_call", id: "p1", name: "read_file", input: { path: "a.ts" }, ts: 3 },
    { t: "tool_result", id: "p1", ok: true, output: "x", ts: 4 },
    { t: "tool_call", id: "p2", name: "execute_command", input: { command: "npm test" }, ts: 5 },
    { t: "tool_result", id: "p2", ok: false, error: "1 failing", ts: 6 },
    { t: "end", ts: 7 },
  ] as const;
  for (const e of events) { probe.push({ ...e } as never); collectClasses(probe, classes); }
  probed = classes;
  return classes;
}

/** The function the fresh session holds where the slot says, when it is the same code. */
function functionAt(session: LoopSession, slot: (string | number)[]): unknown {
  let cur: unknown = session;
  for (let k = 2; k < slot.length; k++) {
    if (typeof cur !== "object" || cur === null || cur instanceof Map || cur instanceof Set) return undefined;
    cur = (cur as Record<string | number, unknown>)[slot[k]];
  }
  return typeof cur === "function" && sourceKey(cur) === slot[1] ? cur : undefined;
}

/** A session as it was when snapshotted, with these settings; undefined when the snapshot does not fit this engine. */
export function restoreSession(snap: EngineSnapshot, config: EngineConfig): LoopSession | undefined {
  const session = new LoopSession(config);
  const anchors = new Map([...anchorsOf(session)].map(([o, name]) => [name, o]));
  const nodes = snap.nodes;
  if (!Array.isArray(nodes) || nodes.length === 0) return undefined;
  const classes = knownClasses(session);
  let probedToo = false;
  const objects: unknown[] = new Array(nodes.length);
  try {
    // The functions, from the fresh session before its fields are overwritten.
    const functions = new Map<unknown, unknown>();
    const listed = Array.isArray(snap.functionNodes) ? snap.functionNodes.map((i) => nodes[i]).filter(Array.isArray) : nodes;
    // (A typed array's node holds numbers only: not looked through.)
    for (const n of listed) if (n[0] !== "t") for (const v of n) if (Array.isArray(v) && v[0] === "f") functions.set(v, functionAt(session, v));
    // First every object (references may point forward), then their contents.
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i];
      switch (n[0]) {
        case "o": {
          if (i === 0) { objects[i] = session; break; }
          const cls = n[1] as string;
          if (cls === "") objects[i] = {};
          else if (cls === "null") objects[i] = Object.create(null);
          else {
            if (!classes.has(cls) && !probedToo) { probedToo = true; for (const [name, proto] of probedClasses(config)) if (!classes.has(name)) classes.set(name, proto); }
            const proto = classes.get(cls);
            if (!proto) return undefined;
            objects[i] = Object.create(proto);
          }
          break;
        }
        case "a": objects[i] = []; break;
        case "m": objects[i] = new Map(); break;
        case "s": objects[i] = new Set(); break;
        case "t": {
          const typed = typedFrom(n);
          if (!typed) return undefined;
          objects[i] = typed;
          break;
        }
        case "x": if (!anchors.has(n[1] as string)) return undefined; objects[i] = anchors.get(n[1] as string); break;
        default: return undefined;
      }
    }
    const value = (v: Value): unknown => {
      if (!Array.isArray(v)) return v;
      switch (v[0]) {
        case "r": { const o = objects[v[1] as number]; if (o === undefined) throw new Unsupported("reference"); return o; }
        case "u": return undefined;
        case "n": return v[1] === "-0" ? -0 : Number(v[1]);
        case "f": { const f = functions.get(v); if (!f) throw new Unsupported("function"); return f; }
        default: throw new Unsupported("value");
      }
    };
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i];
      const o = objects[i];
      switch (n[0]) {
        case "o": { const r = o as Record<string, unknown>; for (let k = 2; k < n.length; k += 2) r[n[k] as string] = value(n[k + 1] as Value); break; }
        case "a": {
          const a = o as unknown[];
          a.length = n.length - 1;
          for (let k = 1; k < n.length; k++) { const v = n[k] as Value; if (!(Array.isArray(v) && v[0] === "h")) a[k - 1] = value(v); }
          break;
        }
        case "m": { const m = o as Map<unknown, unknown>; for (let k = 1; k < n.length; k += 2) m.set(value(n[k] as Value), value(n[k + 1] as Value)); break; }
        case "s": { const s = o as Set<unknown>; for (let k = 1; k < n.length; k++) s.add(value(n[k] as Value)); break; }
      }
    }
  } catch (err) {
    if (err instanceof Unsupported) return undefined;
    throw err;
  }
  return session;
}
