MERGE (m:MagsMeta {key: $key})
SET m.value = $value
RETURN m.value AS value
