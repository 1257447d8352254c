import { render } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, ApiError, explain, holdCalls, resumeCalls, setCsrfToken, whenSignedOut } from "./api";
import { Link, Loading, navigate, Page, usePath } from "./ui";
import { SignIn, type Session } from "./screens/sign-in";
import { Overview } from "./screens/overview";
import { Memories } from "./screens/memories";
import { MemoryDetail } from "./screens/memory-detail";
import { Proposals } from "./screens/proposals";
import { Agents, SessionRun } from "./screens/agents";
import { Scopes } from "./screens/scopes";
import { Access, type Erased } from "./screens/access";

const NAV = [
  ["/app", "Overview"],
  ["/app/memories", "Memories"],
  ["/app/proposals", "Proposals"],
  ["/app/agents", "Agents"],
  ["/app/scopes", "Scopes"],
  ["/app/access", "Access"],
] as const;

function Screen({ path, onErased }: { path: string; onErased: (e: Erased) => void }) {
  const parts = path.replace(/\/+$/, "").split("/").slice(2);
  const [section, id, ...rest] = parts;
  // A mailed link opened in a browser that is signed in already (sign-in works before the address
  // is verified): the link still does its work, or says what to do (a probe's find: Not found).
  if ((section === "verify-email" || section === "reset-password") && !id) return <MailedLink kind={section} />;
  // A mangled link is a page that does not exist, not a form with invalid input (the api answers
  // 400 to an id that is not one) nor the Overview under a wrong address (a probe's finds).
  if (rest.length > 0 || (id !== undefined && !ID.test(id))) return <NotFound />;
  if (section === "memories" && id) return <MemoryDetail key={id} id={id} />;
  if (section === "memories") return <Memories />;
  if (section === "proposals" && !id) return <Proposals />;
  if (section === "agents" && id) return <SessionRun key={id} id={id} />;
  if (section === "agents") return <Agents />;
  if (section === "scopes" && !id) return <Scopes />;
  if (section === "access" && !id) return <Access onErased={onErased} />;
  if (section === undefined) return <Overview />;
  return <NotFound />;
}

/** A mailed link while signed in: a verification is done here; a reset needs the signed-out form. */
function MailedLink({ kind }: { kind: "verify-email" | "reset-password" }) {
  const [token] = useState(() => new URLSearchParams(location.search).get("token"));
  const [message, setMessage] = useState<string | null>(null);
  useEffect(() => {
    if (kind !== "verify-email" || !token) return;
    // Spent once: a reload must not send it again.
    history.replaceState(null, "", location.pathname);
    api("POST", "/auth/verify-email", { token }).then(
      () => setMessage("Your email address is verified."),
      () => setMessage("That verification link is no longer valid."),
    );
  }, []);
  return (
    <Page title={kind === "verify-email" ? "Verify your email" : "Choose a new password"}>
      <p role="status">
        {kind === "reset-password"
          ? "You are signed in. To choose a new password with this link, sign out, then open the link from your email again."
          : (message ?? (token ? "Verifying…" : "Open the link from your email again."))}
      </p>
      <p>
        <Link href="/app">Go to the overview</Link>
      </p>
    </Page>
  );
}

/** The shape of a memory's or a run's id. */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function NotFound() {
  return (
    <Page title="Not found">
      <p>
        There is no such page in the console. <Link href="/app">Go to the overview</Link>.
      </p>
    </Page>
  );
}

/** What each erased count is, in words (the api names them for programs: `apiKeysRevoked`). */
const ERASED_LABELS: Record<string, string> = {
  memories: "Memories",
  facts: "Facts",
  commitments: "Commitments",
  proposals: "Consolidation proposals",
  factProposals: "Fact proposals",
  agentSessions: "Agent sessions",
  apiKeysRevoked: "API keys revoked",
  oauthTokensRevoked: "Connected apps' tokens revoked",
  oauthCodesDeleted: "Pending app sign-ins deleted",
  sessionsDeleted: "Console and login sessions ended",
  emailVerificationTokensDeleted: "Email verification links deleted",
  passwordResetTokensDeleted: "Password reset links deleted",
};

function App() {
  const path = usePath();
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [notice, setNotice] = useState<string | null>(null);
  const [erased, setErased] = useState<Erased | null>(null);
  const [signOutError, setSignOutError] = useState<unknown>(null);
  /**
   * The session that ended by itself (expired, signed out elsewhere) while a screen was open: the
   * screen stays mounted, hidden, under the sign-in, so a draft being typed (a new memory, a
   * revision, a scope) is there again once the same person signs back in (a probe lost one).
   * Not after "Sign out": the next person at a shared machine starts afresh.
   */
  const [ended, setEnded] = useState<Session | null>(null);
  const current = useRef<Session | null | undefined>(undefined);
  current.current = session;
  const main = useRef<HTMLElement>(null);
  const shownPath = useRef<string | null>(null);

  // After moving to another screen, focus goes to the main region (WCAG 2.4.3): otherwise it
  // stays on the link that was activated, and the next Tab walks the rest of the navigation
  // before reaching the new screen. Not on the first screen shown (a page load starts at the top,
  // where the skip link is), and not when the path is unchanged. A layout effect: focus moves in
  // the same task that renders the new screen, never a frame after it.
  useLayoutEffect(() => {
    if (!session) return;
    if (shownPath.current !== null && shownPath.current !== path) main.current?.focus();
    shownPath.current = path;
  }, [path, session]);

  useEffect(() => {
    whenSignedOut(() => {
      setCsrfToken(null);
      if (current.current) setEnded(current.current);
      setSession(null);
      setNotice("Your session has ended. Sign in again to carry on where you were.");
    });
    api<Session>("GET", "/api/console/session").then(
      (s) => {
        setCsrfToken(s.csrfToken);
        setSession(s);
      },
      (e) => {
        if (!(e instanceof ApiError) || e.status !== 401) setNotice("The service did not answer; reload to try again.");
        setSession(null);
      },
    );
  }, []);

  if (session === undefined) return <Loading />;
  if (erased) {
    return (
      <main id="main" class="narrow">
        <h1>Account deleted</h1>
        <p>You are signed out. This is what was erased:</p>
        <dl class="counts" aria-label="Erased counts">
          {Object.entries(erased).map(([k, v]) => (
            <div key={k} data-count={k}>
              <dt>{ERASED_LABELS[k] ?? k}</dt>
              <dd>{String(v)}</dd>
            </div>
          ))}
        </dl>
        <p>
          <a href="/app">Back to the sign-in page</a>
        </p>
      </main>
    );
  }
  const signIn = (
    <SignIn
      notice={notice}
      onSignedIn={(s) => {
        setCsrfToken(s.csrfToken);
        setNotice(null);
        setSignOutError(null);
        setEnded(null);
        setSession(s);
      }}
    />
  );
  if (session === null && !ended) return signIn;
  // Signed in, or the screen of a session that ended kept under the sign-in (keyed by user: another
  // person signing in gets a fresh one).
  const shown = (session ?? ended)!;

  // "Signed out" only once the api ended the session and cleared the cookie: after a dropped
  // connection, a 5xx or a 403 (this page's CSRF token is stale: another tab signed in again) the
  // browser is still signed in, and a shared machine's next person would be too.
  const signOut = async () => {
    setSignOutError(null);
    holdCalls();
    try {
      await api("DELETE", "/api/console/session", undefined, { unheld: true });
    } catch (e) {
      // 401: the session had ended already (expired, or signed out elsewhere), so no cookie signs this browser in.
      if (!(e instanceof ApiError && e.status === 401)) {
        resumeCalls();
        setSignOutError(e);
        return;
      }
    }
    setCsrfToken(null);
    setSession(null);
    resumeCalls();
    setNotice("You are signed out.");
    navigate("/app");
  };
  const active = (href: string) =>
    href === "/app" ? path.replace(/\/+$/, "") === "/app" : path === href || path.startsWith(`${href}/`);

  return (
    <>
      <div class="shell" hidden={!session} key={shown.userId}>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <span class="brand">amem</span>
          <nav aria-label="Console">
            <ul>
              {NAV.map(([href, label]) => (
                <li key={href}>
                  <Link href={href} class={active(href) ? "current" : undefined} current={active(href) ? "page" : undefined}>
                    {label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          <div class="who">
            <span class="muted" data-testid="signed-in-as">
              {shown.email}
            </span>
            <button type="button" onClick={signOut}>
              Sign out
            </button>
          </div>
          {signOutError ? (
            <p class="error" role="alert" data-testid="sign-out-error">
              Not signed out: you are still signed in. {explain(signOutError)}
            </p>
          ) : null}
        </header>
        <main id={session ? "main" : undefined} tabIndex={-1} ref={main}>
          <Screen
            path={path}
            onErased={(e) => {
              setCsrfToken(null);
              setErased(e);
            }}
          />
        </main>
      </div>
      {session ? null : signIn}
    </>
  );
}

render(<App />, document.getElementById("root")!);
