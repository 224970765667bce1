"""A plug-in's run folder is a run folder like knowsum's own: its record kind is any registry name.

``claim_run_dir`` takes a folder a plug-in run finished as that run (a rerun replaces it), not as
"an unfinished run"; another instrument's claim on it names the plug-in's kind; reading it as another
instrument's record says whose it is; a missing record names the command that writes it: the
instrument's own, or ``knowsum run <kind>`` for a plug-in, which has none.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal

import pytest

from knowsum.census import CensusRecord
from knowsum.errors import InputError, InputFileError
from knowsum.records import Record, claim_run_dir, load_record, record_kinds, write_run_dir
from tests.instrument._yes import YesRecord


def _finished(folder: Path) -> Path:
    record = YesRecord(model="m", backend="mock", config={"question": "q"}, n=2, yes=1)
    write_run_dir(folder, record, {"report.html": "<p>yes</p>"})
    return folder


def test_a_plugins_finished_folder_is_claimed_as_its_own_run(tmp_path: Path) -> None:
    folder = _finished(tmp_path / "yes-run")
    assert claim_run_dir(folder, "yes", {"what": "q", "model": "m"}) == folder
    assert (folder / "result.json").is_file()  # nothing emptied: a rerun replaces it as it writes


def test_another_instruments_claim_names_the_plugins_kind(tmp_path: Path) -> None:
    folder = _finished(tmp_path / "yes-run")
    with pytest.raises(InputError, match="holds a yes run"):
        claim_run_dir(folder, "census", {"what": "diseases", "model": "m"})


def test_reading_a_plugins_record_as_another_kind_says_whose_it_is(tmp_path: Path) -> None:
    folder = _finished(tmp_path / "yes-run")
    with pytest.raises(InputFileError, match=r"not a census result\.json \(kind 'yes'\); pass a census run"):
        load_record(folder, CensusRecord)
    assert load_record(folder, YesRecord).yes == 1


def test_a_missing_record_names_the_command_that_writes_it(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match=r"run `knowsum census run` first"):
        load_record(tmp_path / "nowhere", CensusRecord)
    hint = r"no yes result here \(run `knowsum run yes` first, or pass a yes run directory\)"
    with pytest.raises(InputFileError, match=hint):
        load_record(tmp_path / "nowhere", YesRecord)


def test_the_record_kinds_are_the_record_classes_defined() -> None:
    assert {"census", "profile", "yes"} <= record_kinds()  # the record classes imported here
    assert "" not in record_kinds()


def test_kind_and_version_are_read_from_the_field_defaults_and_a_contradiction_is_refused() -> None:
    """``KIND``/``VERSION`` come from ``kind``/``version``'s defaults (knowsum's records and the docs'
    plug-in set only those); a plug-in that still sets ``KIND`` works when it agrees, and a class
    whose ``KIND`` contradicts its ``kind`` is refused where it is defined."""
    assert ("census", CensusRecord.model_fields["version"].default) == (
        CensusRecord.KIND,
        CensusRecord.VERSION,
    )
    assert (YesRecord.KIND, YesRecord.VERSION) == ("yes", 1)  # sets KIND itself, as before

    class Derived(Record):
        version: int = 3
        kind: Literal["zz-derived"] = "zz-derived"

    assert (Derived.KIND, Derived.VERSION) == ("zz-derived", 3)
    with pytest.raises(TypeError, match=r"Clash.KIND is 'zz-one', but its kind field defaults to 'zz-two'"):

        class Clash(Record):
            KIND: ClassVar[str] = "zz-one"
            version: int = 1
            kind: Literal["zz-two"] = "zz-two"
