"""How a fight meets a formula system (domain/fights/formulas.py): the declared
options, the target's side filled in, the fight's modifiers on the bonus,
the blow; the armament's JSON round trip."""

from __future__ import annotations

import pytest

from tables_app.domain.fights import Edit, Fight, Fighter, Join, event_json, event_of, replay
from tables_app.domain.fights.formulas import armament, attack_options, blow_of, parse_options
from tables_app.domain.systems.base import OptionError, Resolution


def fighters(system: str, texts: list[str], **target: int) -> Fight:
    arm = armament(system, texts)
    hero = Fighter(name="Hero", side="A", hits=40, defense=0, armor="", parry=3, attacks=(arm,))
    orc = Fighter(name="Orc", side="B", hits=target.get("hits", 30), defense=target.get("defense", 12), armor="",
                  parry=2, attacks=(arm,))
    return replay(Fight("test"), [Join(hero), Join(orc), Edit("Orc", (("taken", 4),))])


def test_options_are_typed_by_their_declaration_and_named_as_resolve_spells_them():
    assert parse_options("pte", ["accuracy=2", "ac=4", "stat=13", "damage_base=8", "def=5", "stab", "db-multiplier=1.5"]) \
        == (("accuracy", 2), ("ac", 4), ("stat", 13), ("damage-base", 8), ("def", 5), ("stab", True),
            ("db-multiplier", 1.5))
    assert parse_options("d10-pool", ["bonus=1", "damage=1d6", "toughness=3", "modifier=cover", "modifier=far",
                                      "ranged=yes"]) == \
        (("bonus", 1), ("damage", "1d6"), ("toughness", 3), ("modifier", ("cover", "far")), ("ranged", True))
    with pytest.raises(OptionError, match="rise: --option accuracy: give it as accuracy=N"):
        parse_options("rise", ["accuracy"])  # an int needs its value
    arm = armament("worlds-awakening", ["stat=2", "weapon-bonus=1", "level=3", "damage=1d6", "damage=1d4"])
    assert (arm.weapon, arm.cmb, arm.system) == ("worlds-awakening", 6, "worlds-awakening")


@pytest.mark.parametrize("system, texts, expected", [
    # parry 3 of the attacker off its bonus, the target's DEF 12 + parry 2
    ("rise", ["accuracy=6"], {"accuracy": 3, "def": 14}),
    ("worlds-awakening", ["stat=2", "equipment=1"], {"stat": 2, "equipment": -2, "def": 14}),
    ("d10-pool", ["bonus=5", "damage=1d6", "toughness=3"], {"bonus": 2, "ad": 14, "gd": 14}),
    # pte: the target's hits too (30, 4 taken)
    ("pte", ["accuracy=2", "ac=4", "stat=1", "damage-base=1", "def=0"],
     {"accuracy": -1, "evasion": 14, "max-hp": 30, "hp": 26}),
])
def test_the_target_side_and_the_modifiers(system, texts, expected):
    fight = fighters(system, texts)
    arm = fight.find("Hero").fighter.attacks[0]  # type: ignore[union-attr]
    used = dict(attack_options(fight, "Hero", "Orc", arm, (("mod", 0),)))
    assert {k: used[k] for k in expected} == expected


def test_the_blow_is_damage_only_a_sunder_strikes_the_item_and_healing_stops_at_nothing_taken():
    fight = fighters("rise", ["accuracy=6"])
    hit = Resolution("hit", 7, (), {"result": 20, "criticals": 0})
    assert blow_of(fight, "Orc", "rise", (), hit).to_target.hits == 7
    assert blow_of(fight, "Orc", "d10-pool", (("option", "sunder"),), hit).to_target.hits == 0
    assert blow_of(fight, "Orc", "pte", (), Resolution("hit", -16, (), {})).to_target.hits == -4  # 4 taken
    blow = blow_of(fight, "Orc", "rise", (), Resolution("hit", 3, (), {"conditions": {"stun": 1}}))
    assert (blow.to_target.hits, blow.to_target.stun) == (3, 1)  # a system that gave conditions would carry them


def test_an_armament_survives_its_json_and_stays_hashable():
    fight = fighters("d10-pool", ["bonus=1", "damage=1d6", "toughness=3", "modifier=cover", "modifier=far", "ranged"])
    join = Join(fight.find("Hero").fighter)  # type: ignore[union-attr]
    again = event_of(event_json(join))
    assert again == join and hash(again) == hash(join)
