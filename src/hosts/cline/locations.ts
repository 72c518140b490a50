/** Where Cline keeps its task files (hosts/cline.md), without `vscode`. */
import * as os from "node:os";
import * as path from "node:path";

export const CLINE_EXTENSION_ID = "saoudrizwan.claude-dev";

/**
 * Data folders to watch, most specific first: configured ones, the extension's globalStorage
 * (v3: tasks/), CLINE_DATA_DIR or CLINE_DIR/data, then ~/.cline/data (v4 and the CLI: sessions/).
 */
export function clineDataRoots(globalStorageRoot: string | undefined, env: NodeJS.ProcessEnv, extra: string[], home = os.homedir()): string[] {
  const roots: string[] = [...extra];
  if (globalStorageRoot) roots.push(path.join(globalStorageRoot, CLINE_EXTENSION_ID));
  if (env.CLINE_DATA_DIR) roots.push(env.CLINE_DATA_DIR);
  if (env.CLINE_DIR) roots.push(path.join(env.CLINE_DIR, "data"));
  roots.push(path.join(home, ".cline", "data"));
  return [...new Set(roots.map((r) => path.resolve(r)))];
}
