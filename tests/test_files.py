"""qifkit.files.read_json on gzip-compressed documents (the n = 7 census ships as .json.gz): the
same document as the plain text, and a broken, cut, padded or oversized stream refused with
FileFormatError, never a traceback or a partial document."""

from __future__ import annotations

import gzip
import json

import pytest

import qifkit.files
from qifkit.errors import FileFormatError
from qifkit.files import gzip_bytes, read_json

DOCUMENT = {"count": 774_319_815_073, "orbits": [{"representative": [["1/26", "5/13"]], "size": 7}], "n": "7"}


def test_a_gzip_file_reads_as_its_plain_text(tmp_path):
    text = json.dumps(DOCUMENT)
    packed = gzip_bytes(text)
    assert packed[:2] == b"\x1f\x8b" and gzip.decompress(packed).decode("utf-8") == text
    (tmp_path / "c.json.gz").write_bytes(packed)
    assert read_json(tmp_path / "c.json.gz") == read_json(text.encode("utf-8")) == DOCUMENT
    assert read_json(packed) == DOCUMENT


def test_the_same_text_always_packs_to_the_same_bytes():
    """No time stamp in the header: a census written twice is byte-identical, so the writer can
    compare the file on disk with what it checked."""
    assert gzip_bytes("{}") == gzip_bytes("{}") and gzip_bytes("{}")[4:8] == b"\x00\x00\x00\x00"


@pytest.mark.parametrize(("damage", "says"), [
    (lambda b: b[: len(b) // 2], "not one whole gzip stream"),
    (lambda b: b + b"more", "not one whole gzip stream"),
    (lambda b: b[:10] + bytes(x ^ 0xFF for x in b[10:20]) + b[20:], "not a readable gzip stream"),
])
def test_a_damaged_stream_is_refused(damage, says):
    with pytest.raises(FileFormatError, match=says):
        read_json(damage(gzip_bytes(json.dumps(DOCUMENT))))


def test_a_stream_that_unpacks_beyond_the_input_limit_is_refused(monkeypatch):
    """A small file can unpack to gigabytes: the unpacking stops one byte past the limit."""
    monkeypatch.setattr(qifkit.files, "MAX_INPUT_BYTES", 1000)
    bomb = gzip.compress(b" " * 100_000 + b"{}")
    assert len(bomb) < 1000
    with pytest.raises(FileFormatError, match="unpacks to more than 1,000 bytes"):
        read_json(bomb)
    assert read_json(gzip.compress(b" " * 900 + b"{}")) == {}


def test_a_gzip_of_something_else_is_refused_as_json():
    with pytest.raises(FileFormatError, match="is not JSON"):
        read_json(gzip_bytes("not json"))
