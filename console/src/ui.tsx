import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ApiError, explain, query } from "./api";

/** A moment as the reader's locale writes it; the ISO value in the title. */
export function When({ at }: { at: string | null }) {
  if (!at) return <span class="muted">—</span>;
  return (
    <time dateTime={at} title={at}>
      {new Date(at).toLocaleString()}
    </time>
  );
}

/** The error's explanation; `codes` words a code the way this screen means it. */
export function ErrorLine({ error, codes }: { error: unknown; codes?: Record<string, string> }) {
  if (!error) return null;
  const own = error instanceof ApiError ? codes?.[error.code] : undefined;
  return (
    <p class="error" role="alert">
      {own ?? explain(error)}
    </p>
  );
}

export function Loading() {
  return (
    <p class="muted" aria-live="polite">
      Loading…
    </p>
  );
}

/** Loads once per change of `key`; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, key: string) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [key, round]);
  return { ...state, reload: () => setRound((r) => r + 1) };
}

export function Page({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · amem console`;
  }, [title]);
  return (
    <section aria-labelledby="page-title">
      <div class="page-head">
        <h1 id="page-title">{title}</h1>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** A link inside the app: history navigation, no reload. */
export function Link({
  href,
  children,
  class: cls,
  current,
}: { href: string; children: ComponentChildren; class?: string; current?: "page" }) {
  return (
    <a
      href={href}
      class={cls}
      aria-current={current}
      onClick={(e) => {
        if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}

const listeners = new Set<() => void>();
export function navigate(href: string): void {
  history.pushState(null, "", href);
  for (const l of listeners) l();
}
/**
 * Writes a screen's state into its address's query (replaced, not pushed: Back leaves the screen),
 * so Back from a page it links to, reload and a shared link return to it; nothing when the person
 * has moved to another screen meanwhile.
 */
export function keepInAddress(screen: string, params: Record<string, string | undefined>): void {
  if (location.pathname !== screen) return;
  const address = `${screen}${query(params)}`;
  if (`${location.pathname}${location.search}` !== address) history.replaceState(history.state, "", address);
}

/**
 * Replaces the address (no new history entry), and the screen follows it: a bare replaceState left
 * the console routing on the path it replaced (a mailed link's /app/verify-email became /app, and
 * signing in then showed Not found — a probe's find).
 */
export function replacePath(href: string): void {
  history.replaceState(null, "", href);
  for (const l of listeners) l();
}
export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    listeners.add(update);
    addEventListener("popstate", update);
    return () => {
      listeners.delete(update);
      removeEventListener("popstate", update);
    };
  }, []);
  return path;
}
