import { api } from "../api";
import { ErrorLine, Link, Loading, Page, useLoad, When } from "../ui";

type Summary = {
  memories: { total: number; current: number; superseded: number; archived: number; byType: Record<string, number> };
  commitments: { byStatus: Record<string, number> };
  sessions: { live: number; closed: number; byTriageStatus: Record<string, number> };
  proposals: Record<string, number>;
  scopes: number;
  apiKeys: { active: number };
  lastActivityAt: string | null;
};

/** The dashboard summary, as counts and bar charts. */
export function Overview() {
  const summary = useLoad(() => api<Summary>("GET", "/api/dashboard/summary"), "summary");
  if (!summary.data) return <Page title="Overview">{summary.error ? <ErrorLine error={summary.error} /> : <Loading />}</Page>;
  const s = summary.data;
  return (
    <Page title="Overview">
      <ul class="stats" aria-label="Totals">
        <Stat label="Current memories" value={s.memories.current} href="/app/memories" />
        <Stat label="Waiting proposals" value={s.proposals.proposed ?? 0} href="/app/proposals" />
        <Stat label="Live sessions" value={s.sessions.live} href="/app/agents" />
        <Stat label="Open commitments" value={s.commitments.byStatus.open ?? 0} href="/app/memories" />
        <Stat label="Scopes" value={s.scopes} href="/app/scopes" />
        <Stat label="Active API keys" value={s.apiKeys.active} href="/app/access" />
      </ul>
      <p class="muted">
        Last activity <When at={s.lastActivityAt} />
      </p>
      <div class="charts">
        <Bars title="Memories by type" data={s.memories.byType} />
        <Bars title="Commitments by status" data={s.commitments.byStatus} />
        <Bars title="Sessions by triage status" data={s.sessions.byTriageStatus} />
        <Bars
          title="Memory versions"
          data={{ current: s.memories.current, superseded: s.memories.superseded, archived: s.memories.archived }}
        />
      </div>
    </Page>
  );
}

function Stat({ label, value, href }: { label: string; value: number; href: string }) {
  return (
    <li class="stat">
      <Link href={href}>
        <span class="stat-value">{value.toLocaleString()}</span>
        <span class="stat-label">{label}</span>
      </Link>
    </li>
  );
}

/** A horizontal bar chart drawn as SVG; the same numbers are in its table for screen readers. */
function Bars({ title, data }: { title: string; data: Record<string, number> }) {
  const entries = Object.entries(data);
  const max = Math.max(1, ...entries.map(([, v]) => v));
  const row = 22;
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 300 ${entries.length * row}`} role="img" aria-label={title} preserveAspectRatio="none">
        {entries.map(([k, v], i) => (
          <g key={k}>
            <text x="0" y={i * row + 15} class="chart-label">
              {k}
            </text>
            <rect x="100" y={i * row + 4} width={Math.max(v > 0 ? 2 : 0, (v / max) * 160)} height={row - 8} class="chart-bar" />
            <text x={106 + (v / max) * 160} y={i * row + 15} class="chart-value">
              {String(v)}
            </text>
          </g>
        ))}
      </svg>
      <table class="visually-hidden">
        <caption>{title}</caption>
        <tbody>
          {entries.map(([k, v]) => (
            <tr key={k}>
              <th scope="row">{k}</th>
              <td>{v}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
