// Two small SVG charts: graph size over time (lines) and the latest ASSOC weight
// distribution (bars). Plain SVG: no chart library.
const NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, text) {
  const n = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  if (text !== undefined) n.textContent = text;
  return n;
}

/** An axis for counts: [yMax, step] with a round step (1, 2, 5 × 10^k) and 2 to 5 ticks. */
function axis(v) {
  const max = Math.max(1, v);
  const raw = max / 4;
  const p = 10 ** Math.floor(Math.log10(raw));
  let step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw);
  step = Math.max(1, step);
  return [step * Math.ceil(max / step), step];
}

function frame(el, W, H, pad, [yMax, step]) {
  el.textContent = "";
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", role: "img" });
  const ticks = Math.round(yMax / step);
  for (let i = 0; i <= ticks; i++) {
    const y = pad.t + ((H - pad.t - pad.b) * i) / ticks;
    const value = step * (ticks - i);
    root.append(svg("line", { x1: pad.l, x2: W - pad.r, y1: y, y2: y, class: "grid" }));
    root.append(
      svg("text", { x: pad.l - 6, y: y + 3, class: "tick", "text-anchor": "end" }, Number.isInteger(value) ? value : value.toFixed(1)),
    );
  }
  el.append(root);
  return root;
}

function shortTime(iso, days) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return days ? d.toISOString().slice(5, 10) : d.toISOString().slice(11, 16);
}

/** series: [{name, color, values: number[]}] over the sample times ``xs`` (ISO strings). */
export function lineChart(el, xs, series) {
  const W = 340, H = 170;
  const pad = { l: 38, r: 12, t: 10, b: 24 };
  if (!xs.length) {
    el.innerHTML = '<p class="muted">No samples yet.</p>';
    return;
  }
  const [yMax, step] = axis(Math.max(...series.flatMap((s) => s.values)));
  const root = frame(el, W, H, pad, [yMax, step]);
  const iw = W - pad.l - pad.r, ih = H - pad.t - pad.b;
  const x = (i) => pad.l + (xs.length === 1 ? iw / 2 : (iw * i) / (xs.length - 1));
  const y = (v) => pad.t + ih * (1 - v / yMax);
  const every = Math.max(1, Math.ceil(xs.length / 5));
  const last = xs.length - 1;
  const days = new Date(xs[last]) - new Date(xs[0]) > 20 * 3600 * 1000;
  xs.forEach((t, i) => {
    if (i === last || (i % every === 0 && last - i >= every)) {
      const anchor = xs.length > 1 && i === xs.length - 1 ? "end" : i === 0 && xs.length > 1 ? "start" : "middle";
      root.append(svg("text", { x: x(i), y: H - pad.b + 14, class: "tick", "text-anchor": anchor }, shortTime(t, days)));
    }
  });
  for (const s of series) {
    const pts = s.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    root.append(svg("polyline", { points: pts, fill: "none", stroke: s.color, "stroke-width": 2, "stroke-linejoin": "round" }));
    s.values.forEach((v, i) => {
      const dot = svg("circle", { cx: x(i), cy: y(v), r: 2.6, fill: s.color });
      dot.append(svg("title", {}, `${s.name}: ${v} at ${xs[i]}`));
      root.append(dot);
    });
  }
  el.append(legend(series));
}

function legend(series) {
  const box = document.createElement("div");
  box.className = "chart-legend";
  for (const s of series) {
    const item = document.createElement("span");
    const sw = document.createElement("i");
    sw.style.background = s.color;
    item.append(sw, `${s.name} (${s.values[s.values.length - 1] ?? 0})`);
    box.append(item);
  }
  return box;
}

/** counts[i]: edges with w in [i/10, (i+1)/10). */
export function barChart(el, counts, color = "#6366f1") {
  const W = 340, H = 180;
  const pad = { l: 38, r: 10, t: 10, b: 30 };
  if (!counts || !counts.length) {
    el.innerHTML = '<p class="muted">No samples yet.</p>';
    return;
  }
  const [yMax, step] = axis(Math.max(...counts));
  const root = frame(el, W, H, pad, [yMax, step]);
  const iw = W - pad.l - pad.r, ih = H - pad.t - pad.b;
  const bw = iw / counts.length;
  counts.forEach((c, i) => {
    const h = (ih * c) / yMax;
    const bar = svg("rect", {
      x: pad.l + i * bw + 2, y: pad.t + ih - h, width: bw - 4, height: Math.max(h, 0), rx: 2, fill: color, class: "bar",
    });
    const lo = (i / counts.length).toFixed(1), hi = ((i + 1) / counts.length).toFixed(1);
    bar.append(svg("title", {}, `w in [${lo}, ${hi}${i === counts.length - 1 ? "]" : ")"}: ${c} edges`));
    root.append(bar);
    if (c > 0) root.append(svg("text", { x: pad.l + i * bw + bw / 2, y: pad.t + ih - h - 3, class: "tick", "text-anchor": "middle" }, c));
    root.append(svg("text", { x: pad.l + i * bw + bw / 2, y: H - pad.b + 13, class: "tick", "text-anchor": "middle" }, lo));
  });
  root.append(svg("text", { x: W - pad.r, y: H - 4, class: "tick", "text-anchor": "end" }, "weight w →"));
}
