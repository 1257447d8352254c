import { describe, expect, it } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BEAM_CHATS,
  beamChatFile,
  beamQuestionsFile,
  cutToCodePoints,
  loadBeam,
  sourceIds,
} from "../../bench/retrieval/datasets/beam";

/*
 * The BEAM loader (bench/retrieval/datasets/beam.ts) on hand-made files of BEAM's shapes: its
 * evidence in its three forms, its index markers, its dated batches, and messages over the limit.
 * Never on BEAM's own data, which stays held out.
 */
describe("BEAM loader", () => {
  it("flattens source_chat_ids of every shape", () => {
    expect(sourceIds([3, 5])).toEqual([3, 5]);
    expect(sourceIds([[1, 2], [3]])).toEqual([1, 2, 3]);
    expect(sourceIds({ original_info: [86], updated_info: [114] })).toEqual([86, 114]);
    expect(sourceIds(null)).toEqual([]);
  });

  it("cuts to code points, never half a surrogate pair", () => {
    expect(cutToCodePoints("abc", 5)).toBe("abc");
    expect(cutToCodePoints("😀😀😀", 2)).toBe("😀😀");
    expect(cutToCodePoints("a😀b", 2)).toBe("a😀");
  });

  it("stores one dated memory per message without its marker, and questions with their gold or as abstention", () => {
    const dir = mkdtempSync(join(tmpdir(), "amem-beam-"));
    try {
      for (const chat of BEAM_CHATS) {
        mkdirSync(join(dir, beamChatFile(chat), ".."), { recursive: true });
        const batches = [
          {
            batch_number: 1,
            time_anchor: null,
            turns: [
              [
                { role: "user", id: 0, time_anchor: "March-15-2024", content: "Sprint ends March 29 ->-> 1,1" },
                { role: "assistant", id: 1, content: `${"x".repeat(9000)} ->-> 1,2` },
              ],
            ],
          },
        ];
        writeFileSync(join(dir, beamChatFile(chat)), JSON.stringify(batches));
        const probes = {
          information_extraction: [{ question: "When does my sprint end?", source_chat_ids: [0] }],
          knowledge_update: [{ question: "Which?", source_chat_ids: { original_info: [0], updated_info: [1] } }],
          abstention: [{ question: "What did I name the cat?", source_chat_ids: [] }],
          summarization: [{ question: "Summarise", source_chat_ids: [] }],
        };
        writeFileSync(join(dir, beamQuestionsFile(chat)), JSON.stringify(probes));
      }
      const dataset = loadBeam(dir);
      if (typeof dataset === "string") throw new Error(dataset);
      const unit = dataset.units[0]!;
      expect(unit.memories.map((m) => [m.ref, m.topic, m.content.length])).toEqual([
        ["0", "user on March-15-2024", "Sprint ends March 29".length],
        ["1", "assistant on March-15-2024", 8000],
      ]);
      expect(unit.queries.map((q) => [q.category, q.gold])).toEqual([
        ["information_extraction", ["0"]],
        ["knowledge_update", ["0", "1"]],
        ["abstention", []],
      ]);
      expect(new Set(dataset.units.flatMap((u) => u.queries.map((q) => q.split)))).toEqual(new Set(["dev", "test"]));
      expect(dataset.notes[0]).toStartWith(`${BEAM_CHATS.length} questions dropped`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is skipped with a message when its files are not placed", () => {
    const dir = mkdtempSync(join(tmpdir(), "amem-beam-none-"));
    try {
      expect(loadBeam(dir)).toStartWith("BEAM: 40 of 40 files not in");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
