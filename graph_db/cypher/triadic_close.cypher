// Triadic closure (the Game of Life birth rule): two memories of $ns with at least
// $min_common common neighbours, each tied to both by an ASSOC edge of w >= $min_w, and no
// edge between them, get one of w = mean over the common neighbours of w1 * w2.
// At most $limit births per call; one edge per pair, stored from the smaller id.
CALL {
  MATCH (a:Episode {ns: $ns}) RETURN a
  UNION ALL
  MATCH (a:Fact {ns: $ns}) RETURN a
}
MATCH (a)-[x:ASSOC]-(b)-[y:ASSOC]-(c)
WHERE b.ns = $ns AND c.ns = $ns AND a.id < c.id AND x.w >= $min_w AND y.w >= $min_w
WITH a, c, count(DISTINCT b) AS common, avg(x.w * y.w) AS w
WHERE common >= $min_common AND NOT (a)-[:ASSOC]-(c)
WITH a, c, w
LIMIT $limit
CREATE (a)-[e:ASSOC]->(c)
SET e.w = w, e.w_at = $now, e.fired_at = $now, e.fired_count = 0, e.permanent = false,
    e.created_at = $now, e.born = 'triadic'
RETURN count(e) AS births
