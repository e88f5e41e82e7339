"""The game master's page in a real browser (issue #18): headless Chromium,
driven by Selenium, opens `/` from a real `tables serve` on loopback, resolves
attacks with typed dice as a user would, and shows the damage the CLI's
`--json` answers. Screenshots at 390 px and 1280 px wide are kept in
tests/artifacts/ (git-ignored; CI keeps them in its workspace).

Chromium and chromedriver are Debian's `chromium` and `chromium-driver`.
Without them the test is skipped, so the slow tests (`pytest -m slow`) run on a
machine without a browser; CI installs them and sets
TABLES_REQUIRE_BROWSER=1 (.ci/run), so there a missing browser fails."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import fight_state, serving

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
# The flags the closed network needs (without the background-networking ones
# Chromium's own connections are refused), headless and sandbox-free for CI.
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync")
ATTACK = ("--weapon", "Longsword", "--cmb", "60", "--def", "20", "--armor", "MA")
TOKEN = "t0ken-for-the-browser-test-1234"
# Slow (~20 s: Chromium and four servers), so run by `pytest -m slow` (and CI), not by a plain
# `pytest`; on one xdist worker, so that one browser and one of each server serve all its tests.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]


def need_browser() -> None:
    """Skip when the browser is missing; fail with TABLES_REQUIRE_BROWSER=1 (CI)."""
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not os.path.exists(path)]
    if importlib.util.find_spec("selenium") is None:
        missing.append("the Python package selenium (the test extra)")
    if not missing:
        return
    message = (f"the browser test needs {', '.join(missing)}: install Debian's chromium and chromium-driver "
               "(`apt-get install chromium chromium-driver`, as .ci/run does) and `pip install \".[test]\"`")
    if os.environ.get("TABLES_REQUIRE_BROWSER") == "1":
        pytest.fail(message)
    pytest.skip(message)


def child_env(home: Path) -> dict[str, str]:
    """The environment of the server and the CLI: no $TABLES_DB, no user data directory."""
    env = {key: value for key, value in os.environ.items() if key != "TABLES_DB"}
    env["XDG_DATA_HOME"] = str(home)
    return env


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory, bundled_db_template: Path) -> Path:
    """The bundled tables and the printed example (20 armor columns, a bestiary with numbered armor types)."""
    from tables_app import example_workbook

    path = tmp_path_factory.mktemp("browser") / "tables.db"
    shutil.copyfile(bundled_db_template, path)
    subprocess.run([sys.executable, "-m", "tables_app", "--db", str(path), "import", str(example_workbook("printed"))],
                   env=child_env(path.parent / "user-data"), capture_output=True, check=True)
    return path


@pytest.fixture(scope="module")
def server(database: Path):  # type: ignore[no-untyped-def]
    """`tables serve` on a free loopback port; yields its base address."""
    need_browser()
    with serving(database, env=child_env(database.parent / "user-data")) as (base, _process):
        yield base


@pytest.fixture(scope="module")
def token_server(database: Path):  # type: ignore[no-untyped-def]
    """`tables serve` with TABLES_TOKEN set (over the same database, read only); yields its base address."""
    need_browser()
    env = child_env(database.parent / "user-data") | {"TABLES_TOKEN": TOKEN}
    with serving(database, env=env) as (base, _process):
        yield base


def chromium(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """A headless Chromium of its own profile, driven by Selenium."""
    need_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.add_argument("--window-size=1280,900")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    return driver


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    driver = chromium(tmp_path_factory)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def second_browser(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """Another device: a second browser, of its own profile (a player's phone, a second GM screen)."""
    driver = chromium(tmp_path_factory)
    try:
        yield driver
    finally:
        driver.quit()


def cli_answer(database: Path, dice: str) -> dict:
    result = subprocess.run([sys.executable, "-m", "tables_app", "--db", str(database), "resolve", "table", *ATTACK,
                             "--dice", dice, "--json"],
                            env=child_env(database.parent / "user-data"), capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def resolve_on_the_page(driver, base: str, dice: str):  # type: ignore[no-untyped-def]
    """Open the page, fill the form as a user would, submit; return the account."""
    driver.get(f"{base}/")
    return resolve_on_the_open_page(driver, dice)


def resolve_on_the_open_page(driver, dice: str):  # type: ignore[no-untyped-def]
    """Fill the form of the page already open as a user would, submit; return the account."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ready
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(driver, 20)
    # The weapons arrive from /api/v1/weapons: wait for the datalist.
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#weapons option[value='Longsword']"))
    driver.find_element(By.ID, "weapon").send_keys("Longsword")
    cmb = driver.find_element(By.ID, "cmb")
    cmb.click()  # leaving the weapon field fills the armor columns of its table
    cmb.clear()
    cmb.send_keys("60")
    defense = driver.find_element(By.ID, "def")
    defense.clear()
    defense.send_keys("20")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#armor option[value='MA']"))
    Select(driver.find_element(By.ID, "armor")).select_by_value("MA")
    driver.find_element(By.ID, "dice").send_keys(dice)
    driver.find_element(By.ID, "resolve").click()
    return wait.until(ready.visibility_of_element_located((By.CSS_SELECTOR, "#account article.account")))


def shown_damage(account) -> int:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    verdict = account.find_element(By.CSS_SELECTOR, ".verdict").text  # "HIT, 7 damage": told once, at the top
    damage = int(verdict.split(", ")[1].split()[0])
    account.find_element(By.CSS_SELECTOR, "details.how summary").click()  # how it was resolved, opened on request
    dd = account.find_element(By.XPATH, ".//dl[contains(@class, 'facts')]/dt[.='Damage']/following-sibling::dd[1]")
    assert int(dd.text) == damage
    return damage


def test_a_hit_with_typed_dice_shows_the_damage_the_cli_answers(server, browser, database):
    from selenium.webdriver.common.by import By

    expected = cli_answer(database, "42")
    assert expected["outcome"] == "hit" and not expected.get("critical")
    account = resolve_on_the_page(browser, server, "42")
    assert shown_damage(account) == expected["damage"]
    assert account.find_element(By.CSS_SELECTOR, ".verdict").text == f"HIT, {expected['damage']} damage"
    assert account.find_elements(By.CSS_SELECTOR, ".card") == []
    assert f"{expected['cell']['text']}" in account.text
    assert not browser.find_element(By.ID, "token-box").is_displayed()  # no token, no form


def test_a_critical_with_typed_dice_shows_its_card_and_the_damage_the_cli_answers(server, browser, database):
    from selenium.webdriver.common.by import By

    expected = cli_answer(database, "97,99,45,30")
    assert expected["outcome"] == "critical" and expected["critical"]
    account = resolve_on_the_page(browser, server, "97, 99, 45, 30")  # typed as at the table
    assert shown_damage(account) == expected["damage"]
    heads = [head.text for head in account.find_elements(By.CSS_SELECTOR, ".card .card-head")]
    critical = expected["critical"]
    assert heads[0].startswith(f"Critical: {critical['severity']} on {critical['table']}")

    ARTIFACTS.mkdir(exist_ok=True)
    for width, height in ((390, 844), (1280, 900)):
        browser.set_window_size(width, height)
        browser.execute_script("document.getElementById('account').scrollIntoView({block: 'start'})")
        time.sleep(0.3)
        path = ARTIFACTS / f"browser-{width}.png"
        assert browser.save_screenshot(str(path)), path
        assert path.stat().st_size > 1000
        print(f"screenshot: {path}")
    # No horizontal scrolling on a phone: the page fits 390 px.
    browser.set_window_size(390, 844)
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")


def test_no_script_error_and_no_request_outside_the_server(server, browser):
    browser.set_window_size(1280, 900)
    resolve_on_the_page(browser, server, "42")
    # Everything logged since the browser started (or since the last read): nothing,
    # not even Chromium's /favicon.ico (the page declares its own icon).
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []
    urls = []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    assert any(url.startswith(f"{server}/api/v1/resolve/table") for url in urls), urls
    # Requests that go over a network (not chrome://, data: or blob: ones inside the browser).
    outside = [url for url in urls if url.split(":", 1)[0] in ("http", "https", "ws", "wss", "ftp")
               and not url.startswith(f"{server}/")]
    assert outside == []


# ------------------------------------------------------------------ a server with a token (TABLES_TOKEN)
def fresh_session(driver, base: str) -> None:
    """No token or last attacks stored for ``base``: its sessionStorage emptied,
    from a page of the origin that runs no script."""
    driver.set_window_size(1280, 900)
    driver.get(f"{base}/static/style.css")
    driver.execute_script("sessionStorage.clear()")


def token_form(driver):  # type: ignore[no-untyped-def]
    """The token form, once the page shows it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ready
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, 20).until(ready.visibility_of_element_located((By.ID, "token-box")))


def give_token(driver, token: str) -> None:
    from selenium.webdriver.common.by import By

    field = driver.find_element(By.ID, "token")
    field.clear()
    field.send_keys(token)
    driver.find_element(By.ID, "token-save").click()


def test_a_token_in_the_address_is_used_and_taken_out_of_it(token_server, browser, database):
    from selenium.webdriver.common.by import By

    expected = cli_answer(database, "42")
    fresh_session(browser, token_server)
    browser.get(f"{token_server}/#token={TOKEN}")
    account = resolve_on_the_open_page(browser, "42")
    assert shown_damage(account) == expected["damage"]
    assert "token" not in browser.current_url and TOKEN not in browser.current_url
    assert browser.execute_script("return location.hash") == ""
    assert not browser.find_element(By.ID, "token-box").is_displayed()
    assert browser.execute_script("return sessionStorage.getItem('tables-token')") == TOKEN


def test_without_a_token_the_page_asks_for_it_and_goes_on(token_server, browser, database):
    from selenium.webdriver.common.by import By

    expected = cli_answer(database, "97,99,45,30")
    fresh_session(browser, token_server)
    browser.get(f"{token_server}/")
    box = token_form(browser)
    assert "TABLES_TOKEN" in box.text
    assert not browser.find_element(By.ID, "token-message").is_displayed()  # nothing refused yet
    assert browser.switch_to.active_element == browser.find_element(By.ID, "token")
    # On a phone the form fits, as the rest of the page does.
    browser.set_window_size(390, 844)
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    ARTIFACTS.mkdir(exist_ok=True)
    assert browser.save_screenshot(str(ARTIFACTS / "browser-token-390.png"))
    browser.set_window_size(1280, 900)

    give_token(browser, TOKEN)
    account = resolve_on_the_open_page(browser, "97, 99, 45, 30")  # the weapons list loaded: it waits for it
    assert shown_damage(account) == expected["damage"]
    assert not box.is_displayed()


def test_a_wrong_token_is_refused_and_asked_for_again(token_server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    fresh_session(browser, token_server)
    browser.get(f"{token_server}/")
    token_form(browser)
    give_token(browser, TOKEN + "-wrong")
    message = browser.find_element(By.ID, "token-message")
    WebDriverWait(browser, 20).until(lambda d: message.is_displayed())
    assert "The server refused this token." in message.text
    assert browser.find_element(By.ID, "token-box").is_displayed()
    assert browser.find_element(By.ID, "token").get_attribute("value") == ""
    assert browser.execute_script("return sessionStorage.getItem('tables-token')") is None
    assert browser.find_elements(By.CSS_SELECTOR, "#weapons option") == []
    # The right one then lets the user go on.
    give_token(browser, TOKEN)
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#weapons option[value='Longsword']"))
    assert not browser.find_element(By.ID, "token-box").is_displayed()


# ------------------------------------------------------------------ a page of another origin (--cors-origin)
# A Foundry VTT macro runs in the browser, in a page of the Foundry server's
# origin (http://localhost:30000), and calls `tables serve` on another one.
# Played here by a second small server on another loopback port: its page
# loads a script that POSTs the resolve, token and all, and writes the answer's
# text (or the fetch's error) into the page. A second page of that origin runs
# the macro of docs/foundry.md, with the few objects of Foundry it uses stood in for.
MACRO_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>macro</title><link rel="icon" href="data:,"></head>
<body><div id="out"></div><script src="{script}"></script></body></html>
"""
MACRO_SCRIPT = """const TABLES = new URLSearchParams(location.search).get("tables");
const TOKEN = %s;
const out = document.getElementById("out");
fetch(TABLES + "/api/v1/resolve/table", {
  method: "POST",
  headers: {"Content-Type": "application/json", "Authorization": "Bearer " + TOKEN},
  body: JSON.stringify({weapon: "Longsword", cmb: 60, def: 20, armor: "MA", dice: [97, 99, 45, 30]}),
}).then(response => response.text())
  .then(text => { out.textContent = text; out.dataset.done = "answer"; })
  .catch(error => { out.textContent = String(error); out.dataset.done = "error"; });
"""
# What the documented macro uses of Foundry: the dice prompt (the form of its
# content, with the dice of the address typed in), the chat and the notices.
FOUNDRY_STANDINS = """const asked = new URLSearchParams(location.search);
const out = document.getElementById("out");
const foundry = {applications: {api: {DialogV2: {prompt: async options => {
  const form = document.createElement("form");
  form.innerHTML = options.content;
  form.elements.dice.value = asked.get("dice");
  const button = document.createElement("button");
  form.append(button);
  return options.ok.callback(new Event("click"), button, null);
}}}}};
const ChatMessage = {
  getSpeaker: () => ({alias: "Gamemaster"}),
  create: async data => { out.innerHTML = data.content; out.dataset.done = "chat"; },
};
const ui = {notifications: {
  error: message => { out.textContent = message; out.dataset.done = "error"; },
  warn: message => { out.textContent = message; out.dataset.done = "warning"; },
}};
"""
FOUNDRY_DOC = Path(__file__).resolve().parents[2] / "docs" / "foundry.md"


def documented_macro() -> str:
    """The script macro of docs/foundry.md, its server address and token read from the page's address."""
    text = FOUNDRY_DOC.read_text(encoding="utf-8")
    blocks = [block for block in re.findall(r"^```js\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
              if re.search(r'^const TABLES = "', block, re.MULTILINE)]  # (the other is the --single-file import macro)
    assert len(blocks) == 1, "docs/foundry.md shows one ```js macro that asks the server"
    macro, tables = re.subn(r'^const TABLES = "[^"]*";', 'const TABLES = asked.get("tables");', blocks[0],
                            flags=re.MULTILINE)
    macro, token = re.subn(r'^const TOKEN = "[^"]*";', 'const TOKEN = asked.get("token");', macro, flags=re.MULTILINE)
    assert (tables, token) == (1, 1), "the macro starts with `const TABLES = \"...\";` and `const TOKEN = \"...\";`"
    return macro


@pytest.fixture(scope="module")
def macro_origin(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """A second web server on another loopback port, standing in for Foundry's:
    its pages are of another origin than `tables serve`. Yields that origin."""
    need_browser()
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    root = tmp_path_factory.mktemp("macro-origin")
    (root / "macro.html").write_text(MACRO_PAGE.format(script="macro.js"), encoding="utf-8")
    (root / "macro.js").write_text(MACRO_SCRIPT % json.dumps(TOKEN), encoding="utf-8")
    (root / "foundry.html").write_text(MACRO_PAGE.format(script="foundry.js"), encoding="utf-8")
    # A script macro is the body of an async function (Foundry's own wrapping).
    (root / "foundry.js").write_text(f"{FOUNDRY_STANDINS}(async () => {{\n{documented_macro()}\n}})();\n",
                                     encoding="utf-8")

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base class's name)
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def cors_server(database: Path, macro_origin: str):  # type: ignore[no-untyped-def]
    """`tables serve --cors-origin MACRO_ORIGIN` with TABLES_TOKEN set; yields its base address."""
    env = child_env(database.parent / "user-data") | {"TABLES_TOKEN": TOKEN}
    with serving(database, env=env, options=("--cors-origin", macro_origin)) as (base, _process):
        yield base


@pytest.fixture
def other_origin_server(database: Path, macro_origin: str):  # type: ignore[no-untyped-def]
    """`tables serve` allowing Foundry's usual origin, not the macro page's (localhost is not 127.0.0.1)."""
    port = macro_origin.rsplit(":", 1)[1]
    env = child_env(database.parent / "user-data") | {"TABLES_TOKEN": TOKEN}
    with serving(database, env=env, options=("--cors-origin", f"http://localhost:{port}")) as (base, _process):
        yield base


def run_page(driver, origin: str, page: str, **asked: str) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """Open ``page`` of ``origin`` with ``asked`` in its address; wait for its script
    to finish; return how it finished ("answer", "error", "chat", ...) and the text shown."""
    from urllib.parse import urlencode

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(f"{origin}/{page}?{urlencode(asked)}")
    out = WebDriverWait(driver, 20).until(lambda d: d.find_element(By.CSS_SELECTOR, "#out[data-done]"))
    return out.get_attribute("data-done"), out.get_attribute("textContent")  # as written, spaces and all


def cors_refusals(driver) -> list[str]:  # type: ignore[no-untyped-def]
    """The console's CORS refusals logged since the last read of the log."""
    return [entry["message"] for entry in driver.get_log("browser") if "CORS policy" in entry["message"]]


def test_a_page_of_an_allowed_origin_reads_the_answer_the_cli_prints(cors_server, macro_origin, browser, database):
    assert cors_server.rsplit(":", 1)[1] != macro_origin.rsplit(":", 1)[1]  # two origins indeed
    browser.get_log("browser")  # what earlier tests logged is theirs
    done, shown = run_page(browser, macro_origin, "macro.html", tables=cors_server)
    assert done == "answer", shown
    assert json.loads(shown) == cli_answer(database, "97,99,45,30")
    assert cors_refusals(browser) == []


@pytest.mark.parametrize("allowed", ["no origin", "another origin"])
def test_a_page_of_an_origin_not_allowed_cannot_read_the_answer(allowed, request, macro_origin, browser):
    # The same page, token and all: the browser blocks the answer (a server
    # without --cors-origin, or one allowing http://localhost:PORT only).
    server = request.getfixturevalue("token_server" if allowed == "no origin" else "other_origin_server")
    browser.get_log("browser")
    done, shown = run_page(browser, macro_origin, "macro.html", tables=server)
    assert (done, shown) == ("error", "TypeError: Failed to fetch")
    refusals = cors_refusals(browser)
    blocked = f"from origin '{macro_origin}' has been blocked"
    assert refusals and all(blocked in message for message in refusals), refusals


def test_the_documented_macro_posts_the_cli_answer_to_the_chat(cors_server, token_server, macro_origin, browser,
                                                               database):
    from selenium.webdriver.common.by import By

    expected = cli_answer(database, "97,99,45,30")
    done, shown = run_page(browser, macro_origin, "foundry.html", tables=cors_server, token=TOKEN,
                           dice="97, 99, 45, 30")
    assert done == "chat", shown
    chat = browser.find_element(By.ID, "out")
    assert chat.find_element(By.TAG_NAME, "strong").text == \
        f"Longsword: {expected['outcome']}, {expected['damage']} damage"
    assert [item.text for item in chat.find_elements(By.TAG_NAME, "li")] == [step.strip() for step in expected["steps"]]

    # An error of the server is the notice of its message; a wrong token too.
    too_few = subprocess.run([sys.executable, "-m", "tables_app", "--db", str(database), "resolve", "table", *ATTACK,
                              "--dice", "97", "--json"], env=child_env(database.parent / "user-data"),
                             capture_output=True, text=True)
    message = json.loads(too_few.stdout)["error"]["message"].replace("--dice", "'dice'")  # over HTTP, by the field
    assert message.startswith("'dice' gave 1 die")
    assert run_page(browser, macro_origin, "foundry.html", tables=cors_server, token=TOKEN, dice="97") == \
        ("error", f"tables: {message}")
    done, shown = run_page(browser, macro_origin, "foundry.html", tables=cors_server, token=f"{TOKEN}-wrong",
                           dice="97")
    assert done == "error" and "needs its token" in shown, shown
    # Nothing typed: nothing asked of the server.
    assert run_page(browser, macro_origin, "foundry.html", tables=cors_server, token=TOKEN, dice=" ")[0] == "warning"
    # A server that does not allow Foundry's origin: the notice says what to give it.
    done, shown = run_page(browser, macro_origin, "foundry.html", tables=token_server, token=TOKEN, dice="42")
    assert (done, shown) == ("error", f"tables: no answer from {token_server} (Failed to fetch): "
                                      f"is it running, with --cors-origin {macro_origin}?")


# ------------------------------------------------------------------ at the table (issue 28)
@pytest.mark.parametrize("width", [390, 1280])
def test_the_grid_keeps_its_armor_row_and_roll_column_in_view_when_scrolled(server, browser, width):
    """Scrolled to the last row and the last column of a 20-column printed
    table, the armor header and the roll column are still on the screen, at
    the grid's edges."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.set_window_size(width, 800)
    browser.get(f"{server}/#/attack/Printed:Bladework")
    WebDriverWait(browser, 20).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#grid table.grid tbody tr")) > 20)
    seen = browser.execute_script("""
        const box = document.getElementById("grid"), rows = box.querySelectorAll("tbody tr");
        const last = rows[rows.length - 1], cells = last.querySelectorAll("td");
        cells[cells.length - 1].scrollIntoView({ block: "end", inline: "end" });
        const rect = (e) => e.getBoundingClientRect();
        const head = box.querySelector("thead th:last-child"), roll = last.querySelector("th");
        return { box: rect(box), head: rect(head), roll: rect(roll), lastRow: rect(last), text: head.textContent,
                 scrolled: [box.scrollTop, box.scrollLeft], view: [innerWidth, innerHeight] };
    """)
    assert seen["scrolled"][0] > 0, seen  # the grid itself scrolled down (its header could stick to it)
    assert seen["text"] == "1"  # the last armor column's header
    for cell in ("head", "roll"):
        assert 0 <= seen[cell]["top"] and seen[cell]["bottom"] <= seen["view"][1] + 1, (cell, seen)
        assert 0 <= seen[cell]["left"] and seen[cell]["right"] <= seen["view"][0] + 1, (cell, seen)
    assert abs(seen["head"]["top"] - seen["box"]["top"]) <= 2, seen  # stuck to the grid's top
    assert abs(seen["roll"]["left"] - seen["box"]["left"]) <= 2, seen  # and the roll to its left
    assert seen["head"]["bottom"] <= seen["lastRow"]["top"] + 1, seen  # above the row scrolled to
    if width == 1280:
        return
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "grid-scrolled-390.png"))


def test_a_target_shows_its_own_def_and_armor_in_the_greyed_fields(server, browser):
    """Choosing a bestiary target greys DEF and armor and shows the
    creature's values there (not the last ones typed); clearing it gives the
    typed ones back."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.set_window_size(1280, 900)
    browser.get(f"{server}/")
    wait = WebDriverWait(browser, 20)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#weapons option[value='Longsword']"))
    browser.find_element(By.ID, "weapon").send_keys("Longsword")
    defense = browser.find_element(By.ID, "def")
    defense.click()
    defense.clear()
    defense.send_keys("20")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#armor option[value='MA']"))
    browser.execute_script("document.getElementById('armor').value = 'MA'")
    target = browser.find_element(By.ID, "target")
    target.send_keys("Printed:Hill Brigand")
    wait.until(lambda d: d.find_element(By.ID, "def").get_property("disabled"))
    fields = browser.execute_script("return [document.getElementById('def').value, document.getElementById('armor').value,"
                                    " document.getElementById('target-facts').textContent]")
    assert fields[:2] == ["10", "9"], fields  # Hill Brigand: DEF 10, armor type 9
    assert fields[2].startswith("DEF 10, AT 9"), fields
    browser.execute_script("const t = document.getElementById('target'); t.value = '';"
                           " t.dispatchEvent(new Event('input'))")
    wait.until(lambda d: not d.find_element(By.ID, "def").get_property("disabled"))
    assert browser.execute_script("return [document.getElementById('def').value,"
                                  " document.getElementById('armor').value]") == ["20", "MA"]


def outside_requests(driver, base: str) -> tuple[list[str], list[str]]:  # type: ignore[no-untyped-def]
    """(every URL requested since the last read, those that left the server)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls, [url for url in urls if url.split(":", 1)[0] in ("http", "https", "ws", "wss", "ftp")
                  and not url.startswith(f"{base}/")]


def test_the_api_docs_load_with_nothing_from_outside(server, browser):
    """Issue 28, item 3: /docs renders every route from this server alone."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.set_window_size(1280, 900)
    outside_requests(browser, server)  # what earlier tests asked, read away
    browser.get(f"{server}/docs")
    WebDriverWait(browser, 30).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".opblock-summary-path")) > 10)
    assert "/api/v1/resolve/table" in browser.find_element(By.TAG_NAME, "body").text
    urls, outside = outside_requests(browser, server)
    assert f"{server}/openapi.json" in urls and outside == [], urls


def test_a_printed_grid_is_compact_with_its_key_and_columns_can_be_picked(server, browser):
    """Issue 28: a 20-column printed table was 3,906 px wide with full names in every cell."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.set_window_size(390, 844)
    browser.get(f"{server}/#/attack/Printed:Bladework")
    wait = WebDriverWait(browser, 20)
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#grid table.grid tbody tr")) > 20)
    assert browser.find_element(By.ID, "grid-key").text.startswith("Criticals: S Hacking, K Mauling")
    first_row = browser.find_element(By.CSS_SELECTOR, "#grid tbody tr")
    assert first_row.find_elements(By.TAG_NAME, "td")[0].text == "18ES+BK"
    wide = browser.execute_script("return document.querySelector('#grid table').scrollWidth")
    browser.find_element(By.CSS_SELECTOR, "#grid-columns-box summary").click()
    for box in browser.find_elements(By.CSS_SELECTOR, "#grid-columns input")[3:]:  # keep 20, 19, 18
        box.click()
    headers = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#grid thead th")]
    assert headers == ["Result", "20", "19", "18"]
    narrow = browser.execute_script("return document.querySelector('#grid table').scrollWidth")
    assert narrow < wide / 3 and narrow <= 390, (narrow, wide)
    button = browser.find_element(By.CSS_SELECTOR, "#grid tbody td.has-critical button")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].click()", button)  # a compact cell still reads its critical
    wait.until(lambda d: "Critical: E on Hacking" in d.find_element(By.ID, "cell-critical").text)
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "grid-compact-390.png"))


# ------------------------------------------------------------------ the fight panel (issue 29)
HERO = {"as": "Hero", "side": "A", "hits": "50", "def": "20", "armor": "MA", "weapon": "Longsword", "cmb": "60", "parry": "10"}
ORC = {"creature": "Orc Warrior", "weapon": "Scimitar", "cmb": "55"}
# Three rounds, with the dice typed as at the table: (what, attacker, target, dice); one undo.
PLAYED = [
    ("attack", "Hero", "Orc Warrior #1", "85, 40"), ("attack", "Orc Warrior #1", "Hero", "40"), ("end",),
    ("attack", "Hero", "Orc Warrior #1", "50"), ("attack", "Orc Warrior #1", "Hero", "45"), ("end",), ("undo",), ("end",),
    ("attack", "Hero", "Orc Warrior #1", "30"), ("auto", "20"),
]


def the_same_through_the_cli(run, copy: Path, name: str) -> tuple[dict, list[str], dict]:
    """PLAYED through `tables fight ... --json` on ``copy``: (the last step's answer, the status lines, the fight shown)."""
    def fight(*args: str) -> dict:
        result = run("fight", *args, "--json", db=copy)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    fight("new", name)
    for joining in (HERO, ORC):
        fight("join", name, *[word for key, value in joining.items() for word in (f"--{key}", value)])
    last: dict = {}
    for what, *rest in PLAYED:
        if what == "attack":
            last = fight("attack", name, rest[0], rest[1], "--dice", rest[2].replace(" ", ""))
        elif what == "end":
            last = fight("round", name)
        elif what == "auto":
            last = fight("round", name, "--auto", "--dice", rest[0])
        else:
            last = fight("undo", name)
    # The status lines as the command line prints them after a write: the last step (a round --auto) taken back
    # (one undo, the whole round) and played again without --json.
    assert PLAYED[-1][0] == "auto"
    fight("undo", name)
    printed = run("fight", "round", name, "--auto", "--dice", PLAYED[-1][1], db=copy).output.splitlines()
    shown = fight("show", name)
    lines = printed[-len(shown["combatants"]):]
    return last, [re.sub(r"\s{2,}", "  ", line.strip()) for line in lines], shown


def fresh_page(driver, url: str) -> None:  # type: ignore[no-untyped-def]
    """Open ``url`` as a new page (a get that changes only the address's #part would keep the page as it was)."""
    driver.get("about:blank")
    driver.get(url)


def page_seq(driver) -> int:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    return int(driver.find_element(By.ID, "fight-area").get_attribute("data-seq") or -1)


def play_on_the_page(driver, name: str) -> None:  # type: ignore[no-untyped-def]
    """Start the fight, add Hero by hand and an orc from the bestiary, then play PLAYED, each step awaited."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(driver, 20)
    wait.until(lambda d: d.find_element(By.ID, "fight-new-name").is_displayed())
    driver.find_element(By.ID, "fight-new-name").send_keys(name)
    driver.find_element(By.ID, "fight-create").click()
    wait.until(lambda d: d.find_element(By.ID, "fight-title").text == f"{name}: round 1")
    assert driver.find_element(By.ID, "fight-join-box").get_property("open")  # a fight without combatants: add them
    seq = 0

    def after(action) -> None:  # type: ignore[no-untyped-def]
        nonlocal seq
        before = page_seq(driver)
        action()
        wait.until(lambda d: page_seq(d) != before or d.find_elements(By.CSS_SELECTOR, "#fight-account .error"))
        errors = driver.find_elements(By.CSS_SELECTOR, "#fight-account .error")
        assert not errors, errors[0].text
        seq = page_seq(driver)

    for joining in (HERO, ORC):
        def join(joining: dict = joining) -> None:
            for key, value in joining.items():
                field = driver.find_element(By.ID, f"fight-{key}")
                field.clear()
                field.send_keys(value)
            driver.find_element(By.ID, "fight-join-go").click()
        after(join)
    for what, *rest in PLAYED:
        if what == "attack":
            def attack(rest: list = rest) -> None:
                Select(driver.find_element(By.ID, "fight-attacker")).select_by_value(rest[0])
                Select(driver.find_element(By.ID, "fight-target")).select_by_value(rest[1])
                driver.find_element(By.ID, "fight-dice").send_keys(rest[2])
                driver.find_element(By.ID, "fight-attack-go").click()
            after(attack)
        elif what == "auto":
            def auto(rest: list = rest) -> None:
                driver.find_element(By.ID, "fight-dice").send_keys(rest[0])
                driver.find_element(By.ID, "fight-auto-round").click()
            after(auto)
        else:
            after(lambda what=what: driver.find_element(By.ID, "fight-end-round" if what == "end" else "fight-undo").click())


def posted(base: str, path: str, body: dict) -> dict:
    from urllib.request import Request, urlopen

    request = Request(f"{base}/api/v1{path}", data=json.dumps(body).encode(), method="POST",
                      headers={"Content-Type": "application/json"})
    with urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def fight_shown(base: str, name: str) -> dict:
    from urllib.parse import quote
    from urllib.request import urlopen

    with urlopen(f"{base}/api/v1/fights/{quote(name)}", timeout=10) as response:
        return json.loads(response.read())


def test_a_fight_played_on_the_page_ends_as_the_same_events_through_the_cli(server, browser, database, run, tmp_path):
    """Issue 29: two combatants joined, three rounds of attacks with typed dice, one undo (and an auto round),
    on a phone's width: the fight the server holds is the one the CLI makes of the same events."""
    from selenium.webdriver.common.by import By

    name = "Page fight"
    copy = tmp_path / "cli.db"
    shutil.copyfile(database, copy)  # before the page's fight: the CLI plays it again there
    last, lines, expected = the_same_through_the_cli(run, copy, name)
    assert expected["round"] == 4 and [a["attack"]["weapon"] for a in last["attacks"]] == ["Scimitar"]  # the orc's, auto

    browser.get_log("browser")  # what earlier tests logged is theirs
    browser.set_window_size(390, 844)
    fresh_page(browser, f"{server}/#/fight")
    play_on_the_page(browser, name)
    assert fight_state(fight_shown(server, name)) == fight_state(expected)  # the state: the page wrote more (its undos)
    # The page shows every combatant's status in the command line's words, and the last step's account.
    shown = [item.get_attribute("data-status") for item in browser.find_elements(By.CSS_SELECTOR, "#fight-combatants li")]
    assert shown == lines
    assert browser.find_element(By.ID, "fight-title").text == f"{name}: round 4"
    account = browser.find_element(By.ID, "fight-account").get_attribute("textContent")  # the steps folded too
    for line in [*last["attacks"][0]["steps"], *last["account"]]:
        assert line.strip() in account, line
    assert [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"] == []


def test_a_write_after_another_writer_is_refused_and_the_page_shows_the_fight_again(server, browser):
    """Two pages (or the page and the command line) on one fight: the one behind hears 409, reloads and says so."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    name = "Contested"
    browser.set_window_size(1280, 900)
    fresh_page(browser, f"{server}/#/fight")
    wait = WebDriverWait(browser, 20)
    wait.until(lambda d: d.find_element(By.ID, "fight-new-name").is_displayed())
    browser.find_element(By.ID, "fight-new-name").send_keys(name)
    browser.find_element(By.ID, "fight-create").click()
    wait.until(lambda d: page_seq(d) == 0)
    browser.execute_script("fight.refresh.every = 0")  # this page does not look again (else it may see the join first)
    posted(server, f"/fights/{name}/combatants", {"as": "Elsewhere", "hits": 10, "armor": "MA", "weapon": "Longsword",
                                                   "cmb": 10, "after": 0})  # another writer moved the fight to seq 1
    browser.find_element(By.ID, "fight-end-round").click()  # the page still thinks 0
    wait.until(lambda d: page_seq(d) == 1)
    note = browser.find_element(By.ID, "fight-message")
    assert note.is_displayed() and note.text.startswith("The fight changed meanwhile"), note.text
    assert [li.get_attribute("data-name") for li in browser.find_elements(By.CSS_SELECTOR, "#fight-combatants li")] == \
        ["Elsewhere"]
    assert fight_shown(server, name)["round"] == 1  # the refused round was not ended
    # and what the other writer did, in the log's words
    wait.until(lambda d: d.find_element(By.ID, "fight-account").text ==
               "From another device:\nElsewhere joins side A: 10 hits, DEF 0, armor MA. Elsewhere attacks with "
               "Longsword 10.")  # the log's own words (fight log --json, "words")


def test_the_fight_panel_fits_a_phone(server, browser):
    """At 390 px: no sideways scrolling, and every field and button of the panel within the screen."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    posted(server, "/fights", {"name": "On a phone"})
    posted(server, "/fights/On%20a%20phone/combatants", {"as": "Sir Reginald of the Very Long Name", "hits": 50,
                                                          "armor": "MA", "weapon": "Longsword", "cmb": 60})
    posted(server, "/fights/On%20a%20phone/combatants", {"creature": "Orc Warrior", "weapon": "Scimitar", "cmb": 55})
    posted(server, "/fights/On%20a%20phone/edits", {"combatant": "Orc Warrior #1", "bleed": 3, "stun": 2, "dying": 4,
                                                     "penalty": -20, "no_parry": 1})
    browser.set_window_size(390, 844)
    fresh_page(browser, f"{server}/#/fight/On%20a%20phone")
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#fight-combatants li.combatant"))
    browser.find_element(By.CSS_SELECTOR, "#fight-join-box summary").click()  # closed: the fight has combatants
    assert browser.find_element(By.ID, "fight-join-box").get_property("open")
    seen = browser.execute_script("""
        const out = [];
        for (const e of document.querySelectorAll('#fight-view input, #fight-view select, #fight-view button, #fight-view li')) {
          const r = e.getBoundingClientRect();
          if (r.width) out.push([e.id || e.className, r.left, r.right]);
        }
        return { fits: document.documentElement.scrollWidth <= innerWidth, width: innerWidth, boxes: out };
    """)
    assert seen["fits"], seen
    outside = [box for box in seen["boxes"] if box[1] < 0 or box[2] > seen["width"] + 0.5]
    assert outside == [], outside
    ARTIFACTS.mkdir(exist_ok=True)
    browser.execute_script("window.scrollTo(0, 0)")
    assert browser.save_screenshot(str(ARTIFACTS / "fight-390.png"))
    browser.execute_script("document.getElementById('fight-join-box').scrollIntoView({block: 'start'})")
    assert browser.save_screenshot(str(ARTIFACTS / "fight-join-390.png"))


# ------------------------------------------------------------------ a fight's chances (issue #30)
def got(base: str, path: str) -> dict:
    from urllib.request import urlopen

    with urlopen(f"{base}/api/v1{path}", timeout=60) as response:
        return json.loads(response.read())


def chances_on_the_page(driver, base: str, name: str, rounds: int | None = None):  # type: ignore[no-untyped-def]
    """Open the fight, give the rounds (else the page's 10), press *Work out the chances*, and return them once shown."""
    from urllib.parse import quote

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get_log("browser")  # what earlier tests logged is theirs
    fresh_page(driver, f"{base}/#/fight/{quote(name)}")
    wait = WebDriverWait(driver, 60)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#fight-combatants li.combatant"))
    if rounds is not None:
        field = driver.find_element(By.ID, "fight-chances-rounds")
        field.clear()
        field.send_keys(str(rounds))
    driver.find_element(By.ID, "fight-chances-go").click()
    wait.until(lambda d: d.find_element(By.ID, "fight-chances-out").get_attribute("data-seq")
               or d.find_elements(By.CSS_SELECTOR, "#fight-chances-out .error"))
    assert not driver.find_elements(By.CSS_SELECTOR, "#fight-chances-out .error")
    return driver.find_element(By.ID, "fight-chances-out")


def side_points(chances) -> dict[str, int]:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    return {line.get_attribute("data-side"): len(line.get_attribute("points").split())
            for line in chances.find_elements(By.CSS_SELECTOR, "svg.chances polyline")}


def test_the_chances_of_a_small_fight_are_its_exact_odds(server, browser):
    """docs/api.md, "The page": *Chances* asks …/odds and draws P(won by round r) per side, with the last
    round's figures and the expected rounds as text (percentages as the page prints them: render.percent's)."""
    from selenium.webdriver.common.by import By

    from tables_app.cli.render import percent

    name = "Chances-small"  # a rise duel: its exact odds take milliseconds, well within the share of the time
    posted(server, "/fights", {"name": name})
    for who, side in (("Hero", "A"), ("Orc", "B")):
        posted(server, f"/fights/{name}/combatants", {"as": who, "side": side, "hits": 6, "def": 8, "system": "rise",
                                                       "option": ["accuracy=4", "damage=1d4+1"]})
    browser.set_window_size(390, 844)
    chances = chances_on_the_page(browser, server, name, rounds=3)  # 3 rounds: within the odds' bound of states
    exact = got(server, "/fights/Chances-small/odds?rounds=3")
    text = chances.text
    assert text.startswith(f"{name}: exact odds, from round 1 (after event 2)\n"), text
    assert "Too large" not in text and "standard errors" not in text
    last = exact["rounds"][-1]
    assert (f"By the end of round 3: side A won {percent(last['sides']['A'], 2)}, side B won "
            f"{percent(last['sides']['B'], 2)}; still going: {percent(exact['unfinished'], 2)}.") in text
    assert f"Expected rounds: {exact['expected_rounds']:.2f} (within the 3 rounds asked)." in text
    assert f"Hero: down {percent(last['combatants']['Hero']['down'], 2)}, dead 0" in text
    assert side_points(chances) == {"A": 3, "B": 3}  # a line per side, a point per round
    assert chances.find_elements(By.CSS_SELECTOR, "svg.chances .chance-bar") == []  # exact: no error bars
    ARTIFACTS.mkdir(exist_ok=True)
    browser.execute_script("document.getElementById('fight-chances').scrollIntoView({block: 'start'})")
    assert browser.save_screenshot(str(ARTIFACTS / "fight-chances-390.png"))
    # a step of the fight: the chances shown were of the state before, and are dropped, saying so
    browser.find_element(By.ID, "fight-end-round").click()
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 20).until(lambda d: "moved on" in d.find_element(By.ID, "fight-chances-out").text)
    assert browser.find_element(By.ID, "fight-chances-out").text == \
        "The fight has moved on (event 3): work the chances out again."
    assert [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"] == []


def test_the_chances_of_a_fight_too_large_are_estimated_saying_so(server, browser):
    """issue 42: the page asks once; a fight past the exact odds' states comes estimated, saying from how many
    fights, its largest standard error and why; error bars on the chart; readable at 390 px."""
    from selenium.webdriver.common.by import By

    name = "Chances-duel"
    posted(server, "/fights", {"name": name})
    posted(server, f"/fights/{name}/combatants", HERO)
    posted(server, f"/fights/{name}/combatants", ORC)
    browser.set_window_size(390, 844)
    chances = chances_on_the_page(browser, server, name)
    assert chances.get_attribute("data-method") == "estimated"
    text = chances.text
    heading = re.match(rf"{name}: estimated from ([\d,]+) fights, ± (\d+\.\d\d)%, from round 1 \(after event 2\)\n", text)
    assert heading, text
    count = int(heading.group(1).replace(",", ""))
    # (past the exact odds' share of the time, or their states: whichever comes first on the machine)
    assert re.search(r"Not exact: (its states take more than [\d.]+ s to work out \(|the fight reaches more than "
                     r"[\d,]+ states \([\d,]+ )by round \d\)", text), text
    again = got(server, f"/fights/Chances-duel/odds?rounds=20&count={count}&seed=0")  # the same fights: the same answer
    assert f"Expected rounds: {again['expected_rounds']:.2f} (± {again['se']['expected_rounds']:.2f})" in text
    assert f"{100 * again['largest_se']:.2f}" == heading.group(2)
    assert "± is a standard error: each share is within 2 of them of the truth" in text
    assert "A (Hero)" in text and "B (Orc Warrior #1)" in text  # the sides by their combatants
    listed = len(again["rounds"])
    assert side_points(chances) == {"A": listed, "B": listed}
    assert len(chances.find_elements(By.CSS_SELECTOR, "svg.chances .chance-bar")) == 2 * listed  # a bar per side and round
    width = browser.execute_script("return document.documentElement.scrollWidth")
    assert width <= 390, width  # nothing wider than the phone
    ARTIFACTS.mkdir(exist_ok=True)
    browser.execute_script("document.getElementById('fight-chances').scrollIntoView({block: 'start'})")
    assert browser.save_screenshot(str(ARTIFACTS / "fight-chances-estimated-390.png"))
    assert [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"] == []  # one request, answered


# ------------------------------------------------------------------ the game master's page, issue #41
def open_fight(driver, base: str, name: str, width: int = 390, height: int = 844) -> None:  # type: ignore[no-untyped-def]
    """Open fight ``name`` on the page at ``width``, once its cards are shown."""
    from urllib.parse import quote

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.set_window_size(width, height)
    fresh_page(driver, f"{base}/#/fight/{quote(name)}")
    WebDriverWait(driver, 20).until(lambda d: d.find_element(By.ID, "fight-area").get_attribute("data-seq") is not None
                                    and d.find_element(By.ID, "fight-title").text.startswith(name))


def written(driver, action) -> int:  # type: ignore[no-untyped-def]
    """Do ``action`` on the page and wait for the write it makes: the page's new seq (an error on the page fails)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    before = page_seq(driver)
    action()
    WebDriverWait(driver, 20).until(lambda d: page_seq(d) != before
                                    or d.find_elements(By.CSS_SELECTOR, "#fight-account .error"))
    errors = driver.find_elements(By.CSS_SELECTOR, "#fight-account .error")
    assert not errors, errors[0].text
    return page_seq(driver)


def join_on_the_page(driver, fields: dict[str, str]) -> int:  # type: ignore[no-untyped-def]
    """Fill *Add a combatant* with ``fields`` (by the ids' last word: as, side, hits, ..., has, rank) and add it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select

    box = driver.find_element(By.ID, "fight-join-box")
    if not box.get_property("open"):
        driver.find_element(By.CSS_SELECTOR, "#fight-join-box summary").click()

    def join() -> None:
        for key, value in fields.items():
            field = driver.find_element(By.ID, f"fight-{key}")
            if field.tag_name == "select":
                Select(field).select_by_value(value)
                continue
            field.clear()
            field.send_keys(value)
        button = driver.find_element(By.ID, "fight-join-go")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
        button.click()
    return written(driver, join)


def picked(driver, select_id: str) -> tuple[str, list[str]]:  # type: ignore[no-untyped-def]
    """A select's value and its options' texts."""
    value, texts = driver.execute_script(
        "const s = document.getElementById(arguments[0]); return [s.value, [...s.options].map((o) => o.text)]", select_id)
    return value, texts


def new_fight_on_the_page(driver, base: str, name: str, width: int = 390) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.set_window_size(width, 844)
    fresh_page(driver, f"{base}/#/fight")
    wait = WebDriverWait(driver, 20)
    wait.until(lambda d: d.find_element(By.ID, "fight-new-name").is_displayed())
    driver.find_element(By.ID, "fight-new-name").send_keys(name)
    driver.find_element(By.ID, "fight-create").click()
    wait.until(lambda d: d.find_element(By.ID, "fight-title").text == f"{name}: round 1")


ARIA = {"as": "Aria", "hits": "40", "def": "10", "armor": "MA", "weapon": "Longsword", "cmb": "50"}
BORIN = {"as": "Borin", "hits": "45", "def": "15", "armor": "MA", "weapon": "Longsword", "cmb": "45"}


def test_the_target_follows_the_targeting_rule_and_an_ally_is_attacked_only_on_purpose(server, browser):
    """Issue #41, item 1: Aria (A), Borin (A), then a Wolf: the form showed Target Borin and Attack hit Borin.
    The target is the first combatant up of another side, in initiative order, whenever the attacker changes;
    an ally is marked in the list, flagged when picked, and attacked only once "on purpose" is ticked."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select

    name = "Allies"
    browser.get_log("browser")
    new_fight_on_the_page(browser, server, name)
    join_on_the_page(browser, ARIA)
    join_on_the_page(browser, BORIN)
    # no foe yet: nothing is picked for Aria (an ally only by a choice), and Borin is marked an ally
    assert picked(browser, "fight-target") == ("", ["no foe up: pick one", "Borin (ally)"])
    join_on_the_page(browser, {"creature": "Wolf"})
    assert picked(browser, "fight-attacker")[0] == "Aria"
    assert picked(browser, "fight-target") == ("Wolf #1", ["Borin (ally)", "Wolf #1"])
    assert not browser.find_element(By.ID, "fight-ally").is_displayed()
    # another attacker: the rule again; the wolf's target is the first of side A in initiative order
    Select(browser.find_element(By.ID, "fight-attacker")).select_by_value("Borin")
    assert picked(browser, "fight-target") == ("Wolf #1", ["Aria (ally)", "Wolf #1"])
    Select(browser.find_element(By.ID, "fight-attacker")).select_by_value("Wolf #1")
    assert picked(browser, "fight-target") == ("Aria", ["Aria", "Borin"])
    Select(browser.find_element(By.ID, "fight-attacker")).select_by_value("Aria")
    assert picked(browser, "fight-target")[0] == "Wolf #1"

    # an ally picked by hand: flagged; Attack asks for "on purpose" and does nothing until it is ticked
    Select(browser.find_element(By.ID, "fight-target")).select_by_value("Borin")
    flag = browser.find_element(By.ID, "fight-ally")
    assert flag.is_displayed() and flag.text.startswith("Borin is Aria's ally (side A), not a foe."), flag.text
    seq = page_seq(browser)
    browser.find_element(By.ID, "fight-dice").send_keys("50")
    browser.find_element(By.ID, "fight-attack-go").click()
    assert "tick the box to attack it on purpose" in flag.text
    assert browser.switch_to.active_element == browser.find_element(By.ID, "fight-ally-ok")
    time.sleep(0.5)
    assert page_seq(browser) == seq and fight_shown(server, name)["seq"] == seq  # nothing sent
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "fight-ally-390.png"))
    browser.find_element(By.ID, "fight-ally-ok").click()
    written(browser, lambda: browser.find_element(By.ID, "fight-attack-go").click())
    shown = fight_shown(server, name)
    borin = next(c for c in shown["combatants"] if c["name"] == "Borin")
    assert borin["taken"] > 0 and all(c["taken"] == 0 for c in shown["combatants"] if c["name"] != "Borin")
    # Aria has attacked: the next able one is the attacker, at the first foe up
    assert picked(browser, "fight-attacker")[0] == "Borin"
    assert picked(browser, "fight-target")[0] == "Wolf #1"
    assert not flag.is_displayed()
    assert [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"] == []


def phone_screen(driver) -> None:  # type: ignore[no-untyped-def]
    """A phone's screen: 390 x 844 CSS pixels of page (what the window shows, not the window's outer size)."""
    driver.set_window_size(390, 1000)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1,
                                                                 "mobile": False})


def whole_screen(driver) -> None:  # type: ignore[no-untyped-def]
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


FIT = """
    const top = document.getElementById('fight-combatants').getBoundingClientRect().top + scrollY;
    const bottom = document.getElementById('fight-account').getBoundingClientRect().bottom + scrollY;
    return { span: bottom - top, screen: innerHeight, width: innerWidth,
             fits: document.documentElement.scrollWidth <= innerWidth,
             form: document.getElementById('fight-attack').getBoundingClientRect().height };
"""


@pytest.mark.parametrize("step", ["attack", "auto round"])
def test_the_cards_the_attack_form_and_its_result_fit_one_phone_screen(server, browser, step):
    """Issue #41: at 390 x 844 the combatants' cards, the attack form and the result of the step (an attack with a
    critical, or an auto round of two attacks) are within one screen's height, and nothing scrolls sideways."""
    from selenium.webdriver.common.by import By

    name = f"Phone-{step.replace(' ', '-')}"
    posted(server, "/fights", {"name": name})
    posted(server, f"/fights/{name}/combatants", HERO)
    posted(server, f"/fights/{name}/combatants", ORC)
    posted(server, f"/fights/{name}/combatants", {"as": "Sir Reginald of the Very Long Name", "hits": 50, "armor": "MA",
                                                   "weapon": "Longsword", "cmb": 60})
    posted(server, f"/fights/{name}/edits", {"combatant": "Orc Warrior #1", "bleed": 3, "penalty": -20, "no_parry": 1})
    try:
        phone_screen(browser)
        fresh_page(browser, f"{server}/#/fight/{name}")
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#fight-combatants li.combatant"))
        if step == "attack":
            browser.find_element(By.ID, "fight-dice").send_keys("97, 99, 45, 30")  # a critical, open-ended
            written(browser, lambda: browser.find_element(By.ID, "fight-attack-go").click())
            assert browser.find_elements(By.CSS_SELECTOR, "#fight-account .turn-head")
        else:  # the knight has attacked: the auto round is Hero's attack and the orc's, each a critical
            posted(server, f"/fights/{name}/attacks", {"attacker": "Sir Reginald of the Very Long Name",
                                                       "target": "Orc Warrior #1", "dice": [30]})
            open_fight(browser, server, name)
            # (the orc's critical: 75, a belly wound; 95, which also drops the weapon and ruins the arm (#41), words
            # its card and the account a few lines longer than one phone screen holds)
            browser.find_element(By.ID, "fight-dice").send_keys("97, 99, 45, 30, 90, 75")
            written(browser, lambda: browser.find_element(By.ID, "fight-auto-round").click())
            heads = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#fight-account .turn-head")]
            assert heads == ["1. Hero's attack on Orc Warrior #1: critical, 22 damage",
                             "2. Orc Warrior #1's attack on Hero: critical, 15 damage"], heads
        seen = browser.execute_script(FIT)
        browser.execute_script("document.getElementById('fight-combatants').scrollIntoView({block: 'start'})")
        time.sleep(0.2)
        ARTIFACTS.mkdir(exist_ok=True)
        assert browser.save_screenshot(str(ARTIFACTS / f"fight-{step.replace(' ', '-')}-390.png"))
        assert seen["fits"] and seen["width"] == 390, seen
        assert seen["screen"] == 844 and seen["span"] <= 844, seen
        print(f"{step}: cards to result {seen['span']:.0f} px of 844")
    finally:
        whole_screen(browser)


def the_twin(base: str, name: str, steps: list[tuple[str, dict]]) -> dict:
    """The same steps through the HTTP API (the commands' operations) on a fight of its own: the fight it ends in,
    named as ``name``'s so that the two compare."""
    twin = f"{name} twin"
    posted(base, "/fights", {"name": twin})
    for suffix, body in steps:
        posted(base, f"/fights/{twin.replace(' ', '%20')}{suffix}", body)
    shown = fight_shown(base, twin)
    return shown | {"fight": name}


def test_the_join_form_takes_initiative_features_rank_side_and_parry(server, browser):
    """Issue #41: *Add a combatant* takes initiative, features (`has`), rank, side and parry, by hand and for a
    creature of the bestiary; the cards list the combatants in initiative order, saying it."""
    from selenium.webdriver.common.by import By

    name = "Joined"
    new_fight_on_the_page(browser, server, name)
    join_on_the_page(browser, {"as": "Hero", "side": "Party", "hits": "50", "def": "20", "armor": "MA", "parry": "10",
                               "weapon": "Longsword", "cmb": "60", "initiative": "3", "rank": "heroic",
                               "has": "helm, shield"})
    join_on_the_page(browser, {"creature": "Wolf", "side": "Pack", "initiative": "7", "rank": "epic", "has": "helm"})
    expected = the_twin(server, name, [
        ("/combatants", {"as": "Hero", "side": "Party", "hits": 50, "def": 20, "armor": "MA", "parry": 10,
                         "weapon": "Longsword", "cmb": 60, "initiative": 3, "rank": "heroic", "has": ["helm", "shield"]}),
        ("/combatants", {"creature": "Wolf", "side": "Pack", "initiative": 7, "rank": "epic", "has": ["helm"]}),
    ])
    shown = fight_shown(server, name)
    assert shown == expected
    wolf, hero = shown["combatants"]
    assert (hero["initiative"], hero["rank"], hero["features"], hero["parry"]) == (3, "heroic", ["helm", "shield"], 10)
    assert (wolf["name"], wolf["initiative"], wolf["rank"], wolf["side"]) == ("Wolf #1", 7, "epic", "Pack")
    sides = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#fight-combatants .side")]
    assert sides == ["side Pack, initiative 7", "side Party, initiative 3"]
    # the form is emptied for the next one, the rank back to the creature's own
    assert picked(browser, "fight-rank")[0] == "" and browser.find_element(By.ID, "fight-has").get_attribute("value") == ""


def change_box(driver, who: str) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select

    if not driver.find_element(By.ID, "fight-change-box").get_property("open"):
        summary = driver.find_element(By.CSS_SELECTOR, "#fight-change-box summary")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", summary)
        summary.click()
    Select(driver.find_element(By.ID, "fight-change-who")).select_by_value(who)


def press(driver, button_id: str) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    button = driver.find_element(By.ID, button_id)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()


def test_a_combatant_is_set_by_hand_on_the_page_as_fight_edit_sets_it(server, browser):
    """Issue #41: *Change a combatant* → *Set* is `fight edit` (POST …/edits): only the fields filled in are sent,
    each showing what the combatant carries now."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select

    name = "Edited"
    posted(server, "/fights", {"name": name})
    for body in ({"as": "Hero", "hits": 50, "armor": "MA", "weapon": "Longsword", "cmb": 60}, {"creature": "Wolf"}):
        posted(server, f"/fights/{name}/combatants", body)
    posted(server, f"/fights/{name}/edits", {"combatant": "Wolf #1", "taken": 12, "bleed": 2})
    open_fight(browser, server, name)
    # a card's name opens *Change a combatant* on it
    browser.find_element(By.CSS_SELECTOR, "#fight-combatants li[data-name='Wolf #1'] button.name").click()
    assert browser.find_element(By.ID, "fight-change-box").get_property("open")
    assert picked(browser, "fight-change-who")[0] == "Wolf #1"
    holders = {field: browser.find_element(By.ID, f"fight-edit-{field}").get_attribute("placeholder")
               for field in ("taken", "bleed", "stun", "dying")}
    assert holders == {"taken": "12", "bleed": "2", "stun": "0", "dying": "none"}
    for field, value in (("taken", "40"), ("stun", "2")):
        browser.find_element(By.ID, f"fight-edit-{field}").send_keys(value)
    Select(browser.find_element(By.ID, "fight-edit-status")).select_by_value("up")
    written(browser, lambda: press(browser, "fight-edit-go"))
    expected = the_twin(server, name, [
        ("/combatants", {"as": "Hero", "hits": 50, "armor": "MA", "weapon": "Longsword", "cmb": 60}),
        ("/combatants", {"creature": "Wolf"}),
        ("/edits", {"combatant": "Wolf #1", "taken": 12, "bleed": 2}),
        ("/edits", {"combatant": "Wolf #1", "taken": 40, "stun": 2, "status": "up"}),
    ])
    assert fight_state(fight_shown(server, name)) == fight_state(expected)  # the state: the page wrote more (its undos)
    wolf = browser.find_element(By.CSS_SELECTOR, "#fight-combatants li[data-name='Wolf #1']")
    assert wolf.get_attribute("data-status") == "Wolf #1  -5/35 hits  bleeding 2/rnd  stunned 2"
    assert browser.find_element(By.ID, "fight-edit-taken").get_attribute("value") == ""  # emptied, and shows it now
    assert browser.find_element(By.ID, "fight-edit-taken").get_attribute("placeholder") == "40"
    account = browser.find_element(By.ID, "fight-account").text
    assert "Wolf #1" in account


def route_answers(base: str, name: str, suffix: str, body: dict) -> int:
    """The status of POST …/fights/NAME/SUFFIX (an error's too)."""
    from urllib.error import HTTPError

    try:
        posted(base, f"/fights/{name}{suffix}", body)
    except HTTPError as error:
        return error.code
    return 200


@pytest.mark.parametrize("what", ["damage and heal", "remove"])
def test_heal_damage_and_remove_on_the_page(server, browser, what):
    """Issue #41: *Heal* and *Damage* (POST …/adjustments) and *Remove from the fight* (POST …/departures), the
    routes another part of the issue adds to the API. On a server without them, the page says so plainly (and
    nothing breaks); the rest of the test then waits for them."""
    from selenium.webdriver.common.by import By

    name = f"Changed {what.split()[0]}"
    posted(server, "/fights", {"name": name})
    joins = [{"as": "Hero", "hits": 50, "armor": "MA", "weapon": "Longsword", "cmb": 60}, {"creature": "Wolf"},
             {"creature": "Wolf"}]
    for body in joins:
        posted(server, f"/fights/{name.replace(' ', '%20')}/combatants", body)
    suffix = "/adjustments" if what != "remove" else "/departures"
    probe = {"combatant": "Nobody", "damage": 1} if what != "remove" else {"combatant": "Nobody"}
    status = route_answers(server, name.replace(" ", "%20"), suffix, probe)  # 404 naming the combatant once it exists
    open_fight(browser, server, name)
    change_box(browser, "Wolf #1")
    if status == 405 or (status == 404 and route_answers(server, "No%20such%20fight", suffix, probe) == 405):
        if what != "remove":
            browser.find_element(By.ID, "fight-change-hits").send_keys("5")
        press(browser, "fight-damage" if what != "remove" else "fight-remove")
        from selenium.webdriver.support.ui import WebDriverWait

        error = WebDriverWait(browser, 20).until(lambda d: d.find_element(By.CSS_SELECTOR, "#fight-account .error"))
        doing = "heal or damage a combatant" if what != "remove" else "remove a combatant"
        assert error.text.startswith(f"This server cannot {doing} yet (POST /api/v1/fights/"), error.text
        assert "nothing was done" in error.text
        assert fight_shown(server, name)["seq"] == 3 and page_seq(browser) == 3
        pytest.skip(f"POST …/fights/NAME{suffix} answers {status} on this branch (not merged yet): the page's "
                    "message checked; heal, damage and remove wait for the route")
    if what != "remove":
        browser.find_element(By.ID, "fight-change-hits").send_keys("8")
        written(browser, lambda: press(browser, "fight-damage"))
        browser.find_element(By.ID, "fight-change-hits").send_keys("3")
        written(browser, lambda: press(browser, "fight-heal"))
        steps = [("/adjustments", {"combatant": "Wolf #1", "damage": 8}), ("/adjustments", {"combatant": "Wolf #1", "heal": 3})]
    else:
        written(browser, lambda: press(browser, "fight-remove"))
        steps = [("/departures", {"combatant": "Wolf #1"})]
        names = [li.get_attribute("data-name") for li in browser.find_elements(By.CSS_SELECTOR, "#fight-combatants li")]
        assert "Wolf #1" not in names and "Wolf #2" in names
    expected = the_twin(server, name, [("/combatants", body) for body in joins] + steps)
    assert fight_state(fight_shown(server, name)) == fight_state(expected)  # the state: the page wrote more (its undos)
    if what != "remove":
        wolf = next(c for c in expected["combatants"] if c["name"] == "Wolf #1")
        assert wolf["taken"] == 5


def test_the_log_is_shown_in_words(server, browser):
    """Issue #41: *Log* shows `GET …/log`, an event a line numbered as the log numbers them (its own words when the
    log gives them; else what it was, who, and the dice), and follows the fight while open."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    name = "Logged"
    posted(server, "/fights", {"name": name})
    posted(server, f"/fights/{name}/combatants", HERO | {"hits": 50, "def": 20, "parry": 10, "cmb": 60, "initiative": 2})
    posted(server, f"/fights/{name}/combatants", ORC | {"cmb": 55})
    posted(server, f"/fights/{name}/attacks", {"attacker": "Hero", "target": "Orc Warrior #1", "dice": [85, 40]})
    posted(server, f"/fights/{name}/rounds", {})
    posted(server, f"/fights/{name}/edits", {"combatant": "Hero", "taken": 0, "dying": 0})
    events = got(server, f"/fights/{name}/log")["events"]
    open_fight(browser, server, name)
    press(browser, "fight-log-box")
    WebDriverWait(browser, 20).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#fight-log li")) == 5)
    items = browser.find_elements(By.CSS_SELECTOR, "#fight-log li")
    assert [li.get_attribute("value") for li in items] == ["1", "2", "3", "4", "5"]
    words = [li.text for li in items]
    if "words" in events[0]:  # the log's own words, once the log gives them
        assert all(words[i].startswith(" ".join(e["words"]) if isinstance(e["words"], list) else e["words"])
                   for i, e in enumerate(events))
    else:
        hits = events[2]["blow"]["target"]["hits"]
        assert words == [
            "Hero joins side A: 50 hits, DEF 20, armor MA, initiative 2.",
            "Orc Warrior #1 joins side B: 60 hits, DEF 20, armor MA.",
            f"Hero attacks Orc Warrior #1 with Longsword, CMB 50 against DEF 20, dice 85, 40: {hits} hits.",
            "Round 1 ends.",
            "Hero set by hand: taken 0, dying none.",
        ], words
    # open, it follows the fight: a step of this page adds its event
    written(browser, lambda: press(browser, "fight-end-round"))
    WebDriverWait(browser, 20).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#fight-log li")) == 6)
    assert browser.find_elements(By.CSS_SELECTOR, "#fight-log li")[-1].get_attribute("data-kind") == "round"


def test_a_fight_played_on_two_devices_ends_as_the_same_events_through_the_cli(server, browser, second_browser,
                                                                               database, run, tmp_path):
    """Issue #41, done when: a whole fight played on the page at 390 px with two devices (two browser sessions) ends
    in the same JSON as the same events through the CLI. The devices take turns: each step is made on one after it
    has seen the other's last one live (no reload), and the one watching says what the other did."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    name = "Two devices"
    copy = tmp_path / "cli.db"
    shutil.copyfile(database, copy)  # before the page's fight: the CLI plays it again there
    _last, lines, expected = the_same_through_the_cli(run, copy, name)

    devices = (browser, second_browser)
    for device in devices:
        device.get_log("browser")  # what earlier tests logged and asked is theirs
        outside_requests(device, server)
    new_fight_on_the_page(browser, server, name)
    open_fight(second_browser, server, name)

    def seen_live(device, seq: int) -> None:  # type: ignore[no-untyped-def]
        """``device`` shows event ``seq`` without a reload, and says the fight moved on elsewhere."""
        started = time.monotonic()
        WebDriverWait(device, 20).until(lambda d: page_seq(d) == seq)
        assert time.monotonic() - started < 10
        note = device.find_element(By.ID, "fight-message")
        assert note.text in (f"Updated: the fight moved on elsewhere (event {seq}).",
                             f"Updated: the fight was taken back elsewhere to event {seq}."), note.text

    turn = 0
    for joining in (HERO, ORC):
        device = devices[turn % 2]
        seq = join_on_the_page(device, {key: value for key, value in joining.items()})
        turn += 1
        seen_live(devices[turn % 2], seq)
    watcher_saw = []
    for what, *rest in PLAYED:
        device = devices[turn % 2]
        if what == "attack":
            def attack(device=device, rest: list = rest) -> None:  # type: ignore[no-untyped-def]
                Select(device.find_element(By.ID, "fight-attacker")).select_by_value(rest[0])
                Select(device.find_element(By.ID, "fight-target")).select_by_value(rest[1])
                device.find_element(By.ID, "fight-dice").send_keys(rest[2])
                device.find_element(By.ID, "fight-attack-go").click()
            seq = written(device, attack)
        elif what == "auto":
            def auto(device=device, rest: list = rest) -> None:  # type: ignore[no-untyped-def]
                device.find_element(By.ID, "fight-dice").send_keys(rest[0])
                device.find_element(By.ID, "fight-auto-round").click()
            seq = written(device, auto)
        else:
            seq = written(device, lambda device=device, what=what: device.find_element(
                By.ID, "fight-end-round" if what == "end" else "fight-undo").click())
        turn += 1
        watcher = devices[turn % 2]
        seen_live(watcher, seq)
        watcher_saw.append(watcher.find_element(By.ID, "fight-account").text)
    assert fight_state(fight_shown(server, name)) == fight_state(expected)  # the state: the page wrote more (its undos)
    for device in devices:
        shown = [item.get_attribute("data-status") for item in device.find_elements(By.CSS_SELECTOR, "#fight-combatants li")]
        assert shown == lines
        assert device.find_element(By.ID, "fight-title").text == f"{name}: round 4"
        assert device.execute_script("return document.documentElement.scrollWidth <= innerWidth")
        assert [entry for entry in device.get_log("browser") if entry["level"] == "SEVERE"] == []
        asked, outside = outside_requests(device, server)
        # the watcher reads the events written since it last looked: a page of the log (`?from=`)
        assert outside == [] and any(url.startswith(f"{server}/api/v1/fights/Two%20devices/log") for url in asked)
    # the watcher says what the other device did, in the log's words
    assert watcher_saw[0].startswith("From another device:\nHero attacks Orc Warrior #1 with Longsword"), watcher_saw[0]
    assert watcher_saw[2] == "From another device:\nRound 1 ends."
    assert watcher_saw[6] == "Undone elsewhere: back at event 7.", watcher_saw[6]


# A critical table worded as Against the Darkmaster words its entries (tests/cli/test_darkmaster_criticals.py):
# one entry carries a piece the reader does not read, `(-10 BEA)`, for the GM to decide.
REND = [["Kind", "critical"], ["Name", "Rend"], [], ["Roll", "Text"],
        ["Up to 5", "A feeble swipe. +1 Damage."],
        ["6-40", "Slash to the forearm: +3 Damage, 1 Bleed, -5 to all actions."],
        ["41-80", "Blow rattles the skull. Target is Stunned, +6 Damage. Old wound reopens (-10 BEA)."],
        ["81-120", "Deep cut across the ribs: +9 Damage, 2 Bleed, and -20 to all actions for 3 rounds."],
        ["121+", "Throat opened. Dying in 4 rounds."]]


def read_on_the_page(driver, roll: str, **fields: str):  # type: ignore[no-untyped-def]
    """Fill *Read a roll* (roll, and severity, has, modifier, column by name) and return the card shown."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    for key, value in {"roll": roll, **fields}.items():
        field = driver.find_element(By.ID, f"entry-{key}")
        if field.tag_name == "select":
            Select(field).select_by_value(value)
        else:
            field.clear()
            field.send_keys(value)
    driver.execute_script("document.getElementById('entry-out').replaceChildren()")
    press(driver, "entry-go")
    return WebDriverWait(driver, 20).until(lambda d: d.find_element(By.CSS_SELECTOR, "#entry-out .card, #entry-out .error"))


def test_critical_and_fumble_tables_are_browsed_and_read_on_the_page(server, browser, database, tmp_path):
    """Issue #41: the critical and fumble tables listed, one shown whole, and a roll read as `tables query critical`
    reads it: with a severity and the target's features (the helm branch taken, the other told), a fumble with
    the weapon's modifier or a printed column; an entry's effects and its unread pieces, for the GM to decide."""
    from helpers import build_workbook
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    rend = build_workbook(tmp_path / "rend.xlsx", {"Rend": REND})
    subprocess.run([sys.executable, "-m", "tables_app", "--db", str(database), "import", str(rend)],
                   env=child_env(database.parent / "user-data"), capture_output=True, check=True)
    browser.get_log("browser")
    browser.set_window_size(390, 844)
    fresh_page(browser, f"{server}/#/tables")
    wait = WebDriverWait(browser, 20)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#critical-list a"))
    criticals = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#critical-list a")]
    fumbles = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#fumble-list a")]
    assert criticals == [qualified(t) for t in got(server, "/critical")["critical"]] and "Printed:Hacking" in criticals
    assert fumbles == ["Melee Fumbles", "Missile Fumbles", "Printed:Weapon Mishaps"]

    # a table shown whole, an entry a row (its range, branch, words and effects)
    link = browser.find_element(By.LINK_TEXT, "Cut")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", link)
    link.click()
    cut = got(server, "/critical/Cut")
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#entry-rows tbody tr")) == len(cut["entries"]))
    assert browser.find_element(By.ID, "entry-title").text == "Critical table Cut"
    rows = browser.find_elements(By.CSS_SELECTOR, "#entry-rows tbody tr")
    helm = next(row.text for row in rows if "Helm sheared" in row.text)
    assert helm.startswith("111-120\nif helm\nHelm sheared."), helm
    assert not browser.find_element(By.ID, "entry-modifier-box").is_displayed()

    # a roll with a severity and the target's features: the helm branch, the other one told beside it
    card = read_on_the_page(browser, "85", severity="Gri", has="helm")
    queried = got(server, "/query/critical?table=Cut&roll=85&severity=Gri&has=helm")
    assert queried["entry"]["title"] == "Helm sheared" and queried["modified_roll"] == 115
    assert card.text.startswith("Critical: Gri on Cut\nCut, roll 85 → 115 (111-120)\nHelm sheared."), card.text
    assert "+9 hits, bleed 2/rnd, penalty -10" in card.text and "Branch taken: helm." in card.text
    assert "If not helm: Scalp flayed (+14 hits, bleed 3/rnd, stun 1 rnd, penalty -15, blinded 2 rnd)" in card.text  # its tag `blinded 2`, read (#41)
    card = read_on_the_page(browser, "85", severity="Gri", has=" ")
    assert "Scalp flayed." in card.text and "Branch taken: not helm." in card.text
    card = read_on_the_page(browser, "85", severity="Nope")
    assert card.text.startswith("unknown severity 'Nope' for 'Cut' (severities: Sup (+0)"), card.text

    # a printed table of a column per severity: the severity picks the column (no column field)
    fresh_page(browser, f"{server}/#/critical/Printed%3AHacking")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#entry-rows tbody tr"))
    assert not browser.find_element(By.ID, "entry-column-box").is_displayed()
    card = read_on_the_page(browser, "50", severity="B")
    assert "(46-60, column B)" in card.text and "Cut to the shoulder." in card.text, card.text

    # what the reader did not read, for the GM
    fresh_page(browser, f"{server}/#/critical/Rend")
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#entry-rows tbody tr")) == 5)
    card = read_on_the_page(browser, "60")
    assert "+6 hits, stun 1 rnd; not read: '(-10 BEA)', decide at the table" in card.text, card.text
    assert "not read: '(-10 BEA)'" in browser.find_element(By.ID, "entry-rows").text

    # fumbles: the weapon's modifier; a printed table's column
    fresh_page(browser, f"{server}/#/fumble/Melee%20Fumbles")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#entry-rows tbody tr"))
    assert not browser.find_element(By.ID, "entry-severity-box").is_displayed()
    card = read_on_the_page(browser, "50", modifier="20")
    queried = got(server, "/query/fumble?table=Melee%20Fumbles&roll=50&modifier=20")
    assert card.text.startswith(f"Fumble on Melee Fumbles\nMelee Fumbles, roll 50 → {queried['modified_roll']}"), card.text
    assert queried["entry"]["text"] in card.text
    fresh_page(browser, f"{server}/#/fumble/Printed%3AWeapon%20Mishaps")
    wait.until(lambda d: d.find_element(By.ID, "entry-column-box").is_displayed())
    card = read_on_the_page(browser, "50", column="2H")
    assert "Haft catches the ground." in card.text and "column 2H" in card.text, card.text
    assert browser.execute_script("return document.documentElement.scrollWidth <= innerWidth")
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "fumble-390.png"))
    logged = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert [entry["message"].split(" - ")[0] for entry in logged] == \
        [f"{server}/api/v1/query/critical?table=Cut&roll=85&severity=Nope"]  # the 422 read and shown; no script error


def qualified(table: dict) -> str:
    return table["name"] if table["ruleset"] == "default" else f"{table['ruleset']}:{table['name']}"


def test_the_page_looks_for_other_devices_steps_at_a_bounded_rate_and_not_while_hidden(server, browser):
    """Issue #41: live refresh. The open fight is asked for again every 2 s, one request at a time; a hidden tab
    asks nothing, and asks at once when shown again. Another device's step is shown without a reload."""
    from urllib.parse import quote

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    name = "Watched"
    posted(server, "/fights", {"name": name})
    posted(server, f"/fights/{name}/combatants", {"as": "Hero", "hits": 50, "armor": "MA", "weapon": "Longsword", "cmb": 60})
    open_fight(browser, server, name)
    shown = f"{server}/api/v1/fights/{quote(name)}"

    def asked_for_it() -> int:
        return outside_requests(browser, server)[0].count(shown)

    asked_for_it()  # what the opening asked
    time.sleep(6.5)
    assert 2 <= asked_for_it() <= 4  # every 2 s
    browser.execute_script("Object.defineProperty(document, 'hidden', {value: true, configurable: true});"
                           "document.dispatchEvent(new Event('visibilitychange'))")
    asked_for_it()
    time.sleep(5)
    assert asked_for_it() == 0  # hidden: nothing
    posted(server, f"/fights/{name}/combatants", {"creature": "Wolf"})  # another device, meanwhile
    browser.execute_script("Object.defineProperty(document, 'hidden', {value: false, configurable: true});"
                           "document.dispatchEvent(new Event('visibilitychange'))")
    WebDriverWait(browser, 1.5).until(lambda d: page_seq(d) == 2)  # at once, not after the next 2 s
    assert [li.get_attribute("data-name") for li in browser.find_elements(By.CSS_SELECTOR, "#fight-combatants li")] == \
        ["Hero", "Wolf #1"]
    assert browser.find_element(By.ID, "fight-message").text == "Updated: the fight moved on elsewhere (event 2)."
    assert browser.find_element(By.ID, "fight-account").text == \
        "From another device:\nWolf #1 joins side B: 35 hits, DEF 30, armor NA. Wolf #1 attacks with Bite 45."
    # another view of the page: the fight is not asked for
    browser.execute_script("location.hash = '#/tables'")
    time.sleep(0.5)
    asked_for_it()
    time.sleep(4.5)
    assert asked_for_it() == 0


def test_a_formula_systems_attack_is_labelled_with_whose_it_is_and_on_whom(server, browser):
    """A rise attack's answer names no target (its JSON is the system's): the heading takes it from the account."""
    from selenium.webdriver.common.by import By

    name = "Rise duel"
    posted(server, "/fights", {"name": name})
    for body in ({"as": "Hero", "hits": 40, "system": "rise", "option": ["accuracy=6", "damage=2d6+3"]},
                 {"as": "Orc", "side": "B", "hits": 30, "def": 12, "system": "rise", "option": ["accuracy=6", "damage=2d6+3"]}):
        posted(server, "/fights/Rise%20duel/combatants", body)
    open_fight(browser, server, name)
    browser.find_element(By.ID, "fight-dice").send_keys("10, 10, 3, 4, 5, 6, 2")  # docs/fights.md's: 23 damage
    written(browser, lambda: browser.find_element(By.ID, "fight-attack-go").click())
    assert [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#fight-account .turn-head")] == \
        ["Hero's attack on Orc: critical, 23 damage"]
    assert "Orc takes 23 hits (7/30 hits left)." in browser.find_element(By.ID, "fight-account").text


def test_a_fight_removed_elsewhere_is_said_so_and_not_asked_for_again(server, browser):
    from urllib.parse import quote
    from urllib.request import Request, urlopen

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    name = "Removed elsewhere"
    posted(server, "/fights", {"name": name})
    browser.get_log("browser")
    open_fight(browser, server, name)
    with urlopen(Request(f"{server}/api/v1/fights/{quote(name)}", method="DELETE"), timeout=10) as response:
        assert response.status == 200
    note = browser.find_element(By.ID, "fight-message")
    WebDriverWait(browser, 10).until(lambda d: note.is_displayed())
    assert note.text.startswith(f"The fight '{name}' is no longer on the server (no fight named"), note.text
    outside_requests(browser, server)
    time.sleep(4.5)
    assert f"{server}/api/v1/fights/{quote(name)}" not in outside_requests(browser, server)[0]
    logged = [entry["message"].split(" - ")[0] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert logged == [f"{server}/api/v1/fights/{quote(name)}"]  # the one 404 read, no script error


def test_the_rest_of_a_critical_is_on_a_combatants_card_as_the_status_line_says_it(server, browser):
    """Issue #41 (docs/fights.md, "The rest of a critical"): prone, knocked out, blinded, a useless limb, a weapon
    dropped or broken and a penalty for N rounds, on the card as `fight show`'s status line words them."""
    from selenium.webdriver.common.by import By

    from tables_app.domain.fights.account import crippled_words
    from tables_app.domain.fights.state import Combatant, Counters, Fighter

    name = "Maimed"
    posted(server, "/fights", {"name": name})
    for body in ({"as": "Hero", "hits": 50, "armor": "MA", "weapon": "Longsword", "cmb": 60}, {"creature": "Wolf"}):
        posted(server, f"/fights/{name}/combatants", body)
    posted(server, f"/fights/{name}/edits", {"combatant": "Hero", "prone": 2, "blind": 1, "arm": "useless",
                                             "drop": ["Longsword"], "timed_penalty": ["-20:3"]})
    open_fight(browser, server, name)
    hero = browser.find_element(By.CSS_SELECTOR, "#fight-combatants li[data-name='Hero']")
    assert hero.get_attribute("data-status") == \
        "Hero  50/50 hits  prone 2  blinded 1  useless arm  dropped Longsword  penalty -20 for 3"
    carried = Combatant(Fighter("Hero", "A", 50, 0, "MA"), now=Counters(
        prone=2, blinded=1, useless_arm=True, dropped=("Longsword",), timed_penalties=((-20, 3),)))
    assert hero.get_attribute("data-status").split("  ")[2:] == crippled_words(carried)  # the command line's words
