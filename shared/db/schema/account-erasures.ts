import { jsonb, pgTable, uuid } from "drizzle-orm/pg-core";
import { ts } from "./columns";

export type ErasureCounts = {
  agentSessions: number;
  apiKeysRevoked: number;
  commitments: number;
  emailVerificationTokensDeleted: number;
  factProposals: number;
  facts: number;
  memories: number;
  oauthCodesDeleted: number;
  oauthTokensRevoked: number;
  passwordResetTokensDeleted: number;
  proposals: number;
  sessionsDeleted: number;
};

/**
 * The erasure ledger (SPEC §8): proof that an account was erased, holding no personal data —
 * only the (now anonymous) user id, the time and the counts. One row per user.
 */
export const accountErasures = pgTable("account_erasures", {
  id: uuid("id").primaryKey(),
  userId: uuid("user_id").notNull().unique("account_erasures_user_key"),
  erasedAt: ts("erased_at").notNull(),
  counts: jsonb("counts").$type<ErasureCounts>().notNull(),
});
