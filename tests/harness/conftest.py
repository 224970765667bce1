"""Harness test fixtures: the census fixtures (DOID and theorems installed offline from the slices)."""

from tests.census.conftest import kb_home, store

__all__ = ["kb_home", "store"]
