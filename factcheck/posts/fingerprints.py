"""Content fingerprints of post text, to find exact copies of a rated post."""

import hashlib
import unicodedata


def text_normalise(text: str) -> str:
    """NFKC-normalised, casefolded, whitespace collapsed: copies that differ only in case,
    spacing or compatibility characters (full-width letters, ligatures) normalise alike."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def text_fingerprint(text: str) -> str:
    """SHA-256 (hex) of ``text_normalise(text)``; what ``Post.text_fingerprint`` holds."""
    return hashlib.sha256(text_normalise(text).encode("utf-8")).hexdigest()
