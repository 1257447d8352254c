/**
 * The English stop words of the BM25 baseline: the Snowball English list, which is also the list
 * of Postgres's `english` text search configuration (tsearch_data/english.stop) that amem's own
 * search uses, so both sides drop the same words. The npm `stopword` package's English list was
 * not used: it drops content words ("like", "make", "way", "never") and keeps "when" and "why".
 */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers " +
    "herself it its itself they them their theirs themselves what which who whom this that these those am is " +
    "are was were be been being have has had having do does did doing a an the and but if or because as until " +
    "while of at by for with about against between into through during before after above below to from up " +
    "down in out on off over under again further then once here there when where why how all any both each " +
    "few more most other some such no nor not only own same so than too very s t can will just don should now"
  ).split(" "),
);
