import { Elysia } from "elysia";
import { AppError } from "../../shared/errors";

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const JSON_TYPE = /^application\/(?:[a-z0-9.+-]+\+)?json\s*(?:;|$)/i;
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;
/** Invalid UTF-8 is rejected (invalid_json), never silently replaced. */
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });
/** An escaped NUL (`\u0000`) not preceded by an escaped backslash: Postgres text cannot store it. */
const JSON_NUL = /(?<!\\)(?:\\\\)*\\u0000/i;

function hasBody(request: Request): boolean {
  const length = request.headers.get("content-length");
  if (length !== null) return Number(length) > 0;
  return request.headers.has("transfer-encoding");
}

/**
 * Request id, the body size limit and the JSON-only rule, applied before routing and parsing so
 * an oversized or non-JSON body never reaches a handler. The parser enforces the limit again on
 * the bytes actually read (chunked bodies carry no Content-Length).
 */
export function requestContextPlugin(bodyLimitBytes: number) {
  return new Elysia({ name: "request-context" })
    .onRequest(({ request, set }) => {
      const incoming = request.headers.get("x-request-id");
      set.headers["x-request-id"] = incoming && SAFE_REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
      // Postgres text cannot hold NUL: refuse it up front rather than fail deep in a query.
      if (request.url.includes("%00")) throw new AppError("invalid_input");
      if (!BODY_METHODS.has(request.method) || !hasBody(request)) return;
      if (Number(request.headers.get("content-length") ?? 0) > bodyLimitBytes) throw new AppError("payload_too_large");
      if (!JSON_TYPE.test(request.headers.get("content-type") ?? "")) throw new AppError("unsupported_media_type");
    })
    .onParse({ as: "global" }, async ({ request }) => {
      // With a Content-Length (already checked against the limit in onRequest) one native read is
      // enough; only a chunked body is streamed and counted.
      const bytes = request.headers.has("content-length")
        ? new Uint8Array(await request.arrayBuffer())
        : await readWithin(request, bodyLimitBytes);
      if (bytes.byteLength === 0) return undefined;
      // Also here, not only in onRequest: a body can arrive without a length header.
      if (!JSON_TYPE.test(request.headers.get("content-type") ?? "")) throw new AppError("unsupported_media_type");
      let text: string;
      let body: unknown;
      try {
        text = STRICT_UTF8.decode(bytes);
        body = JSON.parse(text);
      } catch {
        throw new AppError("invalid_json");
      }
      if (JSON_NUL.test(text)) throw new AppError("invalid_input");
      return body;
    });
}

/** Reads the body, stopping with 413 as soon as it passes the limit (never buffers more). */
async function readWithin(request: Request, limit: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw new AppError("payload_too_large");
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
