"""The runner's event stream and what a launcher concludes from it."""

from __future__ import annotations

import pytest

from advisor.pilot.events import EventWriter, read_events
from advisor.pilot.launchers.base import status_from_events


def test_events_round_trip_in_order(tmp_path):
    path = tmp_path / "e.jsonl"
    with EventWriter(path, "p-1") as w:
        w.emit("started", environment={"device": "cpu"})
        w.emit("progress", steps_completed=1)
    events, offset = read_events(path)
    assert [(e.type, e.seq) for e in events] == [("started", 0), ("progress", 1)]
    assert offset == path.stat().st_size and events[1].data == {"steps_completed": 1}


def test_a_half_written_line_waits_for_the_next_read(tmp_path):
    path = tmp_path / "e.jsonl"
    with EventWriter(path, "p-1") as w:
        w.emit("started")
    with path.open("a") as fh:
        fh.write('{"type": "progress", "pilot_id"')
    events, offset = read_events(path)
    assert len(events) == 1 and read_events(path, offset) == ([], offset)


def test_a_second_writer_continues_the_numbering(tmp_path):
    path = tmp_path / "e.jsonl"
    with EventWriter(path, "p-1") as w:
        w.emit("started")
    with EventWriter(path, "p-1") as w:
        assert w.emit("failed", reason="killed").seq == 1


@pytest.mark.parametrize("events, state, reason", [
    ([], None, None),
    ([("started", {})], "running", None),
    ([("started", {}), ("progress", {"steps_completed": 2})], "running", None),
    ([("started", {}), ("finished", {"result": {"tokens_per_s": 5.0}})], "finished", None),
    ([("started", {}), ("failed", {"reason": "oom", "message": "m"})], "failed", "oom"),
])
def test_status_from_events(tmp_path, events, state, reason):
    path = tmp_path / "e.jsonl"
    with EventWriter(path, "p-1") as w:
        for kind, data in events:
            w.emit(kind, **data)
    status = status_from_events(read_events(path)[0])
    assert (status.state if status else None, status.reason if status else None) == (state, reason)
