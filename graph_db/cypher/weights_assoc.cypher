// The liquid (ASSOC) edges of $ns as what their current weight needs (decay is lazy: the
// caller applies graph_db.dynamics.effective_weight). Scalars only in each branch: the
// union's rows are held in the engine's heap.
CALL () {
  MATCH (:Episode {ns: $ns})-[r:ASSOC]->()
  RETURN r.w AS w, r.w_at AS w_at, r.fired_at AS fired_at, r.permanent AS permanent
  UNION ALL
  MATCH (:Fact {ns: $ns})-[r:ASSOC]->()
  RETURN r.w AS w, r.w_at AS w_at, r.fired_at AS fired_at, r.permanent AS permanent
}
RETURN w, w_at, fired_at, permanent
