"""services/fight_odds.odds: the chances of a fight stop as soon as the one who asked has gone (``should_stop``),
whichever way they are worked out, and nothing is answered; the estimate's budget counts from ``started``."""

from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path
from random import Random

import pytest

from tables_app.domain.fights import Blow, Fight, Harm, Join, replay
from tables_app.domain.fights.batch import chunk_size, play_fights
from tables_app.domain.fights.batch_state import SLOTS, Unsupported, from_fights
from tables_app.domain.fights.simulate import Tally, share
from tables_app.errors import TablesError
from tables_app.services import fight_odds
from tables_app.domain.fights.state import Armament, Fighter
from tables_app.services.database_setup import open_database


@pytest.fixture
def duel(run, db_path: Path):  # type: ignore[no-untyped-def]
    run("fight", "new", "Duel")
    run("fight", "join", "Duel", "--as", "Hero", "--hits", "50", "--def", "20", "--armor", "MA", "--weapon", "Longsword",
        "--cmb", "60")
    run("fight", "join", "Duel", "--creature", "Orc Warrior")
    database = open_database(str(db_path))
    yield database
    database.dispose()


@pytest.mark.parametrize("asked", [{}, {"exact": True}, {"count": 100_000}, {"certified": True}])
def test_the_chances_stop_when_the_one_who_asked_has_gone(duel, asked):  # type: ignore[no-untyped-def]
    polls = []

    def gone() -> bool:
        polls.append(1)
        return len(polls) > 3  # gone after the work began

    with pytest.raises(TablesError, match="^the chances of the fight 'Duel' were stopped \\(the one who asked has gone\\)$"):
        fight_odds.odds(duel, "Duel", should_stop=gone, **asked)
    assert len(polls) == 4  # not asked again once it said so


@pytest.mark.slow  # seconds of budget waited
def test_an_estimates_budget_counts_from_when_it_was_asked(duel):  # type: ignore[no-untyped-def]
    # asked long ago: its budget is spent, so it plays one chunk of fights and no more; the same budget asked now
    # plays on until precise enough (review 42: a budget counted from the estimate's own start lived)
    late = fight_odds.odds(duel, "Duel", seconds=5, started=time.monotonic() - 60)
    on_time = fight_odds.odds(duel, "Duel", seconds=5)
    assert late.to_json()["method"] == on_time.to_json()["method"] == "estimated"
    assert late.tally.count == chunk_size(duel_fight(duel)) < on_time.tally.count  # type: ignore[union-attr]


def duel_fight(database):  # type: ignore[no-untyped-def]
    from tables_app.services.fights import load

    return load(database, "Duel").fight


def test_a_count_plays_every_fight_it_asks_even_once_precise_enough(duel):  # type: ignore[no-untyped-def]
    chunk = chunk_size(duel_fight(duel))
    asked = fight_odds.odds(duel, "Duel", count=3 * chunk)  # two chunks are precise enough (TARGET_SE) on this duel
    assert asked.tally.count == 3 * chunk  # type: ignore[union-attr]
    assert fight_odds.largest_se(fight_odds.odds(duel, "Duel", count=2 * chunk).tally) <= fight_odds.TARGET_SE  # type: ignore[union-attr]


@pytest.fixture
def crowded(run, duel):  # type: ignore[no-untyped-def]
    """The duel with the Hero carrying more penalties for N rounds than the batch holds: played one at a time."""
    many = [f"--timed-penalty=-1:{k}" for k in range(2, 2 + SLOTS + 1)]
    run("fight", "edit", "Duel", "Hero", *many)
    with pytest.raises(Unsupported):
        from_fights([duel_fight(duel)])
    return duel


@pytest.mark.slow  # seconds
def test_a_fight_the_batch_does_not_play_is_estimated_one_at_a_time_as_asked(crowded):  # type: ignore[no-untyped-def]
    assert fight_odds.odds(crowded, "Duel", count=300, seed=3).tally.count == 300  # type: ignore[union-attr]
    hurried = fight_odds.odds(crowded, "Duel", seconds=0.05)  # no time left: the least it plays
    assert hurried.to_json()["method"] == "estimated"
    assert fight_odds.FALLBACK_LEAST <= hurried.tally.count < 1_000  # type: ignore[union-attr]
    patient = fight_odds.odds(crowded, "Duel", seconds=3)  # the time it is given: more fights
    assert patient.tally.count > hurried.tally.count  # type: ignore[union-attr]


def test_the_largest_standard_error_is_the_largest_of_every_share_counted() -> None:
    rng = Random(4)
    for _ in range(300):
        count = rng.randint(1, 1000)

        def counts(count: int = count) -> tuple[int, ...]:
            return tuple(sorted(rng.randint(0, count) for _ in range(3)))

        tally = Tally(count, 3, counts(), {"A": counts(), "B": counts()}, {"x": counts()}, {"x": counts()}, 0, 0, 0)
        every = [*tally.over, *(n for c in (*tally.won.values(), *tally.down.values(), *tally.dead.values()) for n in c)]
        assert fight_odds.largest_se(tally) == max(share(n, count)[1] for n in every)


class _CrowdingBlows:
    """Blows that pile up penalties for N rounds: some fights pass SLOTS of them mid-play (the batch's Unsupported
    after a chunk's work), and the estimate goes on one fight at a time."""

    reads_taken = None

    def __call__(self, state: Fight, attacker: str, target: str) -> dict[Blow, Fraction]:
        return {Blow(Harm(timed_penalties=((-1, 30),))): Fraction(1, 20), Blow(Harm(hits=1)): Fraction(1, 10),
                Blow(): Fraction(17, 20)}


@pytest.mark.slow  # seconds of budget waited
def test_an_estimate_the_batch_gives_up_midway_keeps_to_its_budget() -> None:
    # review 42: the one-at-a-time fallback got the whole budget again, whatever the batch had spent before it gave
    # up, and played 1,000 fights at least (about 2 s here on a 0.2 s budget)
    start = replay(Fight("crowded"), [Join(Fighter(name, side, 6, 0, "MA", attacks=(Armament("Sword", 50),)))
                                      for name, side in (("Hero", "A"), ("Orc", "B"))])
    with pytest.raises(Unsupported):
        play_fights(start, _CrowdingBlows(), 20, seed=0, count=chunk_size(start))
    # no time left once the batch gave up: the least the fallback plays, not a budget of its own
    tally = fight_odds._estimate(start, _CrowdingBlows(), 20, seed=0, count=None, seconds=0.0,  # type: ignore[arg-type]
                                 progress_bar=None, should_stop=None)
    assert tally.count == fight_odds.FALLBACK_LEAST


def test_a_machine_short_of_memory_is_one_line_not_a_traceback(duel, monkeypatch):  # type: ignore[no-untyped-def]
    # every bound is checked before its memory is spent; a machine that has less than they allow still answers a line
    def short(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise MemoryError

    monkeypatch.setattr(fight_odds, "fight_odds", short)
    with pytest.raises(TablesError, match="^the chances of the fight 'Duel' need more memory than this machine has"):
        fight_odds.odds(duel, "Duel", exact=True)
