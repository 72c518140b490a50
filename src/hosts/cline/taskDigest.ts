/**
 * A short account of a Cline task so far, kept from its events, for "Stop and restart with
 * guidance": Cline's API cannot resume a task, so the new task must carry what was done.
 * Bounded: a few recent calls and the last words, whatever the task's length.
 */
import type { TraceEvent } from "../../engine/events";
import { excerpt } from "../../engine/guidance";
import { safeJsonStringify } from "../../engine/json";

const RECENT_CALLS = 12;
const TEXT_TAIL = 600;

export class TaskDigest {
  title: string | undefined;
  private calls: string[] = [];
  private callCount = 0;
  private lastText = "";
  private requests = 0;

  add(e: TraceEvent): void {
    switch (e.t) {
      case "user":
        if (this.title === undefined) this.title = e.text;
        break;
      case "request":
        this.requests++;
        this.lastText = "";
        break;
      case "text":
        this.lastText = (this.lastText + e.delta).slice(-TEXT_TAIL);
        break;
      case "tool_call": {
        this.callCount++;
        const what = describeInput(e.input);
        this.calls.push(what ? `${e.name} ${what}` : e.name);
        if (this.calls.length > RECENT_CALLS) this.calls.shift();
        break;
      }
    }
  }

  /** The prompt of the new task: the original request, what happened, then the guidance. */
  restartPrompt(guidance: string): string {
    const lines = [
      "Continue the task below. The previous attempt was stopped by Loop Sentinel because it was repeating itself.",
      "",
      `Original task: ${this.title ? excerpt(this.title, 2000) : "(unknown)"}`,
    ];
    if (this.callCount > 0) {
      lines.push("", `What was done so far (${this.requests} model requests, ${this.callCount} tool calls; most recent last):`);
      for (const c of this.calls) lines.push(`- ${c}`);
    }
    if (this.lastText.trim()) lines.push("", `Last words of the previous attempt: ${excerpt(this.lastText, 400)}`);
    lines.push("", `Guidance: ${guidance}`);
    return lines.join("\n");
  }
}

function describeInput(input: Record<string, unknown>): string {
  for (const k of ["command", "path", "regex", "url", "query"]) {
    const v = input[k];
    if (typeof v === "string" && v.trim() !== "") return excerpt(v, 100);
  }
  const json = safeJsonStringify(input);
  return json === "{}" ? "" : excerpt(json, 100);
}
