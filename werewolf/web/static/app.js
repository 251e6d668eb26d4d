// The phones' pages: create a room, join, the lobby, each player's own view, the spoken moderator.
// Plain JavaScript, no build step. Every game text arrives narrated by the server (view.text).
"use strict";

const LANGS = ["en", "zh-Hant", "zh-Hans"];
const VOICE_LANG = { en: "en-US", "zh-Hant": "zh-TW", "zh-Hans": "zh-CN" };
let LANG = pickLang();

function pickLang() {
  const saved = localStorage.getItem("ww:lang");
  if (LANGS.includes(saved)) return saved;
  const nav = (navigator.language || "en").toLowerCase();
  if (/^zh-(tw|hk|mo|hant)/.test(nav)) return "zh-Hant";
  if (nav.startsWith("zh")) return "zh-Hans";
  return "en";
}

function ui(key) { return (window.UI[LANG] || {})[key] || window.UI.en[key] || key; }

function toast(message, ok) {
  const t = document.getElementById("toast");
  t.textContent = message;
  t.className = ok ? "ok" : "bad";
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 4000);
}

async function api(method, path, body, token) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = "Bearer " + token;
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}

function key(room, what) { return `ww:${room}:${what}`; }

// -- home: create a room ------------------------------------------------------------------------
async function homePage() {
  const app = document.getElementById("app");
  document.getElementById("phase").textContent = "";
  fixedBadge(null);
  app.replaceChildren(el("p", { class: "muted", text: "…" }));
  let decks;
  try { decks = await api("GET", "/api/decks?lang=" + LANG); } catch (err) { toast(err.message); return; }
  const rs = el("select", { id: "ruleset", name: "ruleset" });
  const deck = el("select", { id: "deck", name: "deck" });
  const bots = el("input", { id: "bots", type: "number", min: "0", value: "0", inputmode: "numeric" });
  const mode = el("select", { id: "mode" },
    el("option", { value: "online", text: ui("online") }),
    el("option", { value: "face_to_face", text: ui("face_to_face") }));
  const kind = el("select", { id: "bot-kind" },
    decks.bot_kinds.map((k) => el("option", { value: k.id, text: k.name })));
  const timeout = el("select", { id: "timeout" });
  const timeoutLabel = el("label", {}, ui("decision_time"), timeout);
  const speech = speechTimeField();  // lobby.js
  const talk = el("select", { id: "talk-length" });
  const talkLabel = el("label", {}, decks.labels.discussion, talk);
  for (const r of decks.rulesets) rs.append(el("option", { value: r.id, text: r.name }));
  const fillDecks = () => {
    const r = decks.rulesets.find((x) => x.id === rs.value);
    deck.replaceChildren(...r.decks.map((d) => el("option", { value: d.id,
      text: `${d.id} · ${d.players} ${ui("players")} · ${summary(d.names)}` })));
    talk.replaceChildren(...(r.discussion || []).map((x) => el("option", { value: JSON.stringify(x.seconds),
      text: x.name })));
    talkLabel.hidden = !r.discussion;
    const pref = r.decks.find((d) => d.players === 12);
    if (pref) deck.value = pref.id;
    syncBots();
    fillTimeout(timeout, rs.value, mode.value);
    speech.fill(rs.value);
  };
  const players = () => {
    const r = decks.rulesets.find((x) => x.id === rs.value);
    return (r.decks.find((d) => d.id === deck.value) || { players: 12 }).players;
  };
  const syncBots = () => { bots.max = String(players() - 1); if (+bots.value > players() - 1) bots.value = "0"; };
  rs.addEventListener("change", fillDecks);
  mode.addEventListener("change", () => fillTimeout(timeout, rs.value, mode.value));
  timeout.addEventListener("change", () => { timeout.dataset.chosen = "1"; });
  deck.addEventListener("change", syncBots);
  fillDecks();
  const create = el("button", { id: "create", class: "big primary", text: ui("create_btn"), onclick: async () => {
    create.disabled = true;
    const n = players(), b = Math.max(0, Math.min(n - 1, parseInt(bots.value || "0", 10)));
    const seats = [];
    for (let s = n - b + 1; s <= n; s++) seats.push(s);
    try {
      const options = talkLabel.hidden ? {} : { discussion_seconds: JSON.parse(talk.value) };
      const room = await api("POST", "/api/rooms", { ruleset: rs.value, deck: deck.value, bots: seats,
        bot_kind: kind.value, options, mode: mode.value, lang: LANG, timeout: +timeout.value,
        speech_time: speech.value() });
      localStorage.setItem(key(room.room, "host"), room.host_token);
      location.href = "/r/" + room.room;
    } catch (err) { toast(err.message); create.disabled = false; }
  } });
  app.replaceChildren(el("section", { class: "card" },
    el("h1", { text: ui("create") }),
    el("label", {}, ui("ruleset"), rs),
    el("label", {}, ui("deck"), deck),
    el("label", {}, ui("bots"), bots), el("p", { class: "muted small", text: ui("bots_hint") }),
    el("label", {}, decks.labels.bot_kind, kind),
    talkLabel,
    el("label", {}, ui("mode"), mode),
    timeoutLabel, el("p", { class: "muted small", text: ui("decision_time_hint") }),
    ...speech.nodes,
    create));
}

// The host's choice of time per decision (a speech is a decision too); 0 waits for ever.
const TIMEOUTS = [30, 60, 90, 120, 180, 300, 600, 0];

// A day-and-night game needs time for a speech; a one-night game only for its night actions and
// the vote (its discussion has its own clock); face to face, people talk aloud before tapping.
function defaultTimeout(ruleset, mode) {
  if (ruleset === "onuw" || ruleset === "onenight") return mode === "face_to_face" ? 120 : 60;
  return mode === "face_to_face" ? 300 : 180;
}

function fillTimeout(select, ruleset, mode) {
  const best = defaultTimeout(ruleset, mode);
  const keep = select.dataset.chosen ? select.value : String(best);
  select.replaceChildren(...TIMEOUTS.map((x) => el("option", { value: String(x),
    text: durationText(x) + (x === best ? ` (${ui("recommended")})` : "") })));
  select.value = keep;
}

function durationText(seconds) {
  if (!seconds) return ui("no_limit");
  return seconds % 60 ? `${seconds} ${ui("seconds")}` : `${seconds / 60} ${ui("minutes")}`;
}

function summary(names) {
  const counts = new Map();
  for (const n of names) counts.set(n, (counts.get(n) || 0) + 1);
  return [...counts].map(([n, c]) => (c > 1 ? `${n}×${c}` : n)).join(", ");
}

// -- a room ------------------------------------------------------------------------------------
const S = { room: null, host: null, player: null, ws: null, view: null, retry: 0, closed: false,
            picked: new Set(), revealed: null, sending: false, draft: "", link: null, askedFull: false,
            moves: 0, replies: new Map() };

// A seat's move (werewolf.web.moves: act, pick, pack_chat, intent): on the seat's open socket, which saves
// a request per answer; over HTTP when the socket is not open. Either way it settles with the server's
// answer, or fails with its message (nothing changed).
function seatPost(what, body) {
  const ws = S.ws;
  if (!S.player || !ws || ws.readyState !== WebSocket.OPEN) {
    return api("POST", `/api/rooms/${S.room}/${what}`, body, S.player);
  }
  const id = ++S.moves;
  return new Promise((resolve, reject) => {
    S.replies.set(id, { resolve, reject, ws });
    ws.send(JSON.stringify({ id, post: what, body }));
  });
}

// The socket closed with moves unanswered: each fails (the view, once back, shows whether it was taken).
function dropReplies(ws) {
  for (const [id, r] of S.replies) {
    if (r.ws !== ws) continue;
    S.replies.delete(id);
    r.reject(new Error(ui("reconnecting")));
  }
}

async function roomPage(room) {
  S.room = room;
  S.host = localStorage.getItem(key(room, "host"));
  S.player = localStorage.getItem(key(room, "player"));
  if (S.player || S.host || localStorage.getItem(key(room, "watch"))) { connect(); return; }
  try {
    const info = await api("GET", "/api/rooms/" + room);
    if (info.status === "lobby") renderJoin(info); else { localStorage.setItem(key(room, "watch"), "1"); connect(); }
  } catch (err) { noRoom(err.message); }
}

// A link that leads nowhere gets a page that says so, never a blank screen.
function noRoom(message) {
  document.getElementById("phase").textContent = "";
  document.getElementById("app").replaceChildren(el("section", { class: "card", id: "no-room" },
    el("h1", { text: ui("no_room") }), el("p", { text: ui("no_room_hint") }),
    message ? el("p", { class: "muted small", text: message }) : null,
    el("a", { class: "button big primary", href: "/", text: ui("create") })));
}

function connect() {
  if (S.ws) { S.closed = true; S.ws.close(); }
  S.closed = false;
  S.askedFull = false;
  const token = S.player || S.host;
  // A move's reply rides on the push that shows it (one message less per answer for the server to send).
  const q = new URLSearchParams({ lang: LANG, delta: "true", replies: "inline" });
  if (!token) q.set("spectator", "true");
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  // The token travels as a subprotocol (a header), never in the URL: URLs end up in logs.
  const ws = new WebSocket(`${proto}//${location.host}/api/rooms/${S.room}/ws?${q}`,
                           token ? ["werewolf", "token." + token] : ["werewolf"]);
  S.ws = ws;
  ws.onopen = () => { S.retry = 0; document.getElementById("status").hidden = true; };
  ws.onmessage = (m) => {
    const data = JSON.parse(m.data);
    if ("reply" in data) {  // the answer to one of this seat's moves (seatPost), alone or with its push
      const r = S.replies.get(data.reply);
      if (r) { S.replies.delete(data.reply); if (data.ok) r.resolve(data); else r.reject(new Error(data.error)); }
      if (!("v" in data)) return;
      delete data.reply;
      delete data.ok;
    }
    if (data.error) {
      toast(data.error);
      if (/token/.test(data.error)) { forget(); if (/removed/.test(data.error)) setTimeout(() => roomPage(S.room), 0); }
      return;
    }
    const view = applyUpdate(S.view, data);
    if (!view) {  // a delta this phone cannot apply: ask once for the full view
      if (!S.askedFull) { S.askedFull = true; ws.send(JSON.stringify({ full: true })); }
      return;
    }
    S.askedFull = false;
    S.view = view;
    render();
  };
  ws.onclose = (e) => {
    dropReplies(ws);
    if (S.ws !== ws || S.closed) return;
    if (e.code === 4404 || e.code === 4410) { noRoom(e.reason); return; }
    if (e.code >= 4400 && e.code < 4500) return;  // refused: a retry would be refused too
    const st = document.getElementById("status");
    st.textContent = ui("reconnecting");
    st.hidden = false;
    S.retry = Math.min(S.retry + 1, 5);
    setTimeout(connect, 500 * S.retry);
  };
}

// A push is the full view, or (?delta=true) what changed since the version `base`: fields to set,
// new events and their narrations to append. On any doubt (not our version, a malformed delta): null.
function applyUpdate(view, data) {
  if (!("base" in data)) return data;
  if (!view || view.v !== data.base || !data.set || !Array.isArray(data.events) || !Array.isArray(view.events))
    return null;
  const next = Object.assign({}, view, data.set, { v: data.v, events: view.events.concat(data.events) });
  if (data.text) {
    if (!view.text || !Array.isArray(view.text.events) || !Array.isArray(data.text.events)) return null;
    next.text = Object.assign({}, view.text, data.text, { events: view.text.events.concat(data.text.events) });
  }
  return next;
}

function forget() {
  localStorage.removeItem(key(S.room, "player"));
  S.player = null;
}

function seatName(room, n) {
  const s = room.seats.find((x) => x.seat === n);
  return s && s.name ? s.name : s && s.bot ? "🤖" : "";
}

// A deal whose seed the host chose is known to the host: every screen of the room says so.
function fixedBadge(room) {
  const b = document.getElementById("fixed");
  if (!b) return;
  b.hidden = !(room && room.fixed_deal);
  b.textContent = ui("fixed_deal");
  b.title = ui("fixed_deal_hint");
  // Night steps shorter than anyone answers ("pace" under 2 s): their timing shows who is dead; said too.
  const i = document.getElementById("instant");
  if (!i) return;
  i.hidden = !(room && room.instant_nights);
  i.textContent = ui("instant_nights");
  i.title = ui("instant_nights_hint");
}

function renderJoin(info) {
  fixedBadge(info);
  const app = document.getElementById("app");
  const name = el("input", { id: "name", maxlength: "40", autocomplete: "nickname", placeholder: ui("name"),
                             value: localStorage.getItem("ww:name") || "" });
  const go = el("button", { id: "join", class: "big primary", text: ui("join_btn"), onclick: () => join(name, go) });
  name.addEventListener("keydown", (e) => { if (e.key === "Enter") join(name, go); });
  app.replaceChildren(
    el("section", { class: "card" }, el("h1", { text: ui("join") }), el("p", { class: "muted",
      text: `${info.ruleset} · ${info.deck || ""} · ${info.players} ${ui("players")}` }), name, go),
    seatsCard(info, null),
    el("button", { class: "link", text: ui("watch"), onclick: () => {
      localStorage.setItem(key(S.room, "watch"), "1"); connect(); } }));
}

async function join(input, button) {
  const name = input.value.trim();
  if (!name) { input.focus(); return; }
  button.disabled = true;
  try {
    const j = await api("POST", `/api/rooms/${S.room}/join`, { name });
    localStorage.setItem(key(S.room, "player"), j.token);
    localStorage.setItem("ww:name", name);
    S.player = j.token;
    connect();
  } catch (err) { toast(err.message); button.disabled = false; }
}

function seatsCard(room, me) {
  const dead = S.view ? deadSeats(S.view.events) : new Set();
  const sheriff = S.view ? sheriffSeat(S.view.events) : null;
  const speaking = new Set(S.view ? speakers(S.view) : []);
  return el("section", { class: "card", id: "seats" }, el("h2", { text: ui("seats") }),
    el("ol", { class: "seats" }, room.seats.map((s) => el("li", {
      class: [s.seat === me ? "me" : "", dead.has(s.seat) ? "dead" : "", s.taken ? "" : "free",
              s.seat === sheriff ? "sheriff" : "", speaking.has(s.seat) ? "speaking" : ""].join(" ") },
      el("b", { text: String(s.seat) }),
      el("span", { text: s.name || (s.bot ? "🤖 " + ui("bot") : ui("empty")) }),
      s.seat === sheriff ? el("i", { class: "badge-mark", title: ui("sheriff"), text: "★ " + ui("sheriff") }) : null,
      speaking.has(s.seat) ? el("i", { class: "talking", title: ui("speaking"), text: "🎤" }) : null,
      s.seat === me ? el("em", { text: ui("you") }) : null))));
}

// The sheriff as the log last named one (a badge torn or lost names nobody).
function sheriffSeat(events) {
  let seat = null;
  for (const e of events) if (e.type === "sheriff") seat = typeof e.seat === "number" ? e.seat : null;
  return seat;
}

function deadSeats(events) {
  const dead = new Set();
  for (const e of events) {
    if (e.type === "death" && typeof e.seat === "number") dead.add(e.seat);
    if (e.type === "announce" && Array.isArray(e.seats)) e.seats.forEach((s) => dead.add(s));
  }
  return dead;
}

function render() {
  const v = S.view;
  if (followNext(v)) return;  // lobby.js: the host started the next game
  document.getElementById("phase").textContent = v.text ? v.text.phase : v.phase;
  fixedBadge(v.room);
  if (v.room.status === "lobby") renderLobby(v); else renderGame(v);
  voiceFeed(v);
  if (buzzOnMyTurn(v)) showAsk();
}

// A new decision drawn above (or below) where the player has scrolled: brought into view.
function showAsk() {
  const card = document.querySelector("#decide, #cover, #answered, #awake");
  if (!card) return;
  const r = card.getBoundingClientRect();
  if (r.top < 0 || r.top > window.innerHeight - 80) card.scrollIntoView({ block: "start", behavior: "smooth" });
}

function renderLobby(v) {
  const app = document.getElementById("app");
  const parts = [];
  if (v.host || S.host) {  // the host's phone may also hold a seat
    // The join link is the server's (--public-url or its network address), as in the QR code.
    if (!S.link || S.link.room !== S.room) {
      S.link = { room: S.room, url: `${location.origin}/r/${S.room}`, warning: null };
      api("GET", `/api/rooms/${S.room}/link?lang=${LANG}`)
        .then((l) => { S.link = { room: S.room, url: l.url, warning: l.warning }; if (S.view) render(); })
        .catch(() => {});
    }
    const link = S.link.url;
    const copy = el("button", { class: "small", text: ui("copy"), onclick: async () => {
      try { await navigator.clipboard.writeText(link); toast(ui("copied"), true); } catch (e) { toast(link, true); }
    } });
    const empty = v.room.seats.filter((s) => !s.taken).length;
    parts.push(el("section", { class: "card", id: "share" }, el("h2", { text: ui("share") }),
      el("img", { class: "qr", src: `/api/rooms/${S.room}/qr.svg`, alt: link }),
      el("p", { class: "link-line" }, el("a", { href: link, text: link }), copy),
      S.link.warning ? el("p", { class: "warning", id: "link-warning", role: "alert", text: S.link.warning }) : null,
      el("p", { class: "muted small", text: ui("host_hint") }),
      el("button", { id: "start", class: "big primary", text: empty ? ui("start_fill") : ui("start"),
        onclick: async (e) => {
          e.target.disabled = true;
          try { await api("POST", `/api/rooms/${S.room}/start`, { fill_with_bots: true }, S.host); }
          catch (err) { toast(err.message); e.target.disabled = false; }
        } })));
  }
  if (v.seat === null && !S.player && v.room.seats.some((s) => !s.taken)) {
    const name = el("input", { id: "name", maxlength: "40", placeholder: ui("name"),
                               value: localStorage.getItem("ww:name") || "" });
    const go = el("button", { id: "join", class: "big", text: ui("join_btn"), onclick: () => join(name, go) });
    parts.push(el("section", { class: "card" }, el("h2", { text: ui("join") }), name, go));
  }
  if (v.seat === null && v.host && v.voice) parts.push(moderatorCard(v, v.text || {}));  // the voice, from the start
  if (v.seat !== null && !S.host) parts.push(el("p", { class: "waiting", text: ui("waiting_host") }));
  parts.push(lobbySeatsCard(v));  // lobby.js: take a seat, the host moves and removes
  app.replaceChildren(...parts);
}

function renderGame(v) {
  const app = document.getElementById("app");
  const t = v.text || { events: [], decisions: [] };
  const parts = [];
  if (v.game_over && t.result) parts.push(resultCard(v, t), seriesCard(v));  // lobby.js: play again
  parts.push(speechClock(v));  // lobby.js: the speaker's time, on every phone
  keepCovered(v, t);
  const covered = isCovered(v);
  if (v.seat !== null) {
    parts.push(roleCard(v, t));
    if (v.discussion && t.discussion) parts.push(talkCard(v, t.discussion));
    if (!v.game_over) parts.push(speakingCard(v));
    const after = lingering(v, t);
    const woken = v.awake && !v.pending && !v.pack ? awakeCard(v, t)  // the pack's card stays (pack.js)
      : after ? answeredCard(v, t, after) : null;
    if (covered && !v.game_over) parts.push(coverCard());
    else if (woken) parts.push(woken);
    else if (!v.game_over) parts.push(decisionCard(v, t));
  } else {
    parts.push(moderatorCard(v, t));
    if (v.discussion && t.discussion) parts.push(talkCard(v, t.discussion));
  }
  if (!covered && v.seat !== null) {  // pack.js; an armed button comes first, in plain sight
    const armed = (v.interrupts || []).some((x) => x.armed);
    parts.splice(armed ? 1 + parts.findIndex((p) => p && p.id === "role") : parts.length, 0,
                 interruptCard(v, t));
    parts.push(packChatCard(v, t));
  }
  if (!covered) parts.push(logCard(v, t));
  parts.push(seatsCard(v.room, v.seat));
  const focused = document.activeElement && document.activeElement.id === "speech" ? true : false;
  app.replaceChildren(...parts.filter(Boolean));
  if (focused) { const s = document.getElementById("speech"); if (s) { s.focus(); } }
}

// A glance at a phone must not show a wolf: while covered, the screen hides the role card, what there is
// to do (the pack's card and chat, the any-moment buttons) and the log alike; one tap shows them all, a tap
// on the role card hides them again. Face to face the phone starts covered and covers itself again at every
// "close your eyes" and whenever it has nothing secret to ask (keepCovered); online, where the player is
// alone with the phone, it starts uncovered and stays as its holder leaves it. Only this page changes: the
// server pushes the same updates, covered or not.
function isRevealed(v) {
  return S.revealed === null ? v.room.mode !== "face_to_face" : S.revealed;
}

function isCovered(v) {
  return v.seat !== null && !isRevealed(v) && !v.game_over;
}

function reveal(on) {
  S.revealed = on;
  clearTimeout(S.idleCover);
  if (on && S.view && S.view.room.mode === "face_to_face" && !secretAsk(S.view, S.view.text || {})) {
    S.idleCover = setTimeout(() => { S.revealed = false; if (S.view) render(); }, IDLE_COVER_MS);
  }
  render();
}

const IDLE_COVER_MS = 20000;  // face to face, a phone shown with nothing to ask covers itself after this

// What the seat is asked now that a glance must not see: its own decisions (not the all-day buttons), its
// role's night step (asked or only woken, and its result), the pack's knife. "": nothing.
function secretAsk(v, t) {
  if (v.seat === null || v.game_over) return "";
  if (v.pack) return `pack:${v.phase}`;
  if (v.awake) return `awake:${v.phase}:${v.awake.step}`;
  const after = lingering(v, t);
  if (after) return `awake:${after.step}`;
  const asks = (t.decisions || []).filter((d) => !d.interrupt);
  return asks.length ? `ask:${v.phase}:${asks.map((d) => d.act + (d.part || "")).join(",")}` : "";
}

// Face to face: the cover comes back by itself when the seat's step ends ("close your eyes"), when its
// turn is over, and when the phase changes; an idle phone shown for a while covers itself too.
function keepCovered(v, t) {
  const ask = secretAsk(v, t);
  const before = S.ask === undefined ? ask : S.ask;
  const phase = S.askPhase;
  S.ask = ask;
  S.askPhase = v.phase;
  if (v.room.mode !== "face_to_face" || v.seat === null || !S.revealed) return;
  // Covered again: the phase changed, nothing is asked any more, or a night step (its card, the pack's
  // knife) was closed. Not when an answer turns the card into its result, nor between two asks of a turn.
  const closed = /^(awake|pack):/.test(before) && ask !== before;
  if ((phase !== undefined && phase !== v.phase) || (before && !ask) || closed) {
    S.revealed = false;
    clearTimeout(S.idleCover);
  } else if (ask) clearTimeout(S.idleCover);
}

function coverCard() {
  return el("section", { class: "card cover", id: "cover", role: "button", onclick: () => reveal(true) },
    el("h2", { text: ui("cover") }), el("p", { class: "hint", text: ui("cover_hint") }));
}

// Who has the floor, on every phone (the moderator's screen shows it too), with the time taken so far.
function speakingCard(v) {
  const seats = speakers(v).filter((s) => s !== v.seat);
  if (!seats.length) return null;
  clearInterval(speakingCard.timer);
  // With a speech timer its countdown (lobby.js) is the one clock; without, the time taken so far.
  if (v.speaker_deadline) {
    return el("section", { class: "card now-speaking", id: "now-speaking" },
      el("b", { text: ui("speaking_now") + ": " }), seats.map((s) => seatText(v.room, s)).join(", "));
  }
  const turn = seats.join(",");
  if (S.turn !== turn) { S.turn = turn; S.turnStart = Date.now(); }
  const clock = el("span", { class: "count" });
  const tick = () => {
    const s = Math.floor((Date.now() - S.turnStart) / 1000);
    clock.textContent = ` ⏱ ${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  };
  tick();
  clearInterval(speakingCard.timer);
  speakingCard.timer = setInterval(tick, 1000);
  return el("section", { class: "card now-speaking", id: "now-speaking" },
    el("b", { text: ui("speaking_now") + ": " }), seats.map((s) => seatText(v.room, s)).join(", "), clock);
}

// The seats that have the floor, one by one (in the one-night discussion everyone may talk at once:
// its card shows who is ready instead).
function speakers(v) {
  return v.discussion ? [] : v.speaking || [];
}

// "Seat 3 · Chen": a seat as the narration writes it, with the name of the person in it.
function seatText(room, n) {
  const label = ui("seat_fmt").replace("{n}", String(n));
  const s = room.seats.find((x) => x.seat === n);
  return s && s.name ? `${label} · ${s.name}` : label;
}

// The server's narration names seats ("Seat 3", "3號"); the log adds the name of who sits there.
function withNames(text, room) {
  const named = new Map(room.seats.filter((s) => s.name).map((s) => [s.seat, s.name]));
  if (!named.size) return text;
  const [before, after] = ui("seat_fmt").split("{n}").map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const re = new RegExp(`${before}(\\d+)${after}(?![\\d·])` + (after ? "" : "\\b"), "g");
  return text.replace(re, (m, n) => (named.has(+n) ? `${m} · ${named.get(+n)}` : m));
}

// A log line with the names added, but never inside what a person typed (their words are theirs).
function logLine(e, s, room) {
  const said = typeof e.text === "string" && e.text ? s.indexOf(e.text) : -1;
  if (said < 0) return withNames(s, room);
  return withNames(s.slice(0, said), room) + e.text + withNames(s.slice(said + e.text.length), room);
}

function roleCard(v, t) {
  const open = isRevealed(v);
  const card = el("section", { class: "card role " + (open ? "open" : "closed"), id: "role",
    onclick: () => reveal(!open) });
  card.append(el("div", { class: "role-head" }, el("span", { text: ui("role") }),
    el("span", { class: "seat-tag", text: `${t.seat || ""} ${seatName(v.room, v.seat)}` })));
  if (!t.role) return card;
  if (open) {
    card.append(el("h2", { text: t.role.name }), el("p", { text: t.role.description }),
      el("p", { class: "muted", text: t.role.side }), el("p", { class: "hint", text: ui("hide") }));
  } else {
    card.append(el("p", { class: "hint", text: ui("show") }));
  }
  return card;
}

// The night step of this seat's role once it asks nothing more: played out although it asked nothing (a
// witch with no potion left), shown as a judge shows it, with one button that only puts the card away on
// this phone; or answered, and then the answer and what it told this seat (the seer's verdict) stay on the
// card until the step ends. Both come from this seat's own view: its own move and its own events.
function awakeCard(v, t) {
  const step = `${v.phase}:${v.awake.step}`;
  if (S.awakeDone === step) return null;
  const done = answeredIn(v, step);
  if (done) return answeredCard(v, t, done);
  return el("section", { class: "card decide", id: "awake" },
    el("h2", { text: ui("awake") }), el("p", { class: "prompt", text: ui("awake_nothing") }), awakeOk(v, step));
}

function awakeOk(v, step) {
  return el("div", { class: "options" }, el("button", { class: "big", id: "awake-ok", text: ui("awake_ok"),
    onclick: () => { S.awakeDone = step; if (v.room.mode === "face_to_face") reveal(false); else render(); } }));
}

// The answer and what it told: shown while the step lasts, and at least RESULT_MS once shown (a step
// answered late ends at once), unless its holder puts it away.
const RESULT_MS = 6000;

function answeredCard(v, t, done) {
  if (!done.until) {
    done.until = Date.now() + RESULT_MS;
    setTimeout(() => { if (S.view) render(); }, RESULT_MS + 50);
  }
  const told = (t.events || []).slice(done.at).map((x, i) => [x, v.events[done.at + i]]).filter(([x]) => x);
  return el("section", { class: "card decide answered", id: "answered" },
    el("h2", { text: ui("answered") }),
    done.moves.map((m) => el("p", { class: "prompt your-answer", text: `${m.title} · ${m.label}` })),
    told.length ? el("ul", { class: "told", id: "told" }, told.map(([x, e]) =>
      el("li", { class: "ev-" + ((e && e.type) || ""), text: logLine(e || {}, x, v.room) }))) : null,
    awakeOk(v, done.step));
}

// The step's answer still on show after the step ended (see answeredCard), while nothing else is asked.
function lingering(v, t) {
  const a = S.answered;
  if (!a || a.phase !== v.phase || v.pack || v.awake || (t.decisions || []).some((d) => !d.interrupt)) return null;
  if (a.step === undefined) {  // answered so late that the step ended with it: shown all the same
    if (!/^night/.test(v.phase) || Date.now() > a.time + RESULT_MS) return null;
    a.step = `${v.phase}:answered`;
    a.until = a.time + RESULT_MS;
    setTimeout(() => { if (S.view) render(); }, RESULT_MS + 50);
  }
  if (!a.until || S.awakeDone === a.step || Date.now() >= a.until) return null;
  return a;
}

// This seat's answers in the night step ``step`` (its moves' words and where its view's events stood then):
// recorded by act(), tied to the step it belongs to the first time that step shows as answered.
function answeredIn(v, step) {
  const a = S.answered;
  if (!a || a.phase !== v.phase) return null;
  if (a.step === undefined) a.step = step;
  return a.step === step ? a : null;
}

function remember(move) {
  const v = S.view;
  if (!v || v.seat === null) return;
  const t = v.text || {};
  const same = JSON.stringify(move);
  let words = null;
  for (const d of t.decisions || []) {
    const o = (d.options || []).find((x) => JSON.stringify(x.move) === same);
    if (o) { words = { title: d.title, label: optionLabel(v, o) }; break; }
  }
  if (!words) {  // a seat picker's choice (several seats): the act's name and the seats
    const d = (t.decisions || []).find((x) => x.act === move.act);
    const seats = Object.values(move).find((x) => Array.isArray(x));
    if (!d) return;
    words = { title: d.title, label: seats ? seats.map((n) => seatText(v.room, n)).join(", ") : d.title };
  }
  const a = S.answered && S.answered.phase === v.phase && S.answered.step === undefined ? S.answered : null;
  S.answered = { phase: v.phase, at: a ? a.at : (v.events || []).length, moves: (a ? a.moves : []).concat([words]),
                 time: Date.now() };
}

function decisionCard(v, t) {
  const card = el("section", { class: "card decide", id: "decide" });
  if (!t.decisions || !t.decisions.length) {
    card.append(el("p", { class: "waiting", text: ui("waiting") }));
    if (v.pack) card.append(packPanel(v, t, null));  // given: the pack's picks until the step ends (pack.js)
    return card;
  }
  // During one's own speech the speech timer (lobby.js) is the one clock (it shows the earlier end).
  const speaking = v.speaker_deadline && (v.speaking || []).includes(v.seat);
  if (v.deadline && !v.discussion && !speaking) card.append(countdown(v.deadline));
  for (const d of t.decisions) {
    if (v.discussion && d.part === "discussion") { card.append(talkBox(v, t.discussion)); continue; }
    if (v.pack && d.act === "kill") { card.append(packPanel(v, t, d)); continue; }  // pack.js
    card.append(el("h2", { text: d.title }), el("p", { class: "prompt", text: d.prompt }));
    if (d === t.decisions[0]) card.append(noAntidote(v, t));
    const only = onlyChoice(d);
    if (only) card.append(only);
    if (d.act === "speak") card.append(speakBox(v, d));
    else if ((d.kind === "pair" || d.kind === "subset") && d.options.length > 8) card.append(seatPicker(v, d));
    else {
      // Many seats to choose from: a grid of seat buttons; "nobody" and the like across the bottom.
      const seats = d.options.filter((o) => typeof o.move.target === "number").length;
      const grid = seats > 4;
      card.append(el("div", { class: grid ? "options seats-grid" : "options" }, d.options.map((o) => {
        const b = optionButton(v, o);
        if (grid && typeof o.move.target !== "number") b.classList.add("wide");
        return b;
      })));
    }
  }
  return card;
}

// A choice the rules narrowed to one option says why, instead of a lone button.
function onlyChoice(d) {
  if (d.interrupt || d.act === "speak" || d.options.length !== 1) return null;
  return el("p", { class: "muted small only-choice", text: ui(d.act === "order" ? "order_alternates" : "only_choice") });
}

function optionLabel(v, o) {
  const target = o.move.target;
  const name = typeof target === "number" && target !== v.seat ? seatName(v.room, target) : "";
  // A label naming a seat without a target (the antidote on tonight's victim) gets the name added in it.
  if (name || typeof target === "number") return name ? `${o.label} · ${name}` : o.label;
  return withNames(o.label, v.room);
}

// The witch is shown tonight's victim but offered no antidote: why (from her own view: her own earlier
// use of it, or the victim being herself), else the rules' plain word.
function noAntidote(v, t) {
  const asks = t.decisions || [];
  if (!asks.some((d) => d.act === "poison" || (d.options || []).some((o) => o.move.act === "poison"))) return null;
  if (asks.some((d) => d.act === "save" || (d.options || []).some((o) => o.move.act === "save"))) return null;
  let victim = null;
  for (let i = v.events.length - 1; i >= 0; i--) {
    const e = v.events[i];
    if (e.type === "night") break;
    if (e.type === "victim" && e.seat === v.seat) { victim = typeof e.target === "number" ? e.target : null; break; }
  }
  if (victim === null) return null;
  const used = v.events.some((e) => e.type === "witch_used" && e.seat === v.seat && e.save !== null && e.save !== undefined);
  return el("p", { class: "muted small no-antidote", id: "no-antidote",
                   text: ui(used ? "no_antidote_used" : victim === v.seat ? "no_antidote_self" : "no_antidote") });
}

function optionButton(v, o) {
  return el("button", { class: "big option", "data-move": JSON.stringify(o.move), text: optionLabel(v, o),
                        onclick: () => act(o.move) });
}

function speakBox(v, d) {
  if (v.room.mode === "face_to_face") {
    return el("button", { class: "big primary", id: "done-speaking", text: ui("done_speaking"),
                          onclick: () => act({ act: "speak", text: null }) });
  }
  const box = el("textarea", { id: "speech", rows: "3", maxlength: "2000", placeholder: ui("say_hint") });
  box.value = S.draft;
  box.addEventListener("input", () => { S.draft = box.value; });
  return el("div", { class: "speak" }, box, el("div", { class: "row" },
    el("button", { class: "big primary", id: "send-speech", text: ui("send"), onclick: () => {
      const text = box.value.trim(); S.draft = ""; act(text ? { act: "speak", text } : { act: "speak", pass: true }); } }),
    el("button", { class: "big", id: "pass-speech", text: ui("pass"), onclick: () => {
      S.draft = ""; act({ act: "speak", pass: true }); } })));
}

// The one-night discussion: everyone talks freely (a statement sent, its sender may go on at once) until
// all are ready to vote or the server's clock runs out. Every phone shows the clock, who is ready, and who
// has not said a word yet (from the public log: the statements and the ready list are everyone's).
function talkCard(v, words) {
  const card = el("section", { class: "card talk", id: "talk" }, el("h2", { text: words.title }),
    el("p", { class: "muted", text: words.clock }));
  // Rounded up: the discussion's clock never shows 0:00 while there is time left.
  if (v.discussion.ends) card.append(countdown(v.discussion.ends, "talk-clock", Math.ceil));
  if (words.ready) card.append(el("p", { class: "ready", id: "ready", text: words.ready }));
  const spoke = new Set(v.events.filter((e) => e.type === "speech" && e.part === "discussion" && e.text)
    .map((e) => e.seat));
  const ready = new Set(v.discussion.ready || []);
  const silent = v.room.seats.map((x) => x.seat).filter((n) => !spoke.has(n) && !ready.has(n));
  if (silent.length && v.room.mode === "online") {
    card.append(el("p", { class: "silent", id: "silent" }, el("b", { text: ui("not_spoken") }),
      silent.map((n) => seatText(v.room, n) + (n === v.seat ? ` (${ui("you")})` : "")).join(", ")));
  }
  card.append(el("p", { class: "muted small", text: words.waiting }));
  return card;
}

function talkBox(v, words) {
  const ready = el("button", { class: "big", id: "ready-to-vote", text: words.ready_button, onclick: () => {
    S.draft = ""; act({ act: "speak", text: null }); } });
  if (v.room.mode === "face_to_face") return el("div", { class: "speak" }, ready);  // people talk aloud
  const box = el("textarea", { id: "speech", rows: "3", maxlength: "2000", placeholder: ui("say_hint") });
  box.value = S.draft;
  box.addEventListener("input", () => { S.draft = box.value; });
  return el("div", { class: "speak" }, box, el("div", { class: "row" },
    el("button", { class: "big primary", id: "send-speech", text: ui("send"), onclick: () => {
      const text = box.value.trim();
      if (!text) { box.focus(); return; }  // an empty statement would mean "ready to vote"
      S.draft = ""; act({ act: "speak", text }); } }),
    ready));
}

function seatPicker(v, d) {
  const arg = d.arg || "targets";
  const need = d.kind === "pair" ? 2 : d.most;
  const wrap = el("div", { class: "picker" }, el("p", { class: "muted small", text: ui("choose_seats") }));
  const grid = el("div", { class: "options grid" });
  for (const s of d.targets) {
    grid.append(el("button", { class: "seat-pick" + (S.picked.has(s) ? " on" : ""),
      text: `${s} ${seatName(v.room, s)}`, onclick: () => {
        if (S.picked.has(s)) S.picked.delete(s); else if (S.picked.size < need) S.picked.add(s);
        render();
      } }));
  }
  wrap.append(grid);
  const chosen = [...S.picked].sort((a, b) => a - b);
  const match = d.options.find((o) => Array.isArray(o.move[arg]) &&
    [...o.move[arg]].sort((a, b) => a - b).join(",") === chosen.join(","));
  wrap.append(el("button", { class: "big primary", text: ui("confirm"), disabled: !match || !chosen.length,
                             onclick: () => { S.picked.clear(); act(match.move); } }));
  const none = d.options.find((o) => o.move[arg] === null || (Array.isArray(o.move[arg]) && !o.move[arg].length));
  if (none) wrap.append(optionButton(v, none));
  return wrap;
}

async function act(move) {
  if (S.sending) return;
  S.sending = true;
  document.querySelectorAll("#decide button").forEach((b) => { b.disabled = true; });
  try {
    const before = S.answered;
    remember(move);
    try { await seatPost("act", move); }
    catch (err) { S.answered = before; throw err; }
  }
  catch (err) { toast(err.message); render(); }
  finally { S.sending = false; }
}

// A clock counting down to ``deadline`` (Unix seconds); one ticks at a time (a view shows one).
function countdown(deadline, id = undefined, round = Math.round) {
  const span = el("span", { class: "count", id });
  const tick = () => {
    const left = Math.max(0, round(deadline - Date.now() / 1000));
    span.textContent = `${ui("time_left")}: ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  };
  tick();
  clearInterval(countdown.timer);
  countdown.timer = setInterval(tick, 1000);
  return el("p", { class: "deadline" }, span);
}

// A speech the timer ended (its clock, public, had run out): the log says so after it, as a judge would
// ("time!"). The server says which (``timeouts``: places in this view's events), the same for every seat.
function logCard(v, t) {
  const list = el("ol", { class: "log", id: "log" });
  const lines = [];
  const timedOut = new Set(v.timeouts || []);
  v.events.forEach((e, i) => {
    const s = t.events[i];
    if (s) lines.push([e, s, i]);
    if (timedOut.has(i) && e.type === "speech")
      lines.push([{ type: "speech_timeout" }, ui("speech_timeout").replace("{seat}", seatText(v.room, e.seat)), -1]);
  });
  const table = tableRules(v);
  for (const [e, s, i] of lines.reverse())
    list.append(el("li", { class: "ev-" + e.type, text: logLine(e, s, v.room) }, e.rule ? whyButton(e.rule, i, table) : null));
  return el("section", { class: "card" }, el("h2", { text: ui("log") }), list);
}

// "Why?": the rule of an event already in this phone's view, from the rule book (/api/rules/{rule}):
// the answer depends on the rule and the table's rules alone (its ruleset and the options its game_start
// announced to everyone), so it tells nothing the view does not hold.
const WHY = { open: new Set(), text: new Map() };

function tableRules(v) {
  const start = (v.events || []).find((e) => e.type === "game_start");
  if (!start || !start.ruleset) return "";
  const q = `&ruleset=${encodeURIComponent(start.ruleset)}`;
  return start.options ? q + `&options=${encodeURIComponent(JSON.stringify(start.options))}` : q;
}

function whyButton(rule, i, table = "") {
  const key = `${S.room}:${i}`;
  const box = el("div", { class: "why muted small", "data-rule": rule, "data-key": key });
  const show = (b, r) => b.replaceChildren(el("div", { text: r.text }),
    r.quote ? el("div", { text: `${r.book_title} · ${r.section}: 「${r.quote}」` }) : null,
    r.proposal ? el("div", { text: r.proposal }) : null);
  // Every box of this line (the log may have been drawn again while the rule was on its way).
  const fill = (r) => { for (const b of document.querySelectorAll(".why")) if (b.dataset.key === key) show(b, r); };
  const cached = WHY.text.get(`${LANG}:${rule}${table}`);
  if (WHY.open.has(key) && cached) show(box, cached);
  const button = el("button", { class: "link small why-button", type: "button", text: ui("why"),
    onclick: async () => {
      if (WHY.open.has(key)) {
        WHY.open.delete(key);
        for (const b of document.querySelectorAll(".why")) if (b.dataset.key === key) b.replaceChildren();
        return;
      }
      try {
        const r = WHY.text.get(`${LANG}:${rule}${table}`)
          || await api("GET", `/api/rules/${encodeURIComponent(rule)}?lang=${LANG}${table}`);
        WHY.text.set(`${LANG}:${rule}${table}`, r);
        WHY.open.add(key);
        fill(r);
      } catch (err) { toast(err.message); }
    } });
  return [" ", button, box];
}

function resultCard(v, t) {
  const r = t.result;
  const card = el("section", { class: "card result", id: "result" }, el("h1", { text: ui("game_over") }),
    el("p", { class: "winners", text: r.winners }));
  if (r.you) card.append(el("p", { class: "you " + (v.game_over.seats.includes(v.seat) ? "won" : "lost"),
                                   text: r.you }));
  // Why the side won: the rule that decided it, from the rule book.
  const labels = r.labels || {};
  if (r.why) {
    card.append(el("div", { class: "why-won", id: "why-won" }, el("b", { text: labels.why_won || ui("why") }),
      el("span", { text: r.why.text }),
      r.why.quote ? el("p", { class: "muted small", text: `${r.why.book_title} · ${r.why.section}: 「${r.why.quote}」` }) : null));
  }
  // The table at the end: every seat's card (as dealt and at dawn where cards moved), who died, the centre.
  if (r.roles.length) {
    const dead = deadSeats(v.events);
    const dealt = r.dealt || null;
    card.append(el("h2", { text: dealt || r.center ? labels.final_table || ui("roles") : ui("roles") }),
      el("table", { class: "roles", id: "final-table" },
        dealt ? el("tr", { class: "head" }, el("th", {}), el("th", {}), el("th", { text: labels.dealt }),
                   el("th", { text: labels.at_dawn })) : null,
        r.roles.map((x) => el("tr", {
          class: (v.game_over.seats.includes(x.seat) ? "won" : "") + (x.seat === v.seat ? " me" : "")
                 + (dead.has(x.seat) ? " dead" : ""), "data-seat": String(x.seat) },
          el("td", { text: String(x.seat) }),
          el("td", { text: seatName(v.room, x.seat) + (dead.has(x.seat) ? " ✝" : ""),
                     title: dead.has(x.seat) ? labels.died || "" : null }),
          dealt ? el("td", { class: "dealt" + (dealt[String(x.seat)] !== x.name ? " moved" : ""),
                             text: dealt[String(x.seat)] || "" }) : null,
          el("td", { text: x.name })))));
    if (r.center) {
      card.append(el("p", { class: "centre", id: "centre" }, el("b", { text: labels.centre + ": " }),
        r.center.join(" · ")));
    }
  }
  const replay = el("ol", { class: "log replay", id: "replay" });
  card.append(el("button", { class: "big", id: "show-replay", text: ui("full_log"), onclick: async (e) => {
    e.target.disabled = true;
    try {
      const log = await api("GET", `/api/rooms/${S.room}/log?lang=${LANG}`);
      log.events.forEach((ev, i) => {
        if (!log.text[i]) return;
        const secret = Array.isArray(ev.to);
        replay.append(el("li", { class: "ev-" + ev.type + (secret ? " secret" : ""),
          text: (secret ? `[${ev.to.join(",") || "⚖"}] ` : "") + log.text[i] }));
      });
    } catch (err) { toast(err.message); e.target.disabled = false; }
  } }), replay, el("p", {}, el("a", { href: `/replay/${encodeURIComponent(S.room)}?lang=${LANG}`
                                      + (v.seat ? `&view=${v.seat}` : ""), id: "replay-link", text: ui("replay") })),
  el("p", {}, el("a", { href: "/", text: ui("new_room") })));
  return card;
}

// -- the moderator's voice (face-to-face play): moderator.js draws its screen (moderatorCard) and speaks ----
function voiceFeed(v) { modFeed(v); }

// -- your turn: a beep and a vibration (a toggle in the bar turns them off; the phone remembers) ------
const BUZZ = { last: "", audio: null };
window.__buzzes = 0;
window.__beeps = 0;

function buzzOn() { return localStorage.getItem("ww:buzz") !== "off"; }

function buzzButton() {
  const b = document.getElementById("buzz");
  if (!b) return;
  b.textContent = buzzOn() ? "🔔" : "🔕";
  b.title = ui(buzzOn() ? "buzz_on" : "buzz_off");
  b.setAttribute("aria-label", b.title);
  b.setAttribute("aria-pressed", buzzOn() ? "true" : "false");
}

// What this phone is asked now (not the interrupts that are there all day); a new ask buzzes once.
function buzzOnMyTurn(v) {
  const asks = ((v.text && v.text.decisions) || []).filter((d) => !d.interrupt);
  const now = asks.length ? `${v.phase}:${asks.map((d) => d.act + (d.part || "")).join(",")}` : "";
  const fresh = now && now !== BUZZ.last;
  BUZZ.last = now;
  if (!fresh || v.seat === null) return false;
  if (!buzzOn()) return true;
  window.__buzzes += 1;
  if (navigator.vibrate) navigator.vibrate([120, 80, 120]);
  // Face to face at night a beep would tell the table whose role was just called: vibration only.
  if (!(v.room.mode === "face_to_face" && /^night/.test(v.phase))) beep();
  return true;
}

function beep() {
  window.__beeps += 1;
  try {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    BUZZ.audio = BUZZ.audio || new Ctx();
    const ctx = BUZZ.audio, osc = ctx.createOscillator(), gain = ctx.createGain();
    osc.frequency.value = 880;
    gain.gain.setValueAtTime(0.15, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + 0.35);
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.35);
  } catch (e) { /* no sound on this browser: the vibration and the screen still tell */ }
}

// Browsers start sound only after a tap: the first tap anywhere wakes the audio for later beeps.
function unlockAudio() {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (Ctx && !BUZZ.audio) { try { BUZZ.audio = new Ctx(); } catch (e) { /* none */ } }
  if (BUZZ.audio && BUZZ.audio.state === "suspended") BUZZ.audio.resume().catch(() => {});
}

// -- start ---------------------------------------------------------------------------------------
function setLang(lang) {
  LANG = lang;
  localStorage.setItem("ww:lang", lang);
  document.documentElement.lang = lang;
  document.querySelectorAll("[data-ui]").forEach((n) => { n.textContent = ui(n.dataset.ui); });
  document.title = ui("title");
  buzzButton();
}

function main() {
  const picker = document.getElementById("lang");
  picker.value = LANG;
  setLang(LANG);
  picker.addEventListener("change", () => {
    setLang(picker.value);
    if (S.room) connect(); else homePage();
  });
  const buzz = document.getElementById("buzz");
  if (buzz) buzz.addEventListener("click", () => { localStorage.setItem("ww:buzz", buzzOn() ? "off" : "on"); buzzButton(); });
  document.addEventListener("pointerdown", unlockAudio, { once: true });
  const m = location.pathname.match(/^\/r\/([A-Za-z0-9_-]+)/);
  if (m) roomPage(m[1]); else homePage();
}

main();
