// The existing episodes of the sessions a write touches, in time order (for NEXT links).
UNWIND $sessions AS sid
MATCH (e:Episode {ns: $ns, session_id: sid})
RETURN sid AS session_id, e.id AS id, e.ts AS ts, e.seq AS seq
ORDER BY session_id, ts, seq
