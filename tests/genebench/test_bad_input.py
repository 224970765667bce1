"""Bad rows of the user files: one clear line naming the file and line (the CLI's bad input:
tests/cli/test_genebench_cli.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowsum.errors import InputFileError
from knowsum.genebench import read_abstracts, read_expression, read_summaries


@pytest.mark.parametrize(
    ("reader", "text", "line", "message"),
    [
        (read_expression, "gene\tcategory\ttissues\nTP53\tHigh expression\tliver\n", 2, "unknown category"),
        (read_expression, "TP53\tBiased expression\n", 1, "expected 3 tab-separated columns"),
        (read_expression, "TP53\tBiased expression\t \n", 1, "empty tissue list"),
        (read_expression, "TP53\tLow expression\tliver\n", 1, "'Low expression' gene"),
        (
            read_expression,
            "TP53\tBiased expression\tliver\nTP53\tBiased expression\tcolon\n",
            2,
            "appears twice",
        ),
        (read_expression, '{"gene": "TP53", "category": "Biased expression"}\n', 1, "missing key"),
        (
            read_expression,
            '{"gene": "TP53", "category": 3, "tissue_list": ["liver"]}\n',
            1,
            "unknown category",
        ),
        (read_summaries, "TP53\t\n", 1, "empty summary"),
        (read_summaries, "TP53 has no tab\n", 1, "expected 2 tab-separated columns"),
        (read_abstracts, "pmid\tabstract\nPMID123\ttext\n", 2, "PubMed ID"),
        (read_abstracts, '{"pmid": 1, "abstract": "a"}\n{"pmid": 1, "abstract": "b"}\n', 2, "appears twice"),
        (read_abstracts, "{not json\n", 1, "invalid JSON"),
    ],
)
def test_user_file_bad_rows(tmp_path: Path, reader, text: str, line: int, message: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "user.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputFileError, match=message) as exc:
        reader(path)
    assert str(exc.value).startswith(f"{path}:{line}:")


def test_user_files_good_rows(tmp_path: Path) -> None:
    path = tmp_path / "e.tsv"
    path.write_text("gene\tcategory\ttissues\nAADAC\tbiased expression\tliver|small intestine, duodenum\n")
    assert read_expression(path)["AADAC"].tissues == ("liver", "small intestine", "duodenum")
    path.write_text('{"pmid": 12, "abstract": "TRAPP is a complex."}\n\n34\tSecond abstract.\n')
    assert read_abstracts(path) == {12: "TRAPP is a complex.", 34: "Second abstract."}
