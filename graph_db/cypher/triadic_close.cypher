// Triadic closure (the Game of Life birth rule) around those of the memories $ids of $ns
// whose edges changed since $since (edges_at; a full pass passes 0): two memories
// with at least $min_common common neighbours among $ids, each tied to both by an ASSOC edge
// of w >= $min_w, and no edge between them, get one of w = mean over those common
// neighbours of w1 * w2. Counting only common neighbours among $ids keeps the work
// proportional to what changed (a pair closed by neighbours that changed in different passes
// waits for a full pass); a centre offers its $max_near strongest neighbours (a hub's pairs
// grow as the square of its degree). At most $limit births per call; one edge per pair,
// stored from the smaller id; both ends are due for a maintenance visit, and the source's
// expire_at stays a lower bound (see hebbian_update). touched: the ends of the edges born (for
// the read index, graph_db/backends/bolt.py).
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.ns = $ns
WITH coalesce(e, f) AS b
WHERE b IS NOT NULL AND coalesce(b.edges_at, 0.0) >= $since
MATCH (b)-[x:ASSOC]-(a)
WHERE x.w >= $min_w AND a.ns = $ns
WITH b, a, x.w AS w
ORDER BY w DESC
WITH b, collect(a)[..$max_near] AS near, collect(w)[..$max_near] AS ws
WHERE size(near) >= 2
UNWIND range(0, size(near) - 1) AS i
UNWIND range(0, size(near) - 1) AS j
WITH b, near[i] AS a, near[j] AS c, ws[i] * ws[j] AS w2
WHERE a.id < c.id
WITH a, c, count(b) AS common, avg(w2) AS w
WHERE common >= $min_common AND NOT (a)-[:ASSOC]-(c)
WITH a, c, w
LIMIT $limit
// made with its properties (ArcadeDB then writes it whole, not grown by SET: episodes_create)
CREATE (a)-[e:ASSOC {w: w, w_at: $now, fired_at: $now, fired_count: 0, permanent: false,
                     created_at: $now, born: 'triadic'}]->(c)
SET a.vitals_due = $now, c.vitals_due = $now, a.edges_at = $now, c.edges_at = $now
WITH a, c, e,
     CASE WHEN $decay <= 0 OR $w_min <= 0 THEN null
          WHEN e.w < $w_min THEN $now
          ELSE $now + $hold + log(e.w / $w_min) / $decay END AS dies
SET a.expire_at = CASE WHEN dies IS NOT NULL AND coalesce(a.expire_at, dies) >= dies THEN dies
                       ELSE a.expire_at END
RETURN count(e) AS births, collect(a.id) + collect(c.id) AS touched
