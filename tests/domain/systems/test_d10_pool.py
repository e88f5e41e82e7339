"""d10-pool (docs/formula-systems.md, "d10-pool"): one test per rule,
with forced dice so every result is exact."""

from __future__ import annotations

import pytest

from tables_app.domain.dice import ForcedDice, SeededDice
from tables_app.domain.systems.base import OptionError, Resolution
from tables_app.domain.systems.d10_pool import SYSTEM

REQUIRED = {"bonus": 0, "ad": 6, "toughness": 5, "damage": "1d6"}


def options(**given: object) -> dict:
    """Every option's value: the default (() for repeatable ones), the
    required ones from REQUIRED, then what the test states."""
    values = {o.key: (() if o.multiple else o.default) for o in SYSTEM.options}
    values.update(REQUIRED)
    values.update(given)
    return values


def play(dice: list[int], **given: object) -> tuple[Resolution, ForcedDice]:
    """Resolve with exactly these dice: none missing, none left over."""
    forced = ForcedDice(values=dice)
    resolution = SYSTEM.resolve(SYSTEM.build(options(**given)), forced)
    assert forced.missing == [] and forced.unused == ()
    return resolution, forced


def verdicts(resolution: Resolution) -> list[tuple[int, bool, bool, bool]]:
    return [(r["die"], r["hit"], r["critical"], r["follow_up"]) for r in resolution.extras["rolls"]]


# ---------------------------------------------------------------- hits
# "Hit: die + bonus ≥ defense; defense is AD, or GD for grapple, shove and trip [seed]."
@pytest.mark.parametrize(("die", "hit"), [(5, True), (4, False), (9, True)])
def test_hit_threshold(die: int, hit: bool) -> None:
    resolution, _ = play([die] + ([3] if hit else []), bonus=2, ad=7)
    assert resolution.outcome == ("hit" if hit else "miss")
    assert resolution.extras["rolls"] == [
        {"attack": 1, "die": die, "total": die + 2, "hit": hit, "critical": False, "follow_up": False}
    ]
    assert resolution.extras["hits"] == int(hit)


# "A natural 10 always hits [seed]" — and "(not only because 10 always hits) [decision]":
# a 10 that reaches the defense only by that rule is no critical and grants no die.
def test_natural_10_always_hits_but_is_no_critical_when_short() -> None:
    resolution, _ = play([10, 4], bonus=0, ad=15, toughness=4)
    assert verdicts(resolution) == [(10, True, False, False)]
    assert resolution.outcome == "hit"
    assert resolution.extras["criticals"] == 0
    assert resolution.damage == 4 and resolution.extras["wounds"] == 1


# "a natural 1 always misses [seed]"
def test_natural_1_always_misses() -> None:
    resolution, _ = play([1], bonus=10, ad=5)
    assert verdicts(resolution) == [(1, False, False, False)]
    assert resolution.outcome == "miss" and resolution.damage == 0
    assert "natural 1 always misses" in resolution.steps[1]


# "Critical: a die of 10 ... that would hit on die + bonus ≥ defense ... grants another
# attack roll with the same bonus and option; this chains [seed]."
def test_critical_chain() -> None:
    # 10 (crit) → 10 (crit again) → 4 + 1 = 5 < 6 misses: one chain, 2 hits, 2 damage rolls.
    resolution, _ = play([10, 10, 4, 2, 6], bonus=1, ad=6, toughness=3)
    assert verdicts(resolution) == [(10, True, True, False), (10, True, True, True), (4, False, False, True)]
    assert resolution.extras["hits"] == 2 and resolution.extras["criticals"] == 2
    assert [r["attack"] for r in resolution.extras["rolls"]] == [1, 1, 1]
    assert [r["total"] for r in resolution.extras["rolls"]] == [11, 11, 5]  # same bonus on follow-ups
    assert resolution.damage == 8 and resolution.extras["wounds"] == 2


def test_follow_up_die_can_hit_without_critical() -> None:
    resolution, _ = play([10, 7, 1, 1], bonus=0, ad=6)
    assert verdicts(resolution) == [(10, True, True, False), (7, True, False, True)]
    assert resolution.damage == 2


# "Heavy: Heavy attacks can cause a critical hit on a roll of a 9." (seed) — "9 or 10 with a heavy weapon"
@pytest.mark.parametrize(
    ("heavy", "ad", "dice", "expected"),
    [
        (True, 6, [9, 3, 1], [(9, True, True, False), (3, False, False, True)]),
        (False, 6, [9, 1], [(9, True, False, False)]),
        (True, 10, [9], [(9, False, False, False)]),  # a heavy 9 that misses (9 < 10) is no critical
        (True, 6, [10, 2, 1], [(10, True, True, False), (2, False, False, True)]),
    ],
    ids=["heavy-9-crit", "light-9-plain-hit", "heavy-9-miss", "heavy-10-crit"],
)
def test_heavy_criticals_on_9(heavy: bool, ad: int, dice: list[int], expected: list) -> None:
    resolution, _ = play(dice, heavy=heavy, bonus=0, ad=ad)
    assert verdicts(resolution) == expected


# ---------------------------------------------------------------- damage and wounds
# "The damage of all hits of one chain is rolled together and summed into one amount [decision]."
def test_damage_of_a_chain_is_summed_before_wounds() -> None:
    # Chain 1: 10 (crit) + 5 (hit): damage 3 + 4 = 7 → 1 wound vs Toughness 5
    # (separately, 3 and 4 would each be 0 wounds).
    resolution, _ = play([10, 5, 3, 4], bonus=1, ad=6, toughness=5)
    assert resolution.damage == 7
    assert resolution.extras["wounds"] == 1
    assert any("3 + 4 = 7" in step for step in resolution.steps)


# "Wounds = floor(damage / Toughness) [decision]" — per chain, then summed over chains.
@pytest.mark.parametrize(("damage_die", "wounds"), [(3, 2), (4, 3), (1, 2)])
def test_wounds_floor(damage_die: int, wounds: int) -> None:
    resolution, _ = play([7, damage_die], damage="1d6+8", toughness=4)
    assert resolution.damage == damage_die + 8
    assert resolution.extras["wounds"] == wounds == (damage_die + 8) // 4


def test_wounds_are_floored_per_chain() -> None:
    # Two attacks, 4 damage each vs Toughness 5: 0 + 0 wounds, not floor(8 / 5) = 1.
    resolution, _ = play([7, 7, 4, 4], attacks=2, toughness=5)
    assert resolution.damage == 8 and resolution.extras["wounds"] == 0


# docs/cli.md: "d10-pool — each attack die followed by the chain it starts, then the
# damage dice of each chain in order".
def test_dice_order() -> None:
    # Attack 1: 10 (crit) then 6 (hit); attack 2: 1 (miss); attack 3: 7 (hit); then the damage
    # dice: chain 1's two hits (1 + 2, 3 + 4), chain 3's hit (6 + 4); chain 2 has none.
    resolution, forced = play([10, 6, 1, 7, 1, 2, 3, 4, 6, 4], attacks=3, damage="1d6+1d4", toughness=3)
    assert forced.purposes == [
        "attack 1", "critical follow-up, attack 1", "attack 2", "attack 3",
        "damage, chain 1, hit 1 (1d6+1d4)", "damage, chain 1, hit 1 (1d6+1d4)",
        "damage, chain 1, hit 2 (1d6+1d4)", "damage, chain 1, hit 2 (1d6+1d4)",
        "damage, chain 3 (1d6+1d4)", "damage, chain 3 (1d6+1d4)",
    ]
    assert [r["attack"] for r in resolution.extras["rolls"]] == [1, 1, 2, 3]
    assert resolution.damage == 10 + 10
    assert resolution.extras["wounds"] == 3 + 3


# ---------------------------------------------------------------- bonus
# "Modifiers [seed]: high ground +1 (melee only); cover −1, total cover −1 more (it also counts
# as cover), far −1, in melee −1, wind −1, lots of wind −2 (replaces wind [decision]) — ranged only;
# concealment −1, total concealment −1 more, flat-footed +1, stationary +1 more (it also counts as
# flat-footed)".
@pytest.mark.parametrize(
    ("modifiers", "ranged", "bonus"),
    [
        ((), False, 0),
        (("high-ground",), False, 1),
        (("cover",), True, -1),
        (("total-cover",), True, -2),
        (("cover", "total-cover"), True, -2),
        (("far",), True, -1),
        (("in-melee",), True, -1),
        (("wind",), True, -1),
        (("lots-of-wind",), True, -2),
        (("concealment",), False, -1),
        (("total-concealment",), False, -2),
        (("concealment", "total-concealment"), True, -2),
        (("flat-footed",), False, 1),
        (("stationary",), False, 2),
        (("flat-footed", "stationary"), True, 2),
        (("high-ground", "stationary", "total-concealment"), False, 1),
        (("total-cover", "far", "in-melee", "lots-of-wind", "concealment"), True, -7),
    ],
)
def test_modifier_values(modifiers: tuple[str, ...], ranged: bool, bonus: int) -> None:
    resolution, _ = play([6], bonus=0, ad=20, modifier=modifiers, ranged=ranged)
    assert resolution.extras["bonus"] == bonus
    assert resolution.extras["rolls"][0]["total"] == 6 + bonus


def test_modifier_changes_the_verdict() -> None:
    assert play([5], bonus=0, ad=6)[0].outcome == "miss"
    assert play([5, 1], bonus=0, ad=6, modifier=("high-ground",))[0].outcome == "hit"


# "dual-wielding −2 per weapon beyond the first, each extra weapon giving one more attack [seed]"
@pytest.mark.parametrize(("weapons", "attacks", "bonus", "dice"), [(1, 1, 3, 1), (2, 1, 1, 2), (3, 1, -1, 3), (3, 2, -1, 4)])
def test_dual_wielding(weapons: int, attacks: int, bonus: int, dice: int) -> None:
    resolution, forced = play([2] * dice, bonus=3, ad=10, weapons=weapons, attacks=attacks)
    assert resolution.extras["bonus"] == bonus
    assert forced.purposes == [f"attack {n}" for n in range(1, dice + 1)]


# Options [seed]: "disarm (−1 if ranged ...)", "shove (unarmed, −1 ...)", "sunder (−1 melee,
# −2 ranged ...)", "trip (−1 if ranged ...)"; grapple has no penalty.
@pytest.mark.parametrize(
    ("option", "ranged", "bonus"),
    [
        ("normal", False, 0), ("normal", True, 0), ("grapple", False, 0),
        ("disarm", False, 0), ("disarm", True, -1), ("shove", False, -1),
        ("sunder", False, -1), ("sunder", True, -2), ("trip", False, 0), ("trip", True, -1),
    ],
)
def test_option_penalties(option: str, ranged: bool, bonus: int) -> None:
    resolution, _ = play([2], bonus=0, ad=10, gd=10, option=option, ranged=ranged)
    assert resolution.extras["bonus"] == bonus


# ---------------------------------------------------------------- defenses and options
# "defense is AD, or GD for grapple, shove and trip [seed]"
@pytest.mark.parametrize(
    ("option", "defense", "outcome"),
    [("normal", 10, "miss"), ("disarm", 10, "miss"), ("sunder", 10, "miss"),
     ("grapple", 4, "hit"), ("shove", 4, "hit"), ("trip", 4, "hit")],
)
def test_gd_versus_ad(option: str, defense: int, outcome: str) -> None:
    dice = [6] + ([1] if outcome == "hit" else [])
    resolution, _ = play(dice, bonus=0, ad=10, gd=4, option=option)
    assert resolution.extras["defense"] == defense
    assert resolution.outcome == outcome


NO_EFFECTS = {"prone": False, "grappled": False, "disarmed": False, "fling_m": 0, "item_destroyed": False}


def test_normal_attack_inflicts_wounds() -> None:
    resolution, _ = play([8, 6], damage="1d6+4", toughness=3)  # 10 // 3 = 3
    assert (resolution.damage, resolution.extras["wounds"]) == (10, 3)
    assert resolution.extras["effects"] == NO_EFFECTS


# "grapple (unarmed; no wounds; both are grappled if it would wound)"
@pytest.mark.parametrize(("damage_die", "grappled"), [(3, True), (2, False)])
def test_grapple(damage_die: int, grappled: bool) -> None:
    resolution, _ = play([7, damage_die], gd=6, toughness=3, option="grapple")
    assert resolution.outcome == "hit"
    assert resolution.damage == 0 and resolution.extras["wounds"] == 0
    assert resolution.extras["rolled_damage"] == damage_die
    assert resolution.extras["effects"] == {**NO_EFFECTS, "grappled": grappled}


# "disarm (−1 if ranged; no damage; the target drops what it holds if rolled damage ≥ half its
# Toughness, i.e. 2 × damage ≥ Toughness [decision])"
@pytest.mark.parametrize(
    ("damage_die", "toughness", "disarmed"),
    [(3, 6, True), (2, 6, False), (3, 7, False), (4, 7, True), (6, 3, True)],
    ids=["exactly-half", "below-half", "3-of-7-is-below-3.5", "4-of-7", "a-wound"],
)
def test_disarm(damage_die: int, toughness: int, disarmed: bool) -> None:
    resolution, _ = play([7, damage_die], toughness=toughness, option="disarm")
    assert resolution.damage == 0 and resolution.extras["wounds"] == 0
    assert resolution.extras["rolled_damage"] == damage_die
    assert resolution.extras["effects"] == {**NO_EFFECTS, "disarmed": disarmed}


def test_disarm_is_per_chain() -> None:
    # Two chains of 2 damage vs Toughness 5: neither reaches half, although together they would.
    resolution, _ = play([7, 7, 2, 2], attacks=2, toughness=5, option="disarm")
    assert resolution.extras["effects"]["disarmed"] is False


# "shove (unarmed, −1; no wounds; the target is flung as many meters as the wounds it would take;
# ends a mutual grapple)"
def test_shove_flings() -> None:
    # bonus 2 − 1 = 1; 6 + 1 = 7 ≥ GD 5; damage 4 + 3 = 7 vs Toughness 3 → 2 wounds → 2 m.
    resolution, _ = play([6, 4], bonus=2, gd=5, toughness=3, damage="1d6+3", option="shove")
    assert resolution.damage == 0 and resolution.extras["wounds"] == 0
    assert resolution.extras["rolled_damage"] == 7
    assert resolution.extras["effects"] == {**NO_EFFECTS, "fling_m": 2}
    assert any("mutual grapple ends" in step for step in resolution.steps)


def test_shove_sums_wounds_of_all_chains() -> None:
    resolution, _ = play([6, 6, 6, 6], attacks=2, gd=5, toughness=3, option="shove")
    assert resolution.extras["effects"]["fling_m"] == 4


# "sunder (−1 melee, −2 ranged; against an item of Toughness 5 and 1 HP, or 8 and 2 HP if
# magical; destroyed when wounds ≥ HP)"
def test_sunder_nonmagical_item() -> None:
    # bonus 3 − 1 = 2; 5 + 2 = 7 ≥ AD 6; damage 3 + 2 = 5 vs item Toughness 5 (not 20) → 1 wound ≥ 1 HP.
    resolution, _ = play([5, 3], bonus=3, toughness=20, damage="1d6+2", option="sunder")
    assert resolution.damage == 5 and resolution.extras["wounds"] == 1
    assert resolution.extras["effects"] == {**NO_EFFECTS, "item_destroyed": True}
    assert any("--toughness 20 is ignored" in step for step in resolution.steps)


@pytest.mark.parametrize(("attacks", "dice", "wounds", "destroyed"), [(1, [7, 4], 1, False), (2, [7, 7, 4, 4], 2, True)])
def test_sunder_magical_item(attacks: int, dice: list[int], wounds: int, destroyed: bool) -> None:
    # 1d6+4 rolling 4 = 8 vs Toughness 8 → 1 wound per chain; the item has 2 HP.
    resolution, _ = play(dice, attacks=attacks, damage="1d6+4", option="sunder", magical_item=True)
    assert resolution.extras["wounds"] == wounds
    assert resolution.extras["effects"]["item_destroyed"] is destroyed


def test_sunder_below_item_toughness() -> None:
    resolution, _ = play([7, 4], toughness=1, option="sunder")  # 4 vs Toughness 5: no wound
    assert resolution.extras["wounds"] == 0 and resolution.damage == 4
    assert resolution.extras["effects"]["item_destroyed"] is False


# "trip (−1 if ranged; no wounds; prone if it would wound)"
@pytest.mark.parametrize(("damage_die", "prone"), [(5, True), (4, False)])
def test_trip(damage_die: int, prone: bool) -> None:
    # ranged: bonus 0 − 1; 8 − 1 = 7 ≥ GD 7; damage vs Toughness 5.
    resolution, _ = play([8, damage_die], bonus=0, gd=7, toughness=5, option="trip", ranged=True)
    assert resolution.extras["bonus"] == -1 and resolution.outcome == "hit"
    assert resolution.damage == 0 and resolution.extras["wounds"] == 0
    assert resolution.extras["effects"] == {**NO_EFFECTS, "prone": prone}


# ---------------------------------------------------------------- invalid options
@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"option": "grapple", "gd": 5, "ranged": True}, "unarmed"),
        ({"option": "shove", "gd": 5, "ranged": True}, "unarmed"),
        ({"modifier": ("high-ground",), "ranged": True}, "melee only"),
        *[({"modifier": (name,)}, "ranged only") for name in ("cover", "total-cover", "far", "in-melee", "wind", "lots-of-wind")],
        ({"modifier": ("wind", "lots-of-wind"), "ranged": True}, "exclude each other"),
        ({"attacks": 0}, "--attacks"),
        ({"weapons": 0}, "--weapons"),
        ({"toughness": 0}, "--toughness"),
        ({"damage": "-1d6"}, "negative dice"),
        ({"damage": "2d6-1d4"}, "negative dice"),
        ({"damage": "2x6"}, "not a dice expression"),
        ({"option": "grapple"}, "--gd"),
        ({"option": "shove"}, "--gd"),
        ({"option": "trip"}, "--gd"),
        ({"magical_item": True}, "--magical-item"),
        ({"magical_item": True, "option": "disarm"}, "--magical-item"),
        ({"modifier": ("uphill",)}, "unknown"),
    ],
)
def test_option_errors(given: dict, message: str) -> None:
    with pytest.raises(OptionError, match=message):
        SYSTEM.build(options(**given))


def test_gd_not_needed_against_ad() -> None:
    assert SYSTEM.build(options(option="disarm")).gd is None


# ---------------------------------------------------------------- reproducibility
@pytest.mark.parametrize("seed", [1, 7, 42, 2024])
def test_seeded_dice_replay(seed: int) -> None:
    params = SYSTEM.build(options(bonus=2, attacks=3, weapons=2, heavy=True, damage="2d6+1", toughness=4))
    seeded = SeededDice(seed=seed)
    first = SYSTEM.resolve(params, seeded)
    assert SYSTEM.resolve(params, SeededDice(seed=seed)) == first
    forced = ForcedDice(values=list(seeded.used))
    assert SYSTEM.resolve(params, forced) == first
    assert forced.missing == [] and forced.unused == ()
