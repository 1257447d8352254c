import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Dataset, EvalUnit, MemorySpec, QuerySpec } from "../types";
import { mergeDuplicateContent, splitOfId } from "./split";

/**
 * BEAM, 128K tier (mohammadtavakoli78/BEAM, "Beyond a Million Tokens: Benchmarking and Enhancing
 * Long-Term Memory in LLMs", 2025; not committed, see bench/retrieval/datasets.md): twenty
 * LLM-generated user–assistant chats of about 128K tokens each (the repository's `chats/100K/`),
 * in three to five dated batches, with twenty probing questions per chat, two of each of ten
 * categories, whose `source_chat_ids` name message ids. One memory per message (user and
 * assistant alike), one tenant per chat. Held out for its first run (sixteenth session, every
 * question test, recorded in bench/README.md as it came out: amem well below BM25, its pages full
 * of long assistant messages); then split by question as the single-tenant sets are (splitOfId),
 * so that constants are fitted on its dev questions and read on its test ones.
 *
 *   - Topic `<role> on <time anchor>` ("user on March-15-2024"): the anchor the batch's first
 *     message carries (the batch's own `time_anchor` is null), as LoCoMo's session date is used.
 *   - Content: the message's text, its trailing ` ->-> <batch>,<n>` marker stripped and trimmed; a
 *     message over amem's 8,000-character limit (code points, shared/SPEC.md §4.1) keeps its first
 *     8,000 (the run notes how many).
 *   - Gold: `source_chat_ids` flattened, whatever its shape (a list, nested lists for
 *     event_ordering, or a dict of lists: knowledge_update, contradiction_resolution,
 *     temporal_reasoning). Abstention questions name none: they are the harness's abstention
 *     questions (no gold). A question of another category naming none is dropped and counted.
 *   - Category: BEAM's own. instruction_following, preference_following and summarization are
 *     prompts to answer with the chat in mind rather than questions about it; kept, each its own
 *     category in the report.
 */

/** The twenty 128K chats (directories `chats/100K/<n>/` of the pinned snapshot). */
export const BEAM_CHATS = Array.from({ length: 20 }, (_, i) => i + 1);

/** Where each chat's two files go under RETRIEVAL_DATA_DIR (copied from the pinned snapshot). */
export const beamChatFile = (chat: number) => `beam/100K/${chat}/chat.json`;
export const beamQuestionsFile = (chat: number) => `beam/100K/${chat}/probing_questions.json`;

/** amem's content limit, in characters (code points): shared/SPEC.md §4.1. */
const CONTENT_LIMIT = 8000;

type Message = { role: string; id: number; content: string; time_anchor?: string | null };
type Batch = { batch_number: number; time_anchor?: string | null; turns: Message[][] };
type SourceIds = number | SourceIds[] | { [key: string]: SourceIds } | null | undefined;
type Probe = { question: string; source_chat_ids?: SourceIds };

/** The marker the generator appended to a message: ` ->-> 1,1`, ` ->-> 2,N/A`, ` ->-> 2,22, 24`, ` ->-> 5,14)`. */
const INDEX_MARKER = /\s*->->\s*(?:\d+|N\/A)(?:\s*,\s*(?:\d+|N\/A))*\)?\s*$/;

export function loadBeam(dataDir: string): Dataset | string {
  const missing = BEAM_CHATS.flatMap((c) => [beamChatFile(c), beamQuestionsFile(c)]).filter(
    (f) => !existsSync(join(dataDir, f)),
  );
  if (missing.length > 0)
    return `BEAM: ${missing.length} of ${BEAM_CHATS.length * 2} files not in ${join(dataDir, "beam/100K")}/ (${missing[0]}…) — skipped (bench/retrieval/datasets.md)`;
  const totals = { dropped: 0, cut: 0, merged: 0 };
  const units: EvalUnit[] = BEAM_CHATS.map((chat) => {
    const batches = JSON.parse(readFileSync(join(dataDir, beamChatFile(chat)), "utf8")) as Batch[];
    const probes = JSON.parse(readFileSync(join(dataDir, beamQuestionsFile(chat)), "utf8")) as Record<string, Probe[]>;
    const built = buildUnit(`chat-${chat}`, batches, probes);
    totals.dropped += built.dropped;
    totals.cut += built.cut;
    const deduped = mergeDuplicateContent(built.unit);
    totals.merged += deduped.merged;
    return deduped.unit;
  });
  const notes = [
    `${totals.dropped} questions dropped: not abstention, yet no source_chat_ids`,
    `${totals.cut} messages over the ${CONTENT_LIMIT.toLocaleString("en")}-character content limit cut to their first ${CONTENT_LIMIT.toLocaleString("en")}`,
  ];
  if (totals.merged > 0)
    notes.push(`${totals.merged} memories with the content of an earlier one merged into it (409 duplicate_memory)`);
  return {
    name: "beam-128k-turns",
    units,
    notes,
    splitRule:
      "by question: dev when the first byte of SHA-256(`beam/chat-<n>/<category>/q<i>`) < 102 (~40%), else test. Held out for its first run (every question test; bench/README.md, sixteenth session), consulted since",
  };
}

/** Every message id named by `source_chat_ids`, whatever its nesting. */
export function sourceIds(ids: SourceIds): number[] {
  if (typeof ids === "number") return [ids];
  if (Array.isArray(ids)) return ids.flatMap(sourceIds);
  if (ids !== null && typeof ids === "object") return Object.values(ids).flatMap(sourceIds);
  return [];
}

/** The first `max` code points of `text` (never half a surrogate pair), or `text` when it is no longer. */
export function cutToCodePoints(text: string, max: number): string {
  if (text.length <= max) return text;
  let points = 0;
  for (let i = 0; i < text.length; i++) {
    if (points === max) return text.slice(0, i);
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    points++;
  }
  return text;
}

function buildUnit(
  key: string,
  batches: Batch[],
  probes: Record<string, Probe[]>,
): { unit: EvalUnit; dropped: number; cut: number } {
  const memories: MemorySpec[] = [];
  let cut = 0;
  for (const batch of batches) {
    // The batch's date is carried by its first message (the batch's own time_anchor is null).
    let date = batch.time_anchor ?? "";
    for (const turn of batch.turns) {
      for (const msg of turn) {
        if (msg.time_anchor) date = msg.time_anchor;
        const text = msg.content.replace(INDEX_MARKER, "").trim();
        if (text === "") continue;
        const content = cutToCodePoints(text, CONTENT_LIMIT).trimEnd();
        if (content !== text) cut++;
        if (!Number.isInteger(msg.id)) throw new Error(`${key}: message id ${msg.id}`);
        if (date === "") throw new Error(`${key}: message ${msg.id} has no time anchor`);
        memories.push({ ref: String(msg.id), memoryType: "note", topic: `${msg.role} on ${date}`, content });
      }
    }
  }
  const stored = new Set(memories.map((m) => m.ref));
  if (stored.size !== memories.length) throw new Error(`${key}: a message id occurs twice`);
  let dropped = 0;
  const queries: QuerySpec[] = [];
  for (const [category, list] of Object.entries(probes)) {
    list.forEach((probe, i) => {
      const gold = [...new Set(sourceIds(probe.source_chat_ids).map(String))];
      const unknown = gold.find((id) => !stored.has(id));
      if (unknown !== undefined) throw new Error(`${key}: ${category} question ${i} names message ${unknown}`);
      if (category === "abstention") {
        if (gold.length > 0) throw new Error(`${key}: abstention question ${i} names source messages`);
      } else if (gold.length === 0) {
        dropped++;
        return;
      }
      const id = `beam/${key}/${category}/q${i}`;
      queries.push({
        id,
        text: probe.question,
        category,
        split: splitOfId(id),
        gold,
        current: true,
      });
    });
  }
  return { unit: { key, memories, queries }, dropped, cut };
}
