"""A write over HTTP may send the fight's `version` it saw (docs/api.md, "Fights"): 409 if anything was written
since, even an undo and another write up to the same event; the page sends it."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from helpers import LOCAL_BASE

from tables_app.http.app import create_app

FIGHTS = "/api/v1/fights"
BY_HAND = {"hits": 30, "def": 20, "armor": "MA", "weapon": "Dagger", "cmb": 10}


def test_a_write_with_the_version_it_saw_is_refused_after_an_undo_and_a_write_at_the_same_event(db_path: Path) -> None:
    with TestClient(create_app(db_path), base_url=LOCAL_BASE) as client:
        assert client.post(FIGHTS, json={"name": "Duel"}).status_code == 200
        client.post(f"{FIGHTS}/Duel/combatants", json={"as": "Hero", **BY_HAND})
        client.post(f"{FIGHTS}/Duel/combatants", json={"as": "Orc", "side": "B", **BY_HAND})
        seen = client.get(f"{FIGHTS}/Duel").json()
        assert (seen["seq"], seen["version"]) == (2, 2)
        client.post(f"{FIGHTS}/Duel/attacks", json={"attacker": "Hero", "target": "Orc", "dice": [50]})
        client.post(f"{FIGHTS}/Duel/undo", json={})
        client.post(f"{FIGHTS}/Duel/attacks", json={"attacker": "Orc", "target": "Hero", "dice": [50]})
        client.post(f"{FIGHTS}/Duel/undo", json={})  # back at event 2, three writes later
        stale = client.post(f"{FIGHTS}/Duel/attacks",
                            json={"attacker": "Hero", "target": "Orc", "dice": [60], "after": 2, "version": seen["version"]})
        assert stale.status_code == 409
        assert stale.json()["error"]["message"].startswith("the fight 'Duel' changed (its version is 6, not 2")
        fresh = client.post(f"{FIGHTS}/Duel/attacks", json={"attacker": "Hero", "target": "Orc", "dice": [60], "after": 2,
                                                            "version": 6})
        assert fresh.status_code == 200 and fresh.json()["fight"]["version"] == 7
        assert client.get(f"{FIGHTS}/Duel/log").json()["seq"] == 3
