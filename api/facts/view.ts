import type { Static } from "elysia";
import type { FactRow } from "../../shared/db/queries/facts";
import { iso, isoOrNull } from "../../shared/time";
import type { FactView } from "./routes";

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
