-- amem_search_saturation: the BM25F saturation of one term in one memory (README "Search"), with
-- the tenant's length normalisation b = A / (A + 35), A = avg_topic + avg_content (a Dirichlet
-- prior of 35 terms), written multiplied through by (A + 35):
--   tf~ = (A + 35) · (3.0 · topic_tf / (35 + A · topic_length / avg_topic)
--                   + 1.0 · content_tf / (35 + A · content_length / avg_content))
--   saturation = tf~ / (0.8 + tf~)
-- which is 3.0 · topic_tf / (1 − b + b · topic_length / avg_topic) + … as
-- shared/core/memories/search-ranking.ts computes it, with its constants (a test checks the two
-- agree). The insert trigger stores it as the posting's impact: the order of a term's champion list.
-- One expression, no FROM: Postgres inlines the call into the statement that uses it (the insert
-- trigger computes it for every posting), where a call it cannot inline costs tens of µs each.
CREATE OR REPLACE FUNCTION amem_search_saturation(
  p_topic_tf float8, p_content_tf float8, p_topic_length float8, p_content_length float8,
  p_avg_topic float8, p_avg_content float8
) RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (p_avg_topic + p_avg_content + 35)
         * (3.0 * p_topic_tf / (35 + (p_avg_topic + p_avg_content) * p_topic_length / greatest(p_avg_topic, 1))
            + 1.0 * p_content_tf / (35 + (p_avg_topic + p_avg_content) * p_content_length / greatest(p_avg_content, 1)))
       / (0.8 + (p_avg_topic + p_avg_content + 35)
         * (3.0 * p_topic_tf / (35 + (p_avg_topic + p_avg_content) * p_topic_length / greatest(p_avg_topic, 1))
            + 1.0 * p_content_tf / (35 + (p_avg_topic + p_avg_content) * p_content_length / greatest(p_avg_content, 1))))
$$;
