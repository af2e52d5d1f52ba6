"""The service under load, short (the full run is ``make test-load``: tests/loadtest.py, 200 engines and 10,000
reports): engines' sessions at once on the real process, no 5xx, billed sums exact; then the service killed with
SIGKILL mid-run and restarted on the same database: every acknowledged report is stored, nothing billed twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from loadtest import Engine, LoadFailure, check_billing, percentile, run_load


def test_40_engines_and_800_reports_billed_exactly(tmp_path: Path) -> None:
    result = run_load(tmp_path, sessions=40, reports=800, quiet=True)
    assert result["5xx"] == 0
    assert result["billing"]["sessions"] == 40 and result["billing"]["orphan_sessions"] == 0  # type: ignore[index]
    assert result["latency_ms"]["report"]["n"] == 800 - 40  # type: ignore[index]


def test_sigkill_mid_run_loses_nothing_and_bills_nothing_twice(tmp_path: Path) -> None:
    result = run_load(tmp_path, sessions=40, reports=800, kill_at=0.4, quiet=True, seed=9)
    kill = result["kill"]
    assert kill["checked"]["sessions"] > 0  # type: ignore[index]
    assert result["unanswered"] > 0 or kill["checked"]["acknowledged_seconds"] > 0  # type: ignore[index]


def test_lost_answers_are_sent_again_and_nothing_is_billed_twice(tmp_path: Path) -> None:
    """A tenth of the answers lost on the way back (the service did the work): the clients send the same request
    again, session starts with the same Idempotency-Key, finals answered 409 (already stored)."""
    result = run_load(tmp_path, sessions=40, reports=400, lose=0.1, quiet=True, seed=11)
    assert result["answers_lost_on_purpose"] > 20
    assert result["billing"]["starts_sent_again"] > 0  # type: ignore[index]


def test_sigkill_while_sessions_start(tmp_path: Path) -> None:
    """Killed after the first acknowledged report: other engines' session starts are in flight; a start the
    service stored but could not answer, sent again with its Idempotency-Key, is the same session (no other is
    stored: check_billing)."""
    result = run_load(tmp_path, sessions=40, reports=200, kill_at=0.001, think_s=0.05, quiet=True, seed=10)
    assert result["billing"]["sessions"] == 40  # type: ignore[index]


def test_the_billing_check_sees_a_lost_report(tmp_path: Path) -> None:
    """The check itself: a client's final figures that the database does not hold fail it."""
    run_load(tmp_path, sessions=2, reports=4, accounts=1, quiet=True)
    engine = Engine(0, "load0", "", "", 2, 1, session_id="s_" + "x" * 32, sent_final=(5, 2, 3), closed=True)
    with pytest.raises(LoadFailure, match="not stored"):
        check_billing(tmp_path / "service.sqlite3", [engine])


def test_percentile_is_nearest_rank() -> None:
    assert percentile([float(v) for v in range(1, 101)], 50) == 50
    assert percentile([float(v) for v in range(1, 101)], 99) == 99
    assert percentile([3.0], 99) == 3.0
