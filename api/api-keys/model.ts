import { t } from "elysia";
import { NullableTimestamp, strictObject, Timestamp, Uuid } from "../schemas";

export const CreateKeyBody = strictObject({ name: t.String({ minLength: 1, maxLength: 64 }) });
export const CreatedKey = strictObject({
  id: Uuid,
  name: t.String(),
  prefix: t.String(),
  key: t.String({ description: "The full secret; shown only in this response" }),
  createdAt: Timestamp,
});
export const KeySummary = strictObject({
  id: Uuid,
  name: t.String(),
  prefix: t.String(),
  createdAt: Timestamp,
  lastUsedAt: NullableTimestamp,
  revokedAt: NullableTimestamp,
});
export const KeyList = strictObject({ count: t.Integer(), keys: t.Array(KeySummary) });
export const KeyIdParams = strictObject({ id: Uuid });
