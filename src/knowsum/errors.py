"""The one exception tree of knowsum.

Library code raises these; only the CLI turns them into exit codes (``exit_code``) and one
line on stderr. Every message says what went wrong *and* what to do about it.

::

    KnowsumError                      exit 1   root; never raised directly
    ├── InputError                    exit 2   bad user input (file, line, value, option)
    │   ├── InputFileError                     a file that is missing, unreadable or malformed
    │   ├── ConfigError                        an invalid configuration value
    │   └── OutputError                        an output that would replace an input, a file that is
    │                                          not a knowsum output of its kind, or another run, or
    │                                          that cannot be written (knowsum._util.check_output)
    ├── UnknownNameError              exit 2   unknown model / KB / task name (lists the known ones)
    ├── NotInstalledError             exit 3   data or weights not installed (says the install command)
    │   ├── ModelNotInstalledError
    │   └── KBNotInstalledError
    ├── SourceError                   exit 4   a registry source unreachable, or a corrupt/truncated file
    ├── BackendError                  exit 5   a model backend failed (after retries)
    │   └── EndpointUnreachableError
    └── StoreError                    exit 6   the response store cannot be opened/migrated/written

    knowsum.stats.StatsError (ValueError)  exit 2   raised by the pure statistics layer, which
                                                    imports nothing from the project; the CLI
                                                    reports it like an InputError.
"""

from __future__ import annotations

__all__ = [
    "BackendError",
    "ConfigError",
    "EndpointUnreachableError",
    "InputError",
    "InputFileError",
    "KBNotInstalledError",
    "KnowsumError",
    "KnowsumNote",
    "ModelNotInstalledError",
    "NotInstalledError",
    "OutputError",
    "SourceError",
    "StoreError",
    "UnknownNameError",
]


class KnowsumError(Exception):
    """Root of every error knowsum raises on purpose."""

    exit_code: int = 1


class KnowsumNote(UserWarning):
    """Something a layer below the command line did that the user must hear of (not an error): the
    command line prints it as one ``knowsum: note: …`` line on stderr; the library raises it as a
    warning."""


class InputError(KnowsumError):
    """Bad user input: an option value, a file, a line of a file."""

    exit_code = 2


class InputFileError(InputError):
    """A file that is missing, unreadable or malformed.

    The message names the file and, where known, the 1-based line number and the offending line.
    """

    def __init__(self, path: object, problem: str, line_no: int | None = None, line: str | None = None):
        self.path = str(path)
        self.line_no = line_no
        self.line = line
        where = f"{self.path}:{line_no}" if line_no is not None else self.path
        shown = f" (line: {line.rstrip()[:120]!r})" if line is not None else ""
        super().__init__(f"{where}: {problem}{shown}")


class ConfigError(InputError):
    """An invalid configuration value (CLI option, TOML config, pydantic validation)."""


class OutputError(InputError):
    """An output the write guard refuses: it names the output and what it would have replaced."""


class UnknownNameError(KnowsumError):
    """An unknown model, knowledge base or task name; the message lists the known names."""

    exit_code = 2

    def __init__(self, kind: str, name: str, known: list[str] | tuple[str, ...]):
        self.kind = kind
        self.name = name
        self.known = list(known)
        super().__init__(f"unknown {kind} {name!r}; known: {', '.join(sorted(self.known))}")


class NotInstalledError(KnowsumError):
    """Data or weights that must be installed first; the message says the command."""

    exit_code = 3


class ModelNotInstalledError(NotInstalledError):
    """A registry model whose weights are not in the knowsum home yet."""


class KBNotInstalledError(NotInstalledError):
    """A knowledge base that has not been installed yet."""


class SourceError(KnowsumError):
    """A registry source that cannot be reached, or a corrupt/truncated source file."""

    exit_code = 4


class BackendError(KnowsumError):
    """A model backend failed, after its retries."""

    exit_code = 5


class EndpointUnreachableError(BackendError):
    """An OpenAI-compatible base URL that does not answer."""


class StoreError(KnowsumError):
    """The response store cannot be opened, migrated or written."""

    exit_code = 6
