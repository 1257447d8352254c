import { useEffect, useRef, useState } from "preact/hooks";
import { api, type Fact, type Memory, query } from "../api";
import { ErrorLine, keepInAddress, Link, Loading, Page, useLoad, When } from "../ui";

type Proposal = {
  id: string;
  fromId: string;
  toId: string;
  edgeType?: string;
  memoryType?: string;
  rationale: string;
  similarity: number;
  status: string;
  createdAt: string;
  decidedAt: string | null;
  /** As the console lists them, proposals carry both sides: memories, or a fact proposal's facts. */
  from?: Memory | Fact;
  to?: Memory | Fact;
};
type Kind = "memory" | "fact";
/** Where a proposal is decided (apply / reject). */
const PATHS: Record<Kind, string> = { memory: "/api/v1/proposals", fact: "/api/v1/fact-proposals" };
/** Where the queue is read: each proposal with both sides in one answer, not two reads per card. */
const LISTS: Record<Kind, string> = { memory: "/api/console/proposals", fact: "/api/console/fact-proposals" };

/**
 * The consolidation queue (SPEC §7): both sides of each proposal, similarity and rationale;
 * apply / reject by button or keyboard (j/k move, a apply, r reject).
 */
/** The most the api lists at once (SPEC §4.7: a limit of 1–100, no cursor). */
const PROPOSALS_SHOWN = 100;

export function Proposals() {
  // Kind and status ride in the address, so Back from a memory and reload return to them.
  const [kind, setKind] = useState<Kind>(() => (new URLSearchParams(location.search).get("kind") === "fact" ? "fact" : "memory"));
  const [status, setStatus] = useState(() => new URLSearchParams(location.search).get("status") ?? "proposed");
  useEffect(() => {
    keepInAddress("/app/proposals", {
      kind: kind === "fact" ? kind : undefined,
      status: status === "proposed" ? undefined : status,
    });
  }, [kind, status]);
  const list = useLoad(
    () => api<{ proposals: Proposal[] }>("GET", `${LISTS[kind]}${query({ status, limit: PROPOSALS_SHOWN })}`),
    `${kind}|${status}`,
  );
  const [selected, setSelected] = useState(0);
  const [error, setError] = useState<unknown>(null);
  // Decided here: hidden from the waiting list at once, before the reload answers.
  const [decided, setDecided] = useState<ReadonlySet<string>>(new Set());
  const items = (list.data?.proposals ?? []).filter((p) => !(p.status === "proposed" && decided.has(p.id)));

  // Decisions sent and not yet answered: a second `a` pressed meanwhile sends nothing (it got 409,
  // and the screen said the change was not allowed, though the first one was). A ref, not state:
  // the key listener reads it before any render.
  const deciding = useRef(new Set<string>());
  const decide = async (p: Proposal | undefined, verdict: "apply" | "reject") => {
    if (!p || p.status !== "proposed" || decided.has(p.id) || deciding.current.has(p.id)) return;
    deciding.current.add(p.id);
    setError(null);
    try {
      await api("POST", `${PATHS[kind]}/${p.id}/${verdict}`);
      setDecided((d) => new Set(d).add(p.id));
      list.reload();
    } catch (e) {
      setError(e);
    } finally {
      deciding.current.delete(p.id);
    }
  };

  // The listener is registered once and reads the latest list through a ref: a listener closed
  // over an earlier render could act on a proposal already decided (effects run after paint).
  const latest = useRef({ items, selected, decide });
  latest.current = { items, selected, decide };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (e.ctrlKey || e.metaKey || e.altKey || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return;
      const { items: now, selected: at, decide: act } = latest.current;
      if (e.key === "j") setSelected(Math.min(at + 1, now.length - 1));
      else if (e.key === "k") setSelected(Math.max(at - 1, 0));
      else if (e.key === "a") void act(now[at], "apply");
      else if (e.key === "r") void act(now[at], "reject");
      else return;
      e.preventDefault();
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);
  useEffect(() => {
    if (selected >= items.length) setSelected(Math.max(0, items.length - 1));
  }, [items.length]);
  // The card j/k moved to comes into view: `a` and `r` act on it, so it must be seen (a probe's
  // twelfth j selected a card 3,700 px below the window, and `a` applied it unseen).
  const cardList = useRef<HTMLOListElement>(null);
  useEffect(() => {
    cardList.current?.querySelector("li.selected")?.scrollIntoView({ block: "nearest" });
  }, [selected]);

  return (
    <Page title="Proposals">
      <div class="row filters">
        <label>
          Kind
          <select name="kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
            <option value="memory">memory proposals</option>
            <option value="fact">fact proposals</option>
          </select>
        </label>
        <label>
          Status
          <select name="status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="proposed">waiting</option>
            <option value="applied">applied</option>
            <option value="rejected">rejected</option>
          </select>
        </label>
        <p class="muted keys" id="proposal-keys">
          Keys: <kbd>j</kbd>/<kbd>k</kbd> move, <kbd>a</kbd> apply, <kbd>r</kbd> reject
        </p>
      </div>
      <ErrorLine error={error ?? list.error} />
      {list.loading && !list.data ? (
        <Loading />
      ) : items.length === 0 ? (
        <p class="muted">Nothing here.</p>
      ) : (
        <ol ref={cardList} class="cards" aria-label="Proposals" aria-describedby="proposal-keys">
          {items.map((p, i) => (
            <li key={p.id} class={`card proposal${i === selected ? " selected" : ""}`} aria-current={i === selected ? "true" : undefined}>
              <p class="meta">
                <strong>{p.edgeType ?? "replaces"}</strong> · similarity <span class="score">{p.similarity.toFixed(3)}</span> ·{" "}
                <When at={p.createdAt} /> · {p.status}
              </p>
              <p class="rationale">{p.rationale}</p>
              {kind === "memory" ? (
                <div class="sides">
                  <Side memory={p.from as Memory | undefined} label="From" />
                  <Side memory={p.to as Memory | undefined} label="Into" />
                </div>
              ) : (
                <div class="sides">
                  {/* Applying retracts the older fact (`to`) in favour of the newer (`from`): SPEC §7. */}
                  <FactSide fact={p.from as Fact | undefined} label="Newer · kept" />
                  <FactSide fact={p.to as Fact | undefined} label="Older · retracted if applied" />
                </div>
              )}
              {p.status === "proposed" && (
                <div class="row">
                  <button type="button" class="primary" onClick={() => decide(p, "apply")}>
                    Apply
                  </button>
                  <button type="button" onClick={() => decide(p, "reject")}>
                    Reject
                  </button>
                </div>
              )}
            </li>
          ))}
        </ol>
      )}
      {(list.data?.proposals.length ?? 0) >= PROPOSALS_SHOWN ? (
        <p class="muted" data-testid="proposals-truncated">
          The {PROPOSALS_SHOWN} newest are shown: each one decided makes room for the next.
        </p>
      ) : null}
    </Page>
  );
}

function Side({ memory, label }: { memory: Memory | undefined; label: string }) {
  if (!memory) return null;
  return (
    <div class="side">
      <p class="muted">{label}</p>
      <Link href={`/app/memories/${memory.id}`}>{memory.topic}</Link>
      <p class="excerpt">{memory.content}</p>
    </div>
  );
}

/** One fact of a fact proposal: subject, predicate, value, when it holds, and the memory that stated it. */
function FactSide({ fact, label }: { fact: Fact | undefined; label: string }) {
  if (!fact) return null;
  return (
    <div class="side fact-side">
      <p class="muted">{label}</p>
      <p class="fact-statement">
        <strong>{fact.subject}</strong> <span class="predicate">{fact.predicate}</span> <strong>{fact.value}</strong>
      </p>
      <p class="meta">
        holds from <When at={fact.validFrom} />
        {fact.validTo && (
          <>
            {" "}
            until <When at={fact.validTo} />
          </>
        )}
        {fact.retractedAt && <span> · retracted</span>}
        {fact.memoryId && (
          <>
            {" "}
            · <Link href={`/app/memories/${fact.memoryId}`}>its memory</Link>
          </>
        )}
      </p>
    </div>
  );
}
