import { useState } from "preact/hooks";
import { api, MEMORY_TYPES } from "../api";
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
        <Stat
          label="Open commitments"
          value={s.commitments.byStatus.open ?? 0}
          href="/app/memories?memoryType=commitment"
        />
        <Stat label="Scopes" value={s.scopes} href="/app/scopes" />
        <Stat label="Active API keys" value={s.apiKeys.active} href="/app/access" />
      </ul>
      <p class="muted">
        Last activity <When at={s.lastActivityAt} />
      </p>
      <Activity />
      <section aria-labelledby="totals-title">
        <h2 id="totals-title">All time</h2>
        <div class="charts charts-pairs">
          <Bars title="Memories by type" data={s.memories.byType} />
          <Bars
            title="Memory versions"
            data={{ current: s.memories.current, superseded: s.memories.superseded, archived: s.memories.archived }}
          />
          <Bars title="Commitments by status" data={s.commitments.byStatus} />
          <Bars title="Sessions by triage status" data={s.sessions.byTriageStatus} />
        </div>
      </section>
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

/**
 * The bar charts' drawing width: the SVG scales with its card, so its 12px text stays near 12px
 * only if this is close to the width it is shown at (a phone's card is about this wide; the stylesheet caps it at 380px on wider ones).
 */
const BARS_WIDTH = 340;

/** A horizontal bar chart drawn as SVG; the same numbers are in its table for screen readers. */
function Bars({ title, data }: { title: string; data: Record<string, number> }) {
  const entries = Object.entries(data);
  const max = Math.max(1, ...entries.map(([, v]) => v));
  const row = 22;
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <svg
        viewBox={`0 0 ${BARS_WIDTH} ${entries.length * row}`}
        role="img"
        aria-label={title}
        preserveAspectRatio="none"
        class="bars"
      >
        {entries.map(([k, v], i) => (
          <g key={k}>
            <text x="0" y={i * row + 15} class="chart-label">
              {k}
            </text>
            <rect x="100" y={i * row + 4} width={Math.max(v > 0 ? 2 : 0, (v / max) * 200)} height={row - 8} class="chart-bar" />
            <text x={106 + (v / max) * 200} y={i * row + 15} class="chart-value">
              {String(v)}
            </text>
          </g>
        ))}
      </svg>
      <div class="visually-hidden">
        <table>
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
      </div>
    </figure>
  );
}

type ActivityData = {
  days: string[];
  memories: { day: string; memoryType: string; count: number }[];
  sessions: { day: string; agent: string; triageStatus: string; count: number }[];
  commitments: { overdue: number; thisWeek: number; later: number; noDueDate: number };
};

/** Per-day charts over a chosen range, from the aggregate endpoint (daily counts, not memories). */
function Activity() {
  const [days, setDays] = useState("30");
  const data = useLoad(() => api<ActivityData>("GET", `/api/console/activity?days=${days}`), days);
  const a = data.data;
  return (
    <section aria-labelledby="activity-title">
      <div class="page-head">
        <h2 id="activity-title">Activity</h2>
        <label class="inline">
          Range
          <select name="days" value={days} onChange={(e) => setDays(e.currentTarget.value)}>
            <option value="7">7 days</option>
            <option value="30">30 days</option>
            <option value="90">90 days</option>
          </select>
        </label>
      </div>
      <ErrorLine error={data.error} />
      {!a ? (
        <Loading />
      ) : (
        // Two per row at desktop width (the per-day charts side by side, then the runs' outcomes
        // beside the commitments), one per row on a phone: four cards never leave one alone.
        <div class="charts charts-pairs">
          <Columns
            title="Memories written per day, by type"
            days={a.days}
            rows={a.memories.map((m) => ({ day: m.day, series: m.memoryType, count: m.count }))}
            order={MEMORY_TYPES}
            empty="No memories written in this range."
          />
          <Columns
            title="Agent runs per day, by agent"
            days={a.days}
            rows={a.sessions.map((r) => ({ day: r.day, series: r.agent, count: r.count }))}
            empty="No agent runs in this range."
          />
          <TriageTable sessions={a.sessions} />
          <Bars
            title="Open commitments by due date"
            data={{
              overdue: a.commitments.overdue,
              "next 7 days": a.commitments.thisWeek,
              later: a.commitments.later,
              "no due date": a.commitments.noDueDate,
            }}
          />
        </div>
      )}
    </section>
  );
}

/** Stacked day columns (SVG; colours from the stylesheet), with the same numbers in a hidden table. */
function Columns({
  title,
  days,
  rows,
  order,
  empty,
}: {
  title: string;
  days: string[];
  rows: { day: string; series: string; count: number }[];
  order?: string[];
  /** Said instead of the chart when the range holds nothing (an empty chart would read "peak 1"). */
  empty: string;
}) {
  const series = order ? order.filter((s) => rows.some((r) => r.series === s)) : [...new Set(rows.map((r) => r.series))];
  const at = new Map(rows.map((r) => [`${r.day}|${r.series}`, r.count]));
  const totals = days.map((d) => series.reduce((sum, s) => sum + (at.get(`${d}|${s}`) ?? 0), 0));
  const peak = Math.max(0, ...totals);
  const max = Math.max(1, peak);
  const width = 300;
  const height = 120;
  const step = width / days.length;
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      {peak === 0 ? (
        <p class="muted">{empty}</p>
      ) : (
        <>
          <svg
            viewBox={`0 0 ${width} ${height}`}
            role="img"
            aria-label={`${title}: ${totals.reduce((a, b) => a + b, 0)} in the range`}
          >
            {days.map((d, i) => {
              let y = height;
              return series.map((s, k) => {
                const n = at.get(`${d}|${s}`) ?? 0;
                const h = (n / max) * (height - 4);
                y -= h;
                return n > 0 ? (
                  <rect key={`${d}${s}`} x={i * step + step * 0.1} y={y} width={step * 0.8} height={h} class={`series-${k % 8}`}>
                    <title>{`${d} · ${s}: ${n}`}</title>
                  </rect>
                ) : null;
              });
            })}
          </svg>
          <p class="legend">
            {series.map((s, k) => (
              <span key={s} class="legend-item">
                <span class={`swatch series-${k % 8}`} aria-hidden="true" />
                {s}
              </span>
            ))}
          </p>
        </>
      )}
      <p class="muted axis">
        {days[0]} – {days[days.length - 1]}
        {peak > 0 ? ` · peak ${peak} a day` : ""}
      </p>
      <div class="visually-hidden">
        <table>
          <caption>{title}</caption>
          <tbody>
            {days.map((d, i) =>
              totals[i] ? (
                <tr key={d}>
                  <th scope="row">{d}</th>
                  <td>{series.map((s) => `${s} ${at.get(`${d}|${s}`) ?? 0}`).join(", ")}</td>
                </tr>
              ) : null,
            )}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

function TriageTable({ sessions }: { sessions: ActivityData["sessions"] }) {
  const byAgent = new Map<string, Record<string, number>>();
  for (const r of sessions) {
    const row = byAgent.get(r.agent) ?? {};
    row[r.triageStatus] = (row[r.triageStatus] ?? 0) + r.count;
    byAgent.set(r.agent, row);
  }
  const statuses = ["idle", "pending", "completed", "expired", "overflowed"];
  return (
    <figure class="chart">
      <figcaption>Triage outcomes of the range's runs</figcaption>
      {byAgent.size === 0 ? (
        <p class="muted">No runs in this range.</p>
      ) : (
        <div class="table-wrap">
          {/* Six columns do not fit a phone: stacked there, one block per agent (a probe saw it cut off at 375 px). */}
          <table class="stacked">
            <thead>
              <tr>
                <th scope="col">Agent</th>
                {statuses.map((s) => (
                  <th key={s} scope="col">
                    {s}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {[...byAgent].map(([agent, row]) => (
                <tr key={agent}>
                  <th scope="row">{agent}</th>
                  {statuses.map((s) => (
                    <td key={s} data-label={s}>
                      {row[s] ?? 0}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </figure>
  );
}
