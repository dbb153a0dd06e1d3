// Triadic closure (the Game of Life birth rule) around the memories $ids of $ns (the
// memories whose edges changed since the last pass, or a page of all of them): two memories
// with at least $min_common common neighbours among $ids, each tied to both by an ASSOC edge
// of w >= $min_w, and no edge between them, get one of w = mean over those common
// neighbours of w1 * w2. Counting only common neighbours among $ids keeps the work
// proportional to what changed (a pair closed by neighbours that changed in different passes
// waits for a full pass); a centre offers its $max_near strongest neighbours (a hub's pairs
// grow as the square of its degree). At most $limit births per call; one edge per pair,
// stored from the smaller id; both ends are due for a maintenance visit.
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.ns = $ns
WITH coalesce(e, f) AS b
WHERE b IS NOT NULL
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
CREATE (a)-[e:ASSOC]->(c)
SET e.w = w, e.w_at = $now, e.fired_at = $now, e.fired_count = 0, e.permanent = false,
    e.created_at = $now, e.born = 'triadic',
    a.vitals_due = $now, c.vitals_due = $now
RETURN count(e) AS births
