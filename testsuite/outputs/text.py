"""Reading text files of MT outputs line by line, robust to what real files contain."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from ..errors import Problem, TestsuiteError
from ..files import MAX_FILE_BYTES, decode, is_utf8, open_regular, read_bytes

BOM = b"\xef\xbb\xbf"
ENCODING_HINT = ("convert the file to UTF-8 (e.g. `iconv -f latin1 -t utf-8`) or pass its "
                 "encoding with --encoding")


#: Bytes looked at to tell UTF-16 from UTF-8 (a few lines).
_SNIFF = 4096


def utf16_encoding(data: bytes) -> str | None:
    """The UTF-16 encoding that `data` (the start of a file) looks like, or None.

    A UTF-16 byte-order mark says ``utf-16``. Without one, text that is mostly ASCII (as MT
    outputs and ids in European languages are) has a NUL byte every other byte: after each
    character in little-endian, before it in big-endian. Such bytes are valid UTF-8, so
    read as UTF-8 they gave NUL-riddled ids and outputs instead of an error.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    sample = data[:_SNIFF]
    pairs = len(sample) // 2
    if pairs < 4:
        return None
    even, odd = sample[0:pairs * 2:2].count(0), sample[1:pairs * 2:2].count(0)
    if odd >= 0.4 * pairs and even <= 0.05 * pairs:
        return "utf-16le"
    if even >= 0.4 * pairs and odd <= 0.05 * pairs:
        return "utf-16be"
    return None


def refuse_utf16(data: bytes, path: Path, encoding: str) -> None:
    """Refuse a UTF-16 file read as UTF-8, saying which encoding to pass (`utf16_encoding`).

    Raises:
        TestsuiteError: naming the file and ``--encoding utf-16`` (or -le/-be).
    """
    if not is_utf8(encoding):
        return
    found = utf16_encoding(data)
    if found:
        raise TestsuiteError(Problem(
            f"the file is {found.upper()}, not UTF-8: pass --encoding {found}, or convert "
            f"it with `iconv -f {found} -t utf-8`", file=str(path), line=1))


def read_lines(path: Path, encoding: str = "utf-8", limit: int = MAX_FILE_BYTES) -> list[str]:
    """Read a file as one string per line.

    A UTF-8 byte-order mark is dropped, CRLF line ends are accepted, and a final
    newline does not add an empty line. A lone CR inside a line is kept (it is part of that
    output, not a line end). Lines are split on ``\\n`` only: splitting on every
    Unicode line separator (as `str.splitlines` does) would shift the lines of files whose
    outputs contain U+2028 or U+0085 and misalign every later output.

    Args:
        path: The file.
        encoding: Its encoding; UTF-8 unless the user says otherwise.
        limit: The most bytes the file may have (`files.read_bytes`).

    Raises:
        TestsuiteError: naming the file and the first line that cannot be decoded.
    """
    data = read_bytes(path, limit)
    refuse_utf16(data, path, encoding)
    text = decode(data, path, encoding, hint=ENCODING_HINT)
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def read_selected_lines(path: Path, wanted: dict[str, int], expected: int,
                        encoding: str = "utf-8") -> tuple[int, dict[str, str]]:
    """Read only some lines of a large line-aligned file (a WMT hypothesis file).

    Same rules as `read_lines` (BOM, CRLF, final newline, ``\n`` only), but lines are cut
    as bytes and only the wanted ones are decoded: a WMT file has ~19,000 lines of which the
    suite needs ~2,700. Cutting bytes at ``\n`` is safe for UTF-8 and every other
    ASCII-compatible encoding; for others (UTF-16, …) the whole file is decoded.

    Args:
        path: The file.
        wanted: 0-based line index per key.
        expected: The number of lines the file must have; if it has another number, only
            the count is returned (the caller reports the misalignment).
        encoding: The file's encoding.

    Returns:
        (number of lines, the wanted lines by key — empty if the count is not `expected`).

    Raises:
        TestsuiteError: if a wanted line cannot be decoded, naming file and line.
    """
    if "\n".encode(encoding, errors="ignore") != b"\n":
        lines = read_lines(path, encoding)
        if len(lines) != expected:
            return len(lines), {}
        return len(lines), {key: lines[index] for key, index in wanted.items()}
    by_index: dict[int, list[str]] = {}
    for key, index in wanted.items():
        by_index.setdefault(index, []).append(key)
    raw: dict[int, bytes] = {}
    count = 0
    # Read line by line: memory grows with the lines kept, not with the file.
    with open_regular(path) as handle:
        for count, line in enumerate(_limited(handle, path), start=1):
            if count == 1:
                refuse_utf16(line, path, encoding)
                if line.startswith(BOM):
                    line = line[len(BOM):]
            if count - 1 in by_index:
                raw[count - 1] = line
    # A final newline ends the last line and starts no other, as in `read_lines`.
    if count != expected:
        return count, {}
    selected = {}
    for index, keys in by_index.items():
        line = raw[index].removesuffix(b"\n")
        if line.endswith(b"\r"):
            line = line[:-1]
        # As `read_lines` decodes: the same messages, lone surrogates (UTF-7) refused too.
        text = decode(line, path, encoding, keep_bom=True, hint=ENCODING_HINT,
                      first_line=index + 1)
        for key in keys:
            selected[key] = text
    return count, selected


def _limited(handle: BinaryIO, path: Path) -> Iterator[bytes]:
    """The lines of an open file, refusing more than `MAX_FILE_BYTES` (a growing file)."""
    total = 0
    for line in handle:
        total += len(line)
        if total > MAX_FILE_BYTES:
            raise TestsuiteError(Problem("refused: the file grew past the limit while it "
                                         "was read", file=str(path)))
        yield line
