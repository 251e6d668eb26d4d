// The pack decides together, interrupts are buttons (werewolf.web.pack): the wolves' card at the knife,
// their chat in the private log area, and a seat's any-moment buttons (self-destruct, duel).
// The words come narrated from the server (view.text.pack, .pack_why, .interrupts); app.js calls these.
"use strict";

const PACK = { draft: "", sending: false };

async function packPost(what, body) {
  if (PACK.sending) return;
  PACK.sending = true;
  try { await seatPost(what, body); }
  catch (err) { toast(err.message); }
  finally { PACK.sending = false; }
}

// The knife: every voice's pick as the pack sees it now, the seats to pick, and "confirm". `d`: the
// kill decision's words (its options with their labels); null once the seat's pick is given.
function packPanel(v, t, d) {
  const words = t.pack || {};
  const mine = v.pack[String(v.seat)];
  const ready = new Set(v.pack_ready || []);
  const bots = new Set(v.room.seats.filter((s) => s.bot).map((s) => s.seat));
  const box = el("div", { class: "pack", id: "pack" }, el("h2", { text: words.title }),
    el("p", { class: "muted small", text: words.hint }));
  if (v.pack_why && t.pack_why) {
    const r = t.pack_why;
    box.append(el("p", { class: "pack-why", id: "pack-why", text: r.text }),
      r.quote ? el("p", { class: "muted small", text: `${r.book_title} · ${r.section}: 「${r.quote}」` }) : null);
  }
  const list = el("ul", { class: "pack-picks", id: "pack-picks" });
  for (const [s, target] of Object.entries(v.pack).sort((a, b) => a[0] - b[0])) {
    const seat = Number(s);
    const who = seatText(v.room, seat) + (seat === v.seat ? ` (${words.you})` : "");
    const what = typeof target === "number" ? seatText(v.room, target) : words.none;
    const marks = [ready.has(seat) ? `✓ ${words.ready}` : "", bots.has(seat) ? words.bot : ""].filter(Boolean);
    list.append(el("li", { class: "pack-pick" + (ready.has(seat) ? " ready" : ""), "data-seat": s,
                           "data-target": typeof target === "number" ? String(target) : "" },
      el("b", { text: who }), " → ", el("span", { text: what }),
      marks.length ? el("em", { text: marks.join(" · ") }) : null));
  }
  box.append(list);
  // Confirmed picks that differ end nothing yet: the pack is told to agree before the time is up.
  if (v.pack_split && words.split) box.append(el("p", { class: "pack-split", id: "pack-split", role: "alert", text: words.split }));
  if (!d) return box;
  // Alone among bots, a person's pick is the pack's: one tap. With other people, a tap shows the pick to
  // them and "confirm" makes it final (until changed again).
  const alone = Object.keys(v.pack).filter((s) => !bots.has(Number(s))).length === 1;
  box.append(el("div", { class: "options seats-grid" }, d.options.map((o) => {
    const on = typeof mine === "number" && o.move.target === mine;
    return el("button", { class: "big option pick" + (on ? " on" : "") + (typeof o.move.target === "number" ? "" : " wide"),
      "data-move": JSON.stringify(o.move), text: optionLabel(v, o),
      onclick: () => packPost("pick", { target: o.move.target, confirm: alone }) });
  })));
  if (!alone) {
    box.append(el("button", { class: "big primary", id: "pack-confirm", text: words.confirm,
      disabled: ready.has(v.seat), onclick: () => packPost("pick", { target: mine, confirm: true }) }));
  }
  return box;
}

// The pack's lines (only ever sent to the pack), and online, at the knife, a line to send.
function packChatCard(v, t) {
  if (v.pack_chat === null || v.pack_chat === undefined) return null;
  const words = t.pack || {};
  const list = el("ol", { class: "log pack-chat", id: "pack-chat" },
    [...v.pack_chat].reverse().map((x) => el("li", { text: `${seatText(v.room, x.seat)}: ${x.text}` })));
  const card = el("section", { class: "card pack-log" }, el("h2", { text: words.chat }), list);
  if (v.pack && v.room.mode === "online") {
    const had = document.activeElement && document.activeElement.id === "pack-say";
    const input = el("input", { id: "pack-say", maxlength: "300", placeholder: words.say });
    input.value = PACK.draft;
    input.addEventListener("input", () => { PACK.draft = input.value; });
    const send = () => {
      const text = input.value.trim();
      if (!text) return;
      PACK.draft = "";
      packPost("pack_chat", { text });
    };
    input.addEventListener("keydown", (e) => { if (e.key === "Enter") send(); });
    card.append(el("div", { class: "row pack-row" }, input,
      el("button", { class: "small", id: "pack-send", text: words.send, onclick: send })));
    if (had) queueMicrotask(() => input.focus());
  }
  return card;
}

// The seat's any-moment buttons: pressed, the move waits for the next moment the rules allow (nobody
// waits for it). A mistaken one costs a life (a failed duel kills the knight): the first tap only asks to
// tap again (ARM_MS) to arm it; armed, the card says so in red at its top with a button that takes it back.
const ARM_MS = 5000;

function interruptCard(v, t) {
  if (!v.interrupts || !t.interrupts) return null;
  const card = el("section", { class: "card interrupts", id: "interrupts" });
  v.interrupts.forEach((x, i) => {
    const words = t.interrupts[i] || { options: [] };
    const armed = x.armed ? JSON.stringify(x.armed) : null;
    const chosen = armed ? words.options.find((o) => JSON.stringify(o.move) === armed) : null;
    if (armed) {
      card.classList.add("is-armed");
      card.append(el("div", { class: "armed-banner", id: "armed", role: "alert" },
        el("p", { class: "armed", text: `⚠ ${words.title}${chosen && chosen.label !== words.title ? " · " + chosen.label : ""}` }),
        el("p", { class: "small", text: words.armed }),
        el("button", { class: "big primary", id: "disarm", text: ui("disarm"),
                       onclick: () => { PACK.arming = null; packPost("intent", x.no); } })));
    }
    card.append(el("h2", { text: words.title }), el("p", { class: "muted small", text: words.hint }));
    card.append(el("div", { class: "options" + (x.options.length > 4 ? " seats-grid" : "") }, words.options.map((o) => {
      const move = JSON.stringify(o.move);
      const on = armed === move;
      const asking = !on && PACK.arming && PACK.arming.move === move && Date.now() < PACK.arming.until;
      return el("button", { class: "big interrupt" + (on ? " on" : "") + (asking ? " confirming" : ""),
        "data-move": move, text: asking ? `${ui("arm_again")} ${o.label}` : o.label, onclick: () => {
          if (on) { PACK.arming = null; packPost("intent", x.no); return; }  // tapped when armed: taken back
          if (!asking) {  // the first tap: tap again to arm
            PACK.arming = { move, until: Date.now() + ARM_MS };
            clearTimeout(PACK.armTimer);
            PACK.armTimer = setTimeout(() => { PACK.arming = null; if (S.view) render(); }, ARM_MS);
            render();
            return;
          }
          PACK.arming = null;
          clearTimeout(PACK.armTimer);
          packPost("intent", o.move);
        } });
    })));
  });
  return card;
}
