import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { Dataset, EvalUnit, MemorySpec, QuerySpec } from "../types";
import { mergeDuplicateContent, splitByPosition } from "./split";

/**
 * LoCoMo (snap-research/locomo, ACL 2024; not committed, see bench/retrieval/datasets.md): ten long
 * multi-session chats between two people, with questions whose `evidence` names dialog turns
 * ("D3:12" = session 3, turn 12). Three ways to store a chat, one tenant per chat each:
 *   locomo-turns      one memory per turn                        gold: the evidence turns
 *   locomo-sessions   one memory per session (turns joined)      gold: the sessions holding them
 *   locomo-summaries  one memory per session's `session_N_summary` gold: those sessions' summaries
 * Category 5 (adversarial: asks about something the other speaker did, or nobody) is left out:
 * its premise is false, yet its evidence turns are stored (446 of 446 questions), so it is neither
 * an abstention question (nothing relevant stored) nor one whose gold answers it. Read as
 * abstention until the fourteenth session, it made the "no result" column count questions whose
 * evidence a search rightly finds. The category names follow the usual reading of the numbers.
 */

const CATEGORY = new Map([
  [1, "multi-hop"],
  [2, "temporal"],
  [3, "open-domain"],
  [4, "single-hop"],
]);

type Turn = { speaker: string; diaId: string; text: string; caption?: string };
type Session = { n: number; date: string; turns: Turn[]; summary?: string };
type Qa = { question: string; evidence: string[]; category: number };
type Conversation = { id: string; speakerA: string; speakerB: string; sessions: Session[]; qa: Qa[] };

/** Where the files go under RETRIEVAL_DATA_DIR: the release's JSON array, or the pinned zip's per-chat files. */
export const LOCOMO_FILES = ["locomo10.json", "locomo10_v2/<n>.json"];

/** The three LoCoMo datasets, or one line saying which file is missing. */
export function loadLocomo(dataDir: string): Dataset[] | string {
  const conversations = readConversations(dataDir);
  if (typeof conversations === "string") return conversations;
  conversations.sort((a, b) => a.id.localeCompare(b.id, "en", { numeric: true }));
  const splitRule =
    "by conversation, in sample-id order: positions i mod 5 < 2 dev (" +
    conversations
      .filter((_, i) => splitByPosition(i) === "dev")
      .map((c) => c.id)
      .join(", ") +
    "), the rest test";
  return (["turns", "sessions", "summaries"] as const).map((variant) => {
    let unresolved = 0;
    let merged = 0;
    const units: EvalUnit[] = conversations.map((conv, i) => {
      const built = buildUnit(conv, variant, splitByPosition(i));
      unresolved += built.unresolved;
      const deduped = mergeDuplicateContent(built.unit);
      merged += deduped.merged;
      return deduped.unit;
    });
    const notes = [`${unresolved} answerable questions dropped: no evidence id names a turn of the chat`];
    if (merged > 0)
      notes.push(`${merged} memories with the content of an earlier one merged into it (409 duplicate_memory)`);
    return { name: `locomo-${variant}`, units, notes, splitRule };
  });
}

function buildUnit(
  conv: Conversation,
  variant: "turns" | "sessions" | "summaries",
  split: "dev" | "test",
): { unit: EvalUnit; unresolved: number } {
  const memories: MemorySpec[] = [];
  const sessionOfTurn = new Map<string, number>();
  const pair = `${conv.speakerA} and ${conv.speakerB} on`;
  for (const s of conv.sessions) {
    for (const t of s.turns) sessionOfTurn.set(t.diaId, s.n);
    if (variant === "turns") {
      for (const t of s.turns) {
        const content = t.caption ? `${t.text} [shares a photo: ${t.caption}]` : t.text;
        if (content.trim() !== "")
          memories.push({ ref: t.diaId, memoryType: "note", topic: `${t.speaker} on ${s.date}`, content });
      }
    } else if (variant === "sessions") {
      const lines = s.turns.map((t) => `${t.speaker}: ${t.text}${t.caption ? ` [shares a photo: ${t.caption}]` : ""}`);
      memories.push({ ref: `S${s.n}`, memoryType: "note", topic: `${pair} ${s.date}`, content: lines.join("\n") });
    } else if (s.summary) {
      memories.push({ ref: `S${s.n}`, memoryType: "note", topic: `${pair} ${s.date} (summary)`, content: s.summary });
    }
  }
  const stored = new Set(memories.map((m) => m.ref));
  let unresolved = 0;
  const queries: QuerySpec[] = [];
  conv.qa.forEach((qa, i) => {
    if (qa.category === 5) return;
    const category = `${qa.category} ${CATEGORY.get(qa.category) ?? "unknown"}`;
    const id = `${conv.id}/q${i}`;
    const turns = qa.evidence.flatMap((e) =>
      [...e.matchAll(/D(\d+):(\d+)/g)].map((m) => `D${Number(m[1])}:${Number(m[2])}`),
    );
    const known = turns.filter((t) => sessionOfTurn.has(t));
    const gold = variant === "turns" ? known : known.map((t) => `S${sessionOfTurn.get(t)}`);
    const storedGold = [...new Set(gold)].filter((g) => stored.has(g));
    if (storedGold.length === 0) {
      unresolved++;
      return;
    }
    queries.push({ id, text: qa.question, category, split, gold: storedGold, current: true });
  });
  return { unit: { key: conv.id, memories, queries }, unresolved };
}

function readConversations(dataDir: string): Conversation[] | string {
  const single = join(dataDir, "locomo10.json");
  if (existsSync(single)) {
    const raw = JSON.parse(readFileSync(single, "utf8")) as Record<string, unknown>[];
    return raw.map((r, i) => normalize(String(r.sample_id ?? `conv-${i}`), r));
  }
  const dir = join(dataDir, "locomo10_v2");
  if (existsSync(dir)) {
    return readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .map((f) => normalize(`conv-${basename(f, ".json")}`, JSON.parse(readFileSync(join(dir, f), "utf8"))));
  }
  return `LoCoMo: neither ${single} nor ${dir}/ exists (see bench/retrieval/datasets.md) — skipped`;
}

/** Reads either layout: the release nests the chat under `conversation` and the summaries under `session_summary`. */
function normalize(id: string, raw: Record<string, unknown>): Conversation {
  const flat: Record<string, unknown> = {
    ...raw,
    ...((raw.conversation as Record<string, unknown> | undefined) ?? {}),
    ...((raw.session_summary as Record<string, unknown> | undefined) ?? {}),
  };
  const sessions: Session[] = [];
  for (const key of Object.keys(flat)) {
    const m = /^session_(\d+)$/.exec(key);
    if (!m || !Array.isArray(flat[key])) continue;
    const n = Number(m[1]);
    const when = String(flat[`session_${n}_date_time`] ?? "");
    const turns = (flat[key] as Record<string, unknown>[]).map((t) => ({
      speaker: String(t.speaker),
      diaId: String(t.dia_id),
      text: String(t.text ?? ""),
      caption: typeof t.blip_caption === "string" ? t.blip_caption : undefined,
    }));
    const summary = flat[`session_${n}_summary`];
    sessions.push({
      n,
      date: when.includes(" on ") ? when.slice(when.indexOf(" on ") + 4) : when,
      turns,
      summary: typeof summary === "string" ? summary : undefined,
    });
  }
  sessions.sort((a, b) => a.n - b.n);
  return {
    id,
    speakerA: String(flat.speaker_a),
    speakerB: String(flat.speaker_b),
    sessions,
    qa: (raw.qa as Qa[]).map((q) => ({ question: q.question, evidence: q.evidence ?? [], category: q.category })),
  };
}
