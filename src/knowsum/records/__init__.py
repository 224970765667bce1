"""knowsum.records — the run records every instrument writes, and the one way they are read and written.

::

    Record                      version · kind · created · knowsum_version · model · backend · kb_releases
    ├── each instrument's       kind = its registry name, in its own folder (knowsum.<name>.record)
    └── profile.ProfileRecord   kind "profile" (every instrument of a budget on one model, one page)

    load_record(path, Cls)      read any earlier schema version of Cls (migrations), one clear error
    claim_run_dir(out, kind, identity, overwrite=…)   before sampling: OUT empty, the same run, or refused
    write_run_dir(out, record, files, pages=…)   data files → plots/ + report.html → result.json last
    Usage                       requests, tokens and time of a run (Record.usage)
    check_comparable(records, labels, allow_mixed=…)   may these runs stand side by side? (one check)
    Caveat                      one caveat of a figure (Record.caveats): kind · mark · message · figure
    Run[R](record, out_dir, report)             what every entry point returns (each instrument names its own)
    default_run_dir(instrument, what, model)    <instrument>-runs/<what>-<model> without --out
    PublishedRow(model, paper, table, measure, value)   one value a paper published (.label)

This package sits below the instruments and the report layer: instruments build records, pages read
them, and neither needs the other.
"""

from knowsum._util import old_names
from knowsum.records._base import Record, load_record, now_iso, record_kinds
from knowsum.records._caveats import Caveat, caveat_notes
from knowsum.records._comparable import (
    DIFFERS,
    check_comparable,
    comparable_records,
    difference_note,
    differences,
    text_hash,
    with_difference,
)
from knowsum.records._published import PublishedRow, by_model, published_label, split_label
from knowsum.records._rundir import (
    PLOTS_DIR,
    REPORT_NAME,
    RESULT_NAME,
    FileBody,
    Run,
    claim_run_dir,
    default_run_dir,
    holds_only,
    is_run_like,
    write_run_dir,
)
from knowsum.records._usage import Usage

__all__ = [
    "DIFFERS",
    "PLOTS_DIR",
    "REPORT_NAME",
    "RESULT_NAME",
    "Caveat",
    "FileBody",
    "PublishedRow",
    "Record",
    "Run",
    "Usage",
    "by_model",
    "caveat_notes",
    "check_comparable",
    "claim_run_dir",
    "comparable_records",
    "default_run_dir",
    "difference_note",
    "differences",
    "holds_only",
    "is_run_like",
    "load_record",
    "now_iso",
    "published_label",
    "record_kinds",
    "split_label",
    "text_hash",
    "with_difference",
    "write_run_dir",
]

__getattr__ = old_names(__name__, {"CaveatNote": ("knowsum.caveats", "Caveat")})
"""Old names of this package, still found here with a ``DeprecationWarning``."""
