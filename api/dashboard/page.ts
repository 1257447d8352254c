/**
 * The browser dashboard (SPEC §9): one static page, no framework, no external assets. Its script
 * and style carry the response's CSP nonce; every value from the API is rendered with textContent
 * (never innerHTML), so memory text cannot inject markup. The API key lives in sessionStorage only.
 */
export function dashboardHtml(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>amem dashboard</title>
<style nonce="${nonce}">
  body { font: 14px/1.4 system-ui, sans-serif; margin: 2rem; color: #222; }
  h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
  table { border-collapse: collapse; } td, th { border-bottom: 1px solid #ddd; padding: .25rem .6rem; text-align: left; vertical-align: top; }
  .muted { color: #777; } .error { color: #b00; } button { margin-right: .3rem; }
  #app[hidden], #login[hidden] { display: none; }
</style>
</head>
<body>
<h1>amem dashboard</h1>
<form id="login" hidden>
  <label>API key <input id="key" type="password" autocomplete="off" size="50" required></label>
  <button type="submit">Open</button>
</form>
<div id="app" hidden>
  <p><button id="refresh" type="button">Refresh</button><button id="forget" type="button">Forget key</button> <span id="status" class="muted"></span></p>
  <h2>Summary</h2><div id="summary"></div>
  <h2>Live sessions</h2><div id="sessions"></div>
  <h2>Recent memories</h2><div id="memories"></div>
  <h2>Open proposals</h2><div id="proposals"></div>
</div>
<script nonce="${nonce}">
(() => {
  "use strict";
  const KEY = "amem.apiKey";
  const $ = (id) => document.getElementById(id);
  const el = (tag, text) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = String(text); return e; };

  async function api(method, path) {
    const res = await fetch(path, { method, headers: { "x-api-key": sessionStorage.getItem(KEY) || "" } });
    const body = await res.json().catch(() => ({}));
    if (res.status === 401) { sessionStorage.removeItem(KEY); show(); }
    if (!res.ok) throw new Error(body.error || String(res.status));
    return body;
  }

  function table(headers, rows) {
    if (rows.length === 0) return el("p", "none");
    const t = el("table"); const head = el("tr");
    for (const h of headers) head.append(el("th", h));
    t.append(head);
    for (const cells of rows) {
      const tr = el("tr");
      for (const c of cells) { const td = el("td"); if (c instanceof Node) td.append(c); else td.textContent = c === null ? "—" : String(c); tr.append(td); }
      t.append(tr);
    }
    return t;
  }

  function counts(obj) { return Object.entries(obj).map(([k, v]) => k + " " + v).join(", "); }

  function renderSummary(s) {
    $("summary").replaceChildren(table(["", ""], [
      ["memories", "total " + s.memories.total + ", current " + s.memories.current + ", superseded " + s.memories.superseded + ", archived " + s.memories.archived],
      ["current by type", counts(s.memories.byType)],
      ["commitments", counts(s.commitments.byStatus)],
      ["sessions", "live " + s.sessions.live + ", closed " + s.sessions.closed + "; triage " + counts(s.sessions.byTriageStatus)],
      ["proposals", counts(s.proposals)],
      ["scopes", s.scopes], ["active API keys", s.apiKeys.active], ["last activity", s.lastActivityAt],
    ]));
  }

  function decideButton(id, action) {
    const b = el("button", action);
    b.type = "button";
    b.addEventListener("click", async () => {
      b.disabled = true;
      try { await api("POST", "/api/v1/proposals/" + encodeURIComponent(id) + "/" + action); await load(); }
      catch (e) { $("status").textContent = action + " failed: " + e.message; b.disabled = false; }
    });
    return b;
  }

  async function load() {
    $("status").textContent = "loading…";
    try {
      const [summary, sessions, memories, proposals] = await Promise.all([
        api("GET", "/api/dashboard/summary"),
        api("GET", "/api/v1/agent-sessions?state=live"),
        api("GET", "/api/v1/memories?limit=10"),
        api("GET", "/api/v1/proposals?status=proposed"),
      ]);
      renderSummary(summary);
      $("sessions").replaceChildren(table(["agent", "session", "project", "scope", "last seen", "triage"],
        sessions.items.map((r) => [r.agent, r.sessionId, r.project, r.scope, r.lastSeenAt, r.triageStatus])));
      $("memories").replaceChildren(table(["type", "topic", "content", "scope", "project", "created"],
        memories.items.map((m) => [m.memoryType, m.topic, m.content.length > 200 ? m.content.slice(0, 200) + "…" : m.content, m.scope, m.project, m.createdAt])));
      $("proposals").replaceChildren(table(["edge", "type", "from", "to", "similarity", "rationale", ""],
        proposals.proposals.map((p) => {
          const actions = el("span");
          actions.append(decideButton(p.id, "apply"), decideButton(p.id, "reject"));
          return [p.edgeType, p.memoryType, p.fromId, p.toId, p.similarity, p.rationale, actions];
        })));
      $("status").textContent = "updated " + new Date().toLocaleTimeString();
    } catch (e) {
      $("status").textContent = "error: " + e.message;
    }
  }

  function show() {
    const has = !!sessionStorage.getItem(KEY);
    $("login").hidden = has; $("app").hidden = !has;
    if (has) load();
  }

  $("login").addEventListener("submit", (ev) => { ev.preventDefault(); sessionStorage.setItem(KEY, $("key").value.trim()); $("key").value = ""; show(); });
  $("refresh").addEventListener("click", load);
  $("forget").addEventListener("click", () => { sessionStorage.removeItem(KEY); show(); });
  show();
})();
</script>
</body>
</html>
`;
}
