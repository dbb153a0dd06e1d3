// The MAGS web UI: one page over the REST API of one namespace at a time.
import "./style.css";
import { api, ns as nsPath } from "./api.js";
import { barChart, lineChart } from "./charts.js";
import { $, $$, confirmDialog, el, fmtBytes, fmtNum, fmtTime, shorten, toast } from "./dom.js";
import {
  clearHighlights,
  createGraph,
  highlightRecall,
  markDoomed,
  markFresh,
  runLayout,
  setGraph,
  sharedEntities,
} from "./graph.js";

const GRAPH_LIMIT = 2000;

const state = {
  ns: null,
  view: { nodes: [], edges: [] },
  settings: [], // [{name, value, description, minimum, maximum, kind, group}]
  knobs: {}, // name -> value the user set
  hits: [],
  selected: null,
  session: `ui-${Math.random().toString(36).slice(2, 10)}`,
  thread: [], // the chat's turns so far: [{speaker: "user" | "assistant", text}]
  lastChat: null, // the last chat turn's answer
  loads: 0, // graph loads so far (the test waits on it)
  busy: 0,
};

const cy = createGraph($("#cy"));

// -- errors --------------------------------------------------------------------------
function fail(e) {
  console.error(e);
  toast(e && e.message ? e.message : String(e), "error");
}

async function busy(button, work) {
  state.busy++;
  document.body.dataset.busy = String(state.busy);
  if (button) button.disabled = true;
  try {
    return await work();
  } catch (e) {
    fail(e);
    return undefined;
  } finally {
    if (button) button.disabled = false;
    state.busy--;
    document.body.dataset.busy = String(state.busy);
  }
}

const p = (rest) => nsPath.path(state.ns, rest);

// -- tabs ----------------------------------------------------------------------------
function showTab(name) {
  const button = $(`.tabs button[data-tab="${name}"]`);
  const side = button.closest(".side");
  $$(".tabs button", side).forEach((b) => b.classList.toggle("active", b === button));
  $$(".pane", side).forEach((s) => s.classList.toggle("active", s.dataset.pane === name));
  if (name === "snapshots") busy(null, loadSnapshots);
  if (name === "charts") busy(null, loadCharts);
}
$$(".tabs button").forEach((b) => b.addEventListener("click", () => showTab(b.dataset.tab)));

// -- namespaces ----------------------------------------------------------------------
async function loadNamespaces() {
  const wanted = new URLSearchParams(location.search).get("ns");
  const { namespaces } = await api("GET", "namespaces?limit=1000");
  const names = [...namespaces];
  if (wanted && !names.includes(wanted)) names.unshift(wanted);
  const select = $("#ns-select");
  select.textContent = "";
  for (const n of names) select.append(el("option", { value: n }, n));
  if (!names.length) {
    select.append(el("option", { value: "", disabled: true }, "no namespaces yet"));
    $("#graph-empty").hidden = false;
    return;
  }
  await selectNamespace(wanted || names[0]);
}

async function selectNamespace(name) {
  state.ns = name;
  $("#ns-select").value = name;
  const params = new URLSearchParams(location.search);
  params.set("ns", name);
  history.replaceState(null, "", `${location.pathname}?${params}`);
  document.title = `MAGS · ${name}`;
  state.hits = [];
  state.selected = null;
  state.thread = [];
  $("#chat-log").innerHTML = '<p class="muted empty">Talk to the agent: each turn recalls from this namespace and writes what it learns.</p>';
  renderHits();
  $("#details").innerHTML = '<p class="muted empty">Click a node to see its details.</p>';
  $("#maintenance-report").textContent = "";
  cy.elements().remove();
  await Promise.all([reloadGraph(), loadSettings().catch(fail)]);
  const active = $(".side.right .tabs button.active")?.dataset.tab;
  if (active === "snapshots") await loadSnapshots().catch(fail);
  if (active === "charts") await loadCharts().catch(fail);
}

$("#ns-select").addEventListener("change", (e) => busy(null, () => selectNamespace(e.target.value)));

// -- graph ---------------------------------------------------------------------------
async function reloadGraph({ keepHighlights = false } = {}) {
  if (!state.ns) return;
  const view = await api("GET", p(`/graph?limit=${GRAPH_LIMIT}`));
  state.view = view;
  await setGraph(cy, view);
  const counts = { episode: 0, fact: 0, entity: 0 };
  cy.nodes().forEach((n) => {
    counts[n.data("kind")] = (counts[n.data("kind")] ?? 0) + 1;
  });
  $("#counts").innerHTML = "";
  $("#counts").append(
    el("span.count.episode", {}, el("b", {}, counts.episode), " episodes"),
    el("span.count.fact", {}, el("b", {}, counts.fact), " facts"),
    el("span.count.entity", {}, el("b", {}, counts.entity), " entities"),
    el("span.count", {}, el("b", {}, cy.edges().length), " edges"),
  );
  $("#graph-empty").hidden = cy.nodes().length > 0;
  const note = $("#graph-note");
  note.hidden = !view.truncated;
  note.textContent = view.truncated
    ? `Showing the ${GRAPH_LIMIT} memories that matter most (permanent, important, newest) of more.`
    : "";
  if (keepHighlights && state.hits.length) highlightRecall(cy, state.hits);
  if (state.selected && cy.getElementById(state.selected).nonempty()) {
    cy.getElementById(state.selected).select();
  }
  state.loads++;
  document.body.dataset.loads = String(state.loads);
  // the charts over time follow the changes while they are shown
  if ($(".side.right .tabs button.active")?.dataset.tab === "charts") loadCharts().catch(fail);
}

$("#reload-btn").addEventListener("click", (e) => busy(e.currentTarget, () => reloadGraph({ keepHighlights: true })));
$("#fit-btn").addEventListener("click", () => cy.fit(undefined, 40));
$("#clear-btn").addEventListener("click", () => {
  clearHighlights(cy, ["anchor", "hit", "walk", "faded", "doomed", "fresh"]);
  state.hits = [];
  renderHits();
});

cy.on("tap", "node", (evt) => {
  busy(null, () => showDetails(evt.target.id()));
});
cy.on("tap", (evt) => {
  if (evt.target === cy) cy.elements(":selected").unselect();
});

// -- details -------------------------------------------------------------------------
function fieldRow(name, value) {
  return el("div.kv", {}, el("span.k", {}, name), el("span.v", {}, value ?? "—"));
}

function badge(text, kind) {
  return el(`span.badge.${kind}`, {}, text);
}

async function showDetails(id) {
  state.selected = id;
  showTab("details");
  const node = cy.getElementById(id);
  if (node.nonempty()) {
    cy.elements(":selected").unselect();
    node.select();
  }
  const box = $("#details");
  if (node.nonempty() && node.data("kind") === "entity") {
    renderEntity(box, node);
    return;
  }
  box.innerHTML = '<p class="muted">Loading…</p>';
  const detail = await api("GET", p(`/memories/${encodeURIComponent(id)}`));
  renderMemory(box, detail);
}

function renderEntity(box, node) {
  box.textContent = "";
  const around = node.connectedEdges();
  box.append(
    el("div.detail-head", {}, badge("Entity", "entity"), el("h2.detail-title", {}, node.data("text") || node.id())),
    el("div.kvs", {}, fieldRow("id", el("code", {}, node.id())), fieldRow("named by", `${around.length} memories`)),
    el("h3", {}, "Neighbours"),
    el(
      "ul.edges",
      {},
      around.map((e) => {
        const other = e.source().id() === node.id() ? e.target() : e.source();
        return el(
          "li.edge",
          {},
          el("span.etype", {}, e.data("type")),
          el("a.link", { href: "#", onclick: (ev) => (ev.preventDefault(), busy(null, () => showDetails(other.id()))) }, shorten(other.data("text"), 70)),
        );
      }),
    ),
  );
}

function renderMemory(box, { memory: m, edges = [], history = [] }) {
  box.textContent = "";
  const isFact = m.block === "semantic";
  const kind = isFact ? "Fact" : "Episode";
  const head = el(
    "div.detail-head",
    {},
    badge(kind, isFact ? "fact" : "episode"),
    m.permanent ? badge("permanent", "permanent") : null,
    isFact && !m.current ? badge("superseded", "superseded") : null,
  );
  const text = el("p.detail-text#detail-text", {}, m.text);
  const pinned = Boolean(m.permanent);
  const actions = el(
    "div.row.actions",
    {},
    el("button#pin-btn", { type: "button", class: pinned ? "ghost" : "primary", onclick: (e) => busy(e.currentTarget, () => pin(m.id, !pinned)) }, pinned ? "Unpin" : "Pin"),
    el("button#edit-btn.ghost", { type: "button", onclick: () => editText(box, m) }, "Edit text"),
    el("button#forget-btn.danger", { type: "button", onclick: (e) => busy(e.currentTarget, () => forget(m)) }, "Forget"),
  );
  const fields = [
    fieldRow("id", el("code", {}, m.id)),
    isFact ? fieldRow("subject", m.subject) : fieldRow("speaker", m.speaker),
    isFact ? fieldRow("predicate", m.predicate) : fieldRow("session", m.session_id),
    isFact ? fieldRow("object", m.object) : null,
    fieldRow(isFact ? "held from" : "said at", fmtTime(isFact ? m.valid_from ?? m.created_at : m.ts ?? m.created_at)),
    isFact && m.valid_to ? fieldRow("held until", fmtTime(m.valid_to)) : null,
    isFact ? fieldRow("confidence", fmtNum(m.confidence)) : null,
    fieldRow("importance", fmtNum(m.importance)),
    fieldRow("salience", fmtNum(m.salience)),
    fieldRow("accessed", m.access_count ?? "—"),
    fieldRow("permanent", m.permanent ? "yes" : "no"),
  ];
  box.append(head, text, actions, el("div.kvs", {}, fields));

  if (isFact) {
    box.append(
      el("h3", {}, "History ", el("span.muted", {}, "(SUPERSEDES chain, oldest first)")),
      el(
        "ol.history#history",
        {},
        history.map((h) =>
          el(
            `li.${h.current ? "current" : "old"}`,
            { dataset: { id: h.id } },
            el("span.hval", {}, h.value),
            el("span.hwhen", {}, `${fmtTime(h.since)} → ${h.until ? fmtTime(h.until) : "now"}`),
            h.current ? badge("current", "fact") : badge("superseded", "superseded"),
          ),
        ),
      ),
    );
  }
  box.append(
    el("h3", {}, `Edges (${edges.length})`),
    edges.length
      ? el(
          "ul.edges",
          {},
          edges.map((e) =>
            el(
              "li.edge",
              {},
              el("span.etype", {}, `${e.direction === "out" ? "→" : "←"} ${e.type}`),
              e.other
                ? el("a.link", { href: "#", title: e.other, onclick: (ev) => (ev.preventDefault(), busy(null, () => showDetails(e.other))) }, shorten(e.other_text ?? e.other, 60))
                : el("span", {}, shorten(e.other_text, 60)),
              e.props && typeof e.props.w === "number" ? el("span.w", {}, `w ${fmtNum(e.props.w, 2)}`) : null,
              e.props && e.props.permanent ? badge("permanent", "permanent") : null,
            ),
          ),
        )
      : el("p.muted", {}, "No edges."),
  );
}

function editText(box, m) {
  const current = $("#detail-text", box);
  const area = el("textarea#edit-text", { rows: 4 }, m.text);
  const save = el("button#save-edit.primary", { type: "button" }, "Save");
  const cancel = el("button.ghost", { type: "button" }, "Cancel");
  const form = el("div.stack.edit", {}, area, el("div.row", {}, save, cancel));
  current.replaceWith(form);
  area.focus();
  cancel.addEventListener("click", () => form.replaceWith(current));
  save.addEventListener("click", () =>
    busy(save, async () => {
      const text = area.value.trim();
      if (!text) throw new Error("the text is empty");
      await api("PATCH", p(`/memories/${encodeURIComponent(m.id)}`), { text });
      toast("Saved.", "ok");
      await reloadGraph({ keepHighlights: true });
      await showDetails(m.id);
    }),
  );
}

async function pin(id, on) {
  await api(on ? "PUT" : "DELETE", p(`/memories/${encodeURIComponent(id)}/pin`));
  toast(on ? "Pinned: maintenance will keep it." : "Unpinned.", "ok");
  await reloadGraph({ keepHighlights: true });
  await showDetails(id);
}

async function forget(m) {
  const ok = await confirmDialog("Forget this memory?", `“${shorten(m.text, 120)}” and its edges (and facts only it stated) will be deleted.`, "Forget");
  if (!ok) return;
  const { ids = [] } = (await api("DELETE", p(`/memories/${encodeURIComponent(m.id)}`))) ?? {};
  toast(`Forgot ${ids.length || 1} ${ids.length === 1 ? "memory" : "memories"}.`, "ok");
  state.selected = null;
  $("#details").innerHTML = '<p class="muted empty">Forgotten. Click a node to see its details.</p>';
  await reloadGraph({ keepHighlights: true });
}

// -- knobs ---------------------------------------------------------------------------
async function loadSettings() {
  const { settings } = await api("GET", p("/settings"));
  state.settings = settings;
  for (const s of settings) if (!(s.name in state.knobs)) state.knobs[s.name] = s.value;
  renderKnobs("recall", $("#recall-knobs"));
  renderKnobs("maintenance", $("#maintenance-knobs"));
}

function knobValues(group) {
  const out = {};
  for (const s of state.settings) if (s.group === group) out[s.name] = state.knobs[s.name];
  return out;
}

function renderKnobs(group, box) {
  box.textContent = "";
  const mine = state.settings.filter((s) => s.group === group);
  if (!mine.length) {
    box.append(el("p.muted", {}, "No knobs."));
    return;
  }
  for (const s of mine) {
    if (s.kind === "bool") {
      box.append(switchKnob(s));
      continue;
    }
    const isInt = s.kind === "int";
    const base = typeof s.value === "number" ? s.value : 0;
    const min = s.minimum ?? 0;
    const max = s.maximum ?? (isInt ? Math.max(10, base * 4, min + 10) : Math.max(1, base * 4, min + 1));
    const step = isInt ? 1 : Math.max((max - min) / 200, 0.0001);
    const value = state.knobs[s.name];
    const nullable = Boolean(s.nullable) || s.value === null || s.value === undefined;
    const range = el("input", { type: "range", min, max, step, value: value ?? min, "aria-label": s.name, disabled: value === null || value === undefined });
    const number = el("input.knob-num", {
      type: "number", min, max: s.maximum ?? undefined, step: isInt ? 1 : "any", value: value ?? "",
      placeholder: nullable ? "none" : undefined, name: s.name, "data-knob": s.name,
    });
    const row = knobRow(s, value !== s.value, el("span.knob-name", {}, s.name), nullable ? "none" : fmtNum(s.value), el("div.knob-ctl", {}, range, number));
    const set = (raw) => {
      if (nullable && String(raw).trim() === "") {
        state.knobs[s.name] = null;
        range.disabled = true;
        row.classList.toggle("changed", s.value !== null);
        return;
      }
      let v = isInt ? Math.round(Number(raw)) : Number(raw);
      if (!Number.isFinite(v)) return;
      v = Math.max(min, s.maximum === null || s.maximum === undefined ? v : Math.min(s.maximum, v));
      state.knobs[s.name] = v;
      range.disabled = false;
      range.value = v;
      number.value = v;
      row.classList.toggle("changed", v !== s.value);
    };
    range.addEventListener("input", () => set(range.value));
    number.addEventListener("change", () => set(number.value));
    box.append(row);
  }
  box.append(
    el("button.ghost.small", {
      type: "button",
      onclick: () => {
        for (const s of mine) state.knobs[s.name] = s.value;
        renderKnobs(group, box);
      },
    }, "Reset to defaults"),
  );
}

// One knob's row: its name, the store's value, the control (if apart from the name) and
// what it does; marked changed while it differs from the store's value.
function knobRow(s, changed, name, stored, ctl = null) {
  return el(
    `div.knob${changed ? ".changed" : ""}`,
    { title: s.description ?? "" },
    el("div.knob-head", {}, name, el("span.knob-default.muted", {}, `default ${stored}`)),
    ctl,
    s.description ? el("div.knob-desc.muted", {}, s.description) : null,
  );
}

// A yes/no setting: a checkbox in its name.
function switchKnob(s) {
  const input = el("input", { type: "checkbox", name: s.name, "data-knob": s.name, "aria-label": s.name });
  input.checked = Boolean(state.knobs[s.name]);
  const row = knobRow(s, input.checked !== s.value, el("label.knob-name", {}, input, ` ${s.name}`), s.value ? "on" : "off");
  input.addEventListener("change", () => {
    state.knobs[s.name] = input.checked;
    row.classList.toggle("changed", input.checked !== s.value);
  });
  return row;
}

// -- recall --------------------------------------------------------------------------
function pathText(h) {
  const name = (id) => {
    const n = cy.getElementById(String(id));
    return n.nonempty() ? n.data("label") : String(id).slice(0, 8);
  };
  if (!h.path || !h.path.length) return h.anchor ? "anchor (direct match)" : "direct match";
  const parts = [name(h.path[0].source)];
  for (const s of h.path) {
    const via = s.edge === "ENTITY" ? sharedEntities(cy, String(s.source), String(s.target)) : null;
    const edge = via && via.nonempty() ? `via ${via[0].data("label")}` : s.edge;
    parts.push(`—${edge} ${fmtNum(s.weight, 2)}→ ${name(s.target)}`);
  }
  return parts.join(" ");
}

function renderHits(summary) {
  const list = $("#hits");
  list.textContent = "";
  $("#recall-summary").textContent = summary ?? "";
  for (const h of state.hits) {
    const item = el(
      `li.hit-item${h.anchor ? ".is-anchor" : ""}`,
      { dataset: { id: h.id }, tabindex: 0 },
      el(
        "div.hit-head",
        {},
        h.anchor ? badge("anchor", "anchor") : badge("walk", "walk"),
        badge(h.block === "semantic" ? "fact" : "episode", h.block === "semantic" ? "fact" : "episode"),
        h.current === false ? badge("superseded", "superseded") : null,
        el("span.score", { title: "score · relevance · activation" }, `${fmtNum(h.score, 3)}`),
      ),
      el("div.hit-text", {}, h.text),
      el("div.hit-path", {}, pathText(h)),
      el(
        "div.hit-meta.muted",
        {},
        `relevance ${fmtNum(h.relevance, 2)} · activation ${fmtNum(h.activation, 2)}`,
        h.similarity !== null && h.similarity !== undefined ? ` · sim ${fmtNum(h.similarity, 2)}` : "",
        h.found_by && h.found_by.length ? ` · ${h.found_by.join("+")}` : "",
        h.speaker ? ` · ${h.speaker}` : "",
        h.time ? ` · ${fmtTime(h.time)}` : "",
      ),
    );
    item.addEventListener("click", () => busy(null, () => showDetails(String(h.id))));
    item.addEventListener("mouseenter", () => cy.getElementById(String(h.id)).addClass("hover"));
    list.append(item);
  }
}

async function recall(query, k) {
  const body = { query, k, settings: knobValues("recall") };
  const { hits } = await api("POST", p("/recall"), body);
  state.hits = hits;
  // recall strengthens what it finds: reload for the new weights, then light up the walk
  await reloadGraph();
  const lit = highlightRecall(cy, hits);
  renderHits(`${hits.length} memories · ${lit.anchors} anchors · ${lit.walk} walk elements`);
  return lit;
}

$("#recall-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const query = $("#recall-query").value.trim();
  const k = Number($("#recall-k").value) || 10;
  if (query) busy($("#recall-btn"), () => recall(query, k));
});

// -- maintenance ---------------------------------------------------------------------
function capacity() {
  const raw = $("#capacity").value.trim();
  return raw === "" ? null : Number(raw);
}

function reportTable(report, extra = {}) {
  const keys = ["visited", "pruned_edges", "forgotten", "consolidated", "capacity_dropped", "births"];
  const rows = [];
  for (const key of keys) if (key in report) rows.push([key, report[key]]);
  for (const [key, v] of Object.entries(report)) {
    if (!keys.includes(key) && (typeof v === "number" || typeof v === "boolean")) rows.push([key, v]);
  }
  for (const [key, v] of Object.entries(extra)) rows.push([key, v]);
  return el(
    "table.report-table",
    {},
    el("tbody", {}, rows.map(([k, v]) => el("tr", { dataset: { key: k } }, el("th", {}, k.replace(/_/g, " ")), el("td", {}, typeof v === "number" ? fmtNum(v) : String(v))))),
  );
}

$("#preview-btn").addEventListener("click", (e) =>
  busy(e.currentTarget, async () => {
    const body = { full: true, capacity: capacity(), settings: knobValues("maintenance") };
    const out = await api("POST", p("/maintenance/preview"), body);
    clearHighlights(cy, ["anchor", "hit", "walk", "faded"]);
    const marked = markDoomed(cy, out.forgotten, out.pruned);
    const box = $("#maintenance-report");
    box.textContent = "";
    box.append(
      el("h3", {}, "Preview ", el("span.muted", {}, "(nothing changed)")),
      reportTable(out.report ?? {}, { "marked in graph": marked }),
      el("p.muted", {}, "Red dashed: the memories this pass would forget and the edges it would prune."),
    );
  }),
);

$("#maintain-btn").addEventListener("click", (e) =>
  busy(e.currentTarget, async () => {
    const ok = await confirmDialog("Run maintenance now?", "A full pass prunes weak edges, consolidates and forgets faded memories. Take a snapshot first to be able to roll back.", "Run");
    if (!ok) return;
    // the knobs and capacity of the preview: what ran is what was previewed
    const body = { full: true, settings: knobValues("maintenance") };
    const cap = capacity();
    if (cap !== null) body.capacity = cap;
    const report = await api("POST", p("/maintenance"), body);
    const box = $("#maintenance-report");
    box.textContent = "";
    box.append(el("h3", {}, "Maintenance ran"), reportTable(report ?? {}));
    clearHighlights(cy, ["doomed"]);
    await reloadGraph();
  }),
);

// -- snapshots -----------------------------------------------------------------------
async function loadSnapshots() {
  if (!state.ns) return;
  const { snapshots } = await api("GET", p("/snapshots"));
  const list = $("#snapshots");
  list.textContent = "";
  if (!snapshots.length) list.append(el("li.muted.empty", {}, "No snapshots yet."));
  for (const s of [...snapshots].reverse()) {
    list.append(
      el(
        "li.snapshot",
        { dataset: { name: s.name } },
        el("div.snap-info", {}, el("div.snap-name", {}, s.name), el("div.muted", {}, `${fmtTime(s.taken)} · ${fmtBytes(s.bytes)}`)),
        el("button.danger-ghost.small.restore-btn", { type: "button", onclick: (e) => busy(e.currentTarget, () => rollBack(s)) }, "Roll back"),
      ),
    );
  }
}

async function rollBack(s) {
  const ok = await confirmDialog("Roll back?", `The namespace “${state.ns}” will be replaced by snapshot ${s.name} (${fmtTime(s.taken)}).`, "Roll back");
  if (!ok) return;
  const { counts } = await api("POST", p(`/snapshots/${encodeURIComponent(s.name)}/restore`));
  const total = Object.values(counts ?? {}).reduce((a, b) => a + b, 0);
  toast(`Rolled back to ${s.name} (${total} items).`, "ok");
  state.selected = null;
  await reloadGraph();
}

$("#snapshot-btn").addEventListener("click", (e) =>
  busy(e.currentTarget, async () => {
    const s = await api("POST", p("/snapshots"));
    toast(`Snapshot ${s.name} taken.`, "ok");
    await loadSnapshots();
  }),
);

// -- charts --------------------------------------------------------------------------
async function loadCharts() {
  if (!state.ns) return;
  const { samples } = await api("GET", p("/stats/history"));
  const xs = samples.map((s) => s.at);
  const val = (s, k) => (s.nodes && s.nodes[k]) || 0;
  lineChart($("#chart-size"), xs, [
    { name: "Episodes", color: "#3b82f6", values: samples.map((s) => val(s, "Episode")) },
    { name: "Facts", color: "#10b981", values: samples.map((s) => val(s, "Fact")) },
    { name: "Entities", color: "#8b5cf6", values: samples.map((s) => val(s, "Entity")) },
    { name: "Edges", color: "#94a3b8", values: samples.map((s) => s.edges ?? 0) },
  ]);
  const last = samples[samples.length - 1];
  barChart($("#chart-weights"), last ? last.weights : []);
}

// -- chat ----------------------------------------------------------------------------
function chatBubble(who, content, extra) {
  const log = $("#chat-log");
  $(".empty", log)?.remove();
  const bubble = el(`div.msg.${who}`, {}, el("div.msg-who", {}, who === "user" ? "You" : "Agent"), el("div.msg-text", {}, content), extra);
  log.append(bubble);
  log.scrollTop = log.scrollHeight;
  return bubble;
}

async function chat(message) {
  chatBubble("user", message);
  const pending = chatBubble("agent", "…");
  pending.classList.add("pending");
  let out;
  try {
    out = await api("POST", p("/chat"), { message, session: state.session, thread: state.thread.slice(-50) });
  } catch (e) {
    pending.remove();
    throw e;
  }
  pending.remove();
  state.lastChat = out;
  state.thread.push({ speaker: "user", text: message });
  if (out.answer) state.thread.push({ speaker: "assistant", text: out.answer });
  const meta = el(
    "div.msg-meta.muted",
    {},
    `recalled ${out.recalled?.length ?? 0} · wrote ${out.written?.length ?? 0}`,
    (out.written ?? []).map((w) => el("div.written", {}, `${w.action}: ${w.subject} ${w.predicate} ${w.object}`)),
    out.facts_error ? el("div.written.bad", {}, `facts: ${out.facts_error}`) : null,
  );
  if (out.error) {
    chatBubble("agent.error", out.error, meta);
    toast(`chat: the model did not answer (${out.error}); the message was stored`, "error");
  } else {
    chatBubble("agent", out.answer ?? "(no answer)", meta);
  }
  state.hits = out.recalled ?? [];
  await reloadGraph();
  const lit = highlightRecall(cy, state.hits);
  const fresh = [...(out.written ?? []).map((w) => w.id), out.episode_id].filter(Boolean);
  markFresh(cy, fresh);
  renderHits(`chat turn: ${state.hits.length} recalled · ${lit.anchors} anchors · ${fresh.length} written`);
}

$("#chat-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const input = $("#chat-message");
  const message = input.value.trim();
  if (!message) return;
  input.value = "";
  busy($("#chat-send"), () => chat(message));
});

// -- start ---------------------------------------------------------------------------
window.magsUI = {
  cy,
  state,
  reload: reloadGraph,
  recall,
  showDetails,
  relayout: async () => {
    await runLayout(cy, true);
  },
  /** Draws a view ({nodes, edges} as GET .../graph returns it) without the API. */
  render: async (view) => {
    await setGraph(cy, view);
  },
};

busy(null, loadNamespaces);
