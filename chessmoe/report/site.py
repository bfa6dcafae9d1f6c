"""``make report``: a static reproduction report (Sphinx + MyST-NB) built offline from the
executed notebooks ``make figures`` leaves in ``build/notebooks/``, the artefacts in
``figures/`` and the committed ``results/``; every page is generated
(:mod:`chessmoe.report.site_pages`), none is written by hand.

    python -m chessmoe.report.site [--root .] [--notebooks build/notebooks] [--out build/report]
"""

from __future__ import annotations

import argparse
import json
import posixpath
import re
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from chessmoe.report import pages as report_pages
from chessmoe.report import stems, summary
from chessmoe.report.artefacts import NOTEBOOK_JOBS, NotebookJob
from chessmoe.report.site_pages import (
    GROUPS,
    Context,
    ReportInputsMissing,
    SiteInputs,
    artefact_page,
    artefacts,
    comparisons,
    explorers_page,
    group_page,
    landing,
    page_name,
    read_index,
    toctree,
)

__all__ = ["ReportInputsMissing", "SiteInputs", "build", "check_inputs", "external_fetches",
           "rewrite_links", "write_sources"]


# --- the inputs ---------------------------------------------------------------------------------


def check_inputs(inputs: SiteInputs, jobs: Sequence[NotebookJob] = NOTEBOOK_JOBS) -> None:
    """Fail loudly, naming each missing input and what makes it."""
    problems: list[str] = []
    if not inputs.notebooks.is_dir():
        problems.append(f"{inputs.notebooks}/ is absent (the executed notebooks): run "
                        "`make figures` first")
    else:
        for job in jobs:
            path = inputs.notebooks / job.notebook
            if not path.is_file():
                problems.append(f"{path} is missing: run `make figures` first")
                continue
            meta = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
            run = meta.get("papermill", {}) if isinstance(meta, dict) else {}
            if not run or run.get("exception"):
                problems.append(f"{path} is not a successful papermill run: rerun "
                                "`make figures`")
    for artefact in artefacts(jobs):
        for name in artefact.files:
            if not (inputs.figures / name).is_file():
                problems.append(f"{inputs.figures / name} is missing: run `make figures`")
    for name in ("figures/INDEX.md", "figures/claims.csv", f"figures/{stems.COMPUTE_GAP}.csv",
                 "REPRODUCING.md", "BENCHMARKS.md"):
        if not (inputs.root / name).is_file():
            make = "`make figures`" if name.startswith("figures/") else "git checkout"
            problems.append(f"{inputs.root / name} is missing: restore it ({make})")
    if problems:
        raise ReportInputsMissing("make report: cannot build the report:\n  "
                                  + "\n  ".join(problems))


# --- links between the documents ----------------------------------------------------------------

_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(([^()\s]+)\)")
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


def rewrite_links(text: str, source: str, target: Callable[[str], str | None],
                  page: str | None = None) -> str:
    """``text`` (a Markdown document at repository path ``source``, shown at site path
    ``page``, default the same) with every relative link pointed at the site's copy of its
    target (``target(repository path)``, None when the site has none). A link to a file the
    site does not hold becomes its text and path in code; links inside code and links with a
    scheme or only an anchor are left alone."""
    shown_at = page if page is not None else source
    def one(match: re.Match[str], source: str) -> str:
        bang, label, href = match.groups()
        if re.match(r"[a-z][a-z0-9+.-]*:", href) or href.startswith(("#", "/")):
            return match.group(0)
        path, _, anchor = href.partition("#")
        repo_path = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
        site = target(repo_path)
        if site is None:
            shown = f"`{repo_path}`"
            return (f"{label} ({shown})" if label and label.strip("`") != repo_path
                    else shown)
        relative = posixpath.relpath(site, posixpath.dirname(shown_at) or ".")
        return f"{bang}[{label}]({relative}{'#' + anchor if anchor else ''})"

    def outside_code(chunk: str, source: str) -> str:
        return _LINK.sub(lambda m: one(m, source), chunk)

    return _apply_outside_code(text, lambda chunk: outside_code(chunk, source))


def _apply_outside_code(text: str, apply: Callable[[str], str]) -> str:
    out, last = [], 0
    for code in _CODE.finditer(text):
        out.append(apply(text[last:code.start()]))
        out.append(code.group(0))
        last = code.end()
    out.append(apply(text[last:]))
    return "".join(out)

def _site_target(known: set[str]) -> Callable[[str], str | None]:
    """Map a repository path to its site path (None: the site does not hold it)."""
    def target(path: str) -> str | None:
        if path in known:
            return path
        if path == "BENCHMARKS.md":
            return "benchmarks.md"
        if path == "figures/INDEX.md":
            return "figures-index.md"
        match = re.fullmatch(r"figures/(.+)\.(md|csv|png|pdf)", path)
        if match and f"artefacts/{match.group(1)}.md" in known:
            return (f"artefacts/{match.group(1)}.md" if match.group(2) == "md"
                    else path)
        return None

    return target


def _copy_notebook(source: Path, destination: Path, page: str,
                   target: Callable[[str], str | None]) -> None:
    """Copy an executed notebook, its Markdown cells' links pointed at the site."""
    notebook = json.loads(source.read_text(encoding="utf-8"))
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "markdown":
            text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            cell["source"] = rewrite_links(text, page, target)
    destination.write_text(json.dumps(notebook), encoding="utf-8")


_CONF = '''\
# Generated by chessmoe.report.site for `make report`; rebuilt on every run.
project = "chessmoe reproduction report"
author = "chessmoe developers"
copyright = "chessmoe developers, GPL-3.0-or-later"
extensions = ["myst_nb"]
exclude_patterns = ["figures/**", "_build"]
root_doc = "index"
html_theme = "alabaster"
html_theme_options = {
    "page_width": "1240px", "sidebar_width": "250px", "show_powered_by": False,
    "font_family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
    "head_font_family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
}
html_sidebars = {"**": ["navigation.html", "relations.html", "searchbox.html"]}
html_favicon = "_static/favicon.png"
html_static_path = ["_static"]
html_css_files = ["report.css"]
html_copy_source = False
html_show_sourcelink = False
html_last_updated_fmt = None
# offline: executed notebooks are rendered as they are, no widget manager or math from a CDN
nb_execution_mode = "off"
nb_ipywidgets_js = {}
nb_merge_streams = True
nb_render_markdown_format = "myst"  # Markdown outputs (the tables the notebooks display) as MyST
myst_heading_anchors = 3
myst_enable_extensions = []
suppress_warnings = ["myst.header"]
'''

_CSS = """\
div.body { max-width: none; }
div.body img { max-width: min(100%, 820px); height: auto; }
/* a wide or long table scrolls inside its own box, its header row kept in view */
div.body table { font-size: 0.85em; display: block; width: fit-content; max-width: 100%;
  max-height: 85vh; overflow: auto; border-collapse: collapse; }
div.body table thead th { position: sticky; top: 0; z-index: 1; background: #eeeeee; }
div.body table td, div.body table th { padding: 2px 6px; min-width: 4em; vertical-align: top;
  overflow-wrap: break-word; }
div.body table td { max-width: 38em; }
div.cell_output img { max-width: 100%; }
"""


def _favicon(path: Path) -> None:
    """A 16x16 PNG (a two-tone square), so the browser asks for no missing /favicon.ico."""
    import struct
    import zlib

    raw = b"".join(b"\x00" + b"".join(bytes((40, 70, 110)) if (x // 4 + y // 4) % 2
                                      else bytes((235, 235, 235)) for x in range(16))
                   for y in range(16))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8,
                                                                        2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def _commit(root: Path) -> str:
    from chessmoe._io.provenance import git_commit

    git = git_commit(root)
    commit = git.get("commit")
    if not isinstance(commit, str):
        return "unknown"
    return commit[:12] + (" (with uncommitted changes)" if git.get("dirty") else "")


def write_sources(inputs: SiteInputs, src: Path,
                  jobs: Sequence[NotebookJob] = NOTEBOOK_JOBS) -> list[str]:
    """Write the report's Sphinx sources into ``src`` (emptied first); return its pages.

    The pages: the landing page (the answer, :mod:`chessmoe.report.answer`, and the claims table),
    one page per artefact of the job table, the executed notebooks, the ``docs/`` pages,
    REPRODUCING.md, the README, the evidence in detail (``docs/evidence/``,
    :mod:`chessmoe.report.pages`), the figure index, the benchmarks and how to start the explorers.
    """
    check_inputs(inputs, jobs)
    if src.exists():
        shutil.rmtree(src)
    (src / "_static").mkdir(parents=True)
    _favicon(src / "_static" / "favicon.png")
    (src / "_static" / "report.css").write_text(_CSS, encoding="utf-8")
    (src / "conf.py").write_text(_CONF, encoding="utf-8")
    root = inputs.root
    shutil.copytree(inputs.figures, src / "figures")
    artefact_list = artefacts(jobs)
    reproducing = (root / "REPRODUCING.md").read_text(encoding="utf-8")
    evidence = report_pages.read_evidence(root)
    context = Context(inputs, read_index(inputs.figures / "INDEX.md"),
                      comparisons(reproducing),
                      summary.read_claims(inputs.figures / "claims.csv"), evidence=evidence)
    stale = [a.stem for a in artefact_list if a.stem not in context.index.results_read]
    if stale:
        raise ReportInputsMissing(f"{inputs.figures / 'INDEX.md'} does not list "
                                  f"{', '.join(stale)}: run `make figures` to regenerate it")

    pages: dict[str, str] = {}
    docs = sorted(p for p in (root / "docs").glob("*.md")) if (root / "docs").is_dir() else []
    known = ({f"docs/{p.name}" for p in docs} | {"REPRODUCING.md", "README.md"}
             | {f"notebooks/{job.notebook}" for job in jobs}
             | {page_name(a.stem) for a in artefact_list})
    target = report_pages.wrap_target(_site_target(known), evidence, known)
    context.rewrite = lambda text, source, page: rewrite_links(text, source, target, page)

    for artefact in artefact_list:
        pages[page_name(artefact.stem)] = artefact_page(artefact, context)
    for group in GROUPS:
        members = [a for a in artefact_list if a.group == group]
        pages[f"{group}.md"] = group_page(group, members, context.compared)
    pages["index.md"] = landing(context, _commit(root))
    pages["explorers.md"] = explorers_page()
    pages["REPRODUCING.md"] = rewrite_links(
        report_pages.point_links(reproducing, "REPRODUCING.md", evidence), "REPRODUCING.md", target)
    readme = (root / "README.md").read_text(encoding="utf-8")
    pages["README.md"] = rewrite_links(readme, "README.md", target)
    own = [e for e in evidence if e.site_page(known).startswith("evidence/")]
    for item in own:
        name = item.site_page(known)
        text = report_pages.point_links(report_pages.evidence_page(item), item.source, evidence)
        pages[name] = rewrite_links(text, item.source, target, name)
    pages["evidence/index.md"] = "\n".join([
        "# The evidence in detail", "",
        "What REPRODUCING.md keeps to one line, in full (`docs/evidence/`). Most of it is on "
        "the pages of the figures it belongs to:", "",
        *(f"* [{e.title}](../{e.site_page(known)})" for e in evidence), "",
        *toctree([e.site_page(known)[len("evidence/"):-3] for e in own], hidden=True)]) + "\n"
    index_text = (inputs.figures / "INDEX.md").read_text(encoding="utf-8")
    pages["figures-index.md"] = rewrite_links(
        index_text.replace("# Figures and tables", "# Every figure and table, with its "
                           "provenance (figures/INDEX.md)", 1), "figures/INDEX.md",
        lambda p: (f"artefacts/{p[len('figures/'):].rsplit('.', 1)[0]}.md"
                   if target(p) is not None else None), page="figures-index.md")
    benchmarks = (root / "BENCHMARKS.md").read_text(encoding="utf-8")
    pages["benchmarks.md"] = rewrite_links(benchmarks, "BENCHMARKS.md", target)
    doc_links = []
    for doc in docs:
        name = f"docs/{doc.name}"
        pages[name] = rewrite_links(doc.read_text(encoding="utf-8"), name, target)
        first = doc.read_text(encoding="utf-8").splitlines()[0].lstrip("# ").strip()
        doc_links.append(f"* [{first}]({doc.name})")
    for image in sorted((root / "docs").glob("*.png")) if docs else []:
        (src / "docs").mkdir(exist_ok=True)
        shutil.copyfile(image, src / "docs" / image.name)
    pages["docs/index.md"] = "\n".join([
        "# Documentation", "", "The pages of `docs/` (the README's detail lives here).", "",
        *doc_links, "", *toctree([d.stem for d in docs], hidden=True)]) + "\n"
    (src / "notebooks").mkdir()
    for job in jobs:
        _copy_notebook(inputs.notebooks / job.notebook, src / "notebooks" / job.notebook,
                       f"notebooks/{job.notebook}", target)
    pages["notebooks/index.md"] = "\n".join([
        "# The executed notebooks", "",
        "Each notebook as `make figures` ran it (papermill, against the committed results), "
        "with its outputs. The sources, without outputs, are in `notebooks/`.", "",
        *(f"* [{job.notebook}]({job.notebook})" for job in jobs), "",
        *toctree([job.notebook[:-6] for job in jobs], hidden=True)]) + "\n"
    for name, text in pages.items():
        path = src / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return sorted(pages) + [f"notebooks/{job.notebook}" for job in jobs]


# --- offline check and build --------------------------------------------------------------------

_FETCH = re.compile(
    r"<(?:script|img|iframe|source|video|audio|embed)\b[^>]*\bsrc\s*=\s*[\"']?(?:https?:)?//"
    r"|<link\b[^>]*\bhref\s*=\s*[\"']?(?:https?:)?//"
    r"|url\(\s*[\"']?(?:https?:)?//|@import\s+[\"'](?:https?:)?//", re.I)


def external_fetches(site: Path) -> list[str]:
    """Every place in the built site (HTML, CSS, JS) that would load something from the
    network when a page is viewed: ``file: excerpt``."""
    found = []
    for path in sorted(site.rglob("*")):
        if path.suffix not in {".html", ".css", ".js"} or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in _FETCH.finditer(text):
            end = min(i for i in (text.find(">", match.start()), text.find(")", match.start()),
                                  match.start() + 160) if i >= 0)
            excerpt = text[match.start():end + 1].split("\n")[0]
            found.append(f"{path.relative_to(site)}: {excerpt}")
    return found


def build(inputs: SiteInputs, out: Path, *, jobs: Sequence[NotebookJob] = NOTEBOOK_JOBS,
          log: Callable[[str], None] = print) -> Path:
    """Build the report into ``out`` (its sources in ``out``'s sibling ``<name>-src``);
    return ``out / "index.html"``. Raises :class:`ReportInputsMissing` naming what is absent
    and ``RuntimeError`` on a Sphinx warning or a page that would fetch from the network."""
    try:
        from sphinx.cmd.build import build_main
    except ImportError as error:
        raise ReportInputsMissing("Sphinx and MyST-NB are not installed: pip install -e "
                                  "'.[report]' (make report does)") from error
    start = time.monotonic()
    src = out.parent / f"{out.name}-src"
    pages = write_sources(inputs, src, jobs)
    log(f"make report: {len(pages)} pages written to {src} "
        f"({time.monotonic() - start:.1f} s)")
    if out.exists():
        shutil.rmtree(out)
    warnings = out.parent / f"{out.name}-warnings.txt"
    status = build_main(["-b", "html", "-q", "-W", "--keep-going", "-w", str(warnings),
                         "-d", str(out.parent / f"{out.name}-doctrees"), str(src), str(out)])
    if status != 0:
        text = warnings.read_text(encoding="utf-8") if warnings.is_file() else ""
        raise RuntimeError(f"make report: Sphinx failed (status {status}):\n{text}")
    fetches = external_fetches(out)
    if fetches:
        raise RuntimeError("make report: pages would load from the network:\n  "
                           + "\n  ".join(fetches))
    log(f"make report: {out / 'index.html'} ({time.monotonic() - start:.1f} s)")
    return out / "index.html"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m chessmoe.report.site",
                                     description="Build the static reproduction report.")
    parser.add_argument("--root", type=Path, default=Path("."))
    parser.add_argument("--notebooks", type=Path, default=None,
                        help="the executed notebooks (default: ROOT/build/notebooks)")
    parser.add_argument("--out", type=Path, default=None,
                        help="the site (default: ROOT/build/report)")
    parser.add_argument("--screenshots", type=Path, default=None, metavar="DOCS",
                        help="retake the report's screenshots into DOCS (make report: docs/) "
                             "where Chromium is installed")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    inputs = SiteInputs(root, (args.notebooks or root / "build" / "notebooks").resolve())
    out = (args.out or root / "build" / "report").resolve()
    try:
        build(inputs, out)
    except (ReportInputsMissing, RuntimeError) as error:
        print(error, file=sys.stderr)
        return 2
    if args.screenshots is not None:
        from chessmoe.report import screens

        reason = screens.missing_browser()
        if reason is not None:
            print(f"make report: the screenshots in {args.screenshots} were not retaken: "
                  f"{reason}", file=sys.stderr)
        else:
            for path in screens.take(out, args.screenshots, inputs.figures):
                print(f"make report: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
