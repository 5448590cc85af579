"""The index's fast paths give exactly the rows of the reference ones, as the tables' frames, on every fixture
(bad, real-world, conformance and fuzz sessions; both readers where the bulk one takes the file)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from pi_tools.corpus.rows import (
    IndexInputError,
    ReadSession,
    bulk_read,
    line_lengths,
    reference_usage_rows,
    session_rows,
    tree_read,
)
from pi_tools.corpus.schema import TABLES
from pi_tools.corpus.task import frame

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted(path for folder in ("bad", "realworld", "conformance", "fuzz")
                  for path in (ROOT / "fixtures" / folder).rglob("*.jsonl"))


def frames(name: str, read: ReadSession, data: bytes, reference: bool) -> dict[str, pl.DataFrame]:
    if reference:
        rows = session_rows(name, read, line_lengths(data), len(data), reference_usage_rows)
    else:
        rows = session_rows(name, read, line_lengths(data), len(data))
    return {table: frame(table, columns) for table, columns in rows.items()}


def test_there_are_fixtures_of_every_kind() -> None:
    assert {path.relative_to(ROOT / "fixtures").parts[0] for path in FIXTURES} == \
        {"bad", "realworld", "conformance", "fuzz"}
    assert len(FIXTURES) > 100


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: str(path.relative_to(ROOT / "fixtures")))
def test_fast_rows_equal_the_reference_rows(path: Path) -> None:
    data = path.read_bytes()
    name = str(path.relative_to(ROOT))
    readers = []
    bulk = bulk_read(name, data)
    if bulk is not None:
        readers.append(bulk)
    try:
        readers.append(tree_read(name, data))
    except IndexInputError:
        assert bulk is None
        return
    for read in readers:
        try:
            fast = frames(name, read, data, reference=False)
        except RecursionError:  # index_batch reports "nesting too deep": the reference must fail alike
            with pytest.raises(RecursionError):
                frames(name, read, data, reference=True)
            continue
        expected = frames(name, read, data, reference=True)
        assert list(fast) == list(expected) and set(fast) == set(TABLES)
        for table, built in fast.items():
            assert_frame_equal(built, expected[table], check_exact=True)
