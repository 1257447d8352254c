import createClient, { type Client } from "openapi-fetch";
import { ERROR_CODES, type paths } from "./schema.generated";

export { ERROR_CODES };
export type { components, operations, paths } from "./schema.generated";

/** A code the api answers with: `{"error": code}` is the whole body of every error (SPEC §1.1). */
export type ErrorCode = (typeof ERROR_CODES)[number];
/** The body of every error response. */
export type AmemError = { error: ErrorCode };

export type AmemClientOptions = {
  /** Where the api answers, e.g. `http://127.0.0.1:3000` (a trailing slash is dropped). */
  baseUrl: string;
  /** Sent as `X-API-Key`. */
  apiKey?: string;
  /** A login token (`POST /auth/login`), sent as `Authorization: Bearer`. */
  bearer?: string;
  /** Defaults to the global fetch. */
  fetch?: (request: Request) => Promise<Response>;
};

/** The paths the client knows: every route of the api's OpenAPI document (generated). */
export type AmemPaths = paths;

/** A typed fetch client for every route of the api's OpenAPI document (openapi-fetch). */
export type AmemClient = Client<AmemPaths>;

/**
 * A client for the api at `baseUrl`. Each call the api answers resolves to `{data}` on 2xx and
 * `{error}` otherwise, with `error` typed as {@link AmemError} (check it at run time with
 * {@link isAmemError}: a proxy in front of the api may answer something else). A call nothing
 * answers (no connection) or that is redirected rejects with fetch's TypeError, and a body that is not JSON (a proxy's
 * HTML page) with a SyntaxError: as with fetch, wrap calls in try/catch where that must not throw.
 */
export function createAmemClient(options: AmemClientOptions): AmemClient {
  const headers: Record<string, string> = {};
  if (options.apiKey !== undefined) headers["x-api-key"] = options.apiKey;
  if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`;
  return createClient<AmemPaths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers,
    // The api never redirects. Followed, a redirect (a proxy's http → https, another host) would
    // resend the key: fetch drops Authorization across origins, but not X-API-Key (a probe saw
    // amem-hook hand its key and payload to the origin a 307 named). A call redirected rejects.
    redirect: "error",
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

const KNOWN_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/** True for exactly `{"error": <a known code>}`. */
export function isAmemError(value: unknown): value is AmemError {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === "error" && KNOWN_CODES.has((value as { error: unknown }).error as string);
}

/** The harnesses amem has hook endpoints for. */
export const HARNESSES = ["claude-code", "codex"] as const;
export type Harness = (typeof HARNESSES)[number];

/** A harness's hook output: `{}`, SessionStart context, or a Stop block (Claude Code's and Codex's shape). */
export type HookOutput = {
  hookSpecificOutput?: { hookEventName: string; additionalContext?: string };
  decision?: "block";
  reason?: string;
};
