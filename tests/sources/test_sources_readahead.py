"""Reading ahead: the bytes a stage gets are the file's, and every failure is still reported by the reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tools.session.reader import SessionReadError, read_session_bytes
from pi_tools.sources import readahead


def test_read_ahead_bytes_are_handed_over_once(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    session.write_bytes(b'{"type":"session","version":3,"id":"x"}\n')
    readahead.start_reading(str(session))
    assert read_session_bytes(str(session)) == b'{"type":"session","version":3,"id":"x"}\n'
    assert readahead.take(str(session)) is None  # handed over once; later reads go to the file
    session.write_bytes(b"changed")
    assert read_session_bytes(str(session)) == b"changed"


@pytest.mark.parametrize(("name", "message"), [("missing.jsonl", "no such file"),
                                               ("folder", "is a directory, not a session file")])
def test_failed_read_ahead_leaves_the_error_to_the_reader(tmp_path: Path, name: str, message: str) -> None:
    (tmp_path / "folder").mkdir()
    path = str(tmp_path / name)
    readahead.start_reading(path)
    with pytest.raises(SessionReadError) as error:
        read_session_bytes(path)
    assert str(error.value) == f"{path}: {message}"
    assert readahead.take(path) is None
