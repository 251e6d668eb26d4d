"""A seat's view as text: what a language model is shown.

Everything comes from the catalogues (``werewolf.i18n``), in the chosen
language: the ruleset's rules in brief (``rules.<ruleset>``), the seat's role
card (as the terminal shows it), the seat's whole log narrated for that seat as
the terminal narrates it (the table's statements as ``werewolf.agents.speech``
renders them), and the open decision with its legal moves under their stable
ids (``werewolf.core.views.option_id``), each with the terminal's label.
"""

from __future__ import annotations

import io

from werewolf.agents import statement_act
from werewolf.agents.speech import render
from werewolf.agents.terminal import TerminalAgent
from werewolf.core.events import Event
from werewolf.core.views import SeatView
from werewolf.i18n import faction_name, has, narrate, normalize_lang, phase_name, role_description, role_name, t
from werewolf.roles import ROLES


class Prompter:
    """Renders seat views as text in one language."""

    def __init__(self, lang: str = "en", structured_only: bool = False) -> None:
        self.lang = normalize_lang(lang)
        # Structured-only: the table's talk as statements rendered in this language, never the words said.
        self.structured_only = structured_only
        # The terminal's labels and questions, without its console (it prints nothing here).
        self.labels = TerminalAgent(self.lang, input=io.StringIO(), output=io.StringIO())

    def t(self, key: str, **fields: object) -> str:
        return t(key, self.lang, **fields)

    def system(self, view: SeatView) -> str:
        """The rules in brief and the seat's role."""
        key = f"rules.{view.ruleset}"
        rules = self.t(key) if has(key, self.lang) else ""
        head = self.t("llm.system", seat=view.seat, players=view.players, rules=rules)
        return head + "\n\n" + self.role(view)

    def role(self, view: SeatView) -> str:
        role = view.role
        if role is None:
            return self.t("llm.no_role")
        faction = ROLES[role].faction if role in ROLES else None
        return self.t("llm.role", role=role_name(role, self.lang),
                      description=role_description(role, self.lang, view.ruleset),
                      faction=faction_name(faction, self.lang) if faction else "?")

    def log(self, view: SeatView) -> str:
        """The seat's whole log, narrated for it, with the phases as headings."""
        lines: list[str] = []
        phase = None
        for e in view.events():
            line = self.event(view, e)
            if line is None:
                continue
            if e.phase != phase:
                phase = e.phase
                lines.append(f"[{phase_name(phase, self.lang)}]")
            lines.append("- " + line)
        if not lines:
            return self.t("llm.log_empty")
        return self.t("llm.log") + "\n" + "\n".join(lines)

    def event(self, view: SeatView, e: Event) -> str | None:
        data = e.as_json(with_audience=False)
        if self.structured_only:
            if e.type == "said":
                return None
            if e.type == "statement":
                return render(statement_act(e), self.lang, speaker=True)
            if e.type in ("speech", "last_words_text") and data.get("text"):
                data = {k: v for k, v in data.items() if k != "text"}  # the turn, not its words
                if e.type == "last_words_text" or data.get("seat") != view.seat:
                    return None
            return narrate(data, self.lang, view.seat)
        if e.type == "said":  # free speech in a game without live speech: the words, verbatim
            return narrate({"type": "speech", "phase": e.phase, "seat": data["seat"], "text": data["text"]},
                           self.lang, view.seat)
        if e.type == "statement":
            if view.live_speech or data.get("parsed"):
                return None  # the words said are in the log (live speech, or a ``said`` event)
            return render(statement_act(e), self.lang, speaker=True)
        return narrate(data, self.lang, view.seat)

    def decision(self, view: SeatView) -> str:
        """The question and its legal moves, one a line: ``- vote:4: Seat 4``."""
        d = view.decision
        assert d is not None
        self.labels.role = view.role
        lines = [self.t("llm.decision", phase=phase_name(view.phase, self.lang), prompt=self.labels.prompt(d)),
                 self.t("llm.options")]
        for oid, move in view.options().items():
            lines.append(f"- {oid}: {self.labels.label(view, d, move)}")
        return "\n".join(lines)

    def act_messages(self, view: SeatView) -> list[dict[str, str]]:
        """The chat messages asking for a move."""
        user = "\n\n".join([self.log(view), self.decision(view), self.t("llm.answer_act")])
        return [{"role": "system", "content": self.system(view)}, {"role": "user", "content": user}]

    def speak_messages(self, view: SeatView) -> list[dict[str, str]]:
        """The chat messages asking for a speech."""
        key = f"part.{view.part}"
        part = self.t(key) if view.part and has(key, self.lang) else self.t("part.discussion")
        ask = self.t("llm.speak", phase=phase_name(view.phase, self.lang), seat=view.seat, part=part)
        user = "\n\n".join([self.log(view), ask, self.t("llm.answer_speak")])
        return [{"role": "system", "content": self.system(view)}, {"role": "user", "content": user}]
