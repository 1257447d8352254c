import { randomBytes } from "node:crypto";

/**
 * What a page may do beyond showing itself with the response's nonce-carrying styles; everything
 * else is refused (`default-src 'none'`).
 */
export type PagePolicy = {
  /** Runs the response's nonce-carrying scripts, which may connect to this origin; no script runs otherwise. */
  scripts?: boolean;
  /**
   * style="…" attributes cannot run script; a page whose UI library sets them may allow them
   * (CSP3 style-src-attr) while script and <style> elements stay bound to the nonce.
   */
  inlineStyleAttributes?: boolean;
  img?: string[];
  /**
   * Where the page's forms may post: this origin and these targets (browsers apply form-action to
   * the redirect that follows a post). Absent: the page posts no form at all.
   */
  formTargets?: string[];
};

/** A fresh CSP nonce for one response. */
export function newNonce(): string {
  return randomBytes(18).toString("base64");
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/**
 * Headers of a page this service renders: a CSP that runs only the response's nonce-carrying
 * scripts and styles (never a wildcard or a third-party origin) and what `policy` allows besides;
 * never framed (clickjacking a consent button), no referrer (an OAuth query holds the PKCE
 * challenge and state), nothing cached.
 */
export function pageHeaders(nonce: string, policy: PagePolicy = {}): Record<string, string> {
  const directives = ["default-src 'none'"];
  if (policy.scripts) directives.push(`script-src 'nonce-${nonce}'`);
  directives.push(`style-src 'nonce-${nonce}'`);
  if (policy.inlineStyleAttributes) directives.push("style-src-attr 'unsafe-inline'");
  if (policy.img) directives.push(`img-src ${policy.img.join(" ")}`);
  if (policy.scripts) directives.push("connect-src 'self'");
  directives.push(
    "base-uri 'none'",
    policy.formTargets ? `form-action ${["'self'", ...policy.formTargets].join(" ")}` : "form-action 'none'",
    "frame-ancestors 'none'",
  );
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": directives.join("; "),
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
  };
}

/** A page response: `render` writes the HTML with the response's fresh nonce. */
export function htmlPage(
  render: (nonce: string) => string,
  policy: PagePolicy = {},
  init: { status?: number; headers?: Record<string, string> } = {},
): Response {
  const nonce = newNonce();
  return new Response(render(nonce), {
    status: init.status ?? 200,
    headers: { ...pageHeaders(nonce, policy), ...init.headers },
  });
}
