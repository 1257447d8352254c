import {
  factView,
  exportAccount,
  type ExportAccountRow,
  type ExportSink,
  type ApiDeps,
  memoryView,
  exportAccountView,
  exportCommitmentView,
  exportEdgeView,
  exportScopeView,
  exportSessionView,
} from "@amem/core";
import { loggableError, iso } from "@amem/platform";
import { PacedStream } from "../paced-stream";

/** Why an export ended before its last page (the abort reasons of its signal). */
class ExportStopped extends Error {
  constructor(readonly why: "client-gone" | "deadline") {
    super(why);
  }
}

/**
 * "amem-export/1" written as it is read: the header with the account, then each section's array
 * item by item (in the order the pages arrive), then the closing brace. The same document as
 * AccountExport describes; only its closing brace says it is complete.
 */
function documentWriter(out: PacedStream, exportedAt: Date) {
  let current: string | null = null;
  let empty = true;
  const section =
    <R>(name: string, view: (row: R) => unknown) =>
    async (rows: R[]) => {
      let text = "";
      if (current !== name) {
        text += `${current === null ? "" : "]"},${JSON.stringify(name)}:[`;
        current = name;
        empty = true;
      }
      for (const row of rows) {
        text += (empty ? "" : ",") + JSON.stringify(view(row));
        empty = false;
      }
      await out.write(text);
    };
  const sink: ExportSink = {
    start: (account: ExportAccountRow) =>
      out.write(
        `{"format":"amem-export/1","exportedAt":${JSON.stringify(iso(exportedAt))},` +
          `"account":${JSON.stringify(exportAccountView(account))}`,
      ),
    pages: {
      scopes: section("scopes", exportScopeView),
      memories: section("memories", memoryView),
      memoryEdges: section("memoryEdges", exportEdgeView),
      commitments: section("commitments", exportCommitmentView),
      facts: section("facts", factView),
      agentSessions: section("agentSessions", exportSessionView),
    },
  };
  return { sink, finish: () => out.write(current === null ? "}" : "]}") };
}

/**
 * GET /api/v1/export as a stream (issue 10, defect 14: a large account's export used to time out
 * on every retry). Until the account row is read a failure is an ordinary error answer (401, 503);
 * after that the status is 200 and sent, so a failure mid-way — Postgres failing, the export's
 * EXPORT_TIMEOUT_MS passing — aborts the body (the reader sees an error, never a document that
 * merely looks complete) and is logged. A client that stops reading cancels the body: the export's
 * transaction rolls back and its connection goes back to the pool.
 */
export async function streamAccountExport(deps: ApiDeps, userId: string, requestId: string): Promise<Response> {
  const stop = new AbortController();
  const out = new PacedStream(stop, () => new ExportStopped("client-gone"));
  const document = documentWriter(out, new Date());
  let started!: () => void;
  const start = new Promise<void>((resolve) => {
    started = resolve;
  });
  const sink: ExportSink = {
    start: async (account) => {
      await document.sink.start(account);
      started();
    },
    pages: document.sink.pages,
  };
  const deadline = setTimeout(() => stop.abort(new ExportStopped("deadline")), deps.config.EXPORT_TIMEOUT_MS);
  const run = exportAccount(deps, userId, sink, stop.signal).finally(() => clearTimeout(deadline));
  await Promise.race([start, run]);
  run.then(
    async () => {
      await document.finish();
      // A write dropped by a late abort must not end the body as if it were whole.
      if (stop.signal.aborted) out.fail();
      else out.close();
    },
    (error) => {
      out.fail();
      const reason = stop.signal.aborted ? stop.signal.reason : null;
      if (reason instanceof ExportStopped && reason.why === "client-gone")
        deps.logger.info({ requestId }, "export stopped: the client stopped reading");
      else if (reason instanceof ExportStopped)
        deps.logger.warn(
          { requestId, exportTimeoutMs: deps.config.EXPORT_TIMEOUT_MS },
          "export stopped at its deadline; the response was aborted",
        );
      else deps.logger.error({ requestId, err: loggableError(error) }, "export failed; the response was aborted");
    },
  );
  return new Response(out.body, {
    headers: { "content-type": "application/json", "x-request-id": requestId, "cache-control": "no-store" },
  });
}
