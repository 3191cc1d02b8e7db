"""Memories in prompts: quoted as untrusted data, and `[mem:ID]` tags recognised whatever they look like.

Every surface that puts a memory's text in front of a model (the Client Brain block, the agents' runtime
context, Brain-ask's extractive answer) quotes it with `quote()`, so a stored value cannot close the block
it sits in or open a new section. Every check of `[mem:ID]` tags (the formation gate's echo guard, Brain-ask's
citation check) reads the text through `canonical_tags()` first, so a full-width `［mem:7］`, another bracket,
a colon look-alike or a zero-width character inside the tag is the tag it imitates. Pure functions.
"""

from __future__ import annotations

import json
import re
import unicodedata

# Characters that NFKC leaves alone but that read as the tag's brackets, colon or letters (Unicode's
# confusables, the few that matter for "[mem:ID]"); NFKC already folds full-width and small forms.
_CONFUSABLES = str.maketrans(
    {
        **dict.fromkeys("⟦〚【〔〖〘⁅❲⦋⦍⦏⟨〈《「『｢", "["),
        **dict.fromkeys("⟧〛】〕〗〙⁆❳⦌⦎⦐⟩〉》」』｣", "]"),
        **dict.fromkeys("∶ː˸꞉։׃᛬⁚", ":"),
        **dict.fromkeys("еєᴇ", "e"),
        **dict.fromkeys("ЕΕ", "E"),
        **dict.fromkeys("мᴍ", "m"),
        **dict.fromkeys("МΜ", "M"),
    }
)
# Invisible characters a tag may be split with: zero-width, bidi controls, word joiners, soft hyphen, BOM,
# Mongolian vowel separator, Unicode tag characters.
_INVISIBLE = frozenset(
    "\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"
) | frozenset(chr(c) for c in range(0xE0000, 0xE0080))
# A tag as the folded text shows it; the id part is whatever stands between the colon and the bracket, so
# a malformed id (`[mem:abc]`) is still a tag to check.
_FOLDED_TAG = re.compile(r"\[\s*mem\s*:([^\[\]\n]{0,40})\]", re.IGNORECASE)


def quote(value: object) -> str:
    """A stored value as an inert JSON string literal (`<` and `>` escaped, so it cannot close a block)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return json.dumps(text.strip(), ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e")


def _fold(text: str) -> tuple[str, list[int]]:
    """The text with each character NFKC-folded, confusables mapped and invisibles dropped, and for each
    folded character the index of the character of `text` it came from."""
    folded: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        if char.isascii():
            folded.append(char)
            origin.append(index)
        elif char not in _INVISIBLE:
            for piece in unicodedata.normalize("NFKC", char).translate(_CONFUSABLES):
                folded.append(piece)
                origin.append(index)
    return "".join(folded), origin


def canonical_tags(text: str) -> str:
    """`text` with every look-alike of a `[mem:…]` tag rewritten as the plain `[mem:…]` it imitates (its id
    folded the same way); nothing else in the text changes. ASCII text is returned as it is."""
    if text.isascii():
        return text
    folded, origin = _fold(text)
    parts: list[str] = []
    done = 0
    for match in _FOLDED_TAG.finditer(folded):
        start, end = origin[match.start()], origin[match.end() - 1] + 1
        parts.append(text[done:start])
        parts.append(f"[mem:{match.group(1).strip()}]")
        done = end
    if not parts:
        return text
    parts.append(text[done:])
    return "".join(parts)
