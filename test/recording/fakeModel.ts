/**
 * A scripted model on 127.0.0.1 (random port) that speaks the wire protocols the recorded agents
 * use: the Gemini API (`:streamGenerateContent?alt=sse`, `:generateContent`, `:countTokens`), the
 * OpenAI chat completions API (`/chat/completions`, streamed), the OpenAI Responses API
 * (`/responses`, streamed; Codex) and the Anthropic Messages API (`/v1/messages`, streamed). Every request is answered from the scenario's step, chosen by the
 * number of tool results the conversation already holds; a request that offers no tools is an
 * agent's side request (a title, a check) and gets a short plain answer.
 */
import * as http from "node:http";
import { closeLocal, listenLocal, withBody } from "../localServer";
import { actionsOf, stepOf, type Action, type ScenarioName, type Step } from "./scenarios";

/** How one agent names a scripted action: its tool name and arguments. */
export type ToolNaming = (action: Action) => { name: string; args: Record<string, unknown> };

export interface LoggedRequest { protocol: string; url: string; step: number; side: boolean }

/** How an agent's chat completions client reads streamed thinking: the delta field it takes. */
export interface PlayOptions { reasoningField?: string }

export class FakeModel {
  readonly log: LoggedRequest[] = [];
  private server: http.Server | undefined;
  private scenario: ScenarioName = "productive";
  private naming: ToolNaming = () => { throw new Error("no tool naming set"); };
  private calls = 0;
  private reasoningField = "reasoning_content";

  play(scenario: ScenarioName, naming: ToolNaming, options: PlayOptions = {}): void {
    this.scenario = scenario;
    this.naming = naming;
    this.reasoningField = options.reasoningField ?? "reasoning_content";
    this.log.length = 0;
  }

  async listen(): Promise<number> {
    const { server, port } = await listenLocal(withBody((req, res, body) => {
      try { this.handle(req, res, body); } catch (err) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(err) } }));
      }
    }));
    this.server = server;
    return port;
  }

  async close(): Promise<void> {
    await closeLocal(this.server);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): void {
    const url = req.url ?? "";
    const json = (status: number, value: unknown) => { res.writeHead(status, { "content-type": "application/json" }); res.end(JSON.stringify(value)); };
    let body: Record<string, unknown> = {};
    try { body = raw ? JSON.parse(raw) : {}; } catch { /* GETs and odd bodies */ }

    if (req.method === "GET" && /\/models\/?(\?|$)/.test(url)) {
      json(200, { object: "list", data: [{ id: "fake-model", object: "model", owned_by: "loop-sentinel" }], models: [{ name: "models/fake-model" }] });
      return;
    }
    if (/:countTokens/.test(url)) { json(200, { totalTokens: 1000 }); return; }
    if (/\/messages\/count_tokens/.test(url)) { json(200, { input_tokens: 1000 }); return; }
    if (/:(stream)?[gG]enerateContent/.test(url)) { this.gemini(url, body, res); return; }
    if (/\/chat\/completions/.test(url)) { this.openai(url, body, res); return; }
    if (/\/responses(\?|$)/.test(url)) { this.responses(url, body, res); return; }
    if (/\/v1\/messages/.test(url)) { this.anthropic(url, body, res); return; }
    json(404, { error: { message: `fake model: nothing at ${req.method} ${url}` } });
  }

  private record(protocol: string, url: string, step: number, side: boolean): void {
    this.log.push({ protocol, url, step, side });
  }

  // ---- Gemini API ----
  private gemini(url: string, body: Record<string, unknown>, res: http.ServerResponse): void {
    const contents = Array.isArray(body.contents) ? body.contents as Record<string, unknown>[] : [];
    const tools = Array.isArray(body.tools) && body.tools.length > 0;
    const n = contents.reduce((k, c) => k + (Array.isArray(c.parts) ? (c.parts as Record<string, unknown>[]).filter((p) => p && p.functionResponse).length : 0), 0);
    const stream = /:streamGenerateContent/.test(url);
    this.record("gemini", url, n, !tools);
    const usage = { promptTokenCount: 1200 + 100 * n, candidatesTokenCount: 40, thoughtsTokenCount: 12, totalTokenCount: 1252 + 100 * n };
    let parts: Record<string, unknown>[];
    if (!tools) {
      // Side requests ask for JSON (next speaker, routing, loop checks): one object satisfying the usual fields.
      const config = body.generationConfig as Record<string, unknown> | undefined;
      const wantsJson = config && (config.responseMimeType === "application/json" || config.responseJsonSchema || config.responseSchema);
      parts = [{ text: wantsJson ? JSON.stringify({ reasoning: "The model has finished its turn.", next_speaker: "user", model_choice: "flash", is_loop: false, confidence: 0.1 }) : "Fixing the build" }];
    } else {
      const step = stepOf(this.scenario, n);
      parts = [];
      if (step.thought) parts.push({ text: `**Plan**\n\n${step.thought}`, thought: true });
      parts.push({ text: step.text });
      for (const action of actionsOf(step)) { const { name, args } = this.naming(action); parts.push({ functionCall: { name, args } }); }
    }
    const chunk = { candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }], usageMetadata: usage, modelVersion: "fake-model" };
    if (!stream) { res.writeHead(200, { "content-type": "application/json" }); res.end(JSON.stringify(chunk)); return; }
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  }

  // ---- OpenAI chat completions ----
  private openai(_url: string, body: Record<string, unknown>, res: http.ServerResponse): void {
    const messages = Array.isArray(body.messages) ? body.messages as Record<string, unknown>[] : [];
    const tools = Array.isArray(body.tools) && body.tools.length > 0;
    const n = messages.filter((m) => m.role === "tool").length;
    this.record("openai", _url, n, !tools);
    const id = `chatcmpl-${++this.calls}`;
    const created = Math.floor(Date.now() / 1000);
    const chunks: Record<string, unknown>[] = [];
    const delta = (d: Record<string, unknown>, finish: string | null = null) => chunks.push({ id, object: "chat.completion.chunk", created, model: "fake-model", choices: [{ index: 0, delta: d, finish_reason: finish }] });
    let finish = "stop";
    if (!tools) delta({ role: "assistant", content: "Fixing the build" });
    else {
      const step = stepOf(this.scenario, n);
      delta({ role: "assistant", content: "" });
      if (step.thought) delta({ [this.reasoningField]: step.thought });
      delta({ content: step.text });
      actionsOf(step).forEach((action, index) => {
        const { name, args } = this.naming(action);
        delta({ tool_calls: [{ index, id: `call_${this.calls}_${index}`, type: "function", function: { name, arguments: "" } }] });
        delta({ tool_calls: [{ index, function: { arguments: JSON.stringify(args) } }] });
        finish = "tool_calls";
      });
    }
    delta({}, finish);
    if (body.stream !== true) {
      const step = tools ? stepOf(this.scenario, n) : { text: "Fixing the build" } as Step;
      const message: Record<string, unknown> = { role: "assistant", content: step.text };
      if (step.action) message.tool_calls = actionsOf(step).map((action, index) => { const { name, args } = this.naming(action); return { id: `call_${this.calls}_${index}`, type: "function", function: { name, arguments: JSON.stringify(args) } }; });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ id, object: "chat.completion", created, model: "fake-model", choices: [{ index: 0, message, finish_reason: finish }], usage: { prompt_tokens: 1200 + 100 * n, completion_tokens: 40, total_tokens: 1240 + 100 * n } }));
      return;
    }
    chunks.push({ id, object: "chat.completion.chunk", created, model: "fake-model", choices: [], usage: { prompt_tokens: 1200 + 100 * n, completion_tokens: 40, total_tokens: 1240 + 100 * n } });
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n");
  }

  // ---- OpenAI Responses (Codex) ----
  private responses(url: string, body: Record<string, unknown>, res: http.ServerResponse): void {
    const input = Array.isArray(body.input) ? body.input as Record<string, unknown>[] : [];
    const tools = Array.isArray(body.tools) && body.tools.length > 0;
    const n = input.filter((i) => typeof i.type === "string" && /_call_output$/.test(i.type)).length;
    this.record("responses", url, n, !tools);
    const k = ++this.calls;
    const id = `resp_fake_${k}`;
    const step: Step = tools ? stepOf(this.scenario, n) : { text: "Fixing the build" };
    const items: Record<string, unknown>[] = [];
    // Reasoning as the API returns it to a client that asks for summaries: a summary and an opaque blob.
    if (step.thought) items.push({ type: "reasoning", id: `rs_fake_${k}`, summary: [{ type: "summary_text", text: step.thought }], encrypted_content: Buffer.from(step.thought).toString("base64") });
    items.push({ type: "message", id: `msg_fake_${k}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: step.text, annotations: [] }] });
    actionsOf(step).forEach((action, index) => {
      const { name, args } = this.naming(action);
      items.push({ type: "function_call", id: `fc_fake_${k}_${index}`, call_id: `call_fake_${k}_${index}`, name, arguments: JSON.stringify(args), status: "completed" });
    });
    const usage = { input_tokens: 1200 + 100 * n, input_tokens_details: { cached_tokens: 0 }, output_tokens: 40, output_tokens_details: { reasoning_tokens: step.thought ? 12 : 0 }, total_tokens: 1240 + 100 * n };
    const response = { id, object: "response", created_at: Math.floor(Date.now() / 1000), model: typeof body.model === "string" ? body.model : "fake-model", status: "in_progress", output: [] as unknown[] };
    const events: [string, Record<string, unknown>][] = [["response.created", { response }]];
    items.forEach((item, output_index) => {
      events.push(["response.output_item.added", { output_index, item }]);
      if (item.type === "message") events.push(["response.output_text.delta", { output_index, item_id: item.id, content_index: 0, delta: step.text }]);
      events.push(["response.output_item.done", { output_index, item }]);
    });
    events.push(["response.completed", { response: { ...response, status: "completed", output: items, usage } }]);
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(events.map(([type, data]) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`).join(""));
  }

  // ---- Anthropic Messages ----
  private anthropic(url: string, body: Record<string, unknown>, res: http.ServerResponse): void {
    const messages = Array.isArray(body.messages) ? body.messages as Record<string, unknown>[] : [];
    const tools = Array.isArray(body.tools) && body.tools.length > 0;
    const n = messages.reduce((k, m) => k + (Array.isArray(m.content) ? (m.content as Record<string, unknown>[]).filter((b) => b && b.type === "tool_result").length : 0), 0);
    this.record("anthropic", url, n, !tools);
    const id = `msg_fake_${++this.calls}`;
    const model = typeof body.model === "string" ? body.model : "fake-model";
    const step: Step = tools ? stepOf(this.scenario, n) : { text: "Fixing the build" };
    const blocks: Record<string, unknown>[] = [{ type: "text", text: step.text }];
    actionsOf(step).forEach((action, index) => { const { name, args } = this.naming(action); blocks.push({ type: "tool_use", id: `toolu_fake_${this.calls}_${index}`, name, input: args }); });
    const stopReason = step.action ? "tool_use" : "end_turn";
    const usage = { input_tokens: 1200 + 100 * n, output_tokens: 40, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    if (body.stream !== true) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ id, type: "message", role: "assistant", model, content: blocks, stop_reason: stopReason, stop_sequence: null, usage }));
      return;
    }
    const events: [string, unknown][] = [["message_start", { type: "message_start", message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }]];
    blocks.forEach((b, index) => {
      if (b.type === "text") {
        events.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }]);
        events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: b.text } }]);
      } else {
        events.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } }]);
        events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } }]);
      }
      events.push(["content_block_stop", { type: "content_block_stop", index }]);
    });
    events.push(["message_delta", { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 40 } }]);
    events.push(["message_stop", { type: "message_stop" }]);
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join(""));
  }
}
