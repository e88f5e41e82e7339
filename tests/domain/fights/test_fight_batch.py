"""The batch engine (domain/fights/batch*.py) steps a fight exactly as the
tracker does: random tracked fights (random fighters, counters set by hand,
blows taken, mid-round), each attack and each round's end made by the
batch (the blow forced) and by rules.apply, the states compared whole; and
play_fights is reproducible chunk by chunk."""

from __future__ import annotations

from dataclasses import fields, replace
from fractions import Fraction
from random import Random

import numpy as np
import pytest
from fight_states import TINY_FIGHTERS, tiny_blows, tiny_fight

from tables_app.domain.fights import Adjust, Attack, Blow, Edit, EndRound, Fight, FightRuleError, Harm, Join, apply, replay
from tables_app.domain.fights.batch import Stopped, _Dealer, _grouped, chunk_size, play_fights
from tables_app.domain.fights.batch_rules import BlowTable, attack, end_round, turn
from tables_app.domain.fights.batch_state import SLOTS, Unsupported, from_fights, to_fight
from tables_app.domain.fights.rules import cmb_modifiers, defense_of, turn_target, turn_weapon
from tables_app.domain.fights.state import Armament, Combatant, Fighter

WEAPONS = ("Sword", "Axe", "Bow")


def random_fighter(rng: Random, name: str, side: str) -> Fighter:
    attacks = tuple(Armament(w, rng.randint(20, 80)) for w in WEAPONS[:rng.choice((0, 1, 1, 2, 3))])
    return Fighter(name, side, rng.randint(3, 30), rng.randint(0, 30), "MA", parry=rng.choice((0, 0, 5, 10)),
                   attacks=attacks, death_at=rng.choice((None, None, 0, -5)), initiative=rng.randint(0, 2))


def random_harm(rng: Random, chance: float) -> Harm:
    def some(value: object, empty: object = 0) -> object:
        return value if rng.random() < chance else empty

    timed = tuple(sorted((rng.choice((-5, -10, -20)), rng.randint(1, 3)) for _ in range(rng.choice((0, 1, 2)))))
    return Harm(hits=some(rng.randint(1, 15)), bleed=some(rng.randint(1, 3)), stun=some(rng.randint(1, 2)),  # type: ignore[arg-type]
                no_parry=some(rng.randint(1, 2)), must_parry=some(rng.randint(1, 2)),  # type: ignore[arg-type]
                penalty=some(rng.choice((-5, -10))), death_in=some(rng.choice((0, 1, 2, 3)), None),  # type: ignore[arg-type]
                prone=some(rng.randint(1, 2)), knocked_out=some(rng.choice((0, 1, 2)), None),  # type: ignore[arg-type]
                blinded=some(rng.randint(1, 2)), drops_weapon=some(True, False), breaks_weapon=some(True, False),  # type: ignore[arg-type]
                useless_arm=some(True, False), useless_leg=some(True, False), timed_penalties=some(timed, ()))  # type: ignore[arg-type]


def random_blow(rng: Random) -> Blow:
    chance = rng.choice((0.0, 0.15, 0.4))
    to_attacker = random_harm(rng, chance) if rng.random() < 0.3 else Harm()
    return Blow(random_harm(rng, chance), to_attacker, rng.choice((0, 0, 5)), rng.choice((0, 0, 5)))


def random_edit(rng: Random, c: Combatant) -> Edit | Adjust:
    weapons = [a.weapon for a in c.fighter.attacks]
    choices = {
        "taken": rng.randint(0, c.fighter.hits + 3), "bleed": rng.randint(0, 3), "stun": rng.randint(0, 2),
        "no_parry": rng.randint(0, 2), "must_parry": rng.randint(0, 1), "penalty": rng.choice((0, -10)),
        "bonus": rng.choice((0, 5)), "dying": rng.choice((None, 1, 3)), "prone": rng.randint(0, 1),
        "knocked_out": rng.choice((None, None, 0, 2)), "blinded": rng.randint(0, 2),
        "useless_arm": rng.random() < 0.2, "useless_leg": rng.random() < 0.2,
        "dropped": tuple(w for w in weapons if rng.random() < 0.2), "broken": tuple(w for w in weapons if rng.random() < 0.1),
        "timed_penalties": tuple((rng.choice((-5, -10)), rng.randint(1, 3)) for _ in range(rng.randint(0, 2))),
        "status": rng.choice(("up", "up", "up", "down", "dead")),
    }
    if rng.random() < 0.3:
        return Adjust(c.name, ((rng.choice(("heal", "damage", "stun", "dying", "bonus")), rng.randint(-2, 3)),))
    keys = rng.sample(sorted(choices), rng.randint(1, 4))
    return Edit(c.name, tuple((k, choices[k]) for k in keys))


def random_fight(rng: Random, cast: tuple[Fighter, ...]) -> Fight:
    """A fight of ``cast`` somewhere in its course: edited by hand, blows taken, rounds ended, mid-round."""
    fight = replay(Fight("random"), [Join(f) for f in cast])
    for _ in range(rng.randint(0, 8)):
        step = rng.random()
        try:
            if step < 0.35:
                fight = apply(fight, random_edit(rng, rng.choice(fight.combatants)))
            elif step < 0.8:
                a = rng.choice(fight.combatants)
                target = turn_target(fight, a.name)
                if target is not None:
                    arm = turn_weapon(a)
                    fight = apply(fight, Attack(a.name, target, random_blow(rng), arm.weapon if arm else ""))
            else:
                fight = apply(fight, EndRound())
        except FightRuleError:
            pass
    return fight


def random_cast(rng: Random) -> tuple[Fighter, ...]:
    n = rng.randint(2, 4)
    sides = ["A", "B"] + [rng.choice("ABC") for _ in range(n - 2)]
    return tuple(random_fighter(rng, f"F{k}", side) for k, side in enumerate(sides))


def normalised(fight: Fight) -> Fight:
    """The fight with each one's dropped and broken in the order of its attacks (the rules read them as sets)."""
    def ordered(c: Combatant, lost: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(a.weapon for a in c.fighter.attacks if a.weapon in lost)

    return replace(fight, combatants=tuple(replace(
        c, now=replace(c.now, dropped=ordered(c, c.now.dropped), broken=ordered(c, c.now.broken)),
        start=replace(c.start, dropped=ordered(c, c.start.dropped), broken=ordered(c, c.start.broken)))
        for c in fight.combatants))


def supported(fight: Fight) -> bool:
    return all(len(c.now.timed_penalties) <= SLOTS - 2 for c in fight.combatants)


def assert_same(batch_fight: Fight, tracked: Fight, what: str) -> None:
    expected = normalised(tracked)
    for got, want in zip(batch_fight.combatants, expected.combatants):
        assert got == want, (what, got, want)
    assert batch_fight == expected, what


@pytest.mark.parametrize("seed", range(6))
def test_each_attack_and_round_end_is_the_trackers_state_by_state(seed):  # type: ignore[no-untyped-def]
    rng = Random(seed)
    checked_attacks = checked_ends = 0
    fields_dealt: set[tuple[str, str]] = set()
    for _ in range(40):
        cast = random_cast(rng)
        fights = [f for f in (random_fight(rng, cast) for _ in range(12)) if supported(f)]
        fights = [f for f in fights if f.round == fights[0].round and f.combatants[0].fighter == fights[0].combatants[0].fighter
                  and [c.fighter for c in f.combatants] == [c.fighter for c in fights[0].combatants]]
        b = from_fights(fights)
        for row, f in enumerate(fights):
            assert_same(to_fight(b, row), f, "as read")
        live = set(range(len(fights)))  # the fights not over at a round's end (the tracker refuses to end it)
        for _ in range(3):  # rounds: what the attacks gave counts, and ticks, from the next
            for i, c in enumerate(fights[0].combatants):  # each one's turn, in initiative order, as the tracker plays it
                going = np.array([row for row, f in enumerate(fights) if row in live and not f.over], dtype=np.int64)
                rows, targets, weapons = turn(b, i, going)
                expected = {int(row): turn_target(fights[row], c.name) for row in going}
                assert {int(r): fights[0].combatants[int(t)].name for r, t in zip(rows, targets)} == \
                    {row: t for row, t in expected.items() if t is not None}
                if not len(rows):
                    continue
                blows = [random_blow(rng) for _ in rows]
                table = BlowTable()
                table.add({blow: Fraction(1) for blow in blows})
                forced = np.array([table.blows.index(blow) for blow in blows], dtype=np.int64)
                attack(b, table, rows, i, targets, weapons, forced)
                for row, target, weapon, blow in zip(rows, targets, weapons, blows):
                    r = int(row)
                    arm = turn_weapon(fights[r].combatants[i])
                    assert arm is not None and arm.weapon == c.fighter.attacks[int(weapon)].weapon
                    fights[r] = apply(fights[r], Attack(c.name, fights[r].combatants[int(target)].name, blow, arm.weapon))
                    checked_attacks += 1
                    fields_dealt |= {(side, f.name) for side in ("to_target", "to_attacker") for f in fields(Harm)
                                     if getattr(getattr(blow, side), f.name) not in (0, None, False, ())}
                    fields_dealt |= {(side, f"{name}=0") for side in ("to_target", "to_attacker")
                                     for name in ("death_in", "knocked_out") if getattr(getattr(blow, side), name) == 0}
                for row in live:
                    assert_same(to_fight(b, row), fights[row], f"after {c.name}'s turn")
            live = {row for row in live if not fights[row].over}
            end_round(b)
            for row in live:
                fights[row] = apply(fights[row], EndRound())
                assert_same(to_fight(b, row), fights[row], "after the round's end")
                checked_ends += 1
    assert checked_attacks > 300 and checked_ends > 150
    assert fields_dealt == {(side, name) for side in ("to_target", "to_attacker")
                            for name in (*(f.name for f in fields(Harm)), "death_in=0", "knocked_out=0")}  # every effect a blow can have, on each side


def test_a_state_the_batch_does_not_hold_is_unsupported():  # type: ignore[no-untyped-def]
    rng = Random(3)
    cast = random_cast(rng)
    fight = replay(Fight("x"), [Join(f) for f in cast])
    many = tuple((-1, k + 1) for k in range(SLOTS + 1))
    crowded = apply(fight, Edit(cast[0].name, (("timed_penalties", many),)))
    with pytest.raises(Unsupported, match="penalties for N rounds"):
        from_fights([crowded])


def test_the_same_seed_and_count_plays_the_same_fights_in_chunks():  # type: ignore[no-untyped-def]
    start = tiny_fight(TINY_FIGHTERS["two against one"])
    chunk = chunk_size(start)
    first = play_fights(start, tiny_blows, 4, seed=7, count=chunk + 1)
    assert first == play_fights(start, tiny_blows, 4, seed=7, count=chunk + 1)
    assert first != play_fights(start, tiny_blows, 4, seed=8, count=chunk + 1)
    assert first.count == chunk + 1 and first.over[-1] + first.unfinished == first.count
    few = play_fights(start, tiny_blows, 4, seed=7, count=100)
    assert few.count == 100 and few != play_fights(start, tiny_blows, 4, seed=8, count=100)
    # the first chunk of chunk + 1 fights is the chunk a count of CHUNK plays
    whole = play_fights(start, tiny_blows, 4, seed=7, count=chunk)
    timed = play_fights(start, tiny_blows, 4, seed=7, seconds=1e-9)
    assert timed == whole


def test_a_time_budget_plays_whole_chunks_that_a_count_replays():  # type: ignore[no-untyped-def]
    start = tiny_fight(TINY_FIGHTERS["duel"])
    timed = play_fights(start, tiny_blows, 3, seed=11, seconds=0.3)
    assert timed.count % chunk_size(start) == 0 and timed.count >= chunk_size(start)
    assert play_fights(start, tiny_blows, 3, seed=11, count=timed.count) == timed


def test_progress_and_stopping():  # type: ignore[no-untyped-def]
    start = tiny_fight(TINY_FIGHTERS["duel"])
    seen: list[int] = []
    play_fights(start, tiny_blows, 3, seed=1, count=chunk_size(start) + 5, progress=seen.append)
    assert seen == [chunk_size(start), 5]
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 3

    with pytest.raises(Stopped):
        play_fights(start, tiny_blows, 3, seed=1, count=10, should_stop=stop)


@pytest.mark.parametrize("seed", range(3))
def test_each_fight_draws_from_the_distribution_blows_gives_its_state(seed):  # type: ignore[no-untyped-def]
    """The batch asks ``blows`` once per key of what a distribution depends on: each fight's is the one ``blows``
    gives for that fight's own state (the attack, the CMB modifiers, the target's DEF, and its hits taken for an
    attack that reads them: here the Bow's)."""
    rng = Random(seed)
    asked: list[tuple[object, ...]] = []

    def reads(state: Fight, attacker: str) -> bool:
        arm = turn_weapon(state.find(attacker))  # type: ignore[arg-type]
        return arm is not None and arm.weapon == "Bow"

    def terms(state: Fight, attacker: str, target: str) -> tuple[object, ...]:
        t = state.find(target)
        assert t is not None
        taken = t.taken if reads(state, attacker) else None
        return (attacker, target, turn_weapon(state.find(attacker)), cmb_modifiers(state, attacker),  # type: ignore[arg-type]
                defense_of(state, target), taken)

    def spy(state: Fight, attacker: str, target: str) -> dict[Blow, Fraction]:
        asked.append(terms(state, attacker, target))
        return {Blow(): Fraction(1)}

    checked = 0
    for _ in range(30):
        cast = random_cast(rng)
        fights = [f for f in (random_fight(rng, cast) for _ in range(12)) if supported(f)]
        fights = [f for f in fights if f.round == fights[0].round]
        b = from_fights(fights)
        dealer = _Dealer(spy, reads)
        asked.clear()  # (its numbers are the order of its questions)
        for i in range(len(cast)):
            going = np.array([row for row, f in enumerate(fights) if not f.over], dtype=np.int64)
            rows, targets, weapons = turn(b, i, going)
            if not len(rows):
                continue
            numbers = dealer.distributions(b, rows, i, targets, weapons)
            for row, target, number in zip(rows, targets, numbers):
                f = fights[int(row)]
                assert asked[int(number)] == terms(f, f.combatants[i].name, f.combatants[int(target)].name)
                checked += 1
    assert checked > 120


def _counted(c: Combatant, now: dict[str, object], start: dict[str, object]) -> Combatant:
    return replace(c, now=replace(c.now, **now), start=replace(c.start, **start))  # type: ignore[arg-type]


# Two states of one fight whose CMB or DEF differ only by what held as the round began (what the rules read),
# the rest the same: (whose, its counters now, as the round began) for each of the two.
AS_THE_ROUND_BEGAN = {
    "the target's no parry": ("target", ({"no_parry": 1}, {"no_parry": 0}), ({"no_parry": 1}, {"no_parry": 1})),
    "the target's blindness": ("target", ({"blinded": 1}, {"blinded": 0}), ({"blinded": 1}, {"blinded": 1})),
    "the target's prone": ("target", ({"prone": 1}, {"prone": 0}), ({"prone": 1}, {"prone": 1})),
    "the attacker's no parry": ("attacker", ({"no_parry": 1}, {"no_parry": 0}), ({"no_parry": 1}, {"no_parry": 1})),
    "the attacker's blindness": ("attacker", ({"blinded": 1}, {"blinded": 0}), ({"blinded": 1}, {"blinded": 1})),
    "the attacker's penalty": ("attacker", ({"penalty": -10}, {"penalty": 0}), ({"penalty": -10}, {"penalty": -10})),
    "the attacker's penalty for N rounds": ("attacker", ({"timed_penalties": ((-10, 2),)}, {}),
                                            ({"timed_penalties": ((-10, 2),)}, {"timed_penalties": ((-10, 2),)})),
}


@pytest.mark.parametrize("case", sorted(AS_THE_ROUND_BEGAN))
def test_fights_that_differ_only_as_the_round_began_each_draw_from_their_own_distribution(case):  # type: ignore[no-untyped-def]
    """The dealer's key reads what the rules read (the round's start): two fights the same now but for a parry
    flag or a penalty as the round began are asked ``blows`` each, not one for both."""
    whose, *states = AS_THE_ROUND_BEGAN[case]
    cast = (Fighter("Hero", "A", 30, 20, "MA", parry=10, attacks=(Armament("Sword", 50),)),
            Fighter("Orc", "B", 30, 20, "MA", parry=10, attacks=(Armament("Axe", 50),)))
    start = replay(Fight("x"), [Join(f) for f in cast])
    col = 0 if whose == "attacker" else 1
    fights = [replace(start, combatants=tuple(_counted(c, now, began) if k == col else c
                                              for k, c in enumerate(start.combatants)))
              for now, began in states]
    asked: list[tuple[object, ...]] = []

    def terms(state: Fight) -> tuple[object, ...]:
        return cmb_modifiers(state, "Hero"), defense_of(state, "Orc")

    def spy(state: Fight, attacker: str, target: str) -> dict[Blow, Fraction]:
        asked.append(terms(state))
        return {Blow(): Fraction(1)}

    assert terms(fights[0]) != terms(fights[1])  # (the case tells them apart)
    b = from_fights(fights)
    rows, targets, weapons = turn(b, 0, np.arange(2))
    assert list(rows) == [0, 1]
    numbers = _Dealer(spy, None).distributions(b, rows, 0, targets, weapons)
    assert [asked[int(n)] for n in numbers] == [terms(f) for f in fights]


def test_the_keys_of_two_parts_tell_every_pair_of_values_apart():  # type: ignore[no-untyped-def]
    first, second = np.array([0, 1, 0, 1, 2, 2]), np.array([5, 5, 6, 6, 5, 6])
    key, rows, inverse = _grouped([first, second])
    assert len(rows) == len(set(zip(first.tolist(), second.tolist()))) == 6
    assert sorted(inverse.tolist()) == list(range(6))


def test_each_chunk_draws_from_its_own_random_stream():  # type: ignore[no-untyped-def]
    """Two chunks of one seed are not the same fights twice: the tally of two is not twice the tally of one."""
    start = tiny_fight(TINY_FIGHTERS["duel"])
    chunk = chunk_size(start)
    one, two = (play_fights(start, tiny_blows, 3, seed=5, count=k * chunk) for k in (1, 2))
    assert two.over != tuple(2 * n for n in one.over)
