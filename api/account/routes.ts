import { Elysia } from "elysia";
import {
  type ApiDeps,
  AUTHED_CODES,
  AUTHED_WRITE_CODES,
  BODY_CODES,
  errors,
  NoQuery,
  beginErasure,
  erasureAnswer,
  AccountExport,
  DeleteAccountBody,
  DeleteAccountResponse,
  consoleSessionToken,
  accountErasedUnder,
  authenticate,
  credentialFromRequest,
  type Principal,
} from "@amem/core";
import { authPlugin, withCredential } from "../plugins/auth";
import { AppError } from "@amem/platform";
import { streamAccountExport } from "./export-stream";
import { consoleCookie } from "../console/cookie";

/** The account (SPEC §8): erasure (GDPR Art. 17) through the account queue, and the export (Art. 20). */
export function accountRoutes(deps: ApiDeps) {
  /** The account an erasure-revoked API key asks about, if that is what the request carries. */
  const erasedUnderCredential = async (request: Request): Promise<string | undefined> => {
    try {
      return await accountErasedUnder(deps, credentialFromRequest(request));
    } catch {
      return undefined;
    }
  };
  const eraseJob = async (userId: string, askedAt: Date) => {
    const outcome = await erasureAnswer(deps, userId, askedAt);
    // Only a user row that is gone gives not_found, and then the credential is no one's.
    if (!outcome.ok) throw new AppError("unauthorized");
    return outcome.value;
  };
  return new Elysia({ name: "account-routes", prefix: "/api/v1", detail: { tags: ["account"] } })
    .delete(
      "/account",
      // Authenticated here, not by the plugin: the erasure revokes the key that asked for it, and a
      // client whose first DELETE got 503 (no worker running) must still hear an answer on its retry
      // — the running job's, or once it is done a repeat's `alreadyDeleted` — not 401 for the key
      // the job revoked. No assertWritable: a retry while the account is erasing reaches the same job.
      async ({ request, set }) => {
        const askedAt = new Date();
        set.headers["cache-control"] = "no-store";
        let principal: Principal;
        try {
          principal = await withCredential(deps, request, (credential) => authenticate(deps, credential));
        } catch (error) {
          if (!(error instanceof AppError && error.code === "unauthorized")) throw error;
          const erased = await erasedUnderCredential(request);
          if (erased === undefined) throw error;
          return eraseJob(erased, askedAt);
        }
        await beginErasure(deps, principal);
        const answer = await eraseJob(principal.userId, askedAt);
        // Erased from the console: its cookie names a session that is gone, so it goes too, as on sign-out.
        if (consoleSessionToken(request.headers) !== null) set.headers["set-cookie"] = consoleCookie(deps, "", 0);
        return answer;
      },
      {
        body: DeleteAccountBody,
        query: NoQuery,
        response: { 200: DeleteAccountResponse, ...errors(...AUTHED_WRITE_CODES, ...BODY_CODES) },
      },
    )
    .use(authPlugin(deps))
    .get(
      "/export",
      // Streamed (the document of a large account does not fit one request's time or memory);
      // AccountExport still describes the body in the OpenAPI document.
      ({ principal, set }) => streamAccountExport(deps, principal.userId, String(set.headers["x-request-id"])),
      { query: NoQuery, response: { 200: AccountExport, ...errors(...AUTHED_CODES) } },
    );
}
