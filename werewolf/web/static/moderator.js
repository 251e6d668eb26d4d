// The moderator device of a face-to-face table: it speaks the judge's script and is the table's clock.
//
// The server keeps the script (the view's text.voice.lines, numbered; werewolf/web/voice.py): each line is
// said once, in order, and acknowledged (POST /api/rooms/{room}/voice {"heard": n}); until it is, no phone
// is asked anything and nothing more happens. The device speaks up every few seconds, so that the server
// knows it is there: a closed page lets the phones lead again. Pause holds the table; repeat says the
// current line again. Uses the page's globals (app.js): S, api, el, ui, LANG, VOICE_LANG, seatText.
"use strict";

const MOD = {
  on: false,      // this device leads the table
  ready: false,   // the server has told where to start
  paused: false,
  heard: 0,       // lines said (and acknowledged, or about to be)
  saying: null,   // the number of the line being said
  repeat: null,   // a line to say again before going on
  lines: new Map(),  // n -> text, as the views brought them
  beat: null,
  guard: null,
  current: "",    // the line on screen
};
const GAP_MS = 350;  // between two lines
const BEAT_MS = 4000;  // the device speaks up this often (the server waits for it 15 s)
window.__spoken = [];  // every line said, in order (tests read it)
window.__spokenLog = [];  // {n, text, at}: when each was begun

function modPost(body) {
  return api("POST", `/api/rooms/${S.room}/voice`, body, S.host);
}

async function modToggle() {
  if (MOD.on) {
    MOD.on = false;
    MOD.ready = false;
    clearInterval(MOD.beat);
    if (window.speechSynthesis) speechSynthesis.cancel();
    MOD.saying = null;
    modPost({ on: false }).catch(() => {});
    if (S.view) render();
    return;
  }
  MOD.on = true;
  MOD.ready = false;
  MOD.paused = false;
  if (navigator.wakeLock) navigator.wakeLock.request("screen").catch(() => {});
  try {
    const r = await modPost({ on: true });  // the server starts this device at the current line
    MOD.heard = r.heard;
  } catch (err) { MOD.on = false; toast(err.message); return; }
  MOD.beat = setInterval(() => {
    if (MOD.on && MOD.ready) modPost({ heard: MOD.heard, paused: MOD.paused }).catch(() => {});
  }, BEAT_MS);
  MOD.ready = true;
  if (S.view) render();
  modPump();
}

// A view came: learn the lines, and go on saying them.
function modFeed(v) {
  if (v.seat !== null || !v.voice || !v.text || !v.text.voice) return;
  if (MOD.lang !== v.text.lang) { MOD.lang = v.text.lang; MOD.lines.clear(); }  // the page changed language
  for (const line of v.text.voice.lines) MOD.lines.set(line.n, line.text);
  if (!MOD.on || !MOD.ready) return;
  if (v.game_over && MOD.saying === null && !MOD.lines.has(MOD.heard)) {  // all said: the device rests
    clearInterval(MOD.beat);
    return;
  }
  if (v.voice.heard > MOD.heard && MOD.saying === null) MOD.heard = v.voice.heard;
  modPump();
}

function modPump() {
  if (!MOD.on || !MOD.ready || MOD.paused || MOD.saying !== null) return;
  if (MOD.repeat !== null) {
    const text = MOD.repeat;
    MOD.repeat = null;
    MOD.saying = -1;
    modSpeak(text, () => { MOD.saying = null; setTimeout(modPump, GAP_MS); });
    return;
  }
  const n = MOD.heard;
  if (!MOD.lines.has(n)) return;
  const text = MOD.lines.get(n);
  MOD.saying = n;
  MOD.current = text;
  window.__spoken.push(text);
  window.__spokenLog.push({ n, text, at: Date.now() });
  modShow();
  modSpeak(text, () => {
    MOD.saying = null;
    MOD.heard = Math.max(MOD.heard, n + 1);
    modPost({ heard: MOD.heard, paused: MOD.paused }).catch(() => {});
    setTimeout(modPump, GAP_MS);
  });
}

function modSpeak(text, done) {
  let finished = false;
  const finish = () => { if (!finished) { finished = true; clearTimeout(MOD.guard); done(); } };
  const synth = window.speechSynthesis;
  if (!text) { finish(); return; }
  if (!synth || typeof SpeechSynthesisUtterance === "undefined") { MOD.guard = setTimeout(finish, 80 * text.length); return; }
  const u = new SpeechSynthesisUtterance(text);
  u.lang = VOICE_LANG[LANG] || "en-US";
  const voice = synth.getVoices().find((x) => x.lang && x.lang.replace("_", "-").startsWith(u.lang));
  if (voice) u.voice = voice;
  u.onend = finish;
  u.onerror = finish;
  // A browser with no voice installed may never say "end": the line is taken as said after its time.
  const guard = () => { MOD.guard = setTimeout(() => (MOD.paused ? guard() : finish()), 3000 + 250 * text.length); };
  guard();
  synth.speak(u);
}

function modPause() {
  MOD.paused = !MOD.paused;
  const synth = window.speechSynthesis;
  if (synth) { if (MOD.paused) synth.pause(); else synth.resume(); }
  modPost({ heard: MOD.heard, paused: MOD.paused }).catch(() => {});
  render();
  modPump();
}

function modRepeat() {
  const n = MOD.saying !== null && MOD.saying >= 0 ? MOD.saying : MOD.heard - 1;
  const text = MOD.lines.get(n) || MOD.current;
  if (!text) return;
  MOD.repeat = text;
  modPump();
}

function modShow() {
  const p = document.getElementById("instruction");
  if (p) p.textContent = MOD.current;
}

// The time left of the speech under way, when the view has a speech timer (its end, in Unix seconds).
function speechEnds(v) {
  const s = v.speech || v.speech_timer;
  const ends = (s && (s.ends || s.deadline)) || v.speaker_deadline || v.speech_deadline;
  return typeof ends === "number" ? ends : null;
}

// The moderator screen: the line the voice says (large), who acts or speaks, the speech timer, and the
// voice's buttons (the host's device only: it alone speaks for the room).
function moderatorCard(v, t) {
  const words = (t && t.voice) || null;
  const labels = (words && words.labels) || {};
  const card = el("section", { class: "card moderator", id: "moderator" },
    el("h2", { text: v.host ? ui("moderator") : ui("spectator") }));
  if (words) {
    if (!MOD.on) {  // the voice off: the latest line of the script, as the table stands now (never a stale one)
      const last = words.lines[words.lines.length - 1];
      MOD.current = last ? last.text : "";
    } else if (!MOD.current) {
      const said = words.lines.filter((l) => l.n < ((v.voice && v.voice.heard) || 0));
      const shown = said.length ? said[said.length - 1] : words.lines[0];
      if (shown) MOD.current = shown.text;
    }
    card.append(el("p", { class: "muted small", text: labels.now || "" }),
      el("p", { class: "instruction", id: "instruction", "aria-live": "polite", text: MOD.current || "…" }));
  }
  const seats = speakers(v);
  if (seats.length) {
    const line = el("p", { class: "speaking", id: "moderator-speaking" },
      el("b", { text: (labels.speaker || ui("speaking_now")) + ": " }), seats.map((s) => seatText(v.room, s)).join(", "));
    const ends = speechEnds(v);
    if (ends) line.append(" ", countdown(ends, "speech-timer"));
    else {
      const key = seats.join(",");
      if (MOD.turn !== key) { MOD.turn = key; MOD.turnStart = Date.now(); }
      const clock = el("span", { class: "count" });
      const tick = () => {
        const s = Math.floor((Date.now() - MOD.turnStart) / 1000);
        clock.textContent = ` ⏱ ${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
      };
      tick();
      clearInterval(moderatorCard.timer);
      moderatorCard.timer = setInterval(tick, 1000);
      line.append(clock);
    }
    card.append(line);
  }
  if (v.voice && v.host) {
    const waiting = v.voice.on && v.voice.waiting;
    card.append(el("p", { class: "muted small", id: "voice-state",
                          text: !v.voice.on ? labels.off : waiting ? labels.waiting : "" }));
    card.append(el("div", { class: "row voice-buttons" },
      el("button", { class: "big" + (MOD.on ? "" : " primary"), id: "voice",
                     text: MOD.on ? ui("voice_off") : ui("voice_on"), onclick: () => modToggle() }),
      MOD.on ? el("button", { class: "big", id: "voice-pause", text: MOD.paused ? labels.resume : labels.pause,
                              onclick: () => modPause() }) : null,
      MOD.on ? el("button", { class: "big", id: "voice-repeat", text: labels.repeat, onclick: () => modRepeat() }) : null));
  }
  return card;
}
