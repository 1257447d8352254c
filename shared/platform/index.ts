/**
 * @amem/platform — the front door: everything outside this package imports it from here, never
 * from a file behind it (test/unit/package-doors.test.ts). What every process and package stands
 * on: configuration, logging, the error vocabulary, identifiers, time and text helpers, timeouts,
 * the metrics registry, mail, shutdown. Imports no other package. Imports: no other package.
 */
export { bearerCredential } from "./authorization";
export { DeadlineSweep } from "./concurrency/deadline-sweep";
export { WaitLimiter } from "./concurrency/wait-limiter";
export { isTimeout, withTimeout } from "./concurrency/with-timeout";
export { configTable, withConfigTable } from "./config-docs";
export { ConfigError, ConfigSchema, loadConfig } from "./config";
export type { Config } from "./config";
export { AppError, ERROR_CODES, ERROR_STATUS } from "./errors";
export type { ErrorCode } from "./errors";
export {
  SECRET_PREFIXES,
  UUID_PATTERN,
  hasSecretShape,
  isPkceValue,
  isRandomToken,
  isUuid,
  mintApiKey,
  mintSecret,
  newClientId,
  newId,
  randomToken,
  secretHash,
  sha256Hex,
} from "./ids";
export type { SecretKind } from "./ids";
export { loggableError } from "./loggable-error";
export { createLogger } from "./logger";
export type { Logger } from "./logger";
export { createMailer } from "./mail";
export type { Mail, Mailer } from "./mail";
export {
  UNMATCHED_ROUTE,
  collectProcessMetrics,
  credentialFills,
  attributedLeaseMisses,
  credentialLookups,
  exposition,
  hookMisses,
  instrumentRedis,
  leaseOutcomes,
  mcpToolCalls,
  rateLimitRefusals,
  redisConnectionErrors,
  registry,
  trackPoolGate,
  unavailableAnswers,
} from "./metrics-registry";
export { OAUTH_SCOPES, SCOPE_DESCRIPTIONS, allowsScope, effectiveScopes, isOAuthScope } from "./scopes";
export type { OAuthScope } from "./scopes";
export { onShutdown, survivePromiseRejections } from "./shutdown";
export { hasLengthWithin, hasUnstorableText, isDisplayName, isStorableText } from "./text";
export { isLoopbackHostname, loopbackAliasesOf, loopbackAliasOrigin } from "./loopback";
export { grownBatch, halvedBatch } from "./batch-size";
export { isUtcTimestamp, iso, isoOrNull } from "./time";
export {
  hasErrorCode,
  STATEMENT_CANCELLED,
  isContention,
  isDependencyDown,
  isDependencyUnavailable,
  someInChain,
  unavailableCause,
} from "./unavailable";
