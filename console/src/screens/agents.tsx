import { useState } from "preact/hooks";
import { api, query } from "../api";
import { ErrorLine, Link, Loading, Page, useLoad, When } from "../ui";

type Run = {
  sessionRunId: string;
  agent: string;
  sessionId: string;
  source: string;
  project: string | null;
  scope: string | null;
  openedAt: string;
  lastSeenAt: string;
  closedAt: string | null;
  triageStatus: string;
};

type Fleet = {
  items: {
    agent: string;
    lastSeenAt: string;
    liveRuns: number;
    recentRuns: number;
    lastMessage: { sessionRunId: string; excerpt: string; excerptAt: string | null } | null;
  }[];
  truncated: boolean;
};

/**
 * The fleet: one row per agent (last seen, live runs, runs this week, its last message), served
 * per agent by the api whatever the age of its last run, and the recent runs with their triage
 * status. The last message is a server-cut preview, rendered as text.
 */
/** A page of runs as GET /api/v1/agent-sessions lists them, most recent first. */
type RunPage = { items: Run[]; nextCursor: string | null };
const runPage = (cursor: string | null) =>
  api<RunPage>("GET", `/api/v1/agent-sessions${query({ state: "all", limit: 100, cursor })}`);

export function Agents() {
  const runs = useLoad(() => runPage(null), "runs");
  // Older runs, page by page: a fleet's first 100 runs hid every run before them, and with them
  // the only link to an agent's runs (a probe's find). Undefined: continue the first page.
  const [older, setOlder] = useState<RunPage | undefined>(undefined);
  const [olderError, setOlderError] = useState<unknown>(null);
  const nextCursor = older ? older.nextCursor : (runs.data?.nextCursor ?? null);
  const loadOlder = async () => {
    setOlderError(null);
    try {
      const page = await runPage(nextCursor);
      setOlder((shown) => ({ items: [...(shown?.items ?? []), ...page.items], nextCursor: page.nextCursor }));
    } catch (e) {
      setOlderError(e);
    }
  };
  const fleet = useLoad(() => api<Fleet>("GET", "/api/console/agents"), "fleet");
  if (!fleet.data || !runs.data)
    return <Page title="Agents">{fleet.error || runs.error ? <ErrorLine error={fleet.error ?? runs.error} /> : <Loading />}</Page>;
  return (
    <Page title="Agents">
      {fleet.data.items.length === 0 ? (
        <p class="muted">No agent has opened a session yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="stacked" data-testid="fleet">
            <caption>Agents, most recently seen first</caption>
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Live runs</th>
                <th scope="col">Runs (7 days)</th>
                <th scope="col">Last seen</th>
                <th scope="col">Last message</th>
              </tr>
            </thead>
            <tbody>
              {fleet.data.items.map((a) => {
                const said = a.lastMessage;
                return (
                  <tr key={a.agent}>
                    <th scope="row">{a.agent}</th>
                    <td data-label="Live runs">{a.liveRuns}</td>
                    <td data-label="Runs (7 days)">{a.recentRuns}</td>
                    <td data-label="Last seen">
                      <When at={a.lastSeenAt} />
                    </td>
                    <td class="last-message" data-testid="last-message" data-label="Last message">
                      {said ? (
                        <>
                          <q>{said.excerpt}</q>{" "}
                          <Link href={`/app/agents/${said.sessionRunId}`} class="muted">
                            <When at={said.excerptAt} />
                          </Link>
                        </>
                      ) : (
                        <span class="muted">—</span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {fleet.data.truncated ? (
        <p class="muted" data-testid="fleet-truncated">
          More than 1,000 agent names: this list ranks the first 1,000 by name.
        </p>
      ) : null}
      <h2>Recent runs</h2>
      <div class="table-wrap">
        <table class="stacked" data-testid="runs">
          <caption>Session runs, most recent first</caption>
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Agent</th>
              <th scope="col">Project</th>
              <th scope="col">State</th>
              <th scope="col">Triage</th>
              <th scope="col">Last seen</th>
            </tr>
          </thead>
          <tbody>
            {[...runs.data.items, ...(older?.items ?? [])].map((r) => (
              <tr key={r.sessionRunId}>
                <th scope="row">
                  <Link href={`/app/agents/${r.sessionRunId}`}>{r.sessionId}</Link>
                </th>
                <td data-label="Agent">{r.agent}</td>
                <td data-label="Project">{r.project ?? "—"}</td>
                <td data-label="State">{r.closedAt ? "closed" : "live"}</td>
                <td data-label="Triage">{r.triageStatus}</td>
                <td data-label="Last seen">
                  <When at={r.lastSeenAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ErrorLine error={olderError} />
      {nextCursor ? (
        <button type="button" onClick={loadOlder}>
          More
        </button>
      ) : null}
    </Page>
  );
}

/** One run: what it is, its events and the memories it wrote. */
export function SessionRun({ id }: { id: string }) {
  const run = useLoad(() => api<Run>("GET", `/api/v1/agent-sessions/${encodeURIComponent(id)}`), id);
  const events = useLoad(
    () =>
      api<{
        items: {
          id: string;
          memoryId: string;
          eventKind: string;
          createdAt: string;
          memory: { topic: string; memoryType: string };
        }[];
        nextCursor: string | null;
      }>("GET", `/api/console/agent-sessions/${encodeURIComponent(id)}/events${query({ limit: 100 })}`),
    id,
  );
  if (!run.data) return <Page title="Session run">{run.error ? <ErrorLine error={run.error} /> : <Loading />}</Page>;
  const r = run.data;
  return (
    <Page title={`${r.agent} · ${r.sessionId}`}>
      <dl class="facts">
        <dt>Source</dt>
        <dd>{r.source}</dd>
        <dt>Project</dt>
        <dd>{r.project ?? "—"}</dd>
        <dt>Scope</dt>
        <dd>{r.scope ?? "—"}</dd>
        <dt>Opened</dt>
        <dd>
          <When at={r.openedAt} />
        </dd>
        <dt>Last seen</dt>
        <dd>
          <When at={r.lastSeenAt} />
        </dd>
        <dt>Closed</dt>
        <dd>
          <When at={r.closedAt} />
        </dd>
        <dt>Triage</dt>
        <dd>{r.triageStatus}</dd>
      </dl>
      <h2>Events and memories written</h2>
      <ErrorLine error={events.error} />
      {events.data && events.data.items.length === 0 && <p class="muted">This run wrote nothing.</p>}
      <ul data-testid="run-events">
        {events.data?.items.map((e) => (
          <li key={e.id}>
            {e.eventKind} <Link href={`/app/memories/${e.memoryId}`}>{e.memory.topic}</Link>{" "}
            <span class={`tag t-${e.memory.memoryType}`}>{e.memory.memoryType}</span> · <When at={e.createdAt} />
          </li>
        ))}
      </ul>
      {events.data?.nextCursor && <p class="muted">The run's first 100 events.</p>}
    </Page>
  );
}
