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

type LastMessage = { agent: string; sessionRunId: string; excerpt: string; excerptAt: string | null };

/**
 * The fleet: one row per agent (last seen, live runs, its last message) and the recent runs with
 * their triage status. The last message is a server-cut preview, rendered as text.
 */
export function Agents() {
  const runs = useLoad(
    () => api<{ items: Run[] }>("GET", `/api/v1/agent-sessions${query({ state: "all", limit: 100 })}`),
    "runs",
  );
  const excerpts = useLoad(() => api<{ items: LastMessage[] }>("GET", "/api/console/agents"), "excerpts");
  if (!runs.data) return <Page title="Agents">{runs.error ? <ErrorLine error={runs.error} /> : <Loading />}</Page>;
  const lastMessage = new Map((excerpts.data?.items ?? []).map((e) => [e.agent, e]));
  const byAgent = new Map<string, { lastSeen: string; live: number; runs: number }>();
  for (const r of runs.data.items) {
    const a = byAgent.get(r.agent) ?? { lastSeen: r.lastSeenAt, live: 0, runs: 0 };
    if (r.lastSeenAt > a.lastSeen) a.lastSeen = r.lastSeenAt;
    if (!r.closedAt) a.live++;
    a.runs++;
    byAgent.set(r.agent, a);
  }
  return (
    <Page title="Agents">
      <ErrorLine error={excerpts.error} />
      {byAgent.size === 0 ? (
        <p class="muted">No agent has opened a session yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="stacked">
            <caption>Agents</caption>
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Live runs</th>
                <th scope="col">Recent runs</th>
                <th scope="col">Last seen</th>
                <th scope="col">Last message</th>
              </tr>
            </thead>
            <tbody>
              {[...byAgent].map(([agent, a]) => {
                const said = lastMessage.get(agent);
                return (
                  <tr key={agent}>
                    <th scope="row">{agent}</th>
                    <td data-label="Live runs">{a.live}</td>
                    <td data-label="Recent runs">{a.runs}</td>
                    <td data-label="Last seen">
                      <When at={a.lastSeen} />
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
      <h2>Recent runs</h2>
      <div class="table-wrap">
        <table>
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
            {runs.data.items.map((r) => (
              <tr key={r.sessionRunId}>
                <td>
                  <Link href={`/app/agents/${r.sessionRunId}`}>{r.sessionId}</Link>
                </td>
                <td>{r.agent}</td>
                <td>{r.project ?? "—"}</td>
                <td>{r.closedAt ? "closed" : "live"}</td>
                <td>{r.triageStatus}</td>
                <td>
                  <When at={r.lastSeenAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Page>
  );
}

/** One run: what it is, its events and the memories it wrote. */
export function SessionRun({ id }: { id: string }) {
  const run = useLoad(() => api<Run>("GET", `/api/v1/agent-sessions/${encodeURIComponent(id)}`), id);
  const events = useLoad(
    () =>
      api<{ items: { id: string; memoryId: string; eventKind: string; createdAt: string }[] }>(
        "GET",
        `/api/v1/agent-sessions/${encodeURIComponent(id)}/events${query({ limit: 100 })}`,
      ),
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
      <ul>
        {events.data?.items.map((e) => (
          <li key={e.id}>
            {e.eventKind} <Link href={`/app/memories/${e.memoryId}`}>memory {e.memoryId.slice(0, 8)}</Link> ·{" "}
            <When at={e.createdAt} />
          </li>
        ))}
      </ul>
    </Page>
  );
}
