import { Elysia, type Static } from "elysia";
import type { ApiDeps } from "../client-ip";
import { authPlugin } from "../plugins/auth";
import { AUTHED_ERRORS, errors, NoQuery } from "../schemas";
import { AppError } from "../../shared/errors";
import { beginErasure, erasureJobId } from "../../shared/accounts/erasure";
import { exportAccount, type AccountExport as ExportData } from "../../shared/accounts/export";
import { iso, isoOrNull } from "../../shared/time";
import { memoryView } from "../memories/view";
import { sessionView } from "../agent-sessions/view";
import { AccountExport, DeleteAccountBody, DeleteAccountResponse } from "./model";

function exportView(data: ExportData, now: Date): Static<typeof AccountExport> {
  return {
    format: "amem-export/1",
    exportedAt: iso(now),
    account: {
      id: data.account.id,
      email: data.account.email,
      createdAt: iso(data.account.createdAt),
      emailVerifiedAt: isoOrNull(data.account.emailVerifiedAt),
    },
    scopes: data.scopes.map((s) => ({ id: s.id, name: s.name, aliases: s.aliases, createdAt: iso(s.createdAt) })),
    memories: data.memories.map(memoryView),
    memoryEdges: data.memoryEdges.map((e) => ({
      id: e.id,
      fromId: e.fromId,
      toId: e.toId,
      edgeType: e.edgeType as "supersedes" | "updates" | "extends" | "derives",
      createdAt: iso(e.createdAt),
    })),
    commitments: data.commitments.map((c) => ({
      id: c.id,
      memoryId: c.memoryId,
      status: c.status,
      dueAt: isoOrNull(c.dueAt),
      createdAt: iso(c.createdAt),
      updatedAt: iso(c.updatedAt),
      resolvedAt: isoOrNull(c.resolvedAt),
    })),
    facts: data.facts.map((f) => ({
      id: f.id,
      memoryId: f.memoryId,
      subject: f.subject,
      predicate: f.predicate,
      value: f.value,
      validFrom: iso(f.validFrom),
      validTo: isoOrNull(f.validTo),
      recordedAt: iso(f.recordedAt),
      retractedAt: isoOrNull(f.retractedAt),
    })),
    agentSessions: data.agentSessions.map((s) => ({ ...sessionView(s), lastMessageExcerpt: s.lastMessageExcerpt })),
  };
}

/** The account (SPEC §8): erasure (GDPR Art. 17) through the account queue, and the export (Art. 20). */
export function accountRoutes(deps: ApiDeps) {
  return new Elysia({ name: "account-routes", prefix: "/api/v1", detail: { tags: ["account"] } })
    .use(authPlugin(deps))
    .delete(
      "/account",
      // No assertWritable: a retry while the account is already erasing must reach the job's answer.
      async ({ principal }) => {
        await beginErasure(deps, principal);
        const outcome = await deps.jobs.run(
          "erase-account",
          { userId: principal.userId },
          erasureJobId(principal.userId),
        );
        // Only a user row that is gone gives not_found, and then the credential is no one's.
        if (!outcome.ok) throw new AppError("unauthorized");
        return outcome.value;
      },
      {
        body: DeleteAccountBody,
        query: NoQuery,
        response: { 200: DeleteAccountResponse, ...errors(...AUTHED_ERRORS, 413, 415) },
      },
    )
    .get("/export", async ({ principal }) => exportView(await exportAccount(deps, principal.userId), new Date()), {
      query: NoQuery,
      response: { 200: AccountExport, ...errors(...AUTHED_ERRORS) },
    });
}
