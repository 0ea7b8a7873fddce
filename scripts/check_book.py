#!/usr/bin/env python3
"""Checks the guide (docs/) and the README offline: every internal link and include.

- Every chapter under docs/src is listed in SUMMARY.md, and every page SUMMARY.md names
  exists.
- Every relative link of a chapter (and of README.md) names a file that exists, and its
  `#anchor` a heading of that file (the ids mdBook and GitHub give headings). A chapter's
  relative link stays inside docs/src (the published book holds nothing else): it points
  at the rest of the repository with a GitHub URL, whose path is checked too.
- Every `{{#include FILE:ANCHOR}}` names a file that exists and an ANCHOR it marks, and
  every Rust block of a chapter is such an include (so `make test` compiles it).
- Every Rust block of README.md appears, line for line, in a file of the samples crate
  (docs/samples), which `make test` compiles and tests.
- With --built DIR (mdbook's output): every chapter was rendered, and no include was left
  unexpanded.

No network: links to other sites are not fetched.

Usage: scripts/check_book.py [--built target/book]
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOOK_SRC = ROOT / "docs" / "src"
SAMPLES = ROOT / "docs" / "samples"
REPO_URL = "https://github.com/a2a-lambda/a2a-lambda/"

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
INCLUDE = re.compile(r"\{\{#(include|rustdoc_include)\s+([^}\s]+)\s*\}\}")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


def fenced(lines: list[str]):
    """Yields (line number, line, inside a code fence) for each line."""
    fence = None
    for number, line in enumerate(lines, 1):
        stripped = line.lstrip()
        marker = re.match(r"(`{3,}|~{3,})", stripped)
        if marker:
            if fence is None:
                fence = marker.group(1)[0] * len(marker.group(1))
                yield number, line, True
                continue
            if stripped.startswith(fence):
                fence = None
                yield number, line, True
                continue
        yield number, line, fence is not None


def slug(text: str) -> str:
    """The id mdBook (and, for these headings, GitHub) gives a heading's text."""
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text only
    out = []
    for char in text.strip().lower():
        if char.isalnum() or char in "_-":
            out.append(char)
        elif char.isspace():
            out.append("-")
    return "".join(out)


def anchors(path: Path) -> set[str]:
    """The heading ids of a markdown file, with mdBook's -1, -2 for repeated ones."""
    seen: dict[str, int] = {}
    ids = set()
    for _, line, in_code in fenced(path.read_text(encoding="utf-8").splitlines()):
        if in_code:
            continue
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        ids.add(base if count == 0 else f"{base}-{count}")
    return ids


def links(path: Path):
    """(line number, target) of every link outside code."""
    for number, line, in_code in fenced(path.read_text(encoding="utf-8").splitlines()):
        if in_code:
            continue
        reference = REFERENCE.match(line)
        if reference:
            yield number, reference.group(1)
            continue
        for match in LINK.finditer(CODE_SPAN.sub("", line)):
            yield number, match.group(1)


class Checker:
    def __init__(self) -> None:
        self.errors: list[str] = []
        self.anchor_cache: dict[Path, set[str]] = {}

    def error(self, path: Path, number: int, message: str) -> None:
        self.errors.append(f"{path.relative_to(ROOT)}:{number}: {message}")

    def anchors_of(self, path: Path) -> set[str]:
        if path not in self.anchor_cache:
            self.anchor_cache[path] = anchors(path)
        return self.anchor_cache[path]

    def check_target(self, page: Path, number: int, target: str, in_book: bool) -> None:
        if target.startswith(REPO_URL):
            self.check_repo_url(page, number, target)
            return
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
            return  # another site, mailto:, …: not fetched
        file_part, _, anchor = target.partition("#")
        file_part = file_part.split("?", 1)[0]
        resolved = Path(os.path.normpath(page.parent / file_part)) if file_part else page
        if in_book and BOOK_SRC not in resolved.parents and resolved != BOOK_SRC:
            self.error(page, number, f"{target}: outside docs/src, which the published "
                       f"book does not hold: link {REPO_URL}blob/main/… instead")
            return
        if not resolved.exists():
            self.error(page, number, f"{target}: no such file")
            return
        if anchor:
            if resolved.suffix != ".md":
                self.error(page, number, f"{target}: an anchor into a file that is not markdown")
            elif anchor not in self.anchors_of(resolved):
                self.error(page, number, f"{target}: no heading #{anchor} in "
                           f"{resolved.relative_to(ROOT)}")

    def check_repo_url(self, page: Path, number: int, target: str) -> None:
        match = re.match(re.escape(REPO_URL) + r"(blob|tree|edit)/main/([^#?]+)(?:#(.*))?$", target)
        if not match:
            if target.rstrip("/") + "/" != REPO_URL:
                self.error(page, number, f"{target}: a repository URL this check cannot read "
                           "(use …/blob/main/PATH or …/tree/main/PATH)")
            return
        path = ROOT / match.group(2)
        if not path.exists():
            self.error(page, number, f"{target}: {match.group(2)} is not in the repository")
            return
        anchor = match.group(3)
        if anchor and path.suffix == ".md" and anchor not in self.anchors_of(path):
            self.error(page, number, f"{target}: no heading #{anchor} in {match.group(2)}")

    def check_rust_blocks(self, page: Path) -> None:
        block: list[str] | None = None
        start = 0
        for number, line, _ in fenced(page.read_text(encoding="utf-8").splitlines()):
            stripped = line.strip()
            if block is None and re.fullmatch(r"```rust\b.*", stripped):
                block, start = [], number
            elif block is not None and stripped.startswith("```"):
                if not block or not all(INCLUDE.fullmatch(part.strip()) for part in block if part.strip()):
                    self.error(page, start, "a Rust block that is not an {{#include}} of "
                               "docs/samples: make test would not compile it")
                block = None
            elif block is not None:
                block.append(line)

    def check_includes(self, page: Path) -> None:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for match in INCLUDE.finditer(line):
                spec = match.group(2)
                file_part, _, anchor = spec.partition(":")
                path = (page.parent / file_part).resolve()
                if not path.is_file():
                    self.error(page, number, f"include {spec}: no such file")
                    continue
                if anchor and not re.fullmatch(r"[0-9:]*", anchor):
                    text = path.read_text(encoding="utf-8")
                    if not re.search(rf"ANCHOR:\s*{re.escape(anchor)}\b", text):
                        self.error(page, number, f"include {spec}: no ANCHOR: {anchor} there")
                    elif not re.search(rf"ANCHOR_END:\s*{re.escape(anchor)}\b", text):
                        self.error(page, number, f"include {spec}: no ANCHOR_END: {anchor} there")

    def check_summary(self) -> list[Path]:
        summary = BOOK_SRC / "SUMMARY.md"
        listed = []
        for number, target in links(summary):
            path = (BOOK_SRC / target).resolve()
            if not path.is_file():
                self.error(summary, number, f"{target}: no such chapter")
            listed.append(path)
        for page in sorted(BOOK_SRC.rglob("*.md")):
            if page != summary and page not in listed:
                self.error(page, 1, "not listed in SUMMARY.md: mdBook would not render it")
        return [page for page in listed if page.is_file()]

    def check_readme_samples(self) -> None:
        readme = ROOT / "README.md"
        sources = [path.read_text(encoding="utf-8") for path in SAMPLES.rglob("*.rs")]
        normalized = ["\n".join(line.strip() for line in text.splitlines()) for text in sources]
        block: list[str] | None = None
        start = 0
        for number, line, _ in fenced(readme.read_text(encoding="utf-8").splitlines()):
            stripped = line.strip()
            if block is None and re.fullmatch(r"```rust\b.*", stripped):
                block, start = [], number
            elif block is not None and stripped.startswith("```"):
                text = "\n".join(part.strip() for part in block).strip()
                if text and not any(text in source for source in normalized):
                    self.error(readme, start, "this Rust block is not in docs/samples: copy it "
                               "from a sample that make test compiles")
                block = None
            elif block is not None:
                block.append(line)

    def check_built(self, built: Path, chapters: list[Path]) -> None:
        for chapter in chapters:
            relative = chapter.relative_to(BOOK_SRC)
            name = "index.html" if relative.name == "README.md" else relative.stem + ".html"
            html = built / relative.parent / name
            if not html.is_file():
                self.errors.append(f"{built}: {relative} was not rendered ({html.name} missing)")
                continue
            if "{{#" in html.read_text(encoding="utf-8"):
                self.errors.append(f"{html}: an include was left unexpanded")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--built", type=Path, help="mdbook's output folder, to check too")
    args = parser.parse_args()

    checker = Checker()
    chapters = checker.check_summary()
    for page in chapters:
        for number, target in links(page):
            checker.check_target(page, number, target, in_book=True)
        checker.check_includes(page)
        checker.check_rust_blocks(page)
    readme = ROOT / "README.md"
    for number, target in links(readme):
        checker.check_target(readme, number, target, in_book=False)
    checker.check_readme_samples()
    if args.built:
        checker.check_built(args.built.resolve(), chapters)

    for error in checker.errors:
        print(error, file=sys.stderr)
    print(f"check_book: {len(chapters)} chapters, README.md: "
          f"{len(checker.errors)} problem{'s' if len(checker.errors) != 1 else ''}")
    return 1 if checker.errors else 0


if __name__ == "__main__":
    sys.exit(main())
