import { Type } from "@sinclair/typebox";
import { COMMITMENT_STATUSES } from "../db/schema";
import { MemoryView } from "./memories";
import { NullableTimestamp, strictObject, UnionEnum } from "./schema-kit";

/* The console's own endpoints (issue 21): its cookie session and the views its screens need. */

export const ConsoleSession = strictObject({
  userId: Type.String(),
  email: Type.String(),
  csrfToken: Type.Union([Type.String(), Type.Null()], {
    description: "Send as X-CSRF-Token on every state-changing call made with the console cookie; null without one",
  }),
});

const CommitmentStatusOut = UnionEnum([...COMMITMENT_STATUSES]);
export const ConsoleMemoryDetail = strictObject({
  memory: MemoryView,
  commitment: Type.Union([
    strictObject({
      status: CommitmentStatusOut,
      dueAt: NullableTimestamp,
      moves: Type.Array(CommitmentStatusOut, { description: "The statuses the state machine allows next" }),
    }),
    Type.Null(),
  ]),
});
