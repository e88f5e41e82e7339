"""The rules of the rest of a critical (docs/fights.md, "The rest of a critical"), on the domain's state:
what a blow gathers from several entries, whose weapon a fumble strikes, a log written before them."""

from __future__ import annotations

from fight_states import fight, state

from tables_app.domain.fights import Attack, Blow, EndRound, Fighter, Harm, apply, event_json, event_of, replay
from tables_app.domain.fights.blows import harm_of
from tables_app.domain.fights.state import Armament
from tables_app.domain.ranges import parse_range
from tables_app.domain.tables import Entry


def armed(name: str, side: str) -> Fighter:
    return Fighter(name, side, 30, 0, "MA", attacks=(Armament("Sword", 40), Armament("Bow", 20)))


def test_a_blow_gathers_the_rest_of_every_critical():  # type: ignore[no-untyped-def]
    first = Entry(parse_range("1-10"), "a", prone=1, knocked_out=2, timed_penalties=((-10, 2),))
    second = Entry(parse_range("1-10"), "b", prone=2, knocked_out=3, useless_arm=True, timed_penalties=((-5, 1),))
    harm = harm_of([first, second], 4)
    assert (harm.prone, harm.knocked_out, harm.useless_arm, harm.timed_penalties) == (3, 5, True, ((-10, 2), (-5, 1)))
    assert harm_of([first, Entry(parse_range("1-10"), "c", knocked_out=0)], 0).knocked_out == 0  # until woken wins


def test_a_fumbles_drop_strikes_the_attackers_weapon_it_attacked_with():  # type: ignore[no-untyped-def]
    start = fight(armed("Hero", "A"), armed("Orc", "B"))
    after = apply(start, Attack("Hero", "Orc", Blow(to_attacker=Harm(drops_weapon=True)), "Bow"))
    assert (state(after, "Hero").now.dropped, state(after, "Orc").now.dropped) == (("Bow",), ())
    after = apply(after, Attack("Orc", "Hero", Blow(to_target=Harm(breaks_weapon=True)), "Sword"))
    assert state(after, "Hero").now.broken == ("Sword",)  # Bow already dropped: it held its Sword


def test_a_log_written_before_them_still_replays():  # type: ignore[no-untyped-def]
    start = fight(armed("Hero", "A"), armed("Orc", "B"))
    recorded = event_json(Attack("Hero", "Orc", Blow(to_target=Harm(hits=3, stun=1)), "Sword"))
    for harm in (recorded["blow"]["target"], recorded["blow"]["attacker"]):
        for key in ("prone", "knocked_out", "blinded", "drops_weapon", "breaks_weapon", "useless_arm", "useless_leg",
                    "timed_penalties"):
            del harm[key]
    after = replay(start, [event_of(recorded), EndRound()])
    assert (state(after, "Orc").taken, state(after, "Orc").now.stun) == (3, 1)  # (its stun counts from round 2)


def test_the_new_keys_are_recorded_and_read_back():  # type: ignore[no-untyped-def]
    harm = Harm(prone=2, knocked_out=0, blinded=1, drops_weapon=True, useless_leg=True, timed_penalties=((-20, 3),))
    event = Attack("Hero", "Orc", Blow(to_target=harm), "Sword")
    assert event_of(event_json(event)) == event
