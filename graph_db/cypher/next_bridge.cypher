// Before an episode goes: link its predecessor to its successor so the session stays a chain.
MATCH (p:Episode {ns: $ns})-[:NEXT]->(e:Episode {ns: $ns, id: $id})-[:NEXT]->(n:Episode {ns: $ns})
MERGE (p)-[x:NEXT]->(n)
RETURN count(x) AS bridged
