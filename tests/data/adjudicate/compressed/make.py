#!/usr/bin/env python3
"""Makes the compressed fixtures of issue 28 item 4 from ../round.pgn (10 games), byte for byte
the same on every run: python3 tests/data/adjudicate/compressed/make.py (needs the zstd command).

- round.pgn.zst, round.pgn.gz, round.pgn.bz2, round.zip (one member, round.pgn): the round,
  compressed each way;
- round-two-members.pgn.gz: games 1-5 and 6-10 as two gzip members, one after the other;
- rounds.zip: members round-a.pgn (games 1-5), README (not PGN) and round-b.pgn (games 6-10),
  deflated, their sizes in their local headers (readable from standard input);
- rounds-data-descriptor.zip: the same members written as a stream, each with a data descriptor
  (bit 3: the sizes follow the data), which only a zip read as a file can read;
- round-cut.pgn.zst: games 1-5 and 6-10 as two zstd frames, cut in the middle of the second;
- rounds-with-image.zip: round-a.pgn (games 1-5), photo.pgn (a PNG image misnamed .pgn) and
  round-b.pgn (games 6-10): the image is refused as not text, the rounds read;
- round-bad-checksum.pgn.gz: the round in stored (uncompressed) deflate blocks, board 5.1's
  `1-0` changed to `0-1` inside them: it decodes, and fails its CRC-32 at the end;
- readme-only.zip: a zip of one member, README, and no .pgn member;
- round-encrypted.zip: round.zip with its member marked encrypted (general purpose flag bit 0,
  APPNOTE 4.4.4, in the local and the central header; the data is not really encrypted, so the
  file is the same on every run): a reader asks for the password.
"""

import bz2
import gzip
import io
import pathlib
import subprocess
import zipfile

HERE = pathlib.Path(__file__).resolve().parent
ROUND = (HERE.parent / "round.pgn").read_bytes()
# Games 6-10 start at the sixth "[Event" line: line 56.
SPLIT = ROUND.index(b'[Event "Fixture Open"]', ROUND.index(b"\n", 0) + 1)
for _ in range(4):
    SPLIT = ROUND.index(b'[Event "Fixture Open"]', SPLIT + 1)
FIRST, SECOND = ROUND[:SPLIT], ROUND[SPLIT:]
README = b"Round 5 of the Fixture Open: games of boards 1-5 and 6-10.\n"
DATE = (2026, 1, 1, 0, 0, 0)
# The start of a PNG image: its signature and an IHDR chunk of a 1x1 picture.
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"


def gz(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9, mtime=0)


def zipped(members, stream: bool) -> bytes:
    class Unseekable(io.RawIOBase):
        """A write-only stream: zipfile then writes a data descriptor after each member."""

        def __init__(self):
            self.data = bytearray()

        def writable(self):
            return True

        def write(self, b):
            self.data += b
            return len(b)

    out = Unseekable() if stream else io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return bytes(out.data) if stream else out.getvalue()


def bad_checksum() -> bytes:
    data = bytearray(gzip.compress(ROUND, compresslevel=0, mtime=0))
    at = data.index(b'[Result "1-0"]')
    data[at + 9 : at + 12] = b"0-1"
    return bytes(data)


def marked_encrypted(archive: bytes) -> bytes:
    data = bytearray(archive)
    local = data.index(b"PK\x03\x04")
    central = data.index(b"PK\x01\x02")
    data[local + 6] |= 1
    data[central + 8] |= 1
    return bytes(data)


def zstd(data: bytes) -> bytes:
    return subprocess.run(
        ["zstd", "-19", "-q", "-c", "--no-check"], input=data, capture_output=True, check=True
    ).stdout


def main():
    zst = zstd(ROUND)
    second = zstd(SECOND)
    files = {
        "round.pgn.zst": zst,
        "round.pgn.gz": gz(ROUND),
        "round.pgn.bz2": bz2.compress(ROUND, compresslevel=9),
        "round.zip": zipped([("round.pgn", ROUND)], stream=False),
        "round-two-members.pgn.gz": gz(FIRST) + gz(SECOND),
        "rounds.zip": zipped(
            [("round-a.pgn", FIRST), ("README", README), ("round-b.pgn", SECOND)], stream=False
        ),
        "rounds-data-descriptor.zip": zipped(
            [("round-a.pgn", FIRST), ("README", README), ("round-b.pgn", SECOND)], stream=True
        ),
        "round-cut.pgn.zst": zstd(FIRST) + second[: len(second) // 2],
        "round-bad-checksum.pgn.gz": bad_checksum(),
        "readme-only.zip": zipped([("README", README)], stream=False),
        "round-encrypted.zip": marked_encrypted(zipped([("round.pgn", ROUND)], stream=False)),
        "rounds-with-image.zip": zipped(
            [("round-a.pgn", FIRST), ("photo.pgn", PNG), ("round-b.pgn", SECOND)], stream=False
        ),
    }
    for name, data in files.items():
        (HERE / name).write_bytes(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
