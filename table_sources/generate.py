"""Generate the bundled workbooks of tables_app.

Every value is invented for tables_app: the attack grids and the critical
numbers come from small formulas below, the critical and fumble texts (in
table_texts.py, next to this file) were written for this project. Nothing is
copied from any published game table.

Run ``python table_sources/generate.py``: it rewrites criticals.xlsx,
attacks.xlsx, armory.xlsx and bestiary.xlsx next to this file, and
printed.xlsx: the ruleset `Printed`, in the layouts a printed Rolemaster-style
book uses (20 armor-type columns, criticals with a column per severity, a
fumble table by weapon category). The output is
deterministic, byte for byte (no randomness, fixed zip and document times).
Layout: see the project's workbook format (header block, one blank row, grid).
"""
import io
import re
import sys
import zipfile
from pathlib import Path

from openpyxl import Workbook

HERE = Path(__file__).resolve().parent
sys.dont_write_bytecode = True  # leave no __pycache__ next to the workbooks
sys.path.insert(0, str(HERE))
from table_texts import (  # noqa: E402  (the prose)
    CRITICAL_TEXTS, FUMBLE_TEXTS, PRINTED_CRITICAL_TEXTS, PRINTED_FUMBLE_TEXTS)

SOURCE = "tables_app bundled tables (original)"
SEVERITIES = [("Sup", "superficial"), ("Lig", "light"), ("Mod", "moderate"),
              ("Gri", "grievous"), ("Let", "lethal")]
FIXED_TIME = "2024-01-01T00:00:00Z"


# ---------------------------------------------------------------- writing
def add_sheet(wb, title, header, columns, rows, text_cols=()):
    """One sheet: Key|Value header block, one blank row, then the grid."""
    ws = wb.create_sheet(title)
    r = 1
    for key, value in header:
        ws.cell(r, 1, key)
        ws.cell(r, 2, value)
        r += 1
    r += 1  # the single blank row
    for c, name in enumerate(columns, 1):
        ws.cell(r, c, name)
    for row in rows:
        r += 1
        for c, value in enumerate(row, 1):
            if value is None or value == "":
                continue  # empty cell = zero / none / default
            cell = ws.cell(r, c, value)
            if columns[c - 1] in text_cols:
                cell.number_format = "@"  # keep ranges as text when edited
    ws.column_dimensions["A"].width = 12
    for letter in "BC":
        ws.column_dimensions[letter].width = 18
    return ws


def save(wb, name):
    """Save with fixed timestamps so regenerating gives identical bytes."""
    raw = io.BytesIO()
    wb.save(raw)
    out = io.BytesIO()
    with zipfile.ZipFile(raw) as src, \
            zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == "docProps/core.xml":
                data = re.sub(rb"(<dcterms:(created|modified)[^>]*>)[^<]*",
                              rb"\g<1>" + FIXED_TIME.encode(), data)
            fixed = zipfile.ZipInfo(info.filename, (1980, 1, 1, 0, 0, 0))
            fixed.compress_type = zipfile.ZIP_DEFLATED
            dst.writestr(fixed, data)
    (HERE / name).write_bytes(out.getvalue())


def new_workbook():
    wb = Workbook()
    wb.remove(wb.active)
    return wb


# ---------------------------------------------------------------- criticals
# name, code, band upper bounds ("+" = open top), dash in the Roll labels,
# hits/bleed/stun/penalty factors, note.  Texts and tags: table_texts.py.
CRITICALS = [
    ("Cut", "S", "5 10 15 20 25 30 35 40 45 50 55 60 70 80 90 100 110 120 130 135 140 145 +",
     "-", (1.0, 1.0, 0.4, 1.0), "Slashing edges: bleeding wounds, severed limbs."),
    ("Impact", "K", "4 10 16 22 28 35 42 50 58 66 75 85 95 105 115 125 135 140 145 150",
     "-", (1.1, 0.0, 1.0, 1.0), "Crushing blows: stunned foes, broken bones."),
    ("Pierce", "P", "5 10 15 20 30 40 50 55 60 65 70 80 90 100 110 115 120 125 130 135 140 +",
     "-", (0.9, 0.8, 0.4, 1.0), "Points and arrowheads: deep punctures."),
    ("Grapple", "G", "10 20 30 40 50 60 65 70 75 80 85 90 95 100 110 120 130 135 140 150",
     "-", (0.6, 0.0, 0.7, 1.2), "Holds, throws and crushing grips."),
    ("Fire", "H", "5 10 20 30 40 45 50 55 60 65 70 80 90 100 105 110 120 130 135 140 145 +",
     "-", (1.0, 0.0, 0.5, 1.0), "Flame and heat: burns, blinding flares."),
    ("Frost", "C", "5 10 15 25 35 45 55 65 75 85 90 95 100 105 110 115 125 135 140 145 150",
     "\u2013", (0.9, 0.0, 0.6, 1.3), "Cold and ice: numbness, brittle limbs."),
    ("Lightning", "E", "6 12 18 24 30 36 42 50 58 66 75 85 95 105 115 125 135 140 145 +",
     "-", (1.05, 0.0, 1.0, 1.0), "Electric shocks: convulsions, stopped hearts."),
]
BRANCH_SHIFT = {"helm": -30, "not helm": 0, "metal armor": +25, "not metal armor": 0}


def parse_bands(spec, dash):
    """'5 10 ... +' -> [(lo, hi or None, label)] contiguous from 1."""
    bands, lo = [], 1
    for token in spec.split():
        hi = None if token == "+" else int(token)
        label = f"{lo:02d}+" if hi is None else f"{lo:02d}{dash}{hi:02d}"
        bands.append((lo, hi, label))
        lo = (hi or lo) + 1
    return bands


def crit_numbers(t, factors):
    """Extra hits, bleed, stun and penalty for a roll t (formula, invented)."""
    hf, bf, sf, pf = factors
    hits = int((t / 150) ** 1.6 * 22 * hf + 0.5)
    bleed = int((t + 10) / 40 * bf) if t >= 35 else 0
    stun = int((t - 10) / 35 * sf) if t >= 40 else 0
    penalty = -5 * min(10, int((t - 30) / 22 * pf)) if t >= 45 else 0
    return hits, bleed or None, stun or None, penalty or None


def critical_rows(bands_spec, dash, factors, text):
    bands = parse_bands(bands_spec, dash)
    rows, i = [], -1
    for line in text.strip().splitlines():
        title, body, tags, *cond = [p.strip() for p in line.split("|")]
        cond = cond[0] if cond else ""
        if not cond.startswith("not "):
            i += 1
        lo, hi, label = bands[i]
        t = (lo + (hi or lo + 4)) / 2 + BRANCH_SHIFT.get(cond, 0)
        rows.append([label, title, body, *crit_numbers(max(t, 1), factors),
                     tags or None, cond or None])
    assert i == len(bands) - 1, f"{len(bands)} bands, {i + 1} texts"
    return rows


FUMBLES = [
    ("Melee Fumbles", "Mishaps with hand weapons, fists and natural weapons."),
    ("Missile Fumbles", "Mishaps with bows, slings, thrown weapons and bolt spells."),
]


def fumble_rows(text):
    rows = []
    for line in text.strip().splitlines():
        roll, title, body, hits, stun, penalty, tags = [p.strip() for p in line.split("|")]
        rows.append([roll, title, body, int(hits), int(stun) if stun else None,
                     int(penalty) if penalty else None, tags or None])
    return rows


CRITICAL_COLUMNS = ["Roll", "Title", "Text", "Hits", "Bleed", "Stun", "Penalty",
                    "Effects", "Condition"]
FUMBLE_COLUMNS = ["Roll", "Title", "Text", "Hits", "Stun", "Penalty", "Effects"]  # no Bleed


def build_criticals():
    wb = new_workbook()
    for name, code, bands, dash, factors, note in CRITICALS:
        header = [("Kind", "critical"), ("Name", name), ("Code", code),
                  ("Source", SOURCE), ("Notes", note)]
        rows = critical_rows(bands, dash, factors, CRITICAL_TEXTS[name])
        add_sheet(wb, name, header, CRITICAL_COLUMNS, rows, text_cols=("Roll",))
    for name, note in FUMBLES:
        header = [("Kind", "fumble"), ("Name", name), ("Source", SOURCE), ("Notes", note)]
        rows = fumble_rows(FUMBLE_TEXTS[name])
        add_sheet(wb, name, header, FUMBLE_COLUMNS, rows, text_cols=("Roll",))
    save(wb, "criticals.xlsx")


# ---------------------------------------------------------------- attacks
# name: (NA top hits, hit factor per armor, result shift per armor, miss below,
#        zero-hit width, first critical at, results per severity step, note)
ATTACKS = {
    "Edged": (32, (1, .88, .76, .64), (0, 8, 18, 30), 18, 10, 66, 20,
              "Swords, axes and spears."),
    "Blunt": (30, (1, .92, .84, .76), (0, 6, 14, 24), 20, 12, 70, 21,
              "Clubs, maces and hammers: less hurt by armor."),
    "Missile": (28, (1, .85, .70, .55), (0, 10, 22, 36), 22, 8, 62, 22,
                "Bows, crossbows, slings and thrown weapons."),
    "Unarmed": (20, (1, .80, .60, .45), (0, 12, 26, 42), 30, 15, 85, 20,
                "Fists, kicks and holds: weak against armor."),
    "Bolt Spells": (34, (1, .95, .90, .85), (0, 4, 8, 14), 16, 6, 58, 22,
                    "Elemental bolts: armor barely helps."),
    "Claws and Teeth": (26, (1, .88, .76, .64), (0, 10, 20, 30), 22, 10, 74, 20,
                        "Natural weapons of beasts and monsters."),
}
DESCENDING = {"Edged", "Missile"}
DASH = {"Blunt": "-", "Claws and Teeth": "\u2013"}  # default em dash


def attack_value(params, mid, k):
    """(hits, severity index) or None for a miss; severity -1 = no critical."""
    top, factor, shift, miss_below, zero_width, crit_at, step = params[:7]
    e = mid - shift[k]
    if e < miss_below:
        return None
    h0 = miss_below + zero_width
    if e < h0:
        return 0, -1
    hits = max(1, int(factor[k] * top * (e - h0 + 4) / (173 - h0 + 4) + 0.5))
    sev = min(4, (e - crit_at) // step) if e >= crit_at else -1
    return hits, sev


def attack_cell(name, value, i, k):
    """Write one cell, varying the notation on purpose (the importer is lenient)."""
    if value is None:
        return DASH.get(name, "\u2014")
    hits, sev = value
    if sev < 0:
        return str(hits) if name == "Unarmed" and hits and i % 3 == 0 else hits
    code, full = SEVERITIES[sev]
    n = i * 4 + k
    if name == "Blunt" and n % 13 == 2:
        return f"{hits}{code}"
    if name == "Blunt" and n % 13 == 8:
        return f"{hits} {full}"
    if name == "Claws and Teeth" and code in ("Lig", "Mod") and n % 5 == 1:
        return f"{hits} {code} Grapple"
    if name == "Blunt" and n % 11 == 3:
        # compact code form (`18GriK`): Impact by its code; every blunt weapon
        # already crits on Impact, so the override never surprises a player
        return f"{hits}{code}K"
    return f"{hits} {code}"


def attack_rows(name):
    params = ATTACKS[name]
    rows = []
    for i, lo in enumerate(range(11, 176, 5)):
        label = f"{lo}+" if name == "Claws and Teeth" and lo == 171 else f"{lo}-{lo + 4}"
        rows.append([label] + [attack_cell(name, attack_value(params, lo + 2, k), i, k)
                               for k in range(4)])
    if name == "Unarmed":
        rows.insert(0, ["01-10"] + ["\u2014"] * 4)
    return rows[::-1] if name in DESCENDING else rows


def build_attacks():
    wb = new_workbook()
    for name, params in ATTACKS.items():
        header = [("Kind", "attack"), ("Name", name), ("Source", SOURCE),
                  ("Notes", params[-1])]
        add_sheet(wb, name, header, ["Result", "NA", "LA", "MA", "HA"],
                  attack_rows(name), text_cols=("Result",))
    save(wb, "attacks.xlsx")


# ---------------------------------------------------------------- armory
WEAPON_COLUMNS = ["Name", "Attack table", "Max result", "Clumsy", "Critical",
                  "Secondary critical", "Fumble table", "Fumble modifier", "Roll", "Notes"]
M, R = "Melee Fumbles", "Missile Fumbles"
WEAPONS = [  # name, table, max, clumsy, crit, secondary, fumble, modifier, roll, notes
    ("Training Sword", "Edged", 80, 2, "Impact", None, M, 0, "d100", "Blunted practice blade."),
    ("Dagger", "Edged", 105, 1, "Pierce", None, M, -5, None, None),
    ("Short Sword", "Edged", 125, 2, "Cut", None, M, 0, None, None),
    ("Hand Axe", "Edged", 120, 3, "S", None, M, 5, None, "Critical given by code."),
    ("Scimitar", "Edged", 140, 3, "Cut", None, M, 0, None, None),
    ("Spear", "Edged", 140, 4, "Pierce", None, M, 5, None, None),
    ("Longsword", "Edged", 150, 3, "Cut", None, M, None, None, None),
    ("Battle Axe", "Edged", 160, 5, "Cut", None, M, 10, None, None),
    ("Halberd", "Edged", 165, "1-7", "Cut", "Pierce", M, 20, None, "Two-handed polearm."),
    ("Greatsword", "Edged", 175, "1-6", "Cut", None, M, 15, None, "Two-handed."),
    ("Club", "Blunt", 100, 3, "Impact", None, M, 0, None, None),
    ("Quarterstaff", "Blunt", 120, 2, "Impact", None, M, None, None, None),
    ("Mace", "Blunt", 135, 3, "Impact", None, M, 0, None, None),
    ("Morning Star", "Blunt", 145, 5, "Impact", "Pierce", M, 10, None, "Spiked head."),
    ("Warhammer", "Blunt", 145, 4, "K", None, M, 5, None, "Critical given by code."),
    ("Flail", "Blunt", 150, "1-8", "Impact", None, M, 25, None, "Hard to control."),
    ("Maul", "Blunt", 170, 6, "Impact", None, M, 20, None, "Two-handed."),
    ("Throwing Knife", "Missile", 95, 2, "Pierce", None, R, -10, None, None),
    ("Sling", "Missile", 90, 4, "Impact", None, R, 0, None, None),
    ("Shortbow", "Missile", 120, 2, "Pierce", None, R, 0, None, None),
    ("Crossbow", "Missile", 140, 2, "Pierce", None, R, 5, None, "Slow to reload."),
    ("Longbow", "Missile", 150, 3, "Pierce", None, R, None, None, None),
    ("Fist", "Unarmed", 80, 1, "Impact", None, M, 0, None, None),
    ("Kick", "Unarmed", 90, 2, "Impact", None, M, 5, None, None),
    ("Wrestling Hold", "Unarmed", 100, 1, "Grapple", None, M, 0, None, None),
    ("Fire Bolt", "Bolt Spells", 150, 2, "Fire", None, R, 0, "oeh", None),
    ("Frost Bolt", "Bolt Spells", 145, 2, "Frost", None, R, 0, None, None),
    ("Lightning Bolt", "Bolt Spells", 160, 3, "Lightning", "Impact", R, 10, "oeh", None),
    ("Bite", "Claws and Teeth", 110, 1, "Pierce", None, M, 0, None, None),
    ("Claw", "Claws and Teeth", 120, 1, "Cut", None, M, 0, None, None),
    ("Large Claw", "Claws and Teeth", 140, 2, "Cut", None, M, None, None, None),
    ("Large Bite", "Claws and Teeth", 150, 2, "Pierce", "Grapple", M, 0, None, "Seizes and holds."),
]


def build_armory():
    wb = new_workbook()
    header = [("Kind", "weapons"), ("Source", SOURCE),
              ("Notes", "Weapons and natural attacks for the bundled tables.")]
    add_sheet(wb, "Weapons", header, WEAPON_COLUMNS, [list(w) for w in WEAPONS])
    save(wb, "armory.xlsx")


# ---------------------------------------------------------------- bestiary
CREATURES = [  # name, DEF, armor, rank, HP, features, attacks (weapons of armory.xlsx; the first is used unless another is named), notes
    ("Goblin Scout", 20, "LA", None, 28, None, "Short Sword 30; Shortbow 25", "Quick, wary and easily routed."),
    ("Bandit", 15, "LA", "normal", 40, "helm", "Short Sword 40; Crossbow 30", None),
    ("Town Guard", 25, "MA", None, 55, "helm, metal armor", "Spear 50; Short Sword 40", "Shield and spear."),
    ("Wolf", 30, "NA", "normal", 35, None, "Bite 45", "Hunts in packs."),
    ("Orc Warrior", 20, "MA", None, 60, "helm, metal armor", "Scimitar 55; Shortbow 35", None),
    ("Skeleton Soldier", 10, "MA", None, 30, "undead, metal armor", "Short Sword 35; Claw 20", "Rusted mail."),
    ("Armoured Knight", 35, "HA", "normal", 80, "helm, metal armor", "Longsword 75; Mace 60", None),
    ("Cave Troll", 10, "LA", None, 140, "large", "Maul 70; Large Claw 55", "Hide like boiled leather."),
    ("Ashen Shade", 50, "NA", "heroic", 70, "undead", "Claw 60; Frost Bolt 50", "A cold shape in the smoke."),
    ("Barrow Wight", 30, "NA", "heroic", 90, "undead", "Longsword 65; Claw 45", None),
    ("Young Drake", 40, "HA", "heroic", 160, "large", "Large Bite 80; Large Claw 70; Fire Bolt 60",
     "Scales count as heavy armor."),
    ("Stone Giant", 25, "HA", "epic", 300, "large", "Maul 90; Kick 60", None),
    ("Elder Wyrm", 60, "HA", "epic", 450, "large", "Large Bite 120; Large Claw 110; Fire Bolt 100", "Ancient and patient."),
]


def build_bestiary():
    wb = new_workbook()
    header = [("Kind", "creatures"), ("Source", SOURCE),
              ("Notes", "Sample foes and folk to test attacks against.")]
    add_sheet(wb, "Creatures", header, ["Name", "DEF", "Armor", "Rank", "HP", "Features",
                                        "Attacks", "Notes"], [list(c) for c in CREATURES])
    save(wb, "bestiary.xlsx")


# ---------------------------------------------------------------- printed layouts
# The ruleset `Printed` (printed.xlsx), in a printed book's layouts: every
# name lives in its own ruleset, so it meets none of the tables above. Its
# own A-E scale (the modifiers are never used by its critical tables, which
# are read in the severity's column; the scale must exist all the same).
PRINTED = "Printed"
# The ruleset's legend, as an RMFRP-style book keys its symbols: π must parry, ∏ no parry.
PRINTED_LEGEND = [("H", "hits"), ("\u2211", "stun"), ("\u2211\u220f", "stun no parry"), ("\u220f", "no parry"),
                  ("\u03c0", "must parry"), ("\u222b", "bleed")]
PRINTED_SOURCE = "tables_app bundled tables in printed layouts (original)"
PRINTED_SEVERITIES = [("A", "Glancing", 0), ("B", "Telling", 10), ("C", "Serious", 20),
                      ("D", "Dire", 30), ("E", "Ruinous", 40)]
LETTERS = "ABCDE"
ARMOR_TYPES = range(20, 0, -1)  # printed order: 20 (heaviest) down to 1 (none)
EN_DASH = " \u2013 "  # between effects, as printed


def armor_weight(k):
    """0 (type 1) to 4.75 (type 20): five groups of four, each heavier within."""
    return (k - 1) // 4 + ((k - 1) % 4) * 0.25


# name: (hits start, start per weight, hits per result, hits lost per weight,
#        first critical, critical per weight, results per severity, code, note)
PRINTED_ATTACKS = {
    "Bladework": (26, 9, 0.27, 0.07, 66, 5, 15, "S", "Broad edged blades: swords, axes, cleavers."),
    "Bludgeons": (21, 6, 0.24, 0.04, 71, 3, 16, "K", "Clubs, maces and hammers: armor helps less."),
    "Barbed Shafts": (31, 10, 0.23, 0.08, 61, 7, 14, "P", "Bows and crossbows: barbed points, stopped by plate."),
}
# Extras per table (invented): F below this result (all columns; Bladework
# also below 11 for types 13 and up), the UM row and its cell.
PRINTED_FUMBLE_BELOW = {"Bladework": 6, "Bludgeons": 6, "Barbed Shafts": 11}
PRINTED_UM = {"Bladework": "UM 99-100", "Bludgeons": "UM 100", "Barbed Shafts": "UM 98-100"}


def printed_value(name, r, k):
    """(hits, severity index or -1) for result r against armor type k; None
    for a miss."""
    start, start_w, per, lost_w, crit, crit_w, step = PRINTED_ATTACKS[name][:7]
    w = armor_weight(k)
    if r < start + start_w * w:
        return None
    hits = int(per * (1 - lost_w * w) * (r - start - start_w * w) + 0.5)
    if r < crit + crit_w * w:
        return hits, -1
    return max(1, hits), min(4, int((r - crit - crit_w * w) // step))


def printed_code(name, k, sev):
    """The critical's code: the table's, but light blows skid off plate (Mauling)."""
    code = PRINTED_ATTACKS[name][7]
    if k >= 17 and sev <= (1 if name == "Bladework" else 0):
        return "K"
    return code


def printed_cell(name, r, k):
    if r < PRINTED_FUMBLE_BELOW[name] or (name == "Bladework" and r < 11 and k >= 13):
        return "F"
    value = printed_value(name, r, k)
    if value is None:
        return "\u2014"
    hits, sev = value
    if sev < 0:
        return hits
    cell = f"{hits}{LETTERS[sev]}{printed_code(name, k, sev)}"
    if name == "Bladework" and sev == 4 and k <= 8 and r >= 136:  # a second critical, spaced as printed
        return f"{hits} {cell[-2:]} + {'A' if r < 146 else 'B'}K"
    if name == "Bludgeons" and sev == 4 and k <= 4 and r >= 141:
        return f"{hits} {cell[-2:]} + AS"
    return cell


def printed_um_cell(name, k):
    hits = printed_value(name, 153, k)[0]
    if name == "Bladework":
        return f"{hits + 3} ES + {'C' if k <= 10 else 'B'}K"
    if name == "Bludgeons":
        return f"{hits + 5}EK"
    return f"{hits + 2}{'E' if k <= 8 else 'D'}P"


def printed_attack_rows(name):
    """Top row first, as printed: the UM row, 151+, 146-150 ... 01-05."""
    rows = [[PRINTED_UM[name], *(printed_um_cell(name, k) for k in ARMOR_TYPES)],
            ["151+", *(printed_cell(name, 153, k) for k in ARMOR_TYPES)]]
    for lo in range(146, 0, -5):
        rows.append([f"{lo:02d}-{lo + 4:02d}", *(printed_cell(name, lo + 2, k) for k in ARMOR_TYPES)])
    return rows


CRITICAL_BANDS = ["01-05", "06-15", "16-30", "31-45", "46-60", "61-75", "76-85", "86-95", "96-99", "100"]
# name, code, (hits, stun, bleed, penalty) factors, note
PRINTED_CRITICALS = [
    ("Hacking", "S", (1.0, 0.8, 1.0, 1.0), "Edges: bleeding cuts and severed limbs."),
    ("Mauling", "K", (1.1, 1.3, 0.0, 1.2), "Blunt blows: stuns and broken bones."),
    ("Skewering", "P", (0.9, 0.9, 0.6, 0.8), "Points: deep stabs, pinned limbs."),
]
SHIFTS = {"{}": 0.0, "{-}": -0.25, "{+}": 0.15}


def printed_effects(power, factors):
    """An entry's effects in printed notation for a power from 0 (01-05, A)
    to 1 (100, E); invented formulas."""
    hf, sf, bf, pf = factors
    power = max(0.0, power)
    parts = []
    hits = int(15 * power * hf + 0.5)
    stun = int((power - 0.2) * 5 * sf + 0.5) if power > 0.3 else 0
    no_parry = int((power - 0.55) * 6 * sf + 0.5) if power > 0.6 else 0
    must_parry = 1 if 0.15 < power <= 0.45 else 0
    bleed = int(power * 4 * bf + 0.5) if power > 0.35 else 0
    penalty = 5 * int(power * 6 * pf + 0.5) if power > 0.4 else 0
    if hits:
        parts.append(f"+{hits}H")
    if stun and not no_parry:
        parts.append(f"{stun}\u2211")
    if no_parry:
        parts.append(f"{no_parry}\u2211\u220f")
    if must_parry and not (stun or no_parry):  # the legend's π, bare for 1 round; at a penalty past a third
        parts.append("\u03c0" if power <= 0.3 else "(\u03c0-10)")
    if 0.45 < power <= 0.5 and not no_parry:  # off balance: unable to parry, not stunned (the legend's ∏)
        parts.append("1\u220f")
    if bleed:
        parts.append(f"{bleed}\u222b")
    if penalty:
        parts.append(f"(-{penalty})")
    if 0.1 < power < 0.3:
        parts.append("(+5)")  # the foe is off balance: the attacker's bonus
    return EN_DASH.join(parts)


def printed_entry(prose, power, factors):
    """A cell: the prose with its effects where `{}` says, else after it."""
    if "instant death" in prose:
        return prose
    if "{" not in prose:
        effects = printed_effects(power, factors)
        return f"{prose} {effects}" if effects else prose
    for mark, shift in SHIFTS.items():
        effects = printed_effects(power + shift, factors)
        assert effects, (prose, power)  # a branch is never left without effects
        prose = prose.replace(" " + mark, " " + effects)
    return prose


def printed_critical_rows(name, factors):
    rows = []
    lines = PRINTED_CRITICAL_TEXTS[name].strip().splitlines()
    assert len(lines) == len(CRITICAL_BANDS), name
    for i, (band, line) in enumerate(zip(CRITICAL_BANDS, lines)):
        cells = [p.strip() for p in line.split("|")]
        assert len(cells) == 5, (name, band)
        rows.append([band, *(printed_entry(prose, 0.55 * i / 9 + 0.45 * s / 4, factors)
                             for s, prose in enumerate(cells))])
    return rows


FUMBLE_CATEGORIES = ["1HE", "1HC", "2H", "MIS"]
PRINTED_WEAPON_COLUMNS = ["Name", "Attack table", "Max result", "Clumsy", "Critical",
                          "Secondary critical", "Fumble table", "Fumble column",
                          "Fumble modifier", "Notes"]
MISHAPS = "Weapon Mishaps"
PRINTED_WEAPONS = [  # name, table, max (None: no cap), clumsy, crit, secondary, fumble, column, modifier, notes
    ("Falchion", "Bladework", None, 3, "S", None, MISHAPS, "1HE", 0, "No cap, as printed."),
    ("Hewing Sword", "Bladework", 135, 2, "Hacking", None, MISHAPS, "1HE", -5, None),
    ("Great Chopper", "Bladework", None, 5, "S", "K", MISHAPS, "2H", 10, "Two-handed."),
    ("Knobbed Club", "Bludgeons", None, 4, "K", None, MISHAPS, "1HC", 0, None),
    ("Iron Cudgel", "Bludgeons", 125, 3, "Mauling", None, MISHAPS, "1HC", None, None),
    ("Spiked Maul", "Bludgeons", None, 6, "K", "P", MISHAPS, "2H", 15, "Spiked back."),
    ("Hunting Bow", "Barbed Shafts", None, 4, "P", None, MISHAPS, "MIS", 0, None),
    ("Recurve Bow", "Barbed Shafts", 140, 3, "Skewering", None, MISHAPS, "MIS", 5, None),
    ("Windlass Bow", "Barbed Shafts", None, 5, "P", None, MISHAPS, "MIS", 10, "Slow to span."),
]
PRINTED_CREATURES = [  # name, DEF, armor type, rank, HP, features, attacks (bonus first, as printed), notes
    ("Hill Brigand", 10, "9", None, 45, "helm", "55 Hewing Sword; 40 Hunting Bow", None),
    ("Marsh Lurker", 20, "1", "normal", 60, None, "50 Iron Cudgel", "Slick hide, no armor."),
    ("Border Rider", 15, "13", None, 70, "helm, shield", "70 Falchion; 55 Recurve Bow", None),
    ("Iron Sentinel", 30, "20", "heroic", 110, "helm, shield, leg armor", "95 Great Chopper; 80 Spiked Maul",
     "Plate from crown to heel."),
    ("Cave Stalker", 25, "5", "heroic", 90, None, "80 Knobbed Club", "Thick leathery skin."),
]


def build_printed():
    wb = new_workbook()
    ruleset = wb.create_sheet("Ruleset")
    for r, (key, value) in enumerate([("Kind", "ruleset"), ("Name", PRINTED), ("Source", PRINTED_SOURCE),
                                      ("Notes", "An invented ruleset in the printed layouts."), (None, None),
                                      ("Symbol", "Means"), *PRINTED_LEGEND], 1):
        ruleset.cell(r, 1, key)
        ruleset.cell(r, 2, value)
    add_sheet(wb, "Severities", [("Kind", "severities"), ("Name", "Printed letters")],
              ["Code", "Name", "Modifier"], [list(s) for s in PRINTED_SEVERITIES])
    for name, params in PRINTED_ATTACKS.items():
        header = [("Kind", "attack"), ("Name", name), ("Automatic miss", "none"),
                  ("Source", PRINTED_SOURCE), ("Notes", params[-1])]
        add_sheet(wb, name, header, ["Result", *(str(k) for k in ARMOR_TYPES)],
                  printed_attack_rows(name), text_cols=("Result",))
    for name, code, factors, note in PRINTED_CRITICALS:
        header = [("Kind", "critical"), ("Name", name), ("Code", code),
                  ("Source", PRINTED_SOURCE), ("Notes", note)]
        add_sheet(wb, name, header, ["Roll", *LETTERS], printed_critical_rows(name, factors),
                  text_cols=("Roll",))
    fumbles = [[p.strip() for p in line.split("|")]
               for line in PRINTED_FUMBLE_TEXTS[MISHAPS].strip().splitlines()]
    add_sheet(wb, MISHAPS, [("Kind", "fumble"), ("Name", MISHAPS), ("Source", PRINTED_SOURCE),
                            ("Notes", "Mishaps by weapon category.")],
              ["Roll", *FUMBLE_CATEGORIES], fumbles, text_cols=("Roll",))
    add_sheet(wb, "Weapons", [("Kind", "weapons"), ("Source", PRINTED_SOURCE)],
              PRINTED_WEAPON_COLUMNS, [list(w) for w in PRINTED_WEAPONS])
    add_sheet(wb, "Creatures", [("Kind", "creatures"), ("Source", PRINTED_SOURCE)],
              ["Name", "DEF", "Armor", "Rank", "HP", "Features", "Attacks", "Notes"],
              [list(c) for c in PRINTED_CREATURES], text_cols=("Armor",))
    save(wb, "examples/printed.xlsx")


if __name__ == "__main__":
    build_criticals()
    build_attacks()
    build_armory()
    build_bestiary()
    build_printed()
    print("wrote", ", ".join(f"{n}.xlsx" for n in ("criticals", "attacks", "armory", "bestiary", "printed")))
