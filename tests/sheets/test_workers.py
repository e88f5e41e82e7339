"""A big workbook's sheets read in helper processes (sheets/workers.py): the
result is exactly a lone read's, whatever happens to the helpers."""

import sys

import pytest
from helpers import MINI_ATTACK, MINI_CRITICAL, MINI_FUMBLE, build_workbook, rewrite

from tables_app.errors import WorkbookInvalid
from tables_app.sheets import workers
from tables_app.sheets.read import read_workbook

SHEETS = {
    "Slash": MINI_CRITICAL, "Oops": MINI_FUMBLE, "Poke": MINI_ATTACK,
    **{f"Fumble {n}": [["Kind", "fumble"], ["Name", f"F{n}"], [], ["Roll", "Text"], ["1-50", f"a{n}"], ["51+", "b"]]
       for n in range(5)},
}


@pytest.fixture
def book(tmp_path):
    return build_workbook(tmp_path / "shares.xlsx", SHEETS)


@pytest.fixture
def alone(book, monkeypatch):
    monkeypatch.setenv(workers.PROCESSES_VARIABLE, "1")
    result = read_workbook(book)
    monkeypatch.delenv(workers.PROCESSES_VARIABLE)
    return result


@pytest.fixture
def three_readers(monkeypatch):
    """Even this small workbook is read by this process and two helpers."""
    monkeypatch.setattr(workers, "START_COST_BYTES", 1)
    monkeypatch.setenv(workers.PROCESSES_VARIABLE, "3")


def test_the_plan_balances_bytes_and_keeps_workbook_order(monkeypatch):
    sizes = [("a", 5_000_000), ("b", 1_000_000), ("c", 3_000_000), ("d", 2_000_000), ("e", 1_000_000)]
    monkeypatch.setattr(workers, "START_COST_BYTES", 600_000)
    assert workers.plan(sizes, processes=2) == [["a", "b"], ["c", "d", "e"]]  # 6.0 MB here, 6.0 + 0.6 there
    assert workers.plan(sizes, processes=1) == [["a", "b", "c", "d", "e"]]
    assert workers.plan([("a", 500_000), ("b", 500_000)], processes=4) == [["a", "b"]]  # too little to pay for a helper
    monkeypatch.setenv(workers.PROCESSES_VARIABLE, "1")
    assert workers.plan(sizes) == [["a", "b", "c", "d", "e"]]


def test_helpers_read_exactly_what_one_process_reads(book, alone, three_readers, monkeypatch):
    progress, sent = [], []
    receive = workers._receive

    def counted(stream, arrived):  # type: ignore[no-untyped-def]
        class Counted:
            def put(self, item):  # type: ignore[no-untyped-def]
                sent.append(item)
                arrived.put(item)
        receive(stream, Counted())

    monkeypatch.setattr(workers, "_receive", counted)
    assert len(workers.plan(workers_sizes(book))) == 3
    shared = read_workbook(book, on_sheet=lambda done, total, title: progress.append((done, total, title)))
    assert shared == alone
    assert len([item for item in sent if item is not None]) == 8 - len(workers.plan(workers_sizes(book))[0])
    assert [done for done, _, _ in progress] == list(range(1, 9)) and {t for _, total, t in progress if total == 8} == set(SHEETS)


def test_a_helper_that_cannot_start_or_dies_leaves_its_share_to_this_process(book, alone, three_readers, monkeypatch):
    monkeypatch.setattr(workers, "HELPER_ARGUMENTS", ["-c", "import sys; sys.stdin.buffer.read(); sys.exit(3)"])
    assert read_workbook(book) == alone
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    assert read_workbook(book) == alone


def test_the_first_broken_sheet_in_workbook_order_is_reported_whoever_reads_it(book, three_readers, tmp_path, monkeypatch):
    # sheet3.xml is "Poke", sheet6.xml is "Fumble 2": both become unreadable XML
    broken = rewrite(book, tmp_path / "one.xlsx", "xl/worksheets/sheet6.xml", lambda d: d.replace(b"</sheetData>", b""))
    broken = rewrite(broken, tmp_path / "two.xlsx", "xl/worksheets/sheet3.xml", lambda d: d.replace(b"</sheetData>", b""))
    monkeypatch.setenv(workers.PROCESSES_VARIABLE, "1")
    with pytest.raises(WorkbookInvalid) as lone:
        read_workbook(broken)
    assert str(lone.value).startswith("two.xlsx › Poke: cannot read the sheet: ")
    for shares in ([["Fumble 2"], ["Slash", "Oops", "Poke", "Fumble 0", "Fumble 1", "Fumble 3", "Fumble 4"]],
                   [["Slash", "Oops", "Poke", "Fumble 0", "Fumble 1", "Fumble 3", "Fumble 4"], ["Fumble 2"]]):
        monkeypatch.setattr(workers, "plan", lambda sizes, shares=shares: shares)
        with pytest.raises(WorkbookInvalid) as shared:
            read_workbook(broken)
        assert str(shared.value) == str(lone.value)


def workers_sizes(path):
    from tables_app.sheets import guard

    return guard.inspect(path, path.name).sheet_sizes


def test_a_helper_that_falls_silent_is_stopped_and_its_share_read_here(book, alone, three_readers, monkeypatch):
    monkeypatch.setattr(workers, "HELPER_ARGUMENTS", ["-c", "import time; time.sleep(60)"])
    monkeypatch.setattr(workers, "SILENCE_SECONDS", 0.5)
    assert read_workbook(book) == alone


def test_helpers_never_import_from_the_current_directory(book, alone, three_readers, tmp_path, monkeypatch):
    """A downloaded folder with an openpyxl.py in it must not run in a helper."""
    trap = tmp_path / "downloads"
    trap.mkdir()
    (trap / "openpyxl.py").write_text(f"open({str(trap / 'ran')!r}, 'w').close()\nraise SystemExit(9)\n")
    monkeypatch.chdir(trap)
    monkeypatch.setattr(sys, "path", ["", *sys.path])  # as under `python -c` or a REPL: "" is wherever we are now
    sent = []
    receive = workers._receive
    monkeypatch.setattr(workers, "_receive", lambda stream, arrived: receive(stream, SpyQueue(arrived, sent)))
    assert read_workbook(book) == alone
    assert not (trap / "ran").exists() and len([item for item in sent if item is not None]) > 0


class SpyQueue:
    def __init__(self, queue, seen):  # type: ignore[no-untyped-def]
        self.queue, self.seen = queue, seen

    def put(self, item):  # type: ignore[no-untyped-def]
        self.seen.append(item)
        self.queue.put(item)
