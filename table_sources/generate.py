"""Generate the bundled workbooks of tables_app.

Every value is invented for tables_app: the attack grids and the critical
numbers come from small formulas below, the critical and fumble texts (in
table_texts.py, next to this file) were written for this project. Nothing is
copied from any published game table.

Run ``python table_sources/generate.py``: it rewrites criticals.xlsx,
attacks.xlsx, armory.xlsx and bestiary.xlsx next to this file. The output is
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
from table_texts import CRITICAL_TEXTS, FUMBLE_TEXTS  # noqa: E402  (the prose)

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
CREATURES = [  # name, DEF, armor, rank, HP, features, notes
    ("Goblin Scout", 20, "LA", None, 28, None, "Quick, wary and easily routed."),
    ("Bandit", 15, "LA", "normal", 40, "helm", None),
    ("Town Guard", 25, "MA", None, 55, "helm, metal armor", "Shield and spear."),
    ("Wolf", 30, "NA", "normal", 35, None, "Hunts in packs."),
    ("Orc Warrior", 20, "MA", None, 60, "helm, metal armor", None),
    ("Skeleton Soldier", 10, "MA", None, 30, "undead, metal armor", "Rusted mail."),
    ("Armoured Knight", 35, "HA", "normal", 80, "helm, metal armor", None),
    ("Cave Troll", 10, "LA", None, 140, "large", "Hide like boiled leather."),
    ("Ashen Shade", 50, "NA", "heroic", 70, "undead", "A cold shape in the smoke."),
    ("Barrow Wight", 30, "NA", "heroic", 90, "undead", None),
    ("Young Drake", 40, "HA", "heroic", 160, "large", "Scales count as heavy armor."),
    ("Stone Giant", 25, "HA", "epic", 300, "large", None),
    ("Elder Wyrm", 60, "HA", "epic", 450, "large", "Ancient and patient."),
]


def build_bestiary():
    wb = new_workbook()
    header = [("Kind", "creatures"), ("Source", SOURCE),
              ("Notes", "Sample foes and folk to test attacks against.")]
    add_sheet(wb, "Creatures", header, ["Name", "DEF", "Armor", "Rank", "HP", "Features",
                                        "Notes"], [list(c) for c in CREATURES])
    save(wb, "bestiary.xlsx")


if __name__ == "__main__":
    build_criticals()
    build_attacks()
    build_armory()
    build_bestiary()
    print("wrote", ", ".join(f"{n}.xlsx" for n in ("criticals", "attacks", "armory", "bestiary")))
