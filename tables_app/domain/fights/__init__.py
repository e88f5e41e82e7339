"""Fights: combatants, rounds, and what criticals do from round to round.

The rules (docs/fights.md) are written once, as pure functions over an
immutable state: ``apply(fight, event) -> fight`` (rules.py). The tracker
replays a fight's log with them; the words of each step come from the same
place (account.py); a resolved attack becomes the blow it deals (blows.py).
"""

from tables_app.domain.fights.events import Adjust, Attack, EndRound, Edit, Event, Join, Leave, event_of, event_json
from tables_app.domain.fights.rules import (
    FightRuleError, apply, attack_terms, auto_target, cmb_modifiers, defense_of, refusal, replay, skipped,
)
from tables_app.domain.fights.state import (
    Armament, Blow, Combatant, Counters, Fight, Fighter, Harm, Status,
)

__all__ = ["Adjust", "Armament", "Attack", "Blow", "Combatant", "Counters", "Edit", "EndRound", "Event", "Fight", "Fighter",
           "FightRuleError", "Harm", "Join", "Leave", "Status", "apply", "attack_terms", "auto_target", "cmb_modifiers", "defense_of",
           "event_json", "event_of",
           "refusal", "replay", "skipped"]
