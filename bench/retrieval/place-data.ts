/**
 * Places the public datasets of `bun run bench:retrieval` under RETRIEVAL_DATA_DIR from their pinned
 * snapshots (bench/retrieval/datasets.md), so every run reads the very same bytes:
 *
 *   bun run retrieval:data                                   clones each repository from GitHub
 *   bun run retrieval:data --from snap-research/locomo=/path/to/clone --from B3dmar/3ngram=/path
 *                          --from danny911kr/REALTALK=/path --from mohammadtavakoli78/BEAM=/path
 *
 * Each source is read with git at its pinned commit — a local clone or mirror given with --from, or
 * else a blob-less clone of the GitHub repository into a temporary directory — and each file's blob
 * id must be the pinned one before anything is written (a rewritten history or another file is
 * refused). Nothing is committed: RETRIEVAL_DATA_DIR (default bench/retrieval/data/) is git-ignored.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BEAM_CHATS, beamChatFile, beamQuestionsFile } from "./datasets/beam";
import { retrievalDataDir } from "./datasets/present";
import { REALTALK_CHATS, realtalkFile } from "./datasets/realtalk";
import { THREE_NGRAM_FILES } from "./datasets/three-ngram";

/** One file of a snapshot: where it is in the repository, its blob id, and what to do with it. */
export type PinnedFile = {
  path: string;
  blob: string;
  /** Written as is to `to` (relative to the data directory), or unzipped (`entries` of it) into `to`. */
  place: { copy: string } | { unzip: string; entries: string };
};
export type PinnedSource = { repo: string; commit: string; files: PinnedFile[] };

/** The blob id of each REALTALK chat (datasets/realtalk.ts REALTALK_CHATS, same order) at its pinned commit. */
const REALTALK_BLOBS: [chat: (typeof REALTALK_CHATS)[number], blob: string][] = [
  ["Chat_1_Emi_Elise", "3a3205c099754dc8e80103d3b6a292f69308cf3f"],
  ["Chat_2_Kevin_Elise", "121bb479785de23c8c14c46cb364dc9415dac81f"],
  ["Chat_3_Kevin_Paola", "cc6603969b914d7cf7c36eec3c4f939e1c57c2d9"],
  ["Chat_4_Emi_Paola", "82c4ce8e090e14613c00bd4338cc4ff1f856fec3"],
  ["Chat_5_Nicolas_Nebraas", "a70204080608ba6923a1ce978dbf846fe19559ab"],
  ["Chat_6_Vanessa_Nicolas", "f58aff66d3a757c12f06bde92c40d20f382e19f3"],
  ["Chat_7_Nebraas_Vanessa", "ef666c493e96b7539d5e6c0764ed9efdf8fe44bc"],
  ["Chat_8_Akib_Muhhamed", "d3b96f06130f254e20a2fea6fd581a4147c2584f"],
  ["Chat_9_Fahim_Akib", "5dabb998f6c208936f11bd35ec3ce5ab96f53eca"],
  ["Chat_10_Fahim_Muhhamed", "ff0d44bae354cd1d892224b5ede6be871d7f5adf"],
];

/**
 * The blob ids of each BEAM 128K chat (datasets/beam.ts BEAM_CHATS, same order) at its pinned commit:
 * `chats/100K/<n>/chat.json`, then `chats/100K/<n>/probing_questions/probing_questions.json`.
 */
const BEAM_BLOBS: [chat: (typeof BEAM_CHATS)[number], chatBlob: string, questionsBlob: string][] = [
  [1, "733b95b18190938371fc3a59be666c161a85a9e2", "5fa1ae816022693665af2c3e2f4f03a96ade370a"],
  [2, "3a3109484126472237c53fee488b452b5bc1caf2", "5c7c155923a885a4c9d6074ae35e9815d749ffed"],
  [3, "6cc7517e7a695e8b0ee579a73687cd6ecd797550", "7bde542e40cfccb83baef58dc8349dcdace1c4e8"],
  [4, "48961f60631a4e4c3e1697f74c2b730898f19a93", "a315e8db9a28bb02ef652cfef579a538934fe3d3"],
  [5, "42a34eab03cec3df68f0ccf5998b909b662dc30a", "ad98f4f3520cfecc7d19c9664b805a647c03e0d8"],
  [6, "8704f92ab52d3e35023c2649bcaa1bafa0b87e4b", "46e7be78b14adf00507888473a1d9211098cd2d8"],
  [7, "d7ecce93eb7b08dae2768527aeff60164c9e2857", "2bec447bc76d1c0ca1334e61e96a4f736bc2db8a"],
  [8, "7da76ae67cbb1cb7f319d5be691aa9b836acf139", "1c842a13e989fcfbf1b375c841ef87096ec31f7f"],
  [9, "f61c13ebd9b99c4e87ccd6199b37ea1c850815ac", "130ed6b7bbf722705934fccd4f2f9ba875cce306"],
  [10, "19ebcc365412674f7657b424e104f10dfba6760a", "0e4c8ceece7267702e7f2fbcac9eddb283d732f1"],
  [11, "4b2f036f69af3426960d7cd37472ae155e27af56", "ef6d49ee20bbd2e34b2f835b5512e87c76e3848e"],
  [12, "bbabe6fcf7290e34636fe5e25c748ebefbdbbcfa", "2497fa6913890a79504382c9ac6beda5dafb4f52"],
  [13, "f08396767fe97c13c622b58b86c54c5196b28f7c", "6a5a8c263b26a788f0d7b18560f14e1ba3dd2545"],
  [14, "70485c19d3c8b0509af46b4d4e9be3f171251df8", "ad118749ec58becc527ffec7f07d067313a2276d"],
  [15, "7100c6e7f5eaa3b9954cb33313d373b58b7000ef", "c6405c320ebb977b13df55594a32ac1197e2bf8c"],
  [16, "c8aaa7087e534d9bd472bd9b25588a724109eb9b", "6bb7f50bcf89044a7287c251cd3f7ccbdaaeaa1b"],
  [17, "7c6d49daa265c1ce15bcddc4c9fe605ac446647c", "2d694e44b110a1494fd26c99d3cb79842877f38b"],
  [18, "6098d850aa3ab230aca42cc88b293fa327b04d8a", "7a0915100624549c50d5e268e4f900563739f21e"],
  [19, "9a2e181f97ad6255bca422f240e6a7588ef9dff0", "b12b9d3740fa89dba78df438e1a93a327bf248d8"],
  [20, "bf3821b7969b3f2e4464aaf4b967cf85a6460854", "61a655adda0bf04e140432c585988e171929fe02"],
];

/** The datasets and their snapshots, as bench/retrieval/datasets.md describes them. */
export const PINNED_SOURCES: PinnedSource[] = [
  {
    repo: "snap-research/locomo",
    commit: "e76cdff4a04fce19090596d49862fe87a5c15aaa",
    files: [
      {
        path: "data/locomo10.zip",
        blob: "2cb424b0d9d2619fb70169824a6a05d44330a211",
        place: { unzip: "locomo10_v2", entries: "data/multimodal_dialog/locomo10_v2/*" },
      },
    ],
  },
  {
    repo: "B3dmar/3ngram",
    commit: "601f655ecf0cd47906f3b257afa33ff9ebed272d",
    files: [
      {
        path: "eval/fixtures/golden-set.json",
        blob: "d2934b51a98a656bd3722c1425f3f5d988e55d91",
        place: { copy: THREE_NGRAM_FILES[0] },
      },
      {
        path: "eval/fixtures/queries.json",
        blob: "c3c07fc69b9a00eee8d73ff2aca9a65781a5262a",
        place: { copy: THREE_NGRAM_FILES[1] },
      },
    ],
  },
  {
    // Held out (bench/retrieval/datasets.md): its data files are unchanged since 8ed04b9 (2025-02-19).
    repo: "danny911kr/REALTALK",
    commit: "b903e06a9770bf4e5fe9018c3e132889666d3b4a",
    files: REALTALK_BLOBS.map(([chat, blob]) => ({
      path: `data/${chat}.json`,
      blob,
      place: { copy: realtalkFile(chat) },
    })),
  },
  {
    // Held out (bench/retrieval/datasets.md): the 128K tier only; its files are unchanged since 5a64c99 (2025-10-28).
    repo: "mohammadtavakoli78/BEAM",
    commit: "b2a3ee8ba12d68f83143dda191097dc3e028ddd3",
    files: BEAM_BLOBS.flatMap(([chat, chatBlob, questionsBlob]) => [
      { path: `chats/100K/${chat}/chat.json`, blob: chatBlob, place: { copy: beamChatFile(chat) } },
      {
        path: `chats/100K/${chat}/probing_questions/probing_questions.json`,
        blob: questionsBlob,
        place: { copy: beamQuestionsFile(chat) },
      },
    ]),
  },
];

function git(dir: string, args: string[]): Buffer {
  const run = Bun.spawnSync(["git", "-C", dir, ...args], { stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")} in ${dir}: ${run.stderr.toString().trim()}`);
  return run.stdout;
}

/**
 * Writes every file of `sources` into `dataDir`, reading each repository from `repoDirs` (its git
 * directory or work tree). Answers the paths written, relative to `dataDir`.
 */
export function placeDatasets(sources: PinnedSource[], dataDir: string, repoDirs: Map<string, string>): string[] {
  const written: string[] = [];
  for (const source of sources) {
    const dir = repoDirs.get(source.repo);
    if (dir === undefined) throw new Error(`no repository given for ${source.repo}`);
    for (const file of source.files) {
      const blob = git(dir, ["rev-parse", `${source.commit}:${file.path}`])
        .toString()
        .trim();
      if (blob !== file.blob)
        throw new Error(`${source.repo}@${source.commit}:${file.path} is blob ${blob}, not the pinned ${file.blob}`);
      const bytes = git(dir, ["cat-file", "blob", blob]);
      if ("copy" in file.place) {
        const to = join(dataDir, file.place.copy);
        mkdirSync(join(to, ".."), { recursive: true });
        writeFileSync(to, bytes);
        written.push(file.place.copy);
      } else {
        const scratch = mkdtempSync(join(tmpdir(), "amem-dataset-"));
        try {
          const zip = join(scratch, "archive.zip");
          writeFileSync(zip, bytes);
          const to = join(dataDir, file.place.unzip);
          mkdirSync(to, { recursive: true });
          const unzip = Bun.spawnSync(["unzip", "-o", "-q", "-j", "-d", to, zip, file.place.entries], {
            stderr: "pipe",
          });
          if (unzip.exitCode !== 0) throw new Error(`unzip ${file.path}: ${unzip.stderr.toString().trim()}`);
          written.push(`${file.place.unzip}/`);
        } finally {
          rmSync(scratch, { recursive: true, force: true });
        }
      }
    }
  }
  return written;
}

/** A blob-less clone of github.com/<repo> with the pinned commit fetched: files are read on demand. */
function cloneFromGitHub(repo: string, commit: string, into: string): string {
  const dir = join(into, repo.replace("/", "+"));
  const clone = Bun.spawnSync(
    ["git", "clone", "--quiet", "--filter=blob:none", "--no-checkout", `https://github.com/${repo}.git`, dir],
    { stderr: "pipe" },
  );
  if (clone.exitCode !== 0) throw new Error(`cloning ${repo}: ${clone.stderr.toString().trim()}`);
  git(dir, ["fetch", "--quiet", "--filter=blob:none", "origin", commit]);
  return dir;
}

if (import.meta.main) {
  const root = join(import.meta.dir, "..", "..");
  const dataDir = retrievalDataDir(root);
  const given = new Map<string, string>();
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const [repo, dir] = args[i] === "--from" ? (args[++i] ?? "").split("=") : [];
    if (!repo || !dir || !PINNED_SOURCES.some((s) => s.repo === repo)) {
      console.error(
        `usage: bun run retrieval:data [--from <${PINNED_SOURCES.map((s) => s.repo).join("|")}>=<git dir>]…`,
      );
      process.exit(2);
    }
    given.set(repo, dir);
  }
  const clones = mkdtempSync(join(tmpdir(), "amem-dataset-clones-"));
  try {
    for (const source of PINNED_SOURCES)
      if (!given.has(source.repo)) given.set(source.repo, cloneFromGitHub(source.repo, source.commit, clones));
    for (const path of placeDatasets(PINNED_SOURCES, dataDir, given)) console.log(`placed ${join(dataDir, path)}`);
  } catch (error) {
    console.error(`retrieval:data: ${(error as Error).message}`);
    process.exitCode = 1;
  } finally {
    rmSync(clones, { recursive: true, force: true });
  }
}
