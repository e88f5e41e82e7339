"""How a file is written (tables_app/files.save): a new name exclusively; an
existing file, with --force, replaced by a whole new one moved into place,
so a failed write keeps the old file and a link there is replaced, never
written through."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tables_app.files import save


def writing(data: bytes):  # type: ignore[no-untyped-def]
    return lambda handle: handle.write(data)


def failing(handle) -> None:  # type: ignore[no-untyped-def]
    handle.write(b"half")
    raise OSError(28, "No space left on device")


def test_a_new_name_is_created_and_an_existing_one_refused_without_overwrite(tmp_path: Path) -> None:
    path = tmp_path / "out.xlsx"
    save(path, writing(b"new"), overwrite=False)
    assert path.read_bytes() == b"new"
    with pytest.raises(FileExistsError):
        save(path, writing(b"other"), overwrite=False)
    assert path.read_bytes() == b"new"


@pytest.mark.parametrize("overwrite", [False, True])
def test_a_failed_write_of_a_new_name_leaves_nothing(tmp_path: Path, overwrite: bool) -> None:
    path = tmp_path / "out.xlsx"
    with pytest.raises(OSError):
        save(path, failing, overwrite=overwrite)
    assert list(tmp_path.iterdir()) == []


def test_a_failed_overwrite_keeps_the_old_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "out.xlsx"
    path.write_bytes(b"the old export")
    with pytest.raises(OSError):
        save(path, failing, overwrite=True)
    assert path.read_bytes() == b"the old export"
    assert [p.name for p in tmp_path.iterdir()] == ["out.xlsx"]  # no .part left beside it


def test_an_overwrite_keeps_the_old_files_permissions(tmp_path: Path) -> None:
    path = tmp_path / "out.xlsx"
    path.write_bytes(b"old")
    path.chmod(0o640)  # (not mkstemp's own 0o600, which a forgotten chmod would also give)
    save(path, writing(b"new"), overwrite=True)
    assert path.read_bytes() == b"new" and stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_link_is_replaced_never_written_through(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_bytes(b"not ours")
    link = tmp_path / "out.xlsx"
    link.symlink_to(elsewhere)
    save(link, writing(b"new"), overwrite=True)
    assert not link.is_symlink() and link.read_bytes() == b"new"
    assert elsewhere.read_bytes() == b"not ours"
    dangling = tmp_path / "dangling.xlsx"
    dangling.symlink_to(tmp_path / "nothing")
    save(dangling, writing(b"new"), overwrite=True)
    assert not dangling.is_symlink() and dangling.read_bytes() == b"new"
    assert not (tmp_path / "nothing").exists()


def test_export_force_onto_a_link_replaces_the_link(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    elsewhere = tmp_path / "elsewhere.xlsx"
    elsewhere.write_bytes(b"someone else's file")
    link = tmp_path / "out.xlsx"
    os.symlink(elsewhere, link)
    result = run("export", "-o", str(link), "--force")
    assert result.exit_code == 0, result.output
    assert not link.is_symlink() and link.read_bytes()[:2] == b"PK"
    assert elsewhere.read_bytes() == b"someone else's file"
