/** The stats report as one self-contained HTML page: inline CSS and SVG, no scripts, no remote resources. */
import { GROUPS, type Group, type MetricDistribution } from "./distributions";
import { kindSeparationText, separationText, type StatsReport } from "./report";
import type { SessionStatsReport } from "./sessionStats";
import { sweepColumns, type Sweep } from "./sweep";

const COLOURS: Record<Group, string> = { loop: "#c0392b", healthy: "#27ae60", unlabelled: "#7f8c8d" };

function esc(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);
}

/** A grouped bar chart of one metric's buckets, one bar per group present. */
function histogramSvg(d: MetricDistribution, groups: readonly Group[]): string {
  const barW = 12, gap = 10, h = 140, top = 16, bottom = 34, left = 30;
  const slot = groups.length * barW + gap;
  const width = left + d.buckets.length * slot + 10;
  const max = Math.max(1, ...d.buckets.flatMap((b) => groups.map((g) => b.counts[g])));
  const y = (n: number) => top + (h - top - bottom) * (1 - n / max);
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${h}" role="img" aria-label="${esc(d.title)}">`);
  parts.push(`<line x1="${left}" y1="${y(0)}" x2="${width - 5}" y2="${y(0)}" stroke="#999"/>`);
  parts.push(`<text x="${left - 4}" y="${y(max) + 4}" font-size="10" text-anchor="end">${max}</text><text x="${left - 4}" y="${y(0) + 4}" font-size="10" text-anchor="end">0</text>`);
  d.buckets.forEach((b, i) => {
    const x0 = left + i * slot + gap / 2;
    groups.forEach((g, gi) => {
      const n = b.counts[g];
      if (n > 0) parts.push(`<rect x="${x0 + gi * barW}" y="${y(n)}" width="${barW - 1}" height="${y(0) - y(n)}" fill="${COLOURS[g]}"><title>${esc(`${g}: ${n} session(s) at ${b.label}`)}</title></rect>`);
    });
    parts.push(`<text x="${x0 + (groups.length * barW) / 2}" y="${h - bottom + 14}" font-size="10" text-anchor="middle">${esc(b.label)}</text>`);
  });
  const sep = d.separation;
  if (sep && !sep.useless) {
    // Mark the bucket where the suggested threshold starts.
    const t = d.loopsAre === "high" ? Math.min(sep.from, sep.to) : Math.max(sep.from, sep.to);
    const i = d.buckets.findIndex((b) => t >= b.min && t <= b.max);
    if (i >= 0) {
      const x = left + (d.loopsAre === "high" ? i : i + 1) * slot;
      parts.push(`<line x1="${x}" y1="${top - 6}" x2="${x}" y2="${y(0)}" stroke="#333" stroke-dasharray="3,3"/><text x="${x + 3}" y="${top}" font-size="10">threshold</text>`);
    }
  }
  parts.push(`<text x="${left}" y="${h - 4}" font-size="10" fill="#555">sessions per value</text>`);
  parts.push("</svg>");
  return parts.join("");
}

function sessionRow(s: SessionStatsReport): string {
  const m = s.metrics;
  const group: Group = s.label ? (s.label.loop ? "loop" : "healthy") : "unlabelled";
  const fired = s.interventions.slice(0, 4).map((iv) => `${iv.event} ${iv.action} ${iv.detector}`).join("<br>") + (s.interventions.length > 4 ? `<br>+${s.interventions.length - 4} more` : "");
  const cells = [m.sameCall, m.sameCallSameOutput, m.sameCallNoProgress, m.longestRun, m.sameError, m.sameFileReads, m.streamLineRepeat, `${m.distinctCallPct}%`];
  const bad = s.verdict === "false alarm" || s.verdict === "missed" || s.verdict === "early" || s.verdict === "late";
  return `<tr><td title="${esc(s.file)}">${esc(s.file.split(/[\\/]/).pop())}</td><td>${esc(s.format)}</td><td><span class="dot" style="background:${COLOURS[group]}"></span>${group}</td><td>${s.events}</td><td>${s.toolCalls}</td>${cells.map((c) => `<td>${esc(c)}</td>`).join("")}<td>${fired || "—"}</td><td class="${bad ? "bad" : "ok"}">${esc(s.verdict)}</td></tr>`;
}

function sweepHtml(s: Sweep): string {
  const cols = sweepColumns(s);
  const bad = new Set(["early", "late", "missed", "false alarm"]);
  const rows = s.rows.map((r) => `<tr><td>${esc(r.value)}</td>${cols.map((c) => `<td class="${bad.has(c) && (r.verdicts[c] ?? 0) > 0 ? "bad" : ""}">${r.verdicts[c] ?? 0}</td>`).join("")}<td>${r.interventions}</td></tr>`).join("");
  return `<h2>Sweep of <code>${esc(s.key)}</code></h2><table><tr><th>value</th>${cols.map((c) => `<th>${esc(c)}</th>`).join("")}<th>interventions</th></tr>${rows}</table>`;
}

export function reportHtml(r: StatsReport): string {
  const o = r.overall;
  const groups = GROUPS.filter((g) => (g === "loop" ? o.loops : g === "healthy" ? o.healthy : o.unlabelled) > 0);
  const legend = groups.map((g) => `<span class="dot" style="background:${COLOURS[g]}"></span>${g}`).join(" &nbsp; ");
  const metricSections = r.distributions.map((d) => {
    const summary = groups.map((g) => {
      const s = d.summary[g];
      return s ? `<li>${g}: n=${s.n}, min ${s.min}, median ${s.median}, p90 ${s.p90}, max ${s.max}</li>` : "";
    }).join("");
    const kinds = kindSeparationText(d);
    const sepText = esc(separationText(d)).replace("separates cleanly", "<b>separates cleanly</b>") + (kinds ? `<br>by loop kind: ${esc(kinds)}` : "");
    return `<section class="metric"><h3>${esc(d.metric)}</h3><p>${esc(d.title)}</p>${histogramSvg(d, groups)}<ul>${summary}</ul><p>separation: ${sepText}</p></section>`;
  }).join("\n");
  const detectorRows = r.detectors.map((d) => `<tr><td>${esc(d.detector)}</td><td>${d.fired.loop}</td><td>${d.caught}</td><td>${d.early}</td><td>${d.late}</td><td class="${d.fired.healthy ? "bad" : ""}">${d.fired.healthy}</td><td>${d.fired.unlabelled}</td></tr>`).join("");
  const verdicts = Object.entries(o.verdicts).map(([k, n]) => `${esc(k)} ${n}`).join(", ");
  const settings = r.overrides.length ? r.overrides.map((s) => `<code>--set ${esc(s)}</code>`).join(" ") : "the current settings";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Loop Sentinel stats</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}
h1{font-size:20px}h2{font-size:17px;margin-top:28px}h3{font-size:14px;margin:0}
.metrics{display:flex;flex-wrap:wrap;gap:16px}
.metric{border:1px solid #ddd;border-radius:6px;padding:10px;min-width:300px}
.metric p{margin:4px 0}.metric ul{margin:4px 0;padding-left:18px;font-size:12px}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f4f4f4}.bad{color:#c0392b;font-weight:bold}.ok{color:#27ae60}
.dot{display:inline-block;width:10px;height:10px;border-radius:5px;margin-right:4px}
</style></head><body>
<h1>Loop Sentinel — session stats</h1>
<p>${o.sessions} session(s): ${o.loops} loop, ${o.healthy} healthy, ${o.unlabelled} unlabelled. Interventions under ${settings}. Verdicts: ${verdicts}.</p>
<p>${legend}</p>
<h2>Where loops and healthy sessions separate</h2>
<div class="metrics">
${metricSections}
</div>
<h2>Detectors</h2>
${r.detectors.length ? `<table><tr><th>detector</th><th>loops fired</th><th>caught</th><th>early</th><th>late</th><th>healthy fired (false alarms)</th><th>unlabelled fired</th></tr>${detectorRows}</table>` : "<p>No detector fired on any session.</p>"}
${r.sweep ? sweepHtml(r.sweep) : ""}
<h2>Sessions</h2>
<table><tr><th>session</th><th>format</th><th>label</th><th>events</th><th>calls</th><th>same call</th><th>same call+output</th><th>same call, no progress</th><th>longest run</th><th>same error</th><th>file re-reads</th><th>stream line copies</th><th>distinct</th><th>fired (event action detector)</th><th>verdict</th></tr>
${r.sessions.map(sessionRow).join("\n")}
</table>
</body></html>
`;
}
