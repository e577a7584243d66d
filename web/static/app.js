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

// meta is a form's line: its session (an inbox's form: its user and
// Claude Code), folder and how long it has waited.
function meta(f, what) {
  const where = f.machine ? `${f.user} · Claude Code ${f.claude_version || "?"}` : `session ${f.session}`;
  return el("div", { class: "meta",
    text: `${where} · ${f.cwd}${what} · waiting since ${new Date(f.since).toLocaleTimeString()}` });
}

// place is where a form is shown: an inbox's forms under their machine's
// heading, this machine's sessions' forms in the page itself.
function place(main, f) {
  if (!f.machine) return main;
  let g = [...main.querySelectorAll("section.machine")].find((x) => x.dataset.machine === f.machine);
  if (!g) {
    g = el("section", { class: "machine", "data-machine": f.machine }, el("h2", { text: f.machine }));
    main.append(g);
  }
  return g;
}

// answerer posts a form's answer, its buttons disabled meanwhile, and
// shows the outcome in out; recorded says what Claude recorded.
function answerer(f, buttons, out, recorded) {
  return async (body) => {
    for (const b of buttons) b.disabled = true;
    out.className = "outcome";
    out.textContent = "Answering on Claude's screen…";
    done.add(key(f));
    try {
      const o = await api("api/answer", Object.assign({ session: f.session, tool_use_id: f.tool_use_id }, body));
      const rec = recorded(o);
      const ok = o.result === "verified" || o.result === "cancelled" || o.result === "chatted";
      out.className = "outcome " + (ok ? "ok" : "bad");
      out.textContent = ok ? `${o.result}${rec ? ": Claude recorded " + rec : ""}`
        : `${o.result}: ${o.message || ""}${rec ? " (Claude recorded " + rec + ")" : ""}`;
    } catch (e) {
      out.className = "outcome bad";
      out.textContent = "Not answered: " + e.message;
      done.delete(key(f));
      for (const b of buttons) b.disabled = false;
    }
  };
}

function formNode(f) {
  const node = el("section", { class: "form", "data-form": key(f) });
  node.append(meta(f, ""));
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
  const send = answerer(f, [submit, chatBtn, cancel], out,
    (o) => o.recorded ? Object.entries(o.recorded).map(([q, a]) => `${q} → ${a}`).join("; ") : "");
  submit.addEventListener("click", () => send({ answers: collect(f, node) }));
  chatBtn.addEventListener("click", () => chat.value.trim() ? send({ chat: chat.value }) : chat.focus());
  cancel.addEventListener("click", () => send({ cancel: true }));
  return node;
}

// elicitField is one field of an MCP server's form: a list for its
// options or a boolean (unset at first), boxes for a multi-select, else
// text.
function elicitField(f, fd) {
  const id = `${f.tool_use_id}-${fd.name}`;
  let input;
  if (fd.type === "array") {
    input = el("div", { id });
    for (const o of fd.options || []) input.append(el("label", { class: "opt" }, el("input", { type: "checkbox", value: o }), " " + o));
  } else if (fd.options || fd.type === "boolean") {
    input = el("select", { id }, el("option", { value: "", text: "not set" }));
    for (const o of fd.options || ["true", "false"]) input.append(el("option", { value: o, text: o }));
  } else {
    input = el("input", { id, type: "text", inputmode: fd.type === "string" ? "text" : "decimal" });
  }
  const label = el("label", { for: id, text: fd.title + (fd.required ? " *" : "") });
  return el("fieldset", { "data-field": fd.name }, label, input);
}

// elicitValues is the fields set, as JSON typed by the server's schema
// (the session checks them against it).
function elicitValues(f, node) {
  const v = {};
  f.elicitation.fields.forEach((fd, i) => {
    const box = node.querySelectorAll("fieldset[data-field]")[i];
    if (fd.type === "array") {
      const picked = [...box.querySelectorAll("input:checked")].map((x) => x.value);
      if (picked.length) v[fd.name] = picked;
      return;
    }
    const x = box.querySelector("select, input").value;
    const n = Number(x);
    if (x.trim() === "") return;
    if (fd.type === "boolean") v[fd.name] = x === "true";
    else if (fd.type === "number" || fd.type === "integer") v[fd.name] = isNaN(n) ? x : n;
    else v[fd.name] = x;
  });
  return JSON.stringify(v);
}

// elicitNode is an MCP server's input form: its fields, Accept, Decline
// and Cancel.
function elicitNode(f) {
  const e = f.elicitation;
  const node = el("section", { class: "form", "data-form": key(f) });
  node.append(meta(f, ` · MCP server "${e.server}"`), el("p", { text: e.message }));
  for (const fd of e.fields) node.append(elicitField(f, fd));
  const accept = el("button", { class: "primary", type: "button", text: "Accept" });
  const decline = el("button", { type: "button", text: "Decline" });
  const cancel = el("button", { type: "button", text: "Cancel" });
  const out = el("div", { class: "outcome", role: "status" });
  node.append(el("div", { class: "actions" }, accept, decline, cancel), out);
  const send = answerer(f, [accept, decline, cancel], out, (o) => o.elicited ? JSON.stringify(o.elicited) : "");
  accept.addEventListener("click", () => send({ elicit: { action: "accept", values: elicitValues(f, node) } }));
  decline.addEventListener("click", () => send({ elicit: { action: "decline" } }));
  cancel.addEventListener("click", () => send({ elicit: { action: "cancel" } }));
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
        const n = f.elicitation ? elicitNode(f) : formNode(f);
        shown.set(key(f), n);
        place(main, f).append(n);
      }
    }
    for (const [k, n] of shown) {
      if (!waiting.has(k) && !done.has(k)) { n.remove(); shown.delete(k); }
    }
    for (const g of main.querySelectorAll("section.machine")) {
      if (!g.querySelector("section.form")) g.remove();
    }
    status.textContent = forms.length ? `${forms.length} form(s) waiting` : "No question waits.";
  } catch (e) {
    status.textContent = "Cannot reach claudewrap serve: " + e.message;
  }
}

refresh();
setInterval(refresh, 1000);
