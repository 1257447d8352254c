import { AppError } from "../errors";
import { resolveScopeName } from "../scopes/service";
import { sha256Hex } from "../ids";
import type { Deps } from "../deps";
import type { Principal } from "../auth/credentials";
import type { MemoryType } from "../db/schema";
import type { MemoryRow } from "../db/queries/memories";
import { searchMemoryRows } from "../db/queries/search";
import { isUuid } from "../accounts/rules";

export const DEFAULT_SEARCH_LIMIT = 10;

export type SearchQuery = {
  query: string;
  scope?: string;
  project?: string;
  memoryTypes?: MemoryType[];
  current?: boolean;
  limit?: number;
  cursor?: string;
};

export type SearchPage = { items: { memory: MemoryRow; score: number }[]; nextCursor: string | null };

/**
 * POST /search (SPEC §4.3): the tenant's memories ranked by full-text rank blended with trigram
 * similarity (formula in searchMemoryRows), best first. `current` (default true) hides superseded
 * and archived memories. A cursor only continues the search it came from: one from another query
 * or other filters, or a malformed one, is invalid input (400). At most SEARCH_MAX_CONCURRENT
 * searches run at once per process; one that waits longer than SEARCH_WAIT_MS for its turn is 503.
 */
export async function searchMemories(deps: Deps, principal: Principal, input: SearchQuery): Promise<SearchPage> {
  // Postgres text cannot hold NUL, so such a value matches nothing and would fail as a bind parameter.
  if (input.query.includes("\0") || input.project?.includes("\0")) throw new AppError("invalid_input");
  return deps.searchLimiter.run(() => rankedPage(deps, principal, input));
}

async function rankedPage(deps: Deps, principal: Principal, input: SearchQuery): Promise<SearchPage> {
  const limit = input.limit ?? DEFAULT_SEARCH_LIMIT;
  const current = input.current ?? true;
  const fingerprint = searchFingerprint({ ...input, current });
  const after = input.cursor === undefined ? undefined : decodeSearchCursor(input.cursor, fingerprint);
  const { words, exclusions } = splitWebsearch(input.query);
  const rows = await searchMemoryRows(deps.db, {
    userId: principal.userId,
    query: input.query,
    similarityText: words,
    anyWord: anyWordQuery(words),
    exclusions,
    scope: input.scope === undefined ? undefined : await resolveScopeName(deps.db, principal.userId, input.scope),
    project: input.project,
    memoryTypes: input.memoryTypes,
    current,
    limit: limit + 1,
    after,
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map((r) => ({ memory: r.memory, score: Number(r.score) })),
    nextCursor: rows.length > limit && last ? encodeSearchCursor(last.score, last.memory.id, fingerprint) : null,
  };
}

/**
 * Splits a websearch-syntax query (as websearch_to_tsquery reads it: `"phrase"`, `-term`,
 * `-"phrase"`, `or`) into the words wanted, for trigram similarity, and a query of only the
 * excluded terms, so a memory the user excluded cannot come back through similarity alone.
 */
export function splitWebsearch(query: string): { words: string; exclusions: string | null } {
  const words: string[] = [];
  const excluded: string[] = [];
  for (const match of query.matchAll(/(-?)"([^"]*)"?|(\S+)/g)) {
    const [, negated, phrase, bare] = match;
    if (phrase !== undefined) {
      if (negated) excluded.push(`-"${phrase}"`);
      else words.push(phrase);
    } else if (bare !== undefined) {
      if (/^-+[^-]/.test(bare)) excluded.push(`-${bare.replace(/^-+/, "")}`);
      else if (bare.toLowerCase() !== "or") words.push(bare);
    }
  }
  return {
    words: words.join(" ").split(/\s+/).filter(Boolean).join(" "),
    exclusions: excluded.length > 0 ? excluded.join(" ") : null,
  };
}

/**
 * A websearch query matching any one of the wanted words (`a or b or c`), or null for fewer than
 * two (it would be the query itself). Quotes are dropped so every word stands alone.
 */
export function anyWordQuery(words: string): string | null {
  const each = words
    .replace(/"/g, " ")
    .split(/\s+/)
    .filter((w) => w !== "" && w.toLowerCase() !== "or");
  return each.length < 2 ? null : each.join(" or ");
}

/** What a cursor is bound to: the search, not the page size. */
function searchFingerprint(q: SearchQuery & { current: boolean }): string {
  const types = q.memoryTypes ? [...q.memoryTypes].sort() : null;
  return sha256Hex(JSON.stringify([q.query, q.scope ?? null, q.project ?? null, types, q.current])).slice(0, 16);
}

const SCORE_TEXT = /^[01]\.\d{6}$/;
const CURSOR = /^([01]\.\d{6})~([^~]+)~([0-9a-f]{16})$/;

/** Opaque: the last item's exact score text and id, plus the fingerprint of its search. */
function encodeSearchCursor(score: string, id: string, fingerprint: string): string {
  if (!SCORE_TEXT.test(score)) throw new Error(`unexpected search score ${score}`);
  return Buffer.from(`${score}~${id}~${fingerprint}`).toString("base64url");
}

function decodeSearchCursor(cursor: string, fingerprint: string): { score: string; id: string } {
  const match = CURSOR.exec(Buffer.from(cursor, "base64url").toString());
  if (!match || !isUuid(match[2]!) || match[3] !== fingerprint) throw new AppError("invalid_input");
  return { score: match[1]!, id: match[2]!.toLowerCase() };
}
