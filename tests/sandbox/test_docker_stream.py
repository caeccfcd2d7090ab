"""Reading Docker's multiplexed exec stream: frames to streams, and deadlines."""

from __future__ import annotations

import socket
import struct
import time

from polybench.sandbox.docker_stream import FrameReader
from polybench.sandbox.process import _CappedBuffer


def _frame(stream: int, data: bytes) -> bytes:
    return struct.pack(">BxxxI", stream, len(data)) + data


def _reader() -> tuple[socket.socket, FrameReader, dict[int, _CappedBuffer]]:
    ours, theirs = socket.socketpair()
    apart = {1: _CappedBuffer(1 << 20), 2: _CappedBuffer(1 << 20)}
    return (
        theirs,
        FrameReader(ours.makefile("rb", buffering=0), _CappedBuffer(1 << 20), apart),
        apart,
    )


def test_frames_are_split_into_their_streams_and_the_end_is_seen() -> None:
    writer, reader, apart = _reader()
    payload = _frame(1, b"out 1\n") + _frame(2, b"err\n") + _frame(1, b"out 2\n")
    writer.sendall(payload[:5])
    writer.sendall(payload[5:])
    writer.close()
    assert reader.read_until(time.monotonic() + 600)
    assert reader.buffer.value() == b"out 1\nerr\nout 2\n"
    assert (apart[1].value(), apart[2].value()) == (b"out 1\nout 2\n", b"err\n")
    reader.close()


def test_a_stream_that_ended_before_the_deadline_was_noticed_is_not_cut_short() -> None:
    # The reader is late (its deadline has passed before it first looks), but everything,
    # the end included, had already arrived: the run ended in time and nothing is lost.
    writer, reader, _ = _reader()
    writer.sendall(b"".join(_frame(1, b"%d\n" % n) for n in range(5000)))
    writer.sendall(_frame(1, b"END\n"))
    writer.close()
    assert reader.read_until(time.monotonic() - 1)
    assert reader.buffer.value().endswith(b"4999\nEND\n")
    reader.close()


def test_a_stream_still_open_at_the_deadline_is_not_finished() -> None:
    writer, reader, _ = _reader()
    writer.sendall(_frame(1, b"partial\n"))
    assert not reader.read_until(time.monotonic() + 0.2)
    assert reader.buffer.value() == b"partial\n"
    writer.close()
    reader.close()
