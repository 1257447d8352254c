import { Type } from "@sinclair/typebox";
import { ACTIVITY_RANGES } from "../console/activity";
import { COMMITMENT_STATUSES, MEMORY_TYPES, TRIAGE_STATUSES } from "@amem/store";
import { FactView } from "./facts";
import { MemoryView } from "./memories";
import { Int, NullableTimestamp, oneOf, strictObject, UnionEnum } from "./schema-kit";

const MemoryTypeOut = UnionEnum([...MEMORY_TYPES]);
const TriageStatusOut = UnionEnum([...TRIAGE_STATUSES]);

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
  facts: Type.Array(FactView, {
    description: "The facts the memory stated, as recorded (closed and retracted ones too)",
  }),
  commitment: Type.Union([
    strictObject({
      status: CommitmentStatusOut,
      dueAt: NullableTimestamp,
      moves: Type.Array(CommitmentStatusOut, { description: "The statuses the state machine allows next" }),
    }),
    Type.Null(),
  ]),
});

const Count = Int({ minimum: 0 });
export const ActivityQuery = Type.Object(
  { days: Type.Optional(oneOf(ACTIVITY_RANGES)) },
  { additionalProperties: false },
);
export const ConsoleActivity = strictObject({
  days: Type.Array(Type.String({ description: "The range's UTC days, oldest first (YYYY-MM-DD)" })),
  memories: Type.Array(strictObject({ day: Type.String(), memoryType: MemoryTypeOut, count: Count })),
  sessions: Type.Array(
    strictObject({ day: Type.String(), agent: Type.String(), triageStatus: TriageStatusOut, count: Count }),
  ),
  commitments: strictObject({ overdue: Count, thisWeek: Count, later: Count, noDueDate: Count }),
});
