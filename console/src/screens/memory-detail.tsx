import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, ApiError, type Fact, type Memory } from "../api";
import { diffLines, foldUnchanged } from "../diff";
import { ErrorLine, Link, Loading, navigate, Page, useLoad, When } from "../ui";

type Detail = { memory: Memory; facts: Fact[]; commitment: { status: string; dueAt: string | null; moves: string[] } | null };
type History = {
  memories: Memory[];
  edges: { id: string; fromId: string; toId: string; edgeType: string; createdAt: string }[];
  events: { id: string; kind: string; memoryId: string; sessionRunId: string | null; actor: string; createdAt: string }[];
};

/** One memory: content, commitment status (legal moves only), the supersede history with diffs, actions. */
export function MemoryDetail({ id }: { id: string }) {
  const detail = useLoad(() => api<Detail>("GET", `/api/console/memories/${encodeURIComponent(id)}`), id);
  const history = useLoad(() => api<History>("GET", `/api/v1/memories/${encodeURIComponent(id)}/history`), id);
  const [revising, setRevising] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // A status change or an archive removes the button that was pressed: keyboard focus would fall to
  // the page's start. Once the memory has reloaded, it goes to the line that says what changed.
  const focusAfterReload = useRef<HTMLElement | null>(null);
  const statusLine = useRef<HTMLParagraphElement>(null);
  const metaLine = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (detail.loading || !focusAfterReload.current) return;
    focusAfterReload.current.focus();
    focusAfterReload.current = null;
  }, [detail.data, detail.loading]);

  if (detail.loading && !detail.data) return <Loading />;
  if (!detail.data)
    return (
      <Page title="Memory">
        <ErrorLine error={detail.error} />
      </Page>
    );
  const { memory: m, facts, commitment } = detail.data;
  const act = async (run: () => Promise<unknown>, then: HTMLElement | null) => {
    setError(null);
    try {
      await run();
      focusAfterReload.current = then;
      detail.reload();
      history.reload();
    } catch (e) {
      setError(e);
      // Refused as the memory changed elsewhere (another tab resolved or revised it): show it as it is now.
      if (e instanceof ApiError && e.status === 409) {
        detail.reload();
        history.reload();
      }
    }
  };

  return (
    <Page title={m.topic}>
      <p class="meta" ref={metaLine} tabIndex={-1}>
        <span class={`tag t-${m.memoryType}`}>{m.memoryType}</span> scope <strong>{m.scope}</strong>
        {m.project && (
          <>
            {" "}
            · project <strong>{m.project}</strong>
          </>
        )}{" "}
        · <span data-testid="memory-status">{m.validTo ? "superseded" : m.status}</span> · created <When at={m.createdAt} />
      </p>
      {m.tags.length > 0 && (
        <p>
          {m.tags.map((t) => (
            <span key={t} class="chip">
              {t}
            </span>
          ))}
        </p>
      )}
      <pre class="content" data-testid="memory-content" dir="auto">
        {m.content}
      </pre>
      {m.sessionRunId && (
        <p data-testid="written-in">
          Written in session run <Link href={`/app/agents/${m.sessionRunId}`}>{m.sessionRunId.slice(0, 8)}</Link>
        </p>
      )}
      {commitment && (
        <section class="panel" aria-labelledby="commitment-title">
          <h2 id="commitment-title">Commitment</h2>
          <p ref={statusLine} tabIndex={-1}>
            Status <strong data-testid="commitment-status">{commitment.status}</strong> · due <When at={commitment.dueAt} />
          </p>
          {!m.validTo && m.status === "active" && (
            <div class="row" role="group" aria-label="Change status">
              {commitment.moves.map((to) => (
                <button
                  key={to}
                  type="button"
                  onClick={() => act(() => api("POST", `/api/v1/memories/${m.id}/resolve`, { status: to }), statusLine.current)}
                >
                  Mark {to}
                </button>
              ))}
            </div>
          )}
        </section>
      )}
      {!m.validTo && m.status === "active" && (
        <div class="row actions">
          <button type="button" onClick={() => setRevising((r) => !r)} aria-expanded={revising}>
            Revise
          </button>
          <button
            type="button"
            class="danger"
            onClick={() => {
              if (confirm("Archive this memory? It stays in the history.")) void act(() => api("POST", `/api/v1/memories/${m.id}/archive`), metaLine.current);
            }}
          >
            Archive
          </button>
        </div>
      )}
      <ErrorLine error={error} />
      {/* Only while the memory can be revised: archived (or replaced) here, the form would only be refused. */}
      {revising && !m.validTo && m.status === "active" && <Revise memory={m} />}
      {facts.length > 0 && <FactsView facts={facts} />}
      {/* A history that did not load says so, instead of its section vanishing. */}
      {history.data ? null : <ErrorLine error={history.error} />}
      <HistoryView history={history.data} current={m.id} />
    </Page>
  );
}

/** The facts the memory stated: subject, predicate, value and when each holds (world time). */
function FactsView({ facts }: { facts: Fact[] }) {
  return (
    <section aria-labelledby="facts-title">
      <h2 id="facts-title">Facts</h2>
      <div class="table-wrap">
        <table data-testid="memory-facts">
          <caption class="visually-hidden">Facts this memory states</caption>
          <thead>
            <tr>
              <th scope="col">Subject</th>
              <th scope="col">Predicate</th>
              <th scope="col">Value</th>
              <th scope="col">Holds</th>
            </tr>
          </thead>
          <tbody>
            {facts.map((f) => (
              <tr key={f.id} class={f.retractedAt ? "retracted" : undefined}>
                <td>{f.subject}</td>
                <td>{f.predicate}</td>
                <td>{f.value}</td>
                <td>
                  from <When at={f.validFrom} />
                  {f.validTo && (
                    <>
                      {" "}
                      until <When at={f.validTo} />
                    </>
                  )}
                  {f.retractedAt && <span class="chip">retracted</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Revise({ memory }: { memory: Memory }) {
  const [topic, setTopic] = useState(memory.topic);
  const [content, setContent] = useState(memory.content);
  const [edgeType, setEdgeType] = useState("supersedes");
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      const next = await api<{ memory: Memory } | Memory>("POST", `/api/v1/memories/${memory.id}/revise`, {
        topic,
        content,
        edgeType,
      });
      const successor = "memory" in next ? next.memory : next;
      navigate(`/app/memories/${successor.id}`);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="panel stack" aria-label="Revise memory" onSubmit={submit}>
      <h2>Revise</h2>
      <p class="muted">Saving writes a successor; this version stays in the history.</p>
      <label>
        Topic
        <input name="topic" required maxLength={256} value={topic} onInput={(e) => setTopic(e.currentTarget.value)} />
      </label>
      <label>
        Content
        <textarea
          name="content"
          required
          rows={6}
          maxLength={8000}
          value={content}
          onInput={(e) => setContent(e.currentTarget.value)}
        />
      </label>
      <label>
        Relation
        <select name="edgeType" value={edgeType} onChange={(e) => setEdgeType(e.currentTarget.value)}>
          <option value="supersedes">supersedes (replaces)</option>
          <option value="updates">updates (refines)</option>
        </select>
      </label>
      <ErrorLine error={error} />
      <button type="submit" class="primary">
        Save revision
      </button>
    </form>
  );
}

function HistoryView({ history, current }: { history: History | undefined; current: string }) {
  // Each adjacent pair is diffed once per loaded history, not on every render of the screen (a
  // click on Revise re-renders it): a long memory's diff is bounded, not free.
  const versions = useMemo(
    () => (history ? [...history.memories].sort((a, b) => a.recordedAt.localeCompare(b.recordedAt)) : []),
    [history],
  );
  const diffs = useMemo(
    () => versions.map((v, i) => (i > 0 ? foldUnchanged(diffLines(versions[i - 1]!.content, v.content)) : null)),
    [versions],
  );
  if (!history) return null;
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      <ol class="history" data-testid="history">
        {versions.map((v, i) => {
          const diff = diffs[i];
          return (
            <li key={v.id} class={v.id === current ? "current" : undefined}>
              <p>
                <Link href={`/app/memories/${v.id}`}>{v.topic}</Link> · <When at={v.recordedAt} />
                {v.id === current && <span class="chip">this version</span>}
                {v.validTo && <span class="chip">superseded</span>}
              </p>
              {diff && (
                <pre class="diff" aria-label={`Changes from the previous version`}>
                  {diff.map((d, k) =>
                    d.kind === "folded" ? (
                      <span key={k} class="folded">
                        {`  ⋯ ${d.count.toLocaleString()} unchanged lines\n`}
                      </span>
                    ) : (
                      <span key={k} class={d.kind}>
                        {d.kind === "added" ? "+ " : d.kind === "removed" ? "- " : "  "}
                        {d.text}
                        {"\n"}
                      </span>
                    ),
                  )}
                </pre>
              )}
            </li>
          );
        })}
      </ol>
      {history.events.length > 0 && (
        <details>
          <summary>Events ({history.events.length})</summary>
          <ul>
            {history.events.map((e) => (
              <li key={e.id}>
                {e.kind} by {e.actor} · <When at={e.createdAt} />
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
