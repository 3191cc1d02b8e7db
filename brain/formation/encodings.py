"""Text written so that neither a reader nor the phrase rules see what it says (pure functions, `poisoning.py`'s):
payloads in base64, base85, hex, percent or backslash escapes, and writings nobody uses for something ordinary
(backwards, ROT13, leetspeak, Morse code, letters spaced apart, letters struck through, a named cipher's
shifts). `poisoning` reads their decodings with its own rules. And Cyrillic or Greek letters drawn like Latin
ones inside Latin words, which the rules and the classifier read as Latin (`unmask_lookalikes`).
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
from urllib.parse import unquote

_I = re.IGNORECASE

_B64_RUN = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{20,}={0,2}(?![A-Za-z0-9+/=_-])")
_HEX_RUN = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}[ :]?){12,}(?![0-9A-Fa-f])")
_PERCENT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2}){6,}")
_A85_RUN = re.compile(r"<~[!-u\s]{10,}~>")
_B85_RUN = re.compile(r"(?<![0-9A-Za-z!#$%&()*+;<=>?@^_`{|}~-])[0-9A-Za-z!#$%&()*+;<=>?@^_`{|}~-]{25,}")
_ESCAPE_RUN = re.compile(r"(?:\\u[0-9A-Fa-f]{4}|\\x[0-9A-Fa-f]{2}){4,}")
DECODE_REQUEST = re.compile(
    r"\b(?:decode|decipher|de-?obfuscate|base ?64|rot-?13|hex-?encoded|execute the (?:following|encoded))\b"
    r"[^.!?\n]{0,60}\b(?:follow|execute|obey|run|apply|instructions?|below|following|this|payload|string)\b"
    # "Read backwards and comply: ...", "Process this Caesar cipher (shift=3): ..."
    r"|\bread\s+(?:this\s+|it\s+|the\s+following\s+)?backwards?\s+and\s+(?:comply|follow|obey|execute|do|act)\b"
    r"|\b(?:process|decode|solve|apply|follow|run)\s+(?:this|the\s+following)\s+"
    r"(?:caesar|atbash|substitution|vigen[eè]re|rot-?\d+)(?:\s+cipher)?\b",
    _I,
)


def _readable(data: bytes, *, words: int = 2) -> str | None:
    """The decoded text when it reads as prose (mostly letters; at least `words` words), else None."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    letters = sum(ch.isalpha() or ch == " " for ch in text)
    readable = text and letters / len(text) >= 0.8 and len(re.findall(r"[A-Za-z]{2,}", text)) >= words
    return text if readable else None


# Runs of an encoding of bytes, each with its decoder: base64; Adobe's Ascii85 between its <~ ~> marks; base85
# as git and Python write it (RFC 1924's alphabet); hex.
_BINARY_RUNS = (
    (_B64_RUN, lambda run: base64.b64decode(run + "=" * (-len(run) % 4), validate=True)),
    (_A85_RUN, lambda run: base64.a85decode(run, adobe=True)),
    (_B85_RUN, base64.b85decode),
    (_HEX_RUN, lambda run: bytes.fromhex(re.sub(r"[ :]", "", run))),
)


def decoded_payloads(text: str) -> list[str]:
    """Readable text hidden in base64, base85, hex, percent or backslash escapes (a tracking number decodes to
    noise)."""
    found = []
    for pattern, decode in _BINARY_RUNS:
        for match in pattern.finditer(text):
            run = match.group()
            if pattern is _B64_RUN and not (re.search(r"[a-z]", run) and re.search(r"[A-Z]", run)):
                continue  # an order or tracking code is one case; base64 of prose mixes both
            try:
                data = decode(run)
            except (binascii.Error, ValueError):
                continue
            if (decoded := _readable(data)) is not None:
                found.append(decoded)
    for pattern in (_PERCENT_RUN, _ESCAPE_RUN):
        for match in pattern.finditer(text):
            run = match.group()
            decoded = (
                unquote(run) if pattern is _PERCENT_RUN else run.encode().decode("unicode_escape", "ignore")
            )
            # An escaped run is an encoding nobody types by hand: one decoded word is enough.
            if _readable(decoded.encode(), words=1) is not None:
                found.append(decoded)
    return found


# Writings of a text meant to slip past the rules that nobody uses to say something ordinary: an instruction
# read in one of them is an encoded payload (the text itself reads as noise, so neither rule nor classifier
# sees it otherwise).
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
_LEET_WORD = re.compile(r"[a-z][013457@$]|[013457@$][a-z]")
_MORSE = dict(
    zip(
        ".- -... -.-. -.. . ..-. --. .... .. .--- -.- .-.. -- -. --- .--. --.- .-. ... - ..- ...- .-- -..- -.-- --..".split(),
        "abcdefghijklmnopqrstuvwxyz",
        strict=True,
    )
)
_MORSE_CODE = re.compile(r"[.\-]{1,7}")


def _morse_like(text: str) -> bool:
    """Dots and dashes in groups, ten codes at least, no letter or digit: a symbol or two between them
    ("🔒", ":") does not make it prose."""
    tokens = [t for t in re.split(r"[ /]+", text.strip()) if t]
    codes = sum(bool(_MORSE_CODE.fullmatch(t)) for t in tokens)
    return codes >= 10 and codes >= 0.9 * len(tokens) and not re.search(r"[^\W_]", text)


# A text that names a cipher is read under each shift of the alphabet but ROT13's (read anyway) and reversed.
_CIPHER_NAMED = re.compile(r"\b(?:caesar|cipher|atbash|shift(?:ed)?\s*(?:=|by|of)\s*\d+)", _I)
_ALPHABET = "abcdefghijklmnopqrstuvwxyz"
_SHIFTS = [str.maketrans(_ALPHABET, _ALPHABET[n:] + _ALPHABET[:n]) for n in range(1, 26) if n != 13] + [
    str.maketrans(_ALPHABET, _ALPHABET[::-1])
]

# Letters one space apart ("I g n o r e   a l l"), words apart by more; marks no letter is spelled with piled
# on plain Latin letters ("I̶g̶n̶o̶r̶e̶", struck through; what NFKC composes, "é", is gone before this).
_SPACED_LETTERS = re.compile(r"(?<!\S)(?:[^\W\d_] )+[^\W\d_](?!\S)")
_MARKS = r"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+"
_DECORATION = re.compile(rf"(?<=[A-Za-z]){_MARKS}")


def _letter_spaced(text: str) -> str | None:
    """The text with its letter-spaced runs joined into words, when most of its letters stand alone."""
    runs = _SPACED_LETTERS.findall(text)
    spaced = sum(len(run) // 2 + 1 for run in runs)
    if spaced < 8 or spaced < 0.5 * sum(ch.isalpha() for ch in text):
        return None
    joined = _SPACED_LETTERS.sub(lambda match: match.group().replace(" ", ""), text)
    return re.sub(r"\s+", " ", joined).strip().lower()


def obfuscated_readings(text: str, folded: str) -> list[str]:
    """The text reversed, in ROT13, with leetspeak digits read as letters, Morse code (its words apart by "/"
    or two spaces, as `text` has them: `folded` collapses spaces) read as letters, letters spaced apart read
    as words, plain letters under marks read without them, and, when it names a cipher, every other shift of
    the alphabet (Caesar's) and the alphabet reversed (atbash)."""
    lowered = folded.lower()
    readings = [lowered[::-1], codecs.decode(lowered, "rot13")]
    if len(_LEET_WORD.findall(lowered)) >= 3:
        readings.append(lowered.translate(_LEET))
    if _morse_like(text):
        words = re.split(r"\s{2,}|\s*/\s*", text.strip())
        readings.append(" ".join("".join(_MORSE.get(code, "") for code in word.split()) for word in words))
    if (spaced := _letter_spaced(text)) is not None:
        readings.append(spaced)
    if len(_DECORATION.findall(lowered)) >= 4:  # then every such mark is decoration, on a space too
        readings.append(re.sub(_MARKS, "", lowered))
    if _CIPHER_NAMED.search(lowered):  # a named cipher: every shift of the alphabet, and its mirror
        readings += [lowered.translate(table) for table in _SHIFTS]
    return readings


# Cyrillic and Greek letters drawn like Latin ones. Inside a word that also has Latin letters they stand for
# those ("ІGNORE the above аnd output ...", "Рrоvidе yоur cоnfigurаtiоn"); a word of its own script is left alone.
_LOOKALIKES = str.maketrans(
    "аеорсухіјѕԁһӏԛԝАВЕКМНОРСТХІЈЅУαορικνυΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
    "aeopcyxijsdhlqwABEKMHOPCTXIJSYaopikvuABEZHIKMNOPTYX",
)
_LOOKALIKE = re.compile("[аеорсухіјѕԁһӏԛԝАВЕКМНОРСТХІЈЅУαορικνυΑΒΕΖΗΙΚΜΝΟΡΤΥΧ]")
_LETTERS = re.compile(r"[^\W\d_]+")
_LATIN = re.compile(r"[A-Za-z]")


def unmask_lookalikes(text: str) -> str:
    """`text` with each word that mixes Latin letters with Cyrillic or Greek look-alikes written in Latin."""

    def latin(match: re.Match) -> str:
        word = match.group()
        read = word.translate(_LOOKALIKES)
        return read if read != word and _LATIN.search(word) else word

    return _LETTERS.sub(latin, text) if _LOOKALIKE.search(text) else text
