// The replay page: a finished game step by step. Everything it shows comes from the server's
// /api/rooms/{id}/replay, already cut to what the chosen viewer saw (werewolf.replay):
// the page never receives an event the viewer was not shown.
"use strict";

const LANGS = ["en", "zh-Hant", "zh-Hans"];
const R = { id: "", lang: "en", view: "all", data: null, step: 0, anchor: null };

function toast(message) {
  const t = document.getElementById("toast");
  t.textContent = message;
  t.className = "bad";
  t.hidden = false;
}

function pickLang(given) {
  if (LANGS.includes(given)) return given;
  const saved = localStorage.getItem("ww:lang");
  if (LANGS.includes(saved)) return saved;
  const nav = (navigator.language || "en").toLowerCase();
  if (/^zh-(tw|hk|mo|hant)/.test(nav)) return "zh-Hant";
  if (nav.startsWith("zh")) return "zh-Hans";
  return "en";
}

async function load() {
  const q = new URLSearchParams({ view: R.view, lang: R.lang });
  const r = await fetch(`/api/rooms/${encodeURIComponent(R.id)}/replay?${q}`);
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.error || r.statusText);
  R.data = data;
  if (R.anchor !== null) {  // the same moment of the game in the new view: its last step up to there
    const k = data.steps.findLastIndex((s) => s.i <= R.anchor);
    R.step = Math.max(0, k);
    R.anchor = null;
  }
  R.step = Math.max(0, Math.min(R.step, data.steps.length - 1));
  chrome();
  show();
}

function L(k) { return (R.data && R.data.labels[k]) || k; }

function chrome() {
  const d = R.data;
  document.documentElement.lang = d.lang;
  document.getElementById("title").textContent = `${L("title")} · ${d.viewer.name}`;
  document.getElementById("view-label").textContent = L("view_as");
  document.getElementById("first").textContent = L("first");
  document.getElementById("prev").textContent = L("prev");
  document.getElementById("next").textContent = L("next");
  document.getElementById("last").textContent = L("last");
  document.getElementById("table-title").textContent = L("seat_table");
  document.getElementById("timeline-title").textContent = L("timeline");
  const view = document.getElementById("view");
  view.replaceChildren(...d.views.map((v) => el("option", { value: v.id, text: v.name, selected: v.id === R.view })));
  const slider = document.getElementById("slider");
  slider.max = String(Math.max(0, d.steps.length - 1));
  document.getElementById("phases").replaceChildren(...d.phases.map((p) => el("button", {
    type: "button", class: "phase", "data-start": p.start, text: p.name, onclick: () => go(p.start) })));
  const list = document.getElementById("timeline");
  const items = [];
  let phase = null;
  d.steps.forEach((s, i) => {
    if (s.group !== phase) {
      phase = s.group;
      const head = d.phases.find((p) => p.start === i);
      items.push(el("li", { class: "phase-head", "data-i": i, text: head ? head.name : s.phase }));
    }
    const secret = s.seen_by.kind !== "public";
    items.push(el("li", { class: "step" + (secret ? " hidden-to-table" : ""), "data-i": i, onclick: () => go(i) },
      el("span", { class: "n", text: String(i + 1) }), s.text || s.type, secret ? el("span", { class: "badge", text: `(${s.seen_by.text})` }) : null,
      s.rule ? el("span", { class: "badge", text: "§" }) : null));
  });
  list.replaceChildren(...items);
}

function tableAt(i) {
  const steps = R.data.steps;
  for (let k = i; k >= 0; k--) if (steps[k].table) return steps[k].table;
  return R.data.initial_table;
}

function show() {
  const d = R.data;
  const n = d.steps.length;
  const cur = document.getElementById("current");
  if (!n) {
    cur.replaceChildren(el("p", { class: "muted", text: L("no_events") }));
    return;
  }
  const s = d.steps[R.step];
  const phase = d.phases.filter((p) => p.start <= R.step).pop();
  document.getElementById("phase").textContent = phase ? phase.name : "";
  document.getElementById("counter").textContent = `${L("step")} ${R.step + 1} / ${n}`;
  document.getElementById("slider").value = String(R.step);
  document.getElementById("first").disabled = document.getElementById("prev").disabled = R.step === 0;
  document.getElementById("last").disabled = document.getElementById("next").disabled = R.step === n - 1;
  for (const b of document.querySelectorAll("#phases button"))
    b.classList.toggle("here", phase !== undefined && Number(b.dataset.start) === phase.start);
  const kids = [el("p", { class: "text", id: "step-text", text: s.text || s.type }),
                el("p", { class: "seen", id: "step-seen", text: `${L("seen_by")}: ${s.seen_by.text}` })];
  if (s.rule) kids.push(ruleBox(s.rule));
  cur.replaceChildren(...kids);
  const me = d.viewer.seat;
  const names = Object.fromEntries(d.seats.map((x) => [x.seat, x.name]));
  const named = d.seats.some((x) => x.name);
  document.getElementById("table").replaceChildren(...tableAt(R.step).map((row) => el("tr", {
    class: (row.alive ? "" : "dead") + (row.seat === me ? " me" : ""), "data-seat": row.seat },
    el("td", { text: String(row.seat) }), named ? el("td", { text: names[row.seat] || "" }) : null,
    el("td", { class: "role", text: row.role_name || L("unknown") }),
    el("td", { text: row.alive ? L("alive") : L("dead") }))));
  for (const li of document.querySelectorAll("#timeline li")) {
    const i = Number(li.dataset.i);
    li.classList.toggle("now", li.classList.contains("step") && i === R.step);
    li.classList.toggle("later", i > R.step);
  }
  const now = document.querySelector("#timeline li.now");
  if (now) {  // keep the current step in sight inside the timeline, without scrolling the page
    const list = document.getElementById("timeline");
    list.scrollTop = Math.max(0, now.offsetTop - list.clientHeight / 2);
  }
  const url = new URL(location.href);
  url.searchParams.set("view", R.view);
  url.searchParams.set("lang", R.lang);
  url.searchParams.set("step", String(R.step));
  history.replaceState(null, "", url);
}

function ruleBox(rule) {
  const box = el("div", { class: "rule", id: "rule" },
    el("div", {}, el("strong", { text: `${L("rule")}: ` }), el("span", { class: "rule-text", text: rule.text }),
      el("span", { class: "id", text: ` (${rule.rule})` })));
  if (rule.known) {
    box.append(el("div", { class: "source", text: `${L("source")}: ${rule.book} ${rule.book_title} · ${rule.section}` }),
      el("div", { class: "quote", text: `${L("quote")}: 「${rule.quote}」` }));
    if (rule.proposal) box.append(el("div", { class: "proposal", text: `${L("proposal")}: ${rule.proposal}` }));
  }
  return box;
}

function go(i) {
  if (!R.data || !R.data.steps.length) return;
  R.step = Math.max(0, Math.min(i, R.data.steps.length - 1));
  show();
}

async function main() {
  const m = location.pathname.match(/^\/replay\/([^/]+)/);
  R.id = m ? decodeURIComponent(m[1]) : "";
  const q = new URLSearchParams(location.search);
  R.lang = pickLang(q.get("lang"));
  R.view = q.get("view") || "all";
  R.step = Number(q.get("step") || 0) || 0;
  const lang = document.getElementById("lang");
  lang.value = R.lang;
  lang.addEventListener("change", () => { R.lang = lang.value; localStorage.setItem("ww:lang", R.lang); load().catch((e) => toast(e.message)); });
  document.getElementById("view").addEventListener("change", (e) => {
    R.anchor = R.data && R.data.steps.length ? R.data.steps[R.step].i : null;
    R.view = e.target.value;
    load().catch((err) => toast(err.message));
  });
  document.getElementById("first").addEventListener("click", () => go(0));
  document.getElementById("prev").addEventListener("click", () => go(R.step - 1));
  document.getElementById("next").addEventListener("click", () => go(R.step + 1));
  document.getElementById("last").addEventListener("click", () => go(Infinity));
  document.getElementById("slider").addEventListener("input", (e) => go(Number(e.target.value)));
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLSelectElement || e.target instanceof HTMLInputElement) return;
    if (e.key === "ArrowRight") go(R.step + 1);
    else if (e.key === "ArrowLeft") go(R.step - 1);
  });
  try { await load(); } catch (e) { toast(e.message); }
}

main();
