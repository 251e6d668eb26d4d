"""A person at a terminal: the seat's narration, role card and numbered menus.

``TerminalAgent`` shows its player only what ``Event.visible_to`` allows for
its seat, narrated in the player's language (``werewolf.i18n``); once the
player is known to be dead, only the public log. Decisions come as numbered
menus built from ``Decision.options()`` (keyed by seat number; ``menu_keys``); interrupts (self-destruct, duel) as a
quick y/N. Input and output are plain text streams, so tests can drive it.
"""

from __future__ import annotations

import select
import sys
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from rich.columns import Columns
from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from werewolf.agents import Agent, statement_act
from werewolf.agents.speech import render
from werewolf.core.decisions import AnyOf, Decision, Move, Pair, Subset
from werewolf.core.errors import IllegalMove
from werewolf.core.events import Event
from werewolf.core.views import SeatView
from werewolf.i18n import faction_name, has, narrate, normalize_lang, phase_name, role_description, role_name, t
from werewolf.printable import scrub
from werewolf.roles import ROLES

# Menus longer than this are laid out in columns.
LONG_MENU = 14

STYLES = {"night": "bold blue", "day": "bold yellow", "death": "red", "announce": "red", "exile": "red",
          "game_over": "bold green", "role": "bold", "took": "bold", "transformed": "bold magenta"}


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def clock_text(seconds: float) -> str:
    """``m:ss``, rounded up: a clock never shows 0:00 while time is left."""
    whole = max(0, int(-(-seconds // 1)))
    return f"{whole // 60}:{whole % 60:02d}"


SEAT_ARGS = ("target", "seat")


def _letters(i: int) -> str:
    """``a`` … ``z``, then ``aa``, ``ab`` …: keys for options that name no single seat."""
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        out = chr(ord("a") + r) + out
    return out


def _one_seat(move: Move) -> int | None:
    """The seat an option names, when it names one seat and nothing else."""
    args = [(k, v) for k, v in move.items() if k not in ("act", "seat", "when")]
    if len(args) != 1:
        return None
    name, value = args[0]
    return value if name in SEAT_ARGS and isinstance(value, int) and not isinstance(value, bool) else None


def _nothing(value: Any) -> bool:
    """Whether an option's value is doing nothing (no target, no, none of the seats)."""
    return value is None or value is False or (isinstance(value, tuple) and not value)


def menu_keys(decision: Decision, opts: Sequence[Move]) -> list[tuple[str, Move]]:
    """Each option with the key that chooses it: the seat number for an option naming one seat
    (so that after a death seat 6 is still 6), ``0`` for doing nothing, letters for the rest."""
    seats = [_one_seat(o) for o in opts]
    taken = [s for s in seats if s is not None]
    out: list[tuple[str, Move]] = []
    letters = 0
    for o, seat in zip(opts, seats):
        if seat is not None and taken.count(seat) == 1:
            out.append((str(seat), o))
        elif _nothing(decision.value(o)):
            out.append(("0", o))
        else:
            out.append((_letters(letters), o))
            letters += 1
    return out


class TerminalAgent(Agent):
    """A human player reading a terminal (or any pair of text streams), from its seat's view."""

    def __init__(self, lang: str = "en", input: TextIO | None = None, output: TextIO | None = None, *,
                 console: Console | None = None) -> None:
        self.lang = normalize_lang(lang)
        self.input = input if input is not None else sys.stdin
        self.console = console or Console(file=output, highlight=False, emoji=False)
        self.shown = (0, 0)  # how much of the seat's public and private logs has been narrated
        self.dead = False
        self.role: str | None = None

    def t(self, key: str, **fields: Any) -> str:
        return t(key, self.lang, **fields)

    def seat_label(self, seat: int | None) -> str:
        return self.t("fmt.none") if seat is None else self.t("fmt.seat", n=seat)

    # -- what the seat sees ---------------------------------------------------------
    def update(self, view: SeatView) -> None:
        """Narrate everything of this seat's view that it has not been shown yet."""
        for e in view.events_since(*self.shown):
            if not (self.dead and e.to is not None):
                self.show_event(view, e, view.seat)
        self.shown = (view.public.stop, view.private.stop)

    def show_event(self, view: SeatView, e: Event, seat: int) -> None:
        if e.type == "roles":
            return  # the final summary shows every role
        if e.type == "statement":
            # What a seat said; live speech shows its text (the speech event) instead.
            if not view.live_speech:
                self.console.print(Text(render(statement_act(e), self.lang, speaker=True), style="italic"),
                                   soft_wrap=True)
            return
        if e.type in ("night", "day"):
            self.console.rule(phase_name(e.phase, self.lang), style=STYLES[e.type])
        elif e.type == "game_over":
            self.console.rule(self.t("ui.game_over"), style=STYLES[e.type])
        text = narrate(e.as_json(with_audience=False), self.lang, seat)
        if text:
            self.console.print(Text(text, style=STYLES.get(e.type, "")), soft_wrap=True)
        if e.type in ("role", "took") and e.data.get("seat") == seat:
            self.role = e.data.get("role")
            self.role_card(seat, view.ruleset)
        if not self.dead and e.to is None and (
                (e.type == "death" and e.data.get("seat") == seat)
                or (e.type == "announce" and seat in e.data.get("seats", ()))):
            self.dead = True
            self.console.print(Text(self.t("ui.dead"), style="dim"), soft_wrap=True)

    def role_card(self, seat: int, ruleset: str | None = None) -> None:
        role = self.role
        if role is None:
            return
        body = Text()
        body.append(self.t("ui.role_line", seat=self.seat_label(seat), role=role_name(role, self.lang)), style="bold")
        body.append("\n" + role_description(role, self.lang, ruleset))
        faction = ROLES[role].faction if role in ROLES else None
        if faction is not None:
            body.append("\n" + self.t("ui.side", faction=faction_name(faction, self.lang)), style="dim")
        self.console.print(Panel(body, title=self.t("ui.role_card"), expand=False))

    # -- decisions ------------------------------------------------------------------
    def act(self, view: SeatView) -> Move | None:
        self.update(view)
        decision = view.decision
        if decision is None:
            return None
        opts = decision.options()
        if not opts:
            return None
        if decision.interrupt:
            return self.ask_interrupt(view, decision, opts)
        if decision.act == "speak":  # live play: a speech, typed
            self.header(view, decision)
            text = scrub(self.read(self.prompt(decision) + " "))  # (what a terminal lets through: no escapes)
            return {"act": "speak", "text": text} if text else {"act": "speak", "pass": True}  # empty: a pass
        return self.menu(view, decision, opts, self.prompt(decision))

    def discuss(self, view: SeatView, left: float | None, first: bool) -> Move | None:
        """A round of the one-night discussion: a statement, or an empty line when ready to vote.

        ``left``: seconds of talk left (None: no limit); None comes back when they run out first.
        """
        self.update(view)
        if first:
            self.console.print(Text(self.t("ui.talk_open") if left is None else
                                    self.t("ui.talk_clock", time=clock_text(left)), style="bold"), soft_wrap=True)
        elif left is not None:
            self.console.print(Text(self.t("ui.talk_left", time=clock_text(left)), style="dim"), soft_wrap=True)
        line = self.read_within(self.t("ui.talk_prompt"), left)
        if line is None:
            self.time_up()
            return None
        return {"act": "speak", "text": scrub(line) or None}

    def pack_picks(self, picks: Mapping[int, int | None]) -> None:
        """The pack's other voices and whom each would kill, before the person chooses (they follow)."""
        if not picks:
            return
        sep = self.t("fmt.list_sep")
        said = sep.join(self.t("ui.pack.terminal_pick", seat=self.seat_label(s),
                               target=self.seat_label(t) if t is not None else self.t("ui.pack.none"))
                        for s, t in sorted(picks.items()))
        self.console.print(Text(self.t("ui.pack.terminal", picks=said), style="bold magenta"), soft_wrap=True)

    def voice_rule(self) -> None:
        """Why a wolf who self-destructed today still names the victim (the rule book's sentence)."""
        from werewolf.i18n.rules import explain

        r = explain("self_destructed_wolf_votes_knife", self.lang)
        self.console.print(Text(f"{r['text']} ({r['book_title']} · {r['section']}: 「{r['quote']}」)",
                                style="magenta"), soft_wrap=True)

    def time_up(self) -> None:
        self.console.print(Text(self.t("ui.time_up"), style="bold red"), soft_wrap=True)

    def rejected(self, error: IllegalMove) -> None:
        """The engine refused the last answer: say why (the caller asks again)."""
        self.console.print(Text(self.t("ui.illegal", rule=error.rule), style="red"), soft_wrap=True)

    def prompt(self, decision: Decision) -> str:
        if isinstance(decision, AnyOf):
            return self.t("prompt.any_of", acts=self.t("fmt.list_sep").join(self.act_name(a) for a in decision.acts))
        for key in (f"prompt.{decision.act}.{self.role}", f"prompt.{decision.act}"):
            if has(key, self.lang):
                return self.t(key)
        return self.act_name(decision.act)

    def act_name(self, act: str) -> str:
        key = f"act.{act}"
        return self.t(key) if has(key, self.lang) else act

    def header(self, view: SeatView, decision: Decision) -> None:
        act = self.t("fmt.list_sep").join(self.act_name(a) for a in decision.acts)
        self.console.rule(self.t("ui.menu_title", phase=phase_name(view.phase, self.lang), act=act),
                          style="cyan", align="left")

    def menu(self, view: SeatView, decision: Decision, opts: Sequence[Move], prompt: str) -> Move:
        """A menu whose keys are seat numbers where an option names one seat, ``0`` for none and
        letters for the rest; a choice of several seats is typed as the seats themselves."""
        self.header(view, decision)
        self.console.print(Text(prompt, style="bold"), soft_wrap=True)
        several = isinstance(decision, (Pair, Subset))
        keyed = menu_keys(decision, opts)
        if several:
            seats = getattr(decision, "targets", ())
            self.console.print(self.t("ui.seats_from", seats=self.t("fmt.list_sep").join(
                self.seat_label(s) for s in seats)), soft_wrap=True)
            keyed = [(k, o) for k, o in keyed if k == "0"]
        items = [f"{k}) {self.label(view, decision, o)}" for k, o in keyed]
        if len(items) > LONG_MENU:
            self.console.print(Columns(items, padding=(0, 3)))
        else:
            for item in items:
                self.console.print(item)
        if several:
            self.console.print(Text(self.t("ui.seats_hint"), style="dim"), soft_wrap=True)
        by_key = dict(keyed)
        keys = self.t("fmt.list_sep").join(k for k, _ in keyed) if keyed else ""
        while True:
            answer = self.read(self.t("ui.choose_seats" if several else "ui.choose")).strip().lower()
            if answer in by_key:
                return by_key[answer]
            if several:
                move = self.seats_move(decision, opts, answer)
                if move is not None:
                    return move
            self.console.print(Text(self.t("ui.bad_seats" if several else "ui.bad_choice", keys=keys),
                                    style="red"), soft_wrap=True)

    def seats_move(self, decision: Decision, opts: Sequence[Move], answer: str) -> Move | None:
        """Seat numbers typed for a choice of several seats: ``"3 7"``, ``3,7``, ``3、7`` (one seat
        alone where fewer may be chosen)."""
        parts = answer.replace(",", " ").replace("、", " ").replace("，", " ").split()
        if not parts or not all(p.isdigit() for p in parts):
            return None
        want = sorted(int(p) for p in parts)
        arg = getattr(decision, "arg", "targets")
        for o in opts:
            v = o.get(arg)
            if isinstance(v, list) and v and sorted(v) == want:
                return o
        return None

    def ask_interrupt(self, view: SeatView, decision: Decision, opts: Sequence[Move]) -> Move | None:
        """A rare, normally declined action: y/N, then the target if it needs one."""
        yes = [o for o in opts if decision.value(o) not in (None, False)]
        no = next((o for o in opts if decision.value(o) in (None, False)), None)
        if not yes:
            return no
        self.header(view, decision)
        answer = self.read(self.prompt(decision) + self.t("ui.yes_no")).strip().lower()
        words = {w.strip().lower() for w in self.t("ui.yes_words").split(",") if w.strip()}
        if answer not in words:
            return no
        if len(yes) == 1:
            return yes[0]
        return self.menu(view, decision, yes, self.prompt(decision))

    def read(self, prompt: str) -> str:
        self.show_prompt(prompt)
        return self.next_line()

    def read_within(self, prompt: str, timeout: float | None) -> str | None:
        """A line of input, or None when ``timeout`` seconds pass first. Only a terminal is timed:
        lines already buffered from a pipe or a file would look to ``select`` like no input at all."""
        self.show_prompt(prompt)
        if timeout is not None and _isatty(self.input):
            ready, _, _ = select.select([self.input], [], [], max(0.0, timeout))
            if not ready:
                self.console.print()
                return None
        return self.next_line()

    def show_prompt(self, prompt: str) -> None:
        self.console.print(Text(prompt, style="bold cyan"), end="")
        self.console.file.flush()

    def next_line(self) -> str:
        line = self.input.readline()
        if not line:
            self.console.print()
            raise EOFError("no more input")
        if not _isatty(self.input):
            self.console.print(line.rstrip("\r\n"))  # echo piped input, as a terminal would
        return line

    # -- option labels ----------------------------------------------------------------
    def label(self, view: SeatView, decision: Decision, move: Move) -> str:
        act = str(move.get("act"))
        args = {k: v for k, v in move.items() if k not in ("act", "seat", "when")}
        alternatives = isinstance(decision, AnyOf)
        if args.get("value") is False or (args and all(v is None for v in args.values())):
            if alternatives:
                return self.t("option.pass")
            kind = "no" if "value" in args else "none"
            key = f"option.{kind}.{act}"
            return self.t(key) if has(key, self.lang) else self.t(f"option.{kind}")
        if act == "explode" and args.get("target") is not None:
            return self.t("option.explode_target", target=self.seat_label(args["target"]))
        if not args or args == {"value": True}:
            if act == "save":
                victim = self.victim(view)
                if victim is not None:
                    target = self.t("fmt.yourself") if victim == view.seat else self.seat_label(victim)
                    return self.t("option.save_target", target=target)
            key = f"option.yes.{act}"
            if has(key, self.lang):
                return self.t(key)
            return self.act_name(act) if alternatives else self.t("option.yes")
        text = self.t("fmt.list_sep").join(self.arg_text(view, k, v) for k, v in args.items())
        return self.t("option.act", act=self.act_name(act), arg=text) if alternatives else text

    def arg_text(self, view: SeatView, name: str, value: Any) -> str:
        if value is None:
            return self.t("fmt.none")
        if name in ("target", "seat"):
            if value == view.seat:
                return self.t("fmt.seat_yourself", seat=self.seat_label(value))
            return self.seat_label(value)
        if name == "card":
            return self.card_label(view, value)
        if name == "cards" and isinstance(value, list):
            return self.t("fmt.pair", a=self.card_label(view, value[0]), b=self.card_label(view, value[1]))
        if isinstance(value, list) and not value:
            return self.t("option.none")
        if isinstance(value, list) and len(value) == 2:
            return self.t("fmt.pair", a=self.seat_label(value[0]), b=self.seat_label(value[1]))
        if isinstance(value, list):
            return self.t("fmt.list_sep").join(self.seat_label(v) for v in value)
        key = f"value.{name}.{value}"
        return self.t(key) if has(key, self.lang) else str(value)

    def card_label(self, view: SeatView, n: int) -> str:
        """A centre card, with its role when this seat has been shown the cards."""
        for e in reversed(list(view.private)):
            if e.type == "bottom_cards" and e.data.get("seat") == view.seat:
                cards = e.data.get("cards") or []
                if 1 <= n <= len(cards):
                    return self.t("fmt.card_role", n=n, role=role_name(cards[n - 1], self.lang))
                break
        return self.t("fmt.card", n=n)

    def victim(self, view: SeatView) -> int | None:
        """Tonight's victim as shown to this seat (the witch), if any."""
        for e in reversed(list(view.private)):
            if e.phase != view.phase:
                break
            if e.type == "victim" and e.data.get("seat") == view.seat:
                target = e.data.get("target")
                return target if isinstance(target, int) else None
        return None

    # -- the end ------------------------------------------------------------------------
    def finish(self, view: SeatView) -> None:
        """The winners, and every role (the public ``roles`` event at the game's end)."""
        self.update(view)
        result = view.result
        winners: list[int] = []
        if result is not None:
            teams, winners = result
            if teams:
                names = self.t("fmt.list_sep").join(self.team(x) for x in teams)
                self.console.print(Text(self.t("ui.winners", teams=names), style="bold green"))
            else:
                self.console.print(Text(self.t("ui.draw"), style="bold"))
            won = view.seat in winners
            self.console.print(Text(self.t("ui.you_won" if won else "ui.you_lost"),
                                    style="bold green" if won else "bold red"))
        roles = self.final_roles(view)
        if roles:
            table = Table(title=self.t("ui.roles_title"))
            table.add_column(self.t("ui.col_seat"))
            table.add_column(self.t("ui.col_role"))
            table.add_column(self.t("ui.col_result"))
            for s, r in sorted(roles.items()):
                label = self.seat_label(s)
                if s == view.seat:
                    label = self.t("ui.you_mark", seat=label)
                outcome = self.t("ui.won") if s in winners else self.t("ui.lost") if result else ""
                table.add_row(label, role_name(r, self.lang), outcome)
            self.console.print(table)

    def team(self, team: str) -> str:
        key = f"team.{team}"
        return self.t(key) if has(key, self.lang) else team

    def final_roles(self, view: SeatView) -> Mapping[int, str]:
        for e in reversed(list(view.public)):
            if e.type == "roles" and e.to is None:
                return {int(s): r for s, r in e.data.get("roles", {}).items()}
        return {}
