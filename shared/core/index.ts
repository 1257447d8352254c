/**
 * @amem/core — the front door: everything outside this package imports it from here, never from a
 * file behind it (test/unit/package-doors.test.ts). The domain: memories and search, agent
 * sessions and heartbeats, triage, briefing, hooks, accounts and credentials, proposals, scopes,
 * the console's reads, the wire contract (REST and MCP) and the composition of dependencies.
 * Imports: @amem/store, @amem/platform.
 */
export { createApiKey, insertNewApiKey, listApiKeysWithUse, revokeApiKeyById } from "./accounts/api-keys";
export { recoverErasures } from "./accounts/erasure-recovery";
export { accountErasedUnder } from "./accounts/erasure-retry";
export {
  ZERO_COUNTS,
  beginErasure,
  eraseAccountData,
  erasureAnswer,
  erasureFollowUpJobId,
  erasureJobId,
  followUpDueAt,
  purgeUserTraces,
} from "./accounts/erasure";
export { EXPORT_PAGE_ROWS, exportAccount } from "./accounts/export";
export type { ExportAccountRow, ExportSink } from "./accounts/export";
export { collectGarbage } from "./accounts/gc";
export { issueVerificationToken, requestPasswordReset, resetPassword, verifyEmail } from "./accounts/recovery";
export {
  EMAIL_PATTERN,
  isEmail,
  isKeyName,
  isPassword,
  MAX_LIVE_API_KEYS,
  REVOKED_KEYS_LISTED,
} from "./accounts/rules";
export { checkPassword, createUser, login, logout } from "./accounts/users";
export { tenantWrite } from "./accounts/write-fence";
export { attributeWrite, settleAttributedLease } from "./agent-sessions/attribution";
export { listSessionEvents } from "./agent-sessions/events";
export { heartbeat, heartbeatWithCredential } from "./agent-sessions/heartbeat";
export { fillLease, heartbeatLease, leaseKey, readLease } from "./agent-sessions/lease-cache";
export { listAgentSessions } from "./agent-sessions/list";
export { closeSession, getSession, openSession } from "./agent-sessions/service";
export { sweepCutoff, sweepSessions } from "./agent-sessions/sweep";
export {
  assertCsrfForCookieWrite,
  CONSOLE_COOKIE,
  consoleCsrfToken,
  consoleSessionToken,
  credentialFromRequest,
} from "./auth/console-session";
export {
  CREDENTIAL_KINDS,
  REVOKED_MARKER,
  UNKNOWN_MARKER,
  decodeCredentialEntry,
  encodeCredentialEntry,
} from "./auth/credential-entry";
export type { CredentialEntry, CredentialKind } from "./auth/credential-entry";
export {
  assertWritable,
  authenticate,
  authenticateAccessToken,
  cacheIssuedCredential,
  chargeCredential,
  markCredentialRevoked,
  markCredentialsRevoked,
  prepareAuthentication,
} from "./auth/credentials";
export type { Credential, Principal } from "./auth/credentials";
export { debriefPrompt, dataJson } from "./briefing/debrief";
export { LONG_TEXT_MIN_SCORE, RELEVANT_MIN_SCORE, relevantMinScore, wordsRead } from "./briefing/relevant";
export { buildBriefing } from "./briefing/service";
export type { BriefingRequest } from "./briefing/service";
export { consoleActivity, rangeDays } from "./console/activity";
export { EXCERPT_PREVIEW_CHARS, agentFleet, excerptPreview } from "./console/agent-fleet";
export { runEventsWithMemories } from "./console/run-events";
export { factProposalsWithFacts, memoryProposalsWithMemories } from "./console/proposal-sides";
export { consoleMemoryDetail } from "./console/memory-detail";
export { consoleMemories, consoleSearch } from "./console/memories";
export {
  AccountExport,
  DeleteAccountBody,
  DeleteAccountResponse,
  exportAccountView,
  exportCommitmentView,
  exportEdgeView,
  exportScopeView,
  exportSessionView,
} from "./contract/account";
export {
  CloseResponse,
  EventPage,
  EventsQuery,
  HeartbeatBody,
  HeartbeatResponse,
  NaturalKeyBody,
  OpenBody,
  OpenResponse,
  RunIdParams,
  SessionListQuery,
  SessionPage,
  SessionView,
  TriageBeginBody,
  TriageBeginResponse,
  TriageCompleteBody,
  TriageCompleteResponse,
  closedView,
  eventPageView,
  heartbeatView,
  openedView,
  sessionPageView,
  sessionView,
} from "./contract/agent-sessions";
export { CreateKeyBody, CreatedKey, KeyIdParams, KeyList, createdKeyView, keyListView } from "./contract/api-keys";
export {
  Accepted,
  ForgotPasswordBody,
  Identity,
  LoginBody,
  LoginResponse,
  ResetPasswordBody,
  SignupBody,
  VerifyEmailBody,
  identityView,
} from "./contract/auth";
export { Briefing, BriefingQuery, BriefingText, DebriefPrompt, DebriefQuery, briefingView } from "./contract/briefing";
export {
  ConsoleAgents,
  ConsoleRunEvents,
  ConsoleFactProposals,
  ConsoleMemoryProposals,
  ConsoleMemoriesQuery,
  ConsoleSearchBody,
  agentFleetView,
  runEventsView,
  factProposalsWithFactsView,
  memoryProposalsWithMemoriesView,
} from "./contract/console-screens";
export { ActivityQuery, ConsoleActivity, ConsoleMemoryDetail, ConsoleSession } from "./contract/console";
export { FactList, FactsQuery, factListView, factView } from "./contract/facts";
export {
  ArchiveBody,
  CaptureBody,
  CaptureResponse,
  CreateMemoryBody,
  CreatedMemory,
  ListMemoriesQuery,
  MemoryHistory,
  MemoryIdParams,
  MemoryPage,
  MemoryTypeSchema,
  MemoryView,
  ResolveBody,
  Resolved,
  ReviseBody,
  SearchBody,
  SearchResults,
  captureView,
  createdMemoryView,
  memoryHistoryView,
  memoryPageView,
  memoryView,
  resolvedView,
  searchResultsView,
  Tag,
} from "./contract/memories";
export { ClientIdParams, OAuthGrantList, grantListView } from "./contract/oauth";
export {
  Applied,
  DecideBody,
  FactProposalList,
  ProposalIdParams,
  ProposalList,
  ProposalListQuery,
  Rejected,
  factProposalListView,
  proposalListView,
} from "./contract/proposals";
export {
  AUTHED_CODES,
  AUTHED_WRITE_CODES,
  Agent,
  BODY_CODES,
  Cursor,
  Int,
  NoQuery,
  NoBody,
  NullableTimestamp,
  Project,
  ScopeName,
  SessionId,
  Text,
  TimestampIn,
  Uuid,
  errors,
  oneOf,
  strictObject,
} from "./contract/schema-kit";
export {
  CreateScopeBody,
  Scope,
  ScopeIdParams,
  ScopeList,
  UpdateScopeBody,
  scopeListView,
  scopeView,
} from "./contract/scopes";
export { decodeCursor, encodeCursor } from "./cursor";
export { dashboardSummary } from "./dashboard/summary";
export { createDeps } from "./deps";
export type { ApiDeps, Deps } from "./deps";
export { HookMisses, withinBudget } from "./hooks/budget";
export type { Budgeted } from "./hooks/budget";
export { HookAnswer, hookAnswer } from "./hooks/output";
export { HookBody, readHookEvent, HOOK_BODY_LIMIT_BYTES, HOOK_MAX_JSON_DEPTH, HOOK_PATH_PREFIX } from "./hooks/payload";
export type { HookEvent } from "./hooks/payload";
export { HOOK_AGENTS, handleHookEvent } from "./hooks/service";
export type { Harness } from "./hooks/service";
export { DEFAULT_SCOPE, createMemory } from "./memories/capture";
export type { NewMemory } from "./memories/capture";
export { readFacts } from "./memories/facts";
export { COMPLETION_LIMIT, getMemory, listTenantMemories, memoryHistory, projectNames } from "./memories/read";
export { archiveMemory, resolveMemory, reviseMemory } from "./memories/revise";
export { CHAMPION_DEPTH } from "./memories/search-candidates";
export { MAX_EXCLUSIONS, MAX_PHRASES, parseSearchQuery } from "./memories/search-query";
export {
  FUZZY_MAX_LENGTH,
  FUZZY_MAX_TERMS,
  FUZZY_MAX_WORDS,
  FUZZY_MIN_SIMILARITY,
  MAX_SLOTS,
  proximity,
  RANKING,
  buildSlots,
  fuzzyWords,
  idf,
  saturation,
  scoreMemory,
} from "./memories/search-ranking";
export type { CorpusStats, Posting, RankingConstants, Slot } from "./memories/search-ranking";
export { deeperReadAhead, searchMemories } from "./memories/search";
export { SEARCH_MAX_DEPTH } from "./memories/search-cursor";
export { surfaceCommitments } from "./memories/surface-commitments";
export {
  PROPOSALS_PER_TENANT,
  consolidate,
  proposalRationale,
  proposedEdge,
  takeWithinCap,
} from "./proposals/consolidate";
export { decideFactProposal, decideProposal, listFactProposals, listProposals } from "./proposals/service";
export { enforceRateLimit } from "./rate-limit";
export { createScope, deleteScope, listScopesOf, updateScope } from "./scopes/service";
export { startOrExit } from "./startup";
export { beginTriage, beginTriageObserved } from "./triage/begin";
export { completeTriage, completeTriageJobId, requestTriageCompletion } from "./triage/complete";
export { readQuietStop, recordQuietStop } from "./triage/quiet-stop";
