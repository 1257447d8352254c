import { Elysia } from "elysia";
import {
  type ApiDeps,
  AUTHED_CODES,
  AUTHED_WRITE_CODES,
  BODY_CODES,
  errors,
  NoQuery,
  beginErasure,
  erasureJobId,
  AccountExport,
  DeleteAccountBody,
  DeleteAccountResponse,
  consoleSessionToken,
} from "@amem/core";
import { authPlugin } from "../plugins/auth";
import { AppError } from "@amem/platform";
import { streamAccountExport } from "./export-stream";
import { consoleCookie } from "../console/cookie";

/** The account (SPEC §8): erasure (GDPR Art. 17) through the account queue, and the export (Art. 20). */
export function accountRoutes(deps: ApiDeps) {
  return new Elysia({ name: "account-routes", prefix: "/api/v1", detail: { tags: ["account"] } })
    .use(authPlugin(deps))
    .delete(
      "/account",
      // No assertWritable: a retry while the account is already erasing must reach the job's answer.
      async ({ principal, request, set }) => {
        await beginErasure(deps, principal);
        const outcome = await deps.jobs.run(
          "erase-account",
          { userId: principal.userId },
          erasureJobId(principal.userId),
        );
        // Only a user row that is gone gives not_found, and then the credential is no one's.
        if (!outcome.ok) throw new AppError("unauthorized");
        // Erased from the console: its cookie names a session that is gone, so it goes too, as on sign-out.
        if (consoleSessionToken(request.headers) !== null) set.headers["set-cookie"] = consoleCookie(deps, "", 0);
        return outcome.value;
      },
      {
        body: DeleteAccountBody,
        query: NoQuery,
        response: { 200: DeleteAccountResponse, ...errors(...AUTHED_WRITE_CODES, ...BODY_CODES) },
      },
    )
    .get(
      "/export",
      // Streamed (the document of a large account does not fit one request's time or memory);
      // AccountExport still describes the body in the OpenAPI document.
      ({ principal, set }) => streamAccountExport(deps, principal.userId, String(set.headers["x-request-id"])),
      { query: NoQuery, response: { 200: AccountExport, ...errors(...AUTHED_CODES) } },
    );
}
