"""Executing one notebook with papermill: parameters checked before a kernel starts, kernels
talking over IPC sockets in a private folder, the executed copy written atomically."""

from __future__ import annotations

import functools
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from chessmoe._io.parameters import ParameterError

__all__ = [
    "declared_parameters",
    "execute",
    "private_kernel_manager",
]

# --- execution ---------------------------------------------------------------------------


def declared_parameters(notebook: str | Path) -> dict[str, Any]:
    """The parameters a notebook declares (papermill's inspection of its parameters cell)."""
    import papermill

    return dict(papermill.inspect_notebook(str(notebook)))


@functools.cache
def private_kernel_manager() -> type:
    """A kernel manager whose kernels talk over IPC sockets in a private temporary folder.

    Jupyter's default is TCP on localhost without encryption (ipykernel warns about it on
    every start); IPC sockets in a fresh ``mkdtemp`` folder (mode 0700) are neither
    reachable from other users nor shared between kernels started side by side, and the
    folder is removed when the kernel shuts down.
    """
    import tempfile

    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    class PrivateKernelManager(AsyncKernelManager):
        @default("transport")
        def _private_transport(self) -> str:
            return "ipc"

        @default("ip")
        def _private_ip(self) -> str:
            return str(Path(tempfile.mkdtemp(prefix="chessmoe-kernel-")) / "kernel")

        async def _async_cleanup_resources(self, restart: bool = False) -> None:
            await super()._async_cleanup_resources(restart=restart)
            if not restart and self.transport == "ipc":
                shutil.rmtree(Path(self.ip).parent, ignore_errors=True)

    return PrivateKernelManager


def execute(notebook: str | Path, output: str | Path, params: Mapping[str, Any], *,
            kernel: str = "chessmoe", cwd: str | Path | None = None,
            progress: bool = False) -> Path:
    """Execute ``notebook`` into ``output`` with ``params``; unknown names fail first."""
    import papermill

    declared = declared_parameters(notebook)
    unknown = [k for k in params if k not in declared]
    if unknown:
        raise ParameterError(f"{Path(notebook).name}: unknown parameter(s) {unknown}; it "
                             f"takes {sorted(declared)}")
    Path(output).parent.mkdir(parents=True, exist_ok=True)
    papermill.execute_notebook(str(notebook), str(output), parameters=dict(params),
                               kernel_name=kernel, progress_bar=progress,
                               cwd=str(cwd or Path(notebook).parent), log_output=False,
                               kernel_manager_class=private_kernel_manager())
    return Path(output)


