"""One name for the run record: ``<Name>Record`` classes and ``Run.record``; the old ``…Result`` names
and ``Run.result`` still work, each with a ``DeprecationWarning`` naming the new one."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from knowsum.records import Run

OLD = {
    # module: old name → new name
    "knowsum.census": ("CensusResult", "CensusRecord"),
    "knowsum.census.record": ("CensusResult", "CensusRecord"),
    "knowsum.recall": ("RecallResult", "RecallRecord"),
    "knowsum.recall.record": ("RecallResult", "RecallRecord"),
    "knowsum.genebench": ("GenebenchResult", "GenebenchRecord"),
    "knowsum.genebench.record": ("GenebenchResult", "GenebenchRecord"),
    "knowsum.profile": ("ProfileResult", "ProfileRecord"),
    "knowsum.records.profile": ("ProfileResult", "ProfileRecord"),
}


@pytest.mark.parametrize("module", list(OLD))
def test_an_old_record_name_is_the_new_class_with_a_warning(module: str) -> None:
    old, new = OLD[module]
    found = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=rf"{module}\.{old} is now {module}\.{new}"):
        cls = getattr(found, old)
    assert cls is getattr(found, new) and new.endswith("Record")
    with pytest.raises(AttributeError, match="NoSuchResult"):
        found.NoSuchResult  # noqa: B018  # only the listed old names are found


def test_run_result_is_run_record_with_a_warning(tmp_path: Path) -> None:
    record = object()
    run = Run(record, tmp_path, tmp_path / "report.html")  # type: ignore[call-overload]
    assert run.record is record
    with pytest.warns(DeprecationWarning, match="Run.result is Run.record now"):
        assert run.result is record


def test_a_run_is_built_from_its_record_and_the_old_keyword_still_works(tmp_path: Path) -> None:
    record, page = object(), tmp_path / "report.html"
    assert Run(record=record, out_dir=tmp_path, report=page) == Run(record, tmp_path, page)  # type: ignore[call-overload]
    with pytest.warns(DeprecationWarning, match=r"Run\(result=…\) is Run\(record=…\) now"):
        old = Run(result=record, out_dir=tmp_path, report=page)  # type: ignore[call-overload]
    assert old.record is record and old.report == page
    with pytest.raises(TypeError, match="needs the record"):
        Run(out_dir=tmp_path, report=page)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="unexpected keyword argument 'reslt'"):
        Run(reslt=record, out_dir=tmp_path, report=page)  # type: ignore[call-overload]
