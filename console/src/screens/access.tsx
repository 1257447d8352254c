import { useRef, useState } from "preact/hooks";
import { api, ApiError } from "../api";
import { ErrorLine, Loading, Page, useLoad, When } from "../ui";

type Key = { id: string; name: string; prefix: string; createdAt: string; lastUsedAt: string | null; revokedAt: string | null };
type Grant = { clientId: string; clientName: string; scopes: string[]; createdAt: string; lastUsedAt: string | null };
export type Erased = Record<string, number>;

/** API keys, connected apps (OAuth grants), export and account deletion. */
export function Access({ onErased }: { onErased: (erased: Erased) => void }) {
  return (
    <Page title="Access">
      <Keys />
      <Apps />
      <Export />
      <DeleteAccount onErased={onErased} />
    </Page>
  );
}

const EXPORT_PATH = "/api/v1/export";

/**
 * The export downloads through the browser (a link: the document may be large, so it is not held in
 * the page), after a check that the session still holds: a download answered 401 (the session ended
 * in another tab) failed silently in the browser's downloads, where it now shows the sign-in.
 */
function Export() {
  const [error, setError] = useState<unknown>(null);
  const download = async (e: MouseEvent) => {
    if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    setError(null);
    try {
      await api("GET", "/api/v1/me");
    } catch (err) {
      // A 401 shows the sign-in already (whenSignedOut); any other refusal is said here.
      if (!(err instanceof ApiError && err.status === 401)) setError(err);
      return;
    }
    const link = document.createElement("a");
    link.href = EXPORT_PATH;
    link.download = "amem-export.json";
    link.click();
  };
  return (
    <section aria-labelledby="export-title" class="panel">
      <h2 id="export-title">Export</h2>
      <p>Everything amem holds for this account, as one JSON document.</p>
      <a class="button" href={EXPORT_PATH} download="amem-export.json" onClick={download}>
        Download export
      </a>
      <ErrorLine error={error} />
    </section>
  );
}

function Keys() {
  const keys = useLoad(() => api<{ keys: Key[] }>("GET", "/api/v1/api-keys"), "keys");
  const [name, setName] = useState("");
  const [created, setCreated] = useState<{ id: string; name: string; key: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // One creation at a time: a second click while the first was on its way minted a second key whose
  // secret was never shown (a probe's find). A ref, read before any render; the state disables the button.
  const creating = useRef(false);
  const [busy, setBusy] = useState(false);
  const create = async (e: Event) => {
    e.preventDefault();
    if (creating.current) return;
    creating.current = true;
    setBusy(true);
    setError(null);
    try {
      const k = await api<{ id: string; name: string; key: string }>("POST", "/api/v1/api-keys", { name });
      setCreated(k);
      setCopied(false);
      setName("");
      keys.reload();
    } catch (err) {
      setError(err);
    } finally {
      creating.current = false;
      setBusy(false);
    }
  };
  const revoke = async (k: Key) => {
    if (!confirm(`Revoke ${k.name}? Agents using it stop working at once.`)) return;
    try {
      await api("DELETE", `/api/v1/api-keys/${k.id}`);
      // A refusal shown before (the limit of live keys) no longer holds once a key is revoked, and
      // a secret revoked is no longer one to store.
      setError(null);
      setCreated((shown) => (shown?.id === k.id ? null : shown));
      keys.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <form class="row" aria-label="New API key" onSubmit={create}>
        <label>
          Key name
          <input name="keyName" required maxLength={64} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <button type="submit" class="primary" disabled={busy}>
          Create key
        </button>
      </form>
      {created && (
        <div class="panel secret" role="status">
          <p>
            The key <strong>{created.name}</strong> — shown once; store it now:
          </p>
          <code data-testid="new-key">{created.key}</code>{" "}
          <button
            type="button"
            onClick={() => navigator.clipboard.writeText(created.key).then(() => setCopied(true), () => setCopied(false))}
          >
            {copied ? "Copied" : "Copy"}
          </button>
        </div>
      )}
      <ErrorLine error={error ?? keys.error} codes={{ conflict: "This account holds as many live keys as it may: revoke one to create another." }} />
      {!keys.data ? (
        <Loading />
      ) : (
        <div class="table-wrap">
          <table class="stacked">
            <caption class="visually-hidden">API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.keys.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td data-label="Prefix">
                    <code>amem_{k.prefix}…</code>
                  </td>
                  <td data-label="Created">
                    <When at={k.createdAt} />
                  </td>
                  <td data-label="Last used">
                    <When at={k.lastUsedAt} />
                  </td>
                  <td>
                    {k.revokedAt ? (
                      <span class="muted">revoked</span>
                    ) : (
                      <button type="button" class="danger" onClick={() => revoke(k)} aria-label={`Revoke key ${k.name}`}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Apps() {
  const grants = useLoad(() => api<{ grants: Grant[] }>("GET", "/api/v1/oauth/grants"), "grants");
  const [error, setError] = useState<unknown>(null);
  const revoke = async (g: Grant) => {
    if (!confirm(`Disconnect ${g.clientName || g.clientId}? Its tokens stop working at once.`)) return;
    try {
      await api("DELETE", `/api/v1/oauth/grants/${encodeURIComponent(g.clientId)}`);
      grants.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="apps-title">
      <h2 id="apps-title">Connected apps</h2>
      <ErrorLine error={error ?? grants.error} />
      {!grants.data ? (
        <Loading />
      ) : grants.data.grants.length === 0 ? (
        <p class="muted">No app is connected.</p>
      ) : (
        <ul class="cards" aria-label="Connected apps">
          {grants.data.grants.map((g) => (
            <li key={g.clientId} class="card row">
              <div class="grow">
                <strong>{g.clientName || g.clientId}</strong>
                <p class="meta">
                  {g.scopes.join(", ")} · connected <When at={g.createdAt} /> · last used <When at={g.lastUsedAt} />
                </p>
              </div>
              <button type="button" class="danger" onClick={() => revoke(g)} aria-label={`Disconnect ${g.clientName || g.clientId}`}>
                Disconnect
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

const CONFIRM_PHRASE = "delete my account";

function DeleteAccount({ onErased }: { onErased: (erased: Erased) => void }) {
  const [typed, setTyped] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <section aria-labelledby="delete-title" class="panel danger-zone">
      <h2 id="delete-title">Delete account</h2>
      <p>
        Erases every memory, session, key and connected app of this account. It cannot be undone. Type{" "}
        <strong>{CONFIRM_PHRASE}</strong> to confirm.
      </p>
      <form
        class="row"
        aria-label="Delete account"
        onSubmit={async (e) => {
          e.preventDefault();
          if (typed !== CONFIRM_PHRASE) return;
          setBusy(true);
          setError(null);
          try {
            const answer = await api<{ erased: Erased }>("DELETE", "/api/v1/account", { confirm: true });
            onErased(answer.erased);
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <label>
          Confirmation
          <input name="confirmation" autoComplete="off" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
        </label>
        <button type="submit" class="danger" disabled={typed !== CONFIRM_PHRASE || busy}>
          Delete account
        </button>
      </form>
      <ErrorLine error={error} />
    </section>
  );
}
