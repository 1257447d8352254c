import { Elysia } from "elysia";
import type { ApiDeps } from "../client-ip";
import { closeSession, getSession, heartbeatWithCredential, openSession } from "../../shared/agent-sessions/service";
import { listAgentSessions } from "../../shared/agent-sessions/list";
import { listSessionEvents } from "../../shared/agent-sessions/events";
import { iso, isoOrNull } from "../../shared/time";
import { authPlugin, withCredential } from "../plugins/auth";
import { AUTHED_ERRORS, errors, NoQuery } from "../../shared/contract/schema-kit";
import {
  CloseResponse,
  EventPage,
  EventsQuery,
  HeartbeatBody,
  HeartbeatResponse,
  ListQuery,
  NaturalKeyBody,
  OpenBody,
  OpenResponse,
  RunIdParams,
  SessionPage,
  SessionView,
  TriageBeginBody,
  TriageBeginResponse,
  TriageCompleteBody,
  TriageCompleteResponse,
} from "./model";
import { beginTriage } from "../../shared/triage/begin";
import { requestTriageCompletion } from "../../shared/triage/complete";
import { sessionView } from "./view";

const WRITE_ERRORS = [...AUTHED_ERRORS, 410, 413, 415] as const;

/** Agent sessions, the sync path (SPEC §3.3–3.6). */
export function agentSessionRoutes(deps: ApiDeps) {
  return (
    new Elysia({ name: "agent-session-routes", prefix: "/api/v1/agent-sessions", detail: { tags: ["agent sessions"] } })
      // Registered before the auth plugin: heartbeat authenticates inside its own single Redis round trip.
      .post(
        "/heartbeat",
        async ({ body, request }) => {
          const beat = await withCredential(deps, request, (credential) =>
            heartbeatWithCredential(deps, credential, body),
          );
          return {
            sessionRunId: beat.sessionRunId,
            activationEpoch: beat.activationEpoch,
            lastSeenAt: iso(beat.lastSeenMs),
            resurrected: beat.resurrected,
          };
        },
        { body: HeartbeatBody, query: NoQuery, response: { 200: HeartbeatResponse, ...errors(...WRITE_ERRORS, 404) } },
      )
      .use(authPlugin(deps))
      .post(
        "/open",
        async ({ body, principal }) => {
          const { row, created, reopened } = await openSession(deps, principal, body);
          return {
            sessionRunId: row.id,
            activationEpoch: row.activationEpoch,
            source: body.source,
            created,
            reopened,
            openedAt: iso(row.openedAt),
            lastSeenAt: iso(row.lastSeenAt),
            briefingDeliveredAt: isoOrNull(row.briefingDeliveredAt),
          };
        },
        { body: OpenBody, query: NoQuery, response: { 200: OpenResponse, ...errors(...WRITE_ERRORS, 409) } },
      )
      .post(
        "/close",
        async ({ body, principal }) => {
          const { row, alreadyClosed } = await closeSession(deps, principal, body);
          return {
            sessionRunId: row.id,
            activationEpoch: row.activationEpoch,
            closedAt: iso(row.closedAt!),
            alreadyClosed,
          };
        },
        { body: NaturalKeyBody, query: NoQuery, response: { 200: CloseResponse, ...errors(...WRITE_ERRORS, 404) } },
      )
      .post(
        "/triage/begin",
        async ({ body, principal }) => beginTriage(deps, principal, body) as Promise<TriageBeginResponse>,
        {
          body: TriageBeginBody,
          query: NoQuery,
          response: { 200: TriageBeginResponse, ...errors(...WRITE_ERRORS, 404) },
        },
      )
      .post(
        "/triage/complete",
        // The text stored at finalization, so a repeat answers byte for byte what the first did.
        async ({ body, principal }) =>
          JSON.parse(await requestTriageCompletion(deps, principal, body)) as TriageCompleteResponse,
        {
          body: TriageCompleteBody,
          query: NoQuery,
          response: { 200: TriageCompleteResponse, ...errors(...WRITE_ERRORS, 404, 409) },
        },
      )
      .get(
        "",
        async ({ query, principal }) => {
          const page = await listAgentSessions(deps, principal, query);
          return { count: page.items.length, items: page.items.map(sessionView), nextCursor: page.nextCursor };
        },
        { query: ListQuery, response: { 200: SessionPage, ...errors(...AUTHED_ERRORS) } },
      )
      .get(
        "/:sessionRunId/events",
        async ({ params, query, principal }) => {
          const page = await listSessionEvents(deps, principal, params.sessionRunId.toLowerCase(), query);
          return {
            items: page.items.map((e) => ({
              id: e.id,
              memoryId: e.memoryId,
              eventKind: e.kind,
              createdAt: iso(e.createdAt),
            })),
            nextCursor: page.nextCursor,
            truncated: page.truncated,
          };
        },
        { params: RunIdParams, query: EventsQuery, response: { 200: EventPage, ...errors(...AUTHED_ERRORS, 404) } },
      )
      .get(
        "/:sessionRunId",
        async ({ params, principal }) =>
          sessionView(await getSession(deps, principal, params.sessionRunId.toLowerCase())),
        { params: RunIdParams, query: NoQuery, response: { 200: SessionView, ...errors(...AUTHED_ERRORS, 404) } },
      )
  );
}
