import type { Deps } from "../deps";
import { AppError } from "@amem/platform";
import {
  configureExportTransaction,
  readAgentSessionsPage,
  readCommitmentsPage,
  readExportAccount,
  readFactsPage,
  readMemoriesPage,
  readMemoryEdgesPage,
  readScopesPage,
  type ExportAccountRow,
  type AgentSessionRow,
} from "@amem/store";
import { leaseKey } from "../agent-sessions/lease-cache";
import { withCachedSeen } from "../agent-sessions/service";

/**
 * Rows per page read. Memory use follows it, not the account: a page of memories is at most
 * 500 × 8,000 characters of content (~4 MB of JSON), and the reader holds only a few pages.
 */
export const EXPORT_PAGE_ROWS = 500;

type Page<F extends (...args: never[]) => Promise<unknown[]>> = Awaited<ReturnType<F>>;
/** The rows of one page of each section. */
export type ExportPages = {
  scopes: Page<typeof readScopesPage>;
  memories: Page<typeof readMemoriesPage>;
  memoryEdges: Page<typeof readMemoryEdgesPage>;
  commitments: Page<typeof readCommitmentsPage>;
  facts: Page<typeof readFactsPage>;
  agentSessions: AgentSessionRow[];
};
export type ExportSection = keyof ExportPages;
export type { ExportAccountRow };

/** Where the export goes; each call may wait (the reader's pace), which paces the reads. */
export type ExportSink = {
  /** The account, read first: until it is called nothing has been promised to the client. */
  start: (account: ExportAccountRow) => Promise<void>;
  /**
   * Every page of every section. Sections come in document order (scopes, memories, memoryEdges,
   * commitments, facts, agentSessions: "amem-export/1"), each with at least one (maybe empty) page;
   * a section's last page is its first with fewer than EXPORT_PAGE_ROWS rows.
   */
  pages: { [S in ExportSection]: (rows: ExportPages[S]) => Promise<void> };
};

/**
 * Exports the user's data (GDPR Art. 20) as one consistent snapshot without holding it in memory:
 * one read-only repeatable-read transaction on one connection, every table read in keyset pages
 * (each page bounded by EXPORT_PAGE_TIMEOUT_MS) and handed to `sink` at the reader's pace. A write
 * landing meanwhile is wholly in the export or wholly out. Sessions carry the lease's fresher
 * `lastSeenAt` from Redis, as the session reads do. `signal` ends it early (the client went away,
 * the export's deadline passed): the transaction rolls back and the connection returns to the pool.
 * At most EXPORT_MAX_CONCURRENT run at once per process, so exports never hold every pooled
 * connection; one more waits up to DEPENDENCY_TIMEOUT_MS, then 503. An unknown user is 401. Both
 * are raised before `start`.
 */
export async function exportAccount(deps: Deps, userId: string, sink: ExportSink, signal: AbortSignal) {
  const readSection = async <R>(
    readPage: (after: string | null) => Promise<R[]>,
    keyOf: (row: R) => string,
    handPage: (rows: R[]) => Promise<void>,
  ) => {
    let after: string | null = null;
    for (;;) {
      signal.throwIfAborted();
      const rows = await readPage(after);
      signal.throwIfAborted();
      await handPage(rows);
      if (rows.length < EXPORT_PAGE_ROWS) return;
      after = keyOf(rows[rows.length - 1]!);
    }
  };
  const byId = (row: { id: string }) => row.id;
  const n = EXPORT_PAGE_ROWS;
  await deps.exportLimiter.run(() =>
    deps.db.transaction(
      async (tx) => {
        await configureExportTransaction(tx, deps.config.EXPORT_PAGE_TIMEOUT_MS);
        const account = await readExportAccount(tx, userId);
        if (!account) throw new AppError("unauthorized");
        await sink.start(account);
        const { pages } = sink;
        await readSection(
          (after) => readScopesPage(tx, userId, after, n),
          (s) => s.name,
          pages.scopes,
        );
        await readSection((after) => readMemoriesPage(tx, userId, after, n), byId, pages.memories);
        await readSection((after) => readMemoryEdgesPage(tx, userId, after, n), byId, pages.memoryEdges);
        await readSection((after) => readCommitmentsPage(tx, userId, after, n), byId, pages.commitments);
        await readSection((after) => readFactsPage(tx, userId, after, n), byId, pages.facts);
        await readSection(
          async (after) => withLeases(deps, await readAgentSessionsPage(tx, userId, after, n)),
          byId,
          pages.agentSessions,
        );
        // Stopped while the last page was being handed over: the export is not whole.
        signal.throwIfAborted();
      },
      { isolationLevel: "repeatable read", accessMode: "read only" },
    ),
  );
}

/** A page of sessions with the fresher `lastSeenAt` of their leases (one Redis round trip). */
async function withLeases(deps: Deps, rows: AgentSessionRow[]): Promise<AgentSessionRow[]> {
  if (rows.length === 0) return rows;
  const pipeline = deps.redis.pipeline();
  for (const row of rows) pipeline.hmget(leaseKey(deps, row), "run", "epoch", "seen", "closed");
  const leases = (await pipeline.exec()) ?? [];
  return rows.map((row, i) => {
    const [error, fields] = leases[i] ?? [null, null];
    if (error) throw error;
    const [runId, epoch, seen, closed] = (fields ?? []) as (string | null)[];
    return runId
      ? withCachedSeen(row, { runId, epoch: Number(epoch), seenMs: Number(seen), closedMs: Number(closed) })
      : row;
  });
}
