import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api";
import { ErrorLine, Loading, Page, useLoad, When } from "../ui";

type Scope = { id: string; name: string; aliases: string[]; createdAt: string };
const splitAliases = (s: string) =>
  s
    .split(",")
    .map((a) => a.trim())
    .filter(Boolean);

/** A scope's name as the api takes it (ScopeName: 1–64 of a–z, 0–9 and -, not starting with -). */
function ScopeNameInput({ value, onInput }: { value: string; onInput: (value: string) => void }) {
  return (
    <input
      name="name"
      required
      maxLength={64}
      pattern="[a-z0-9][a-z0-9\-]*"
      value={value}
      onInput={(e) => onInput(e.currentTarget.value)}
    />
  );
}

/** Scopes (SPEC §5): create, rename, aliases, delete. */
export function Scopes() {
  const list = useLoad(() => api<{ scopes: Scope[] }>("GET", "/api/v1/scopes"), "scopes");
  const [name, setName] = useState("");
  const [aliases, setAliases] = useState("");
  const [error, setError] = useState<unknown>(null);
  const run = async (call: () => Promise<unknown>) => {
    setError(null);
    try {
      await call();
      list.reload();
      return true;
    } catch (e) {
      setError(e);
      return false;
    }
  };
  return (
    <Page title="Scopes">
      <form
        class="row panel"
        aria-label="New scope"
        onSubmit={async (e) => {
          e.preventDefault();
          const aliasList = splitAliases(aliases);
          if (await run(() => api("POST", "/api/v1/scopes", { name, ...(aliasList.length ? { aliases: aliasList } : {}) }))) {
            setName("");
            setAliases("");
          }
        }}
      >
        <label>
          Name
          <ScopeNameInput value={name} onInput={setName} />
        </label>
        <label>
          Aliases (comma-separated)
          <input name="aliases" value={aliases} onInput={(e) => setAliases(e.currentTarget.value)} />
        </label>
        <button type="submit" class="primary">
          Create scope
        </button>
      </form>
      <ErrorLine error={error ?? list.error} />
      {!list.data ? (
        <Loading />
      ) : (
        <ul class="cards" aria-label="Scopes">
          {list.data.scopes.map((s) => (
            <ScopeRow key={s.id} scope={s} reload={list.reload} />
          ))}
        </ul>
      )}
    </Page>
  );
}

/**
 * One scope, editable in place. Its own refusal shows at the row, beside the edit it refused, with
 * a way back to what is saved: a probe renamed "beta" to the existing "work", read the refusal at
 * the top of the page and two rows named "work" below it.
 */
function ScopeRow({ scope, reload }: { scope: Scope; reload: () => void }) {
  const saved = { name: scope.name, aliases: scope.aliases.join(", ") };
  const [name, setName] = useState(saved.name);
  const [aliases, setAliases] = useState(saved.aliases);
  const [error, setError] = useState<unknown>(null);
  // What was saved comes back with the list (this row's save, or another tab's): the fields follow it
  // when it changes — not when the row first shows, as an effect runs after the row is on screen and
  // would put back the saved name over what was typed in it by then (a CI run's browser did).
  const shown = useRef(saved);
  useEffect(() => {
    if (shown.current.name === saved.name && shown.current.aliases === saved.aliases) return;
    shown.current = saved;
    setName(saved.name);
    setAliases(saved.aliases);
  }, [saved.name, saved.aliases]);
  const act = async (call: () => Promise<unknown>) => {
    setError(null);
    try {
      await call();
      reload();
    } catch (e) {
      setError(e);
    }
  };
  const edited = name !== saved.name || aliases !== saved.aliases;
  return (
    <li class="card">
      <form
        class="row"
        aria-label={`Scope ${scope.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          void act(() => api("PATCH", `/api/v1/scopes/${scope.id}`, { name, aliases: splitAliases(aliases) }));
        }}
      >
        <label>
          Name
          <ScopeNameInput value={name} onInput={setName} />
        </label>
        <label class="grow">
          Aliases
          <input name="aliases" value={aliases} onInput={(e) => setAliases(e.currentTarget.value)} />
        </label>
        <span class="muted row-note">
          created <When at={scope.createdAt} />
        </span>
        <button type="submit">Save</button>
        {edited && (
          <button
            type="button"
            onClick={() => {
              setName(saved.name);
              setAliases(saved.aliases);
              setError(null);
            }}
          >
            Undo
          </button>
        )}
        <button
          type="button"
          class="danger"
          onClick={() => {
            if (confirm(`Delete scope ${scope.name}?`)) void act(() => api("DELETE", `/api/v1/scopes/${scope.id}`));
          }}
        >
          Delete
        </button>
      </form>
      {error ? (
        <>
          <ErrorLine error={error} />
          {edited && <p class="muted">Not saved: the scope is still named {saved.name}.</p>}
        </>
      ) : null}
    </li>
  );
}
