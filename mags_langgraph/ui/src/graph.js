// The graph view: cytoscape (canvas renderer), the styles of episodes / facts / entities,
// and the classes the other panes set: anchor, hit, walk (recall), doomed (maintenance
// preview), fresh (just written by a chat turn).
import cytoscape from "cytoscape";
import fcose from "cytoscape-fcose";

cytoscape.use(fcose);

export const COLORS = {
  episode: "#3b82f6",
  fact: "#10b981",
  entity: "#8b5cf6",
  superseded: "#cbd5e1",
  permanent: "#f59e0b",
  anchor: "#e11d48",
  hit: "#f97316",
  walk: "#f97316",
  doomed: "#dc2626",
  fresh: "#22c55e",
  edge: "#94a3b8",
};

const EDGE_COLORS = {
  ASSOC: "#64748b",
  NEXT: "#93c5fd",
  DERIVED_FROM: "#6ee7b7",
  SUPERSEDES: "#94a3b8",
  MENTIONS: "#c4b5fd",
  ABOUT: "#c4b5fd",
};

// cose (force-directed, O(n²) a step) looks best but takes seconds past a few hundred nodes on
// a slow CPU; fcose's spectral "draft" lays out 2,000 nodes in a few seconds; concentric
// rings (O(n)) beyond that
const COSE_MAX = 250;
const FCOSE_MAX = 5000;
const BIG_EDGES = 1500;

function label(n) {
  if (n.kind === "fact" && n.subject && n.predicate) {
    return `${n.predicate.replace(/_/g, " ")}: ${n.object ?? ""}`;
  }
  const t = String(n.text ?? n.name ?? n.id);
  return t.length > 28 ? t.slice(0, 27) + "…" : t;
}

export function kindOf(n) {
  if (n.kind) return String(n.kind).toLowerCase();
  if (n.label) return String(n.label).toLowerCase();
  if (n.block === "episodic") return "episode";
  if (n.block === "semantic") return "fact";
  return "entity";
}

function nodeElement(n) {
  const kind = kindOf(n);
  const importance = typeof n.importance === "number" ? n.importance : kind === "entity" ? 0.3 : 0.5;
  const classes = [kind];
  if (n.permanent) classes.push("permanent");
  if (n.current === false) classes.push("superseded");
  return {
    group: "nodes",
    data: { ...n, id: String(n.id), kind, importance, label: label(n) },
    classes: classes.join(" "),
  };
}

function edgeElement(e, i) {
  const w = typeof e.w === "number" ? e.w : typeof e.weight === "number" ? e.weight : null;
  const type = e.type ?? "EDGE";
  const classes = [`t-${type}`];
  if (e.permanent) classes.push("permanent");
  return {
    group: "edges",
    data: {
      id: `e${i}:${e.source}>${e.target}:${type}`,
      source: String(e.source),
      target: String(e.target),
      type,
      w,
      width: w === null ? 1.2 : 0.8 + 5 * Math.max(0, Math.min(1, w)),
      color: EDGE_COLORS[type] ?? COLORS.edge,
      permanent: Boolean(e.permanent),
    },
    classes: classes.join(" "),
  };
}

const STYLE = [
  {
    selector: "node",
    style: {
      width: "mapData(importance, 0, 1, 16, 46)",
      height: "mapData(importance, 0, 1, 16, 46)",
      "background-color": COLORS.episode,
      "border-width": 1.5,
      "border-color": "#ffffff",
      label: "data(label)",
      "font-size": 9,
      "font-family": "Inter, system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
      color: "#334155",
      "text-valign": "bottom",
      "text-margin-y": 3,
      "text-wrap": "ellipsis",
      "text-max-width": 120,
      "text-background-color": "#ffffff",
      "text-background-opacity": 0.75,
      "text-background-padding": 1,
      "min-zoomed-font-size": 7,
      "underlay-shape": "ellipse",
    },
  },
  { selector: "node.episode", style: { shape: "round-rectangle", "background-color": COLORS.episode } },
  { selector: "node.fact", style: { shape: "ellipse", "background-color": COLORS.fact } },
  {
    selector: "node.entity",
    style: { shape: "diamond", "background-color": COLORS.entity, "font-weight": 600, color: "#4c1d95" },
  },
  {
    selector: "node.superseded",
    style: {
      "background-color": COLORS.superseded,
      "border-style": "dashed",
      "border-color": "#64748b",
      "border-width": 2,
      color: "#94a3b8",
      opacity: 0.85,
    },
  },
  { selector: "node.permanent", style: { "border-width": 4, "border-color": COLORS.permanent, "border-style": "solid" } },
  {
    selector: "edge",
    style: {
      width: "data(width)",
      "line-color": "data(color)",
      "curve-style": "bezier",
      opacity: 0.75,
      "target-arrow-shape": "none",
      "arrow-scale": 0.8,
    },
  },
  { selector: "edge.t-SUPERSEDES", style: { "line-style": "dashed", "target-arrow-shape": "triangle", "target-arrow-color": "#94a3b8" } },
  { selector: "edge.t-NEXT", style: { "target-arrow-shape": "triangle", "target-arrow-color": EDGE_COLORS.NEXT } },
  { selector: "edge.t-DERIVED_FROM", style: { "line-style": "dotted" } },
  { selector: "edge.permanent", style: { "line-color": COLORS.permanent, opacity: 0.95 } },
  { selector: "edge.big", style: { "curve-style": "haystack", "haystack-radius": 0, "target-arrow-shape": "none" } },
  // highlights (last: they win)
  { selector: ".faded", style: { opacity: 0.18 } },
  { selector: "edge.faded", style: { opacity: 0.08 } },
  {
    selector: "node.walk",
    style: { opacity: 1, "underlay-color": COLORS.walk, "underlay-opacity": 0.25, "underlay-padding": 6 },
  },
  {
    selector: "edge.walk",
    style: {
      opacity: 1,
      "line-color": COLORS.walk,
      "line-style": "solid",
      "target-arrow-shape": "none",
      width: 4,
      "z-index": 10,
    },
  },
  { selector: "edge.walk.virtual", style: { "line-style": "dashed" } },
  {
    selector: "node.hit",
    style: {
      opacity: 1,
      "border-width": 4,
      "border-color": COLORS.hit,
      "border-style": "solid",
      "underlay-color": COLORS.hit,
      "underlay-opacity": 0.35,
      "underlay-padding": 7,
      color: "#0f172a",
      "font-weight": 600,
      "z-index": 20,
    },
  },
  {
    selector: "node.anchor",
    style: {
      opacity: 1,
      "border-width": 5,
      "border-color": COLORS.anchor,
      "border-style": "double",
      "underlay-color": COLORS.anchor,
      "underlay-opacity": 0.35,
      "underlay-padding": 9,
      color: "#881337",
      "font-weight": 700,
      "z-index": 30,
    },
  },
  {
    selector: "node.doomed",
    style: {
      opacity: 1,
      "background-color": "#fecaca",
      "border-color": COLORS.doomed,
      "border-width": 3,
      "border-style": "dashed",
      color: COLORS.doomed,
    },
  },
  { selector: "edge.doomed", style: { opacity: 1, "line-color": COLORS.doomed, "line-style": "dashed", width: 3 } },
  {
    selector: "node.fresh",
    style: { opacity: 1, "underlay-color": COLORS.fresh, "underlay-opacity": 0.45, "underlay-padding": 8, "border-color": COLORS.fresh, "border-width": 3 },
  },
  {
    selector: "node:selected",
    style: { "overlay-color": "#0ea5e9", "overlay-opacity": 0.18, "overlay-padding": 8 },
  },
];

export function createGraph(container) {
  const cy = cytoscape({
    container,
    style: STYLE,
    elements: [],
    minZoom: 0.05,
    maxZoom: 4,
    boxSelectionEnabled: false,
    selectionType: "single",
    pixelRatio: 1,
    textureOnViewport: true,
    hideEdgesOnViewport: false,
  });

  return cy;
}

/** Replaces the elements with ``view`` ({nodes, edges}); keeps the positions of nodes that
 * stay, places new ones next to a neighbour, then lays out. Returns the layout's promise. */
export function setGraph(cy, view) {
  const old = new Map();
  cy.nodes().forEach((n) => old.set(n.id(), { ...n.position() }));
  const nodes = (view.nodes ?? []).map(nodeElement);
  const ids = new Set(nodes.map((n) => n.data.id));
  const edges = (view.edges ?? [])
    .filter((e) => ids.has(String(e.source)) && ids.has(String(e.target)))
    .map(edgeElement);
  cy.batch(() => {
    cy.elements().remove();
    cy.add(nodes);
    cy.add(edges);
  });
  // thousands of edges: straight "haystack" lines (no arrows), redrawn when the view rests
  const big = edges.length > BIG_EDGES;
  cy.edges().toggleClass("big", big);
  cy.renderer().hideEdgesOnViewport = big;
  const fresh = cy.nodes().filter((n) => !old.has(n.id()));
  const kept = cy.nodes().length - fresh.length;
  if (kept > 0 && fresh.length === 0) {
    cy.nodes().forEach((n) => n.position(old.get(n.id())));
    return Promise.resolve();
  }
  if (kept > 0) {
    cy.nodes().forEach((n) => {
      if (old.has(n.id())) n.position(old.get(n.id()));
    });
    fresh.forEach((n) => {
      const placed = n.neighborhood("node").filter((m) => old.has(m.id()));
      const at = placed.length ? old.get(placed[0].id()) : { x: 0, y: 0 };
      n.position({ x: at.x + (Math.random() - 0.5) * 80, y: at.y + (Math.random() - 0.5) * 80 });
    });
    // a big graph keeps its layout: the new nodes sit next to a neighbour
    if (cy.nodes().length > COSE_MAX) return Promise.resolve();
  }
  return runLayout(cy, kept === 0);
}

export function runLayout(cy, randomize = true) {
  const n = cy.nodes().length;
  if (n === 0) return Promise.resolve();
  let options;
  if (n <= COSE_MAX) {
    options = {
      name: "cose",
      animate: false,
      randomize,
      fit: true,
      padding: 40,
      nodeDimensionsIncludeLabels: false,
      idealEdgeLength: () => (n < 200 ? 95 : 70),
      nodeRepulsion: () => (n < 200 ? 16000 : 9000),
      edgeElasticity: () => 80,
      gravity: 0.35,
      numIter: n > 400 ? 400 : 1000,
      componentSpacing: 60,
    };
  } else if (n <= FCOSE_MAX) {
    options = { name: "fcose", quality: "draft", randomize: true, animate: false, fit: true, padding: 30 };
  } else {
    // many thousands of nodes: rings by kind and importance, O(n)
    const rank = { entity: 3, fact: 2, episode: 1 };
    options = {
      name: "concentric",
      animate: false,
      fit: true,
      padding: 30,
      minNodeSpacing: 4,
      avoidOverlap: false,
      concentric: (node) => rank[node.data("kind")] * 10 + Math.round(node.data("importance") * 9),
      levelWidth: () => 3,
    };
  }
  const layout = cy.layout(options);
  const done = layout.promiseOn("layoutstop");
  layout.run();
  return done;
}

export function clearHighlights(cy, which = ["anchor", "hit", "walk", "faded", "doomed"]) {
  cy.batch(() => {
    cy.elements().removeClass(which.join(" "));
    if (which.includes("walk")) cy.edges(".virtual").remove();
  });
}

function findEdge(cy, source, target, type) {
  const a = cy.getElementById(source);
  const b = cy.getElementById(target);
  if (a.empty() || b.empty()) return null;
  const between = a.edgesWith(b);
  if (between.empty()) return null;
  const typed = between.filter((e) => e.data("type") === type);
  return typed.nonempty() ? typed : between;
}

/** The entities both memories name: the walk's ENTITY hop goes through one of them. */
export function sharedEntities(cy, source, target) {
  const a = cy.getElementById(source);
  const b = cy.getElementById(target);
  if (a.empty() || b.empty()) return cy.collection();
  return a.neighborhood("node.entity").intersection(b.neighborhood("node.entity"));
}

/** Lights up a recall: every hit (class hit), the anchors (anchor), and the edges and
 * intermediate nodes of every hit's path (walk); fades the rest. Returns the counts. */
export function highlightRecall(cy, hits) {
  clearHighlights(cy, ["anchor", "hit", "walk", "faded"]);
  let virtual = 0;
  cy.batch(() => {
    for (const h of hits) {
      const node = cy.getElementById(String(h.id));
      if (node.nonempty()) node.addClass(h.anchor ? "anchor hit" : "hit");
      for (const [i, step] of (h.path ?? []).entries()) {
        const s = String(step.source);
        const t = String(step.target);
        let edge = step.edge === "ENTITY" ? null : findEdge(cy, s, t, step.edge);
        if (!edge && step.edge === "ENTITY") {
          // a hop over a shared entity: memory → entity → memory
          const via = sharedEntities(cy, s, t);
          if (via.nonempty()) {
            const entity = via[0];
            entity.addClass("walk");
            edge = entity.edgesWith(cy.getElementById(s)).union(entity.edgesWith(cy.getElementById(t)));
          }
        }
        if (!edge) {
          const a = cy.getElementById(s);
          const b = cy.getElementById(t);
          if (a.nonempty() && b.nonempty()) {
            edge = cy.add({
              group: "edges",
              data: { id: `walk-${virtual++}-${s}>${t}`, source: s, target: t, type: step.edge, w: step.weight, width: 3, color: COLORS.walk },
              classes: "virtual",
            });
          }
        }
        if (edge) edge.addClass("walk");
        // the path's nodes: its first node is the anchor the walk started from
        const first = cy.getElementById(s);
        if (i === 0 && first.nonempty()) first.addClass("anchor walk");
        else if (first.nonempty()) first.addClass("walk");
        const last = cy.getElementById(t);
        if (last.nonempty()) last.addClass("walk");
      }
    }
    const lit = cy.elements(".hit, .anchor, .walk");
    if (lit.nonempty()) cy.elements().not(lit).addClass("faded");
  });
  return {
    anchors: cy.nodes(".anchor").length,
    hits: cy.nodes(".hit").length,
    walk: cy.elements(".walk").length,
  };
}

export function markDoomed(cy, forgotten, pruned) {
  clearHighlights(cy, ["doomed"]);
  let n = 0;
  cy.batch(() => {
    for (const id of forgotten ?? []) {
      const node = cy.getElementById(String(id));
      if (node.nonempty()) {
        node.addClass("doomed");
        node.connectedEdges().addClass("doomed");
        n++;
      }
    }
    for (const pair of pruned ?? []) {
      const [s, t] = Array.isArray(pair) ? pair : [pair.source, pair.target];
      const edge = findEdge(cy, String(s), String(t), "ASSOC");
      if (edge) {
        edge.addClass("doomed");
        n++;
      }
    }
  });
  return n;
}

export function markFresh(cy, ids) {
  cy.batch(() => {
    cy.nodes(".fresh").removeClass("fresh");
    for (const id of ids) cy.getElementById(String(id)).addClass("fresh");
  });
}
