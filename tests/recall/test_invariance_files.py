"""Invariance answers made elsewhere (paper §6): reading, both readings, errors, the authors' release."""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowsum.errors import ConfigError, InputFileError
from knowsum.recall import read_predictions
from knowsum.recall._config import InvarianceMethod
from knowsum.recall._invariance_files import (
    parse_invariance_spec,
    read_invariance_file,
    score_invariance_answers,
    score_invariance_file,
)

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "recall"
INV = FIX / "invariance"


def _gold() -> list[str]:
    _, rows = read_predictions(INV / "concepts.csv")
    return [r.id for r in rows]


# --- the hand-made fixture: 3 buckets × K = 2 concepts, M = 3 answers each -------------------


def test_hand_made_fixture_both_readings() -> None:
    """Per concept (paper U / knowsum U → PI = 1 − (U − 1)/2; correct answers paper / knowsum):

    B1  c1 GO:0060219, two different refusals   3 / 2 → 0 / .5   0 / 0
        c2 GO:0060519 ×2, GO:0003179             2 / 2 → .5 / .5  0 / 0
    B2  c3 'GO:0060519', 'GO: 0060519', 'L'ID GO è GO:0060519.'
                                                3 / 1 → 0 / 1    1 / 3
        c4 GO:0003179, GO:0061384, GO:0003179    2 / 2 → .5 / .5  2 / 2
    B3  c5 GO:0061384 ×3                         1 / 1 → 1 / 1    3 / 3
        c6 GO:0051302 ×2, GO:2000145             2 / 2 → .5 / .5  2 / 2

    paper:   AvPI (.25, .25, .75), accuracy (0, 3/6, 5/6): ranks (1.5, 1.5, 3) vs (1, 2, 3),
             ρ = 1.5 / (√1.5 · √2) = √3/2; 4 of the 6 orders of 3 reach |ρ| ≥ √3/2 → p ≈ 2/3.
    knowsum: AvPI (.5, .75, .75), accuracy (0, 5/6, 5/6): identical ranks, ρ = 1; 2 of 6 orders
             reach it → p ≈ 1/3.
    """
    r = score_invariance_file("pi1", INV / "answers_m3.txt", _gold(), per_bucket=2, kb="go")
    assert r.differ and r.per_bucket == 2 and r.source.endswith("answers_m3.txt")
    p, k = r.reading("paper"), r.reading("knowsum")
    assert (p.m, p.n_concepts, p.variants) == (3, 6, ["repeat 1", "repeat 2", "repeat 3"])
    assert [(b.bucket, b.n, b.avpi, b.accuracy) for b in p.buckets] == [
        (1, 2, 0.25, 0.0),
        (2, 2, 0.25, 0.5),
        (3, 2, 0.75, 5 / 6),
    ]
    assert [(b.avpi, b.accuracy) for b in k.buckets] == [(0.5, 0.0), (0.75, 5 / 6), (0.75, 5 / 6)]
    assert p.mean_pi == 5 / 12 and k.mean_pi == 2 / 3
    assert p.accuracy == 8 / 18 and k.accuracy == 10 / 18
    assert p.spearman == pytest.approx(math.sqrt(3) / 2, rel=1e-12)
    assert k.spearman == pytest.approx(1.0, rel=1e-12)
    assert p.spearman_p == pytest.approx(2 / 3, abs=0.02)
    assert k.spearman_p == pytest.approx(1 / 3, abs=0.02)
    assert r.answers[0] == ["GO:0060219", None, None]
    assert r.answers[2] == ["GO:0060519"] * 3


def test_variant_names() -> None:
    answers = [["GO:0000001"] * 11] * 3
    r = score_invariance_answers("pi2", answers, ["GO:0000001"] * 3, per_bucket=1, kb="go")
    assert r.knowsum.variants[0] == "T=0" and r.knowsum.variants[-1] == "T=1"
    r3 = score_invariance_answers("pi3", [a[:5] for a in answers], ["GO:0000001"] * 3, per_bucket=1, kb="go")
    assert r3.paper.variants == [f"answer {i}" for i in range(1, 6)]
    assert r3.paper.spearman is None  # constant AvPI: undefined, not NaN


def test_accepted_ids_count_as_correct() -> None:
    r = score_invariance_answers(
        "pi1",
        [["GO:0000002", "GO:0000002"]],
        ["GO:0000001"],
        per_bucket=1,
        kb="go",
        accepted=[{"GO:0000002"}],
    )
    assert r.paper.accuracy == r.knowsum.accuracy == 1.0


def test_completion_prefix_reads_bare_digits() -> None:
    r = score_invariance_answers(
        "pi1", [["0000001", "GO:0000001"]], ["GO:0000001"], per_bucket=1, kb="go", completion_prefix="GO:"
    )
    assert r.answers == [["GO:0000001", "GO:0000001"]] and r.knowsum.mean_pi == 1.0
    assert r.paper.mean_pi == 0.0  # as written, "0000001" is another answer


# --- reading the layout --------------------------------------------------------------------------


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("final", [True, False])
def test_line_breaks_and_final_newline(tmp_path: Path, ending: str, final: bool) -> None:
    f = tmp_path / "a.txt"
    f.write_bytes((ending.join(["A", "B", "C", "D"]) + (ending if final else "")).encode())
    assert read_invariance_file(f, 2) == [["A", "B"], ["C", "D"]]


def test_utf8_bom_and_unicode_line_separators_kept(tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_bytes("\ufeffGO:1\nNo se puede\u2028más\n".encode())
    assert read_invariance_file(f, 1) == [["GO:1", "No se puede\u2028más"]]


# --- one clear message per malformed input ----------------------------------------------------------


def _message(exc: pytest.ExceptionInfo[BaseException]) -> str:
    return str(exc.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputFileError) as e:
        read_invariance_file(tmp_path / "nope.txt", 3)
    assert _message(e) == f"{tmp_path / 'nope.txt'}: no such file; give the path of an existing answers file"


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="is a directory; give a text file with one answer per line"):
        read_invariance_file(tmp_path, 3)


@pytest.mark.parametrize("content", [b"", b"\n\n  \r\n"])
def test_empty_file(tmp_path: Path, content: bytes) -> None:
    f = tmp_path / "e.txt"
    f.write_bytes(content)
    with pytest.raises(InputFileError) as e:
        read_invariance_file(f, 1000)
    assert (
        _message(e)
        == f"{f}: empty file; expected one answer per line, M lines for each of the 1,000 concepts"
    )


def test_binary_file(tmp_path: Path) -> None:
    f = tmp_path / "b.txt"
    f.write_bytes("GO:1\nGO:1\n".encode("utf-16"))
    with pytest.raises(InputFileError) as e:
        read_invariance_file(f, 1)
    assert _message(e) == (
        f"{f}: binary file (NUL byte at offset 3); save the answers as UTF-8 text, one answer per line"
    )


def test_not_utf8(tmp_path: Path) -> None:
    f = tmp_path / "l.txt"
    f.write_bytes("GO:1\nID de GO no válido\n".encode("latin-1"))
    with pytest.raises(InputFileError) as e:
        read_invariance_file(f, 1)
    assert _message(e) == (
        f"{f}:2: not UTF-8 text (byte 0xe1); save the answers as UTF-8 text, one answer per line"
    )


def test_line_count_not_a_multiple(tmp_path: Path) -> None:
    f = tmp_path / "n.txt"
    f.write_text("GO:1\nGO:1\nGO:2\nGO:2\nGO:3\n")
    with pytest.raises(InputFileError) as e:
        read_invariance_file(f, 2)
    assert _message(e) == (
        f"{f}: 5 lines is not a multiple of the 2 concepts; expected 2 × M lines (one answer per line, "
        "M consecutive lines per concept, in the concepts' order)"
    )


def test_line_count_hint_names_blank_separators(tmp_path: Path) -> None:
    f = tmp_path / "s.txt"
    f.write_text("GO:1\nGO:1\n\nGO:2\nGO:2\n")  # the authors' generator wrote a blank line per concept
    with pytest.raises(
        InputFileError, match="holds 1 blank line\\(s\\), the first at line 3: remove separators"
    ):
        read_invariance_file(f, 2)


def test_one_answer_per_concept(tmp_path: Path) -> None:
    f = tmp_path / "m1.txt"
    f.write_text("GO:1\nGO:2\n")
    with pytest.raises(InputFileError, match="M = 1 answer per concept; prediction invariance needs M >= 2"):
        read_invariance_file(f, 2)


def test_bad_per_bucket_fails_before_reading(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as e:
        score_invariance_file("pi2", tmp_path / "absent.txt", _gold(), per_bucket=4, kb="go")
    assert str(e.value).startswith("--per-bucket 4: 6 concepts are not K = 4 per bucket;")


# --- METHOD=FILE ------------------------------------------------------------------------------------


def test_parse_spec() -> None:
    assert parse_invariance_spec("pi2=out/t.txt") == ("pi2", Path("out/t.txt"))
    assert parse_invariance_spec(" PI3 = a=b.txt") == ("pi3", Path("a=b.txt"))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("pi4=x.txt", "--invariance-file: unknown method 'pi4'; use pi1, pi2 or pi3"),
        (
            "x.txt",
            "--invariance-file: expected METHOD=FILE, got 'x.txt'; use METHOD=FILE, e.g. "
            "pi2=2_different_temperatures_output.txt",
        ),
        (
            "pi1= ",
            "--invariance-file: no file after 'pi1='; use METHOD=FILE, e.g. "
            "pi2=2_different_temperatures_output.txt",
        ),
    ],
)
def test_parse_spec_errors(spec: str, message: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_invariance_spec(spec)
    assert str(e.value) == message


# --- properties ----------------------------------------------------------------------------------

ANSWER = st.sampled_from(
    ["GO:0000001", "GO:0000002", "GO: 0000001", "The GO ID is GO:0000002.", "No lo sé.", "I don't know.", ""]
)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_properties(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    k = data.draw(st.integers(1, 3))
    n = k * data.draw(st.integers(1, 5))
    m = data.draw(st.integers(2, 6))
    answers = [data.draw(st.lists(ANSWER, min_size=m, max_size=m)) for _ in range(n)]
    gold = [data.draw(st.sampled_from(["GO:0000001", "GO:0000002"])) for _ in range(n)]
    r = score_invariance_answers("pi1", answers, gold, per_bucket=k, kb="go", n_perm=50)
    for p, q in zip(r.paper.buckets, r.knowsum.buckets, strict=True):
        assert 0.0 <= p.avpi <= q.avpi <= 1.0  # extraction can only merge answers
        assert 0.0 <= p.accuracy <= q.accuracy <= 1.0  # a verbatim gold ID is also an extracted one
    # the file layout round-trips, whatever the line breaks
    ending = data.draw(st.sampled_from(["\n", "\r\n"]))
    f = tmp_path_factory.mktemp("prop") / "a.txt"
    f.write_bytes("".join(a + ending for row in answers for a in row).encode())
    if any(a.strip() for row in answers for a in row):  # else: an empty file
        assert read_invariance_file(f, n) == answers


# --- the authors' release: GPT-3.5 on GO (Prompt_invariance/, commit ef64e3e, CC0) -----------------

PAPER_RHO: dict[str, float] = {"pi2": 0.950, "pi3": 0.850}  # §6.3; "no statistical correlation" for PI-1
RELEASE = {
    "pi1": ("1_same_prompt_output.txt.gz", 10, 0.5446, 0.5446),
    "pi2": ("2_different_temperatures_output.txt.gz", 11, 0.9507, 0.9508),
    "pi3": ("3_different_languages_output.txt.gz", 5, 0.8503, 0.8539),
}


@pytest.mark.parametrize("method", ["pi1", "pi2", "pi3"])
def test_authors_release_reproduces_paper(tmp_path: Path, method: InvarianceMethod) -> None:
    name, m, paper_rho, knowsum_rho = RELEASE[method]
    f = tmp_path / name.removesuffix(".gz")
    f.write_bytes(gzip.decompress((INV / name).read_bytes()))
    gold = (FIX / "paper_bucket_sample.txt").read_text().split()
    r = score_invariance_file(method, f, gold, per_bucket=20, kb="go", n_perm=2000)
    assert r.paper.m == r.knowsum.m == m and len(r.paper.buckets) == 50
    rho_paper, rho_knowsum = r.paper.spearman, r.knowsum.spearman
    assert rho_paper is not None and rho_knowsum is not None
    assert rho_paper == pytest.approx(paper_rho, abs=5e-5)
    assert rho_knowsum == pytest.approx(knowsum_rho, abs=5e-5)
    assert r.paper.spearman_p is not None and r.paper.spearman_p < 0.01
    if method in PAPER_RHO:
        assert abs(rho_paper - PAPER_RHO[method]) <= 0.005
        assert abs(rho_knowsum - PAPER_RHO[method]) <= 0.005
