// The extension host loads this (extensionTestsPath): the same mocha runner as the integration suite.
export { run } from "../../../integration/suite/index";
