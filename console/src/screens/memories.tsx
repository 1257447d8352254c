import { useEffect, useRef, useState } from "preact/hooks";
import { api, type Memory, MEMORY_TYPES, query } from "../api";
import { ErrorLine, keepInAddress, Link, Loading, navigate, Page, When } from "../ui";

type Filters = {
  memoryType: string;
  scope: string;
  project: string;
  /** active (default), archived, or "" for either. */
  status: string;
  /** The supersede axis, apart from status: current (default), all or superseded (shared/core/console/memories.ts). */
  versions: string;
  tag: string;
  /** Calendar days (yyyy-mm-dd, the person's own time zone), both inclusive. */
  from: string;
  to: string;
};
const EMPTY: Filters = {
  memoryType: "",
  scope: "",
  project: "",
  status: "active",
  versions: "current",
  tag: "",
  from: "",
  to: "",
};
type Row = { memory: Memory; score?: number };

/** Local midnight of a yyyy-mm-dd day, `plusDays` later, as the API's UTC timestamp. */
function dayStart(day: string, plusDays = 0): string {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  return new Date(y, m - 1, d + plusDays).toISOString();
}

/**
 * The list's query: the days picked become the API's half-open range, [start of "from", start of
 * the day after "to"), so "to" includes its whole day.
 */
function listQuery(f: Filters) {
  const { from, to, ...rest } = f;
  return {
    ...rest,
    createdFrom: from ? dayStart(from) : undefined,
    createdBefore: to ? dayStart(to, 1) : undefined,
  };
}

/** Where the screen lives; its search and filters ride in the address's query. */
const SCREEN = "/app/memories";

/**
 * The search and filters an address holds (`?q=…&memoryType=…`; a status of either is `any`):
 * back from a memory, forward and reload return to them, and a link can open the list filtered.
 */
function askedFrom(address: string): { search: string; filters: Filters } {
  const params = new URLSearchParams(address);
  const filters = { ...EMPTY };
  for (const key of Object.keys(EMPTY) as (keyof Filters)[]) {
    const value = params.get(key);
    if (value !== null) filters[key] = key === "status" && value === "any" ? "" : value;
  }
  return { search: params.get("q") ?? "", filters };
}

/** The address's query of a search and filters: only what differs from the defaults. */
function addressOf(asked: { search: string; filters: Filters }): Record<string, string> {
  const params: Record<string, string> = {};
  if (asked.search.trim() !== "") params.q = asked.search;
  for (const key of Object.keys(EMPTY) as (keyof Filters)[])
    if (asked.filters[key] !== EMPTY[key]) params[key] = asked.filters[key] === "" ? "any" : asked.filters[key];
  return params;
}

/** The list (cursor pages), the search box (the service's ranking, scores shown) and create. */
export function Memories() {
  const [initial] = useState(() => askedFrom(location.search));
  const [filters, setFilters] = useState<Filters>(initial.filters);
  const [search, setSearch] = useState(initial.search);
  const [rows, setRows] = useState<Row[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [mode, setMode] = useState<"list" | "search">("list");
  const [error, setError] = useState<unknown>(null);
  const [creating, setCreating] = useState(false);

  /**
   * The search and filters behind the rows on screen: "More" continues them, whatever the form
   * holds since (a cursor answers only the query that issued it).
   */
  const [shown, setShown] = useState<{ search: string; filters: Filters }>({ search: "", filters: EMPTY });
  const listPage = (f: Filters, after: string | null) =>
    api<{ items: Memory[]; nextCursor: string | null }>(
      "GET",
      `/api/console/memories${query({ ...listQuery(f), limit: 50, cursor: after })}`,
    );
  const searchPage = (text: string, f: Filters, after: string | null) =>
    api<{ items: { memory: Memory; score: number }[]; nextCursor: string | null }>("POST", "/api/console/search", {
      query: text,
      ...(f.scope ? { scope: f.scope } : {}),
      ...(f.project ? { project: f.project } : {}),
      ...(f.memoryType ? { memoryTypes: [f.memoryType] } : {}),
      ...(f.status ? { status: f.status } : {}),
      versions: f.versions,
      limit: 25,
      ...(after ? { cursor: after } : {}),
    });

  const searching = search.trim() !== "";
  /** While searching, the fields search cannot apply point at the line saying so. */
  const hint = searching ? "search-filters-hint" : undefined;
  const badRange = filters.from !== "" && filters.to !== "" && filters.to < filters.from;
  // Only the latest load's answer is shown: a slow search answered after a newer one put its
  // results (and address) under the newer query (a probe's find). A ref: read when each answer lands.
  const latestLoad = useRef(0);
  const load = async (more: boolean) => {
    setError(null);
    const asked = more ? shown : { search, filters };
    const searchingAsked = asked.search.trim() !== "";
    if (!more && badRange && !searching) return;
    const ticket = ++latestLoad.current;
    try {
      const after = more ? cursor : null;
      const page = searchingAsked
        ? await searchPage(asked.search, asked.filters, after)
        : await listPage(asked.filters, after).then((p) => ({
            nextCursor: p.nextCursor,
            items: p.items.map((memory) => ({ memory })),
          }));
      if (ticket !== latestLoad.current) return;
      // The address holds what is shown.
      if (!more) keepInAddress(SCREEN, addressOf(asked));
      // Mode and rows change together: a list never shows under the search results' label.
      setMode(searchingAsked ? "search" : "list");
      setShown(asked);
      setRows((r) => (more && r ? [...r, ...page.items] : page.items));
      setCursor(page.nextCursor);
    } catch (e) {
      if (ticket !== latestLoad.current) return;
      setError(e);
      // A failed new query empties the list and its "More": that cursor continues the query before
      // it, and showed its page under the refused filters (a probe's find).
      if (!more) {
        setRows([]);
        setCursor(null);
      }
    }
  };
  // A reload asked for by a state change (a tag chip): runs after the render that holds the new filters.
  const [reloads, setReloads] = useState(0);
  useEffect(() => {
    void load(false);
  }, [reloads]);
  /** A tag chip: list this tag's memories (a search cannot filter by tag, so it is cleared). */
  const filterByTag = (tag: string) => {
    setSearch("");
    setFilters((f) => ({ ...f, tag }));
    setReloads((n) => n + 1);
  };

  const set = (k: keyof Filters) => (e: Event) =>
    setFilters((f) => ({ ...f, [k]: (e.currentTarget as HTMLInputElement).value }));

  return (
    <Page
      title="Memories"
      actions={
        <button type="button" class="primary" onClick={() => setCreating((c) => !c)} aria-expanded={creating}>
          New memory
        </button>
      }
    >
      {creating && <CreateMemory />}
      <form
        class="filters"
        role="search"
        aria-label="Find memories"
        onSubmit={(e) => {
          e.preventDefault();
          void load(false);
        }}
      >
        <label class="grow">
          Search
          <input
            type="search"
            name="q"
            placeholder="words, &quot;a phrase&quot;, -exclude"
            maxLength={1000}
            value={search}
            onInput={(e) => setSearch(e.currentTarget.value)}
          />
        </label>
        <label>
          Type
          <select name="memoryType" value={filters.memoryType} onChange={set("memoryType")}>
            <option value="">any</option>
            {MEMORY_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          Scope
          <input name="scope" value={filters.scope} onInput={set("scope")} size={10} />
        </label>
        <label>
          Project
          <input name="project" value={filters.project} onInput={set("project")} size={10} />
        </label>
        <label>
          Status
          <select name="status" value={filters.status} onChange={set("status")}>
            <option value="active">active</option>
            <option value="archived">archived</option>
            <option value="">any</option>
          </select>
        </label>
        <label>
          Versions
          <select name="versions" value={filters.versions} onChange={set("versions")}>
            <option value="current">current only</option>
            <option value="all">all versions</option>
            <option value="superseded">superseded only</option>
          </select>
        </label>
        <label>
          Tag
          <input name="tag" value={filters.tag} onInput={set("tag")} size={10} disabled={searching} aria-describedby={hint} maxLength={64} />
        </label>
        <label>
          Created from
          <input type="date" name="from" value={filters.from} onInput={set("from")} disabled={searching} aria-describedby={hint} />
        </label>
        <label>
          Created to
          <input type="date" name="to" value={filters.to} onInput={set("to")} disabled={searching} aria-describedby={hint} />
        </label>
        <button type="submit">Apply</button>
        {searching && (
          <p class="muted hint" id="search-filters-hint">
            Search ranks by words; tag and dates filter the list without a search.
          </p>
        )}
      </form>
      {badRange && !searching && (
        <p class="error" role="alert">
          "Created to" is before "Created from".
        </p>
      )}
      <ErrorLine error={error} />
      {rows === null ? (
        <Loading />
      ) : rows.length === 0 ? (
        <p class="muted">No memories match.</p>
      ) : (
        <ul class="cards" aria-label={mode === "search" ? "Search results" : "Memories"}>
          {rows.map(({ memory: m, score }) => (
            <li key={m.id} class="card">
              <div class="card-head">
                <Link href={`/app/memories/${m.id}`}>{m.topic}</Link>
                {score !== undefined && (
                  <span class="score" title="Search score (0–1)">
                    score {score.toFixed(3)}
                  </span>
                )}
              </div>
              <p class="excerpt">{m.content.length > 240 ? `${m.content.slice(0, 240)}…` : m.content}</p>
              <p class="meta">
                <span class={`tag t-${m.memoryType}`}>{m.memoryType}</span> <span>{m.scope}</span>
                {m.project && <span> · {m.project}</span>}
                {m.status === "archived" && <span> · archived</span>}
                {m.validTo && <span> · superseded</span>}
                {m.tags.map((t) => (
                  <button
                    key={t}
                    type="button"
                    class="chip"
                    title={`List the memories tagged ${t}`}
                    onClick={() => filterByTag(t)}
                  >
                    {t}
                  </button>
                ))}{" "}
                · <When at={m.createdAt} />
              </p>
            </li>
          ))}
        </ul>
      )}
      {cursor && (
        <button type="button" onClick={() => load(true)}>
          More
        </button>
      )}
    </Page>
  );
}

function CreateMemory() {
  const [form, setForm] = useState({ memoryType: "note", topic: "", content: "", scope: "", project: "", tags: "", dueAt: "" });
  const [error, setError] = useState<unknown>(null);
  const set = (k: keyof typeof form) => (e: Event) =>
    setForm((f) => ({ ...f, [k]: (e.currentTarget as HTMLInputElement).value }));
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const tags = form.tags
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean);
      const created = await api<{ memory: Memory }>("POST", "/api/v1/memories", {
        memoryType: form.memoryType,
        topic: form.topic,
        content: form.content,
        ...(form.scope ? { scope: form.scope } : {}),
        ...(form.project ? { project: form.project } : {}),
        ...(tags.length ? { tags } : {}),
        ...(form.memoryType === "commitment" && form.dueAt ? { dueAt: new Date(form.dueAt).toISOString() } : {}),
      });
      navigate(`/app/memories/${created.memory.id}`);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="panel stack" aria-label="New memory" onSubmit={submit}>
      <h2>New memory</h2>
      <div class="row">
        <label>
          Type
          <select name="memoryType" value={form.memoryType} onChange={set("memoryType")}>
            {MEMORY_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label class="grow">
          Topic
          <input name="topic" required maxLength={256} value={form.topic} onInput={set("topic")} />
        </label>
      </div>
      <label>
        Content
        <textarea name="content" required rows={4} maxLength={8000} value={form.content} onInput={set("content")} />
      </label>
      <div class="row">
        <label>
          Scope
          <input
            name="scope"
            maxLength={64}
            pattern="[a-z0-9][a-z0-9\-]*"
            title="Lower-case letters, digits and dashes"
            value={form.scope}
            onInput={set("scope")}
          />
        </label>
        <label>
          Project
          <input name="project" value={form.project} onInput={set("project")} />
        </label>
        <label>
          Tags (comma-separated)
          <input name="tags" value={form.tags} onInput={set("tags")} />
        </label>
        {form.memoryType === "commitment" && (
          <label>
            Due
            <input type="datetime-local" name="dueAt" value={form.dueAt} onInput={set("dueAt")} />
          </label>
        )}
      </div>
      <ErrorLine error={error} />
      <button type="submit" class="primary">
        Save memory
      </button>
    </form>
  );
}
