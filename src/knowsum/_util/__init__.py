"""knowsum._util — small shared helpers below every layer (no project imports but ``errors``).

- :func:`atomic_write`: write a file under a temporary name and rename it into place;
- :mod:`paths`: the knowsum home (``$KNOWSUM_HOME``) and its folders;
- :func:`disk_fault`, :func:`nearest_folder`: tell a full, read-only or forbidden disk apart;
- :func:`download_wheel`, :func:`cached_wheel`, :func:`sweep`: fetch one wheel from the package
  registry with pip, atomically, into a cache folder; :data:`EMBED_INSTALL`: how to install the
  embedding extra (torch's CPU build first);
- :func:`config_error`: one readable line from a pydantic validation error; :func:`known_values`:
  the one wording of a value that is not among the known ones; :func:`no_quoted_values`: a TOML
  number or flag written as text is refused, not read as the number;
- :func:`check_output`, :func:`claim_folder`: the one write guard every output passes (never over
  an input, a store or another kind of file; writable; a run folder keeps its run's identity);
  :func:`run_folders_above`, :func:`enclosing_run`: the run folders a path lies in;
  :func:`sampling_lock`: one run at a time samples into a database file (any name of it);
- :func:`old_names`: a module's ``__getattr__`` for names that moved or were renamed (a
  ``DeprecationWarning`` naming the new place);
- :func:`slug`: a file-name-safe form of a model id or task, for run folders;
- :func:`read_text_file`, :func:`check_file`: a user's UTF-8 text file, or one line saying what is
  wrong with it; :func:`not_utf8`: that line for a file that is not UTF-8 (byte and line named).

Every package may import these through ``knowsum._util`` (never its modules directly).
"""

from knowsum._util import paths
from knowsum._util.atomic import atomic_write
from knowsum._util.diskfaults import disk_fault, nearest_folder
from knowsum._util.names import slug
from knowsum._util.outputs import (
    CLAIM_NAME,
    OUTPUT_KINDS,
    OutputKind,
    check_output,
    claim_folder,
    enclosing_run,
    run_folders_above,
)
from knowsum._util.renamed import old_names
from knowsum._util.storelock import sampling_lock
from knowsum._util.textfile import check_file, is_query_item_header, not_utf8, read_text_file
from knowsum._util.validation import config_error, known_values, no_quoted_values
from knowsum._util.wheels import EMBED_INSTALL, cached_wheel, download_wheel, sweep

__all__ = [
    "CLAIM_NAME",
    "EMBED_INSTALL",
    "OUTPUT_KINDS",
    "OutputKind",
    "atomic_write",
    "cached_wheel",
    "check_file",
    "check_output",
    "claim_folder",
    "config_error",
    "disk_fault",
    "download_wheel",
    "enclosing_run",
    "is_query_item_header",
    "known_values",
    "nearest_folder",
    "no_quoted_values",
    "not_utf8",
    "old_names",
    "paths",
    "read_text_file",
    "run_folders_above",
    "sampling_lock",
    "slug",
    "sweep",
]
