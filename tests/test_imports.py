"""The import graph (grimp, which import-linter builds on): no loop among the package's
modules, function-level and package ``__init__`` imports included."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import grimp

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: tomli, which import-linter itself reads with
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
LOOP_CONTRACT = "No import loops among the package's modules"


def skipped_imports() -> list[tuple[str, str]]:
    """The imports the no-loop contract of pyproject.toml skips (a known loop, named there)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"]
                   if c["name"] == LOOP_CONTRACT]
    assert contract["type"] == "acyclic_siblings" and contract["ancestors"] == ["chessmoe"]
    pairs = [tuple(part.strip() for part in line.split("->"))
             for line in contract.get("ignore_imports", [])]
    return [(importer, imported) for importer, imported in pairs]


def import_loops(graph: grimp.ImportGraph) -> list[tuple[str, ...]]:
    """One loop (``a -> b -> ... -> a``) for every group of modules that import each other
    round a loop (strongly connected components of two or more modules)."""
    modules = sorted(graph.modules)
    imports = {m: graph.find_modules_directly_imported_by(m) for m in modules}
    reached: dict[str, set[str]] = {}
    for start in modules:
        seen, todo = {start}, [start]
        while todo:
            for other in imports[todo.pop()]:
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
        reached[start] = seen
    loops, done = [], set()
    for module in modules:
        group = {m for m in reached[module] if module in reached[m]}
        if len(group) < 2 or module in done:
            continue
        done |= group
        following = min(m for m in imports[module] if m in group)
        back = graph.find_shortest_chain(importer=following, imported=module)
        assert back is not None
        loops.append((module, *back))
    return loops


def test_no_module_of_the_package_is_in_an_import_loop() -> None:
    spec = importlib.util.find_spec("chessmoe")
    assert spec is not None and spec.origin == str(ROOT / "chessmoe" / "__init__.py")  # this tree
    graph = grimp.build_graph("chessmoe", exclude_type_checking_imports=True, cache_dir=None)
    for importer, imported in skipped_imports():
        graph.remove_import(importer=importer, imported=imported)
    loops = import_loops(graph)
    assert loops == [], "import loops:\n" + "\n".join(" -> ".join(loop) for loop in loops)


def test_a_loop_is_found_and_named() -> None:
    """A loop of three modules and one of two, beside a chain that is no loop."""
    graph = grimp.ImportGraph()
    for importer, imported in (("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d"),
                               ("p.e", "p.f"), ("p.f", "p.e"), ("p.g", "p.a")):
        graph.add_import(importer=importer, imported=imported)
    assert import_loops(graph) == [("p.a", "p.b", "p.c", "p.a"), ("p.e", "p.f", "p.e")]


def test_the_reports_read_results_without_importing_the_players() -> None:
    """report reads game records and summaries through chessmoe.records: no chain of imports
    (function-level ones included) leads from any report module to chessmoe.play, and the
    import-linter contract that keeps it so is in pyproject.toml."""
    graph = grimp.build_graph("chessmoe", exclude_type_checking_imports=True, cache_dir=None)
    chain = graph.find_shortest_chain(importer="chessmoe.report", imported="chessmoe.play",
                                      as_packages=True)
    assert chain is None, "report imports play: " + " -> ".join(chain or ())
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert any(c["type"] == "forbidden" and c["source_modules"] == ["chessmoe.report"]
               and c["forbidden_modules"] == ["chessmoe.play"]
               for c in config["tool"]["importlinter"]["contracts"])


RELATED_TRAINERS = ("chessmoe.nets.related.train_deepchess", "chessmoe.nets.related.train_mais",
                    "chessmoe.nets.related.train_ntuple")


def test_the_players_and_the_searches_never_import_a_related_trainer() -> None:
    """The related engines' trainers sit in nets and are handed what they need of the search
    by their caller (``chessmoe related train``): no chain of imports leads to one from
    chessmoe.play or chessmoe.search, and the import-linter contract that keeps it so names
    each of them."""
    graph = grimp.build_graph("chessmoe", exclude_type_checking_imports=True, cache_dir=None)
    for trainer in RELATED_TRAINERS:
        assert trainer in graph.modules
        for source in ("chessmoe.play", "chessmoe.search"):
            chain = graph.find_shortest_chain(importer=source, imported=trainer,
                                              as_packages=True)
            assert chain is None, f"{source} imports {trainer}: " + " -> ".join(chain or ())
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert any(c["type"] == "forbidden"
               and set(c["source_modules"]) == {"chessmoe.play", "chessmoe.search"}
               and set(RELATED_TRAINERS) <= set(c["forbidden_modules"])
               for c in config["tool"]["importlinter"]["contracts"])
