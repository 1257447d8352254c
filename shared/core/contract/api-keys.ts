/* API keys (SPEC §2.2) in the REST contract: the create body, the minted key (secret shown once), the listing. */
import { Type, type Static } from "@sinclair/typebox";
import type { createApiKey, listApiKeysWithUse } from "../accounts/api-keys";
import { KEY_NAME_MAX } from "../accounts/rules";
import { iso, isoOrNull } from "@amem/platform";
import { Int, NullableTimestamp, strictObject, Text, Timestamp, Uuid } from "./schema-kit";

export const CreateKeyBody = strictObject({
  name: Text({ minLength: 1, maxLength: KEY_NAME_MAX, format: "display-name" }),
});
export const CreatedKey = strictObject({
  id: Uuid,
  name: Type.String(),
  prefix: Type.String(),
  key: Type.String({ description: "The full secret; shown only in this response" }),
  createdAt: Timestamp,
});
export const KeySummary = strictObject({
  id: Uuid,
  name: Type.String(),
  prefix: Type.String(),
  createdAt: Timestamp,
  lastUsedAt: NullableTimestamp,
  revokedAt: NullableTimestamp,
});
export const KeyList = strictObject({ count: Int(), keys: Type.Array(KeySummary) });
export const KeyIdParams = strictObject({ id: Uuid });

export function createdKeyView(key: Awaited<ReturnType<typeof createApiKey>>): Static<typeof CreatedKey> {
  return { ...key, createdAt: iso(key.createdAt) };
}

export function keyListView(keys: Awaited<ReturnType<typeof listApiKeysWithUse>>): Static<typeof KeyList> {
  return {
    count: keys.length,
    keys: keys.map((k) => ({
      id: k.id,
      name: k.name,
      prefix: k.prefix,
      createdAt: iso(k.createdAt),
      lastUsedAt: isoOrNull(k.lastUsedAt),
      revokedAt: isoOrNull(k.revokedAt),
    })),
  };
}
