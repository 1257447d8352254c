/* Facts in the REST and MCP contract: the bi-temporal read's query, the fact model and its view. */
import { Type, type Static } from "@sinclair/typebox";
import type { FactRow } from "@amem/store";
import { iso, isoOrNull } from "@amem/platform";
import {
  Cursor,
  Int,
  NullableTimestamp,
  QueryInteger,
  strictObject,
  Text,
  Timestamp,
  TimestampIn,
  Uuid,
} from "./schema-kit";

export const FactsQuery = Type.Object(
  {
    subject: Type.Optional(Text({ minLength: 1, maxLength: 256 })),
    predicate: Type.Optional(Text({ minLength: 1, maxLength: 256 })),
    validAt: Type.Optional(TimestampIn),
    knownAt: Type.Optional(TimestampIn),
    limit: Type.Optional(QueryInteger({ minimum: 1, maximum: 100 })),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
/** A fact as the API shows it (also in the export). */
export const FactView = strictObject({
  id: Uuid,
  memoryId: Type.Union([Uuid, Type.Null()]),
  subject: Type.String(),
  predicate: Type.String(),
  value: Type.String(),
  validFrom: Timestamp,
  validTo: NullableTimestamp,
  recordedAt: Timestamp,
  retractedAt: NullableTimestamp,
});
/** A page of facts: `count` is the page's length; `nextCursor` continues it (null: the last page). */
export const FactList = strictObject({
  count: Int(),
  items: Type.Array(FactView),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});

/** A fact as the API shows it: the facts read and the export. */
export function factView(f: FactRow): Static<typeof FactView> {
  return {
    id: f.id,
    memoryId: f.memoryId,
    subject: f.subject,
    predicate: f.predicate,
    value: f.value,
    validFrom: iso(f.validFrom),
    validTo: isoOrNull(f.validTo),
    recordedAt: iso(f.recordedAt),
    retractedAt: isoOrNull(f.retractedAt),
  };
}

export function factListView(page: { rows: FactRow[]; nextCursor: string | null }): Static<typeof FactList> {
  return { count: page.rows.length, items: page.rows.map(factView), nextCursor: page.nextCursor };
}
