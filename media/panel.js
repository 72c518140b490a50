// Loop Sentinel diagnostics webview. Renders the snapshots the extension posts; decides nothing.
// Built with DOM calls and textContent only: agent text never becomes markup.
(function () {
  const vscode = acquireVsCodeApi();
  const app = document.getElementById("app");
  const saved = vscode.getState() || {};
  let selected = saved.selected;
  // Interventions the user opened or closed: kept across the re-renders of a live session.
  const opened = new Set(saved.opened || []);
  const closed = new Set(saved.closed || []);
  function remember() { vscode.setState({ selected, opened: [...opened], closed: [...closed] }); }

  const DELIVERY_LABEL = { pending: "delivery not yet confirmed", delivered: "the model has it", undelivered: "not delivered" };
  const ACTION_LABEL = { warn: "Warned", block: "Refused call", abort: "Aborted response", stop: "Stopped task" };
  const ALERT_LABEL = { none: "", warning: "loop suspected", intervened: "intervened" };

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat(Infinity)) {
      if (c === undefined || c === null || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  function fmtInt(n) { return Math.round(n || 0).toLocaleString("en-US"); }
  function fmtCost(c) { return c ? "$" + c.toFixed(c < 0.1 ? 4 : 2) : "$0"; }

  function card(label, value, note) {
    return el("div", { class: "card" }, el("div", { class: "card-label" }, label), el("div", { class: "card-value" }, value), note ? el("div", { class: "card-note" }, note) : null);
  }

  function header(state) {
    const opts = state.sessions.map((s) => el("option", { value: s.key, selected: s.key === state.selected },
      `${s.hostLabel} · ${s.title}${s.alert !== "none" ? " — " + ALERT_LABEL[s.alert] : ""}`));
    const mode = state.settings.enabled ? (state.settings.mode === "warnOnly" ? "warn-only" : `intervene (${state.settings.actionPolicy === "ask" ? "ask first" : "automatic"})`) : "off";
    return el("header", { class: "top" },
      el("h1", {}, "Loop Sentinel"),
      el("span", { class: "mode", title: "Mode" }, "Mode: " + mode),
      el("label", { for: "session" }, "Session"),
      el("select", { id: "session", onchange: (e) => { selected = e.target.value; remember(); vscode.postMessage({ type: "select", key: selected }); } }, opts),
      el("button", { id: "reset", disabled: !state.session, onclick: () => vscode.postMessage({ type: "reset", key: state.selected }) }, "Reset detectors"),
      el("button", { id: "resume", disabled: !state.session || state.session.replay, onclick: () => vscode.postMessage({ type: "resume", key: state.selected }) }, "Resume with guidance…"),
      el("button", { class: "secondary", onclick: () => vscode.postMessage({ type: "openSettings" }) }, "Settings"));
  }

  function summary(s) {
    const st = s.stats;
    return el("section", { class: "cards", "aria-label": "Session figures" },
      card("Events", fmtInt(st.events)),
      card("Requests", fmtInt(st.requests)),
      card("Tool calls", fmtInt(st.toolCalls)),
      card("Tokens", fmtInt(st.tokensIn + st.tokensOut), fmtCost(st.cost)),
      card("Spent in loops", fmtInt(s.spentInLoops.tokens) + " tokens", s.spentInLoops.requests && !s.spentInLoops.tokens ? `${s.spentInLoops.requests} request(s); the host reported no token usage` : `${fmtCost(s.spentInLoops.cost)} over ${s.spentInLoops.requests} request(s)`),
      card("Saved (estimate)", fmtInt(s.savedEstimate.tokens) + " tokens", s.savedEstimate.requests ? `${fmtCost(s.savedEstimate.cost)}, if the loop had run as long again` : "nothing aborted or stopped yet"));
  }

  function detectors(s) {
    const rows = s.detectors.map((d) => {
      const pct = Math.round(Math.max(0, Math.min(1, d.progress)) * 100);
      return el("tr", { class: d.enabled ? "" : "off" },
        el("th", { scope: "row" }, d.title),
        el("td", {}, el("div", { class: "bar" + (pct >= 100 ? " full" : ""), role: "progressbar", "aria-valuemin": 0, "aria-valuemax": 100, "aria-valuenow": pct, "aria-label": d.title + " closeness to firing" },
          el("div", { class: "fill", style: undefined }))),
        el("td", { class: "num" }, d.enabled ? pct + "%" : "off"),
        el("td", { class: "detail" }, d.detail || ""));
    });
    const table = el("table", { class: "detectors" }, el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Detector"), el("th", { scope: "col" }, "Closeness to firing"), el("th", { scope: "col" }, ""), el("th", { scope: "col" }, "Strongest candidate"))), el("tbody", {}, rows));
    // Widths set through CSSOM: allowed under the CSP (no inline style attributes).
    table.querySelectorAll(".bar").forEach((bar) => { bar.firstChild.style.width = bar.getAttribute("aria-valuenow") + "%"; });
    return el("section", { "aria-labelledby": "h-detectors" }, el("h2", { id: "h-detectors" }, "Detectors"), table);
  }

  function evidence(iv) {
    const ev = iv.evidence || {};
    const parts = [];
    if (ev.span) parts.push(el("div", { class: "ev" }, el("span", { class: "ev-label" }, "Repeated: "), el("mark", {}, ev.span)));
    if (ev.cycle && ev.cycle.length) parts.push(el("div", { class: "ev" }, el("span", { class: "ev-label" }, "Cycle: "),
      el("ol", { class: "cycle" }, ev.cycle.map((c) => el("li", {}, el("code", {}, c))))));
    const facts = [];
    if (ev.tool) facts.push(["tool", ev.tool]);
    if (ev.path) facts.push(["path", ev.path]);
    if (ev.pattern) facts.push(["pattern", ev.pattern]);
    if (ev.command) facts.push(["command", ev.command]);
    if (typeof ev.similarity === "number") facts.push(["similarity", Math.round(ev.similarity * 100) + "%"]);
    if (ev.identicalOutput) facts.push(["output", "identical each time"]);
    facts.push(["count", String(ev.count)]);
    if (ev.events && ev.events.length) facts.push(["events", ev.events.join(", ")]);
    parts.push(el("dl", { class: "facts" }, facts.map(([k, v]) => [el("dt", {}, k), el("dd", {}, el("code", {}, v))])));
    return parts;
  }

  function interventions(s) {
    const list = s.interventions.slice().reverse();
    const newest = list.length ? list[0].id : undefined;
    const body = list.length === 0 ? el("p", { class: "muted" }, "No intervention in this session.") : el("ol", { class: "interventions", reversed: true },
      list.map((iv) => {
        const isOpen = opened.has(iv.id) || (iv.id === newest && !closed.has(iv.id));
        const details = el("details", { class: "iv " + iv.action + (iv.ignored ? " ignored" : ""), open: isOpen },
          el("summary", { class: "iv-head" },
            el("span", { class: "badge " + iv.action }, ACTION_LABEL[iv.action] || iv.action),
            el("strong", {}, iv.detectorTitle),
            el("span", { class: "muted" }, ` at event ${iv.event}`),
            el("span", { class: "iv-line" }, iv.summary)),
          evidence(iv),
          el("div", { class: "ev" }, el("span", { class: "ev-label" }, "Guidance: "), el("blockquote", {}, iv.message)),
          el("div", { class: "outcome" + (iv.ok === false ? " failed" : "") }, "Outcome: " + (iv.outcome || "—"),
            iv.delivery ? el("span", { class: "badge delivery " + iv.delivery }, DELIVERY_LABEL[iv.delivery] || iv.delivery) : null),
          iv.ignored ? el("p", { class: "muted" }, "This pattern is ignored from now on.") :
            el("button", { class: "secondary", onclick: () => vscode.postMessage({ type: "ignore", key: s.key, pattern: iv.key }) }, "Ignore this pattern"));
        details.addEventListener("toggle", () => {
          if (details.open) { opened.add(iv.id); closed.delete(iv.id); } else { closed.add(iv.id); opened.delete(iv.id); }
          remember();
        });
        return el("li", {}, details);
      }));
    return el("section", { "aria-labelledby": "h-iv" }, el("h2", { id: "h-iv" }, `Interventions (${s.interventions.length})`), body);
  }

  function timeline(s) {
    const rows = s.timeline.map((e) => {
      const repeat = e.repeat && e.repeat > 1 ? el("span", { class: "repeat", title: `call number ${e.repeat} with this exact input` }, "×" + e.repeat) : null;
      const status = e.kind === "tool" && e.ok !== undefined ? el("span", { class: e.ok ? "ok" : "fail" }, e.ok ? "ok" : "failed") : null;
      const usage = e.kind === "request" ? el("span", { class: "muted" }, [e.chars ? `${fmtInt(e.chars)} chars` : "", e.tokens ? `${fmtInt(e.tokens)} tokens` : "", e.cost ? fmtCost(e.cost) : ""].filter(Boolean).join(" · ")) : null;
      return el("li", { class: `tl ${e.kind}${e.flagged ? " flagged" : ""}` },
        el("span", { class: "idx" }, String(e.index)),
        el("span", { class: "kind" }, e.kind === "echo" ? "guidance" : e.kind),
        el("span", { class: "label" }, e.label), repeat, status, usage,
        e.flagged ? el("span", { class: "sr-only" }, " (part of a detected loop)") : null);
    });
    return el("section", { "aria-labelledby": "h-tl" },
      el("h2", { id: "h-tl" }, `Timeline (latest ${s.timeline.length} entries)`),
      rows.length ? el("ol", { class: "timeline", tabindex: 0, "aria-label": "Requests and tool calls, newest last" }, rows) : el("p", { class: "muted" }, "No events yet."));
  }

  function render(state) {
    selected = state.selected;
    remember();
    const focusedId = document.activeElement && document.activeElement.id;
    const tl = app.querySelector(".timeline");
    const stickToEnd = !tl || tl.scrollTop + tl.clientHeight >= tl.scrollHeight - 4;
    app.replaceChildren();
    if (state.sessions.length === 0) {
      app.append(header(state), el("section", { class: "empty" },
        el("h2", {}, "No sessions yet"),
        el("p", {}, "Loop Sentinel watches Roo Code, Kilo Code and Cline tasks as they run. Start a task in one of them, or run “Loop Sentinel: Replay Session File…” to inspect a recorded session.")));
    } else {
      const s = state.session;
      app.append(header(state), summary(s), el("div", { class: "columns" }, el("div", {}, interventions(s), detectors(s)), timeline(s)));
    }
    const newTl = app.querySelector(".timeline");
    if (newTl && stickToEnd) newTl.scrollTop = newTl.scrollHeight;
    if (focusedId) { const f = document.getElementById(focusedId); if (f) f.focus(); }
    // What is on screen, counted from the DOM (the integration tests check it).
    vscode.postMessage({
      type: "rendered", selected,
      timelineEntries: app.querySelectorAll("li.tl").length,
      interventions: app.querySelectorAll(".iv").length,
      flaggedEntries: app.querySelectorAll("li.tl.flagged").length,
      highlightedSpans: app.querySelectorAll(".iv mark").length,
      detectorRows: app.querySelectorAll("table.detectors tbody tr").length,
    });
  }

  window.addEventListener("message", (event) => {
    const m = event.data;
    switch (m && m.type) {
      case "state": render(m); break;
    }
  });
  vscode.postMessage({ type: "ready", selected });
})();
