import { Elysia } from "elysia";
import {
  type ApiDeps,
  closeSession,
  getSession,
  openSession,
  heartbeatWithCredential,
  listAgentSessions,
  listSessionEvents,
  AUTHED_CODES,
  AUTHED_WRITE_CODES,
  BODY_CODES,
  errors,
  NoQuery,
  closedView,
  CloseResponse,
  EventPage,
  eventPageView,
  EventsQuery,
  HeartbeatBody,
  HeartbeatResponse,
  heartbeatView,
  NaturalKeyBody,
  OpenBody,
  openedView,
  OpenResponse,
  RunIdParams,
  SessionListQuery,
  SessionPage,
  sessionPageView,
  SessionView,
  sessionView,
  TriageBeginBody,
  TriageBeginResponse,
  TriageCompleteBody,
  TriageCompleteResponse,
  beginTriage,
  requestTriageCompletion,
} from "@amem/core";
import { authPlugin, withCredential } from "../plugins/auth";

const WRITE_CODES = [...AUTHED_WRITE_CODES, ...BODY_CODES, "account_deleted"] as const;

/** Agent sessions, the sync path (SPEC §3.3–3.6). */
export function agentSessionRoutes(deps: ApiDeps) {
  return (
    new Elysia({ name: "agent-session-routes", prefix: "/api/v1/agent-sessions", detail: { tags: ["agent sessions"] } })
      // Registered before the auth plugin: heartbeat authenticates inside its own single Redis round trip.
      .post(
        "/heartbeat",
        async ({ body, request }) =>
          heartbeatView(
            await withCredential(deps, request, (credential) => heartbeatWithCredential(deps, credential, body)),
          ),
        {
          body: HeartbeatBody,
          query: NoQuery,
          response: { 200: HeartbeatResponse, ...errors(...WRITE_CODES, "not_found", "conflict") },
        },
      )
      .use(authPlugin(deps))
      .post("/open", async ({ body, principal }) => openedView(await openSession(deps, principal, body), body.source), {
        body: OpenBody,
        query: NoQuery,
        response: { 200: OpenResponse, ...errors(...WRITE_CODES, "conflict") },
      })
      .post("/close", async ({ body, principal }) => closedView(await closeSession(deps, principal, body)), {
        body: NaturalKeyBody,
        query: NoQuery,
        response: { 200: CloseResponse, ...errors(...WRITE_CODES, "not_found") },
      })
      .post(
        "/triage/begin",
        async ({ body, principal }) => beginTriage(deps, principal, body) as Promise<TriageBeginResponse>,
        {
          body: TriageBeginBody,
          query: NoQuery,
          response: { 200: TriageBeginResponse, ...errors(...WRITE_CODES, "not_found") },
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
          response: { 200: TriageCompleteResponse, ...errors(...WRITE_CODES, "not_found", "conflict") },
        },
      )
      .get("", async ({ query, principal }) => sessionPageView(await listAgentSessions(deps, principal, query)), {
        query: SessionListQuery,
        response: { 200: SessionPage, ...errors(...AUTHED_CODES) },
      })
      .get(
        "/:sessionRunId/events",
        async ({ params, query, principal }) =>
          eventPageView(await listSessionEvents(deps, principal, params.sessionRunId.toLowerCase(), query)),
        {
          params: RunIdParams,
          query: EventsQuery,
          response: { 200: EventPage, ...errors(...AUTHED_CODES, "not_found") },
        },
      )
      .get(
        "/:sessionRunId",
        async ({ params, principal }) =>
          sessionView(await getSession(deps, principal, params.sessionRunId.toLowerCase())),
        {
          params: RunIdParams,
          query: NoQuery,
          response: { 200: SessionView, ...errors(...AUTHED_CODES, "not_found") },
        },
      )
  );
}
