import { AppError, type ErrorCode, hasUnstorableText, withTimeout, DeadlineSweep } from "@amem/platform";

export type BodyLimits = {
  /** Bytes; more is 413 (SPEC §1). */
  limitBytes: number;
  /** The whole body must arrive within this; a body shorter than its Content-Length never would. */
  readTimeoutMs: number;
};

export type JsonBodyLimits = BodyLimits & {
  /** Deepest `[`/`{` nesting accepted (the top-level value is depth 1). */
  maxDepth: number;
  /**
   * Text Postgres cannot store (NUL, an unpaired surrogate) anywhere in the body: refused as
   * `invalid_input` (default), or kept for a route that checks the fields it reads itself and
   * ignores the rest (the agent hooks: a harness's payload is not ours to refuse).
   */
  unstorableText?: "refuse" | "keep";
};

/**
 * A refusal given before the body was read to its end: the connection cannot carry another
 * request (the rest of the body, or its promise, is still on it), so the answer closes it.
 */
export class UnreadBodyError extends AppError {
  constructor(code: ErrorCode) {
    super(code);
    this.name = "UnreadBodyError";
  }
}

/** JSON media types: application/json and application/*+json, with or without parameters. */
const JSON_TYPE = /^application\/(?:[a-z0-9.+-]+\+)?json\s*(?:;|$)/i;

export function hasJsonContentType(request: Request): boolean {
  return JSON_TYPE.test(request.headers.get("content-type") ?? "");
}

/** Invalid UTF-8 is rejected (invalid_json), never silently replaced. */
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The bytes as text, or null when they are not UTF-8: never decoded with U+FFFD in their place. */
export function utf8OrNull(bytes: Uint8Array): string | null {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return null;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Tracks the nesting depth of JSON text fed to it in pieces, in one pass over the bytes, without
 * parsing: only `"`, `\`, brackets and braces matter, and in UTF-8 those bytes never occur inside a
 * multi-byte character. Malformed text is left for JSON.parse to refuse.
 */
export class JsonDepthScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  constructor(private readonly maxDepth: number) {}

  /** False as soon as the nesting passes maxDepth. */
  feed(bytes: Uint8Array): boolean {
    let { depth, inString, escaped } = this;
    const max = this.maxDepth;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (b === BACKSLASH) escaped = true;
        else if (b === QUOTE) inString = false;
      } else if (b === QUOTE) inString = true;
      else if (b === OPEN_BRACKET || b === OPEN_BRACE) {
        if (++depth > max) return false;
      } else if (b === CLOSE_BRACKET || b === CLOSE_BRACE) depth--;
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    return true;
  }
}

/** The bounds of a read: a JSON body's nesting is scanned as it arrives, other bodies' is not. */
type ReadLimits = BodyLimits & { maxDepth?: number };

/**
 * Body reads' deadlines, one timer for all of them (a timer per read cost ~2 CPU-µs of a ~40 µs
 * heartbeat: bench/README.md). A stalled body is refused at most one tick after its deadline,
 * well inside the margin before Bun's idle close (shared/http/serve.ts, BODY_ANSWER_MARGIN_MS).
 */
const bodyDeadlines = new DeadlineSweep(50);

/**
 * Reads a body that declared its length (already checked against the limit before reading): Bun's
 * native read of the whole body, then the depth scan over the bytes. Reading it as a stream costs
 * the ReadableStream machinery on every request — measured as ~15% of the api's CPU under the
 * heartbeat benchmark — for nothing: the size is known, only the read time needs a bound.
 */
async function readDeclared(request: Request, limits: ReadLimits): Promise<Uint8Array> {
  // Past the deadline the read is abandoned; it settles (rejects) when the answer closes the connection.
  const bytes = await bodyDeadlines.within(
    limits.readTimeoutMs,
    request.bytes(),
    () => new UnreadBodyError("invalid_json"),
  );
  if (bytes.byteLength > limits.limitBytes) throw new AppError("payload_too_large");
  if (limits.maxDepth !== undefined && !new JsonDepthScanner(limits.maxDepth).feed(bytes))
    throw new AppError("invalid_input");
  return bytes;
}

/**
 * Reads a body of unknown length (chunked) within the limits, checking size and depth in the same
 * pass as the bytes arrive, so an oversized, over-deep or stalled body costs no more than reading
 * it up to the refusal:
 * - more than `limitBytes` → 413 `payload_too_large`;
 * - nesting deeper than `maxDepth` → 400 `invalid_input` (well-formed or not, no schema accepts it);
 * - not complete within `readTimeoutMs` → 400 `invalid_json` (what arrived is not a whole JSON text).
 */
async function readStreamed(body: ReadableStream<Uint8Array>, limits: ReadLimits): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  const scanner = limits.maxDepth === undefined ? null : new JsonDepthScanner(limits.maxDepth);
  let total = 0;
  const refusal = (code: ErrorCode): UnreadBodyError => {
    reader.cancel().catch(() => {});
    return new UnreadBodyError(code);
  };
  const read = async (signal: AbortSignal): Promise<Uint8Array> => {
    for (;;) {
      const next = await reader.read();
      // Past the deadline the reader is cancelled: what it still yields is dropped.
      if (signal.aborted || next.done) break;
      total += next.value.byteLength;
      if (total > limits.limitBytes) throw refusal("payload_too_large");
      if (scanner && !scanner.feed(next.value)) throw refusal("invalid_input");
      chunks.push(next.value);
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  };
  return withTimeout(limits.readTimeoutMs, read, () => refusal("invalid_json"));
}

/**
 * The request's JSON body (undefined when it has none), read within `limits`; a non-empty body of
 * another media type is 415 `unsupported_media_type`. Text Postgres
 * cannot store as sent — NUL, or an unpaired UTF-16 surrogate, which only a `\u` escape can carry
 * (raw UTF-8 cannot encode one) — is 400 `invalid_input`, never stored as U+FFFD.
 * The depth bound also bounds the recursion of that check.
 */
export async function readJsonBody(request: Request, limits: JsonBodyLimits): Promise<unknown> {
  // A declared body is read natively, without `request.body`: Bun builds a ReadableStream for that
  // getter (~0.4 µs per request, measured). A declared body that is not there reads as empty.
  const keep = limits.unstorableText === "keep";
  if (request.headers.has("content-length")) return parseJsonBytes(request, await readDeclared(request, limits), keep);
  if (!request.body) return undefined;
  return parseJsonBytes(request, await readStreamed(request.body, limits), keep);
}

/**
 * The request's body, whatever its media type, read within `limits` as a JSON body is (empty when
 * it has none), for a handler that parses it itself (the MCP process's OAuth forms and `/mcp`):
 * - a declared length over `limitBytes` → 413 `payload_too_large` before a byte is read (the
 *   caller's limit may be below BODY_LIMIT_BYTES, which the request rules checked already);
 * - a chunked body is counted as it arrives, 413 past the limit, never buffered whole first;
 * - not complete within `readTimeoutMs` → 400 `invalid_json`, as every body of the api.
 */
export async function readBodyBytes(request: Request, limits: BodyLimits): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    if (Number(declared) > limits.limitBytes) throw new UnreadBodyError("payload_too_large");
    return readDeclared(request, limits);
  }
  if (!request.body) return new Uint8Array(0);
  return readStreamed(request.body, limits);
}

function parseJsonBytes(request: Request, bytes: Uint8Array, keepUnstorable: boolean): unknown {
  if (bytes.byteLength === 0) return undefined;
  if (!hasJsonContentType(request)) throw new AppError("unsupported_media_type");
  let text: string;
  let body: unknown;
  try {
    text = STRICT_UTF8.decode(bytes);
    body = JSON.parse(text);
  } catch {
    throw new AppError("invalid_json");
  }
  if (!keepUnstorable && text.includes("\\u") && hasUnstorableText(body)) throw new AppError("invalid_input");
  return body;
}
