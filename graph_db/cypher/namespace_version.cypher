// What the read index checks before it answers (graph_db/read_index.py): the namespace's
// epoch and version as every committed write left them.
MATCH (n:Namespace {ns: $ns})
RETURN n.epoch AS epoch, n.version AS version
