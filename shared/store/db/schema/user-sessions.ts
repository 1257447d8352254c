import { index, pgTable, uniqueIndex, uuid, text } from "drizzle-orm/pg-core";
import { idColumn, ts } from "./columns";
import { users } from "./users";

/** Bearer sessions from /auth/login; the token itself is never stored, only its SHA-256. */
export const userSessions = pgTable(
  "user_sessions",
  {
    id: idColumn(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    tokenHash: text("token_hash").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
    revokedAt: ts("revoked_at"),
  },
  (t) => [uniqueIndex("user_sessions_token_hash_key").on(t.tokenHash), index("user_sessions_user_idx").on(t.userId)],
);
