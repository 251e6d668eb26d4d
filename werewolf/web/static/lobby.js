// The lobby's seats, the speech timer and "play again" (issue 15: 5, 7, 8). Loaded before app.js;
// its functions run once app.js has defined what they use (S, api, ui, el, toast, key, render, roomPage).
"use strict";

// The words of these screens (the UI chrome's catalogue, as in ui.js).
Object.assign(window.UI.en, {
  sit_here: "Sit here", seats_hint_player: "Tap the seat you sit in: seat numbers decide the speaking order.",
  seats_hint_host: "Move or remove players and bots before the start (a taken seat: the two swap).",
  move_to: "Move to…", remove: "Remove", swap_with: "swap with", speech_time: "Time for each speech",
  speech_time_hint: "When it runs out, the speech ends; the speaker is warned 15 seconds before.",
  speech_left: "Speech time left", speech_hurry: "Time is almost up!", play_again: "Play again now (same seats)", again_lobby: "Play again: lobby first (change seats)",
  speech_timeout: "Time! {seat}'s speaking time ran out.",
  games: "Games in this room", game_n: "Game {n}", replay_of: "Replay", now_playing: "Open (playing now)",
});
Object.assign(window.UI["zh-Hant"], {
  sit_here: "坐這裡", seats_hint_player: "點選你實際坐的座位：座位號決定發言順序。",
  seats_hint_host: "開始前可移動或移除玩家與機器人（選已有人的座位則兩人互換）。",
  move_to: "移到…", remove: "移除", swap_with: "互換", speech_time: "每次發言的時間",
  speech_time_hint: "時間到發言即結束；結束前 15 秒提醒發言者。",
  speech_left: "發言剩餘時間", speech_hurry: "時間快到了！", play_again: "馬上再來一局（座位不變）", again_lobby: "再來一局：先回等候室（可換座位）",
  speech_timeout: "時間到！{seat}的發言時間用完了。",
  games: "本房間的對局", game_n: "第 {n} 局", replay_of: "回放", now_playing: "前往（進行中）",
});
Object.assign(window.UI["zh-Hans"], {
  sit_here: "坐这里", seats_hint_player: "点选你实际坐的座位：座位号决定发言顺序。",
  seats_hint_host: "开始前可移动或移除玩家与机器人（选已有人的座位则两人互换）。",
  move_to: "移到…", remove: "移除", swap_with: "互换", speech_time: "每次发言的时间",
  speech_time_hint: "时间到发言即结束；结束前 15 秒提醒发言者。",
  speech_left: "发言剩余时间", speech_hurry: "时间快到了！", play_again: "马上再来一局（座位不变）", again_lobby: "再来一局：先回等候室（可换座位）",
  speech_timeout: "时间到！{seat}的发言时间用完了。",
  games: "本房间的对局", game_n: "第 {n} 局", replay_of: "回放", now_playing: "前往（进行中）",
});

// -- the create page: the speech time ------------------------------------------------------------------
const SPEECH_TIMES = [30, 60, 90, 120, 180, 300, 0];
const NO_TURNS = ["onuw", "onenight"];  // their discussion has its own clock

function speechTimeField() {
  const select = el("select", { id: "speech-time" });
  const label = el("label", {}, ui("speech_time"), select);
  const hint = el("p", { class: "muted small", text: ui("speech_time_hint") });
  select.addEventListener("change", () => { select.dataset.chosen = "1"; });
  return {
    nodes: [label, hint],
    fill(ruleset) {
      const none = NO_TURNS.includes(ruleset);
      label.hidden = hint.hidden = none;
      const best = 120;
      const keep = select.dataset.chosen ? select.value : String(best);
      select.replaceChildren(...SPEECH_TIMES.map((x) => el("option", { value: String(x),
        text: durationText(x) + (x === best ? ` (${ui("recommended")})` : "") })));
      select.value = keep;
    },
    value() { return label.hidden ? null : +select.value; },
  };
}

// -- the lobby's seats ----------------------------------------------------------------------------------
async function lobbyCall(path, body, token) {
  try { await api("POST", `/api/rooms/${S.room}/${path}`, body, token); }
  catch (err) { toast(err.message); render(); }
}

function lobbySeatsCard(v) {
  const room = v.room, me = v.seat, host = !!S.host;
  const list = el("ol", { class: "seats lobby-seats" });
  for (const s of room.seats) {
    const li = el("li", { class: [s.seat === me ? "me" : "", s.taken ? "" : "free"].join(" "), "data-seat": s.seat },
      el("b", { text: String(s.seat) }),
      el("span", { text: s.name || (s.bot ? "🤖 " + ui("bot") : ui("empty")) }),
      s.seat === me ? el("em", { text: ui("you") }) : null);
    if (!s.taken && me !== null && S.player) {
      li.append(el("button", { class: "small sit", id: `sit-${s.seat}`, type: "button", text: ui("sit_here"),
        onclick: () => lobbyCall("seat", { to: s.seat }, S.player) }));
    }
    if (host && s.taken) {
      const to = el("select", { class: "move-to", id: `move-${s.seat}`, "aria-label": ui("move_to") },
        el("option", { value: "", text: ui("move_to") }),
        room.seats.filter((x) => x.seat !== s.seat).map((x) => el("option", { value: String(x.seat),
          text: `${x.seat}` + (x.taken ? ` ⇄ ${ui("swap_with")}` : "") })));  // names are on the list
      to.addEventListener("change", () => { if (to.value) lobbyCall("seat", { seat: s.seat, to: +to.value }, S.host); });
      li.append(el("span", { class: "seat-tools" }, to, el("button", { class: "small", id: `remove-${s.seat}`,
        type: "button", text: ui("remove"), onclick: () => lobbyCall("remove", { seat: s.seat }, S.host) })));
    }
    list.append(li);
  }
  const hint = host ? ui("seats_hint_host") : me !== null ? ui("seats_hint_player") : null;
  return el("section", { class: "card", id: "seats" }, el("h2", { text: ui("seats") }),
    hint ? el("p", { class: "muted small", text: hint }) : null, list);
}

// -- the speech timer: the speaker's deadline, the same on every phone ------------------------------------
const SPEECH = { timer: null, warned: "" };

function speechClock(v) {
  clearInterval(SPEECH.timer);
  if (!v.speaker_deadline || v.game_over) return null;
  let deadline = v.speaker_deadline;
  const warn = v.speech_warning || 0;
  const mine = (v.speaking || []).includes(v.seat);
  // One's own speech shows one clock: the earlier of the speech's end and the decision's.
  if (mine && v.deadline && v.deadline < deadline) deadline = v.deadline;
  const span = el("span", { class: "count", id: "speech-clock" });
  const card = el("section", { class: "card speech-timer" + (mine ? " mine" : ""), id: "speech-timer" },
    el("b", { text: ui("speech_left") + ": " }), span);
  const tick = () => {
    const left = Math.max(0, Math.ceil(deadline - Date.now() / 1000));
    span.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    const hurry = v.speech_warned || left <= warn;
    card.classList.toggle("hurry", hurry);
    if (hurry && !card.querySelector(".hurry-line"))
      card.append(el("p", { class: "hurry-line", id: "speech-hurry", text: ui("speech_hurry") }));
  };
  tick();
  SPEECH.timer = setInterval(tick, 1000);
  // The speaker's phone buzzes once at the warning (the toggle in the bar turns it off).
  const key = `${S.room}:${deadline}`;
  if (mine && v.speech_warned && SPEECH.warned !== key) {
    SPEECH.warned = key;
    if (typeof buzzOn === "function" && buzzOn() && navigator.vibrate) navigator.vibrate([200, 100, 200]);
  }
  return card;
}

// -- play again -----------------------------------------------------------------------------------------
// A finished game whose host started the next one: this phone follows with the token it holds.
function followNext(v) {
  const next = v.room && v.room.next;
  if (!next || !/^[A-Za-z0-9_-]+$/.test(next)) return false;
  for (const what of ["player", "host", "watch"]) {
    const value = localStorage.getItem(key(S.room, what));
    if (value && !localStorage.getItem(key(next, what))) localStorage.setItem(key(next, what), value);
  }
  if (S.ws) { S.closed = true; S.ws.close(); }
  location.href = "/r/" + next;
  return true;
}

const SERIES = { room: null, games: null, poll: null };

// A finished game a phone watches for long may have left the server's memory while its socket stays open:
// that socket is never told of the next game, so the result screen also asks now and then.
function watchForNext(room) {
  if (SERIES.poll && SERIES.poll.room === room) return;
  if (SERIES.poll) clearInterval(SERIES.poll.timer);
  SERIES.poll = { room, timer: setInterval(() => {
    if (S.room !== room) { clearInterval(SERIES.poll.timer); SERIES.poll = null; return; }
    api("GET", `/api/rooms/${room}`).then((info) => {
      if (info.next && S.view) followNext(Object.assign({}, S.view, { room: info }));
    }).catch(() => {});
  }, 10000) };
}

function seriesCard(v) {
  if (!v.room.next) watchForNext(S.room);
  const card = el("section", { class: "card", id: "series" });
  if (S.host && !v.room.next) {
    // The lobby first (people may change seats, leave, or bots come in), or at once with the same seats.
    const again = (start) => async (e) => {
      card.querySelectorAll("button").forEach((b) => { b.disabled = true; });
      try { await api("POST", `/api/rooms/${S.room}/again`, { start }, S.host); }
      catch (err) { toast(err.message); card.querySelectorAll("button").forEach((b) => { b.disabled = false; }); }
    };
    card.append(el("button", { class: "big primary", id: "again-lobby", text: ui("again_lobby"), onclick: again(false) }),
      el("button", { class: "big", id: "play-again", text: ui("play_again"), onclick: again(true) }));
  }
  if (SERIES.room !== S.room) {
    SERIES.room = S.room;
    SERIES.games = null;
    api("GET", `/api/rooms/${S.room}/games`).then((g) => { SERIES.games = g.games; if (S.view) render(); })
      .catch(() => {});
  }
  if (SERIES.games && SERIES.games.length > 1) {
    card.append(el("h2", { text: ui("games") }), el("ol", { class: "games", id: "games" }, SERIES.games.map((g) =>
      el("li", {}, ui("game_n").replace("{n}", String(g.game)), " · ",
        g.replay ? el("a", { href: `${g.replay}?lang=${LANG}`, text: ui("replay_of") })
                 : el("a", { href: `/r/${g.room}`, text: ui("now_playing") })))));
  }
  return card.childNodes.length ? card : null;
}
