// The game master's page (docs/api.md, "The page"): plain ES2020, no library.
// Every answer comes from this server's /api/v1 endpoints, which answer what
// `tables ... --json` prints; this script only lays the answers out.
"use strict";

const API = "/api/v1";
const HISTORY_KEY = "tables.lastAttacks";
const TOKEN_KEY = "tables-token";
const HISTORY_SIZE = 25;
const DEFAULT_RULESET = "default";
const OUTCOMES = ["fumble", "miss", "ineffective", "no_damage", "hit", "critical"];

const state = { weapons: [], creatures: [], attackTables: [], criticals: [], fumbles: [], oddsTimer: null, oddsAsked: 0, token: null, byHand: null, gridColumns: {} };

// ------------------------------------------------------------------ helpers
const $ = (id) => document.getElementById(id);

// An element with attributes and children (strings become text: nothing from
// the tables is ever read as HTML).
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

// The SVG namespace, taken from an <svg> the HTML parser made (so that no
// address appears in this file at all).
const SVG = (() => {
  const probe = document.createElement("div");
  probe.innerHTML = "<svg></svg>";
  return probe.firstChild.namespaceURI;
})();
function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

// A name as the CLI takes it: RULESET:NAME outside the default ruleset.
const qualified = (item) => (item.ruleset && item.ruleset !== DEFAULT_RULESET ? `${item.ruleset}:${item.name}` : item.name);

// ------------------------------------------------------------------ the server's token (TABLES_TOKEN)
// Kept for this tab only (sessionStorage); state.token stands in when storage is refused.
function storedToken() {
  try {
    return sessionStorage.getItem(TOKEN_KEY) || state.token;
  } catch {
    return state.token;
  }
}

function storeToken(token) {
  state.token = token || null;
  try {
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // storage refused: state.token serves this page only
  }
}

// A token given in the address (#token=..., as `tables serve` prints it) is
// kept and taken out of the address bar, so that it is not bookmarked or shared.
function takeTokenFromAddress() {
  const match = /(^#|&)token=([^&]*)/.exec(location.hash);
  if (!match) return false;
  let token = match[2];
  try {
    token = decodeURIComponent(token);
  } catch {
    // not %-encoded: taken as it is
  }
  storeToken(token.trim());
  const rest = location.hash.slice(0, match.index) + location.hash.slice(match.index + match[0].length);
  const hash = rest.replace(/^#&/, "#");
  history.replaceState(history.state, "", location.pathname + location.search + (hash.length > 1 ? hash : ""));
  return true;
}

// The form that asks for the token; ``refused``: the server said no to the one given.
function askForToken(refused) {
  const box = $("token-box");
  $("token-message").hidden = !refused;
  if (box.hidden) {
    box.hidden = false;
    $("token").value = "";
    $("token").focus();
  }
}

function saveToken(event) {
  event.preventDefault();
  const token = $("token").value.trim();
  if (!token) return;
  storeToken(token);
  $("token-box").hidden = true;
  load();
}

// GET or POST an endpoint; resolves to {ok, status, data} (data: the answer or the error object).
// The one place the page calls the server: it sends the token when there is one.
async function call(path, body) {
  const token = storedToken();
  const headers = body === undefined ? {} : { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const options = body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) };
  try {
    const response = await fetch(API + path, options);
    const data = await response.json();
    if (response.status === 401) {
      if (token && storedToken() === token) storeToken(null); // refused: ask again rather than send it again
      askForToken(Boolean(token));
    }
    return { ok: response.ok, status: response.status, data };
  } catch (error) {
    return { ok: false, status: 0, data: { error: { message: `the server did not answer (${error.message})` } } };
  }
}

function errorBox(data) {
  const error = (data && data.error) || { message: "unexpected answer" };
  const box = el("div", { class: "error", role: "alert" }, error.message);
  if (error.suggestions && error.suggestions.length) box.append(el("div", { class: "hint" }, "Did you mean: " + error.suggestions.join(", ")));
  return box;
}

// A probability as the command line prints a sweep's (render.percent at 2
// decimals): exact 0 and 1 as 0 and 100%, others too near them said so.
const percent = (p) => (p === 0 ? "0" : p === 1 ? "100%" : p < 0.00005 ? "<0.01%" : p > 0.99995 ? ">99.99%"
  : `${(p * 100).toFixed(2)}%`);
const outcomeWords = (outcome) => outcome.replace(/_/g, " ");

// An entry's effects in words: the server says them (`effect_words` of the entry's JSON, domain/effects.py),
// the one wording the command line, Foundry and a fight's account use too.
function effects(e) {
  return e.effect_words || "";
}

// An armor column as words: a printed table's numbered armor type is ``AT 9`` (as render.armor_words).
function armorWords(code) {
  return /^\d+$/.test(String(code)) ? `AT ${code}` : code;
}

// The branch not taken: ``If leg armor: Greave ...``, or its text alone when
// that says its condition already (``w/ leg armor: ...``; render.other_branch).
function otherBranchWords(b) {
  if (b.condition === null) return `Otherwise: ${b.title || b.text || "(nothing happens)"}`;  // everyone else's, beside several features
  return !b.title && b.states_condition ? b.text : `If ${b.condition}: ${b.title || b.text}`;
}

// ``vs Orc Warrior (DEF 20, MA, heroic)`` or ``vs DEF 20, MA`` (as render.target_words).
function targetWords(a) {
  const facts = [`DEF ${a.defense}`, armorWords(a.armor)];
  if (a.rank && a.rank !== "normal") facts.push(a.rank);
  if (a.features && a.features.length) facts.push(a.features.join(", "));
  if (a.target) return `vs ${qualified({ name: a.target, ruleset: a.target_ruleset })} (${facts.join(", ")})`;
  return `vs ${facts.join(", ")}`;
}

function weaponWords(a) {
  const cap = a.max_result !== null && a.max_result !== undefined ? `, Max ${a.max_result}` : "";
  const clumsy = a.clumsy ? `clumsy 1-${a.clumsy}` : "never fumbles";
  return `${qualified({ name: a.weapon, ruleset: a.ruleset })} (${a.attack_table}${cap}, ${clumsy})`;
}

// ------------------------------------------------------------------ the account of an attack
// One critical or fumble entry as a card: the table, the roll, the entry, its
// effects, and the branch taken (with the one not taken).
function entryCard(heading, roll, entry, otherBranches) {
  const rolled = roll.modified_roll !== roll.roll ? `${roll.roll} → ${roll.modified_roll}` : `${roll.roll}`;
  const where = [entry.range, entry.column ? `column ${entry.column}` : null].filter(Boolean).join(", ");
  const card = el("div", { class: "card" },
    el("div", { class: "card-head" }, heading),
    el("div", { class: "hint" }, `${roll.table}, roll ${rolled} (${where})`),
    el("p", {}, entry.title ? el("strong", {}, entry.title + ". ") : null, entry.text || ""));
  const summary = effects(entry);
  if (summary) card.append(el("p", { class: "effects" }, summary));
  if (entry.condition) card.append(el("p", { class: "branch" }, `Branch taken: ${entry.condition}.`));
  for (const otherBranch of otherBranches || []) {
    const other = effects(otherBranch);
    card.append(el("p", { class: "branch other" },
      `${otherBranchWords(otherBranch)}${other ? ` (${other})` : ""}`));
  }
  return card;
}

function criticalCard(label, c) {
  // why the severity is not the one rolled, as the server says it (`2 degrees below the critical's Let`: the
  // secondary critical; `rolled Gri, reduced 1 degree`), never a bare `rolled Mod, reduced 0`
  const reduced = c.severity_why ? ` (${c.severity_why})`
    : c.rolled_severity && c.rolled_severity !== c.severity ? ` (rolled ${c.rolled_severity}, reduced ${c.reduction})` : "";
  const others = c.other_branches || (c.other_branch ? [c.other_branch] : []);
  return entryCard(`${label}: ${c.severity} on ${c.table}${reduced}`, c, c.entry, others);
}

function account(data) {
  const box = el("article", { class: `account outcome-${data.outcome}` });
  const a = data.attack;
  box.append(el("div", { class: "verdict" },
    el("span", { class: "outcome" }, outcomeWords(data.outcome).toUpperCase()), `, ${data.damage} damage`));
  if (a) box.append(el("div", { class: "who" }, `${weaponWords(a)} ${targetWords(a)}`));
  if (data.cell) box.append(el("div", { class: "cell-read" }, `${data.cell.table} ${data.cell.row} ${data.cell.armor}: `, el("strong", {}, data.cell.text)));

  // Told once: the verdict above, the critical and fumble cards below; how
  // it was resolved (the CLI's steps, line for line, and the facts one by
  // one) folded, opened on request.
  const how = el("details", { class: "how" }, el("summary", {}, "How it was resolved"));
  const steps = el("div", { class: "steps" });
  for (const step of data.steps || []) {
    const indented = step.startsWith("  ");
    steps.append(el("div", { class: indented ? (step.trimStart().startsWith("(") ? "step aside" : "step more") : "step" }, step.trim()));
  }
  how.append(steps);

  const facts = el("dl", { class: "facts" });
  const fact = (term, ...value) => facts.append(el("dt", {}, term), el("dd", {}, ...value));
  if (data.roll) {
    const open = data.roll.open_ended && data.roll.open_ended.length ? `, open-ended ${data.roll.open_ended.join(", ")}` : "";
    fact("Roll", open || data.roll.total !== data.roll.unmodified ? `${data.roll.unmodified}${open} = ${data.roll.total}` : `${data.roll.total}`);
  }
  if (data.result !== null && data.result !== undefined) {
    fact("Result", data.capped ? `${data.uncapped_result}, capped at ${data.result}` : `${data.result}`);
  }
  if (data.cancelled_critical) {
    fact("Critical", `${data.cancelled_critical.rolled_severity} cancelled by ${data.cancelled_critical.reduction} degree(s) of reduction`);
  }
  fact("Damage", el("strong", {}, String(data.damage)));
  fact("Dice", `${(data.dice || []).join(", ") || "none"} (${"seed" in data ? `seed ${data.seed}` : "given"})`);
  if (data.unused_dice && data.unused_dice.length) fact("Unused dice", data.unused_dice.join(", "));
  how.append(facts);

  if (data.critical) box.append(criticalCard("Critical", data.critical));
  (data.more_criticals || []).forEach((c, i) => box.append(criticalCard(`Critical ${i + 2}`, c)));
  if (data.secondary_critical) box.append(criticalCard("Secondary critical", data.secondary_critical));
  if (data.fumble) box.append(entryCard(`Fumble on ${data.fumble.table}`, data.fumble, data.fumble.entry, null));
  for (const warning of data.warnings || []) box.append(el("p", { class: "hint" }, `Warning: ${warning}`));
  box.append(how);
  return box;
}

// ------------------------------------------------------------------ the form
// The body of resolve and odds (docs/api.md, "Bodies of resolve and odds").
function attackBody() {
  const body = { weapon: $("weapon").value.trim(), cmb: Number($("cmb").value || 0) };
  const mods = $("mods").value.split(",").map((m) => m.trim()).filter(Boolean);
  if (mods.length) body.mod = mods;
  const target = $("target").value.trim();
  if (target) body.target = target;
  else {
    body.def = Number($("def").value || 0);
    if ($("armor").value) body.armor = $("armor").value;
  }
  return body;
}

// Typed dice: a list of numbers, or the text as typed (the server says what is wrong with it).
function typedDice() {
  const text = $("dice").value.trim();
  if (!text) return null;
  const parts = text.split(/[\s,;]+/).filter(Boolean);
  return parts.every((p) => /^\d+$/.test(p)) ? parts.map(Number) : text;
}

async function resolve(rollForMe) {
  const body = attackBody();
  const dice = rollForMe ? null : typedDice();
  if (dice !== null) body.dice = dice;
  const out = $("account");
  out.replaceChildren(el("p", { class: "hint" }, "Resolving…"));
  const answer = await call("/resolve/table", body);
  if (!answer.ok) {
    out.replaceChildren(errorBox(answer.data));
    return;
  }
  out.replaceChildren(account(answer.data));
  remember(answer.data);
  out.scrollIntoView({ behavior: "smooth", block: "start" });
}

function selectedWeapon() {
  const name = $("weapon").value.trim();
  return state.weapons.find((w) => qualified(w) === name || w.name === name);
}

function selectedCreature() {
  const name = $("target").value.trim();
  return state.creatures.find((c) => qualified(c) === name || c.name === name);
}

// The armor columns of the weapon's attack table.
function showWeapon() {
  const weapon = selectedWeapon();
  $("weapon-facts").textContent = weapon
    ? `${weapon.attack_table}${weapon.max_result ? `, Max ${weapon.max_result}` : ""}, critical ${weapon.critical}` +
      `${weapon.secondary_critical ? ` + ${weapon.secondary_critical}` : ""}, clumsy 1-${weapon.clumsy}`
    : "";
  if (!weapon) return;
  const table = state.attackTables.find((t) => t.name === weapon.attack_table && t.ruleset === weapon.ruleset);
  const columns = table ? table.armor : [];
  const select = $("armor");
  const before = select.value;
  select.replaceChildren(...columns.map((c) => el("option", { value: c }, c)));
  if (columns.includes(before)) select.value = before;
}

function showTarget() {
  const creature = selectedCreature();
  $("target-facts").textContent = creature
    ? `DEF ${creature.defense}, ${armorWords(creature.armor)}, ${creature.rank}${creature.hp ? `, ${creature.hp} hp` : ""}` +
      `${creature.features && creature.features.length ? `, ${creature.features.join(", ")}` : ""}`
    : "";
  const byHand = !$("target").value.trim();
  const def = $("def"), armor = $("armor");
  if (!byHand && !state.byHand) state.byHand = { def: def.value, armor: armor.value };  // kept for when the target is cleared
  if (creature) {  // the greyed fields show what the attack will use: the creature's own DEF and armor
    def.value = creature.defense;
    if (![...armor.options].some((o) => o.value === String(creature.armor))) {
      armor.append(el("option", { value: creature.armor, "data-creature": "1" }, String(creature.armor)));
    }
    armor.value = String(creature.armor);
  } else if (byHand && state.byHand) {
    def.value = state.byHand.def;
    armor.querySelectorAll("option[data-creature]").forEach((o) => o.remove());
    armor.value = state.byHand.armor;
    state.byHand = null;
  }
  def.disabled = !byHand;
  armor.disabled = !byHand;
  $("by-hand").classList.toggle("off", !byHand);
}

// ------------------------------------------------------------------ odds
function barChart(title, shares, classOf) {
  const entries = Object.entries(shares);
  const row = 26, labelWidth = 96, valueWidth = 62, width = 360, top = 22;
  const barSpace = width - labelWidth - valueWidth;
  const chart = svg("svg", { viewBox: `0 0 ${width} ${top + row * entries.length}`, role: "img", class: "chart", "aria-label": title });
  chart.append(svg("text", { x: 0, y: 15, class: "chart-title" }, title));
  entries.forEach(([name, p], i) => {
    const y = top + i * row;
    chart.append(svg("text", { x: 0, y: y + 17, class: "chart-label" }, outcomeWords(name)));
    chart.append(svg("rect", { x: labelWidth, y: y + 4, width: barSpace, height: row - 8, class: "chart-track" }));
    chart.append(svg("rect", { x: labelWidth, y: y + 4, width: Math.max(0, p * barSpace).toFixed(2), height: row - 8, class: `bar ${classOf(name)}` }));
    chart.append(svg("text", { x: width, y: y + 17, class: "chart-value", "text-anchor": "end" }, percent(p)));
  });
  return chart;
}

function showOdds(data) {
  const area = $("chart");
  const outcomes = {};
  for (const name of OUTCOMES) if (name in data.outcomes) outcomes[name] = data.outcomes[name];
  for (const [name, p] of Object.entries(data.outcomes)) if (!(name in outcomes)) outcomes[name] = p;
  const parts = [el("p", { class: "who" }, `${weaponWords(data.attack)}, CMB ${data.attack.effective_cmb} ${targetWords(data.attack)}`),
    barChart("Outcomes", outcomes, (name) => `bar-${name}`)];
  const severities = data.critical_severity || {};
  if (Object.keys(severities).length) parts.push(barChart("Critical severity (after reduction)", severities, () => "bar-severity"));
  parts.push(el("p", {}, "Expected damage: ", el("strong", {}, data.expected_damage.toFixed(2))));
  area.replaceChildren(...parts);
}

async function updateOdds() {
  const body = attackBody();
  if (!body.weapon) return;
  const asked = ++state.oddsAsked;
  const answer = await call("/odds/table", body);
  if (asked !== state.oddsAsked) return; // a newer question was asked meanwhile
  if (answer.ok) showOdds(answer.data);
  else $("chart").replaceChildren(errorBox(answer.data));
}

function oddsSoon() {
  clearTimeout(state.oddsTimer);
  state.oddsTimer = setTimeout(updateOdds, 300);
}

// ------------------------------------------------------------------ the session's last attacks
function savedAttacks() {
  try {
    return JSON.parse(sessionStorage.getItem(HISTORY_KEY) || "[]");
  } catch {
    return [];
  }
}

function remember(data) {
  const items = [{ at: new Date().toLocaleTimeString(), data }, ...savedAttacks()].slice(0, HISTORY_SIZE);
  try {
    sessionStorage.setItem(HISTORY_KEY, JSON.stringify(items));
  } catch {
    // storage full or refused: the list just stops growing
  }
  showHistory();
}

function showHistory() {
  const list = $("history-list");
  const items = savedAttacks();
  list.replaceChildren(...items.map(({ at, data }) => {
    const a = data.attack || {};
    const line = el("button", { type: "button", class: `history-item outcome-${data.outcome}`,
      onclick: () => $("account").replaceChildren(account(data)) },
      el("span", { class: "when" }, at), " ",
      el("strong", {}, `${outcomeWords(data.outcome)}, ${data.damage}`), ` — ${a.weapon || ""} ${a.defense !== undefined ? targetWords(a) : ""}`,
      el("span", { class: "hint" }, ` dice ${(data.dice || []).join(", ")}`));
    return el("li", {}, line);
  }));
  $("history").hidden = !items.length;  // nothing to list: no "1. None yet" item, no heading either
}

// ------------------------------------------------------------------ browse the tables
// A cell's criticals: "11 Lig Impact" → [{severity: "Lig", table: "Impact"}]; "9 Sup" → [{severity: "Sup", table: null}].
function cellCriticals(text) {
  const match = /^\s*\d+\s+(.+)$/.exec(text);
  if (!match) return [];
  return match[1].split("+").map((part) => {
    const [severity, ...table] = part.trim().split(/\s+/);
    return { severity, table: table.length ? table.join(" ") : null };
  }).filter((c) => c.severity);
}

async function showTableList() {
  const chips = (kind, tables) => tables.map((t) =>
    el("li", {}, el("a", { href: `#/${kind}/${encodeURIComponent(qualified(t))}` }, qualified(t))));
  $("table-list").replaceChildren(...chips("attack", state.attackTables));
  $("critical-list").replaceChildren(...chips("critical", state.criticals));
  $("fumble-list").replaceChildren(...chips("fumble", state.fumbles));
}

// ------------------------------------------------------------------ a critical or fumble table (#/critical/NAME, #/fumble/NAME)
// Its entries (`tables show critical|fumble --json`), and the entry of a roll, as `tables query critical|fumble`
// reads it: the severity's modifier (a critical), the target's features (the branch taken: helm, ...), the
// weapon's fumble modifier (a fumble), the printed column.
const DEFAULT_SEVERITIES = ["Sup", "Lig", "Mod", "Gri", "Let"];  // the default scale (domain/severity.py)
const entries = { kind: null, name: null, data: null };

async function showEntries(kind, name) {
  $("grid-area").hidden = true;
  $("entry-area").hidden = false;
  $("entry-title").textContent = `${kind === "critical" ? "Critical" : "Fumble"} table ${name}`;
  $("entry-out").replaceChildren();
  $("entry-facts").textContent = "";
  const rows = $("entry-rows");
  rows.replaceChildren(el("p", { class: "hint" }, "Loading…"));
  entries.kind = kind;
  entries.name = name;
  entries.data = null;
  const answer = kind === "critical" ? await call(`/critical/${encodeURIComponent(name)}`)
    : await call(`/fumble/${encodeURIComponent(name)}`);
  if (entries.name !== name || entries.kind !== kind) return;  // another was opened meanwhile
  if (!answer.ok) {
    rows.replaceChildren(errorBox(answer.data));
    return;
  }
  const t = answer.data;
  entries.data = t;
  const bySeverity = kind === "critical" && t.choice === "severity";  // its columns are severities
  const columns = t.columns || [];
  const legend = (t.legend || []).map((l) => `${l.symbol} ${l.means}`).join(", ");
  $("entry-facts").textContent = [t.code ? `code ${t.code}` : "", `${t.entries.length} entries`, `roll ${t.roll_kind}`,
    columns.length ? `columns ${columns.join(", ")} (by ${bySeverity ? "severity" : "the attack"})` : "",
    legend ? `key: ${legend}` : ""].filter(Boolean).join("; ");
  $("entry-severity-box").hidden = kind !== "critical";
  $("entry-has-box").hidden = kind !== "critical";
  $("entry-modifier-box").hidden = kind !== "fumble";
  $("entry-column-box").hidden = !columns.length || bySeverity;
  $("entry-column").replaceChildren(...columns.map((c) => el("option", { value: c }, c)));
  $("entry-severities").replaceChildren(...(bySeverity ? columns : DEFAULT_SEVERITIES).map((v) => el("option", { value: v })));
  const body = el("tbody");
  for (const e of t.entries) {
    const where = [e.column ? `${e.column}:` : null, e.range].filter(Boolean).join(" ");
    const said = effects(e);
    body.append(el("tr", {}, el("th", { scope: "row" }, where, e.condition ? el("div", { class: "hint" }, `if ${e.condition}`) : null),
      el("td", {}, e.title ? el("strong", {}, `${e.title}. `) : null, e.text || "",
        said ? el("div", { class: "effects" }, said) : null)));
  }
  rows.replaceChildren(el("table", { class: "grid entries" },
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Roll"), el("th", { scope: "col" }, "Entry"))), body));
}

async function readEntry(event) {
  event.preventDefault();
  const { kind, name, data } = entries;
  if (!data) return;
  const query = new URLSearchParams({ table: name, roll: $("entry-roll").value.trim() });
  const severity = $("entry-severity").value.trim();
  if (kind === "critical") {
    if (severity) query.append("severity", severity);
    for (const feature of $("entry-has").value.split(",").map((f) => f.trim()).filter(Boolean)) query.append("has", feature);
  } else if ($("entry-modifier").value.trim()) query.append("modifier", $("entry-modifier").value.trim());
  if (!$("entry-column-box").hidden && $("entry-column").value) query.append("column", $("entry-column").value);
  const out = $("entry-out");
  const answer = kind === "critical" ? await call(`/query/critical?${query}`) : await call(`/query/fumble?${query}`);
  if (!answer.ok) {
    out.replaceChildren(errorBox(answer.data));
    return;
  }
  const d = answer.data;
  const heading = kind === "critical" ? `Critical${severity ? `: ${severity}` : ""} on ${d.table}` : `Fumble on ${d.table}`;
  const card = entryCard(heading, d, d.entry, null);
  for (const other of d.branches || []) {
    if (other.condition === d.entry.condition) continue;
    const said = effects(other);
    card.append(el("p", { class: "branch other" }, `${otherBranchWords(other)}${said ? ` (${said})` : ""}`));
  }
  out.replaceChildren(card);
}

async function showGrid(name) {
  const area = $("grid-area");
  area.hidden = false;
  $("grid-title").textContent = name;
  $("cell-critical").replaceChildren();
  const grid = $("grid");
  grid.replaceChildren(el("p", { class: "hint" }, "Loading…"));
  const answer = await call(`/attack/${encodeURIComponent(name)}`);
  if (!answer.ok) {
    grid.replaceChildren(errorBox(answer.data));
    return;
  }
  const table = answer.data;
  // The critical read by default: the one of the first weapon that uses this table.
  const weapon = state.weapons.find((w) => w.attack_table === table.table && w.ruleset === table.ruleset);
  const select = $("grid-critical");
  select.replaceChildren(...state.criticals.filter((c) => c.ruleset === table.ruleset)
    .map((c) => el("option", { value: c.name }, `${c.name}${c.code ? ` (${c.code})` : ""}`)));
  if (weapon) select.value = weapon.critical;

  // The books' compact notation (18ES+BK) where the cells name critical tables, with its key.
  const codes = table.critical_codes || {};
  $("grid-key").textContent = Object.keys(codes).length
    ? `Criticals: ${Object.entries(codes).map(([name, code]) => `${code} ${name}`).join(", ")} (18ES: 18 hits and an E critical on the S table).`
    : "";
  // The column picker: every armor column shown at first; a phone may keep a few.
  const shown = new Set(state.gridColumns[qualified(table)] || table.armor);
  const picker = $("grid-columns");
  picker.replaceChildren(...table.armor.map((armor) => el("label", { class: "chip" },
    el("input", { type: "checkbox", value: armor, checked: shown.has(armor) ? "" : null,
      onchange: (event) => {
        if (event.target.checked) shown.add(armor); else shown.delete(armor);
        state.gridColumns[qualified(table)] = table.armor.filter((a) => shown.has(a));
        drawGrid(table, shown);
      } }), ` ${armor}`)));
  drawGrid(table, shown);
}

function drawGrid(table, shown) {
  const columns = table.armor.map((armor, i) => [armor, i]).filter(([armor]) => shown.has(armor));
  const head = el("tr", {}, el("th", { scope: "col" }, "Result"), ...columns.map(([a]) => el("th", { scope: "col" }, a)));
  const body = el("tbody");
  for (const row of [...table.rows].reverse()) { // printed as the CLI shows it: highest first
    const cells = columns.map(([armor, i]) => {
      const text = row.cells[i], written = (row.compact || row.cells)[i];
      const criticals = cellCriticals(text);
      if (!criticals.length) return el("td", {}, written);
      return el("td", { class: "has-critical" },
        el("button", { type: "button", title: `critical ${text}`,
          onclick: () => readCritical(table, row, armor, text, criticals) }, written));
    });
    body.append(el("tr", {}, el("th", { scope: "row", class: row.unmodified ? "unmodified" : null }, row.range), ...cells));
  }
  const caption = table.automatic_miss ? el("caption", {}, `Results of ${table.automatic_miss} or less miss.`) : null;
  $("grid").replaceChildren(el("table", { class: "grid" }, caption, el("thead", {}, head), body));
}

async function readCritical(table, row, armor, text, criticals) {
  const out = $("cell-critical");
  const roll = $("grid-roll").value || "50";
  const cards = [el("p", { class: "who" }, `${table.table} ${row.range} ${armor}: ${text}`)];
  for (const [i, c] of criticals.entries()) {
    const name = c.table || $("grid-critical").value;
    const query = new URLSearchParams({ table: name, roll, severity: c.severity, ruleset: table.ruleset });
    const answer = await call(`/query/critical?${query}`);
    if (!answer.ok) {
      cards.push(errorBox(answer.data));
      continue;
    }
    const d = answer.data;
    const card = entryCard(`${i ? `Critical ${i + 1}` : "Critical"}: ${c.severity} on ${d.table}`, d, d.entry, null);
    for (const other of d.branches || []) {
      if (other.condition !== d.entry.condition) card.append(el("p", { class: "branch other" }, otherBranchWords(other)));
    }
    cards.push(card);
  }
  out.replaceChildren(...cards);
  out.scrollIntoView({ behavior: "smooth", block: "nearest" });
}


// ------------------------------------------------------------------ the fight (#/fight, #/fight/NAME)
// A fight is its log on the server (docs/fights.md); this page shows the state
// the server answers (`tables fight show --json`) and sends each step with
// `after`, the seq it last saw: a 409 means another page (or the command
// line) moved the fight on, and the page reloads it and says so. While the
// fight is on the screen the page asks for it again every REFRESH_MS (one
// request at a time, none while the tab is hidden) and shows what another
// device wrote meanwhile.
const REFRESH_MS = 2000;
const fight = { name: null, data: null, lists: false, chances: null, chancesAsked: 0, chancesHint: "",
  chosen: null,  // the target picked by hand, {attacker, target}; else the targeting rule's
  writing: 0, writes: 0,  // writes under way, and sent so far: a refresh read meanwhile is not shown
  refresh: { timer: null, busy: false, every: REFRESH_MS, gone: null } };

// A combatant's status as the command line's status line says it, and its effects in words: the server says
// both (`status_line`, `words` of fight show's JSON; domain/fights/account.py), so there is one wording.
const statusWords = (c) => c.words || [];
const statusLine = (c) => c.status_line || c.name;

function fightNote(text) {
  const note = $("fight-message");
  note.textContent = text || "";
  note.hidden = !text;
}

const fightPath = (suffix = "") => `/fights/${encodeURIComponent(fight.name)}${suffix}`;
const combatant = (name) => (fight.data ? fight.data.combatants.find((c) => c.name === name) : undefined);

function showFight(data) {
  fight.data = data;
  chancesMovedOn(data);
  $("fight-area").hidden = false;
  $("fight-area").dataset.seq = data.seq;  // the last event shown: what the next write sends as `after`
  const over = data.over ? (data.winner ? `, over: side ${data.winner} won` : ", over") : "";
  $("fight-title").textContent = `${data.fight}: round ${data.round}${over}`;
  const sides = [...new Set(data.combatants.map((c) => c.side))];
  $("fight-combatants").replaceChildren(...(data.combatants.length ? data.combatants.map((c) => {
    const initiative = c.initiative ? `, initiative ${c.initiative}` : "";
    const item = el("li", { class: `combatant is-${c.status}${sides.indexOf(c.side) > 0 ? " side-other" : ""}`,
      "data-name": c.name, "data-status": statusLine(c) },
      el("button", { type: "button", class: "name", title: `Change ${c.name}`, onclick: () => changeOne(c.name) }, c.name), " ",
      el("span", { class: "side" }, `side ${c.side}${initiative}`),
      el("div", { class: "words" }, el("span", { class: "hits" }, `${c.hits - c.taken}/${c.hits} hits`),
        c.status === "up" ? null : el("span", { class: "state" }, c.status.toUpperCase()),
        ...statusWords(c).map((w) => el("span", { class: "effect" }, w))));
    if (c.status === "up" && c.cannot_attack && !data.over) item.append(el("div", { class: "cannot" }, `cannot attack: ${c.cannot_attack}`));
    return item;
  }) : [el("li", { class: "hint" }, "No combatants yet: add them below.")]));
  if (!data.combatants.length) $("fight-join-box").open = true;  // the first thing to do
  fillChoices(data);
  fillChange(data);
}

// The attacker, target and weapon lists. The attacker picked stays while it may still attack (or nobody
// else may); else the first able one in initiative order. The target follows the targeting rule (the
// first combatant up of another side, in initiative order: domain/fights/rules.py, auto_target)
// unless one was picked by hand for this attacker; an ally is marked as such.
function fillChoices(data) {
  const attacker = $("fight-attacker");
  const before = attacker.value;
  const up = data.combatants.filter((c) => c.status === "up");
  attacker.replaceChildren(...up.map((c) => el("option", { value: c.name }, c.name)));
  const able = up.find((c) => !c.cannot_attack);
  const kept = up.find((c) => c.name === before);
  if (kept && (!kept.cannot_attack || !able)) attacker.value = kept.name;
  else if (able) attacker.value = able.name;
  fillTargets();
}

// The targeting rule: the first combatant up of another side, in initiative order (the fight's order).
function ruleTarget(data, attacker) {
  return attacker ? data.combatants.find((c) => c.status === "up" && c.side !== attacker.side) : undefined;
}

function fillTargets() {
  const data = fight.data;
  const attacker = combatant($("fight-attacker").value);
  const select = $("fight-target");
  const others = data.combatants.filter((c) => c.status === "up" && (!attacker || c.name !== attacker.name));
  const ally = (c) => Boolean(attacker) && c.side === attacker.side;
  const foe = ruleTarget(data, attacker);
  const chosen = fight.chosen;
  const keep = chosen && attacker && chosen.attacker === attacker.name && others.some((c) => c.name === chosen.target);
  if (!keep) fight.chosen = null;
  const options = others.map((c) => el("option", { value: c.name, "data-ally": ally(c) ? "1" : null },
    ally(c) ? `${c.name} (ally)` : c.name));
  if (!foe) options.unshift(el("option", { value: "" }, others.length ? "no foe up: pick one" : "—"));
  select.replaceChildren(...options);
  select.value = keep ? chosen.target : foe ? foe.name : "";
  const withSelect = $("fight-with"), weapon = withSelect.value;
  const arms = attacker ? attacker.attacks : [];
  withSelect.replaceChildren(...arms.map((a) => el("option", { value: a.weapon }, `${a.weapon} ${a.cmb}`)));
  if (arms.some((a) => a.weapon === weapon)) withSelect.value = weapon;
  allyFlag();
}

// An ally as the target is flagged beside it, and attacked only once "on purpose" is ticked.
function allyFlag(asked) {
  const attacker = combatant($("fight-attacker").value), target = combatant($("fight-target").value);
  const ally = Boolean(attacker && target && attacker.side === target.side);
  const box = $("fight-ally");
  box.hidden = !ally;
  box.classList.toggle("asked", Boolean(asked));
  $("fight-target").classList.toggle("is-ally", ally);
  if (!ally) {
    $("fight-ally-ok").checked = false;
    return;
  }
  $("fight-ally-words").textContent = asked
    ? `${target.name} is ${attacker.name}'s ally (side ${attacker.side}): tick the box to attack it on purpose, or pick a foe.`
    : `${target.name} is ${attacker.name}'s ally (side ${attacker.side}), not a foe.`;
}

// Each attack of a step with the lines of the account that tell it: an attack's account begins with
// `ATTACKER attacks TARGET with WEAPON: ...` (domain/fights/account.py); a round's end is `Round N ends.`
// Answers (lists of lines and of attacks) may say the attacker themselves (`attacker`): then that is used.
function attackParts(data, names) {
  const attacks = data.attack ? [data.attack] : data.attacks || [];
  const lines = data.account || [];
  const starts = [];
  let from = 0;
  for (const a of attacks) {
    const target = a.attack && a.attack.target;
    let found = -1, who = a.attacker || null;
    for (let i = from; i < lines.length && found < 0; i++) {
      const line = lines[i];
      const name = who && line.startsWith(`${who} attacks `) ? who
        : names.filter((n) => line.startsWith(`${n} attacks `) && (!target || line.startsWith(`${n} attacks ${target} with `)))
          .sort((x, y) => y.length - x.length)[0];
      if (name) {
        found = i;
        who = name;
      }
    }
    // the target as the answer says it (an attack on the tables), else as its line does (a formula system's)
    const rest = found >= 0 && who ? lines[found].slice(`${who} attacks `.length) : "";
    const whom = target || names.filter((n) => rest.startsWith(`${n} with `)).sort((x, y) => y.length - x.length)[0] || null;
    starts.push({ attack: a, at: found, who, whom });
    if (found >= 0) from = found + 1;
  }
  const roundEnd = lines.findIndex((line) => /^Round \d+ ends\.$/.test(line));
  const end = roundEnd >= 0 ? roundEnd : lines.length;
  const parts = starts.map((s, i) => {
    const next = starts.slice(i + 1).find((t) => t.at >= 0);
    const stop = next ? next.at : end;
    return { ...s, lines: s.at >= 0 ? lines.slice(s.at, Math.max(stop, s.at)) : [] };
  });
  const told = new Set(parts.flatMap((p) => (p.at >= 0 ? [...Array(p.lines.length).keys()].map((k) => p.at + k) : [])));
  return { parts, rest: lines.filter((_line, i) => !told.has(i)) };
}

// The account of the last step: each attack under a heading saying whose it is (its outcome and damage,
// what it did, and its steps as `resolve` tells them, folded), then the rest (a round's end, a join).
function showStep(data) {
  const box = el("article", { class: "account" });
  const names = (data.fight || fight.data || { combatants: [] }).combatants.map((c) => c.name);
  const { parts, rest } = attackParts(data, names);
  const many = parts.length > 1;
  parts.forEach((p, i) => {
    const a = p.attack;
    const whose = p.who ? `${p.who}'s attack` : "An attack";
    const heading = `${many ? `${i + 1}. ` : ""}${whose}${p.whom ? ` on ${p.whom}` : ""}`;
    const came = [a.outcome ? outcomeWords(a.outcome) : "", a.damage ? `${a.damage} damage` : ""].filter(Boolean).join(", ");
    // what it did, in the command line's words; how (who attacked whom with what, at what CMB and DEF, and
    // `resolve`'s steps) folded beneath: a tap on the attack opens it
    const [first, ...did] = p.lines;
    const steps = el("div", { class: "steps" });
    for (const s of a.steps || []) steps.append(el("div", { class: s.startsWith("  ") ? "step more" : "step" }, s.trim()));
    const turn = el("details", { class: "turn", "data-attacker": p.who || "" },
      el("summary", { title: "How it was resolved" },
        el("span", { class: "turn-head" }, heading, ": ",
          el("span", { class: `outcome outcome-${a.outcome}` }, came || "no damage")),
        ...did.map((line) => el("span", { class: "did" }, line))),
      first ? el("p", {}, first) : null, steps);
    box.append(turn);
  });
  for (const line of rest) box.append(el("p", {}, line));
  $("fight-account").replaceChildren(box);
}

async function listFights(selected) {
  const answer = await call("/fights");
  if (!answer.ok) return;
  const select = $("fight-name");
  select.replaceChildren(el("option", { value: "" }, "—"),
    ...answer.data.fights.map((f) => el("option", { value: f.name }, `${f.name} (${f.events} events)`)));
  if (selected) select.value = selected;
}

async function openFight(name, note) {
  if (name !== fight.name) fight.chosen = null;
  fight.refresh.gone = null;
  fight.name = name;
  const answer = await call(fightPath());
  if (!answer.ok) {
    $("fight-area").hidden = true;
    $("fight-account").replaceChildren();
    $("fight-message").hidden = true;
    $("fight-view").insertBefore(errorBox(answer.data), $("fight-area"));
    return;
  }
  document.querySelectorAll("#fight-view > .error").forEach((e) => e.remove());
  fightNote(note);
  showFight(answer.data);
  if (!note) $("fight-account").replaceChildren();
  const hash = `#/fight/${encodeURIComponent(name)}`;
  if (location.hash !== hash) history.replaceState(history.state, "", hash);
  listFights(answer.data.fight);
  showLog();
  refreshSoon();
}

// The routes another helper of the server may not have yet (heal, damage, remove): said plainly.
const NEWER_ROUTES = { "/adjustments": "heal or damage a combatant", "/departures": "remove a combatant" };

// One write: ``suffix`` of the fight's path, ``body`` with ``after`` (and ``version``); the answer's fight shown, or why not.
async function step(suffix, body) {
  if (!fight.data) return false;
  document.querySelectorAll("#fight-view > .error").forEach((e) => e.remove());
  fight.writing++;
  fight.writes++;
  let answer;
  try {
    // `version` too when the server says it (every write bumps it): refused even if the log was undone and
    // written again up to the same event since this page read it
    const seen = fight.data.version === undefined ? {} : { version: fight.data.version };
    answer = await call(fightPath(suffix), { ...body, after: fight.data.seq, ...seen });
  } finally {
    fight.writing--;
  }
  if (answer.status === 409) {
    const before = fight.data;
    await openFight(fight.name, `The fight changed meanwhile (another page or the command line): here it is as it stands now. Nothing was done; try again. (${answer.data.error.message})`);
    if (fight.data && fight.data !== before && fight.data.fight === before.fight) await tellElsewhere(before, fight.data);
    return false;
  }
  if (!answer.ok) {
    const missing = NEWER_ROUTES[suffix] && (answer.status === 405 || /^no such endpoint/.test(answer.data.error?.message || ""));
    $("fight-account").replaceChildren(missing
      ? errorBox({ error: { message: `This server cannot ${NEWER_ROUTES[suffix]} yet (POST ${API}${fightPath(suffix)} answered ${answer.status}): nothing was done. Use Set instead (hits taken), or a newer tables.` } })
      : errorBox(answer.data));
    return false;
  }
  fightNote("");
  showFight(answer.data.fight);
  showStep(answer.data);
  listFights(answer.data.fight.fight);
  showLog();
  return true;
}

function fightDice() {
  const text = $("fight-dice").value.trim();
  if (!text) return null;
  const parts = text.split(/[\s,;]+/).filter(Boolean);
  return parts.every((p) => /^\d+$/.test(p)) ? parts.map(Number) : text;
}

async function fightAttack(rollForMe) {
  const body = { attacker: $("fight-attacker").value, target: $("fight-target").value };
  if (!body.target) {
    $("fight-account").replaceChildren(errorBox({ error: { message: "Pick a target: no foe of the attacker is up." } }));
    return;
  }
  if (!$("fight-ally").hidden && !$("fight-ally-ok").checked) {  // an ally: only on purpose
    allyFlag(true);
    $("fight-ally-ok").focus();
    return;
  }
  if ($("fight-with").value) body.attack = $("fight-with").value;
  const mods = $("fight-mods").value.split(",").map((m) => m.trim()).filter(Boolean);
  if (mods.length) body.mod = mods;
  const dice = rollForMe ? null : fightDice();
  if (dice !== null) body.dice = dice;
  if (await step("/attacks", body)) {
    $("fight-dice").value = "";
    $("fight-ally-ok").checked = false;
    allyFlag();
  }
}

async function fightRound(auto) {
  const body = {};
  if (auto) {
    body.auto = true;
    const dice = fightDice();
    if (dice !== null) body.dice = dice;
  }
  if (await step("/rounds", body) && auto) $("fight-dice").value = "";
}

const JOIN_TEXT = { creature: "fight-creature", as: "fight-as", side: "fight-side", armor: "fight-armor", weapon: "fight-weapon",
  rank: "fight-rank" };
const JOIN_NUMBERS = { hits: "fight-hits", def: "fight-def", parry: "fight-parry", cmb: "fight-cmb", initiative: "fight-initiative" };

async function fightJoin(event) {
  event.preventDefault();
  const body = {};
  for (const [field, id] of Object.entries(JOIN_TEXT)) if ($(id).value.trim()) body[field] = $(id).value.trim();
  for (const [field, id] of Object.entries(JOIN_NUMBERS)) if ($(id).value.trim()) body[field] = Number($(id).value);
  const has = $("fight-has").value.split(",").map((f) => f.trim()).filter(Boolean);
  if (has.length) body.has = has;
  if (await step("/combatants", body)) {
    for (const id of [...Object.values(JOIN_TEXT), ...Object.values(JOIN_NUMBERS), "fight-has"]) $(id).value = "";
  }
}

// ------------------------------------------------------------------ change a combatant: heal, damage, set, remove
const EDITS = ["taken", "bleed", "stun", "no_parry", "must_parry", "penalty", "bonus", "dying"];

function fillChange(data) {
  const select = $("fight-change-who"), before = select.value;
  select.replaceChildren(...data.combatants.map((c) => el("option", { value: c.name },
    c.status === "up" ? c.name : `${c.name} (${c.status})`)));
  if (data.combatants.some((c) => c.name === before)) select.value = before;
  changeHints();
}

// Each field of *Set* shows, greyed, what the combatant carries now.
function changeHints() {
  const c = combatant($("fight-change-who").value);
  for (const field of EDITS) {
    const value = c ? c[field] : null;
    $(`fight-edit-${field}`).placeholder = c ? (value === null || value === undefined ? "none" : String(value)) : "";
  }
  $("fight-edit-status").options[0].textContent = c ? `as it is (${c.status})` : "as it is";
}

// A card's name tapped: *Change a combatant* opened on it.
function changeOne(name) {
  const box = $("fight-change-box");
  box.open = true;
  $("fight-change-who").value = name;
  changeHints();
  box.scrollIntoView({ behavior: "smooth", block: "start" });
  $("fight-change-hits").focus({ preventScroll: true });
}

async function fightAdjust(kind) {
  const who = $("fight-change-who").value, hits = $("fight-change-hits").value.trim();
  if (!who || !hits) {
    $("fight-account").replaceChildren(errorBox({ error: { message: `Give the hits to ${kind} ${who || "the combatant"}.` } }));
    return;
  }
  if (await step("/adjustments", { combatant: who, [kind]: Number(hits) })) $("fight-change-hits").value = "";
}

async function fightEdit(event) {
  event.preventDefault();
  const body = { combatant: $("fight-change-who").value };
  for (const field of EDITS) {
    const value = $(`fight-edit-${field}`).value.trim();
    if (value) body[field] = Number(value);
  }
  if ($("fight-edit-status").value) body.status = $("fight-edit-status").value;
  if (Object.keys(body).length === 1) {
    $("fight-account").replaceChildren(errorBox({ error: { message: "Fill in what to set (hits taken, bleeding, …, status)." } }));
    return;
  }
  if (await step("/edits", body)) {
    for (const field of EDITS) $(`fight-edit-${field}`).value = "";
    $("fight-edit-status").value = "";
    changeHints();
  }
}

async function fightRemove() {
  const who = $("fight-change-who").value;
  if (who) await step("/departures", { combatant: who });
}

// ------------------------------------------------------------------ the log (`tables fight log --json`)
// An event in words: its own (`words`) when the log gives them; else its kind, who, and the dice.
function eventWords(e, round) {
  if (Array.isArray(e.words)) return e.words.join(" ");
  if (typeof e.words === "string") return e.words;
  const c = e.combatant;
  if (e.kind === "join" && c && typeof c === "object") {
    const armor = c.armor ? `, armor ${c.armor}` : "", initiative = c.initiative ? `, initiative ${c.initiative}` : "";
    return `${c.name} joins side ${c.side}: ${c.hits} hits, DEF ${c.def}${armor}${initiative}.`;
  }
  if (e.kind === "attack") {
    const hits = e.blow && e.blow.target ? `: ${e.blow.target.hits} hits` : "";
    return `${e.attacker} attacks ${e.target} with ${e.weapon}, CMB ${e.cmb} against DEF ${e.def}, dice ${(e.dice || []).join(", ")}${hits}.`;
  }
  if (e.kind === "round") return `Round ${round} ends.`;
  if (e.kind === "edit" && e.set) {
    return `${c} set by hand: ${Object.entries(e.set).map(([k, v]) => `${k.replace(/_/g, " ")} ${v === null ? "none" : v}`).join(", ")}.`;
  }
  const skip = new Set(["seq", "at", "kind", "resolved", "blow", "words"]);
  const facts = Object.entries(e).filter(([k, v]) => !skip.has(k) && v !== null && (typeof v !== "object" || Array.isArray(v)))
    .map(([k, v]) => `${k.replace(/_/g, " ")} ${Array.isArray(v) ? v.join(", ") : v}`);
  return `${e.kind}${facts.length ? `: ${facts.join(", ")}` : ""}.`;
}

// The events in words, numbered as the log numbers them (with the round each round event ends).
function logItems(events) {
  let round = 0;
  return events.map((e) => {
    if (e.kind === "round") round++;
    return el("li", { value: e.seq, "data-kind": e.kind }, eventWords(e, round));
  });
}

const LOG_SHOWN = 1000;  // the latest events the log box shows (the server's page)
async function showLog() {
  if (!$("fight-log-box").open || !fight.name) return;
  const name = fight.name;
  let answer = await call(fightPath("/log"));
  // a long log comes a page at a time (`next`): its last page is shown, the latest events
  if (answer.ok && answer.data.next != null) answer = await call(fightPath(`/log?from=${Math.max(1, answer.data.seq - LOG_SHOWN + 1)}`));
  if (name !== fight.name) return;
  const list = $("fight-log");
  if (!answer.ok) {
    list.replaceChildren(el("li", {}, errorBox(answer.data)));
    return;
  }
  list.dataset.seq = answer.data.events.length ? answer.data.events[answer.data.events.length - 1].seq : 0;
  list.replaceChildren(...(answer.data.events.length ? logItems(answer.data.events) : [el("li", { class: "hint" }, "No events yet.")]));
}

// ------------------------------------------------------------------ live: what another device wrote
// Whether the page looks again now: a fight on the screen, in a tab shown, no token being asked for, and the
// fight not found gone at the last look.
const refreshing = () => Boolean(fight.name && fight.data && fight.refresh.every && !document.hidden
  && !$("fight-view").hidden && !$("fight-area").hidden && $("token-box").hidden && fight.refresh.gone !== fight.name);

function refreshSoon() {
  const r = fight.refresh;
  clearTimeout(r.timer);
  r.timer = null;
  if (refreshing()) r.timer = setTimeout(refreshNow, r.every);
}

async function refreshNow() {
  const r = fight.refresh;
  if (r.busy || !refreshing()) {
    if (!r.busy) refreshSoon();
    return;
  }
  r.busy = true;
  const name = fight.name, writes = fight.writes, before = fight.data;
  try {
    const answer = await call(fightPath());
    // shown only if nothing was written from this page meanwhile (its own answer is newer), and if it differs
    if (name === fight.name && writes === fight.writes && !fight.writing && fight.data === before) {
      if (answer.ok && JSON.stringify(answer.data) !== JSON.stringify(before)) await showElsewhere(before, answer.data);
      else if (!answer.ok && answer.status === 404) {  // removed elsewhere: said, and not asked for again
        r.gone = name;
        fightNote(`The fight '${name}' is no longer on the server (${answer.data.error.message}).`);
      }
    }
  } finally {
    r.busy = false;
    refreshSoon();
  }
}

// Another device's steps: the fight as it now stands, and its new events in words.
async function showElsewhere(before, data) {
  showFight(data);
  fightNote(data.seq < before.seq
    ? `Updated: the fight was taken back elsewhere to event ${data.seq}.`
    : `Updated: the fight moved on elsewhere (event ${data.seq}).`);
  await tellElsewhere(before, data);
}

// What was written elsewhere since ``before`` (the fight this page showed), now that it shows ``data``: the new
// events in the log's words, in the place of the last step's account.
async function tellElsewhere(before, data) {
  const log = await call(fightPath(`/log?from=${before.seq + 1}`));  // the events written since: a page
  if (log.ok && fight.data === data) {
    const all = logItems(log.data.events).filter((item) => Number(item.value) > before.seq);
    const box = el("article", { class: "account elsewhere" },
      el("h3", { class: "turn-head" }, data.seq < before.seq ? `Undone elsewhere: back at event ${data.seq}.` : "From another device:"));
    if (all.length) box.append(el("ol", { class: "log" }, ...all));
    $("fight-account").replaceChildren(box);
  }
  showLog();
}

async function createFight(event) {
  event.preventDefault();
  const name = $("fight-new-name").value.trim();
  if (!name) return;
  const answer = await call("/fights", { name });
  if (!answer.ok) {
    fightNote("");
    document.querySelectorAll("#fight-view > .error").forEach((e) => e.remove());
    $("fight-view").insertBefore(errorBox(answer.data), $("fight-area"));
    return;
  }
  $("fight-new-name").value = "";
  await openFight(answer.data.fight);
}

function fightRoute(hash) {
  if (!fight.lists) {
    fight.lists = true;
    const armors = new Set(state.attackTables.flatMap((t) => t.armor || []));
    $("fight-armors").replaceChildren(...[...armors].map((a) => el("option", { value: a })));
  }
  const name = hash.startsWith("#/fight/") ? decodeURIComponent(hash.slice("#/fight/".length)) : null;
  if (name && name !== fight.name) openFight(name);
  else {
    listFights(fight.name);
    refreshSoon();
  }
}

// ------------------------------------------------------------------ a fight's chances (odds fight)
// Asked once (`tables odds fight --json`): the server answers within about a second, exact when the fight's
// states stay few, else estimated from as many fights as it plays in that time, each share with its standard
// error; the answer says which (`method`, `why`), and the chart draws an estimate's error bars
// (docs/api.md, "Odds and simulation of a fight").
const CHANCES_ROUNDS = 20;
const SE_BARS = 2; // standard errors each side of an estimated share (as `odds fight --plot` draws them)

async function fightChances() {
  if (!fight.data) return;
  const out = $("fight-chances-out"), button = $("fight-chances-go");
  const name = fight.name, asked = ++fight.chancesAsked;
  const rounds = Number($("fight-chances-rounds").value) || CHANCES_ROUNDS;  // out of 1–200: the server says so
  fight.chances = { name: fight.data.fight, seq: fight.data.seq };  // what they are asked for
  delete out.dataset.seq;
  button.disabled = true;
  out.replaceChildren(el("p", { class: "hint" }, "Working out the chances…"));
  try {
    const answer = await call(`/fights/${encodeURIComponent(name)}/odds?rounds=${rounds}`);
    if (asked !== fight.chancesAsked) return; // the fight moved on, or another was opened, meanwhile
    if (!answer.ok) {
      out.replaceChildren(errorBox(answer.data));
      return;
    }
    out.replaceChildren(...chancesParts(answer.data, rounds));
    out.dataset.seq = answer.data.seq;  // the event they were worked out after
    out.dataset.method = answer.data.method;
  } finally {
    if (asked === fight.chancesAsked) button.disabled = false;
  }
}

// Chances shown (or being asked) for another fight, or another event of this one, are dropped: they were
// of another state. The page says so (the fight moved on), or shows the hint again (another fight).
function chancesMovedOn(data) {
  const asked = fight.chances;
  if (!asked || (asked.name === data.fight && asked.seq === data.seq)) return;
  fight.chances = null;
  fight.chancesAsked++;  // an answer still on its way is not shown
  $("fight-chances-go").disabled = false;
  const out = $("fight-chances-out");
  delete out.dataset.seq;
  out.replaceChildren(el("p", { class: "hint" }, asked.name === data.fight
    ? `The fight has moved on (event ${data.seq}): work the chances out again.` : fight.chancesHint));
}

// What the chances come to, as `odds fight` prints them: how they were had, the sides by their combatants, the
// chart, the last round, the expected rounds (within the ``asked`` rounds; the list stops sooner when every
// fight has ended by then).
function chancesParts(data, asked) {
  const rounds = data.rounds, estimated = data.method === "estimated";
  const points = (p) => `${(100 * p).toFixed(2)}%`;
  const how = estimated ? `estimated from ${data.count.toLocaleString("en")} fights, ± ${points(data.largest_se)}` : "exact odds";
  const parts = [el("p", { class: "who" }, `${data.fight}: ${how}, from round ${data.from_round} (after event ${data.seq})`)];
  if (data.why) parts.push(el("p", { class: "note" }, `${data.why[0].toUpperCase()}${data.why.slice(1)}.`));
  if (!rounds.length) return parts;
  const sides = Object.keys(rounds[0].sides);
  const named = (side) => (data.side_names && data.side_names[side]) || `side ${side}`;
  parts.push(chancesChart(data, sides));
  parts.push(el("p", { class: "chance-keys" }, ...sides.map((side, i) => el("span", { class: `chance-key side-${i % 6}` }, named(side)))));
  const last = rounds[rounds.length - 1];
  const margin = (se) => (estimated ? ` ± ${points(se)}` : "");
  parts.push(el("p", {}, `By the end of round ${last.round}: `,
    ...sides.map((side, i) => el("span", {}, i ? ", " : "", `side ${side} won `, el("strong", {}, percent(last.sides[side])),
      estimated ? margin(last.se.sides[side]) : "")),
    `; still going: ${percent(data.unfinished)}.`));
  parts.push(el("ul", { class: "chance-fates" }, ...Object.entries(last.combatants).map(([name, fate]) =>
    el("li", {}, `${name}: down ${percent(fate.down)}, dead ${percent(fate.dead)}`))));
  const expected = estimated ? ` (± ${data.se.expected_rounds.toFixed(2)})` : "";
  parts.push(el("p", {}, "Expected rounds: ", el("strong", {}, data.expected_rounds.toFixed(2)), expected,
    ` (within the ${asked} round${asked === 1 ? "" : "s"} asked).`));
  if (estimated) {
    parts.push(el("p", { class: "hint" }, `± is a standard error: each share is within ${SE_BARS} of them of the truth, ` +
      `19 times in 20 (the bars on the chart). Seed ${data.seed}: the same question gets the same answer.`));
  }
  return parts;
}

// P(each side has won by the end of round r): a line per side over the rounds as the fight numbers them
// (as `odds fight --plot` draws it), a simulation's with bars of SE_BARS standard errors.
function chancesChart(data, sides) {
  const rounds = data.rounds, simulated = data.method === "estimated";
  const width = 360, height = 190, left = 46, right = 12, top = 10, bottom = 30;
  const first = rounds[0].round, last = rounds[rounds.length - 1].round;
  const x = (r) => left + (last === first ? 0.5 : (r - first) / (last - first)) * (width - left - right);
  const y = (p) => top + (1 - Math.min(1, Math.max(0, p))) * (height - top - bottom);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", class: "chart chances",
    "aria-label": `P(won by the end of the round), per side, rounds ${first} to ${last}` });
  for (const p of [0, 0.25, 0.5, 0.75, 1]) {
    chart.append(svg("line", { x1: left, x2: width - right, y1: y(p).toFixed(1), y2: y(p).toFixed(1), class: "chance-grid" }));
    chart.append(svg("text", { x: left - 4, y: (y(p) + 4).toFixed(1), class: "chart-value", "text-anchor": "end" }, p ? `${p * 100}%` : "0"));
  }
  const step = Math.max(1, Math.ceil(rounds.length / 10)), end = rounds.length - 1;
  rounds.forEach((r, j) => {  // every step-th round and the last, none too near it
    if (j === end || (j % step === 0 && end - j >= step)) {
      chart.append(svg("text", { x: x(r.round).toFixed(1), y: height - bottom + 15, class: "chart-value", "text-anchor": "middle" }, String(r.round)));
    }
  });
  chart.append(svg("text", { x: (left + width - right) / 2, y: height - 2, class: "chart-label", "text-anchor": "middle" }, "round"));
  sides.forEach((side, i) => {
    const kind = `side-${i % 6}`;
    const points = rounds.map((r) => `${x(r.round).toFixed(1)},${y(r.sides[side]).toFixed(1)}`).join(" ");
    chart.append(svg("polyline", { points, class: `chance-line ${kind}`, "data-side": side }));
    for (const r of rounds) {
      if (simulated) {
        const spread = SE_BARS * r.se.sides[side], at = x(r.round);
        const low = y(r.sides[side] - spread), high = y(r.sides[side] + spread);
        chart.append(svg("path", { d: `M${(at - 3).toFixed(1)},${low.toFixed(1)}h6M${at.toFixed(1)},${low.toFixed(1)}` +
          `V${high.toFixed(1)}M${(at - 3).toFixed(1)},${high.toFixed(1)}h6`, class: `chance-bar ${kind}` }));
      }
      const dot = svg("circle", { cx: x(r.round).toFixed(1), cy: y(r.sides[side]).toFixed(1), r: 2.5, class: `chance-dot ${kind}` });
      dot.append(svg("title", {}, `side ${side} by round ${r.round}: ${percent(r.sides[side])}`));
      chart.append(dot);
    }
  });
  return chart;
}

function startFights() {
  $("entry-query").addEventListener("submit", readEntry);
  $("fight-pick").addEventListener("submit", createFight);
  $("fight-name").addEventListener("change", () => { if ($("fight-name").value) openFight($("fight-name").value); });
  $("fight-attack").addEventListener("submit", (event) => { event.preventDefault(); fightAttack(false); });
  $("fight-roll").addEventListener("click", () => fightAttack(true));
  $("fight-attacker").addEventListener("change", () => {  // a new attacker: the targeting rule again
    fight.chosen = null;
    $("fight-ally-ok").checked = false;
    fillTargets();
  });
  $("fight-target").addEventListener("change", () => {  // a target picked by hand: kept for this attacker
    fight.chosen = { attacker: $("fight-attacker").value, target: $("fight-target").value };
    $("fight-ally-ok").checked = false;
    allyFlag();
  });
  $("fight-ally-ok").addEventListener("change", () => allyFlag());
  $("fight-end-round").addEventListener("click", () => fightRound(false));
  $("fight-auto-round").addEventListener("click", () => fightRound(true));
  $("fight-undo").addEventListener("click", () => step("/undo", {}));
  $("fight-join").addEventListener("submit", fightJoin);
  $("fight-change-who").addEventListener("change", changeHints);
  $("fight-heal").addEventListener("click", () => fightAdjust("heal"));
  $("fight-damage").addEventListener("click", () => fightAdjust("damage"));
  $("fight-change").addEventListener("submit", fightEdit);
  $("fight-remove").addEventListener("click", fightRemove);
  $("fight-log-box").addEventListener("toggle", showLog);
  document.addEventListener("visibilitychange", () => {  // a hidden tab asks nothing; back in view, it looks at once
    if (document.hidden) refreshSoon();
    else if (fight.data && !$("fight-view").hidden) refreshNow();
  });
  $("fight-chances-go").addEventListener("click", fightChances);
  fight.chancesHint = $("fight-chances-out").textContent.trim();
}

// ------------------------------------------------------------------ routes: #/, #/fight[/NAME], #/tables, #/attack/NAME
function route() {
  const hash = location.hash || "#/";
  const browsing = ["#/tables", "#/attack/", "#/critical/", "#/fumble/"].some((start) => hash.startsWith(start));
  const fighting = hash === "#/fight" || hash.startsWith("#/fight/");
  $("attack-view").hidden = browsing || fighting;
  $("tables-view").hidden = !browsing;
  $("fight-view").hidden = !fighting;
  $("nav-attack").classList.toggle("current", !browsing && !fighting);
  $("nav-tables").classList.toggle("current", browsing);
  $("nav-fight").classList.toggle("current", fighting);
  if (fighting) fightRoute(hash);
  if (!browsing) return;
  showTableList();
  const shown = /^#\/(attack|critical|fumble)\/(.+)$/.exec(hash);
  if (!shown || shown[1] !== "attack") $("grid-area").hidden = true;
  if (!shown || shown[1] === "attack") $("entry-area").hidden = true;
  if (shown && shown[1] === "attack") showGrid(decodeURIComponent(shown[2]));
  else if (shown) showEntries(shown[1], decodeURIComponent(shown[2]));
}

// ------------------------------------------------------------------ start
// The lists the page needs (again after a token is given).
async function load() {
  const [weapons, creatures, attack, critical, fumble] = await Promise.all(
    ["/weapons", "/creatures", "/attack", "/critical", "/fumble"].map((path) => call(path)));
  for (const answer of [weapons, creatures, attack, critical, fumble]) {
    if (!answer.ok && answer.status !== 401) $("account").append(errorBox(answer.data)); // 401: the token form asks
  }
  state.weapons = weapons.ok ? weapons.data.weapons : [];
  state.creatures = creatures.ok ? creatures.data.creatures : [];
  state.attackTables = attack.ok ? attack.data.attack : [];
  state.criticals = critical.ok ? critical.data.critical : [];
  state.fumbles = fumble.ok ? fumble.data.fumble : [];
  $("weapons").replaceChildren(...state.weapons.map((w) => el("option", { value: qualified(w) }, `${w.attack_table}, ${w.critical}`)));
  $("creatures").replaceChildren(...state.creatures.map((c) => el("option", { value: qualified(c) }, `DEF ${c.defense}, ${c.armor}`)));
  showWeapon();
  showTarget();
  route();
}

async function start() {
  takeTokenFromAddress();
  $("token-form").addEventListener("submit", saveToken);
  startFights();
  $("attack-form").addEventListener("submit", (event) => {
    event.preventDefault();
    resolve(false);
  });
  $("roll").addEventListener("click", () => resolve(true));
  $("weapon").addEventListener("change", () => { showWeapon(); oddsSoon(); });
  $("target").addEventListener("input", () => { showTarget(); oddsSoon(); });
  for (const id of ["cmb", "mods", "def", "armor"]) $(id).addEventListener("input", oddsSoon);
  $("clear-history").addEventListener("click", () => { sessionStorage.removeItem(HISTORY_KEY); showHistory(); });
  window.addEventListener("hashchange", () => {
    if (takeTokenFromAddress()) {
      $("token-box").hidden = true;
      load();
    } else route();
  });

  showHistory();
  // Health is always open: it says whether the server wants a token before anything is refused.
  const health = await call("/health");
  if (health.ok && health.data.token_required && !storedToken()) askForToken(false);
  else load();
}

document.addEventListener("DOMContentLoaded", start);
