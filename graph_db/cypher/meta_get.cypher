MATCH (m:MagsMeta {key: $key})
RETURN m.value AS value
