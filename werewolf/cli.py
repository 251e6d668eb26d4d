"""The `werewolf` command."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from werewolf.core.errors import WerewolfError

AGENT_HELP = ("Who plays some seats: SEATS=KIND, repeatable. SEATS: seat numbers and/or sides (wolves, village, "
              "others: the side of the dealt card) or all, comma-separated; KIND: random, heuristic, llm:MODEL "
              "(OPENAI_BASE_URL, OPENAI_API_KEY) or module.path:Class (your Agent subclass). Seats no rule names "
              "play as the bots say.")
ENDPOINTS_HELP = ("A TOML file of named LLM servers ([endpoints.NAME] base_url, key_env, settings), for kinds "
                  "llm:MODEL@NAME; keys come from the environment (docs/llm.md).")
STRUCTURED_HELP = ("Pass the table only the statements read from what a seat says, never its words (default: "
                   "LLM seats read the words verbatim, bots the statements).")
RUN_DIR_HELP = ("Keep every finished game's record in DIR/games.jsonl as it finishes; run the same command again "
                "to continue a run that was stopped (docs/datasets.md).")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="werewolf")
def main() -> None:
    """Werewolf (狼人殺): the moderator, the rules and the tools around them."""


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--check", is_flag=True, help="Compare with the file's expect block (exit 1 on a difference).")
def script(file: str, check: bool) -> None:
    """Run a scripted game and print its log as JSON lines.

    The file format, the acts and the log: docs/scripted-games.md (`werewolf rules scripted-games`)."""
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
    """List every deck (standard decks, advanced decks, presets) with its roles, as --deck accepts them."""
    from werewolf.play import deck_spec
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
            desc = deck_spec(roles)  # the id and this list are both accepted by --deck
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
@click.option("--agent", "agents", multiple=True, metavar="SEATS=KIND", help=AGENT_HELP)
@click.option("--transcripts", default=None, metavar="DIR",
              help="Keep the LLM seats' calls (prompt, reply, tokens, latency) in DIR/play-<seed>.jsonl.")
@click.option("--endpoints", default=None, metavar="FILE.toml", help=ENDPOINTS_HELP)
@click.option("--structured-only", is_flag=True, help=STRUCTURED_HELP)
def play_command(ruleset: str, deck: str | None, players: int | None, seat: int | None, seed: int | None,
                 lang: str, bots: str, discussion: int | None, agents: tuple[str, ...],
                 transcripts: str | None, endpoints: str | None, structured_only: bool) -> None:
    """Take a seat in a game against bots."""
    from werewolf import play as pl
    from werewolf.i18n import t

    options = {} if discussion is None else {"discussion_seconds": discussion or None}
    try:
        pl.run(pl.make_setup(ruleset, deck, players, seed, options), seat=seat, lang=lang, bots=bots,
               input=sys.stdin, output=sys.stdout, agents=agents, transcripts=transcripts, endpoints=endpoints,
               structured_only=structured_only)
    except WerewolfError as err:
        _fail(str(err))
    except EOFError:
        click.echo(t("ui.eof", lang), err=True)
        sys.exit(1)


@main.command("serve")
@click.option("--host", default="0.0.0.0", show_default=True,
              help="Address to listen on (0.0.0.0: every network, so phones can join; 127.0.0.1: this machine).")
@click.option("--port", "-p", type=click.IntRange(1, 65535), default=8000, show_default=True, help="Port to listen on.")
@click.option("--database", default="werewolf.sqlite", show_default=True,
              help="A SQLite file, or a database URL such as postgresql://user:pass@host/db.")
@click.option("--timeout", type=click.FloatRange(0, 7 * 86400), default=600.0, show_default=True,
              help="Seconds a player has for a decision before its default is taken (0: wait for ever; at "
                   "most a week).")
@click.option("--public-url", default=None, callback=lambda _ctx, _param, v: _public_url(v),
              help="The address phones use (join links and QR codes); default: this machine's address on "
                   "its network, with --port.")
@click.option("--keep-finished", type=click.FloatRange(0, 7 * 24 * 60), default=30.0, show_default=True,
              metavar="MINUTES",
              help="Minutes a finished game a phone still watches stays in memory after its end or its last "
                   "request (one no phone watches leaves within a minute); then it is replayed from the "
                   "database when asked for (nothing is lost).")
@click.option("--lobby-hours", type=click.FloatRange(0, 30 * 24), default=24.0, show_default=True, metavar="HOURS",
              help="Hours a room nobody started lives after its creation or its last join; then it is closed "
                   "(its link answers 410 expired) (0: lobbies never expire).")
@click.option("--limits", default=None, metavar="LIMITS",
              help="Body size and per-address rate limits: 'off' (no rate limits), or pairs such as "
                   "'create=20/minute,join=60/minute,auth=30/minute,pack=300/minute,sockets=120/minute,body=65536,"
                   "lobbies=5000' "
                   "(the defaults; lobbies: open lobbies one server holds, over it a room's creation is 503).")
@click.option("--log-level", type=click.Choice(["critical", "error", "warning", "info", "debug", "trace"]),
              default="info", show_default=True, help="How much the server logs (tokens never appear).")
@click.option("--pace", type=(float, float), default=(4.0, 9.0), show_default=True, metavar="MIN MAX",
              help="Seconds every night step lasts, drawn between MIN and MAX, whether its role is played, "
                   "dead or absent (so that timing tells nothing), or as long as the room's people take (at most "
                   "45 s, when a person is declined); a room may set its own.")
@click.option("--workers", type=click.IntRange(min=1, max=64), default=1, show_default=True,
              help="Server processes behind the port, each room's connections handed to the one that is its "
                   "home (PostgreSQL only; several `werewolf serve` on one PostgreSQL database serve the same "
                   "rooms too). Each holds its own database connections: at most 64.")
@click.option("--header-timeout", type=click.FloatRange(min=0.1, max=300), default=10.0, show_default=True,
              metavar="SECONDS", help="Seconds a request's line and headers may take to come; a connection that "
                                      "sends half a request (or nothing) is then answered 408 and closed.")
def serve_command(host: str, port: int, database: str, timeout: float, public_url: str | None,
                  keep_finished: float, lobby_hours: float, limits: str | None, log_level: str,
                  pace: tuple[float, float], workers: int, header_timeout: float) -> None:
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
    if limits is not None:
        from werewolf.web.limits import Limits

        try:
            Limits.parse(limits)
        except ValueError as err:
            _fail(f"--limits: {err}")
    try:
        Pace(*pace)
    except ValueError as err:
        _fail(f"--pace: {err}")
        return
    from werewolf.web.store import database_url

    if workers > 1 and not database_url(database).startswith("postgresql"):
        _fail(f"--workers {workers}: several server processes need a PostgreSQL database (--database "
              "postgresql://user@host/db); SQLite serves one process")
        return
    from werewolf.web.preflight import DatabaseProblem

    try:
        serve(host=host, port=port, database=database, timeout=timeout, public_url=public_url,
              keep_finished=keep_finished * 60, lobby_idle=lobby_hours * 3600, limits=limits, log_level=log_level,
              pace=pace, workers=workers, header_timeout=header_timeout)
    except DatabaseProblem as err:
        _fail(f"werewolf serve: {err}")


@main.command("engine")
def engine_command() -> None:
    """Say which engine this command runs (compiled or Python), from where, and why that one."""
    from werewolf.engine_origin import describe

    click.echo(describe())


@main.command("options")
@click.option("--ruleset", "-r", default=None, help="Only the options this ruleset accepts.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable: a JSON list of options.")
def options_command(ruleset: str | None, as_json: bool) -> None:
    """List every rule option: type, allowed values, default per ruleset, and the rule it comes from."""
    from werewolf.rulesets import MODULES
    from werewolf.rulesets.options import describe

    if ruleset is not None and ruleset not in MODULES:
        _fail(f"unknown ruleset {ruleset!r} (known: {', '.join(MODULES)})")
    rows = [o for o in describe() if ruleset is None or ruleset in o["accepted_by"]]
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False, indent=1))
        return
    rulesets = [ruleset] if ruleset else list(MODULES)

    def shown(o: dict[str, Any], r: str) -> str:
        if r not in o["accepted_by"]:
            return "not accepted"
        value = o["defaults"][r]
        if isinstance(value, list):
            return ",".join(map(str, value)) or "[]"
        return value if isinstance(value, str) else json.dumps(value)

    head = ["option", "type", "allowed values"] + [f"default ({r})" if ruleset else r for r in rulesets] + ["rule"]
    table = [[o["name"], o["type"], o["allowed"]] + [shown(o, r) for r in rulesets] + [o["source"]] for o in rows]
    widths = [max(len(str(row[i])) for row in [head] + table) for i in range(len(head) - 1)]
    for row in [head] + table:
        click.echo("  ".join(str(c).ljust(w) for c, w in zip(row, widths)) + "  " + str(row[-1]))
    click.echo(f"\n{len(rows)} options" + (" (an option not accepted is refused at setup)" if not ruleset else
                                            f" accepted by {ruleset}; the others are refused at setup"))
    if ruleset is None or ruleset == "facetoface":
        click.echo("facetoface: null for cupid_double_wolf_team and preset means the deck's preset decides "
                   "(RULES.md §5.2); a preset also fixes win_mode and witch_self_save unless they are given.")
    click.echo("RULES.md is the project's rules digest, shipped as docs/rules.md: `werewolf rules` prints it, "
               "`werewolf rules --section 1.6` one section.")


def _public_url(value: str | None) -> str | None:
    from werewolf.web.links import check_public_url

    if value is None:
        return None
    try:
        return check_public_url(value)
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="'--public-url'") from None


def _fail(message: str) -> None:
    click.echo(message.replace("\n", " "), err=True)
    sys.exit(2)


@main.command()
@click.option("--ruleset", "-r", default="classic", show_default=True, help="The ruleset.")
@click.option("--deck", "-d", default=None,
              help="A deck id (see `werewolf decks`) or comma-separated role ids, role*N for N of a role.")
@click.option("--players", "-n", type=int, default=None, help="Players of the standard deck (when no --deck).")
@click.option("--options", default=None, help='Rule options as a JSON object, e.g. \'{"sheriff": false}\'.')
@click.option("--bots", default="heuristic", show_default=True,
              help="heuristic | random | a kind per side: wolves=heuristic,village=random (sides: wolves, "
                   "village, others; unnamed sides play random). The numbers measure these bots as much as "
                   "the deck: every output names them.")
@click.option("--games", "-g", type=int, default=1000, show_default=True, help="How many games.")
@click.option("--seed", type=int, default=0, show_default=True, help="Game i is seeded from (seed, i).")
@click.option("--jobs", "-j", type=int, default=1, show_default=True, help="Worker processes (or Ray CPUs).")
@click.option("--out", default=None, help="Write the statistics to FILE (.json or .csv).")
@click.option("--plot", default=None, help="Draw win rates and game lengths to FILE (PNG).")
@click.option("--logs", default=None, help="Keep every game's log, one JSON line per game, in FILE.")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Where games run: this machine's processes, or Ray.")
@click.option("--address", default=None, help="An existing Ray cluster's address (with --backend ray).")
@click.option("--report", "html_report", default=None, metavar="FILE.html",
              help="Write one self-contained HTML page: the setup, the tables, the charts.")
@click.option("--agent", "agents", multiple=True, metavar="SEATS=KIND", help=AGENT_HELP)
@click.option("--transcripts", default=None, metavar="DIR",
              help="Keep the LLM seats' calls (prompt, reply, tokens, latency): DIR/game-<i>.jsonl per game.")
@click.option("--endpoints", default=None, metavar="FILE.toml", help=ENDPOINTS_HELP)
@click.option("--structured-only", is_flag=True, help=STRUCTURED_HELP)
@click.option("--run-dir", default=None, metavar="DIR", help=RUN_DIR_HELP)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def simulate(ruleset: str, deck: str | None, players: int | None, options: str | None, bots: str, games: int,
             seed: int, jobs: int, out: str | None, plot: str | None, logs: str | None, backend: str,
             address: str | None, html_report: str | None, agents: tuple[str, ...], transcripts: str | None,
             endpoints: str | None, structured_only: bool, run_dir: str | None, quiet: bool) -> None:
    """Play many games between bots and report win rates, each role's wins and survival, the powers used,
    game lengths, deaths and rules fired.

    The rate in games per second (the progress bar's and the headline's alike) counts the games' time
    only; the start-up of the workers (Ray's, or the process pool's) is shown apart.
    """
    from werewolf.sim import command

    try:
        config = command.make_config(ruleset, deck, players, options, bots, games, seed, jobs, backend, address,
                                     agents, transcripts, endpoints, structured_only)
        status = command.run(config, out=out, plot=plot, logs=logs, quiet=quiet, html_report=html_report,
                             run_dir=run_dir)
    except WerewolfError as err:
        _fail(str(err))
    sys.exit(status)


@main.command("compare")
@click.option("--ruleset", "-r", default="classic", show_default=True, help="The ruleset (shared by every variant).")
@click.option("--deck", "-d", "decks", multiple=True,
              help="A deck (id, or role ids with role*N); repeat it to compare decks.")
@click.option("--options", "options_list", multiple=True,
              help='Rule options as a JSON object; repeat it to compare option sets.')
@click.option("--variant", "-v", "variants", multiple=True, metavar="SPEC",
              help="One variant as key=value pairs separated by ';': deck=..., options={...}, players=N, "
                   "name=... (keys not given come from --deck/--options/--players). Repeat it.")
@click.option("--players", "-n", type=int, default=None, help="Players of the standard deck (when no deck).")
@click.option("--bots", "bots", multiple=True, default=("heuristic",), show_default=True,
              help="As for `werewolf simulate`; repeat it for a mix (game i played by the (i mod K)-th, the same "
                   "in every variant), e.g. --bots heuristic --bots random.")
@click.option("--games", "-g", type=int, default=1000, show_default=True,
              help="Games per variant (without --precision).")
@click.option("--precision", type=float, default=None, metavar="W",
              help="Play batches of games until every difference's interval is narrower than W, e.g. 0.05 for "
                   "5 points; then --games is not used.")
@click.option("--max-games", type=int, default=20000, show_default=True, help="With --precision: at most this "
              "many games per variant.")
@click.option("--batch", type=int, default=500, show_default=True,
              help="With --precision: games per variant between two looks at the intervals.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Game i of every variant is seeded from (seed, i).")
@click.option("--jobs", "-j", type=int, default=1, show_default=True, help="Worker processes (or Ray CPUs).")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True)
@click.option("--address", default=None, help="An existing Ray cluster's address (with --backend ray).")
@click.option("--out", "outs", multiple=True, help="Write the results to FILE (.json or .csv); may be repeated.")
@click.option("--plot", default=None, help="Draw the win rates and the differences to FILE (PNG).")
@click.option("--report", "html_report", default=None, metavar="FILE.html", help="One self-contained HTML page.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def compare_command(ruleset: str, decks: tuple[str, ...], options_list: tuple[str, ...], variants: tuple[str, ...],
                    players: int | None, bots: tuple[str, ...], games: int, precision: float | None, max_games: int,
                    batch: int,
                    seed: int, jobs: int, backend: str, address: str | None, outs: tuple[str, ...],
                    plot: str | None, html_report: str | None, quiet: bool) -> None:
    """Compare decks or rule options on the same seeds: each variant's win rates, the difference against the
    first with its 95% interval, and a verdict.

    \b
    Variants, the first being the baseline:
      --deck A --deck B                   one variant per deck
      --options '{...}' --options '{...}' one per option set (both repeated: every deck with every set)
      --variant 'deck=c12_wolfking_guard'
      --variant 'deck=c12_wolfking_guard;options={"witch_self_save":"never"};name=no self-save'

    Game i of every variant is dealt and played from the same seed, so the differences are paired
    (Newcombe's interval for paired proportions, simultaneous over every difference; verdicts by
    McNemar's test, Holm-adjusted). Decks are put in one order (the same cards, the same deal). A variant
    whose every game is identical, event for event, to the first's on the same seed is flagged, and so
    are two variants that are the same setup.
    """
    from werewolf.sim import command
    from werewolf.sim.config import parse_bots

    status = 2
    try:
        base = command.make_config(ruleset, decks[0] if len(decks) == 1 else None, players,
                                   options_list[0] if len(options_list) == 1 else None, bots[0], games, seed, jobs,
                                   backend, address)
        mix = tuple(parse_bots(b) for b in bots) if len(bots) > 1 else ()
        status = command.compare(base, decks if len(decks) > 1 else (), options_list if len(options_list) > 1 else (),
                                 variants, precision=precision, max_games=max_games, batch=batch, outs=outs,
                                 plot=plot, html_report=html_report, quiet=quiet, mix=mix)
    except WerewolfError as err:
        _fail(str(err))
    sys.exit(status)


@main.command("balance")
@click.option("--ruleset", "-r", default="classic", show_default=True, help="The ruleset.")
@click.option("--deck", "-d", default=None, help="The deck the swaps and the search start from (id, or role ids "
              "with role*N).")
@click.option("--swap", "swaps", multiple=True, metavar="OUT:IN",
              help="A candidate: the deck with one OUT card replaced by IN (OUT: removes, :IN adds). Repeat it.")
@click.option("--candidate", "-c", "decks", multiple=True, metavar="DECK", help="A candidate deck. Repeat it.")
@click.option("--search", is_flag=True, help="Also try decks one step from the most promising so far (a card "
              "swapped for a role of --roles, a villager or a werewolf in or out), until one is found or "
              "--max-candidates are tried.")
@click.option("--roles", default=None, metavar="R1,R2,...", help="The roles the search may bring in "
              "(default: seer, witch, hunter, guard, idiot, knight, elder; those the ruleset refuses are skipped).")
@click.option("--players", "-n", type=int, default=None, help="Players of the standard deck (when no deck).")
@click.option("--options", default=None, help="Rule options as a JSON object, for every candidate.")
@click.option("--bots", "bots", multiple=True, default=("heuristic",), show_default=True,
              help="As for `werewolf simulate`; repeat it for a mix (game i played by the (i mod K)-th).")
@click.option("--within", type=float, default=0.05, show_default=True, metavar="X",
              help="Find a deck whose village win rate is within ±X of 50%, e.g. 0.05 for ±5 points.")
@click.option("--confidence", type=float, default=0.9, show_default=True,
              help="How sure everything stated is, all together (e.g. 0.9).")
@click.option("--max-games", type=int, default=8000, show_default=True, help="At most this many games a candidate.")
@click.option("--max-candidates", type=int, default=24, show_default=True,
              help="With --search: at most this many candidates in all.")
@click.option("--batch", type=int, default=250, show_default=True,
              help="Games a candidate before its first look (then twice as many at each look).")
@click.option("--seed", type=int, default=0, show_default=True, help="Game i of every candidate is seeded from "
              "(seed, i).")
@click.option("--jobs", "-j", type=int, default=1, show_default=True, help="Worker processes (or Ray CPUs).")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True)
@click.option("--address", default=None, help="An existing Ray cluster's address (with --backend ray).")
@click.option("--out", "outs", multiple=True, help="Write the ranking to FILE (.json or .csv); may be repeated.")
@click.option("--plot", default=None, help="Draw the candidates' win rates to FILE (PNG).")
@click.option("--report", "html_report", default=None, metavar="FILE.html", help="One self-contained HTML page.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def balance_command(ruleset: str, deck: str | None, swaps: tuple[str, ...], decks: tuple[str, ...], search: bool,
                    roles: str | None, players: int | None, options: str | None, bots: tuple[str, ...],
                    within: float, confidence: float, max_games: int, max_candidates: int, batch: int, seed: int,
                    jobs: int, backend: str, address: str | None, outs: tuple[str, ...], plot: str | None,
                    html_report: str | None, quiet: bool) -> None:
    """Find a deck whose village wins within ±X of 50%, and say plainly what was and was not shown.

    \b
    Candidates: --deck D with --swap OUT:IN, --candidate DECK, and/or --search (over roles and player counts).
      werewolf balance --deck classic9 --swap hunter:idiot --swap :villager
      werewolf balance --deck classic9 --search --within 0.05 --confidence 0.9

    Every candidate plays game i from the same seed, so any two are compared game by game. Each plays in
    looks of doubling size; its interval is Bonferroni-corrected over every candidate the run may try and
    every look, so everything stated holds together at --confidence. A candidate is found when its interval
    lies within 50% ± X; one shown off by more than X, or shown farther from 50% than another (paired), plays
    no more. Exit status: 0 found, 3 not found within budget, 1 a game failed.
    """
    from werewolf.sim import command
    from werewolf.sim.config import parse_bots

    status = 2
    try:
        base = command.make_config(ruleset, deck, players, options, bots[0], 1, seed, jobs, backend, address)
        mix = tuple(parse_bots(b) for b in bots) if len(bots) > 1 else ()
        pool = tuple(r.strip() for r in roles.split(",") if r.strip()) if roles else ()
        status = command.balance(base, swaps, decks, within=within, confidence=confidence, max_games=max_games,
                                 batch=batch, outs=outs, plot=plot, html_report=html_report, quiet=quiet,
                                 search=search, max_candidates=max_candidates, pool=pool, mix=mix)
    except WerewolfError as err:
        _fail(str(err))
    sys.exit(status)


@main.command("arena")
@click.argument("kinds", nargs=-1, required=True)
@click.option("--ruleset", "-r", default="classic", show_default=True, help="The ruleset.")
@click.option("--deck", "-d", default=None, help="A deck (id, or role ids with role*N).")
@click.option("--players", "-n", type=int, default=None, help="Players of the standard deck (when no deck).")
@click.option("--options", default=None, help="Rule options as a JSON object.")
@click.option("--games", "-g", type=int, default=120, show_default=True,
              help="How many games (rounded up to whole blocks of one game per kind).")
@click.option("--seed", type=int, default=0, show_default=True, help="Block b is dealt from (seed, b).")
@click.option("--jobs", "-j", type=int, default=1, show_default=True, help="Worker processes (or Ray CPUs).")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True)
@click.option("--address", default=None, help="An existing Ray cluster's address (with --backend ray).")
@click.option("--transcripts", default=None, metavar="DIR", help="Keep the LLM seats' calls: DIR/game-<i>.jsonl.")
@click.option("--out", "outs", multiple=True, metavar="FILE.json",
              help="Write the results as JSON (with every game's record and the pairwise comparison); repeatable.")
@click.option("--logs", default=None, metavar="FILE.jsonl", help="Keep every game's whole record (docs/datasets.md).")
@click.option("--endpoints", default=None, metavar="FILE.toml", help=ENDPOINTS_HELP)
@click.option("--structured-only", is_flag=True, help=STRUCTURED_HELP)
@click.option("--run-dir", default=None, metavar="DIR", help=RUN_DIR_HELP)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def arena_command(kinds: tuple[str, ...], ruleset: str, deck: str | None, players: int | None, options: str | None,
                  games: int, seed: int, jobs: int, backend: str, address: str | None, transcripts: str | None,
                  outs: tuple[str, ...], logs: str | None, endpoints: str | None, structured_only: bool,
                  run_dir: str | None, quiet: bool) -> None:
    """Play agent KINDS against each other: random, heuristic, llm:MODEL, module.path:Class.

    \b
      werewolf arena heuristic random --games 200 --jobs 2
      werewolf arena heuristic llm:gpt-4o-mini my_bots:Accuser -r onenight -n 5

    Games come in blocks of one game per kind, all dealt alike; in the block's r-th game seat s is
    played by kind number (s - 1 + r) mod K, so each kind plays every seat, and so every card dealt,
    equally often. Reported per kind and per kind and role: win rates with 95% Wilson intervals, and
    an OpenSkill (Plackett-Luce) rating, each game a match of the kinds ranked by the share of their
    seats that won.
    """
    from werewolf.sim import command

    status = 2
    try:
        base = command.make_config(ruleset, deck, players, options, "random", games, seed, jobs, backend, address,
                                   (), transcripts, endpoints, structured_only)
        status = command.arena(base, kinds, outs=outs, quiet=quiet, run_dir=run_dir, logs=logs)
    except WerewolfError as err:
        _fail(str(err))
    sys.exit(status)


@main.command("rules")
@click.argument("topic", type=click.Choice(["digest", "scripted-games"]), default="digest")
@click.option("--section", "-s", "part", default=None,
              help="Only this part: a numbered section of the digest (1.6, 3.2.4) or an ambiguity (A-57).")
@click.option("--path", "show_path", is_flag=True, help="Print where the installed file is instead of its text.")
def rules_command(topic: str, part: str | None, show_path: bool) -> None:
    """Print the rule texts the program cites: the rules digest (RULES.md, docs/rules.md), or the
    scripted-game contract (SCRIPTED_GAMES.md, docs/scripted-games.md)."""
    from werewolf import ruletext

    if show_path:
        click.echo(ruletext.path(topic))
        return
    doc = ruletext.text(topic)
    if part is not None:
        found = ruletext.section(doc, part)
        if found is None:
            keys = ruletext.section_keys(doc)
            shown = [k for k in keys if not k.startswith("A-")]
            ambiguities = [k for k in keys if k.startswith("A-")]
            if ambiguities:
                shown.append(f"{ambiguities[0]} to {ambiguities[-1]}")
            _fail(f"no section {part!r} in {ruletext.TEXTS[topic][1]} (its sections: {', '.join(shown)})")
            return
        doc = found
    if sys.stdout.isatty():
        click.echo_via_pager(doc)
    else:
        click.echo(doc, nl=False)


@main.command("dataset")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--parquet", default=None, metavar="DIR", help="Export the records as Parquet tables into DIR "
              "(games, seats, talk, decisions, beliefs, events; pip install 'werewolf[data]').")
@click.option("--json", "as_json", is_flag=True, help="Print the metrics as JSON.")
def dataset_command(files: tuple[str, ...], parquet: str | None, as_json: bool) -> None:
    """Read game records (simulate/arena --logs, a --run-dir's games.jsonl): deception and belief
    accuracy per agent kind, and an export to Parquet. The schema: docs/datasets.md."""
    from werewolf.sim import dataset

    def records() -> Any:
        for f in files:
            yield from dataset.latest_records(f)

    try:
        if parquet:
            from werewolf.sim.parquet import export

            counts = export(records(), parquet)
        found = dataset.metrics(list(records()))
    except WerewolfError as err:
        _fail(str(err))
    if as_json:
        click.echo(json.dumps(found, indent=2, ensure_ascii=False))
    else:
        click.echo(f"{found['games']} games ({dataset.SCHEMA})")
        for kind, m in found["kinds"].items():
            def rate(x: float | None) -> str:
                return "-" if x is None else f"{x:.1%}"

            click.echo(f"  {kind}: claims {m['claims']} (false {rate(m['false_claim_rate'])}), check reports "
                       f"{m['checks']} (false {rate(m['false_check_rate'])}), beliefs {m['beliefs']} "
                       f"(correct {rate(m['belief_accuracy'])})")
    if parquet:
        click.echo(f"Parquet tables in {parquet}: " + ", ".join(f"{k} {v:,} rows" for k, v in counts.items()))


@main.command("explain")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--lang", "-l", type=click.Choice(["en", "zh-Hant", "zh-Hans"]), default="en", show_default=True,
              help="Language of the explanations.")
@click.option("--game", "-g", type=int, default=None,
              help="With a `simulate --logs` file: the game to explain (default: the first).")
def explain_command(file: str, lang: str, game: int | None) -> None:
    """Print a game's rulings in order, each with its rule, its source and the book's sentence.

    FILE: a scripted game (run here), `werewolf script` output, a `simulate --logs` file or a room's log.
    """
    from werewolf.i18n import phase_name, t
    from werewolf.replay import load, rulings

    try:
        found = rulings(load(file, game), lang)
    except WerewolfError as err:
        _fail(str(err))
        return
    if not found:
        click.echo(t("ui.explain.none", lang))
        return
    for r in found:
        rule = r["rule"]
        click.echo(f"[{phase_name(str(r['phase']), lang)}] {r['text'] or r['type']}  "
                   f"({t('ui.replay.seen_by', lang)}: {r['seen_by']['text']})")
        click.echo(f"    {t('ui.replay.rule', lang)} {rule['rule']}: {rule['text']}")
        if rule["known"]:
            click.echo(f"    {t('ui.replay.source', lang)}: {rule['book']} {rule['book_title']} · {rule['section']}")
            click.echo(f"    {t('ui.replay.quote', lang)}: 「{rule['quote']}」")
            if rule["proposal"]:
                click.echo(f"    {t('ui.replay.proposal', lang)}: {rule['proposal']}")


@main.command("replay")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--game", "-g", type=int, default=None,
              help="With a `simulate --logs` file: the game to replay (default: the first).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", "-p", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port to listen on (0: any free port).")
def replay_command(file: str, game: int | None, host: str, port: int) -> None:
    """Serve the replay page of a finished game on disk, and print its URL.

    FILE: a scripted game (run here), `werewolf script` output, a `simulate --logs` file or a room's log.
    """
    import socket

    import uvicorn

    from werewolf.replay import load
    from werewolf.web.replay import LOCAL, local_app

    try:
        record = load(file, game)
    except WerewolfError as err:
        _fail(str(err))
        return
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        _fail(f"cannot listen on {host}:{port}: {e.strerror}")
        return
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"http://{shown}:{sock.getsockname()[1]}/replay/{LOCAL}", nl=True)
    sys.stdout.flush()
    server = uvicorn.Server(uvicorn.Config(local_app(record), log_level="warning"))
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
