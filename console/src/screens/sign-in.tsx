import { useEffect, useState } from "preact/hooks";
import { api, ApiError, explain } from "../api";
import { replacePath } from "../ui";

export type Session = { userId: string; email: string; csrfToken: string | null };

const mailOn = () => document.body.dataset.mail === "on";

/** Email and password (the accounts amem has); sign-up and reset only where mail can carry their tokens. */
export function SignIn({ notice, onSignedIn }: { notice: string | null; onSignedIn: (s: Session) => void }) {
  const token = new URLSearchParams(location.search).get("token");
  const landing = location.pathname.endsWith("/reset-password") ? "reset" : "in";
  const [mode, setMode] = useState<"in" | "up" | "forgot" | "reset">(token ? landing : "in");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [message, setMessage] = useState<string | null>(notice);
  // A mailed verification link: the token is spent once, then the page is plain sign-in.
  useEffect(() => {
    if (!token || !location.pathname.endsWith("/verify-email")) return;
    replacePath("/app");
    api("POST", "/auth/verify-email", { token }).then(
      () => setMessage("Your email address is verified. Sign in."),
      () => setMessage("That verification link is no longer valid."),
    );
  }, []);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  /** Another form: the last one's refusal does not belong under it (a probe saw a sign-in's under sign-up). */
  const switchTo = (next: typeof mode) => {
    setError(null);
    setMode(next);
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (mode === "in") {
        onSignedIn(await api<Session>("POST", "/api/console/session", { email, password }));
        return;
      }
      // After a sign-up or a reset the form asks to sign in, with the password field empty: what the
      // person types next is the whole password, not appended to the one just chosen.
      if (mode === "up") {
        await api("POST", "/auth/signup", { email, password });
        setPassword("");
        setMessage("Account created. Check your mail to verify it, then sign in.");
        setMode("in");
      } else if (mode === "forgot") {
        await api("POST", "/auth/forgot-password", { email });
        setMessage("If that address has an account, a reset link is on its way.");
        setMode("in");
      } else {
        await api("POST", "/auth/reset-password", { token, password });
        replacePath("/app");
        setPassword("");
        setMessage("Password changed. Sign in with the new one.");
        setMode("in");
      }
    } catch (err) {
      const spentLink = mode === "reset" && err instanceof ApiError && err.code === "unauthorized";
      setError(spentLink ? "This reset link has expired or was used already. Ask for a new one." : explain(err));
    } finally {
      setBusy(false);
    }
  };
  const titles = { in: "Sign in", up: "Create an account", forgot: "Reset your password", reset: "Choose a new password" };

  return (
    <main id="main" class="narrow signin">
      <p class="brand">amem</p>
      <h1>{titles[mode]}</h1>
      {message && (
        <p class="notice" role="status">
          {message}
        </p>
      )}
      <form onSubmit={submit} aria-label={titles[mode]}>
        {mode !== "reset" && (
          <label>
            Email
            <input
              type="email"
              name="email"
              autoComplete="username"
              required
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          </label>
        )}
        {mode !== "forgot" && (
          <label>
            Password
            <input
              type="password"
              name="password"
              autoComplete={mode === "in" ? "current-password" : "new-password"}
              required
              minLength={mode === "in" ? 1 : 8}
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          </label>
        )}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {titles[mode]}
        </button>
      </form>
      {mailOn() && (
        <p class="alt">
          {mode === "in" ? (
            <>
              <button type="button" class="link" onClick={() => switchTo("up")}>
                Create an account
              </button>{" "}
              ·{" "}
              <button type="button" class="link" onClick={() => switchTo("forgot")}>
                Forgot your password?
              </button>
            </>
          ) : (
            <button type="button" class="link" onClick={() => switchTo("in")}>
              Back to sign in
            </button>
          )}
        </p>
      )}
    </main>
  );
}
