import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isLoopbackHostname } from "@amem/platform";
import { isLoopbackAddress, isPublicAddress } from "./public-address";

/** Why a Client ID Metadata Document could not be fetched (the consent flow shows each as a sentence). */
export const DOCUMENT_FETCH_FAILURES = [
  "not_https",
  "address_not_public",
  "unresolvable",
  "redirect",
  "http_status",
  "not_json_content_type",
  "too_large",
  "timeout",
  "unreachable",
  "not_json",
] as const;
export type DocumentFetchFailure = (typeof DOCUMENT_FETCH_FAILURES)[number];

export class DocumentFetchError extends Error {
  constructor(public readonly reason: DocumentFetchFailure) {
    super(reason);
    this.name = "DocumentFetchError";
  }
}

export type DocumentFetchOptions = {
  timeoutMs: number;
  maxBytes: number;
  /** Test-only (OAUTH_CIMD_ALLOW_LOOPBACK_HTTP): http on a loopback host, and loopback addresses, are allowed. */
  allowLoopbackHttp: boolean;
  /** Name resolution; the system resolver unless a test substitutes one. */
  resolve?: (hostname: string) => Promise<string[]>;
};

export type FetchedDocument = { body: unknown; maxAgeSeconds: number | null };

async function systemResolve(hostname: string): Promise<string[]> {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => a.address);
}

/** `max-age` of a Cache-Control header; 0 for no-store/no-cache; null when it says nothing. */
export function maxAgeOf(cacheControl: string | null): number | null {
  if (!cacheControl) return null;
  const directives = cacheControl
    .toLowerCase()
    .split(",")
    .map((d) => d.trim());
  if (directives.some((d) => d === "no-store" || d === "no-cache")) return 0;
  for (const d of directives) {
    const m = /^max-age\s*=\s*"?(\d{1,10})"?$/.exec(d);
    if (m) return Number(m[1]);
  }
  return null;
}

/** Reads at most `maxBytes` of a body; one byte more and the read stops (the rest is never buffered). */
async function readBounded(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array> {
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw new DocumentFetchError("too_large");
      chunks.push(value);
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

function withDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new DocumentFetchError("timeout"));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Fetches a JSON document from a URL a client named, without letting that URL reach anything but
 * the public internet (SSRF, CIMD draft §8.6): https only; the host is resolved first and every
 * address it resolves to must be public (public-address.ts), else nothing is connected to; the
 * connection then goes to the address that was checked — the URL is rewritten to the IP, with the
 * `Host` header and the TLS server name (SNI and certificate check) kept on the original name — so
 * no second resolution can swap in another address (DNS rebinding). No redirect is followed (the
 * draft: 200 only). The whole exchange, resolution included, has one deadline; the body is read
 * with a bounded reader and must be `application/json` (or `+json`).
 */
export async function fetchJsonDocument(url: URL, options: DocumentFetchOptions): Promise<FetchedDocument> {
  const loopbackHttp = options.allowLoopbackHttp && url.protocol === "http:" && isLoopbackHostname(url.hostname);
  if (url.protocol !== "https:" && !loopbackHttp) throw new DocumentFetchError("not_https");
  const signal = AbortSignal.timeout(options.timeoutMs);
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: string[];
  if (isIP(hostname)) addresses = [hostname];
  else {
    try {
      addresses = await withDeadline((options.resolve ?? systemResolve)(hostname), signal);
    } catch (error) {
      if (error instanceof DocumentFetchError) throw error;
      throw new DocumentFetchError("unresolvable");
    }
  }
  if (addresses.length === 0) throw new DocumentFetchError("unresolvable");
  const allowed = (a: string) => isPublicAddress(a) || (options.allowLoopbackHttp && isLoopbackAddress(a));
  // Every answer must pass: a name that mixes public and private answers is refused outright.
  if (!addresses.every(allowed)) throw new DocumentFetchError("address_not_public");
  const address = addresses[0]!;
  const pinned = new URL(url.href);
  pinned.hostname = isIP(address) === 6 ? `[${address}]` : address;
  let response: Response;
  try {
    response = await fetch(pinned, {
      method: "GET",
      headers: { host: url.host, accept: "application/json" },
      redirect: "manual",
      signal,
      tls: { serverName: hostname },
    });
  } catch (error) {
    throw new DocumentFetchError(signal.aborted ? "timeout" : "unreachable");
  }
  try {
    if (response.status >= 300 && response.status < 400) throw new DocumentFetchError("redirect");
    if (response.status !== 200) throw new DocumentFetchError("http_status");
    const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "application/json" && !/^application\/[a-z0-9.+-]+\+json$/.test(type))
      throw new DocumentFetchError("not_json_content_type");
    if (Number(response.headers.get("content-length") ?? 0) > options.maxBytes)
      throw new DocumentFetchError("too_large");
    let bytes: Uint8Array;
    try {
      bytes = await readBounded(response.body, options.maxBytes);
    } catch (error) {
      if (error instanceof DocumentFetchError) throw error;
      throw new DocumentFetchError(signal.aborted ? "timeout" : "unreachable");
    }
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    } catch {
      throw new DocumentFetchError("not_json");
    }
    return { body, maxAgeSeconds: maxAgeOf(response.headers.get("cache-control")) };
  } finally {
    if (!response.bodyUsed) response.body?.cancel().catch(() => {});
  }
}
