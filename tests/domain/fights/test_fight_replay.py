"""A fight is its log (docs/fights.md, "The log is the fight"): the state
after any prefix of a log, replayed from the log's JSON, equals the state
built event by event, so dropping the last event (undo) gives the state
before it exactly. A hypothesis property over random fights."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from tables_app.domain.fights import (
    Attack, Blow, Edit, EndRound, Event, Fight, Fighter, Harm, Join, apply, event_json, event_of, refusal, replay,
)

NAMES = ("Hero", "Friend", "Orc", "Goblin")
harms = st.builds(Harm, hits=st.integers(0, 25), bleed=st.integers(0, 3), stun=st.integers(0, 2),
                  no_parry=st.integers(0, 2), must_parry=st.integers(0, 1), penalty=st.integers(-20, 0),
                  death_in=st.one_of(st.none(), st.integers(0, 4)))
blows = st.builds(Blow, to_target=harms, to_attacker=st.one_of(st.just(Harm()), harms),
                  attacker_bonus=st.integers(0, 10), target_bonus=st.integers(0, 5))


@st.composite
def fights(draw: st.DrawFn) -> list[Event]:
    """A valid log: the joins, then attacks the rules allow, rounds' ends and edits, until it is over or long."""
    events: list[Event] = [Join(Fighter(name, "A" if i < 2 else "B", draw(st.integers(10, 60)), draw(st.integers(0, 30)),
                                        "MA", parry=draw(st.integers(0, 10))))
                           for i, name in enumerate(NAMES)]
    fight = replay(Fight("property"), events)
    for _ in range(draw(st.integers(0, 30))):
        if fight.over:
            break
        choice = draw(st.integers(0, 9))
        if choice < 7:
            pairs = [(a, t) for a in NAMES for t in NAMES if refusal(fight, a, t) is None]
            if not pairs:
                event: Event = EndRound()
            else:
                attacker, target = draw(st.sampled_from(pairs))
                event = Attack(attacker, target, draw(blows), "Dagger", 10, 5, (draw(st.integers(1, 100)),))
        elif choice < 9:
            event = EndRound()
        else:
            event = Edit(draw(st.sampled_from(NAMES)), (("stun", draw(st.integers(0, 2))), ("taken", draw(st.integers(0, 20)))))
        fight = apply(fight, event)
        events.append(event)
    return events


@settings(max_examples=150, deadline=None)
@given(fights())
def test_any_prefix_of_the_stored_log_replays_to_the_state_built_step_by_step(events: list[Event]) -> None:
    stepwise = [Fight("property")]
    for event in events:
        stepwise.append(apply(stepwise[-1], event))
    stored = [event_of(json.loads(json.dumps(event_json(e)))) for e in events]  # as the database keeps them
    assert stored == events
    for n in range(len(events) + 1):
        assert replay(Fight("property"), stored[:n]) == stepwise[n]
