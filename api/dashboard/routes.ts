import { Elysia } from "elysia";
import { COMMITMENT_STATUSES, MEMORY_TYPES, PROPOSAL_STATUSES, TRIAGE_STATUSES } from "@amem/store";
import {
  dashboardSummary,
  type ApiDeps,
  AUTHED_CODES,
  errors,
  Int,
  NoQuery,
  NullableTimestamp,
  strictObject,
} from "@amem/core";
import { isoOrNull } from "@amem/platform";
import { authPlugin } from "../plugins/auth";

/** An object with exactly these keys, each a count. */
const countsOf = (keys: readonly string[]) =>
  strictObject(Object.fromEntries(keys.map((k) => [k, Int({ minimum: 0 })])));
const Count = Int({ minimum: 0 });
const Summary = strictObject({
  memories: strictObject({
    total: Count,
    current: Count,
    superseded: Count,
    archived: Count,
    byType: countsOf(MEMORY_TYPES),
  }),
  commitments: strictObject({ byStatus: countsOf(COMMITMENT_STATUSES) }),
  sessions: strictObject({ live: Count, closed: Count, byTriageStatus: countsOf(TRIAGE_STATUSES) }),
  proposals: countsOf(PROPOSAL_STATUSES),
  scopes: Count,
  apiKeys: strictObject({ active: Count }),
  lastActivityAt: NullableTimestamp,
});

/** The dashboard summary (seed 4.8, SPEC §9); the console's Overview shows it (the page moved to /app). */
export function dashboardRoutes(deps: ApiDeps) {
  return new Elysia({ name: "dashboard-routes", detail: { tags: ["dashboard"] } }).use(authPlugin(deps)).get(
    "/api/dashboard/summary",
    async ({ principal }) => {
      const summary = await dashboardSummary(deps, principal);
      return { ...summary, lastActivityAt: isoOrNull(summary.lastActivityAt) };
    },
    { query: NoQuery, response: { 200: Summary, ...errors(...AUTHED_CODES) } },
  );
}
