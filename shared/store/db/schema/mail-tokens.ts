import { index, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { idColumn, ts } from "./columns";
import { users } from "./users";

/** Single-use tokens sent by mail; both kinds share one shape and are stored hashed. */
const mailTokenColumns = () => ({
  id: idColumn(),
  userId: uuid("user_id")
    .notNull()
    .references(() => users.id),
  tokenHash: text("token_hash").notNull(),
  createdAt: ts("created_at").notNull().defaultNow(),
  expiresAt: ts("expires_at").notNull(),
  usedAt: ts("used_at"),
});

export const emailVerificationTokens = pgTable("email_verification_tokens", mailTokenColumns(), (t) => [
  uniqueIndex("email_verification_tokens_hash_key").on(t.tokenHash),
  index("email_verification_tokens_user_idx").on(t.userId),
]);

export const passwordResetTokens = pgTable("password_reset_tokens", mailTokenColumns(), (t) => [
  uniqueIndex("password_reset_tokens_hash_key").on(t.tokenHash),
  index("password_reset_tokens_user_idx").on(t.userId),
]);
