-- The admin search (`… ilike '%q%'` over profiles_search_trgm_idx's expression, db/paging.ts profileSearchText)
-- is planned from that expression's histogram. With the default 101 entries a term carried by 4 % of the customers
-- ("Silva") can be absent from the sample: the planner then expects 10 profiles, collects every payment of ~4 000
-- customers and sorts them (174 ms to 2.7 s) instead of walking the newest payments until 20 match (≈ 20 ms).
-- 1 001 entries make such a term visible to the estimate (a term under 0.1 % still takes the trigram index).
ALTER INDEX profiles_search_trgm_idx ALTER COLUMN 1 SET STATISTICS 1000;
--> statement-breakpoint
ANALYZE profiles;
