"""Comments and docstrings point only to documents and files that are in the repository
(issue 36: a design document cited as "DESIGN §3" and a header that had been renamed).
Checked in the sources of src/, include/, python/, tools/ and tests/: a Markdown file
(docs/NAME.md or a bare NAME.md, which means docs/ or the top), a path under one of the
repository's folders (from the top or from the citing file's folder), an internal header
(internal/NAME.h) and a section of a document named in capitals ("NAME §3"); in docs/ and the
README, the last kind."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("src", "include", "python", "tools", "tests")
SOURCE_SUFFIXES = {".c", ".h", ".cpp", ".S", ".py"}
TOP_FOLDERS = ("docs", "src", "include", "scripts", "tools", "tests", "bench", "experiments", "examples",
               "python", "cmake")

MARKDOWN = re.compile(r"[\w./-]*\w\.md\b")
REPO_PATH = re.compile(r"(?<![\w./-])(?:%s)/[\w./*-]*\w" % "|".join(TOP_FOLDERS))
INTERNAL_HEADER = re.compile(r"(?<![\w/])internal/\w+\.h\b")
SECTION_OF = re.compile(r"\b([A-Z][A-Z0-9_]{2,})(?:\.md)? §")

#: Files not checked: they cite another project's files by its paths, or are this check's examples.
NOT_CHECKED = {
    "tests/c/librtpi10/rtpi.h": "librtpi 1.0's sources",
    "tests/c/litmus/test_litmus_api.c": "liblitmus's own tests",
    "tests/python/test_doc_pointers.py": "this check's examples of dangling pointers",
}


def _sources() -> list[Path]:
    files = []
    for top in SCANNED:
        for path in (ROOT / top).rglob("*"):
            if path.is_file() and (path.suffix in SOURCE_SUFFIXES or path.name == "CMakeLists.txt") \
                    and "__pycache__" not in path.parts:
                files.append(path)
    return sorted(files)


def _exists(ref: str, citing: Path) -> bool:
    if "*" in ref:  # a pattern: some file matches it
        return any(ROOT.glob(ref)) or any(citing.parent.glob(ref))
    return (ROOT / ref).exists() or (citing.parent / ref).exists()


def dangling(text: str, citing: Path) -> list[str]:
    """The pointers in `text` (of file `citing`) to nothing in the repository."""
    wrong = []
    for ref in MARKDOWN.findall(text):
        candidates = [ref] if "/" in ref else [f"docs/{ref}", ref]
        if not any(_exists(c, citing) for c in candidates):
            wrong.append(ref)
    for ref in REPO_PATH.findall(text):
        if not ref.endswith(".md") and not _exists(ref, citing) and not _exists(ref.rstrip("."), citing):
            wrong.append(ref)
    for ref in INTERNAL_HEADER.findall(text):
        if not (ROOT / "src" / ref).exists():
            wrong.append(ref)
    for name in SECTION_OF.findall(text):
        if not any((ROOT / f"{name}{ext}").exists() for ext in ("", ".md")):
            wrong.append(f"{name} §")
    return wrong


def test_no_pointer_to_a_missing_document():
    wrong = []
    for path in _sources():
        rel = str(path.relative_to(ROOT))
        if rel in NOT_CHECKED:
            continue
        wrong += [f"{rel}: {ref}" for ref in dangling(path.read_text(errors="replace"), path)]
    assert wrong == []


def test_the_docs_cite_sections_only_of_documents_in_the_repository():
    pages = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]
    wrong = [f"{page.relative_to(ROOT)}: {name} §" for page in pages
             for name in SECTION_OF.findall(page.read_text())
             if not any((ROOT / f"{name}{ext}").exists() for ext in ("", ".md"))]
    assert wrong == []


def test_the_check_sees_each_kind_of_dangling_pointer():
    here = ROOT / "src" / "lock" / "pi_word.c"
    text = ("(DESIGN §3) docs/nowhere.md nowhere.md src/lock/gone.c internal/pi_lock.h "
            "docs/ult.md ult.md src/lock/pi_word.c internal/pi_word.h README §2 docs/figures/*.png")
    assert dangling(text, here) == ["docs/nowhere.md", "nowhere.md", "src/lock/gone.c", "internal/pi_lock.h",
                                    "DESIGN §"]
