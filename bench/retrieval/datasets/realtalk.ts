import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Dataset, EvalUnit, MemorySpec, QuerySpec } from "../types";
import { mergeDuplicateContent } from "./split";

/**
 * REALTALK (danny911kr/REALTALK, Lee et al. 2025; not committed, see bench/retrieval/datasets.md):
 * ten real 21-day messaging-app chats between two people, preprocessed the LoCoMo way (same authors),
 * with memory-probing questions whose `evidence` names message ids ("D3:12"). One memory per message,
 * one tenant per chat. HELD OUT: every question is `test` and no constant is fitted on it.
 *
 * Message ids are numbered by the dataset, not by session (session 4 of a chat may start at "D3:30"),
 * and the preprocessing left gaps: some evidence ids name a message that is not in the file. Evidence is
 * read leniently ("D5:3.", "D5:12;D5:16", ranges "D12:3-D12:5"); a question keeps the evidence that
 * names a stored message and is dropped (and counted) when none does. Categories 1–3 are read with
 * LoCoMo's numbering (REALTALK's own evaluation skips 4 and 5, "which are only in LoCoMo data").
 */

/** The ten chats of data/ at the pinned commit, in the dataset's order (file stems). */
export const REALTALK_CHATS = [
  "Chat_1_Emi_Elise",
  "Chat_2_Kevin_Elise",
  "Chat_3_Kevin_Paola",
  "Chat_4_Emi_Paola",
  "Chat_5_Nicolas_Nebraas",
  "Chat_6_Vanessa_Nicolas",
  "Chat_7_Nebraas_Vanessa",
  "Chat_8_Akib_Muhhamed",
  "Chat_9_Fahim_Akib",
  "Chat_10_Fahim_Muhhamed",
] as const;

/** Where each chat goes under RETRIEVAL_DATA_DIR (copied from data/ of the pinned snapshot). */
export const realtalkFile = (chat: string) => `realtalk/${chat}.json`;

const CATEGORY = new Map([
  [1, "multi-hop"],
  [2, "temporal"],
  [3, "open-domain"],
]);

type Message = { clean_text?: string; speaker: string; date_time?: string; dia_id: string; blip_caption?: string };
type Qa = { question: string; evidence?: string[]; category: number };
type Chat = Record<string, unknown> & { qa: Qa[] };

export function loadRealtalk(dataDir: string): Dataset | string {
  const missing = REALTALK_CHATS.filter((c) => !existsSync(join(dataDir, realtalkFile(c))));
  if (missing.length > 0)
    return `REALTALK: ${missing.length} of ${REALTALK_CHATS.length} chats not in ${join(dataDir, "realtalk")}/ (${missing[0]}.json…) — skipped (bench/retrieval/datasets.md)`;
  let dropped = 0;
  let partial = 0;
  let unresolvedIds = 0;
  let merged = 0;
  const units: EvalUnit[] = REALTALK_CHATS.map((chat, i) => {
    const raw = JSON.parse(readFileSync(join(dataDir, realtalkFile(chat)), "utf8")) as Chat;
    const built = buildUnit(`chat-${i + 1}`, raw);
    dropped += built.dropped;
    partial += built.partial;
    unresolvedIds += built.unresolvedIds;
    const deduped = mergeDuplicateContent(built.unit);
    merged += deduped.merged;
    return deduped.unit;
  });
  const notes = [
    `${dropped} questions dropped: no evidence id names a message of the chat`,
    `${partial} questions kept with part of their evidence (${unresolvedIds} evidence ids name no message of the preprocessed chat)`,
  ];
  if (merged > 0)
    notes.push(`${merged} memories with the content of an earlier one merged into it (409 duplicate_memory)`);
  return {
    name: "realtalk-turns",
    units,
    notes,
    heldOut: true,
    splitRule:
      "held out: every question is test (no constant is fitted on it; each run is recorded as it came out, its aggregate read after the fifteenth and seventeenth sessions' changes only; bench/retrieval/datasets.md)",
  };
}

/**
 * "D5:3." → ["D5:3"]; "D12:11-D12:14;D13:25" → D12:11…D12:14, D13:25; a range across sessions keeps
 * its ends; "D 2:18", "D17;39" and "23:29" as D2:18, D17:39, D23:29 (a review found 8 evidence
 * strings read as nothing: these, and "D:56", "D58" and empty ones, which name no message).
 */
export function evidenceIds(evidence: string): string[] {
  const ids: string[] = [];
  // The "D" and the colon as the annotators typed them too: "D 2:18", "D17;39", "23:29".
  for (const m of evidence.matchAll(/D?\s*(\d+)\s*[:;]\s*(\d+)(?:\s*-\s*(?:D?\s*(\d+)\s*[:;]\s*)?(\d+))?/g)) {
    const session = Number(m[1]);
    const from = Number(m[2]);
    const toSession = m[3] === undefined ? session : Number(m[3]);
    const to = m[4] === undefined ? from : Number(m[4]);
    if (toSession === session && to >= from && to - from < 100)
      for (let t = from; t <= to; t++) ids.push(`D${session}:${t}`);
    else ids.push(`D${session}:${from}`, `D${toSession}:${to}`);
  }
  return ids;
}

function buildUnit(
  key: string,
  raw: Chat,
): { unit: EvalUnit; dropped: number; partial: number; unresolvedIds: number } {
  const sessions = Object.keys(raw)
    .map((k) => /^session_(\d+)$/.exec(k))
    .filter((m): m is RegExpExecArray => m !== null && Array.isArray(raw[m[0]]))
    .map((m) => ({ n: Number(m[1]), date: String(raw[`${m[0]}_date_time`] ?? ""), messages: raw[m[0]] as Message[] }))
    .sort((a, b) => a.n - b.n);
  const memories: MemorySpec[] = [];
  for (const s of sessions) {
    for (const msg of s.messages) {
      const text = (msg.clean_text ?? "").trim();
      const caption = typeof msg.blip_caption === "string" ? msg.blip_caption.trim() : "";
      const content = caption ? `${text} [shares a photo: ${caption}]`.trim() : text;
      if (content === "") continue;
      if (!/^D\d+:\d+$/.test(msg.dia_id)) throw new Error(`${key}: message id ${msg.dia_id}`);
      // "29.12.2023, 22:42:04" → "29.12.2023": the day the message was sent (else its session's).
      const day = (msg.date_time || s.date).split(",")[0]!.trim();
      memories.push({ ref: msg.dia_id, memoryType: "note", topic: `${msg.speaker} on ${day}`, content });
    }
  }
  const stored = new Set(memories.map((m) => m.ref));
  if (stored.size !== memories.length) throw new Error(`${key}: a message id occurs twice`);
  let dropped = 0;
  let partial = 0;
  let unresolvedIds = 0;
  const queries: QuerySpec[] = [];
  raw.qa.forEach((qa, i) => {
    const ids = [...new Set((qa.evidence ?? []).flatMap(evidenceIds))];
    const gold = ids.filter((id) => stored.has(id));
    unresolvedIds += ids.length - gold.length;
    if (gold.length === 0) {
      dropped++;
      return;
    }
    if (gold.length < ids.length) partial++;
    queries.push({
      id: `realtalk/${key}/q${i}`,
      text: qa.question,
      category: `${qa.category} ${CATEGORY.get(qa.category) ?? "unknown"}`,
      split: "test",
      gold,
      current: true,
    });
  });
  return { unit: { key, memories, queries }, dropped, partial, unresolvedIds };
}
