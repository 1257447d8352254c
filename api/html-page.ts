import { randomBytes } from "node:crypto";

/** What a page needs beyond its own nonce-carrying scripts and styles. */
export type PageSources = { img?: string[]; inlineStyleAttributes?: boolean };

/** A fresh CSP nonce for one response. */
export function newNonce(): string {
  return randomBytes(18).toString("base64");
}

/**
 * Headers of a page this service renders: a CSP that runs only the response's nonce-carrying
 * scripts and styles (never a wildcard or a third-party origin), connects to this origin only,
 * no framing, no referrer, nothing cached.
 */
export function pageHeaders(nonce: string, sources: PageSources = {}): Record<string, string> {
  const img = sources.img ? `img-src ${sources.img.join(" ")}; ` : "";
  // style="…" attributes cannot run script; a page whose UI library sets them may allow them
  // (CSP3 style-src-attr) while script and <style> elements stay bound to the nonce.
  const styleAttributes = sources.inlineStyleAttributes ? "style-src-attr 'unsafe-inline'; " : "";
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy":
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; ${styleAttributes}${img}` +
      "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
  };
}
