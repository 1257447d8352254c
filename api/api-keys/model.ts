import { t } from "elysia";
import { Int, NullableTimestamp, strictObject, Text, Timestamp, Uuid } from "../../shared/contract/schema-kit";
import { KEY_NAME_MAX } from "../../shared/accounts/rules";

export const CreateKeyBody = strictObject({ name: Text({ minLength: 1, maxLength: KEY_NAME_MAX }) });
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
export const KeyList = strictObject({ count: Int(), keys: t.Array(KeySummary) });
export const KeyIdParams = strictObject({ id: Uuid });
