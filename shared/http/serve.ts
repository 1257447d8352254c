import http from "node:http";
import type { Server } from "bun";
import { requestUrl } from "./request-head";

/**
 * Bun's own bound on a request head (request line + headers), set well above the app's own
 * (REQUEST_HEAD_LIMIT_BYTES in request-rules.ts) so that a long path or large headers reach the
 * app and get the contract's answer. Only past this does Bun's parser refuse by itself, with a bare
 * `431` (no body, no request id) that no hook of Bun.serve can replace. Heads are buffered whole
 * while parsing, so this is the per-connection memory bound for them (like the body limit).
 */
export const SERVER_HEAD_LIMIT_BYTES = 256 * 1024;

export type FetchHandler = (request: Request, server: Server<undefined>) => Response | Promise<Response>;

export type ServeOptions = {
  hostname: string;
  port: number;
  fetch: FetchHandler;
  /**
   * The answer when `fetch` throws or rejects (the app maps its own errors, so this is a bug);
   * it must be the contract's error answer, since Bun would otherwise send its own page.
   */
  fallback: (error: unknown) => Response;
  /**
   * BODY_READ_TIMEOUT_MS: the app answers a stalled body 400 after this, so the connection's idle
   * timeout is set past it (idleTimeoutFor) and the answer reaches the client.
   */
  bodyReadTimeoutMs: number;
  /**
   * The least number of seconds a connection may stay silent before Bun closes it (default 10,
   * Bun's own). The MCP server raises it: a tool call waiting on a search slot or a quiet stream
   * must outlive 10 s (research/mcp-oauth.md §2.5, measured on Bun 1.4.5).
   */
  idleTimeoutSeconds?: number;
};

/**
 * Bun checks idle connections on a 4-second tick, so one idle for N seconds is closed somewhere in
 * ((⌈N/4⌉ − 1)·4, ⌈N/4⌉·4] seconds (measured on Bun 1.4.5: N = 1…4 closed after 4 s, N = 5…8
 * after 8 s, N = 10 after 9.3 s in issue 19's run).
 */
const IDLE_TICK_SECONDS = 4;
/** How long the 400 for a stalled body has to reach the client before the earliest idle close. */
const BODY_ANSWER_MARGIN_MS = 1_000;

/** The earliest Bun may close a connection that has been silent, for an idle timeout of `seconds`. */
export function earliestIdleCloseMs(seconds: number): number {
  return (Math.ceil(seconds / IDLE_TICK_SECONDS) - 1) * IDLE_TICK_SECONDS * 1000;
}

/**
 * The idle timeout (seconds) for a server whose app refuses a stalled body after
 * `bodyReadTimeoutMs`: the earliest idle close comes at least BODY_ANSWER_MARGIN_MS after the
 * refusal, else a body shorter than its Content-Length gets a closed connection instead of the
 * 400 (issue 19 defect 7: with both at 10 s Bun closed first, after 9.3 s). Never below
 * `atLeastSeconds`; at most 128 s for the largest BODY_READ_TIMEOUT_MS (Bun allows 255).
 */
export function idleTimeoutFor(bodyReadTimeoutMs: number, atLeastSeconds = 10): number {
  const ticks = Math.ceil((bodyReadTimeoutMs + BODY_ANSWER_MARGIN_MS) / (IDLE_TICK_SECONDS * 1000)) + 1;
  return Math.max(atLeastSeconds, ticks * IDLE_TICK_SECONDS);
}

/**
 * Bun's head limit is process-wide (the `--max-http-header-size` flag); Bun exposes it as the
 * writable `node:http` `maxHeaderSize`. Raised, never lowered, and checked, so a Bun that ignores
 * the assignment fails at start rather than answering 431 from its parser.
 */
function raiseServerHeadLimit(bytes: number): void {
  if (http.maxHeaderSize >= bytes) return;
  (http as { maxHeaderSize: number }).maxHeaderSize = bytes;
  if (http.maxHeaderSize !== bytes) throw new Error(`could not raise Bun's HTTP head limit to ${bytes} bytes`);
}

/**
 * Serves `fetch` over HTTP/1.1 with Bun's own refusals moved out of the way, so every answer the
 * process gives comes from the app (SPEC §1.1: `{"error": code}`, JSON, `X-Request-Id`):
 * - no body size limit of Bun's own: its 413 is bare and, for a body still arriving, may reset the
 *   connection before the client reads it. The app refuses by Content-Length before reading, and
 *   counts what it reads, and closes the connection after such a refusal;
 * - the head limit raised above the app's (see SERVER_HEAD_LIMIT_BYTES);
 * - a throwing handler answered by `fallback`, never by Bun's error page;
 * - an idle timeout that outlasts the body read time (idleTimeoutFor), so a stalled body gets its 400;
 * - a port already in use refused (EADDRINUSE), never shared (`reusePort: false`).
 *
 * What stays Bun's (its parser answers before any JavaScript runs, with a bare status and
 * `Connection: close`; Bun.serve has no hook for it): malformed framing — a Content-Length that
 * is not one decimal number (`-1`, `abc`), two Content-Lengths, Content-Length with
 * Transfer-Encoding, a bad chunk size — a malformed request line or header line, a missing Host,
 * more than ~200 header lines, and a head over SERVER_HEAD_LIMIT_BYTES (400 or 431; an unknown
 * method is closed without an answer).
 *
 * Framework-free (the api and the MCP server each pass their app's fetch).
 */
export function serveHttp(options: ServeOptions): Server<undefined> {
  raiseServerHeadLimit(SERVER_HEAD_LIMIT_BYTES);
  return Bun.serve({
    hostname: options.hostname,
    port: options.port,
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    development: false,
    // Bun sets SO_REUSEPORT unless told not to: a second server on the same port (the api and the
    // MCP server, or METRICS_PORT = PORT) then binds too and the kernel splits the connections
    // between them — /health answered 404 in 5 of 12 tries (issue 19 defect 4). Refused instead.
    reusePort: false,
    idleTimeout: idleTimeoutFor(options.bodyReadTimeoutMs, options.idleTimeoutSeconds),
    fetch: (request, server) => options.fetch(withAbsoluteUrl(request), server),
    error: options.fallback,
  });
}

/**
 * A request with no Host (HTTP/1.0 allows it: a load balancer's health check) or an empty one
 * comes with a relative URL, which routing cannot read (Elysia cuts the path after `http://`): it
 * is given requestUrl's placeholder origin. One whose Host is no host keeps its relative URL, and
 * the app refuses it (refuseRequestHead).
 */
function withAbsoluteUrl(request: Request): Request {
  if (request.url.charCodeAt(0) !== 47 || request.headers.get("host")) return request;
  return new Request(requestUrl(request).href, request);
}

/**
 * The options of an app served by serveHttp (the api's and the MCP server's root app):
 * - `normalize: false`: a body is checked against its schema as sent, never stripped to it;
 * - `standardHostname: false`: Elysia cuts the path from the request URL after the 7 characters of
 *   `http://` instead of assuming a host of at least 4 characters and skipping 11. With the
 *   default, a short Host (`api`, `x:1`) made `GET /api/v1/me` a 404 and served `GET
 *   /zzzz/api/v1/me` as `/api/v1/me` (a review found it). Bun serves these apps over plain HTTP
 *   (TLS ends in front of them), so every request URL starts with `http://`.
 */
export const SERVED_APP_OPTIONS = { normalize: false, handler: { standardHostname: false } } as const;
