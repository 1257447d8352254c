/**
 * @amem/http — the front door: everything outside this package imports it from here, never from a
 * file behind it (test/unit/package-doors.test.ts). The HTTP kit both servers mount: error
 * mapping, request context and body rules, strict query, request metrics, probes' listener, client
 * address, page/CSP helper. Imports: @amem/platform.
 */
export { withClientIp } from "./client-ip";
export { escapeHtml, htmlPage } from "./html-page";
export {
  hasJsonContentType,
  readBodyBytes,
  readJsonBody,
  utf8OrNull,
  type BodyLimits,
  type JsonBodyLimits,
} from "./json-body";
export { serveMetrics } from "./metrics/endpoint";
export { countedFetch } from "./metrics/http-requests";
export { httpRequestDuration, httpRequests, requestTally } from "./metrics/request-tallies";
export {
  errorResponse,
  errorsPlugin,
  methodLookup,
  thrownErrorResponse,
  unhandledErrorFallback,
} from "./plugins/errors";
export { appFetch, metricsPlugin } from "./plugins/metrics";
export {
  jsonBodyLimits,
  refusalBeforeRouting,
  requestContextPlugin,
  requestIdOf,
  type BodyRules,
} from "./plugins/request-context";
export { routeKey, strictQueryPlugin } from "./plugins/strict-query";
export { probeRoutes } from "./probes";
export { refuseRequestHead, requestUrl } from "./request-head";
export { earliestIdleCloseMs, idleTimeoutFor, SERVED_APP_OPTIONS, serveHttp } from "./serve";
