import { Elysia, t } from "elysia";
import { readFacts } from "../../shared/memories/facts";
import type { ApiDeps } from "../client-ip";
import { authPlugin } from "../plugins/auth";
import { factView } from "./view";
import {
  AUTHED_ERRORS,
  errors,
  Int,
  NullableTimestamp,
  QueryInteger,
  strictObject,
  Text,
  Timestamp,
  TimestampIn,
  Uuid,
} from "../../shared/contract/schema-kit";

const FactsQuery = t.Object(
  {
    subject: t.Optional(Text({ minLength: 1, maxLength: 256 })),
    predicate: t.Optional(Text({ minLength: 1, maxLength: 256 })),
    validAt: t.Optional(TimestampIn),
    knownAt: t.Optional(TimestampIn),
    limit: t.Optional(QueryInteger({ minimum: 1, maximum: 100 })),
  },
  { additionalProperties: false },
);
/** A fact as the API shows it (also in the export). */
export const FactView = strictObject({
  id: Uuid,
  memoryId: t.Union([Uuid, t.Null()]),
  subject: t.String(),
  predicate: t.String(),
  value: t.String(),
  validFrom: Timestamp,
  validTo: NullableTimestamp,
  recordedAt: Timestamp,
  retractedAt: NullableTimestamp,
});
const FactList = strictObject({ count: Int(), items: t.Array(FactView) });

/** Bi-temporal fact reads (SPEC §4.3): `validAt` is world time, `knownAt` system time; both default to now. */
export function factRoutes(deps: ApiDeps) {
  return new Elysia({ name: "fact-routes", detail: { tags: ["facts"] } }).use(authPlugin(deps)).get(
    "/api/v1/facts",
    async ({ query, principal }) => {
      const rows = await readFacts(deps, principal, query);
      return {
        count: rows.length,
        items: rows.map(factView),
      };
    },
    { query: FactsQuery, response: { 200: FactList, ...errors(...AUTHED_ERRORS) } },
  );
}
