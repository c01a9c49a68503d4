"""The reports site in a real browser (`make test-browser`, after `make e2e`): Debian's headless Chromium, driven by
Selenium through Debian's chromium-driver, opens the index and every report of a workflow run from ``file://`` at
1,400 × 900 and checks what a reader meets:

* the page loads without a console error (a script from a CDN would fail offline and log one);
* every image has loaded (a non-zero natural width);
* every link of the navigation header and footer, and every relative link of the index, names a file that exists;
* the first screen shows a verdict or a figure, and the visible words before the first verdict word and before the
  first figure stay within the report's budget (300 and 400 words, counted on the rendered text: folded code and
  methods are not rendered, so they do not count);
* a screenshot of the first screen is written to ``<output_dir>/results/screenshots/`` to be looked at;
* in print layout at an A4 page's text width no table is wider than the page, and each report printed to PDF by
  Chromium (read back with pypdf) shows no "NaN", contains its folded methods' text and numbers every figure.

The run to check is ``HELMLITE_BROWSER_CONFIG`` (a workflow config; `make test-browser` gives config/test.yaml). Without
it the tests skip, naming the target; with it, a missing browser or report fails.
"""
from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import threading
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from helmlite import workflow
from helmlite.report import pages

CONFIG = os.environ.get("HELMLITE_BROWSER_CONFIG")
pytestmark = pytest.mark.skipif(not CONFIG, reason="the reports in a browser: run `make test-browser` (after `make e2e`)")

SCREEN = (1400, 900)
WORDS_BEFORE_VERDICT, WORDS_BEFORE_FIGURE = 300, 400
#: Where a page states verdicts: the counts of "What this run shows" and the verdict cells of a claims table.
VERDICTS = ".hl-verdicts, [class^='hl-verdict-']"

#: Visible words (rendered text nodes: folded <details> content is not rendered) before the first verdict element and
#: before the first <img>; and the top of each on the first screen (null when absent).
_READER_JS = r"""
const verdicts = new Set(document.querySelectorAll(arguments[0]));
const words = (text) => (text.match(/\S+/g) || []).length;
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
let count = 0, beforeVerdict = null, beforeFigure = null, verdictTop = null, figureTop = null;
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  if (node.nodeType === Node.ELEMENT_NODE) {
    if (!node.checkVisibility()) continue;
    if (verdicts.has(node) && beforeVerdict === null) { beforeVerdict = count; verdictTop = node.getBoundingClientRect().top; }
    if (node.tagName === "IMG" && beforeFigure === null) { beforeFigure = count; figureTop = node.getBoundingClientRect().top; }
    continue;
  }
  const parent = node.parentElement;
  if (!parent || !parent.checkVisibility() || ["SCRIPT", "STYLE"].includes(parent.tagName)) continue;
  count += words(node.textContent);
}
return {beforeVerdict, beforeFigure, verdictTop, figureTop, total: count, height: window.innerHeight};
"""


@pytest.fixture(scope="module")
def site():
    config = workflow.load_config(CONFIG)
    reports = Path(workflow.output_dirs(config)["reports"]).resolve()
    return config, reports, [page.href for page in pages(config)]


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={SCREEN[0]},{SCREEN[1]}", "--allow-file-access-from-files"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver"),
                              options=options)
    # the page's own viewport, not the window's (whose toolbars take ~140 px): exactly the first screen measured
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": SCREEN[0], "height": SCREEN[1], "deviceScaleFactor": 1, "mobile": False})
    yield driver
    driver.quit()


def _open(browser, path: Path):
    browser.get(path.as_uri())
    browser.execute_script("window.scrollTo(0, 0)")
    return [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]


def _links(browser, selector: str) -> list[str]:
    return [a.get_attribute("href") for a in browser.find_elements("css selector", selector)]


def _missing_files(hrefs: list[str]) -> list[str]:
    """The file:// links whose file does not exist (fragments and other schemes are not files)."""
    missing = []
    for href in hrefs:
        url = urlparse(href)
        if url.scheme == "file" and not Path(unquote(url.path)).exists():
            missing.append(href)
    return missing


def test_every_page_loads_cleanly_and_opens_with_a_verdict_or_figure(site, browser):
    config, reports, hrefs = site
    screenshots = Path(workflow.output_dirs(config)["logs"]).parent / "screenshots"
    screenshots.mkdir(parents=True, exist_ok=True)
    problems = []
    for href in hrefs:
        page = reports / href
        assert page.is_file(), f"{page} is missing: run the workflow first (make e2e)"
        errors = _open(browser, page)
        browser.save_screenshot(str(screenshots / f"{page.stem}.png"))
        problems += [f"{href}: console: {entry['message'][:200]}" for entry in errors]
        broken = browser.execute_script(
            "return Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src.slice(0, 80))")
        problems += [f"{href}: image not loaded: {src}" for src in broken]
        navigation = _links(browser, "header.hl-site a, footer.hl-site a")
        if len(navigation) < len(hrefs):
            problems.append(f"{href}: the header and footer link {len(navigation)} pages, the site has {len(hrefs)}")
        problems += [f"{href}: navigation link to a missing file: {link}" for link in _missing_files(navigation)]
        reader = browser.execute_script(_READER_JS, VERDICTS)
        assert reader["height"] == SCREEN[1]
        shown = [top for top in (reader["verdictTop"], reader["figureTop"]) if top is not None]
        if not shown or min(shown) >= SCREEN[1]:
            problems.append(f"{href}: the first screen shows neither a verdict nor a figure ({reader})")
        if href != "index.html":
            if reader["beforeVerdict"] is None or reader["beforeVerdict"] > WORDS_BEFORE_VERDICT:
                problems.append(f"{href}: {reader['beforeVerdict']} visible words before the first verdict (at most {WORDS_BEFORE_VERDICT})")
            if reader["beforeFigure"] is None or reader["beforeFigure"] > WORDS_BEFORE_FIGURE:
                problems.append(f"{href}: {reader['beforeFigure']} visible words before the first figure (at most {WORDS_BEFORE_FIGURE})")
        print(f"{href}: {reader['beforeVerdict']} words before the first verdict, {reader['beforeFigure']} before the first "
              f"figure, {reader['total']} visible in all")
    assert not problems, "\n".join(problems)


def test_index_links_resolve_and_thumbnails_are_readable(site, browser):
    config, reports, hrefs = site
    assert not _open(browser, reports / "index.html")
    links = _links(browser, "main a")
    assert len(links) > len(hrefs) and not _missing_files(links)
    widths = browser.execute_script("return Array.from(document.querySelectorAll('figure img')).map(i => i.width)")
    figures = sum(len(analysis.figures) for analysis in workflow.enabled(config))
    assert len(widths) == figures and min(widths) >= 320
    decided = browser.find_element("css selector", "h2").text
    assert re.fullmatch("What this run decided", decided)  # the decided verdicts come first


def test_the_site_works_from_a_static_web_server(site, browser):
    """The output folder served by Python's http.server on 127.0.0.1: the index and a report load without console
    errors (a favicon request would log a 404), with every image."""
    config, reports, hrefs = site
    root = Path(config["output_dir"]).resolve()
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        for href in (hrefs[0], hrefs[1]):
            url = f"http://127.0.0.1:{server.server_port}/{reports.relative_to(root).as_posix()}/{href}"
            browser.get(url)
            errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
            assert not errors, errors
            assert browser.execute_script("return Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")
    finally:
        server.shutdown()


#: The printed page's text width in CSS pixels: A4 (210 mm) less the print stylesheet's 12 mm margins, at 96 px an inch.
PRINT_WIDTH_PX = round((210 - 2 * 12) / 25.4 * 96)

#: In print layout at the printed width: each table's right edge against its container's (the output area, whose
#: margins the page's width does not show) and the page's, its own content width, and the cells whose content spills
#: out of them (a word wider than its column: cut off or over its neighbour on paper).
_TABLE_WIDTHS_JS = r"""
const page = document.documentElement.clientWidth;
return Array.from(document.querySelectorAll("table")).filter(t => t.checkVisibility()).map(t => {
  const box = (t.closest(".jp-OutputArea-output, .jp-RenderedHTMLCommon, main, body") || document.body);
  const style = getComputedStyle(box);
  const limit = Math.min(page, box.getBoundingClientRect().right - parseFloat(style.paddingRight));
  const spills = Array.from(t.querySelectorAll("td, th")).filter(c => c.scrollWidth > c.clientWidth + 1)
    .map(c => c.textContent.trim().slice(0, 20));
  // a header word laid out on more than one line (a break inside the word): one client rect per line it occupies
  const broken = [];
  for (const th of t.querySelectorAll("th")) {
    const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.textContent.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set(Array.from(range.getClientRects()).filter(r => r.width > 0 && r.height > 0)
          .map(r => Math.round(getComputedStyle(th).writingMode.startsWith("vertical") ? r.left : r.top)));
        if (lines.size > 1) broken.push(match[0]);
      }
    }
  }
  return {right: Math.round(t.getBoundingClientRect().right), scroll: t.scrollWidth, page: Math.round(limit),
          spills: spills.slice(0, 3), broken: broken.slice(0, 3),
          head: (t.querySelector("th") || t).textContent.trim().slice(0, 40)};
});
"""


def _printed_text(browser) -> str:
    """The text of the open page printed to PDF by Chromium (A4, the page's own print stylesheet), read back with pypdf."""
    import base64
    import io

    from pypdf import PdfReader

    pdf = browser.execute_cdp_cmd("Page.printToPDF", {"paperWidth": 210 / 25.4, "paperHeight": 297 / 25.4,
                                                      "preferCSSPageSize": True, "printBackground": True})
    return "\n".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(base64.b64decode(pdf["data"]))).pages)


def _squash(text: str) -> str:
    """Text as compared with a PDF's: compatibility forms folded ("ﬁ" → "fi") and every space dropped (a PDF's text puts
    spaces around code spans and breaks lines anywhere)."""
    import unicodedata

    return "".join(unicodedata.normalize("NFKC", text).split())


def _fold_openings(html: str, words: int = 5) -> list[str]:
    """The first few words of each folded methods block's first paragraph (what a printed report must contain)."""
    from bs4 import BeautifulSoup

    openings = []
    for fold in BeautifulSoup(html, "html.parser").select("details.hl-methods"):
        paragraph = next((p for p in fold.select("p") if not p.find_parent("summary") and p.get_text(strip=True)), None)
        if paragraph is not None:
            openings.append(" ".join(paragraph.get_text().split()[:words]))
    return openings


def test_printed_reports_keep_every_column_the_methods_and_no_nan(site, browser):
    """Each page in print layout at the printed page's width: nothing wider than the page (Chromium would shrink the
    printout), and in a report no table wider than the page and no header word broken across lines; printed to PDF: no "NaN",
    the "Methods and departures" blocks' text present (the folds open in print), every figure numbered; and no image
    of any page carries nbconvert's "No description has been provided" alt text."""
    config, reports, hrefs = site
    problems = []
    for href in hrefs:
        page = reports / href
        html = page.read_text(encoding="utf-8")
        if "No description has been provided" in html:
            problems.append(f"{href}: an image without a description (alt text)")
        _open(browser, page)
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": PRINT_WIDTH_PX, "height": SCREEN[1], "deviceScaleFactor": 1, "mobile": False})
        try:
            # anything wider than the page (a header line that does not wrap, a grid cell) makes Chromium shrink the
            # whole printout to fit it
            width, page_width = browser.execute_script(
                "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
            if width > page_width + 1:
                problems.append(f"{href}: the printed page is {width} px wide for a {page_width} px page (shrunk to fit)")
            if href == "index.html":
                continue
            for table in browser.execute_script(_TABLE_WIDTHS_JS):
                if table["right"] > table["page"] + 1:
                    problems.append(f"{href}: a table ({table['head']!r}…) ends at {table['right']} px in print, its "
                                    f"column of the page at {table['page']} px")
                if table["spills"]:
                    problems.append(f"{href}: a table ({table['head']!r}…) has cells whose text spills out: {table['spills']}")
                if table["broken"]:
                    problems.append(f"{href}: a table ({table['head']!r}…) breaks header words across lines in print: "
                                    f"{table['broken']}")
            printed = _printed_text(browser)
        finally:
            browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
            browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": SCREEN[0], "height": SCREEN[1], "deviceScaleFactor": 1, "mobile": False})
        nans = len(re.findall(r"\bNaN\b", printed))
        if nans:
            problems.append(f"{href}: the printed report shows NaN {nans} time(s)")
        flat = _squash(printed)
        for opening in _fold_openings(html):
            if _squash(opening) not in flat:
                problems.append(f"{href}: a methods fold's text is not printed ({opening!r}…)")
        figures = len(re.findall(r"<b>Figure \d+\.</b>", html))  # the headline's repeat keeps its number, marked
        repeats = len(re.findall(r"<b>Figure \d+ \(repeated from the summary\)\.</b>", html))
        if figures + repeats != len(re.findall(r"<img ", html)) or f"Figure {figures}." not in printed.replace("\n", " "):
            problems.append(f"{href}: {figures} numbered figures for {len(re.findall(r'<img ', html))} images, or the last not printed")
        print(f"{href}: printed {len(printed.split())} words, {figures} figures")
    assert not problems, "\n".join(problems)
