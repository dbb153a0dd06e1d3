// The existing episodes of the sessions a write touches, in time order (for NEXT links).
// Found through the session_id index, then checked against the namespace.
UNWIND $sessions AS sid
MATCH (e:Episode {session_id: sid})
WHERE e.ns = $ns
RETURN sid AS session_id, e.id AS id, e.ts AS ts, e.seq AS seq
ORDER BY session_id, ts, seq
