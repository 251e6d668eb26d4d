"""The compiled engine (``WEREWOLF_COMPILE=1 pip wheel .``, mypyc) plays exactly the games the Python one plays.

Its wheel is built once per run, as a user's install builds it, and installed into a virtual environment
(scripts/compile.py: about 2 minutes; a current build in build/compiled-env is reused), then checked in
subprocesses run by that environment's interpreter: every scripted game of tests/scripts and
../shared/examples, a sample of simulated games of every ruleset fingerprinted by the
identical-games scripts (log, answers and result; random agents and heuristic bots), and the
statistics of a simulation run by the compiled runner over two worker processes.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"
_spec = importlib.util.spec_from_file_location("werewolf_compile", SCRIPTS / "compile.py")
assert _spec is not None and _spec.loader is not None
mypyc_build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mypyc_build)


@pytest.fixture(scope="module")
def compiled() -> Path:
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        if os.environ.get("CI"):
            pytest.fail("no C compiler: the compiled engine cannot be built")
        pytest.skip("no C compiler to build the compiled engine")
    return mypyc_build.build(quiet=True)


def run(code_or_args: list[str], compiled: Path | None, cwd: Path = ROOT) -> str:
    """Run Python code or a script on the compiled engine (``compiled``: its environment's interpreter) or not."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if compiled is None:  # this tree's sources, whatever an editable install of the interpreter points at
        env["PYTHONPATH"] = str(ROOT)
    interpreter = str(compiled) if compiled is not None else sys.executable
    done = subprocess.run([interpreter, *code_or_args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def test_the_build_is_current_and_is_what_gets_imported(compiled: Path) -> None:
    assert mypyc_build.current(mypyc_build.DEFAULT_ENV)
    where = run(["-c", "import werewolf.core.game, werewolf.rulesets.daynight.day as d, werewolf.rulesets.onuw as o;"
                       "import werewolf.agents as a, werewolf.agents.heuristic as h, werewolf.agents.speech as s;"
                       "print(werewolf.core.game.__file__, d.__file__, o.__file__, a.__file__, h.__file__,"
                       "s.__file__)"], compiled, cwd=SCRIPTS)
    files = where.split()  # the engine's modules, and the heuristic bots'
    env = str(mypyc_build.DEFAULT_ENV)
    assert len(files) == 6 and all(f.endswith(".so") and f.startswith(env) for f in files), where
    # and the engine says which it is (simulate reports it beside its speed)
    assert run(["-c", "import werewolf.core; print(werewolf.core.engine())"], compiled, cwd=SCRIPTS).split() == [
        "compiled"]
    assert run(["-c", "import werewolf.core; print(werewolf.core.engine())"], None, cwd=SCRIPTS).split() == ["python"]
    # ... and says where it came from, and why: from the checkout's root the sources shadow the compiled build
    said = run(["-c", "from werewolf.engine_origin import describe; print(describe())"], compiled, cwd=SCRIPTS)
    assert said.startswith("compiled engine (mypyc), from " + env), said
    said = run(["-c", "from werewolf.engine_origin import describe; print(describe())"], compiled, cwd=ROOT)
    assert said.startswith(f"python engine, from the sources in {ROOT}: the current folder is a checkout"), said
    assert f"ahead of the compiled build in {env}" in said, said


CHECK_SCRIPTS = """
import json, sys
import werewolf.core.game
from werewolf import script as sg
assert werewolf.core.game.__file__.endswith(".so"), werewolf.core.game.__file__
bad = []
for path in sys.argv[1:]:
    parsed = sg.parse(sg.load(path))
    out = sg.run(parsed)
    diffs = sg.compare(parsed.expect, out) if parsed.expect is not None else ["no expect block"]
    if diffs:
        bad.append([path, diffs[:3], out.error])
print(json.dumps({"checked": len(sys.argv) - 1, "bad": bad}))
"""


def test_every_scripted_game_passes_on_the_compiled_engine(compiled: Path) -> None:
    files = sorted((ROOT / "tests" / "scripts").rglob("*.json")) + sorted(
        (ROOT.parent / "shared" / "examples").glob("*.json"))
    report = json.loads(run(["-c", CHECK_SCRIPTS, *map(str, files)], compiled, cwd=SCRIPTS))
    assert report["checked"] == len(files) > 300
    assert report["bad"] == []


@pytest.mark.parametrize("checker,arguments", [
    ("identical_games.py", ["--games", "25", "--heuristic", "3", "--described", "3"]),
    ("identical_onenight.py", ["--games", "150", "--heuristic", "15"]),
])
def test_simulated_games_are_identical_on_the_compiled_engine(compiled: Path, tmp_path: Path, checker: str,
                                                              arguments: list[str]) -> None:
    baseline = tmp_path / "baseline.json"
    run([checker, "record", str(baseline), *arguments], None, cwd=SCRIPTS)  # the Python engine
    out = run([checker, "verify", str(baseline)], compiled, cwd=SCRIPTS)
    assert "IDENTICAL" in out and "DIFFERENT" not in out, out[-3000:]


CHECK_CLONES = """
import hashlib, json, random
import werewolf.core.game
from werewolf.core import Game, Setup
setups = [("classic", "c12_wolfking_thief_cupid", False), ("facetoface", "ff12_cupid_thief", False),
          ("wechat", "wechat16", False), ("wechat", "wechat12", True), ("onuw", "onuw7", True),
          ("onenight", "onenight5", False)]
digest, clones = hashlib.sha256(), 0
for ruleset, deck, live in setups:
    for seed in range(4):
        rng = random.Random(seed)
        game = Game(Setup(ruleset, deck=deck, seed=seed, live_speech=live), keep_checkpoints=seed % 2 == 0)
        taken = []
        while not game.over:
            if rng.random() < 0.3:
                copy = game.clone()
                taken.append((len(game.answers), copy.clone() if rng.random() < 0.3 else copy))
            d = game.pending()[0]
            game.answer_value(d, d.random_value(rng))
        taken.append((len(game.answers), game.clone()))
        log = [e.as_json() for e in game.events]
        for at, copy in taken:
            for seat, act, value in game.answers[at:]:
                copy.answer_value(next(d for d in copy.pending(seat) if d.act == act), value)
            assert [e.as_json() for e in copy.events] == log and copy.answers == game.answers, (ruleset, seed, at)
        clones += len(taken)
        digest.update(json.dumps([log, game.answers, game.result], sort_keys=True, default=str).encode())
print(json.dumps({"engine": werewolf.core.game.__file__.endswith(".so"), "clones": clones,
                  "digest": digest.hexdigest()}))
"""


def test_clones_play_on_exactly_as_their_games_on_the_compiled_engine(compiled: Path) -> None:
    """Game.clone from checkpoints (tables copied field by field) on both engines: every clone, taken at a
    random point and given the original's later answers, ends with the original's log; the games are the same."""
    python = json.loads(run(["-c", CHECK_CLONES], None, cwd=SCRIPTS))
    native = json.loads(run(["-c", CHECK_CLONES], compiled, cwd=SCRIPTS))
    assert native["engine"] and not python["engine"]
    assert native["clones"] == python["clones"] > 50
    assert native["digest"] == python["digest"]


def test_a_simulation_gives_the_same_numbers_on_the_compiled_engine(compiled: Path, tmp_path: Path) -> None:
    """The compiled runner too, over two worker processes, heuristic bots on one side."""
    docs = {}
    for name, build in (("python", None), ("compiled", compiled)):
        out = tmp_path / f"{name}.json"
        run(["-c", "from werewolf.cli import main; main()", "simulate", "--ruleset", "classic", "--deck", "classic12",
             "--bots", "wolves=heuristic", "--games", "300", "--jobs", "2", "--seed", "5", "--out", str(out)],
            build, cwd=SCRIPTS)
        docs[name] = json.loads(out.read_text())
        assert docs[name]["timing"]["engine"] == name
    assert docs["compiled"]["stats"] == docs["python"]["stats"]
    assert docs["python"]["stats"]["games"] == 300 and docs["python"]["stats"]["errors"] == 0


def test_a_plain_install_stays_pure_python(tmp_path: Path) -> None:
    """Without WEREWOLF_COMPILE the wheel is pure Python (py3-none-any), and needs no compiler or mypy."""
    env = {k: v for k, v in os.environ.items() if k not in ("WEREWOLF_COMPILE", "PYTHONPATH")}
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(tmp_path),
                           str(ROOT)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert [p.name for p in tmp_path.glob("*.whl")] == ["werewolf-0.1.0-py3-none-any.whl"]


def test_an_editable_install_refuses_to_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiled modules beside the sources would be imported after the sources change: refused, with the reason."""
    monkeypatch.syspath_prepend(str(ROOT / "build_hooks"))
    import compiled_engine

    monkeypatch.setenv("WEREWOLF_COMPILE", "1")
    assert compiled_engine.requested()
    with pytest.raises(SystemExit, match="not an editable one"):
        compiled_engine.get_requires_for_build_editable()
    monkeypatch.setenv("WEREWOLF_COMPILE", "0")
    assert not compiled_engine.requested()
    assert "mypy" not in " ".join(compiled_engine.get_requires_for_build_editable())
