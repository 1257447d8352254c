import { index, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { idColumn, ts } from "./columns";
import { users } from "./users";

/** API keys: only the SHA-256 of the secret is kept; `prefix` is for display and cannot authenticate. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: idColumn(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    keyHash: text("key_hash").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    lastUsedAt: ts("last_used_at"),
    revokedAt: ts("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_key_hash_key").on(t.keyHash), index("api_keys_user_idx").on(t.userId, t.createdAt)],
);
