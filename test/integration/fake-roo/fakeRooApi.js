// A stand-in for Roo Code's exported API (RooCodeAPI, src/extension/api.ts in RooCodeInc/Roo-Code)
// that replays recorded message streams and reacts to the API calls the way Roo 3.52 does
// (see shared notes "hosts/roo.md" §3 and §9, summarised at each reaction below). Test-only.
// Used by the fake-roo test extension (real extension host) and by the unit tests (plain Node).
"use strict";
const { EventEmitter } = require("node:events");
const fs = require("node:fs");

/** Roo's timings after cancelCurrentTask(), as measured live (ms). */
const REAL_TIMING = {
  cancelResolves: 80, // await cancelCurrentTask() returns
  taskRecreated: 70, // taskCreated (same id) for the rehydrated task
  resumeAsk: 200, // message created {ask:"resume_task"}
  resumable: 2200, // taskResumable
  interactive: 2000, // taskInteractive after a blocking approval ask
  nextRequest: 230, // the model's next request after guidance
};

const APPROVAL_ASKS = new Set(["tool", "command", "use_mcp_server"]);

class FakeRooApi extends EventEmitter {
  constructor(options = {}) {
    super();
    this.timing = { ...REAL_TIMING, ...(options.timing || {}) };
    this.now = options.now || (() => Date.now());
    this.__test = {
      calls: [],
      emitted: [],
      replay: (file, opts) => this._replay(file, opts),
      reset: () => this._reset(),
      state: () => this._stateSummary(),
    };
    this._reset();
  }

  // ---- RooCodeAPI ------------------------------------------------------------------------------
  async startNewTask({ text, images } = {}) {
    this._record("startNewTask", [{ text, images }]);
    this._abortReplay();
    const id = `fake-${Math.random().toString(16).slice(2, 10)}-${this.now()}`;
    this._current = id;
    this._history.add(id);
    this._emit("taskCreated", [id]);
    this._emit("taskStarted", [id]);
    this._message("created", { ts: this.now(), type: "say", say: "text", text: text || "", images: images || [] });
    return id;
  }
  async resumeTask(taskId) {
    this._record("resumeTask", [taskId]);
    if (!this._history.has(taskId)) throw new Error("Task not found");
    this._current = taskId;
    this._emit("taskCreated", [taskId]);
    this._askResume();
  }
  async isTaskInHistory(taskId) {
    this._record("isTaskInHistory", [taskId]);
    return this._history.has(taskId);
  }
  getCurrentTaskStack() {
    this._record("getCurrentTaskStack", []);
    return this._current ? [this._current] : [];
  }
  async clearCurrentTask(lastMessage) {
    this._record("clearCurrentTask", [lastMessage]);
    this._abortReplay();
    if (this._current) this._emit("taskAborted", [this._current]);
    this._current = undefined;
  }
  /** Roo: abort the stream (taskAborted), rehydrate the task in place (taskCreated, same id), ask resume_task. */
  async cancelCurrentTask() {
    this._record("cancelCurrentTask", []);
    const id = this._current;
    if (!id) return;
    this._abortReplay();
    this._waiting = undefined;
    this._emit("taskAborted", [id]);
    await this._sleep(this.timing.taskRecreated);
    this._emit("taskCreated", [id]);
    this._emit("taskFocused", [id]);
    this._after(this.timing.resumeAsk - this.timing.taskRecreated, () => this._askResume());
    await this._sleep(Math.max(0, this.timing.cancelResolves - this.timing.taskRecreated));
  }
  /** Roo (webview path): answers a waiting ask with the text; while busy the text is queued. */
  async sendMessage(message, images) {
    this._record("sendMessage", [message, images]);
    const text = message ?? "";
    const w = this._waiting;
    if (w) {
      this._waiting = undefined;
      clearTimeout(w.timer);
      this._message("created", { ts: this.now(), type: "say", say: "user_feedback", text, images: images || [] });
      this._emit("taskAskResponded", [this._current]);
      if (w.kind === "resume") {
        // Resumed with the text as the user's message: the model's next request follows.
        this._emit("taskStarted", [this._current]);
        this._after(this.timing.nextRequest, () => {
          this._message("created", { ts: this.now(), type: "say", say: "api_req_started", text: JSON.stringify({ apiProtocol: "openai" }) });
        });
      } else {
        w.resolve({ approved: false, feedback: text });
      }
      return;
    }
    if (this._replaying && this._current) {
      this._queue.push({ timestamp: this.now(), id: `q-${this._queue.length + 1}`, text, images: images || [] });
      this._emit("queuedMessagesUpdated", [this._current, this._queue.map((q) => ({ ...q }))]);
    }
  }
  async pressPrimaryButton() {
    this._record("pressPrimaryButton", []);
    const w = this._waiting;
    if (!w) return;
    this._waiting = undefined;
    clearTimeout(w.timer);
    this._emit("taskAskResponded", [this._current]);
    if (w.kind === "approval") w.resolve({ approved: true });
  }
  async pressSecondaryButton() {
    this._record("pressSecondaryButton", []);
    const w = this._waiting;
    if (!w) { if (this._replaying) await this.cancelCurrentTask(); return; }
    this._waiting = undefined;
    clearTimeout(w.timer);
    this._emit("taskAskResponded", [this._current]);
    if (w.kind === "approval") w.resolve({ approved: false });
    else { this._emit("taskAborted", [this._current]); this._current = undefined; } // resume_task → new task
  }
  isReady() { return true; }
  getConfiguration() { this._record("getConfiguration", []); return { ...this._configuration }; }
  async setConfiguration(values) { this._record("setConfiguration", [values]); this._configuration = { ...this._configuration, ...values }; }
  getProfiles() { return []; }
  getProfileEntry() { return undefined; }
  async createProfile(name) { return name; }
  async updateProfile(name) { return name; }
  async upsertProfile(name) { return name; }
  async deleteProfile() {}
  getActiveProfile() { return undefined; }
  async setActiveProfile(name) { return name; }

  // ---- replay ----------------------------------------------------------------------------------
  async _replay(file, opts = {}) {
    const fixture = typeof file === "string" ? JSON.parse(fs.readFileSync(file, "utf8")) : file;
    this._abortReplay();
    const run = { aborted: false };
    this._run = run;
    this._replaying = true;
    this._configuration = { ...this._configuration, ...(fixture.configuration || {}) };
    const taskId = opts.taskId || fixture.taskId;
    this._current = taskId;
    this._history.add(taskId);
    const base = this.now();
    const t0 = fixture.events.length ? fixture.events[0].at : 0;
    const firstTs = firstMessageTs(fixture.events);
    let prevAt = t0;
    let skipUntilNextRequest = false;
    try {
      for (const ev of fixture.events) {
        const wait = opts.delayMs !== undefined ? opts.delayMs : Math.max(0, ev.at - prevAt);
        prevAt = ev.at;
        if (wait > 0) await this._sleep(wait); else await new Promise((r) => setImmediate(r));
        if (run.aborted) return { aborted: true };
        if (ev.name !== "message") {
          if (!skipUntilNextRequest) this._emit(ev.name, ev.args.map((a) => (a === fixture.taskId ? taskId : a)));
          continue;
        }
        const m = { ...ev.args[0].message };
        if (firstTs !== undefined) m.ts = base + (m.ts - firstTs);
        if (skipUntilNextRequest) {
          if (!(m.say === "api_req_started" && ev.args[0].action === "created")) continue;
          skipUntilNextRequest = false;
        }
        this._message(ev.args[0].action, m);
        const complete = m.partial !== true;
        if (m.type === "ask" && APPROVAL_ASKS.has(m.ask) && complete && this._queue.length) this._drainQueueAsApproval();
        if (ev.awaitResponse && m.type === "ask") {
          const answer = await this._awaitApproval(m, ev.awaitResponse, run);
          if (run.aborted) return { aborted: true };
          if (!answer.approved) skipUntilNextRequest = true; // a refused tool never runs: no output
        }
      }
      return { aborted: false };
    } finally {
      if (this._run === run) this._replaying = false;
    }
  }

  _awaitApproval(message, how, run) {
    return new Promise((resolve) => {
      const w = { kind: "approval", message, resolve, timer: undefined };
      this._waiting = w;
      const userAfter = how.userApprovesAfterMs;
      const interactive = setTimeout(() => { if (this._waiting === w) this._emit("taskInteractive", [this._current]); }, this.timing.interactive);
      w.timer = setTimeout(() => {
        clearTimeout(interactive);
        if (this._waiting !== w || run.aborted) return;
        // The (simulated) user clicks Approve.
        this._waiting = undefined;
        this._emit("taskAskResponded", [this._current]);
        resolve({ approved: true });
      }, userAfter ?? 60_000);
      run.onAbort = () => { clearTimeout(interactive); clearTimeout(w.timer); resolve({ approved: false }); };
    });
  }

  /** Roo drains queued messages at the next approval ask: approved, the text as feedback. */
  _drainQueueAsApproval() {
    const q = this._queue.shift();
    this._message("created", { ts: this.now(), type: "say", say: "user_feedback", text: q.text, images: q.images });
    this._emit("queuedMessagesUpdated", [this._current, this._queue.map((x) => ({ ...x }))]);
  }

  _askResume() {
    if (!this._current) return;
    const w = { kind: "resume", timer: undefined };
    this._waiting = w;
    this._message("created", { ts: this.now(), type: "ask", ask: "resume_task" });
    w.timer = setTimeout(() => { if (this._waiting === w) this._emit("taskResumable", [this._current]); }, this.timing.resumable - this.timing.resumeAsk);
  }

  // ---- plumbing --------------------------------------------------------------------------------
  /** Emits a `message` event the way Roo does: one live object per message ts, mutated by updates. */
  _message(action, message) {
    let live = this._live.get(message.ts);
    if (!live || action === "created") { live = { ...message }; this._live.set(message.ts, live); }
    else { for (const k of Object.keys(live)) if (!(k in message)) delete live[k]; Object.assign(live, message); }
    this._emit("message", [{ taskId: this._current, action, message: live }]);
  }
  _emit(name, args) {
    const last = args[0] && args[0].message;
    this.__test.emitted.push({ name, at: this.now(), summary: last ? summarize(last) : args[0] });
    if (this.__test.emitted.length > 20000) this.__test.emitted.splice(0, 10000);
    this.emit(name, ...args);
  }
  _record(method, args) { this.__test.calls.push({ method, args, at: this.now() }); }
  _abortReplay() {
    if (this._run) { this._run.aborted = true; if (this._run.onAbort) this._run.onAbort(); this._run = undefined; }
    this._replaying = false;
    this._queue = [];
  }
  _after(ms, fn) { const t = setTimeout(() => { this._timers.delete(t); fn(); }, Math.max(0, ms)); this._timers.add(t); }
  _sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }
  _reset() {
    this._abortReplay();
    if (this._timers) for (const t of this._timers) clearTimeout(t);
    if (this._waiting) clearTimeout(this._waiting.timer);
    this._timers = new Set();
    this._waiting = undefined;
    this._current = undefined;
    this._history = new Set();
    this._live = new Map();
    this._queue = [];
    this._configuration = { autoApprovalEnabled: false };
    this.__test.calls.length = 0;
    this.__test.emitted.length = 0;
  }
  _stateSummary() {
    return { current: this._current, replaying: this._replaying, waiting: this._waiting ? this._waiting.kind : undefined, queued: this._queue.length };
  }
}

function firstMessageTs(events) {
  for (const e of events) if (e.name === "message") return e.args[0].message.ts;
  return undefined;
}

function summarize(m) {
  return { ts: m.ts, type: m.type, ask: m.ask, say: m.say, partial: m.partial, textLength: typeof m.text === "string" ? m.text.length : undefined, text: m.say === "user_feedback" ? m.text : undefined };
}

module.exports = { FakeRooApi, REAL_TIMING };
