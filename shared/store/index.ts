/**
 * @amem/store — the front door: everything outside this package imports it from here, never from a
 * file behind it (test/unit/package-doors.test.ts). Where data lives: the Postgres schema, queries
 * and SQL functions, migrations runner, the Redis keys and Lua scripts, the job catalog and
 * producer, the start-up preflight. Imports: @amem/platform.
 */
export * as schema from "./db/schema";
export { createDb, migratorDb } from "./db/client";
export type { Db, Executor, TransactionExecutor } from "./db/client";
export { ensureDatabase } from "./db/ensure-database";
export { applyMigrations, migrationsApplied } from "./db/migrate";
export { setLocalStatementTimeout } from "./db/statement-timeout";
export {
  ERASED,
  anonymiseUser,
  apiKeyHashes,
  awaitFencedWrites,
  clearDueFollowUp,
  countCommitments,
  deleteResetTokens,
  deleteScopes,
  deleteUserSessions,
  deleteVerificationTokens,
  dueFollowUps,
  eraseAgentSessions,
  eraseFactProposals,
  eraseFacts,
  eraseMemories,
  eraseProposals,
  eraseSearchIndex,
  eraseSummaryCounts,
  findErasure,
  insertErasure,
  liveCredentials,
  lockUser,
  markUserErasing,
  revokeAndScrubApiKeys,
  stalledErasures,
} from "./db/queries/account-erasure";
export {
  configureExportTransaction,
  readAgentSessionsPage,
  readCommitmentsPage,
  readExportAccount,
  readFactsPage,
  readMemoriesPage,
  readMemoryEdgesPage,
  readScopesPage,
} from "./db/queries/account-export";
export type { ExportAccountRow } from "./db/queries/account-export";
export { ACCOUNT_NOT_ACTIVE, lockActiveAccount } from "./db/queries/account-fence";
export {
  applyLeaseRefreshes,
  closeSessionRow,
  findSessionById,
  findSessionByNaturalKey,
  findSessionsByIds,
  insertSessionIfAbsent,
  latestExcerptPerAgent,
  listSessions,
  lockSessionById,
  lockSingleLiveRun,
  refreshLiveSession,
  reopenSession,
  stampBriefingDelivered,
  stampBriefingDeliveredWithin,
  upsertResumedSession,
} from "./db/queries/agent-sessions";
export type { AgentSessionRow, NaturalKey } from "./db/queries/agent-sessions";
export { agentFleet, type AgentFleetRow } from "./db/queries/agent-fleet";
export {
  apiKeyIdsOf,
  findApiKeyCredential,
  findLiveApiKey,
  accountErasedUnderKey,
  insertApiKey,
  listApiKeys,
  recordKeyUse,
  revokeApiKey,
} from "./db/queries/api-keys";
export { BRIEFING_COUNT_CAP, BRIEFING_SECTIONS, briefingSections, lastRunExcerpt } from "./db/queries/briefing";
export type { BriefingItem, BriefingSectionName, BriefingSections } from "./db/queries/briefing";
export {
  commitmentsOfMemories,
  commitmentOfMemory,
  insertCommitment,
  lockCommitmentOf,
  moveCommitment,
  setCommitmentStatus,
} from "./db/queries/commitments";
export type { CommitmentRow } from "./db/queries/commitments";
export { commitmentsByDue, memoriesPerDay, sessionsPerDay } from "./db/queries/console-activity";
export {
  configureConsolidation,
  probeFacts,
  probeMemories,
  saveTenantCursor,
  tenantsToConsolidate,
  tryLockConsolidation,
  unlessTimedOut,
} from "./db/queries/consolidation";
export type { Position, ProbeMatch, Savepoints, TenantCursor } from "./db/queries/consolidation";
export { summaryCounts } from "./db/queries/dashboard";
export { deleteSpentBearerSessions, deleteSpentMailTokens } from "./db/queries/expired-credentials";
export {
  factsAsOf,
  factsByIds,
  factsOfMemory,
  insertFact,
  lockFactsByIds,
  lockFactKey,
  lockOverlappingFacts,
  retractFact,
} from "./db/queries/facts";
export type { FactRow } from "./db/queries/facts";
export { consumeMailToken, findUsableMailToken, insertMailToken } from "./db/queries/mail-tokens";
export {
  archiveMemoryRow,
  closeMemoryValidity,
  countRunEvents,
  countRunEventsThrough,
  findEdgesAmong,
  findEventsFor,
  findMemoriesByIds,
  findMemory,
  insertMemoryEdge,
  insertMemoryEvent,
  insertMemoryWithEvent,
  listMemories,
  listRunEvents,
  lockMemoriesByIds,
  lockMemory,
  projectNamesStartingWith,
  renameMemoryScope,
  supersedeChainIds,
} from "./db/queries/memories";
export type { MemoryRow } from "./db/queries/memories";
export {
  accessTokensOf,
  activeUserEmail,
  consumeCode,
  deleteUngrantedClients,
  deleteUserCodes,
  findAccessTokenCredential,
  findClient,
  findCode,
  findToken,
  refreshChildren,
  insertClient,
  insertCode,
  insertTokens,
  listLiveGrants,
  liveAccessTokensOfGrants,
  lockLiveGrants,
  lockLiveGrantScopes,
  markClientUsed,
  revokeFamily,
  revokeGrants,
  revokeTokenByHash,
  revokeUserOAuth,
  rotateRefreshToken,
  touchLiveGrant,
  upsertGrant,
  upsertMetadataDocumentClient,
} from "./db/queries/oauth";
export type { GrantRow, OAuthClientRow, OAuthTokenRow, RevokedToken } from "./db/queries/oauth";
export { surfaceOverdueCommitments } from "./db/queries/overdue-commitments";
export { insertPlainMemory } from "./db/queries/plain-memory-insert";
export {
  decideProposalRow,
  insertFactProposals,
  insertProposals,
  listProposalRows,
  lockProposalRow,
} from "./db/queries/proposals";
export type { FactProposalRow, NewFactProposal, NewProposal, ProposalRow, ProposalTable } from "./db/queries/proposals";
export {
  deleteScopeRow,
  findScopeByNameOrAlias,
  findScopeForWrite,
  lockScopeForRename,
  insertDefaultScopes,
  insertScope,
  listScopes,
  lockTenantScopes,
  scopeNamesTaken,
  updateScopeRow,
} from "./db/queries/scopes";
export type { ScopeRow } from "./db/queries/scopes";
export {
  championPostings,
  rankedCandidates,
  conjunctiveCandidates,
  LEXEME_MAX_BYTES,
  type CandidatePosting,
  eligibleMemories,
  fuzzyTerms,
  phrasesFound,
  postingsOf,
  queryTermStats,
  revisionChainsFrom,
} from "./db/queries/search";
export type { Posting, SearchScope } from "./db/queries/search";
export { refreshSearchImpacts } from "./db/queries/search-impacts";
export {
  clearExcerpts,
  closeQuietRuns,
  expirePendingAttempts,
  lockClosedPendingRuns,
  lockExcerptRuns,
  lockQuietRuns,
} from "./db/queries/session-sweep";
export type { QuietRun, SweptRun } from "./db/queries/session-sweep";
export {
  armAttempt,
  completeTriageAttempt,
  hasUntriagedEvent,
  lockSessionForTriage,
  readSessionForTriage,
  runEventIds,
  stampOverflowed,
} from "./db/queries/triage";
export type { TriageRow } from "./db/queries/triage";
export {
  findBearerCredential,
  insertUserSession,
  liveUserSessionHashes,
  revokeAllUserSessions,
  revokeUserSession,
} from "./db/queries/user-sessions";
export { findUserByEmail, insertUser, markEmailVerified, setPasswordHash } from "./db/queries/users";
export {
  COMMITMENT_STATUSES,
  EDGE_TYPES,
  EVENT_KINDS,
  MEMORY_STATUSES,
  MEMORY_TYPES,
  OAUTH_APPLICATION_TYPES,
  OAUTH_AUTH_METHODS,
  OAUTH_GRANT_TYPES,
  PROPOSAL_STATUSES,
  REVISION_EDGE_TYPES,
  SELECTOR_KINDS,
  SESSION_SOURCES,
  TRIAGE_OUTCOMES,
  TRIAGE_STATUSES,
  emailVerificationTokens,
  factProposals,
  memoryEdges,
  memoryEvents,
  oauthClients,
  passwordResetTokens,
  proposals,
} from "./db/schema";
export type {
  BriefedMemory,
  CommitmentStatus,
  ErasureCounts,
  MemoryStatus,
  MemoryType,
  OAuthApplicationType,
  OAuthAuthMethod,
  OAuthGrantType,
  ProposalStatus,
  Selector,
  SessionSource,
  TriageStatus,
  UserState,
} from "./db/schema";
export { PreflightError, preflight } from "./preflight";
export { blockingConnection, closeConnection, queuePrefix } from "./queue/connection";
export { storableFailure } from "./queue/failure";
export { JOBS, QUEUES, SCHEDULED_JOBS } from "./queue/jobs";
export type { ErasureResult, JobName, JobOutcome, JobPayload, JobResult, QueueName, ScheduledJob } from "./queue/jobs";
export { JobQueues } from "./queue/producer";
export { connectRedis, createRequestRedis, deleteKeys, redisServing, redisTarget, scanKeys } from "./redis/connections";
export { CREDENTIAL_PARTS, TENANT_PARTS, partOf, redisKeys } from "./redis/keys";
export { deleteStreamEntries } from "./redis/streams";
export type { RedisKeys } from "./redis/keys";
export type { ScriptedRedis } from "./redis/scripts";
