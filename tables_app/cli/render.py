"""Human output: lists, grids, entries and odds (never for --json).

Everything is laid out for the width it is printed at: tables whose columns
would be squeezed below their longest word (or name: lists and the fields
that name things keep each name on one line, layout.py) become blocks of
text, wide grids split into column groups, and text wraps at spaces. No word
is ever cut to ``…`` and no line ends in padding.
"""

from __future__ import annotations

from typing import Any, Iterable

from rich.console import Console, Group, RenderableType
from rich.text import Text

from tables_app.domain import kinds
from tables_app.domain.effects import effect_words
from tables_app.domain.bounds import AUTOMATIC_MISS
from tables_app.domain.cells import FUMBLE_TEXT
from tables_app.domain.rulesets import DEFAULT_RULESET
from tables_app.domain.rulesets import shown as shown_name
from tables_app.domain.tables import states_its_condition
from tables_app.cli.layout import (
    BORDER,
    AtWidth,
    boxed_table,
    column_groups,
    fitting_widths,
    hanging_lines,
    indented_lines,
    joined_lines,
    table_or_records,
    title_line,
    wrapped,
)
from tables_app.cli.unbroken import unbroken, unbroken_list

# ------------------------------------------------------------------ lists
LIST_COLUMNS = {
    "attack": ("name", "armor", "rows", "workbook", "sheet"),
    "critical": ("name", "code", "rows", "workbook", "sheet"),
    "fumble": ("name", "rows", "workbook", "sheet"),
    "weapons": ("name", "attack_table", "max_result", "clumsy", "critical", "secondary_critical", "fumble_table", "fumble_modifier", "roll"),
    "creatures": ("name", "defense", "armor", "rank", "hp", "features", "attacks", "workbook"),
    "severities": ("name", "workbook", "sheet"),
    "rulesets": ("name", "attack", "critical", "fumble", "weapons", "creatures", "workbooks"),
}
NUMBERS = ("rows", "max result", "clumsy", "defense", "hp", "fumble modifier", "attack", "critical", "fumble", "weapons", "creatures")


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def _names(value: object) -> str:
    """A listed value: a name, or a list of them, each kept on one line
    where the column or line allows (layout.unbroken); a creature's attacks
    as its workbook writes them (`Scimitar 55; Bite 40`)."""
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return unbroken_list((f"{a['weapon']} {a['cmb']}" for a in value), "; ")
    if isinstance(value, list):
        return unbroken_list(str(v) for v in value)
    return unbroken(_text(value))


def listing(kind: str, items: list[dict[str, Any]]) -> Group:
    columns = LIST_COLUMNS[kind]
    headers = [column.replace("_", " ") for column in columns]
    rows = [[_names(_named(item) if c == "name" and kind != "rulesets" else item.get(c)) for c in columns] for item in items]
    title = "Rulesets" if kind == "rulesets" else kinds.label(kind, 2).capitalize()
    return Group(title_line(f"{title} ({len(items)})"), table_or_records(headers, rows, right=NUMBERS))


def _named(item: dict[str, Any]) -> str:
    """A name as people read it: plain in ``default``, RULESET:NAME elsewhere."""
    return shown_name(item.get("ruleset", DEFAULT_RULESET), item["name"])


def listings(data: dict[str, list[dict[str, Any]]]) -> Group:
    """Every kind listed; the rulesets too, unless ``default`` is the only one
    (beside other kinds, a list of one ruleset says nothing)."""
    parts = [listing(kind, items) for kind, items in data.items()
             if not (kind == "rulesets" and len(data) > 1 and len(items) <= 1)]
    return Group(*parts)


# ------------------------------------------------------------------ tables and entries
def attack_cell(data: dict[str, Any]) -> AtWidth:
    if data["row"] is None:
        automatic = data.get("automatic_miss")
        why = (f"at or below the automatic miss ({automatic})" if automatic is not None and data["result"] <= automatic
               else "below the first row")
        return wrapped(Text(f"{data['table']} {data['result']} {data['armor']}: {why}  (miss)", style="dim"))
    text = Text(f"{data['table']} {data['row']} {data['armor']}: ")
    text.append_text(_cell(data["text"]))
    outcome = data["outcome"].replace("_", " ")
    text.append(f"  ({outcome} on {data['critical_table']})" if data["critical_table"] else f"  ({outcome})")
    return wrapped(text)


def _cell(text: str) -> Text:
    if text == FUMBLE_TEXT:
        return Text(text, style=OUTCOME_STYLE["fumble"])
    if text[:1].isdigit() and not text.isdigit():  # hits and a critical: `18 E Hacking`, `18ES+BK`
        return Text(text, style="bold red")
    if text in ("0",) or not text[:1].isdigit():
        return Text(text, style="dim")
    return Text(text)


def shown(data: dict[str, Any], full_names: bool = False) -> RenderableType:
    """A table, weapon or creature as `tables show` prints it. An attack
    table whose cells name critical tables (`18 E Hacking + B Mauling`) is
    printed in the books' compact notation (`18ES+BK`) with its key, unless
    ``full_names``."""
    kind = data["kind"]
    ruleset = data.get("ruleset", DEFAULT_RULESET)
    if kind == "attack":
        title: RenderableType = title_line(f"{shown_name(ruleset, data['table'])} (attack table)")
        lines = [automatic_miss_line(data["automatic_miss"])]
        compact = not full_names and "critical_codes" in data
        if compact and data["critical_codes"]:
            key = ", ".join(f"{code} {name}" for name, code in data["critical_codes"].items())
            lines.append(f"Criticals: {key} (18ES: 18 hits and an E critical on the S table; --full-names to spell them out).")
        return Group(title, *(wrapped(Text(line)) for line in lines if line),
                     AtWidth(lambda console, width: _attack_grid(data, width, compact)))
    if kind in ("critical", "fumble"):
        code = f", code {data['code']}" if data.get("code") else ""
        code += f", rolled {data['roll_kind']}" if data.get("roll_kind", "d100") != "d100" else ""  # `Roll kind | oeh`
        code += ", conditions read instead" if data.get("condition_reading") == "instead" else ""  # `Conditions | instead`
        title = title_line(f"{shown_name(ruleset, data['table'])} ({kind} table{code})")
        if data.get("legend"):  # the book's key: how its signs were read
            key = "; ".join(f"{item['symbol']} {item['means']}" for item in data["legend"])
            title = Group(title, wrapped(Text(f"Legend: {key}", style="dim")))
        if data.get("columns"):
            choice = wrapped(Text(_column_choice_line(data), style="dim"))
            return Group(title, choice, AtWidth(lambda console, width: _printed_entries(console, data, width)))
        return Group(title, AtWidth(lambda console, width: _entries(console, data["entries"], width)))
    unset_columns = {key for key in ("critical_column", "fumble_column", "max_critical") if key in data and data[key] is None}
    rows = [[key.replace("_", " "), _names(value) if key in NAMED_FIELDS or isinstance(value, list) else _text(value)]
            for key, value in data.items() if key not in ("kind", "name", "ruleset", *unset_columns)]
    return Group(title_line(f"{shown_name(ruleset, data['name'])} ({kind})"), table_or_records(["field", "value"], rows, show_header=False))


# A weapon's or creature's fields that name something (kept on one line where
# they fit, as lists are); any other text wraps at its spaces.
NAMED_FIELDS = ("attack_table", "critical", "secondary_critical", "fumble_table", "workbook", "sheet")


def automatic_miss_line(automatic_miss: int | None) -> str | None:
    """What a table's automatic miss says, unless it is the usual 10 (VsD)."""
    if automatic_miss == AUTOMATIC_MISS:
        return None
    if automatic_miss is None:
        return "No automatic miss: every row is read."
    return f"Automatic miss: a result of {automatic_miss} or less misses."


def _attack_grid(data: dict[str, Any], width: int, compact: bool = False) -> Group:
    # Highest first, as printed tables are: the JSON lists the UM rows after
    # the others, so they come out on top, as printed.
    rows = list(reversed(data["rows"]))
    key = ("Result", [row["range"] for row in rows])
    field = "compact" if compact else "cells"
    blocks = [[(armor, [_cell(row.get(field, row["cells"])[i]) for row in rows])] for i, armor in enumerate(data["armor"])]
    return column_groups(key, blocks, width)


def _entries(console: Console, entries: list[dict[str, Any]], width: int) -> Text:
    """Each entry as a block: range, condition and title, then its text and
    effects indented below (a table of nine columns has no room for text)."""
    lines: list[Text] = []
    branched = _branched(entries)
    for e in entries:
        head = Text(e["range"], style="bold")
        if e["condition"]:
            head.append(f" ({e['condition']})")
        elif (e["range"], e["column"]) in branched:  # the branch for everyone else, beside several features'
            head.append(" (otherwise)")
        if e["title"]:
            head.append(f" {e['title']}", style="bold")
        lines += hanging_lines(console, head, width, 2)
        lines += indented_lines(console, Text(e["text"]), width, 2)
        summary = effects(e)
        if summary:
            lines += indented_lines(console, Text(summary, style="yellow"), width, 2)
    return joined_lines(lines)


def _branched(entries: list[dict[str, Any]]) -> set[tuple[str, str | None]]:
    """The (range, column) places that hold more than one entry: branches."""
    seen: set[tuple[str, str | None]] = set()
    branched: set[tuple[str, str | None]] = set()
    for e in entries:
        place = (e["range"], e.get("column"))
        (branched if place in seen else seen).add(place)
    return branched


def _column_choice_line(data: dict[str, Any]) -> str:
    columns = ", ".join(data["columns"])
    if data.get("choice") == "severity":
        return f"A column per severity ({columns}): the severity picks the column, the roll is not modified."
    picker = "Critical column" if data["kind"] == "critical" else "Fumble column"
    return f"Columns {columns}: the weapon's {picker} picks the column."


def _printed_entries(console: Console, data: dict[str, Any], width: int) -> Text:
    """A printed table as the book reads: each range once, then each
    column's entries below it (``  E: With helm: ...``), their effects below them."""
    cells: dict[str, dict[str, list[dict[str, Any]]]] = {}  # range → column → entries
    for e in data["entries"]:
        cells.setdefault(e["range"], {}).setdefault(e["column"], []).append(e)
    lines: list[Text] = []
    for label, columns in cells.items():
        lines.append(Text(label, style="bold"))
        for column in data["columns"]:
            for e in columns.get(column, []):
                head = Text(column, style="bold")
                if e["condition"] and not states_its_condition(e["text"], e["condition"]):
                    head.append(f" ({e['condition']})")
                elif e["condition"] is None and len(columns[column]) > 1:  # everyone else's, beside several features'
                    head.append(" (otherwise)")
                head.append(": ")
                head.append_text(_entry_text(e))
                lines += [Text("  ") + line for line in hanging_lines(console, head, max(width - 2, 1), 2)]
                summary = effects(e)
                if summary:
                    lines += indented_lines(console, Text(summary, style="yellow"), width, 4)
    return joined_lines(lines)


def _entry_text(e: dict[str, Any]) -> Text:
    """A lone branch (`With shield: ...`) with nothing after it leaves everyone else an empty entry."""
    return Text(e["text"]) if e["text"] else Text(NOTHING_HAPPENS, style="dim")


NOTHING_HAPPENS = "(nothing happens)"


def other_branch(e: dict[str, Any]) -> str:
    """The branch not taken, as a reminder: `if leg armor: Greave ...`, or
    its text alone when that says its condition already (`w/ leg armor: ...`)."""
    shown = e["title"] or e["text"]
    if not e["title"] and states_its_condition(e["text"], e["condition"]):
        return f"({shown})"
    if e["condition"] is None:  # the branch for everyone else, beside conditions on several features
        return f"(otherwise: {shown or NOTHING_HAPPENS})"
    return f"(if {e['condition']}: {shown})"


def _zero(n: int) -> str:
    return "" if n == 0 else str(n)


def effects(e: dict[str, Any]) -> str:
    """An entry's effects in words (domain/effects.py, effect_words)."""
    return effect_words(e)


def entry_result(data: dict[str, Any]) -> AtWidth:
    e = data["entry"]
    text = Text()
    text.append(f"{data['table']} {data['roll']}")
    if data["modified_roll"] != data["roll"]:
        text.append(f" → {data['modified_roll']}")
    text.append(f" ({e['range']}")
    if data.get("column"):
        text.append(f", column {data['column']}")
    text.append(f", {e['condition']})" if e["condition"] else ")")
    text.append("\n")
    if e["title"]:
        text.append(e["title"] + ". ", style="bold")
    text.append_text(_entry_text(e))
    text.append("\n")
    summary = effects(e)
    if summary:
        text.append(summary + "\n", style="yellow")
    for other in data.get("branches", []):
        if other["condition"] != e["condition"]:
            text.append(other_branch(other) + "\n", style="dim")
    text.rstrip()
    return wrapped(text)


# ------------------------------------------------------------------ resolutions
OUTCOME_STYLE = {"fumble": "bold magenta", "miss": "dim", "ineffective": "dim", "no_damage": "", "hit": "bold", "critical": "bold red"}


def armor_words(code: str) -> str:
    """An armor column as words: ``MA``; a numbered armor type ``AT 9``."""
    return f"AT {code}" if str(code).isdigit() else str(code)


def target_words(a: dict[str, Any], defense: object = None) -> str:
    """``vs Orc Warrior (DEF 20, MA, heroic)`` or ``vs DEF 20, MA``; a
    printed table's numbered armor type as ``AT 9``."""
    facts = [f"DEF {a['defense'] if defense is None else defense}", armor_words(a["armor"])]
    if a.get("rank", "normal") != "normal":
        facts.append(a["rank"])
    if a.get("features"):
        facts.append(", ".join(a["features"]))
    if a.get("target"):
        return f"vs {shown_name(a.get('target_ruleset') or DEFAULT_RULESET, a['target'])} ({', '.join(facts)})"
    return f"vs {', '.join(facts)}"


def _steps(console: Console, steps: list[str], width: int) -> list[Text]:
    """Resolution steps, each wrapped under its own indentation."""
    lines: list[Text] = []
    for step in steps:
        indent = len(step) - len(step.lstrip(" "))
        style = "dim" if step.startswith("  (") else ("italic" if indent else "")
        lines += hanging_lines(console, Text(step, style=style), width, indent + 2)
    return lines


def attack(data: dict[str, Any]) -> AtWidth:
    a = data["attack"]
    cap = f", Max {a['max_result']}" if a["max_result"] is not None else ""
    clumsy = f"clumsy 1-{a['clumsy']}" if a["clumsy"] else "never fumbles"
    head = Text(f"{_weapon(a)} ({a['attack_table']}{cap}, {clumsy})", style="bold")
    head.append(" " + target_words(a))
    return AtWidth(lambda console, width: joined_lines([*hanging_lines(console, head, width, 2), *_steps(console, data["steps"], width),
                                                  *hanging_lines(console, _ending(data, data["damage"]), width, 2)]))


def _ending(data: dict[str, Any], damage: int, verb: str = "damage") -> Text:
    text = Text(data["outcome"].replace("_", " ").upper(), style=OUTCOME_STYLE.get(data["outcome"], "bold"))
    text.append(f", {damage} {verb}.")
    source = f"seed {data['seed']}" if "seed" in data else "given"
    text.append(f"  Dice: {', '.join(map(str, data['dice'])) or 'none'} ({source})", style="dim")
    return text


def formula(data: dict[str, Any]) -> AtWidth:
    ending = _ending(data, abs(data["damage"]), "healed" if data["damage"] < 0 else "damage")
    return AtWidth(lambda console, width: joined_lines([*_steps(console, data["steps"], width), *hanging_lines(console, ending, width, 2)]))


# ------------------------------------------------------------------ odds
BAR_WIDTH = 30
EIGHTHS = " ▏▎▍▌▋▊▉"


def chances_heading(data: dict[str, Any]) -> str:
    """``Quick: exact odds, from round 1 (after event 2)``: the first line of
    the chances of a fight, saying how they were had (exact; estimated from
    N fights, ± the largest standard error of a share; certified bounds, at
    most so wide), and the title of its plot."""
    method = data["method"]
    if method == "estimated":
        how = f"estimated from {data['count']:,} fights, ± {_points(data['largest_se'])}"
    elif method == "certified":
        how = f"certified bounds, each at most {_points(data['width'])} wide"
    else:
        how = "exact odds"
    return f"{data['fight']}: {how}, from round {data['from_round']} (after event {data['seq']})"


def _points(p: float) -> str:
    """A small share in percentage points, two decimals (a hundredth of a point when that is all)."""
    return f"{100 * p:.2f}%" if p >= 0.00005 else "<0.01%"


def percent(p: float, digits: int = 4) -> str:
    """A probability at ``digits`` decimals of a percent. Exact 0 and 1 print
    as ``0`` and ``100%``; others too near them to show say so
    (``<0.0001%``), so rounding noise never looks like a real zero."""
    if p == 0 or p == 1:
        return "0" if p == 0 else "100%"
    smallest = 10.0 ** -digits / 100
    if p < smallest / 2:
        return f"<{smallest:.{digits}%}"
    if p > 1 - smallest / 2:
        return f">{1 - smallest:.{digits}%}"
    return f"{p:.{digits}%}"


def bar(p: float, width: int = BAR_WIDTH) -> str:
    """A bar in eighths of a cell; any chance above 0 shows at least a sliver."""
    eighths = round(p * width * 8)
    if p > 0:
        eighths = max(eighths, 1)
    full, part = divmod(eighths, 8)
    return "█" * full + (EIGHTHS[part] if part else "")


def _with_bars(headers: list[str], rows: list[list[str]], chances: list[float], right: Iterable[str]) -> AtWidth:
    """A table of probabilities with a bar column as wide as the room left
    (up to BAR_WIDTH), or none at all when there is too little room."""
    def layout(console: Console, width: int) -> RenderableType:
        widths = fitting_widths(headers, rows, width)
        room = width - 1 - sum(widths or []) - BORDER * (len(headers) + 1)
        if widths is None or room < 8:
            return table_or_records(headers, rows, right=right).layout(console, width)
        bars = min(BAR_WIDTH, room)
        table = boxed_table([*headers, ""], [[*row, Text(bar(p, bars), style="cyan")] for row, p in zip(rows, chances)], [*widths, bars], right)
        return table

    return AtWidth(layout)


def _distribution(title: str, values: dict[str, Any], label: str) -> Group:
    rows = [[str(key).replace("_", " "), percent(p)] for key, p in values.items()]
    return Group(title_line(title), _with_bars([label, "probability"], rows, list(values.values()), right=["probability"]))


def odds(data: dict[str, Any]) -> Group:
    parts: list[RenderableType] = []
    parts.append(title_line(heading(data) if data["system"] == "table" else formula_heading(data)))
    parts.append(_distribution("Outcomes", data["outcomes"], "outcome"))
    if data.get("critical_severity") and any(data["critical_severity"].values()):
        parts.append(_distribution("Critical severity (after reduction)", data["critical_severity"], "severity"))
    if data.get("fumble_rows"):
        parts.append(_distribution("Fumble table rows", data["fumble_rows"], "row"))
    if isinstance(data.get("criticals"), dict) and data["criticals"]:
        parts.append(_distribution("Criticals (n)", _without_zero_tail(data["criticals"]), "n"))
    parts.append(title_line(f"Expected damage: {data['expected_damage']:.4f}"))
    return Group(*parts)


def _without_zero_tail(values: dict[str, Any]) -> dict[str, Any]:
    """A count's distribution up to its last count that can happen: the JSON
    keeps every count, but a column of zeros after it says nothing (and the
    JSON rounds chances below 1e-12 to 0)."""
    keys = list(values)  # (the JSON leaves out counts whose odds round to 0; one the library gives may be 0)
    while len(keys) > 1 and values[keys[-1]] == 0:
        keys.pop()
    return {key: values[key] for key in keys}


def formula_heading(data: dict[str, Any]) -> str:
    """A formula system's attack as given: ``rise: accuracy 5, damage 2d6, def 3``. Plots use it too."""
    words = []
    for name, value in (data.get("attack") or {}).items():
        option = name.replace("_", " ")
        if value is True:  # a flag given: its name alone
            words.append(option)
        else:
            words.append(f"{option} {', '.join(map(str, value)) if isinstance(value, list) else value}")
    return f"{data['system']}: {', '.join(words)}" if words else data["system"]


def heading(data: dict[str, Any]) -> str:
    """Who attacks whom (table system): weapon, CMB and target, a sweep's
    span in place of the value it sweeps. Plots use it too."""
    a = data["attack"]
    values = data.get("values") or []
    span = f"{values[0]}–{values[-1]}" if values else None
    cmb = span if data.get("sweep") == "cmb" else a["effective_cmb"]
    defense = span if data.get("sweep") == "def" else None
    return f"{_weapon(a)} ({a['attack_table']}), CMB {cmb} {target_words(a, defense)}"


def _weapon(a: dict[str, Any]) -> str:
    """The weapon as people read it: RULESET:NAME outside ``default``."""
    return shown_name(a.get("ruleset") or DEFAULT_RULESET, a["weapon"])


def sweep(data: dict[str, Any]) -> Group:
    """Expected damage and P(critical), both at two decimals, per swept value
    and armor column; column groups when the armor columns do not fit."""
    axis = data["sweep"]
    by_value: dict[str, Any] = {}
    for cell in data["grid"]:
        by_value.setdefault(cell[axis], {})[cell["armor"]] = cell
    key = (axis.upper(), [str(value) for value in by_value])
    blocks = [[(f"{armor} dmg", [f"{cells[armor]['expected_damage']:.2f}" for cells in by_value.values()]),
               (f"{armor} crit", [percent(cells[armor]["outcomes"]["critical"], 2) for cells in by_value.values()])]
              for armor in data["armor"]]
    title = f"Expected damage and P(critical) by {axis.upper()} and armor"
    if data.get("attack"):
        title += f": {heading(data)}"
    return Group(title_line(title), AtWidth(lambda console, width: column_groups(key, blocks, width)))


def simulated(data: dict[str, Any]) -> Group:
    title = f"{data['count']:,} simulated attacks (seed {data['seed']})"
    words = list(data["counts"])
    rows = [[word.replace("_", " "), f"{data['counts'][word]:,}", percent(data["outcomes"][word])] for word in words]
    table = _with_bars(["outcome", "count", "frequency"], rows, [data["outcomes"][w] for w in words], right=["count", "frequency"])
    mean = title_line(f"Mean damage: {data['mean_damage']:.4f} (± {data['damage_standard_error']:.4f})")
    return Group(title_line(title), table, mean)
