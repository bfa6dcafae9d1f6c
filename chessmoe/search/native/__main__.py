"""``python -m chessmoe.search.native``: compile the search core into numba's on-disk cache now
(``make env`` runs it), so the first search of a UCI engine or a tournament starts at once."""

from __future__ import annotations

import time

from chessmoe.search.native.search import warm_up

if __name__ == "__main__":
    start = time.perf_counter()
    warm_up()
    print(f"compiled search core ready in {time.perf_counter() - start:.1f} s "
          "(numba's cache: later processes load it)")
