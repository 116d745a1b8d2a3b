"""Hunspell, the spelling checker of LibreOffice and Firefox, through its C API (ctypes).

The library and the dictionaries are Debian's packages (``libhunspell-1.7-0``, ``hunspell-*``:
LibreOffice's dictionaries), installed by the project's set-up (``debian-packages.txt``). This
module only calls the library: a word is accepted or not, and its suggestions come in
Hunspell's own order. Words go in and suggestions come out in the dictionary's own encoding
(most are UTF-8, Polish is ISO 8859-2); a word that encoding cannot write is no word of it.

Hunspell objects are not thread-safe, so each dictionary serializes its calls.
"""

from __future__ import annotations

import codecs
import ctypes
import ctypes.util
import functools
import threading
from pathlib import Path

__all__ = ["Dictionary", "load_library"]

_LIBRARY = "hunspell-1.7"
_CharList = ctypes.POINTER(ctypes.c_char_p)


@functools.cache
def load_library() -> ctypes.CDLL | None:
    """Debian's ``libhunspell-1.7.so.0``, or None when it is not installed."""
    name = ctypes.util.find_library(_LIBRARY) or f"lib{_LIBRARY}.so.0"
    try:
        lib = ctypes.CDLL(name)
    except OSError:
        return None
    lib.Hunspell_create.restype = ctypes.c_void_p
    lib.Hunspell_create.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    lib.Hunspell_get_dic_encoding.restype = ctypes.c_char_p
    lib.Hunspell_get_dic_encoding.argtypes = [ctypes.c_void_p]
    lib.Hunspell_spell.restype = ctypes.c_int
    lib.Hunspell_spell.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.Hunspell_suggest.restype = ctypes.c_int
    lib.Hunspell_suggest.argtypes = [ctypes.c_void_p, ctypes.POINTER(_CharList), ctypes.c_char_p]
    lib.Hunspell_free_list.restype = None
    lib.Hunspell_free_list.argtypes = [ctypes.c_void_p, ctypes.POINTER(_CharList), ctypes.c_int]
    return lib


def _codec(name: str) -> str:
    """Python's codec for a dictionary's ``SET`` line (``UTF-8``, ``ISO8859-2``, ``KOI8-R``)."""
    try:
        return codecs.lookup(name).name
    except LookupError:
        return codecs.lookup(name.rsplit("-", 1)[-1]).name  # microsoft-cp1251 -> cp1251


class Dictionary:
    """One Hunspell dictionary (an ``.aff`` and ``.dic`` pair), loaded once per process."""

    def __init__(self, lib: ctypes.CDLL, dic: Path) -> None:
        self.name = dic.stem
        self._lib = lib
        aff = dic.with_suffix(".aff")
        self._handle = lib.Hunspell_create(bytes(aff), bytes(dic))
        self._encoding = _codec(lib.Hunspell_get_dic_encoding(self._handle).decode("ascii"))
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Dictionary({self.name})"

    def _encode(self, word: str) -> bytes | None:
        try:
            data = word.encode(self._encoding)
        except UnicodeEncodeError:
            return None
        return None if b"\0" in data else data

    def spell(self, word: str) -> bool:
        """Whether the dictionary accepts ``word`` exactly as written."""
        data = self._encode(word)
        if data is None or not data:
            return False
        with self._lock:
            return bool(self._lib.Hunspell_spell(self._handle, data))

    def suggest(self, word: str) -> tuple[str, ...]:
        """Hunspell's suggestions for ``word``, best first (tens of milliseconds: cache them)."""
        data = self._encode(word)
        if data is None or not data:
            return ()
        found = _CharList()
        with self._lock:
            count = self._lib.Hunspell_suggest(self._handle, ctypes.byref(found), data)
            try:
                raw = [found[i] for i in range(count)]
            finally:
                self._lib.Hunspell_free_list(self._handle, ctypes.byref(found), count)
        return tuple(item.decode(self._encoding, "replace") for item in raw if item is not None)
