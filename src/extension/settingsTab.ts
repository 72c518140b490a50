/**
 * Which Settings editor tab Configure opens. The main switches (enabled, mode, action policy, the
 * Cline folders) are machine-scoped: in a remote window (SSH, WSL, a container, code-server) they
 * live on the Remote tab only, so opening the User tab would show them greyed out or not at all.
 * No vscode import: the choice is a plain function, tested without a window.
 */
export function settingsCommandFor(remoteName: string | undefined, query: string): [command: string, args: { query: string }] {
  return remoteName ? ["workbench.action.openRemoteSettings", { query }] : ["workbench.action.openSettings", { query }];
}
