MATCH (m:MagsMeta {key: $key})
DELETE m
RETURN count(*) AS deleted
