// Triadic closure (the Game of Life birth rule): two memories of $ns with at least
// $min_common common neighbours, each tied to both by an ASSOC edge of w >= $min_w, and no
// edge between them, get one of w = mean over the common neighbours of w1 * w2.
// Strong edges are found first (most are weak), then the pairs they close.
// At most $limit births per call; one edge per pair, stored from the smaller id.
CALL {
  MATCH (b:Episode {ns: $ns})-[x:ASSOC]-(a) RETURN b, x, a
  UNION ALL
  MATCH (b:Fact {ns: $ns})-[x:ASSOC]-(a) RETURN b, x, a
}
WITH b, x, a
WHERE x.w >= $min_w AND a.ns = $ns
WITH b, collect(a) AS near, collect(x.w) AS ws
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
    e.created_at = $now, e.born = 'triadic'
RETURN count(e) AS births
