"""``python -m chessmoe`` runs the command-line interface."""

from chessmoe.cli import main

raise SystemExit(main())
