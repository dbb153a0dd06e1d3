// Small DOM helpers: element builder, toasts, the modal (confirm / prompt).

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

/** el("div.card#x", {title: "t", onclick}, child, "text", ...) */
export function el(spec, attrs = {}, ...children) {
  const tag = spec.match(/^[a-z0-9]*/i)[0];
  const id = (spec.match(/#([\w-]+)/) || [])[1];
  const classes = Array.from(spec.matchAll(/\.([\w-]+)/g), (m) => m[1]);
  const node = document.createElement(tag || "div");
  if (id) node.id = id;
  if (classes.length) node.className = classes.join(" ");
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else if (k === "text") node.textContent = v;
    else if (v === true) node.setAttribute(k, "");
    else node.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

export function toast(message, kind = "error") {
  const box = $("#toasts");
  const close = el("button.toast-close", { type: "button", "aria-label": "Dismiss" }, "×");
  const t = el(`div.toast.${kind}`, {}, el("span.toast-text", {}, message), close);
  close.addEventListener("click", () => t.remove());
  box.append(t);
  // errors stay until dismissed (never swallowed); notices fade
  if (kind !== "error") setTimeout(() => t.remove(), 4000);
  return t;
}

let modalBusy = Promise.resolve();

/** Opens the modal; resolves to the input's value (prompt), true (confirm) or null. */
function modal({ title, text, input = false, ok = "OK", danger = false }) {
  const run = () =>
    new Promise((resolve) => {
      const root = $("#modal");
      const field = $("#modal-input");
      const okBtn = $("#modal-ok");
      $("#modal-title").textContent = title;
      $("#modal-text").textContent = text;
      okBtn.textContent = ok;
      okBtn.className = danger ? "danger" : "primary";
      field.hidden = !input;
      field.value = "";
      root.hidden = false;
      (input ? field : okBtn).focus();
      const done = (value) => {
        root.hidden = true;
        $("#modal-form").removeEventListener("submit", onOk);
        $("#modal-cancel").removeEventListener("click", onCancel);
        document.removeEventListener("keydown", onKey);
        resolve(value);
      };
      const onOk = (e) => {
        e.preventDefault();
        done(input ? field.value : true);
      };
      const onCancel = () => done(null);
      const onKey = (e) => e.key === "Escape" && done(null);
      $("#modal-form").addEventListener("submit", onOk);
      $("#modal-cancel").addEventListener("click", onCancel);
      document.addEventListener("keydown", onKey);
    });
  const next = modalBusy.then(run);
  modalBusy = next.catch(() => null);
  return next;
}

export const confirmDialog = (title, text, ok = "Confirm") =>
  modal({ title, text, ok, danger: true }).then((v) => v === true);

export const promptDialog = (title, text, ok = "OK") => modal({ title, text, input: true, ok });

export function fmtTime(value) {
  if (value === null || value === undefined || value === "") return "—";
  const d = typeof value === "number" ? new Date(value * 1000) : new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return d.toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z").replace(/:00Z$/, "Z");
}

export function fmtNum(v, digits = 3) {
  if (v === null || v === undefined) return "—";
  if (typeof v !== "number") return String(v);
  return Number.isInteger(v) ? String(v) : v.toFixed(digits).replace(/0+$/, "").replace(/\.$/, "");
}

export function shorten(text, n = 60) {
  const s = String(text ?? "");
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}

export function fmtBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
