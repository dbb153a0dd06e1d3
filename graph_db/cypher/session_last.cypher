// The latest stored turn of each session (the context of the next turn written to it).
// Found through the session_id index, then checked against the namespace.
UNWIND $sessions AS sid
MATCH (e:Episode {session_id: sid})
WHERE e.ns = $ns
WITH sid, e
ORDER BY e.ts DESC, e.seq DESC
WITH sid, collect([e.speaker, e.text])[0] AS last
RETURN sid AS session_id, last[0] AS speaker, last[1] AS text
