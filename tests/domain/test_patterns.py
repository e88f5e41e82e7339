"""The effect reader's patterns are compiled at their first use, not when domain/effects.py is imported (issue #44:
they took 17-34 ms of every command's start-up, and a lookup, a sweep or a simulation reads no effect's text)."""

import json
import re
import subprocess
import sys

from tables_app.domain.patterns import deferred


def test_a_deferred_pattern_is_the_pattern_re_compiles_once_used():
    pattern = deferred(r"(?i)\bstun(?:s|ned)?\b")
    assert pattern._compiled is None  # type: ignore[attr-defined]
    assert pattern.findall("Stunned, then stuns") == ["Stunned", "stuns"]
    assert pattern._compiled is re.compile(r"(?i)\bstun(?:s|ned)?\b")  # type: ignore[attr-defined]  # re's own cache
    assert pattern.pattern == r"(?i)\bstun(?:s|ned)?\b" and pattern.flags == re.compile(pattern.pattern).flags


PROBE = """
import json, re
from tables_app.domain import effects
from tables_app.domain.patterns import _Deferred
deferred = {name: value for name, value in vars(effects).items() if isinstance(value, _Deferred)}
compiled = sorted(name for name, value in deferred.items() if value._compiled is not None)
compiled += sorted(name for name, value in vars(effects).items() if isinstance(value, re.Pattern))  # made eagerly
effects.parse_effects("+5H, 2 stun, prone")  # the reader's first use compiles what it reads with
print(json.dumps({"deferred": len(deferred), "compiled at import": compiled,
                  "compiled once used": sum(value._compiled is not None for value in deferred.values())}))
"""


def test_importing_the_effect_reader_compiles_none_of_its_patterns():
    report = json.loads(subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True).stdout)
    assert report["deferred"] >= 8 and report["compiled at import"] == []
    assert report["compiled once used"] > 0
