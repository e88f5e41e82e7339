"""Formula systems' bounds at the command line: a usage error (exit 2), one
`Error:` line naming the option and its bound, never a traceback."""

import json

import pytest
from helpers import interrupted


@pytest.mark.parametrize(
    "args, message",
    [
        (["odds", "rise", "--accuracy", "6", "--def", "12", "--damage", "1d10000"], "--damage: '1d10000': a die needs 1 to 1000 sides"),
        (["odds", "rise", "--accuracy", "101", "--def", "12"], "--accuracy must be between -100 and 100, not 101"),
        (["resolve", "rise", "--accuracy", "6", "--def", "12", "--explode-on", "11", "--seed", "1"], "--explode-on must be between 1 and 10"),
        (["odds", "d10-pool", "--bonus", "1", "--ad", "5", "--toughness", "3", "--damage", "1d6", "--attacks", "7"], "--attacks must be between 1 and 6"),
        (["simulate", "worlds-awakening", "--stat", "1", "--def", "10", "--cha", "-101"], "--cha must be between -100 and 100"),
        (["odds", "pte", "--accuracy", "1", "--ac", "2", "--evasion", "1", "--stat", "5", "--damage-base", "101", "--def", "3"],
         "--damage-base must be between 0 and 100"),
    ],
)
def test_beyond_a_bound(run, args, message):
    result = run(*args)
    assert result.exit_code == 2, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and message in errors[0] and "Traceback" not in result.output


def test_large_dice_odds_are_answered(run):
    result = run("odds", "rise", "--accuracy", "6", "--def", "12", "--damage", "1d1000", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert abs(sum(data["outcomes"].values()) - 1) < 1e-12 and data["expected_damage"] > 0


# ---------------------------------------------------------------- Ctrl-C
def test_ctrl_c_is_one_line_and_exit_130(run, monkeypatch):
    from tables_app.services import exact_odds

    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(exact_odds, "formula", interrupted)
    result = run("odds", "rise", "--accuracy", "6", "--def", "12")
    assert (result.exit_code, result.stderr, result.stdout) == (130, "Error: interrupted (Ctrl-C)\n", "")
    result = run("odds", "rise", "--accuracy", "6", "--def", "12", "--json")
    assert result.exit_code == 130 and json.loads(result.stdout)["error"]["message"] == "interrupted (Ctrl-C)"


LONG = [  # each runs for minutes: the interrupt always lands in the computation
    ["simulate", "rise", "--accuracy", "100", "--def", "-100", "--crit-bonus", "100", "--damage", "100d1000", "--count", "100000000"],
    ["simulate", "table", "--weapon", "Dagger", "--cmb", "50", "--armor", "MA", "--count", "100000000", "--seed", "1"],
]


@pytest.mark.parametrize("args", LONG, ids=["simulate rise", "simulate table"])
def test_sigint_during_a_long_computation(db_path, args):
    """A real SIGINT to a real process: exit 130, one line on stderr, no
    traceback (helpers.interrupted: sent once the process is past start-up,
    to a child whose SIGINT is at its default whatever this process inherited)."""
    assert interrupted(db_path, args) == (130, "Error: interrupted (Ctrl-C)\n", "")
