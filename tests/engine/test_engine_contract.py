"""The engine's contract every stage relies on: results in input order, whatever runs them."""

from __future__ import annotations

import time

import pytest

from pi_tools.engine import Engine, EngineError, map_ordered


def _slow_for_small(value: int) -> int:
    # The first items take longest, so a pool finishes them last: the order must still be the input's.
    time.sleep(0.02 * (5 - value) if value < 5 else 0)
    return value * value


@pytest.mark.parametrize("jobs", [1, 2])
def test_results_come_back_in_input_order(jobs: int) -> None:
    assert list(map_ordered(_slow_for_small, list(range(8)), Engine(jobs=jobs))) == [i * i for i in range(8)]


def test_small_batches_stay_in_this_process() -> None:
    seen: list[int] = []

    def record(value: int) -> int:  # a closure cannot travel to a worker: only an in-process run can call it
        seen.append(value)
        return value

    assert list(map_ordered(record, [3, 1, 2], Engine(), weights=[10, 10, 10])) == [3, 1, 2]
    assert seen == [3, 1, 2]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"kind": "spark"}, "--engine: expected one of local, dask, got 'spark'"),
    ({"jobs": 0}, "--jobs: expected a positive number"),
    ({"scheduler": "tcp://127.0.0.1:8786"}, "--scheduler: only with --engine dask"),
])
def test_bad_options_are_named(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(EngineError) as caught:
        Engine(**kwargs)  # type: ignore[arg-type]
    assert str(caught.value) == message
