"""Voila culls idle kernels (issue 23, defect 8): every visit of an explorer page starts a
150-210 MB kernel, which used to outlive its closed tab. Both the root's voila.json (read by any
`voila` started in the repository root, as `make explore` and tests/browser.py do) and the
Makefile's explicit flags must reach Voila's kernel manager."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WANTED = {"cull_interval": 60, "cull_idle_timeout": 120, "cull_connected": False}
_PROBE = """
import sys
from voila.app import Voila
app = Voila()
app.initialize(sys.argv[1:])
app.init_settings()
km = app.kernel_manager
print(km.cull_interval, km.cull_idle_timeout, km.cull_connected)
"""


def _kernel_manager_settings(cwd: Path, *flags: str) -> tuple[int, int, bool]:
    pytest.importorskip("voila")
    out = subprocess.run([sys.executable, "-c", _PROBE,
                          str(ROOT / "notebooks" / "07_elo_explorer.ipynb"), "--no-browser",
                          *flags], cwd=cwd, capture_output=True, text=True, check=True,
                         timeout=120)
    interval, idle, connected = out.stdout.split()[-3:]
    return int(interval), int(idle), connected == "True"


def test_voila_json_holds_the_culling_settings() -> None:
    config = json.loads((ROOT / "voila.json").read_text(encoding="utf-8"))
    assert {k: config["MappingKernelManager"][k] for k in WANTED} == WANTED


def test_make_explore_passes_the_culling_flags() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    flags = re.search(r"^VOILA_CULL := (.*?)(?<!\\)$", makefile, re.M | re.S)
    assert flags is not None and "$(VOILA_CULL)" in makefile.split("explore:", 1)[1]
    parsed = dict(f.split("=", 1) for f in shlex.split(flags.group(1).replace("\\\n", " ")))
    assert parsed == {"--MappingKernelManager.cull_interval": "60",
                      "--MappingKernelManager.cull_idle_timeout": "120",
                      "--MappingKernelManager.cull_connected": "False"}


@pytest.mark.slow
def test_voila_started_in_the_root_culls_idle_kernels(tmp_path: Path) -> None:
    assert _kernel_manager_settings(ROOT) == (60, 120, False)
    assert _kernel_manager_settings(tmp_path)[1] == 0  # elsewhere: Voila's default, no culling
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    match = re.search(r"^VOILA_CULL := (.*?)(?<!\\)$", makefile, re.M | re.S)
    assert match is not None
    flags = shlex.split(match.group(1).replace("\\\n", " "))
    assert _kernel_manager_settings(tmp_path, *flags) == (60, 120, False)
