"""The PettingZoo parallel environment: every seat answers each step at once.

One step is one round of the engine's open decisions: the seats that owe an answer (every voter
at a vote, every wolf at the kill, the one seat of most night steps) give it together; the others
answer ``0`` (``wait``, the only action their mask allows). A seat that owes two answers at once
gives the second at the next step. Natural for the simultaneous decisions of every ruleset (the
one-night games' vote, the pack's kill, the day's votes); a sequential night is simply a run of
steps where one seat acts and the others wait, and so is a speaking turn (``speech=True``: the
speaker says one statement a step).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pettingzoo import ParallelEnv

from werewolf.core.decisions import Decision
from werewolf.env.aec import SeatSpaces, Table, agent_name
from werewolf.env.encoding import ENCODING_VERSION
from werewolf.env.speech import MAX_STATEMENTS


class WerewolfParallelEnv(SeatSpaces, ParallelEnv):  # type: ignore[misc]
    """One game as a PettingZoo parallel environment (``werewolf.env.parallel_env``); observations,
    masks, infos and rewards as in ``WerewolfEnv``."""

    metadata = {"name": "werewolf_parallel_v1", "render_modes": [], "encoding_version": ENCODING_VERSION}

    def __init__(self, ruleset: str = "classic", deck: str | tuple[str, ...] | list[str] | None = None,
                 options: Mapping[str, Any] | None = None, seed: int | None = None, lang: str | None = "en",
                 players: int | None = None, render_mode: str | None = None, speech: bool = False,
                 max_statements: int = MAX_STATEMENTS) -> None:
        self.set_table(Table(ruleset, deck, options, seed, lang, players, speech, max_statements), render_mode)
        self.agents: list[str] = []

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_pending"] = None  # the engine's objects: found again in the unpickled game
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if "_pending" in state and hasattr(self.t, "game"):
            self._pending = self._owed()

    def _owed(self) -> dict[int, Decision]:
        """Each seat's first open decision, from the serving queue's position on."""
        t = self.t
        out: dict[int, Decision] = {}
        if t.turn is not None:  # a speaking turn: the speaker alone acts, one statement a step
            out[t.turn.seat] = t.turn
            return out
        if t.game.over:
            return out
        for i in t.queue[t.at:]:
            d = t.request[i]
            if d.seat not in out:
                out[d.seat] = d
        return out

    def _observe(self) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        t = self.t
        owed = self._owed()
        self._pending = owed
        obs: dict[str, Any] = {}
        infos: dict[str, dict[str, Any]] = {}
        for a in self.agents:
            s = int(a[5:])
            d = owed.get(s)
            if d is None:
                obs[a] = {"observation": t.vector(s, None), "action_mask": t.wait_mask}
                infos[a] = t.info(s, None, ["wait"])
            else:
                mask, _, legal = t.legal(d)
                obs[a] = {"observation": t.vector(s, d), "action_mask": mask}
                infos[a] = t.info(s, d, legal)
        return obs, infos

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        self.t.new_game(seed)
        self.agents = list(self.possible_agents)
        return self._observe()

    def step(self, actions: Mapping[str, int]) -> tuple[dict[str, Any], dict[str, float], dict[str, bool],
                                                         dict[str, bool], dict[str, dict[str, Any]]]:
        t = self.t
        owed = self._pending
        turn = t.turn
        if turn is not None and owed.get(turn.seat) is turn:
            t.play(turn, actions.get(agent_name(turn.seat)))
            return self._after(list(self.agents))
        # Answer in seat order; the rest of the request stays in the queue for the next step.
        todo = [t.request[i] for i in t.queue[t.at:] if owed.get(t.request[i].seat) is t.request[i]]
        rest = [i for i in t.queue[t.at:] if owed.get(t.request[i].seat) is not t.request[i]]
        request = t.request
        t.queue = t.queue[:t.at] + [request.index(d) for d in todo] + rest
        for d in todo:
            t.play(d, actions.get(agent_name(d.seat)))
        return self._after(list(self.agents))

    def _after(self, agents: list[str]) -> tuple[dict[str, Any], dict[str, float], dict[str, bool],
                                                 dict[str, bool], dict[str, dict[str, Any]]]:
        t = self.t
        if t.game.over and t.turn is None:
            rewards = {agent_name(s): r for s, r in t.rewards().items()}
            obs, infos = self._observe()
            self.agents = []
            return obs, rewards, {a: True for a in agents}, {a: False for a in agents}, infos
        obs, infos = self._observe()
        return obs, {a: 0.0 for a in agents}, {a: False for a in agents}, {a: False for a in agents}, infos
