// claudewrap serve: the forms waiting in your sessions, live, answered
// here and checked in what Claude recorded. No framework, no build step.
"use strict";

const token = new URLSearchParams(location.search).get("t") || "";
const shown = new Map(); // form key -> its element, kept while it waits
const done = new Set();  // forms answered here: their outcome stays shown

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const k of kids) if (k) e.append(k);
  return e;
}

async function api(path, body) {
  const r = await fetch(path, {
    method: body ? "POST" : "GET",
    headers: { "X-Claudewrap-Token": token, "Content-Type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await r.json().catch(() => ({ error: "no reply" }));
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}

function key(f) { return f.session + "/" + f.tool_use_id; }

function questionBlock(f, q, i) {
  const fs = el("fieldset", { "data-q": String(i) });
  fs.append(el("legend", {}, el("span", { class: "chip", text: q.header }), q.question));
  const type = q.multiSelect ? "checkbox" : "radio";
  fs.ticked = []; // multi-select: the boxes in the order they were ticked, as Claude records them
  q.options.forEach((o, j) => {
    const id = `${f.tool_use_id}-${i}-${j}`;
    const input = el("input", { type, name: `${f.tool_use_id}-${i}`, value: o.label, id });
    input.addEventListener("change", () => {
      fs.ticked = fs.ticked.filter((l) => l !== o.label);
      if (input.checked && q.multiSelect) fs.ticked.push(o.label);
    });
    const lab = el("label", { class: "opt", for: id }, input, " " + o.label);
    fs.append(lab);
    if (o.description) fs.append(el("div", { class: "desc", text: o.description }));
    if (o.preview) fs.append(el("pre", { class: "preview", text: o.preview }));
  });
  if (!q.multiSelect) {
    const hasPreview = q.options.some((o) => o.preview);
    if (hasPreview) {
      fs.append(el("input", { type: "text", class: "notes", placeholder: "Notes on your choice (optional)" }));
    } else {
      fs.append(el("input", { type: "text", class: "typed", placeholder: "Or type your own answer" }));
    }
  }
  return fs;
}

// decidedBlock is a question a rule has answered: its answer stands.
function decidedBlock(q, d) {
  const fs = el("fieldset", { class: "decided" });
  fs.append(el("legend", {}, el("span", { class: "chip", text: q.header }), q.question));
  fs.append(el("div", { class: "desc", text: `answered by rule "${d.rule}"${d.file ? " (" + d.file + ")" : ""}: ${d.answer}` }));
  return fs;
}

function decidedOf(f, i) { return (f.decided || []).find((d) => d.index === i + 1); }

// collect is the answers to the questions no rule answered, in order.
function collect(f, node) {
  return f.questions.flatMap((q, i) => {
    if (decidedOf(f, i)) return [];
    const fs = node.querySelector(`fieldset[data-q="${i}"]`);
    const checked = [...fs.querySelectorAll("input:checked")].map((x) => x.value);
    const picked = q.multiSelect ? fs.ticked.filter((l) => checked.includes(l)) : checked;
    const typed = fs.querySelector("input.typed");
    const notes = fs.querySelector("input.notes");
    if (typed && typed.value.trim() && picked.length === 0) return [{ type: typed.value }];
    const a = { select: picked };
    if (notes && notes.value.trim()) a.notes = notes.value;
    return [a];
  });
}

function formNode(f) {
  const node = el("section", { class: "form", "data-form": key(f) });
  node.append(el("div", { class: "meta",
    text: `session ${f.session} · ${f.cwd} · waiting since ${new Date(f.since).toLocaleTimeString()}` }));
  f.questions.forEach((q, i) => {
    const d = decidedOf(f, i);
    node.append(d ? decidedBlock(q, d) : questionBlock(f, q, i));
  });
  const chat = el("input", { type: "text", class: "chat", placeholder: "Chat about this instead (optional)" });
  const submit = el("button", { class: "primary", type: "button", text: "Submit" });
  const chatBtn = el("button", { type: "button", text: "Chat about this" });
  const cancel = el("button", { type: "button", text: "Cancel the form" });
  const out = el("div", { class: "outcome", role: "status" });
  node.append(chat, el("div", { class: "actions" }, submit, chatBtn, cancel), out);
  const send = async (body) => {
    for (const b of [submit, chatBtn, cancel]) b.disabled = true;
    out.className = "outcome";
    out.textContent = "Answering on Claude's screen…";
    done.add(key(f));
    try {
      const o = await api("api/answer", Object.assign({ session: f.session, tool_use_id: f.tool_use_id }, body));
      const rec = o.recorded ? Object.entries(o.recorded).map(([q, a]) => `${q} → ${a}`).join("; ") : "";
      const ok = o.result === "verified" || o.result === "cancelled" || o.result === "chatted";
      out.className = "outcome " + (ok ? "ok" : "bad");
      out.textContent = ok ? `${o.result}${rec ? ": Claude recorded " + rec : ""}`
        : `${o.result}: ${o.message || ""}${rec ? " (Claude recorded " + rec + ")" : ""}`;
    } catch (e) {
      out.className = "outcome bad";
      out.textContent = "Not answered: " + e.message;
      done.delete(key(f));
      for (const b of [submit, chatBtn, cancel]) b.disabled = false;
    }
  };
  submit.addEventListener("click", () => send({ answers: collect(f, node) }));
  chatBtn.addEventListener("click", () => chat.value.trim() ? send({ chat: chat.value }) : chat.focus());
  cancel.addEventListener("click", () => send({ cancel: true }));
  return node;
}

async function refresh() {
  const main = document.getElementById("forms");
  const status = document.getElementById("status");
  try {
    const forms = await api("api/pending");
    const waiting = new Set(forms.map(key));
    for (const f of forms) {
      if (!shown.has(key(f))) {
        const n = formNode(f);
        shown.set(key(f), n);
        main.append(n);
      }
    }
    for (const [k, n] of shown) {
      if (!waiting.has(k) && !done.has(k)) { n.remove(); shown.delete(k); }
    }
    status.textContent = forms.length ? `${forms.length} form(s) waiting` : "No question waits.";
  } catch (e) {
    status.textContent = "Cannot reach claudewrap serve: " + e.message;
  }
}

refresh();
setInterval(refresh, 1000);
