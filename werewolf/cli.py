"""The `werewolf` command."""

from __future__ import annotations

import json
import sys

import click

from werewolf.core.errors import WerewolfError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="werewolf")
def main() -> None:
    """Werewolf (狼人殺): the moderator, the rules and the tools around them."""


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--check", is_flag=True, help="Compare with the file's expect block (exit 1 on a difference).")
def script(file: str, check: bool) -> None:
    """Run a scripted game and print its log as JSON lines."""
    from werewolf import script as sg

    try:
        doc = sg.load(file)
        parsed = sg.parse(doc)
    except WerewolfError as err:
        _fail(str(err))
        return
    out = sg.run(parsed)
    write = sys.stdout.write
    for e in out.events:
        write(json.dumps(e.as_json(), ensure_ascii=False) + "\n")
    sys.stdout.flush()
    if check and parsed.expect is not None:
        diffs = sg.compare(parsed.expect, out)
        if out.error is not None:
            click.echo(out.error, err=True)
        if diffs:
            click.echo(f"{file}: differs from its expect block:", err=True)
            for d in diffs:
                click.echo(f"  - {d}", err=True)
            sys.exit(1)
        sys.exit(0)
    if out.error is not None:
        _fail(out.error)


@main.command()
@click.option("--ruleset", "-r", default=None, help="Only this ruleset.")
def decks(ruleset: str | None) -> None:
    """List every deck (standard decks, advanced decks, presets) with its roles."""
    from collections import Counter

    from werewolf.rulesets import MODULES, get_ruleset

    for name in [ruleset] if ruleset else list(MODULES):
        try:
            rs = get_ruleset(name)
        except WerewolfError as e:
            if ruleset:
                _fail(str(e))
            continue
        click.echo(f"{name}:")
        for deck_id, roles in rs.decks().items():
            counts = Counter(roles)
            desc = ", ".join(f"{r}×{c}" if c > 1 else r for r, c in counts.items())
            click.echo(f"  {deck_id:<28} {len(roles):>2} cards  {desc}")


@main.command("play")
@click.option("--ruleset", "-r", default="classic", show_default=True, help="The ruleset.")
@click.option("--deck", "-d", default=None,
              help="A deck id (see `werewolf decks`) or comma-separated role ids. Default: the standard deck.")
@click.option("--players", "-n", type=int, default=None, help="Number of players of the standard deck (default 12).")
@click.option("--seat", "-s", type=int, default=None, help="Your seat (default: drawn from the seed).")
@click.option("--seed", type=int, default=None, help="Seed of the deal and the bots (default: random, shown).")
@click.option("--lang", "-l", type=click.Choice(["en", "zh-Hant", "zh-Hans"]), default="en", show_default=True,
              help="Language of the game.")
@click.option("--bots", type=click.Choice(["heuristic", "random"]), default="heuristic", show_default=True,
              help="How the other seats play: heuristic bots use what they know and talk; random ones do not.")
@click.option("--discussion", type=click.IntRange(min=0), default=None,
              help="Seconds of the one-night discussion (default: the ruleset's; 0: no limit).")
def play_command(ruleset: str, deck: str | None, players: int | None, seat: int | None, seed: int | None,
                 lang: str, bots: str, discussion: int | None) -> None:
    """Take a seat in a game against bots."""
    from werewolf import play as pl
    from werewolf.i18n import t

    options = {} if discussion is None else {"discussion_seconds": discussion or None}
    try:
        pl.run(pl.make_setup(ruleset, deck, players, seed, options), seat=seat, lang=lang, bots=bots,
               input=sys.stdin, output=sys.stdout)
    except WerewolfError as err:
        _fail(str(err))
    except EOFError:
        click.echo(t("ui.eof", lang), err=True)
        sys.exit(1)


@main.command("serve")
@click.option("--host", default="0.0.0.0", show_default=True,
              help="Address to listen on (0.0.0.0: every network, so phones can join; 127.0.0.1: this machine).")
@click.option("--port", "-p", type=int, default=8000, show_default=True, help="Port to listen on.")
@click.option("--database", default="werewolf.sqlite", show_default=True,
              help="A SQLite file, or a database URL such as postgresql://user:pass@host/db.")
@click.option("--timeout", type=float, default=600.0, show_default=True,
              help="Seconds a player has for a decision before its default is taken (0: wait for ever).")
@click.option("--public-url", default=None, help="The address phones use (for join links and QR codes).")
@click.option("--keep-finished", type=click.FloatRange(min=0), default=30.0, show_default=True, metavar="MINUTES",
              help="Minutes a finished game stays in memory after its end or its last request; then it is "
                   "replayed from the database when asked for (nothing is lost).")
@click.option("--lobby-hours", type=click.FloatRange(min=0), default=24.0, show_default=True, metavar="HOURS",
              help="Hours a room nobody started lives after its creation or its last join; then it is closed "
                   "(its link answers 410 expired) (0: lobbies never expire).")
@click.option("--pace", type=(float, float), default=(4.0, 9.0), show_default=True, metavar="MIN MAX",
              help="Seconds every night step lasts, drawn between MIN and MAX, whether its role is played, "
                   "dead or absent (so that timing tells nothing); a room may set its own.")
def serve_command(host: str, port: int, database: str, timeout: float, public_url: str | None,
                  keep_finished: float, lobby_hours: float, pace: tuple[float, float]) -> None:
    """Serve the web app: rooms, phones, the spoken moderator, the JSON API (/docs)."""
    try:
        import fastapi  # noqa: F401
        import sqlalchemy  # noqa: F401
        import uvicorn  # noqa: F401

        from werewolf.web import serve
        from werewolf.web.pacing import Pace
    except ImportError as err:
        _fail(f"the web app needs its extra: pip install -e '.[web]' ({err})")
        return
    try:
        Pace(*pace)
    except ValueError as err:
        _fail(f"--pace: {err}")
        return
    serve(host=host, port=port, database=database, timeout=timeout, public_url=public_url,
          keep_finished=keep_finished * 60, lobby_idle=lobby_hours * 3600, pace=pace)


def _fail(message: str) -> None:
    click.echo(message.replace("\n", " "), err=True)
    sys.exit(2)


@main.command()
@click.option("--ruleset", "-r", default="classic", show_default=True, help="The ruleset.")
@click.option("--deck", "-d", default=None, help="A deck id (see `werewolf decks`) or comma-separated role ids.")
@click.option("--players", "-n", type=int, default=None, help="Players of the standard deck (when no --deck).")
@click.option("--options", default=None, help='Rule options as a JSON object, e.g. \'{"sheriff": false}\'.')
@click.option("--bots", default="random", show_default=True,
              help="random | heuristic | a kind per side: wolves=heuristic,village=random (sides: wolves, "
                   "village, others; unnamed sides play random).")
@click.option("--games", "-g", type=int, default=1000, show_default=True, help="How many games.")
@click.option("--seed", type=int, default=0, show_default=True, help="Game i is seeded from (seed, i).")
@click.option("--jobs", "-j", type=int, default=1, show_default=True, help="Worker processes (or Ray CPUs).")
@click.option("--out", default=None, help="Write the statistics to FILE (.json or .csv).")
@click.option("--plot", default=None, help="Draw win rates and game lengths to FILE (PNG).")
@click.option("--logs", default=None, help="Keep every game's log, one JSON line per game, in FILE.")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Where games run: this machine's processes, or Ray.")
@click.option("--address", default=None, help="An existing Ray cluster's address (with --backend ray).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def simulate(ruleset: str, deck: str | None, players: int | None, options: str | None, bots: str, games: int,
             seed: int, jobs: int, out: str | None, plot: str | None, logs: str | None, backend: str,
             address: str | None, quiet: bool) -> None:
    """Play many games between bots and report win rates, game lengths, deaths and rules fired."""
    from werewolf.sim import command

    try:
        config = command.make_config(ruleset, deck, players, options, bots, games, seed, jobs, backend, address)
        status = command.run(config, out=out, plot=plot, logs=logs, quiet=quiet)
    except WerewolfError as err:
        _fail(str(err))
    sys.exit(status)


if __name__ == "__main__":
    main()
