/**
 * What the user is told when a Cline task can only be watched (its task files, no Cline API in this
 * window: a Cline CLI run, or Cline not active here): nothing can be refused, aborted or stopped from
 * outside, so instead of an action that would fail, the one thing that would make it work.
 * No `vscode` here: unit-tested in plain Node.
 */
import * as path from "node:path";
import type { Remedy } from "../hostAdapter";

/** The data folder that holds a task file (…/tasks/<id>/ui_messages.json or …/sessions/<id>/<id>.messages.json). */
export function dataFolderOf(taskFile: string | undefined): string | undefined {
  return taskFile ? path.dirname(path.dirname(path.dirname(taskFile))) : undefined;
}

export function clineRemedy(o: { hookInstalled: boolean; extensionInstalled: boolean; taskFile?: string }): Remedy {
  const folder = dataFolderOf(o.taskFile);
  const why = o.extensionInstalled
    ? "Loop Sentinel sees this Cline task only through its files (it is not a task of the Cline in this window, or that Cline is not active yet), so nothing can be sent to it."
    : "Loop Sentinel sees this Cline task only through its files (Cline is not installed in this window), so nothing can be sent to it.";
  // The watch guard reads the same files and can interrupt the process it is given.
  const cli = `For a Cline CLI run, start it under the guard instead: loop-sentinel watch --cline-data ${folder ?? "<its data folder>"} --interrupt <its process id>.`;
  if (o.hookInstalled) {
    return { why, fix: `The Cline hook is installed: it refuses the next looping tool call once Cline runs it for this task. ${cli}` };
  }
  return {
    why,
    fix: `Install the Cline hook: Cline then asks Loop Sentinel before each tool call, and a call that repeats the loop is refused. ${cli}`,
    offer: "install-cline-hook",
  };
}
