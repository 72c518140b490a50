/** The stream guard on an agent's model endpoint (`loop-sentinel proxy`, `loop-sentinel run`). */
export { StreamGuardProxy, sessionOf, type StreamGuardOptions, type ProxyStats } from "./proxy";
export { StreamGuardCore, type GuardRecord } from "./guard";
export { SseSplitter, parseEvent, type SseEvent } from "./sse";
export { streamReader, type WireFormat, type StreamReader } from "./streamReaders";
