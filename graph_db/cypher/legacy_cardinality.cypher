// Schema < 3 kept a namespace's cardinality as one JSON blob: found once to be migrated.
MATCH (m:MagsMeta)
WHERE m.key STARTS WITH 'cardinality:'
RETURN m.key AS key, m.value AS value
