// Loop Sentinel diagnostics webview. Draws the snapshots the extension posts, in the words the
// extension chose (src/extension/stateWords.ts, panelWords.ts); decides nothing.
// Built with DOM calls and textContent only: agent text never becomes markup.
(function () {
  const vscode = acquireVsCodeApi();
  const app = document.getElementById("app");
  const announcer = document.getElementById("announce");
  const saved = vscode.getState() || {};
  let selected = saved.selected;
  // Disclosures the user opened or closed, by id: kept across the re-renders of a live session.
  const openState = Object.assign({}, saved.openState || {});
  function remember() { vscode.setState({ selected, openState }); }

  // What each session's interventions were at the last render: only changes are announced.
  const known = new Map();
  let lastKey;

  const DELIVERY_LABEL = { pending: "not yet confirmed delivered", delivered: "the model has it", undelivered: "not delivered" };
  const KIND_LABEL = { user: "you", request: "request", tool: "tool", echo: "guidance" };

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

  /** A disclosure whose open state survives re-renders (by its summary's id). */
  function disclosure(id, cls, defaultOpen, summaryChildren, body, summaryClass) {
    const isOpen = id in openState ? openState[id] : defaultOpen;
    const details = el("details", { class: cls, open: isOpen }, el("summary", { id, class: summaryClass }, summaryChildren), body);
    // The toggle event also fires for the initial open state: only a change from the default is the user's.
    details.addEventListener("toggle", () => { if (!(id in openState) && details.open === isOpen) return; openState[id] = details.open; remember(); });
    return details;
  }

  function fmtInt(n) { return Math.round(n || 0).toLocaleString("en-US"); }
  // No cost recorded for tokens used: the model's price is not known (it was not free).
  function fmtCost(c, tokens) { return c ? "$" + c.toFixed(c < 0.1 ? 3 : 2) : tokens ? "price unknown" : "$0"; }
  function plural(n, one, many) { return fmtInt(n) + " " + (n === 1 ? one : (many || one + "s")); }

  function card(label, value, note) {
    return el("div", { class: "card" }, el("div", { class: "card-label" }, label), el("div", { class: "card-value" }, value), note ? el("div", { class: "card-note" }, note) : null);
  }

  function header(state) {
    const opts = state.sessions.map((s) => el("option", { value: s.key, selected: s.key === state.selected },
      `${s.hostLabel} · ${s.title}${s.state ? " — " + s.state : ""}`));
    const live = state.session && !state.session.replay;
    return el("header", { class: "top" },
      el("div", { class: "top-row" },
        el("h1", {}, "Loop Sentinel"),
        el("span", { class: "mode", id: "mode" }, state.modeText),
        el("span", { class: "actions" },
          state.session ? el("button", { id: "reset", class: "secondary", onclick: () => vscode.postMessage({ type: "reset", key: state.selected }) }, "Reset detectors") : null,
          live && state.session.canResume ? el("button", { id: "resume", class: "secondary", onclick: () => vscode.postMessage({ type: "resume", key: state.selected }) }, "Resume with guidance…") : null,
          el("button", { id: "settings", class: "secondary", onclick: () => vscode.postMessage({ type: "openSettings" }) }, "Settings"))),
      state.sessions.length ? el("div", { class: "session-row" },
        el("label", { for: "session" }, "Session"),
        el("select", { id: "session", onchange: (e) => { selected = e.target.value; remember(); vscode.postMessage({ type: "select", key: selected }); } }, opts)) : null);
  }

  function emptyState(state) {
    return el("section", { class: "empty", "aria-labelledby": "h-empty" },
      el("h2", { id: "h-empty" }, "No sessions yet"),
      el("p", { id: "empty-text" }, state.emptyText),
      el("div", { class: "button-row" },
        el("button", { id: "empty-replay", onclick: () => vscode.postMessage({ type: "replayFile" }) }, "Replay a session file…"),
        el("button", { id: "empty-walkthrough", class: "secondary", onclick: () => vscode.postMessage({ type: "walkthrough" }) }, "Open walkthrough")));
  }

  function summary(s) {
    const st = s.stats;
    return el("section", { class: "cards", "aria-label": "Session figures" },
      card("Requests", fmtInt(st.requests)),
      card("Tool calls", fmtInt(st.toolCalls)),
      card("Tokens", fmtInt(st.tokensIn + st.tokensOut), st.tokensIn + st.tokensOut ? fmtCost(st.cost, st.tokensIn + st.tokensOut) : null),
      s.loopCards.map((c) => card(c.label, c.value, c.note)));
  }

  function detectors(s) {
    const rows = s.detectors.map((d) => {
      const pct = d.percent;
      return el("tr", { class: d.enabled ? "" : "off" },
        el("th", { scope: "row" }, d.title),
        el("td", {}, el("div", { class: "bar", role: "progressbar", "aria-valuemin": 0, "aria-valuemax": 100, "aria-valuenow": pct, "aria-label": d.title + (d.next ? ": " + d.next : "") },
          el("div", { class: "fill" }))),
        el("td", { class: "num" }, !d.enabled ? "off" : pct + "%"),
        el("td", { class: "next" }, d.enabled ? d.next || "" : ""),
        el("td", { class: "detail" }, d.fired ? d.fired + (d.detail ? "; " + d.detail : "") : d.detail));
    });
    const table = el("table", { class: "detectors" }, el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Detector"), el("th", { scope: "col" }, "How close to its next step"), el("th", { scope: "col" }, el("span", { class: "sr-only" }, "Percent")), el("th", { scope: "col" }, "Next step"), el("th", { scope: "col" }, "What it sees"))), el("tbody", {}, rows));
    // Widths set through CSSOM: allowed under the CSP (no inline style attributes).
    table.querySelectorAll(".bar").forEach((bar) => { bar.firstChild.style.width = bar.getAttribute("aria-valuenow") + "%"; });
    return el("section", { "aria-labelledby": "h-detectors" }, el("h2", { id: "h-detectors" }, "Detectors"), table);
  }

  function facts(iv) {
    const ev = iv.evidence || {};
    const out = [];
    if (ev.tool) out.push(["Tool", ev.tool]);
    if (ev.path) out.push(["File", ev.path]);
    if (ev.command) out.push(["Command", ev.command]);
    if (ev.pattern) out.push(["Search", ev.pattern]);
    if (typeof ev.similarity === "number" && ev.count > 1) out.push(["Alike", Math.round(ev.similarity * 100) + "%"]);
    if (ev.identicalOutput) out.push(["Output", "identical each time"]);
    return out.length ? el("dl", { class: "facts" }, out.map(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])) : null;
  }

  function interventionCard(s, iv, newest, loop) {
    const id = "iv-" + iv.id;
    const w = iv.words;
    const answerButtons = iv.phase === "asking" ? el("div", { class: "button-row" },
      el("button", { id: id + "-act", onclick: () => vscode.postMessage({ type: "answer", key: s.key, id: iv.id, answer: "act" }) }, w.actLabel),
      el("button", { id: id + "-dismiss", class: "secondary", onclick: () => vscode.postMessage({ type: "answer", key: s.key, id: iv.id, answer: "dismiss" }) }, "Dismiss")) : null;
    const hostAccount = (iv.phase === "done" || iv.phase === "failed" || iv.phase === "pending") && iv.outcome
      ? el("p", { class: "outcome" + (iv.phase === "failed" ? " failed" : "") }, el("span", { class: "ev-label" }, s.hostLabel + ": "), iv.outcome,
        iv.delivery ? el("span", { class: "badge delivery " + iv.delivery }, DELIVERY_LABEL[iv.delivery] || "") : null)
      : null;
    const sent = w.confirmed || iv.phase === "pending";
    // The host cannot act here: what would make it possible, and the one action that gets there.
    const remedy = iv.phase === "unavailable" && iv.remedy ? el("div", { class: "remedy" },
      el("p", { class: "outcome" }, iv.remedy.why),
      el("p", {}, iv.remedy.fix),
      iv.remedy.offer === "install-cline-hook" ? el("div", { class: "button-row" },
        el("button", { id: id + "-remedy", onclick: () => vscode.postMessage({ type: "installClineHook" }) }, "Install the Cline hook")) : null) : null;
    return disclosure(id + "-head", `iv tone-${w.tone}${iv.ignored ? " ignored" : ""}`, iv.id === newest, [
      el("span", { class: "badge state tone-" + w.tone }, w.short),
      el("strong", {}, iv.detectorTitle),
      iv.ignored ? el("span", { class: "muted" }, " (ignored)") : null,
      // The repeated passage once: highlighted where the summary quotes it, else on a line of its own.
      el("span", { class: "iv-line" }, iv.summaryParts ? [iv.summaryParts[0], el("mark", {}, iv.summaryParts[1]), iv.summaryParts[2]] : iv.summary),
    ], [
      el("p", { class: "iv-sentence" }, w.sentence),
      loop && loop.rungs.length > 1 ? el("ol", { class: "rungs", "aria-label": "Steps of this loop" },
        loop.rungs.map((r) => el("li", {}, el("span", { class: "rung-name" }, r.name + ": "), r.state))) : null,
      answerButtons,
      remedy,
      hostAccount,
      iv.repeatedText ? el("div", { class: "ev" }, el("span", { class: "ev-label" }, "Repeated: "), el("mark", {}, iv.repeatedText)) : null,
      iv.evidence && iv.evidence.cycle && iv.evidence.cycle.length ? el("div", { class: "ev" }, el("span", { class: "ev-label" }, "Cycle: "),
        el("ol", { class: "cycle" }, iv.evidence.cycle.map((c) => el("li", {}, el("code", {}, c))))) : null,
      facts(iv),
      disclosure(id + "-guidance", "sub", false, sent ? "Guidance sent to the agent" : "Guidance (not sent)", el("blockquote", {}, iv.guidanceText || iv.message)),
      disclosure(id + "-events", "sub", false, "Where in the session", el("p", { class: "muted" },
        `Detected at event ${iv.event}; the loop's events: ${iv.eventsText || "none recorded"} (${plural((iv.evidence && iv.evidence.events || []).length, "event")}).`)),
      iv.ignored ? el("p", { class: "muted" }, "This pattern is ignored from now on.") :
        el("button", { id: id + "-ignore", class: "secondary", onclick: () => vscode.postMessage({ type: "ignore", key: s.key, pattern: iv.key }) }, "Ignore this pattern"),
    ], "iv-head");
  }

  function interventions(s) {
    // One card per loop (a finding and the steps it went through), its newest step on top.
    const byId = new Map(s.interventions.map((iv) => [iv.id, iv]));
    const loops = (s.loops || []).slice().reverse();
    const newest = loops.length ? loops[0].id : undefined;
    const body = loops.length === 0 ? el("p", { class: "muted" }, "No loop detected in this session.") : el("ol", { class: "interventions", reversed: true },
      loops.map((loop) => el("li", {}, interventionCard(s, byId.get(loop.id), newest, loop))));
    return el("section", { "aria-labelledby": "h-iv" }, el("h2", { id: "h-iv" }, loops.length ? `Loops detected (${loops.length})` : "Loops detected"), body);
  }

  function timeline(s) {
    const rows = s.timeline.map((e) => {
      const repeat = e.repeat && e.repeat > 1 ? el("span", { class: "repeat", title: `call number ${e.repeat} with this exact input` }, "×" + e.repeat) : null;
      const status = e.kind === "tool" && e.ok !== undefined ? el("span", { class: e.ok ? "ok" : "fail" }, e.ok ? "ok" : "failed") : null;
      const usage = e.kind === "request" ? el("span", { class: "muted" }, [e.chars ? `${fmtInt(e.chars)} chars` : "", e.tokens ? `${fmtInt(e.tokens)} tokens` : "", e.tokens ? fmtCost(e.cost, e.tokens) : ""].filter(Boolean).join(" · ")) : null;
      return el("li", { class: `tl ${e.kind}${e.flagged ? " flagged" : ""}`, title: `event ${e.index}` },
        el("span", { class: "kind" }, KIND_LABEL[e.kind] || e.kind),
        el("span", { class: "label" }, e.label), repeat, status, usage,
        e.flagged ? el("span", { class: "sr-only" }, " (part of a detected loop)") : null);
    });
    return el("section", { "aria-labelledby": "h-tl" },
      el("h2", { id: "h-tl" }, `Timeline (latest ${plural(s.timeline.length, "entry", "entries")})`),
      rows.length ? el("ol", { class: "timeline", id: "timeline", tabindex: 0, "aria-label": "Requests and tool calls, newest last" }, rows) : el("p", { class: "muted" }, "No events yet."));
  }

  /** What changed since the last render, in a sentence for the live region (nothing when nothing did). */
  function changes(state) {
    const s = state.session;
    if (!s) return "";
    const before = known.get(s.key);
    const now = new Map(s.interventions.map((iv) => [iv.id, iv.phase]));
    known.set(s.key, now);
    if (!before) return "";
    const news = s.interventions.filter((iv) => before.get(iv.id) !== iv.phase);
    if (!news.length) return "";
    const latest = news[news.length - 1];
    return `${s.hostLabel} task ${s.title}: ${latest.words.headline}.`;
  }

  // ---- contrast, measured from the rendered colours ----
  function parseColor(str) {
    let m = /rgba?\(([^)]+)\)/.exec(str);
    if (m) { const p = m[1].split(/[,\s/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; }
    m = /color\(srgb ([^)]+)\)/.exec(str);
    if (m) { const p = m[1].split(/[\s/]+/).filter(Boolean).map(Number); return [p[0] * 255, p[1] * 255, p[2] * 255, p.length > 3 ? p[3] : 1]; }
    return [0, 0, 0, 0];
  }
  function over(top, bottom) {
    const a = top[3] + bottom[3] * (1 - top[3]);
    if (a === 0) return [0, 0, 0, 0];
    return [0, 1, 2].map((i) => (top[i] * top[3] + bottom[i] * bottom[3] * (1 - top[3])) / a).concat([a]);
  }
  function luminance(c) {
    const [r, g, b] = c.slice(0, 3).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  }
  function backgroundOf(node) {
    const layers = [];
    let opacity = 1;
    for (let n = node; n && n.nodeType === 1; n = n.parentElement) {
      const cs = getComputedStyle(n);
      opacity *= Number(cs.opacity);
      layers.push(parseColor(cs.backgroundColor));
    }
    let bg = parseColor(getComputedStyle(document.documentElement).backgroundColor);
    if (bg[3] < 1) bg = over(bg, [255, 255, 255, 1]);
    for (let i = layers.length - 1; i >= 0; i--) if (layers[i][3] > 0) bg = over(layers[i], bg);
    return { bg, opacity };
  }
  function measureContrast() {
    const results = [];
    const els = [...app.querySelectorAll("*")].filter((n) => n.tagName !== "OPTION" && (n.tagName === "SELECT" || [...n.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim())));
    for (const n of els) {
      if (n.closest(".sr-only") || n.closest("button:disabled") || !n.getClientRects().length) continue;
      const { bg, opacity } = backgroundOf(n);
      const fgRaw = parseColor(getComputedStyle(n).color);
      const fg = over([fgRaw[0], fgRaw[1], fgRaw[2], fgRaw[3] * opacity], bg);
      const l1 = luminance(fg), l2 = luminance(bg);
      const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
      const text = (n.tagName === "SELECT" ? n.options[n.selectedIndex]?.text || "" : [...n.childNodes].filter((c) => c.nodeType === 3).map((c) => c.textContent).join("")).trim().slice(0, 40);
      results.push({ text, ratio: Math.round(ratio * 100) / 100, fg: `rgb(${fg.slice(0, 3).map(Math.round).join(",")})`, bg: `rgb(${bg.slice(0, 3).map(Math.round).join(",")})`, where: n.tagName.toLowerCase() + (n.className ? "." + String(n.className).split(/\s+/).join(".") : "") });
    }
    results.sort((a, b) => a.ratio - b.ratio);
    return { min: results.length ? results[0].ratio : 21, count: results.length, worst: results.slice(0, 5) };
  }

  /** Whether the selected session's name fits its selector (the header must not cut it). */
  function headerFits() {
    const sel = document.getElementById("session");
    if (!sel) return true;
    const ctx = document.createElement("canvas").getContext("2d");
    const cs = getComputedStyle(sel);
    ctx.font = `${cs.fontSize} ${cs.fontFamily}`;
    const text = sel.options[sel.selectedIndex]?.text || "";
    return ctx.measureText(text).width + 32 <= sel.clientWidth;
  }

  function render(state) {
    selected = state.selected;
    remember();
    const focusedId = document.activeElement && document.activeElement.id;
    const newSession = state.selected !== lastKey;
    lastKey = state.selected;
    const pageScroll = window.scrollY;
    const tl = app.querySelector(".timeline");
    const stickToEnd = !tl || tl.scrollTop + tl.clientHeight >= tl.scrollHeight - 4;
    const tlScroll = tl ? tl.scrollTop : 0;
    app.replaceChildren();
    if (state.sessions.length === 0) {
      app.append(header(state), emptyState(state));
    } else {
      const s = state.session;
      app.append(header(state), summary(s), el("div", { class: "columns" }, el("div", {}, interventions(s), detectors(s)), timeline(s)));
    }
    const newTl = app.querySelector(".timeline");
    if (newTl) {
      if (newSession) {
        // A session opened: its first flagged call in view, else its latest events.
        const first = newTl.querySelector("li.flagged");
        newTl.scrollTop = first ? Math.max(0, first.offsetTop - newTl.offsetTop - 8) : newTl.scrollHeight;
      } else newTl.scrollTop = stickToEnd ? newTl.scrollHeight : tlScroll;
    }
    // A new session opens at its top; a live update keeps the reader where they were.
    window.scrollTo(0, newSession ? 0 : pageScroll);
    if (focusedId) { const f = document.getElementById(focusedId); if (f && document.activeElement !== f) f.focus({ preventScroll: true }); }
    const said = changes(state);
    if (said) announcer.textContent = said;
    // What is on screen, counted from the DOM (the integration tests check it).
    vscode.postMessage({
      type: "rendered", selected,
      timelineEntries: app.querySelectorAll("li.tl").length,
      interventions: app.querySelectorAll(".iv").length,
      flaggedEntries: app.querySelectorAll("li.tl.flagged").length,
      highlightedSpans: app.querySelectorAll(".iv mark").length,
      detectorRows: app.querySelectorAll("table.detectors tbody tr").length,
      texts: {
        badges: [...app.querySelectorAll(".badge.state")].map((n) => n.textContent),
        sentences: [...app.querySelectorAll(".iv-sentence")].map((n) => n.textContent),
        mode: state.modeText,
        empty: app.querySelector("#empty-text")?.textContent || undefined,
        buttons: [...app.querySelectorAll("button")].map((n) => n.textContent),
        cards: [...app.querySelectorAll(".card")].map((n) => [...n.children].map((c) => c.textContent).join(" | ")),
      },
      liveRegions: document.querySelectorAll("[aria-live]").length,
      contrast: measureContrast(),
      scrollTop: window.scrollY,
      headerFits: headerFits(),
      announced: said,
      focused: (document.activeElement && document.activeElement.id) || undefined,
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
