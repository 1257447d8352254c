import { AppError } from "@amem/platform";
import type { Deps } from "../deps";
import type { Principal } from "../auth/credentials";
import { fencedWrite } from "../accounts/write-fence";
import {
  type BriefedMemory,
  type Selector,
  BRIEFING_SECTIONS,
  briefingSections,
  type BriefingSections,
  type BriefingSectionName,
  stampBriefingDelivered,
  stampBriefingDeliveredWithin,
} from "@amem/store";
import { normalizeSelector } from "../agent-sessions/facets";
import { relevantSection, type RelevantSection } from "./relevant";

export const DEFAULT_SECTION_LIMIT = 5;
/** Current memories untouched for this long are offered for review. */
export const STALE_AFTER_DAYS = 90;
const BRIEFED_MAX = 100;

export type BriefingRequest = {
  kind?: "all" | "scope" | "project" | "scope_project";
  scope?: string;
  project?: string;
  includeUnscoped?: boolean;
  sectionLimit?: number;
  agent?: string;
  sessionId?: string;
  /** What the session is about, in plain words: adds the `relevant` section (shared/core/briefing/relevant.ts). */
  query?: string;
  /** The sections whose items the relevant section leaves out (default: every section). */
  relevantBeside?: readonly BriefingSectionName[];
};

export type Briefing = {
  generatedAt: Date;
  selector: Selector;
  sections: BriefingSections;
  /** Only when the query names one: a briefing without it is the same as before it existed. */
  relevant?: RelevantSection;
};

/**
 * The selector the query describes; fields that the kind does not take are invalid (seed 2.3). Its
 * scope is as given (a name or an alias): the briefing's statement resolves it.
 */
function selectorOf(q: BriefingRequest): Selector {
  const kind = q.kind ?? "all";
  type Field = "scope" | "project" | "includeUnscoped";
  const takes: readonly Field[] = (
    { all: [], scope: ["scope"], project: ["project"], scope_project: ["scope", "project", "includeUnscoped"] } as const
  )[kind];
  for (const field of ["scope", "project", "includeUnscoped"] as const) {
    if (q[field] !== undefined && !takes.includes(field)) throw new AppError("invalid_input");
  }
  if (takes.includes("scope") && q.scope === undefined) throw new AppError("invalid_input");
  if (takes.includes("project") && q.project === undefined) throw new AppError("invalid_input");
  switch (kind) {
    case "all":
      return normalizeSelector({ kind });
    case "scope":
      return normalizeSelector({ kind, scope: q.scope! });
    case "project":
      return normalizeSelector({ kind, project: q.project! });
    case "scope_project":
      return normalizeSelector({ kind, scope: q.scope!, project: q.project!, includeUnscoped: q.includeUnscoped });
  }
}

/**
 * Records a briefing delivered to a run, by GET /briefing naming it or by the SessionStart hook
 * (SPEC §6, seed: "set when a briefing was delivered"): whichever delivers first stamps
 * `briefingDeliveredAt` and stores the items it delivered as `briefedMemories`; later deliveries
 * change neither, because the debrief prompt takes the run's commitments from that list. 404 when
 * the run does not exist.
 */
export async function recordBriefingDelivered(
  deps: Deps,
  principal: Principal,
  run: { agent: string; sessionId: string },
  delivered: BriefedMemory[],
  now: Date,
): Promise<void> {
  const key = { userId: principal.userId, ...run };
  const stamped = await fencedWrite(principal, () => stampBriefingDelivered(deps.db, key, delivered, now));
  if (!stamped) throw new AppError("not_found");
}

/**
 * recordBriefingDelivered for an answer given only within a budget (the SessionStart hook): false,
 * with nothing recorded, when the record cannot commit within `withinMs` — the answer is then
 * dropped, so the briefing is not delivered either.
 */
export async function recordBriefingDeliveredWithin(
  deps: Deps,
  principal: Principal,
  run: { agent: string; sessionId: string },
  delivered: BriefedMemory[],
  now: Date,
  withinMs: number,
): Promise<boolean> {
  if (withinMs <= 0) return false;
  const key = { userId: principal.userId, ...run };
  const stamped = await fencedWrite(principal, () =>
    stampBriefingDeliveredWithin(deps.db, key, delivered, now, withinMs),
  );
  if (stamped === "late") return false;
  if (!stamped) throw new AppError("not_found");
  return true;
}

/**
 * GET /briefing (SPEC §6). Naming a run (agent + sessionId, both or neither) records the delivery:
 * the first time only, `briefingDeliveredAt` is stamped and the delivered items become its
 * `briefedMemories`. A `query` adds the `relevant` section (shared/core/briefing/relevant.ts), ranked
 * beside the other sections' statement and then stripped of what they already carry.
 */
export async function buildBriefing(
  deps: Deps,
  principal: Principal,
  q: BriefingRequest,
  now = new Date(),
): Promise<Briefing> {
  if ((q.agent === undefined) !== (q.sessionId === undefined)) throw new AppError("invalid_input");
  const given = selectorOf(q);
  const limit = q.sectionLimit ?? DEFAULT_SECTION_LIMIT;
  const [{ scope, sections }, relevantOf] = await Promise.all([
    briefingSections(deps.db, {
      userId: principal.userId,
      selector: given,
      limit,
      now,
      staleBefore: new Date(now.getTime() - STALE_AFTER_DAYS * 86_400_000),
    }),
    q.query === undefined
      ? undefined
      : relevantSection(deps, principal, {
          query: q.query,
          limit,
          maxAlreadyBriefed: BRIEFING_SECTIONS.length * limit,
        }),
  ]);
  const beside = q.relevantBeside ?? BRIEFING_SECTIONS;
  const relevant = relevantOf
    ? await relevantOf(new Set(beside.flatMap((name) => sections[name].items.map((i) => i.id))))
    : undefined;
  if (q.agent !== undefined && q.sessionId !== undefined) {
    const delivered = new Map<string, BriefedMemory>();
    for (const { items } of [...Object.values(sections), ...(relevant ? [relevant] : [])]) {
      for (const item of items)
        if (delivered.size < BRIEFED_MAX)
          delivered.set(item.id, { id: item.id, topic: item.topic, status: item.status });
    }
    await recordBriefingDelivered(
      deps,
      principal,
      { agent: q.agent, sessionId: q.sessionId },
      [...delivered.values()],
      now,
    );
  }
  const selector = scope === null ? given : ({ ...given, scope } as Selector);
  return relevant ? { generatedAt: now, selector, sections, relevant } : { generatedAt: now, selector, sections };
}
