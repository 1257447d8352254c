import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { AppError, sha256Hex, isStorableText, isUuid } from "@amem/platform";
import { LEXEME_MAX_BYTES } from "@amem/store";
import { FUZZY_MAX_TERMS, MAX_SLOTS, PROXIMITY_WINDOW, RANKING, type CorpusStats, type Slot } from "./search-ranking";

/** What a query is scored with: the tenant's statistics and the query's weighted terms. */
export type SearchPlan = { stats: CorpusStats; slots: Slot[] };

/**
 * The longest cursor a search answers with. Its plan holds at most MAX_SLOTS weights and, as
 * terms, the query's own words (a 1,000-character query reads as at most 2,000 characters of terms:
 * a hyphenated word is also read as its parts) and up to FUZZY_MAX_TERMS replacements of at most
 * FUZZY_MAX_LENGTH characters per slot: at most 4 × 8,144 bytes of UTF-8, under 38 KB of JSON with
 * the numbers and 50 KB as base64url. 8,192 was exceeded by a query of 32 misspelt long words, and its next page refused.
 * It stays at the 80 KB it grew to for the pseudo-relevance feedback's terms (eleventh to sixteenth
 * session): it is the published bound of the `cursor` field (OpenAPI, the typed client), and a
 * lower one would only refuse, sooner, a cursor no page of today's ranking issues.
 */
export const SEARCH_CURSOR_MAX_LENGTH = 81_920;
/**
 * How deep a search pages: its first 10,000 results. A page's cost follows its depth (each term's
 * champion list is read that deep), so a cursor whose offset had been edited to a million made one
 * request read millions of postings; no agent or person pages through more than this, and a page
 * that reaches it answers no next cursor.
 */
export const SEARCH_MAX_DEPTH = 10_000;
/** The longest term a plan holds: one word of a 1,000-character query, in UTF-16 units. */
const TERM_MAX_LENGTH = 2000;

const Weight = Type.Number({ minimum: 0, maximum: 1e6 });
const CursorPayload = Type.Object(
  {
    /** The last item's score and id: the next page starts strictly after them. */
    s: Type.Number({ minimum: 0, maximum: 1 }),
    i: Type.String(),
    /** How many items the earlier pages returned (the next page reads champion lists that deep). */
    o: Type.Integer({ minimum: 1, maximum: SEARCH_MAX_DEPTH - 1 }),
    /** The plan of the first page, so every page scores with the same statistics. */
    n: Type.Integer({ minimum: 0 }),
    at: Type.Number({ minimum: 0, maximum: 1e6 }),
    ac: Type.Number({ minimum: 0, maximum: 1e6 }),
    w: Type.Array(
      Type.Tuple([
        Weight,
        Type.Array(Type.Tuple([Type.String({ minLength: 1, maxLength: TERM_MAX_LENGTH }), Weight]), {
          maxItems: FUZZY_MAX_TERMS,
        }),
      ]),
      { minItems: 1, maxItems: MAX_SLOTS },
    ),
    /** The fingerprint of the search the cursor continues. */
    f: Type.String(),
    /**
     * The quoted phrases (their indexes in the query) the first page relaxed to their words
     * because no memory contained them; absent: none. Later pages keep that decision even once a
     * memory holding the phrase is written, so they continue the same ranking.
     */
    r: Type.Optional(Type.Array(Type.Integer({ minimum: 0, maximum: 1000 }), { maxItems: 1000, uniqueItems: true })),
  },
  { additionalProperties: false },
);
type CursorPayload = Static<typeof CursorPayload>;

export type SearchPosition = { score: number; id: string; offset: number; plan: SearchPlan; relaxed: number[] };

/**
 * What a cursor is bound to: the tenant and the search, not the page size. The tenant, because a
 * cursor carries its first page's statistics: another tenant's page would be scored with them, and
 * a shared cursor would have told its holder how many memories the issuer has. And the ranking's
 * constants: a cursor's position is a score, and a score of another ranking (a cursor issued before
 * an upgrade that changed them) would skip results silently — it is refused like a cursor of another
 * search, and the client starts over. A review found that the cursors of the ranking with feedback
 * (before 2026-12-01), taken up by the new one, left 6 of 20 matches on no page.
 */
const RANKING_KEY = [RANKING.k1, RANKING.mu, RANKING.wTopic, RANKING.wContent, RANKING.proximity, PROXIMITY_WINDOW];
export function searchFingerprint(q: {
  userId: string;
  query: string;
  scope?: string;
  project?: string;
  memoryTypes?: string[];
  current: boolean;
  superseded?: boolean;
  status?: string;
  minScore: number;
  plainWords?: boolean;
}): string {
  const types = q.memoryTypes ? [...q.memoryTypes].sort() : null;
  // Read as plain words, the same text is another search; the plain reading and the console's
  // filters are added only when set.
  const key: unknown[] = [
    q.userId,
    q.query,
    q.scope ?? null,
    q.project ?? null,
    types,
    q.current,
    q.minScore,
    RANKING_KEY,
  ];
  if (q.plainWords) key.push("plain");
  if (q.superseded !== undefined || q.status !== undefined) key.push({ superseded: q.superseded, status: q.status });
  return sha256Hex(JSON.stringify(key)).slice(0, 16);
}

/** Opaque to clients: base64url of the position, the first page's plan and the search's fingerprint. */
export function encodeSearchCursor(position: SearchPosition, fingerprint: string): string {
  const payload: CursorPayload = {
    s: position.score,
    i: position.id,
    o: position.offset,
    n: position.plan.stats.documents,
    at: position.plan.stats.avgTopic,
    ac: position.plan.stats.avgContent,
    w: position.plan.slots.map((s) => [s.weight, s.alternatives.map((a) => [a.term, a.weight])]),
    f: fingerprint,
    ...(position.relaxed.length > 0 && { r: position.relaxed }),
  };
  return Buffer.from(JSON.stringify(payload)).toString("base64url");
}

/**
 * The position a cursor names. A cursor that does not decode to exactly this shape, or that was
 * issued for another search, is invalid input. Its plan only changes how the caller's own memories
 * are ordered, so a client that edits one harms nobody else.
 */
export function decodeSearchCursor(cursor: string, fingerprint: string): SearchPosition {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, "base64url").toString());
  } catch {
    throw new AppError("invalid_input");
  }
  if (!Value.Check(CursorPayload, payload) || payload.f !== fingerprint || !isUuid(payload.i)) {
    throw new AppError("invalid_input");
  }
  // The terms go to Postgres as text, which cannot hold a NUL (the driver's error would be a 500);
  // a request body's strings are checked as it is read, a cursor's only here. Nor can a term be
  // longer than a lexeme (2,047 bytes), which no plan holds: one longer reached a tsquery, which
  // refused it (a review's 500).
  const terms = payload.w.flatMap(([, alternatives]) => alternatives.map(([term]) => term));
  if (!terms.every((term) => isStorableText(term) && Buffer.byteLength(term) <= LEXEME_MAX_BYTES)) {
    throw new AppError("invalid_input");
  }
  return {
    score: payload.s,
    id: payload.i.toLowerCase(),
    offset: payload.o,
    relaxed: payload.r ?? [],
    plan: {
      stats: { documents: payload.n, avgTopic: payload.at, avgContent: payload.ac },
      slots: payload.w.map(([weight, alternatives]) => ({
        weight,
        alternatives: alternatives.map(([term, w]) => ({ term, weight: w })),
      })),
    },
  };
}
