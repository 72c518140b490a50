/** The engine's public surface: plain Node, no vscode. */
export * from "./events";
export * from "./detector";
export * from "./config";
export * from "./session";
export * from "./ledger";
export * from "./toolKnowledge";
export * from "./signatures";
export { guidanceFor } from "./guidance";
export { DETECTOR_DEFINITIONS } from "./detectors";
export * from "./replay";
