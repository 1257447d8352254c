import { Elysia } from "elysia";
import {
  createMemory,
  type ApiDeps,
  AUTHED_CODES,
  AUTHED_WRITE_CODES,
  BODY_CODES,
  errors,
  NoQuery,
  ArchiveBody,
  CaptureBody,
  CaptureResponse,
  captureView,
  CreatedMemory,
  createdMemoryView,
  CreateMemoryBody,
  ListMemoriesQuery,
  MemoryHistory,
  memoryHistoryView,
  MemoryIdParams,
  MemoryPage,
  memoryPageView,
  MemoryView,
  memoryView,
  Resolved,
  ResolveBody,
  resolvedView,
  ReviseBody,
  getMemory,
  listTenantMemories,
  memoryHistory,
  archiveMemory,
  resolveMemory,
  reviseMemory,
} from "@amem/core";
import { authPlugin } from "../plugins/auth";

const WRITE_CODES = [...AUTHED_WRITE_CODES, ...BODY_CODES, "account_deleted"] as const;

/** Memory capture (seed 4.8, SPEC §4.2) and the versioned memory API (SPEC §4.3). */
export function memoryRoutes(deps: ApiDeps) {
  return new Elysia({ name: "memory-routes", detail: { tags: ["memories"] } })
    .use(authPlugin(deps))
    .post(
      "/api/memories",
      async ({ body, principal, status }) => {
        const { memory_type, session_run_id, ...rest } = body;
        const { memory: row } = await createMemory(
          deps,
          principal,
          { ...rest, memoryType: memory_type, sessionRunId: session_run_id?.toLowerCase() },
          "capture",
        );
        return status(201, captureView(row));
      },
      {
        body: CaptureBody,
        query: NoQuery,
        response: { 201: CaptureResponse, ...errors(...WRITE_CODES, "duplicate_memory") },
      },
    )
    .post(
      "/api/v1/memories",
      async ({ body, principal, status }) => {
        const created = await createMemory(
          deps,
          principal,
          { ...body, sessionRunId: body.sessionRunId?.toLowerCase() },
          "remember",
        );
        return status(201, createdMemoryView(created, body.facts !== undefined));
      },
      {
        body: CreateMemoryBody,
        query: NoQuery,
        response: { 201: CreatedMemory, ...errors(...WRITE_CODES, "duplicate_memory") },
      },
    )
    .get(
      "/api/v1/memories",
      async ({ query, principal }) => {
        const page = await listTenantMemories(deps, principal, {
          ...query,
          current: query.current === undefined ? undefined : query.current === "true",
        });
        return memoryPageView(page);
      },
      { query: ListMemoriesQuery, response: { 200: MemoryPage, ...errors(...AUTHED_CODES) } },
    )
    .post(
      "/api/v1/memories/:id/revise",
      async ({ params, body, principal, status }) =>
        status(201, {
          memory: memoryView(
            await reviseMemory(deps, principal, params.id.toLowerCase(), {
              ...body,
              sessionRunId: body.sessionRunId?.toLowerCase(),
            }),
          ),
        }),
      {
        params: MemoryIdParams,
        body: ReviseBody,
        query: NoQuery,
        response: { 201: CreatedMemory, ...errors(...WRITE_CODES, "not_found", "conflict", "duplicate_memory") },
      },
    )
    .post(
      "/api/v1/memories/:id/resolve",
      async ({ params, body, principal }) => {
        return resolvedView(
          await resolveMemory(deps, principal, params.id.toLowerCase(), body.status, body.sessionRunId?.toLowerCase()),
        );
      },
      {
        params: MemoryIdParams,
        body: ResolveBody,
        query: NoQuery,
        response: { 200: Resolved, ...errors(...WRITE_CODES, "not_found", "invalid_transition") },
      },
    )
    .post(
      "/api/v1/memories/:id/archive",
      async ({ params, body, principal }) =>
        memoryView(await archiveMemory(deps, principal, params.id.toLowerCase(), body?.sessionRunId?.toLowerCase())),
      {
        params: MemoryIdParams,
        body: ArchiveBody,
        query: NoQuery,
        response: { 200: MemoryView, ...errors(...WRITE_CODES, "not_found", "conflict") },
      },
    )
    .get(
      "/api/v1/memories/:id/history",
      async ({ params, principal }) => {
        return memoryHistoryView(await memoryHistory(deps, principal, params.id.toLowerCase()));
      },
      {
        params: MemoryIdParams,
        query: NoQuery,
        response: { 200: MemoryHistory, ...errors(...AUTHED_CODES, "not_found") },
      },
    )
    .get(
      "/api/v1/memories/:id",
      async ({ params, principal }) => memoryView(await getMemory(deps, principal, params.id.toLowerCase())),
      {
        params: MemoryIdParams,
        query: NoQuery,
        response: { 200: MemoryView, ...errors(...AUTHED_CODES, "not_found") },
      },
    );
}
