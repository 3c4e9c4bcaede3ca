"""The one I/O layer: every file the engine reads or writes goes through here.

* **Reading** (`read_bytes`, `read_text`): a missing, unreadable or undecodable file is a
  `TestsuiteError` naming the file (and the line of a bad byte), never a traceback.
* **YAML limits** (`check_yaml`): libyaml builds nested nodes recursively in C, so a
  document nested 50,000 levels deep crashes the interpreter, and aliases can expand a few
  kilobytes into billions of nodes ("billion laughs"). Every YAML text is checked on its
  event stream (flat, cheap: about a fifth of the cost of loading) before it is loaded.
* **Writing** (`write_text`, `write_bytes`): atomic (a temporary file in the same folder,
  flushed, then renamed over the target), so a reader or a killed process never sees half a
  file. A new file gets the mode the user's umask gives (0644 usually), a rewritten file keeps
  its mode, so a shared ``verdicts.yaml`` stays readable by the whole team. A write that fails
  (no permission, a directory in the way, a full disk) is one message naming the path.
* **Locks** (`lock`): an exclusive lock beside the file (``filelock``, which works with
  ``fcntl`` and on Windows), kept in a ``.testsuite/`` folder with its own ``.gitignore`` so
  that it is never committed. Waiting gives up after a time with a message naming the holder.
* **Paths from names** (`safe_name`, `join`, `inside`): names that come from data (a
  language pair in a JSON file, a system name) become file names only when they are one
  plain path component, and every path written is checked to lie inside the folder the user
  named.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import getpass
import json
import os
import re
import socket
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from .errors import Problem, TestsuiteError

#: Deepest nesting of YAML collections accepted. Suites nest four levels; templates a few more.
MAX_YAML_DEPTH = 64
#: Most nodes a YAML document may expand to, aliases counted at their expanded size.
MAX_YAML_NODES = 2_000_000
#: Seconds to wait for a lock before giving up with a message.
LOCK_TIMEOUT = 30.0
#: Folder beside a locked file that holds its lock (ignored by git, see `lock`).
LOCK_FOLDER = ".testsuite"
#: Largest file read (outputs, sources, saved runs): a WMT hypothesis file with the
#: test suites is under 2 MB, a whole WMT test set of a few thousand lines a few MB, so this
#: is far above any real input and far below what would exhaust memory.
MAX_FILE_BYTES = 256 * 2**20
#: Largest suite, rules or verdicts file (YAML), DFKI JSON and id list: the DFKI suite is
#: 1.7 MB (an id list of a suite is shorter than the suite).
MAX_SUITE_BYTES = 64 * 2**20

_UTF8 = ("utf8", "utf8sig")


def is_utf8(encoding: str) -> bool:
    """Whether an encoding name (as a user writes it: UTF-8, utf_8, utf-8-sig) is UTF-8."""
    return encoding.replace("-", "").replace("_", "").lower() in _UTF8


# --------------------------------------------------------------------------------------------
# Reading


def _megabytes(size: int) -> str:
    return f"{size / 2**20:,.0f} MB" if size >= 2**20 else f"{size:,} bytes"


def _kind(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
             (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
             (stat.S_ISSOCK, "a socket"))
    return next((what for test, what in kinds if test(mode)), "not a regular file")


@contextlib.contextmanager
def open_regular(path: Path, limit: int = MAX_FILE_BYTES) -> Iterator[BinaryIO]:
    """Open a file for reading in binary, only if it is a regular file within `limit` bytes.

    Opened without blocking and checked on the open descriptor (not by name first), so that
    a named pipe, ``/dev/zero`` or a terminal is refused at once instead of blocking or
    filling memory, and a file swapped for one between a check and the open cannot slip
    through. The size is checked before anything is read (a sparse 2 GB file is refused
    without reading it); reading through the returned handle must still stop at `limit`
    (see `read_bytes`), since a file can grow while it is read.

    Raises:
        TestsuiteError: naming the file and why it is refused or cannot be read.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise TestsuiteError(Problem(f"cannot read: {reason(exc)}", file=str(path))) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise TestsuiteError(Problem(f"cannot read: it is {_kind(info.st_mode)}, not a "
                                         "regular file", file=str(path)))
        if info.st_size > limit:
            size, most = _megabytes(info.st_size), _megabytes(limit)
            if size == most:  # "the file is 1 MB, more than the 1 MB" said nothing
                size, most = f"{info.st_size:,} bytes", f"{limit:,} bytes"
            raise TestsuiteError(Problem(
                f"refused: the file is {size}, more than the {most} this kind of file may "
                "have", file=str(path)))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with handle:
        yield handle


def read_bytes(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (see `open_regular`).

    Raises:
        TestsuiteError: naming the file and why it cannot be read.
    """
    with open_regular(path, limit) as handle:
        return read_limited(handle, str(path), limit)


def read_limited(handle: BinaryIO, name: str, limit: int) -> bytes:
    """Everything an open file or stream (standard input) holds, up to `limit` bytes.

    Raises:
        TestsuiteError: naming `name` when it holds more, or cannot be read.
    """
    try:
        data = handle.read(limit + 1)
    except OSError as exc:
        raise TestsuiteError(Problem(f"cannot read: {reason(exc)}", file=name)) from None
    if len(data) > limit:
        raise TestsuiteError(Problem(f"refused: the file is more than the {_megabytes(limit)} "
                                     "this kind of file may have", file=name))
    return data


def decode(data: bytes, path: Path | str, encoding: str = "utf-8", keep_bom: bool = False,
           hint: str = "save the file as UTF-8", first_line: int = 1) -> str:
    """Decode file content, naming the file, line and byte of an invalid sequence.

    A UTF-8 byte-order mark is dropped unless `keep_bom` (for rewriting a file as it was).
    Lines and columns are counted as an editor shows them (after the mark). Text that
    decodes to a lone surrogate (UTF-7 can) is refused here: no file, terminal or report
    could write it later.

    Args:
        data: The bytes: a whole file, or some of its lines.
        path: The file, for messages.
        encoding: Its encoding.
        keep_bom: Keep a byte-order mark as the character it is.
        hint: What to do about a bad byte.
        first_line: The line of the file that `data` starts with.
    """
    utf8 = is_utf8(encoding)
    if utf8:
        encoding = "utf-8" if keep_bom else "utf-8-sig"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        # Positions are in what the decoder saw: after a byte-order mark it dropped.
        seen = bytes(exc.object)
        line = seen[: exc.start].count(b"\n") + first_line
        column = exc.start - (seen.rfind(b"\n", 0, exc.start) + 1) + 1
        name = "UTF-8" if utf8 else encoding.upper()
        raise TestsuiteError(Problem(
            f"line {line} is not valid {name} (byte 0x{seen[exc.start]:02x} at column "
            f"{column}); {hint}", file=str(path), line=line)) from None
    except LookupError:
        check_encoding(encoding)  # names it
        raise
    if not utf8:  # UTF-8 never decodes to a surrogate; UTF-7 and others may
        check_surrogates(text, path, first_line=first_line)
    return text


#: A lone surrogate: half of a UTF-16 pair, which no UTF-8 file or terminal can hold.
_SURROGATE = re.compile("[\ud800-\udfff]")


def check_surrogates(text: str, path: Path | str, item: str | None = None,
                     first_line: int = 1) -> str:
    """`text`, or a message naming the line of the first lone surrogate in it.

    Args:
        text: Text read from `path`.
        path: The file, for messages.
        item: The item the text belongs to, named instead of a line.
        first_line: The line of the file that `text` starts with.

    Raises:
        TestsuiteError: if `text` holds a lone surrogate.
    """
    found = _SURROGATE.search(text)
    if found is not None:
        line = text.count("\n", 0, found.start()) + first_line
        raise TestsuiteError(Problem(
            f"holds a lone surrogate (U+{ord(found.group()):04X}), half of a character that "
            "no file can store; fix the text or its encoding", file=str(path),
            line=line if item is None else None, item=item))
    return text


def check_encoding(encoding: str) -> str:
    """The name of a text encoding Python knows, or a message naming the unknown one.

    Checked before reading, so that an empty file (never decoded) does not let a misspelt
    encoding through to a reader that encodes with it.
    """
    import codecs

    try:
        info = codecs.lookup(encoding)
    except (LookupError, TypeError, ValueError):
        info = None
    # rot13 or hex are codecs but not text encodings: bytes.decode refuses them.
    if info is None or not getattr(info, "_is_text_encoding", True):
        raise TestsuiteError(f"unknown encoding {encoding!r} (for example utf-8, latin-1, "
                             "cp1252, utf-16)")
    return encoding


def read_text(path: Path, encoding: str = "utf-8", keep_bom: bool = False,
              limit: int = MAX_FILE_BYTES) -> str:
    """Read a text file (UTF-8 by default), with a clear message on a bad byte.

    Args:
        path: The file.
        encoding: Its encoding.
        keep_bom: Keep a byte-order mark as the character it is (for editing a file in
            place); by default it is dropped.
        limit: The most bytes the file may have (see `open_regular`).
    """
    return decode(read_bytes(path, limit), path, encoding, keep_bom)


def read_json(path: Path, limit: int = MAX_FILE_BYTES) -> object:
    """Read a JSON file; a syntax error names the file and line.

    A ``\\ud800``-style escape that decodes to a lone surrogate is refused like a bad byte.
    """
    return parse_json(read_text(path, limit=limit), path)


def parse_json(text: str, path: Path | str) -> object:
    """Parse JSON text read from `path`, with the messages of `read_json`."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TestsuiteError(Problem(f"not valid JSON: {exc.msg} (column {exc.colno})",
                                     file=str(path), line=exc.lineno)) from None
    except RecursionError:
        raise TestsuiteError(Problem("not usable JSON: nested too deeply",
                                     file=str(path))) from None
    if SURROGATE_ESCAPE.search(text):  # rare: only then is every string looked at
        check_json_surrogates(data, path)
    return data


#: A JSON escape of a surrogate (paired ones are fine, so the strings are checked after).
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def check_json_surrogates(value: object, path: Path | str, line: int | None = None) -> None:
    """Refuse loaded JSON whose strings (keys included) hold a lone surrogate.

    Raises:
        TestsuiteError: naming the file (and `line`, for JSON lines).
    """
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            stack.extend(current.keys())
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
        elif isinstance(current, str) and _SURROGATE.search(current):
            found = _SURROGATE.search(current)
            assert found is not None
            raise TestsuiteError(Problem(
                f"holds a lone surrogate (\\u{ord(found.group()):04x}), half of a character "
                "that no file can store", file=str(path), line=line))


# --------------------------------------------------------------------------------------------
# YAML limits


def check_yaml(text: str, path: Path | str) -> None:
    """Refuse YAML nested too deeply or expanding to too many nodes, before it is loaded.

    Walks the event stream (which libyaml produces without recursion), counting collection
    depth and the size of every anchored node, so that each alias counts as the nodes it
    stands for.

    Raises:
        TestsuiteError: naming the file and the line where a limit was passed; syntax errors
            are left to the loader, which reports them with their line.
    """
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    depth = 0
    total = 0
    sizes: dict[str, int] = {}
    open_nodes: list[tuple[str | None, int]] = []  # (anchor, total when it started)
    try:
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_YAML_DEPTH:
                    _too_big(path, event, f"is nested more than {MAX_YAML_DEPTH} levels deep")
                open_nodes.append((event.anchor, total))
                total += 1
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
                anchor, start = open_nodes.pop()
                if anchor is not None:
                    sizes[anchor] = total - start
            elif isinstance(event, yaml.ScalarEvent):
                total += 1
                if event.anchor is not None:
                    sizes[event.anchor] = 1
            elif isinstance(event, yaml.AliasEvent):
                total += sizes.get(event.anchor or "", 1)
            if total > MAX_YAML_NODES:
                _too_big(path, event, f"holds more than {MAX_YAML_NODES:,} values (an "
                         "alias counting as every value it repeats)")
    except yaml.YAMLError as exc:
        # libyaml 0.2.5 and PyYAML 6.0.3+ stop at their own nesting limit (1,000 levels in
        # flow collections) before the depth check above sees level 65 of a deep flow; it is
        # the same refusal.
        if "nesting depth" in str(exc):
            _too_big(path, exc, f"is nested more than {MAX_YAML_DEPTH} levels deep")
        return  # the loader reports the syntax error with its line


def _too_big(path: Path | str, event: object, what: str) -> None:
    mark = getattr(event, "start_mark", None) or getattr(event, "problem_mark", None)
    line = mark.line + 1 if mark is not None else None
    raise TestsuiteError(Problem(f"refused: the YAML {what}", file=str(path), line=line))


# --------------------------------------------------------------------------------------------
# Writing


def reason(exc: OSError) -> str:
    """What went wrong with a file operation, in words."""
    if exc.errno == errno.ENOSPC:
        return "the disk is full"
    if exc.errno == errno.EISDIR:
        return "it is a folder"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.EROFS:
        return "read-only file system"
    if exc.errno in (errno.ENOTDIR, errno.EEXIST):  # EEXIST: mkdir where a file is
        return "a part of the path is a file, not a folder"
    return exc.strerror or str(exc)


def umask() -> int:
    """The process's umask (the mode bits new files do not get)."""
    # The umask can only be read by setting it; set it back at once.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_bytes(path: Path, data: bytes, *, inside_of: Path | None = None,
                private: bool = False) -> Path:
    """Write a file atomically, creating its folder; readers see the old or the new file.

    The new content goes to a temporary file in the same folder, is flushed to disk, and
    replaces the target in one `os.replace` (atomic on POSIX and Windows). A rewritten file
    keeps its mode; a new one gets the mode the umask gives to any new file.

    Args:
        path: The file.
        data: Its content.
        inside_of: If given, the folder the user named: `path` must lie inside it.
        private: Readable and writable by the user only (mode 0600, a new folder 0700),
            whatever the umask: for caches, which others must not be able to change.

    Returns:
        The path written.

    Raises:
        TestsuiteError: naming the path and the reason when it cannot be written.
    """
    path = Path(path)
    if inside_of is not None:
        inside(inside_of, path)
    target = _write_target(path)
    tmp = _write_aside(target, data, private)
    with _discarded_on_failure(tmp, path):
        os.replace(tmp, target)
    return path


def _write_target(path: Path) -> Path:
    """The file that a write of `path` replaces: a regular file, or none yet.

    Through a link of your own, it is the file the link points to, as any editor writes: a
    ``verdicts.yaml`` linked to a team's shared copy gets the decisions there (replacing the
    link with a file of its own left the team's file without them, silently). A link made
    by another user is refused, not followed: whoever can write a shared folder could
    otherwise point a name there at any file of yours (the kernel's rule for links in shared
    folders, ``fs.protected_symlinks``). A target that is not a regular file is refused too:
    the new file is swapped in by renaming, and renamed over a device (``--out /dev/null``)
    or a named pipe it would replace the device itself where the folder is writable
    (``/dev`` for root). A link that points nowhere is replaced by the file.

    Raises:
        TestsuiteError: naming `path` when it is, or points to, something other than a
            regular file or a folder (a folder is refused by `_write_aside`), or is a link
            of another user's.
    """
    target = path
    for _ in range(40):  # the kernel's own limit of links in a row
        try:
            link = target.lstat()
        except OSError:  # nothing there yet, or not reachable: the write itself will say
            break
        if not stat.S_ISLNK(link.st_mode):
            break
        if hasattr(os, "geteuid") and link.st_uid not in (os.geteuid(), 0):
            raise TestsuiteError(Problem(
                f"cannot write: {target} is a link made by another user, which is not "
                "followed (write to the file it points to, or remove the link)",
                file=str(path)))
        target = target.parent / os.readlink(target)
    else:
        raise TestsuiteError(Problem("cannot write: too many levels of links", file=str(path)))
    try:
        mode = target.stat().st_mode
    except OSError:
        return path  # a link that points nowhere: replaced
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise TestsuiteError(Problem(f"cannot write: it is {_kind(mode)}, not a regular file "
                                     "(name a file to write)", file=str(path)))
    return target


@contextlib.contextmanager
def _discarded_on_failure(tmp: str, path: Path) -> Iterator[None]:
    """Remove the temporary file `tmp` if the block fails; an `OSError` becomes one message
    naming `path` (what the user asked to write)."""
    try:
        yield
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise TestsuiteError(Problem(f"cannot write: {reason(exc)}",
                                         file=str(path))) from None
        raise


def _write_aside(path: Path, data: bytes, private: bool = False) -> str:
    """Write `data` to a new temporary file beside `path`, flushed to disk, with the mode
    `path` has (or will have); returns its name. Nothing is left behind on failure."""
    try:
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
        path.parent.mkdir(mode=0o700 if private else 0o777, parents=True, exist_ok=True)
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            mode = 0o666 & ~umask()
        if private:
            mode = 0o600
        remove_stale_temporaries(path.parent, path.name)
        fd, tmp = tempfile.mkstemp(prefix=temporary_prefix(path.name), suffix=TEMP_SUFFIX,
                                   dir=path.parent)
    except OSError as exc:
        raise TestsuiteError(Problem(f"cannot write: {reason(exc)}", file=str(path))) from None
    with _discarded_on_failure(tmp, path):
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
    return tmp


def write_all(contents: dict[Path, bytes]) -> None:
    """Write several files all or none: every new content is written aside first, and only
    when all are on disk are they swapped in.

    A failure while writing aside (a folder that cannot be written, a full disk) changes no
    file. Each swap is one `os.replace`; should one fail after others were done, those are
    put back as they were. The caller holds the files' locks (`lock`), so that nobody
    changes them in between.

    Raises:
        TestsuiteError: naming the file that could not be written; no file is changed.
    """
    written: dict[Path, str] = {}
    try:
        for path, data in contents.items():
            target = _write_target(Path(path))
            written[target] = _write_aside(target, data)
    except BaseException:
        for tmp in written.values():
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
    before: dict[Path, bytes | None] = {}
    current = next(iter(written), Path())
    try:
        for current in written:
            before[current] = current.read_bytes() if current.exists() else None
        swapped: list[Path] = []
        try:
            for path, tmp in written.items():
                current = path
                os.replace(tmp, path)
                swapped.append(path)
        except BaseException:
            for path in swapped:  # put back what was swapped already
                with contextlib.suppress(OSError, TestsuiteError):
                    old = before[path]
                    if old is None:
                        path.unlink()
                    else:
                        write_bytes(path, old)
            raise
    except OSError as exc:
        raise TestsuiteError(Problem(f"cannot write: {reason(exc)}",
                                     file=str(current))) from None
    finally:
        for tmp in written.values():
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def write_text(path: Path, text: str, *, inside_of: Path | None = None,
               private: bool = False) -> Path:
    """Write a UTF-8 text file atomically (see `write_bytes`).

    Raises:
        TestsuiteError: also for text that UTF-8 cannot hold (a lone surrogate), naming the
            path and the line; nothing is written then.
    """
    return write_bytes(path, encode_text(text, path), inside_of=inside_of, private=private)


def encode_text(text: str, path: Path | str) -> bytes:
    """`text` as UTF-8 for the file `path`; a lone surrogate is a message naming its line.

    Raises:
        TestsuiteError: for text that UTF-8 cannot hold.
    """
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        check_surrogates(text, path)  # names the line
        raise


# --------------------------------------------------------------------------------------------
# Temporary files of interrupted writes

#: Ending of the temporary files of atomic writes (and of saved runs being written).
TEMP_SUFFIX = ".tmp"


def host_tag() -> str:
    """This host's name as it appears in the names of temporary files."""
    # A host name without the characters that separate the parts of a temporary name.
    return "".join(c if c.isalnum() or c == "-" else "_" for c in socket.gethostname())[:40]


def temporary_prefix(name: str) -> str:
    """The start of the name of a temporary file (or folder) written beside `name`.

    ``.<name>.<process>@<host>.``: a write killed before it could clean up (SIGKILL, a power
    cut) leaves its temporary file behind, and the process and host in the name tell the
    next write — or `lint` — whether the writer is still running (`stale_temporaries`).
    """
    return f".{name}.{os.getpid()}@{host_tag()}."


#: Age beyond which a temporary file of another host is taken as left behind (its process
#: cannot be asked from here; no write takes this long).
FOREIGN_STALE_SECONDS = 24 * 3600.0


def process_running(pid: int) -> bool:
    """Whether a process of this host with this id is running."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):  # another user's process: it exists
        return True
    return True


def stale_temporaries(folder: Path, name: str | None = None) -> list[Path]:
    """Temporary files (and folders) of atomic writes in `folder` whose writer has ended.

    Args:
        folder: Where to look.
        name: Only those of this file (default: of any file).

    A temporary of this host is stale when the process named in it is not running; one of
    another host (a shared folder) when it is older than `FOREIGN_STALE_SECONDS`.
    """
    import time

    try:
        entries = [entry for entry in os.scandir(folder)
                   if entry.name.startswith(".") and entry.name.endswith(TEMP_SUFFIX)]
    except OSError:
        return []
    found = []
    here = host_tag()
    for entry in entries:
        stem = entry.name[:-len(TEMP_SUFFIX)]
        base, dot, rest = stem.rpartition(".")  # rest: the random part
        base, dot, owner = base.rpartition(".")
        pid_text, at, host = owner.partition("@")
        if not (dot and at and pid_text.isdigit()):
            continue
        if name is not None and base != f".{name}":
            continue
        if host == here:
            stale = not process_running(int(pid_text))
        else:
            try:
                stale = time.time() - entry.stat(follow_symlinks=False).st_mtime \
                    > FOREIGN_STALE_SECONDS
            except OSError:
                stale = False
        if stale:
            found.append(Path(entry.path))
    return found


def remove_stale_temporaries(folder: Path, name: str | None = None) -> list[Path]:
    """Remove what `stale_temporaries` finds; returns what was removed."""
    return [path for path in stale_temporaries(folder, name) if remove_tree(path)]


def remove_tree(path: Path) -> bool:
    """Remove a file, or a folder with what it holds; a link is removed, never followed.

    Returns:
        Whether it is gone (False if it could not be removed).
    """
    import shutil

    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        pass
    except OSError:
        return False
    return True


# --------------------------------------------------------------------------------------------
# Locks


def tool_folder(folder: Path) -> Path:
    """Create (if need be) a ``.testsuite/`` folder for the tool's own files beside shared
    ones (locks, presence marks, drafts), with a ``.gitignore`` of ``*`` so that a suite kept
    in git never commits them.

    Raises:
        TestsuiteError: naming the folder and why it cannot be created.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TestsuiteError(Problem(f"cannot write: {reason(exc)}", file=str(folder))) from None
    ignore = folder / ".gitignore"
    # lexists: a link that points nowhere is left alone, never written through (it would
    # create a file wherever it points).
    if not os.path.lexists(ignore):
        # The .gitignore only spares a git user a stray commit: a full disk or a refused
        # write is reported by the write the command was run for (naming its file), not
        # here by a file the user never asked for; it is tried again next time.
        with contextlib.suppress(TestsuiteError):
            write_text(ignore, "# files of testsuite (locks, presence); never commit them\n*\n")
    return folder


def lock_path(path: Path) -> Path:
    """Where the lock of `path` lives: ``.testsuite/<name>.lock`` in the same folder."""
    return path.parent / LOCK_FOLDER / f"{path.name}.lock"


@contextlib.contextmanager
def lock(path: Path, timeout: float | None = None) -> Iterator[None]:
    """Hold an exclusive lock for `path` while reading, changing and replacing it.

    The lock file lives in a ``.testsuite/`` folder beside `path`, which gets a
    ``.gitignore`` of ``*`` so that a suite kept in git never commits a lock. While the lock
    is held, its file names the holder (user, host, process, since when), which the message
    of a timed-out wait repeats.

    Args:
        path: The file to lock.
        timeout: Seconds to wait; by default `LOCK_TIMEOUT` (read when called, so that a
            program or a test can change it for every command at once).

    Raises:
        TestsuiteError: when the lock is not free within `timeout` seconds, or the folder
            cannot be written.
    """
    from filelock import FileLock, Timeout

    timeout = LOCK_TIMEOUT if timeout is None else timeout
    where = lock_path(Path(path))
    tool_folder(where.parent)

    def sign(fd: int) -> None:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.write(fd, _holder().encode("utf-8"))

    file_lock = FileLock(where, timeout=timeout, mode=0o666 & ~umask(),
                         preserve_lock_file=True, on_acquired=sign)
    try:
        file_lock.acquire()
    except Timeout:
        raise TestsuiteError(Problem(
            f"waited {timeout:g} s for the lock, held by {_live_holder(where)}; it is freed "
            "when that process ends (the system frees it even if the process is killed): "
            "try again then", file=str(path))) from None
    except OSError as exc:
        raise TestsuiteError(Problem(f"cannot lock: {reason(exc)}", file=str(where))) from None
    try:
        yield
    finally:
        # Unsigned before it is released, so that the file never names a finished holder.
        context = getattr(file_lock, "_context", None)
        fd = getattr(context, "lock_file_fd", None)
        if isinstance(fd, int) and file_lock.lock_counter == 1:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
        file_lock.release()


def _live_holder(where: Path) -> str:
    """Who holds a lock, as its file names them, if that process is running.

    The lock itself is the operating system's (released when its holder ends, however it
    ends); the file only names the holder. It is empty when the holder did not sign it (an
    older version, another tool), and a holder on this host is named only if its process
    is still running.
    """
    holder = ""
    with contextlib.suppress(OSError, UnicodeDecodeError):
        holder = where.read_text(encoding="utf-8").strip()
    match = re.fullmatch(r"(.+)@(.+) \(process (\d+), since (.+)\)", holder)
    if match is None:
        return "another process"
    if match.group(2) == socket.gethostname():
        return holder if process_running(int(match.group(3))) else "another process"
    return f"{holder}, on another host"


def _holder() -> str:
    try:
        user = getpass.getuser()
    except Exception:  # no login name in some containers
        user = "unknown"
    since = dt.datetime.now().astimezone().replace(microsecond=0).isoformat()
    return f"{user}@{socket.gethostname()} (process {os.getpid()}, since {since})"


# --------------------------------------------------------------------------------------------
# Paths from names


def safe_name(name: str, what: str) -> str:
    """A name from data (pair, category, system) that may become one file name.

    Raises:
        TestsuiteError: if it is empty, a path (``/``, ``\\``, ``..``), or holds control
            characters.
    """
    text = str(name)
    bad = (not text.strip() or text in (".", "..") or any(c in text for c in "/\\\0")
           or any(ord(c) < 32 or ord(c) == 127 for c in text))
    if bad:
        raise TestsuiteError(f"{what} {text!r} cannot be used as a file name (it must be one "
                             "plain name, without '/', '\\', '..' or control characters)")
    return text


def inside(root: Path, path: Path) -> Path:
    """Check that `path` lies inside the folder `root` (after resolving links and '..').

    Raises:
        TestsuiteError: naming both when it does not.
    """
    base = Path(root).resolve()
    target = Path(path).resolve()
    if target != base and base not in target.parents:
        raise TestsuiteError(Problem(f"refused to write outside {root}", file=str(path)))
    return Path(path)


def join(root: Path, *names: str, what: str = "name") -> Path:
    """`root` / each name, each checked by `safe_name`, the result checked by `inside`."""
    path = Path(root)
    for name in names:
        path = path / safe_name(name, what)
    return inside(root, path)
