"""Human output: rich tables for lists, grids and entries (never for --json)."""

from __future__ import annotations

import sys

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

def console() -> Console:
    # Piped output is read whole, not in a terminal: do not wrap it at 80.
    return Console(highlight=False, width=None if sys.stdout.isatty() else 200)


LIST_COLUMNS = {
    "attack": ("name", "armor", "rows", "workbook", "sheet"),
    "critical": ("name", "code", "rows", "workbook", "sheet"),
    "fumble": ("name", "rows", "workbook", "sheet"),
    "weapons": ("name", "attack_table", "max_result", "clumsy", "critical", "secondary_critical", "fumble_table", "fumble_modifier", "roll"),
    "creatures": ("name", "defense", "armor", "rank", "hp", "features", "workbook"),
    "severities": ("name", "workbook", "sheet"),
}
TITLES = {"attack": "Attack tables", "critical": "Critical tables", "fumble": "Fumble tables",
          "weapons": "Weapons", "creatures": "Creatures", "severities": "Severity scales"}


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def listing(kind: str, items: list[dict]) -> Table:
    columns = LIST_COLUMNS[kind]
    table = Table(title=f"{TITLES[kind]} ({len(items)})", title_justify="left")
    for column in columns:
        table.add_column(column.replace("_", " "), justify="right" if column in ("rows", "max_result", "clumsy", "defense", "hp", "fumble_modifier") else "left")
    for item in items:
        table.add_row(*(_text(item.get(c)) for c in columns))
    return table


def listings(data: dict[str, list[dict]]) -> Group:
    return Group(*(listing(kind, items) for kind, items in data.items()))


def attack_cell(data: dict) -> Text:
    text = Text(f"{data['table']} {data['row']} {data['armor']}: ")
    text.append_text(_cell(data["text"]))
    extra = f", critical on {data['critical_table']}" if data["critical_table"] else ""
    text.append(f"  ({data['outcome'].replace('_', ' ')}{extra})")
    return text


def _cell(text: str) -> Text:
    words = text.split()
    if len(words) > 1:
        return Text(text, style="bold red")
    if text in ("0",) or not text[:1].isdigit():
        return Text(text, style="dim")
    return Text(text)


def shown(data: dict) -> Table | Text:
    kind = data["kind"]
    if kind == "attack":
        table = Table(title=f"{data['table']} (attack table)", title_justify="left")
        table.add_column("Result", justify="right")
        for armor in data["armor"]:
            table.add_column(armor, justify="right")
        for row in reversed(data["rows"]):  # highest first, as printed tables are
            table.add_row(row["range"], *(_cell(c) for c in row["cells"]))
        return table
    if kind in ("critical", "fumble"):
        code = f", code {data['code']}" if data.get("code") else ""
        table = Table(title=f"{data['table']} ({kind} table{code})", title_justify="left", show_lines=False)
        for column in ("Roll", "If", "Title", "Text", "Hits", "Bleed", "Stun", "Penalty", "Effects"):
            table.add_column(column, justify="right" if column in ("Hits", "Bleed", "Stun", "Penalty") else "left")
        for e in data["entries"]:
            table.add_row(e["range"], e["condition"] or "", e["title"] or "", e["text"], *(_zero(e[k]) for k in ("hits", "bleed", "stun", "penalty")), ", ".join(e["effects"]))
        return table
    table = Table(title=f"{data['name']} ({kind})", title_justify="left", show_header=False)
    table.add_column("field")
    table.add_column("value")
    for key, value in data.items():
        if key not in ("kind", "name"):
            table.add_row(key.replace("_", " "), _text(value))
    return table


def _zero(n: int) -> str:
    return "" if n == 0 else str(n)


def entry_result(data: dict) -> Text:
    e = data["entry"]
    text = Text()
    text.append(f"{data['table']} {data['roll']}")
    if data["modified_roll"] != data["roll"]:
        text.append(f" → {data['modified_roll']}")
    text.append(f" ({e['range']}")
    text.append(f", {e['condition']})" if e["condition"] else ")")
    text.append("\n")
    if e["title"]:
        text.append(e["title"] + ". ", style="bold")
    text.append(e["text"] + "\n")
    effects = [f"+{e['hits']} hits" if e["hits"] else "", f"bleed {e['bleed']}/rnd" if e["bleed"] else "",
               f"stun {e['stun']} rnd" if e["stun"] else "", f"penalty {e['penalty']}" if e["penalty"] else ""]
    effects += e["effects"]
    summary = ", ".join(x for x in effects if x)
    if summary:
        text.append(summary + "\n", style="yellow")
    for other in data.get("branches", []):
        if other["condition"] != e["condition"]:
            text.append(f"(if {other['condition']}: {other['title'] or other['text']})\n", style="dim")
    text.rstrip()
    return text


OUTCOME_STYLE = {"fumble": "bold magenta", "miss": "dim", "ineffective": "dim", "no_damage": "", "hit": "bold", "critical": "bold red"}


def attack(data: dict) -> Text:
    a = data["attack"]
    text = Text()
    cap = f", Max {a['max_result']}" if a["max_result"] is not None else ""
    text.append(f"{a['weapon']} ({a['attack_table']}{cap}, clumsy 1-{a['clumsy']})", style="bold")
    target = f" vs DEF {a['defense']}, {a['armor']}"
    if a["rank"] != "normal":
        target += f", {a['rank']}"
    if a["features"]:
        target += f" ({', '.join(a['features'])})"
    text.append(target + "\n")
    for step in data["steps"]:
        text.append(step + "\n", style="dim" if step.startswith("  (") else ("italic" if step.startswith("  ") else ""))
    text.append(data["outcome"].replace("_", " ").upper(), style=OUTCOME_STYLE[data["outcome"]])
    text.append(f", {data['damage']} damage.")
    source = f"seed {data['seed']}" if "seed" in data else "given"
    text.append(f"  Dice: {', '.join(map(str, data['dice']))} ({source})", style="dim")
    return text


def formula(data: dict) -> Text:
    text = Text()
    for step in data["steps"]:
        text.append(step + "\n")
    text.append(data["outcome"].replace("_", " ").upper(), style=OUTCOME_STYLE.get(data["outcome"], "bold"))
    verb = "healed" if data["damage"] < 0 else "damage"
    text.append(f", {abs(data['damage'])} {verb}.")
    source = f"seed {data['seed']}" if "seed" in data else "given"
    text.append(f"  Dice: {', '.join(map(str, data['dice'])) or 'none'} ({source})", style="dim")
    return text


BAR_WIDTH = 30


def _bar(p: float) -> str:
    cells = p * BAR_WIDTH
    full = int(cells)
    return "█" * full + ("▌" if cells - full >= 0.5 else "")


def _distribution(title: str, values: dict, label: str) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column(label)
    table.add_column("probability", justify="right")
    table.add_column("")
    for key, p in values.items():
        table.add_row(str(key).replace("_", " "), f"{p:.4%}" if p else "0", Text(_bar(p), style="cyan"))
    return table


def odds(data: dict) -> Group:
    parts = []
    if data["system"] == "table":
        a = data["attack"]
        parts.append(Text(f"{a['weapon']} ({a['attack_table']}), CMB {a['effective_cmb']} vs DEF {a['defense']}, {a['armor']}", style="bold"))
    parts.append(_distribution("Outcomes", data["outcomes"], "outcome"))
    if data.get("critical_severity") and any(data["critical_severity"].values()):
        parts.append(_distribution("Critical severity (after reduction)", data["critical_severity"], "severity"))
    if data.get("fumble_rows"):
        parts.append(_distribution("Fumble table rows", data["fumble_rows"], "row"))
    if isinstance(data.get("criticals"), dict) and data["criticals"]:
        parts.append(_distribution("Criticals (n)", data["criticals"], "n"))
    parts.append(Text(f"Expected damage: {data['expected_damage']:.4f}", style="bold"))
    return Group(*parts)


def sweep(data: dict) -> Table:
    axis = data["sweep"]
    table = Table(title=f"Expected damage and P(critical) by {axis.upper()} and armor", title_justify="left")
    table.add_column(axis.upper(), justify="right")
    for armor in data["armor"]:
        table.add_column(f"{armor} dmg", justify="right")
        table.add_column(f"{armor} crit", justify="right")
    by_value: dict = {}
    for cell in data["grid"]:
        by_value.setdefault(cell[axis], {})[cell["armor"]] = cell
    for value, cells in by_value.items():
        row = [str(value)]
        for armor in data["armor"]:
            row += [f"{cells[armor]['expected_damage']:.2f}", f"{cells[armor]['outcomes']['critical']:.1%}"]
        table.add_row(*row)
    return table


def simulated(data: dict) -> Group:
    title = f"{data['count']:,} simulated attacks (seed {data['seed']})"
    table = Table(title=title, title_justify="left")
    table.add_column("outcome")
    table.add_column("count", justify="right")
    table.add_column("frequency", justify="right")
    table.add_column("")
    for word, n in data["counts"].items():
        p = data["outcomes"][word]
        table.add_row(word.replace("_", " "), f"{n:,}", f"{p:.4%}", Text(_bar(p), style="cyan"))
    mean = Text(f"Mean damage: {data['mean_damage']:.4f} (± {data['damage_standard_error']:.4f})", style="bold")
    return Group(table, mean)
