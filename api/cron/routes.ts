import { Elysia, t } from "elysia";
import { createHash, timingSafeEqual } from "node:crypto";
import { AppError, bearerCredential } from "@amem/platform";
import { SCHEDULED_JOBS } from "@amem/store";
import { countFailedAuthentication } from "../plugins/auth";
import { type ApiDeps, AUTHED_CODES, BODY_CODES, errors, NoQuery, oneOf, strictObject } from "@amem/core";

const CronAccepted = strictObject({ job: oneOf(SCHEDULED_JOBS), jobId: t.String() });
/** Nothing to send; an empty object is tolerated, anything in it is an unknown property (400). */
const CronBody = t.Union([t.Undefined(), strictObject({})]);

const sha256 = (value: string) => createHash("sha256").update(value).digest();

/**
 * Constant-time comparison of the presented secret with CRON_SECRET: both are hashed first, so
 * neither the content nor the length of the secret shows in the timing.
 */
export function cronSecretMatches(expected: string, presented: string): boolean {
  return timingSafeEqual(sha256(expected), sha256(presented));
}

/**
 * The secret a request presents: `X-Cron-Secret`, else `Authorization: Bearer`. A request carrying
 * an API key presents none (keys never work here, seed §5.6); as on every route, the header
 * considered first is the only one considered.
 */
function presentedSecret(headers: Headers): string | null {
  if (headers.has("x-api-key")) return null;
  const header = headers.get("x-cron-secret");
  if (header !== null) return header;
  return bearerCredential(headers.get("authorization"));
}

/**
 * `POST /api/internal/cron/{job}` (SPEC §2.4): enqueues one run of a maintenance job for the
 * workers and answers 202 at once. Only the cron secret is accepted; an API key or a session
 * bearer is 401. Without CRON_SECRET the routes do not exist (404).
 */
export function cronRoutes(deps: ApiDeps) {
  const app = new Elysia({ name: "cron-routes", prefix: "/api/internal/cron", detail: { tags: ["operations"] } });
  const secret = deps.config.CRON_SECRET;
  if (secret === undefined) return app;
  // Local (the default): the secret check guards this plugin's routes only. Lifted (`scoped`), it
  // applied to every route registered after it in the app and locked users out (issue 10, #1).
  const authorized = app.resolve(async ({ request }) => {
    const presented = presentedSecret(request.headers);
    if (presented === null || !cronSecretMatches(secret, presented)) {
      await countFailedAuthentication(deps, request);
      throw new AppError("unauthorized");
    }
    return {};
  });
  for (const job of SCHEDULED_JOBS) {
    authorized.post(
      `/${job}`,
      async ({ set }) => {
        const jobId = await deps.jobs.enqueue(job, {});
        set.status = 202;
        return { job, jobId };
      },
      {
        body: CronBody,
        query: NoQuery,
        response: { 202: CronAccepted, ...errors(...AUTHED_CODES, ...BODY_CODES) },
        detail: {
          summary: `Run ${job} now`,
          description:
            "Enqueues the job for the workers (they also schedule it themselves). 404 on every cron path when CRON_SECRET is unset.",
          security: [{ cronSecret: [] }, { bearer: [] }],
        },
      },
    );
  }
  return authorized;
}
