"""Check every link and anchor of a built HTML site offline: each relative ``href``/``src`` names a file of the site
and, where it has a ``#fragment``, an element with that ``id`` (or ``name``) in that file.

Usage: ``python docs/check_links.py build/docs`` — prints each broken link as ``page: href (why)`` and exits 1 when
any is broken. External links (``http:``, ``https:``, ``mailto:``) are not fetched: the site is checked without a
network, as CI builds it.
"""
from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

EXTERNAL = ("http", "https", "mailto", "data", "javascript")


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name"):
            if attrs.get(key):
                self.ids.add(attrs[key])
        for key in ("href", "src"):
            if attrs.get(key) and not (tag == "link" and attrs.get("rel") in ("preconnect", "dns-prefetch")):
                self.links.append(attrs[key])


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def broken_links(site: Path) -> list[str]:
    """Every broken internal link of the site's HTML pages, as ``page: href (why)``."""
    pages = {path.resolve(): _parse(path) for path in sorted(site.rglob("*.html"))}
    problems = []
    for path, page in pages.items():
        for href in page.links:
            parts = urlsplit(href)
            if parts.scheme in EXTERNAL or parts.netloc:
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            where = f"{path.relative_to(site.resolve())}: {href}"
            if not target.exists():
                problems.append(f"{where} (no such file)")
            elif parts.fragment and target.suffix == ".html":
                ids = (pages.get(target) or _parse(target)).ids
                if unquote(parts.fragment) not in ids:
                    problems.append(f"{where} (no anchor #{parts.fragment})")
    return problems


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print("usage: python docs/check_links.py BUILT_SITE_FOLDER", file=sys.stderr)
        return 2
    problems = broken_links(Path(argv[0]))
    print(*problems, sep="\n") if problems else print(f"{argv[0]}: every internal link and anchor resolves")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
