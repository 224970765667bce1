"""Migration steps of the census record that rewrite values (:meth:`CensusRecord.migrate`)."""

from __future__ import annotations

from typing import Any

__all__ = ["clamp_v2", "old_task_kind"]


def _clamp_point(point: dict[str, Any], n_seen: float, unseen: str, raw: str) -> None:
    """Version 2 → 3 for one estimate: keep ``unseen`` as ``raw``, report ``max(Û, 0)``."""
    value = point.get(unseen)
    if not isinstance(value, (int, float)):
        return
    point[raw] = value
    if value < 0:
        point[unseen] = 0.0
        point["n_total"] = n_seen
        if n_seen > 0 and "skr" in point:
            point["skr"] = 1.0


def clamp_v2(data: dict[str, Any]) -> None:
    """Read a version-2 result with the version-3 rule (Û reported as ``max(Û, 0)``)."""
    seen = data.get("n_seen")
    n_seen = float(seen) if isinstance(seen, (int, float)) else 0.0
    _clamp_point(data, n_seen, "n_unseen", "n_unseen_raw")
    for point in data.get("curve") or []:
        if isinstance(point, dict):
            _clamp_point(point, n_seen, "unseen", "unseen_raw")
    study = data.get("sensitivity")
    if isinstance(study, dict):
        for key, unseen, raw in (
            ("t_points", "unseen", "unseen_raw"),
            ("k_points", "n_unseen", "n_unseen_raw"),
        ):
            for point in study.get(key) or []:
                if isinstance(point, dict):
                    _clamp_point(point, n_seen, unseen, raw)


_OLD_TASK_KINDS = frozenset({"diseases", "theorems", "ontology", "diversity", "text"})
"""What ``kind`` held in census files of version 1 to 3 (the task kind, now ``task_kind``)."""


def old_task_kind(kind: str, version: object) -> bool:
    """Whether a file of ``kind`` at ``version`` is an older census record, not another instrument's:
    versions 1 to 3 held the task kind in ``kind``."""
    return isinstance(version, int) and version <= 3 and kind in _OLD_TASK_KINDS
