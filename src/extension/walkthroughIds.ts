/** The walkthrough's names, without vscode: package.json and the unit tests use them too. */

/** The walkthrough's id in package.json; VS Code knows it as `<extension id>#<this>`. */
export const WALKTHROUGH_ID = "loopSentinel.gettingStarted";
/** A recorded session shipped in the VSIX: an agent reading one unchanged file again and again. */
export const EXAMPLE_SESSION = "media/walkthrough/example-session.trace.jsonl";
