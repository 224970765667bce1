"""``knowsum recall run|score|compare`` through ``main([...])``: outputs, exit codes, stderr."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.kb import install

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "recall"
POP = str(FIX / "mini_go_popularity.csv")
# the stable --json keys (used by scripts; docs/recall.md)
KEYS = {"accuracy", "bucket_spearman", "granger_f", "levenshtein_spearman", "jaccard_spearman", "paper"}
PAPER_KEYS = {
    "unique_answers",
    "invented_pct",
    "wrong_due_to_invented_pct",
    "mean_levenshtein",
    "mean_jaccard",
}


@pytest.fixture
def mini_go(tmp_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``go`` is the 11-term ``mini_go.obo``; the test runs in ``tmp_path`` (where default run folders go)."""
    install(["go"], from_files=[FIX / "mini_go.obo"])
    monkeypatch.chdir(tmp_path)
    return tmp_home


def _run(tmp_path: Path, *extra: str) -> list[str]:
    """``recall run`` on the mini GO with the test's defaults; an option in ``extra`` replaces its
    default (an option given twice is refused)."""
    defaults = {
        "--model": "mock",
        "--popularity": POP,
        "--n-buckets": "3",
        "--n-perm": "200",
        "--store": str(tmp_path / "store.sqlite"),
    }
    kept = [word for name, value in defaults.items() if name not in extra for word in (name, value)]
    return ["recall", "run", "go", *kept, *extra]


def test_run_writes_every_artifact(mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(_run(tmp_path, "--out", str(out), "--invariance", "pi1,pi3")) == 0
    stdout = capsys.readouterr().out
    assert "recall go — mock (chat)" in stdout and "accuracy" in stdout and str(out) in stdout
    assert stdout.splitlines()[-1] == f"report: {out / 'report.html'}"
    for name in (
        "result.json",
        "predictions.jsonl",
        "report.html",
        "plots/accuracy_per_bucket.png",
        "plots/rb_per_bucket.png",
        "plots/invariance_per_bucket.png",
    ):
        assert (out / name).is_file(), name
    result = json.loads((out / "result.json").read_text())
    # the mock echoes the prompt, which contains "GO ID" but no well-formed ID
    assert result["scores"]["n"] == 10 and result["scores"]["n_no_id"] == 10
    assert [i["method"] for i in result["invariance"]] == ["pi1", "pi3"]
    preds = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert preds[0]["prompt"].startswith('Provide the GO ID for the label "')
    assert set(preds[0]["answers"]) == {"pi1", "pi3"}


def test_run_json_and_sample(mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_run(tmp_path, "--sample", "4", "--json", "--out", str(tmp_path / "o"))) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["n"] == 4 and data["accuracy"] == 0.0 and set(data) >= KEYS
    assert captured.err.splitlines()[-1] == f"report: {tmp_path / 'o' / 'report.html'}"


def test_run_default_folder_and_temperature(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --out the run goes to recall-runs/KB-MODEL; -t is the main run's temperature."""
    assert main(_run(tmp_path, "--sample", "2", "-t", "0.5")) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "report: recall-runs/go-mock/report.html"
    saved = json.loads((tmp_path / "recall-runs" / "go-mock" / "result.json").read_text())
    assert saved["config"]["temperature"] == 0.5 and saved["backend"] == "mock"
    assert main(_run(tmp_path, "--temperature", "3")) == 2
    assert "recall run: invalid temperature=3.0" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--sample", "2", "--per-bucket", "1"], "either --sample N or --per-bucket K"),
        (["--invariance", "pi4"], "unknown method(s) pi4"),
        (["--template", "no label here"], "must contain {label}"),
        (["--popularity", "/nonexistent.csv"], "neither a file nor one of"),
        (["--invariance", "pi3", "--template", "{label}?"], "PI-3 translates the shipped prompts"),
    ],
)
def test_run_bad_options(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    out = tmp_path / "never"
    assert main([*_run(tmp_path, *extra), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) <= 2
    assert not out.exists()


def test_run_kb_not_installed(tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "recall",
                "run",
                "uberon",
                "--model",
                "mock",
                "--popularity",
                "none",
                "--out",
                str(tmp_path / "x"),
            ]
        )
        == 3
    )
    assert "knowsum kb install uberon" in capsys.readouterr().err


def _release(tmp_path: Path) -> Path:
    path = tmp_path / "release.csv"
    path.write_text(
        "GO:0001822;kidney development;12;1000;GO:0001822\n"
        "GO:0060993;kidney morphogenesis;3;500;The ID is GO:0001822\n"
        "GO:0003179;heart valve morphogenesis;1;10;GO:0061384\n"
        "GO:0000003;reproduction;80;200;GO:0000004\n"
    )
    return path


def test_score_json(mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Both rule sets by hand on the 4-row release file (study = its 4 gold IDs).

    Paper rules compare the release layout's answers verbatim: GO:0001822, "The ID is GO:0001822",
    GO:0061384, GO:0000004 are 4 distinct answers and only GO:0001822 is a study ID → 75 %
    invented; all 3 wrong predictions have an answer that is not a study ID → 100 %, each with
    Levenshtein 10 (the length of the gold ID) and Jaccard 0, so Table 2 is 10 and 0 whatever the
    buckets. knowsum rules: the chatty answer is GO:0001822, GO:0061384 is a GO term, only
    GO:0000004 is invented → 3 IDs, 100/3 % and 1 of 3 wrong; pooled Levenshtein (5 + 5 + 1) / 3.
    """
    out = tmp_path / "scored"
    args = ["recall", "score", "--kb", "go", "--predictions", str(_release(tmp_path)), "--json"]
    assert main([*args, "--n-buckets", "2", "--out", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= KEYS and set(data["paper"]) >= PAPER_KEYS
    assert data["n"] == 4 and data["accuracy"] == 0.25
    paper = data["paper"]
    assert paper["unique_answers"] == 4 and paper["invented_pct"] == pytest.approx(75.0)
    assert paper["wrong_due_to_invented_pct"] == pytest.approx(100.0)
    assert paper["mean_levenshtein"] == pytest.approx(10.0) and paper["mean_jaccard"] == 0.0
    own = data["knowsum"]
    assert own["unique_answers"] == 3 and own["invented_pct"] == pytest.approx(100 / 3)
    assert own["wrong_due_to_invented_pct"] == pytest.approx(100 / 3)
    # GO:0060993→GO:0001822 = 5, GO:0003179→GO:0061384 = 5, GO:0000003→GO:0000004 = 1 (test_metrics)
    assert own["mean_levenshtein"] == pytest.approx((5 + 5 + 1) / 3)
    assert data["rules"].startswith("paper rules:")
    assert (out / "report.html").is_file()
    saved = json.loads((out / "result.json").read_text())
    assert saved["version"] == 4 and saved["scores"]["paper"]["unique_answers"] == 4
    assert saved["scores"]["paper"]["note"] == data["rules"]


def test_score_terminal_table_and_malformed_gold_warning(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "odd.csv"
    path.write_text(_release(tmp_path).read_text() + "GO:60005380;odd;0;7;GO:60005380\n")
    assert main(["recall", "score", "--kb", "go", "--predictions", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.err.strip() == (
        f"warning: {path}: 1 gold ID not well-formed go ID, kept as given and compared exactly: "
        "'GO:60005380' (line 5)"
    )
    table = captured.out
    assert "rule set" in table and "paper" in table and "knowsum" in table
    assert "unique answers (Table 3a)" in table and "paper rules: an answer exists only" in table


def test_score_text_and_bad_rows(mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _release(tmp_path)
    assert main(["recall", "score", "--kb", "go", "--predictions", str(good)]) == 0
    assert "recall go — release.csv (file)" in capsys.readouterr().out
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"id": "GO:0001822", "prediction": "GO:0001822"}\n{"id": "GO:0000003", "prediction": 7}\n{]\n'
    )
    out = tmp_path / "never"
    assert main(["recall", "score", "--kb", "go", "--predictions", str(bad), "--out", str(out)]) == 2
    assert not out.exists()  # nothing half-written
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"knowsum: error: {bad}:2:") and "(1 more bad row: line 3)" in err
    assert len(err.splitlines()) == 1


def test_compare(mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert (
        main(["recall", "score", "--kb", "go", "--predictions", str(_release(tmp_path)), "--out", str(a)])
        == 0
    )
    assert main(_run(tmp_path, "--out", str(b))) == 0
    capsys.readouterr()
    assert main(["recall", "compare", str(a), str(b / "result.json"), "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "### Table 1. Accuracy" in out and "| Dataset | release.csv | mock |" in out
    assert "| go | 0.25 | 0 |" in out
    assert "Levenshtein d. (go)" in out and "%Inv" in out
    assert main(["recall", "compare", str(_release(tmp_path))]) == 2
    assert "cannot read a recall result" in capsys.readouterr().err
    other = tmp_path / "other.json"
    other.write_text('{"kind": "census"}')
    assert main(["recall", "compare", str(a), str(other)]) == 2
    assert f"{other}: not a recall result.json" in capsys.readouterr().err


def test_score_default_folder_and_the_old_ontology_spelling(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--ontology`` still works for one release, with a note; the run folder is recall-runs/score-STEM."""
    path = _release(tmp_path)
    assert main(["recall", "score", "--ontology", "go", "--predictions", str(path), "--n-perm", "50"]) == 0
    captured = capsys.readouterr()
    assert captured.err.strip() == "knowsum: note: --ontology is renamed --kb; --ontology will be removed"
    assert captured.out.splitlines()[-1] == "report: recall-runs/score-release/report.html"
    saved = json.loads((tmp_path / "recall-runs" / "score-release" / "result.json").read_text())
    assert (saved["kb"], saved["backend"], saved["model"]) == ("go", "file", "release.csv")
    assert main(["recall", "score", "--predictions", str(path)]) == 2
    assert "Missing option '--kb'" in capsys.readouterr().err


def test_compare_json(mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = tmp_path / "a"
    assert (
        main(["recall", "score", "--kb", "go", "--predictions", str(_release(tmp_path)), "--out", str(a)])
        == 0
    )
    capsys.readouterr()
    assert main(["recall", "compare", str(a), "--published", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    first = data["tables"][0]
    assert first["title"] == "Table 1. Accuracy"
    assert first["headers"][:3] == ["Dataset", "release.csv", "Pythia-12B · Bombieri et al. Table 1"]
    assert first["rows"][0][:2] == ["go", 0.25]
    assert data["tables"][2]["headers"][4] == "Pythia-12B · Bombieri et al. Table 3 Unq"


# --- recall score --invariance-file: answers made elsewhere (paper §6) --------------------------

INV = FIX / "invariance"


def _inv_args(out: Path, *extra: str) -> list[str]:
    preds = str(INV / "concepts.csv")
    return [
        "recall",
        "score",
        "--kb",
        "go",
        "--predictions",
        preds,
        "--n-perm",
        "2000",
        "--out",
        str(out),
        *extra,
    ]


def test_score_invariance_file_hand_made(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The hand-made fixture (3 buckets × K = 2, M = 3; derivation in test_invariance_files.py):
    paper reading AvPI (.25, .25, .75), accuracy (0, 1/2, 5/6), ρ = √3/2 (p ≈ 4/6); knowsum
    reading AvPI (.5, .75, .75), accuracy (0, 5/6, 5/6), ρ = 1 (p ≈ 2/6)."""
    out = tmp_path / "inv"
    answers = str(INV / "answers_m3.txt")
    assert main(_inv_args(out, "--per-bucket", "2", "--invariance-file", f"pi1={answers}", "--json")) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines()[-1] == f"report: {out / 'report.html'}"
    inv = json.loads(captured.out)["invariance"]
    assert list(inv) == ["pi1"]
    paper, own = inv["pi1"], inv["pi1"]["knowsum"]
    assert (paper["reading"], paper["m"], paper["n_concepts"], paper["per_bucket"]) == ("paper", 3, 6, 2)
    assert paper["source"] == answers and paper["buckets"] == [1, 2, 3]
    assert paper["avpi"] == [0.25, 0.25, 0.75] and paper["accuracy"] == [0.0, 0.5, 5 / 6]
    assert paper["avpi_spearman"] == pytest.approx(math.sqrt(3) / 2, rel=1e-12)
    assert paper["avpi_spearman_p"] == pytest.approx(2 / 3, abs=0.03)
    assert own["avpi"] == [0.5, 0.75, 0.75] and own["accuracy"] == [0.0, 5 / 6, 5 / 6]
    assert own["avpi_spearman"] == pytest.approx(1.0, rel=1e-12)
    assert own["avpi_spearman_p"] == pytest.approx(1 / 3, abs=0.03)
    assert (paper["mean_pi"], own["mean_pi"]) == (5 / 12, 2 / 3)
    # the record: both readings, named; the extracted answers in predictions.jsonl; Fig. 4 twice
    saved = json.loads((out / "result.json").read_text())
    assert [(s["method"], s["reading"], s["per_bucket"]) for s in saved["invariance"]] == [
        ("pi1", "paper", 2),
        ("pi1", "knowsum", 2),
    ]
    assert saved["config"]["per_bucket"] == 2 and saved["config"]["invariance_files"] == {"pi1": answers}
    preds = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert preds[0]["answers"] == {"pi1": ["GO:0060219", None, None]}
    for name in ("invariance_per_bucket.png", "invariance_per_bucket_knowsum.png"):
        assert (out / "plots" / name).stat().st_size > 1000, name
    html = (out / "report.html").read_text(encoding="utf-8")
    assert 'data-plot="invariance"' in html and 'data-plot="invariance_knowsum"' in html


def test_score_invariance_terminal_table(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = str(INV / "answers_m3.txt")
    assert main(_inv_args(tmp_path / "t", "--per-bucket", "2", "--invariance-file", f"PI1={answers}")) == 0
    out = capsys.readouterr().out
    assert "prediction invariance (§6.3)" in out
    row = next(line for line in out.splitlines() if line.startswith("PI-1 (repetitions)"))
    cells = row.split()  # method (2 words), M, concepts, ρ paper, p paper, ρ knowsum, p knowsum
    assert cells[2:5] == ["3", "6", "0.866"] and cells[6] == "1"  # ρ = √3/2 and 1 (4 significant digits)
    assert float(cells[5]) == pytest.approx(2 / 3, abs=0.03) and float(cells[7]) == pytest.approx(
        1 / 3, abs=0.03
    )
    assert "the paper's reading: distinct answers as written" in out
    assert "knowsum's reading: distinct extracted IDs" in out


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--invariance-file", "pi4=x.txt", "--per-bucket", "2"],
            "unknown method 'pi4'; use pi1, pi2 or pi3",
        ),
        (
            ["--invariance-file", "answers.txt", "--per-bucket", "2"],
            "expected METHOD=FILE, got 'answers.txt'",
        ),
        (["--invariance-file", "pi1=ANSWERS"], "--invariance-file needs --per-bucket K"),
        (["--per-bucket", "2"], "--per-bucket K applies to --invariance-file answers only"),
        (
            ["--invariance-file", "pi1=ANSWERS", "--invariance-file", "pi1=ANSWERS", "--per-bucket", "2"],
            "pi1 given twice",
        ),
        (["--invariance-file", "pi1=ANSWERS", "--per-bucket", "4"], "6 concepts are not K = 4 per bucket"),
        (
            ["--invariance-file", "pi2=SEVEN", "--per-bucket", "2"],
            "7 lines is not a multiple of the 6 concepts",
        ),
        (["--invariance-file", "pi3=EMPTY", "--per-bucket", "2"], "empty file; expected one answer per line"),
        (["--invariance-file", "pi3=MISSING", "--per-bucket", "2"], "no such file"),
    ],
)
def test_score_invariance_bad_inputs(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    """Each malformed input: one line on stderr, exit 2, nothing written."""
    files = {
        "ANSWERS": str(INV / "answers_m3.txt"),
        "SEVEN": _write(tmp_path, "seven.txt", "GO:0001822\n" * 7),
        "EMPTY": _write(tmp_path, "empty.txt", "\n"),
        "MISSING": str(tmp_path / "missing.txt"),
    }
    args = [f"{a[:4]}{files[a[4:]]}" if a[4:] in files else a for a in extra]  # pi1=ANSWERS → pi1=/…
    out = tmp_path / "never"
    assert main(_inv_args(out, *args)) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("knowsum: error: ") and message in err and len(err.splitlines()) == 1
    assert not out.exists()


def test_run_invariance_json_names_the_reading(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run asks the model itself: knowsum's reading only, over the popularity buckets."""
    assert main(_run(tmp_path, "--invariance", "pi2", "--json", "--out", str(tmp_path / "r"))) == 0
    inv = json.loads(capsys.readouterr().out)["invariance"]["pi2"]
    assert inv["reading"] == "knowsum" and inv["m"] == 11 and "source" not in inv
    assert inv["knowsum"] == {k: v for k, v in inv.items() if k != "reading" and k != "knowsum"}
    assert len(inv["avpi"]) == len(inv["accuracy"]) == len(inv["buckets"]) == 3


# the authors' GPT-3.5 GO release (Prompt_invariance/, commit ef64e3e, CC0): §6.3 prints ρ = .950
# (PI-2) and .850 (PI-3), "no statistical correlation" for PI-1. No KB is needed for the paper's
# reading, and knowsum's needs only the GO ID syntax: the mini GO of the isolated home suffices.
RELEASE_FILES = {
    "pi1": "1_same_prompt_output.txt",
    "pi2": "2_different_temperatures_output.txt",
    "pi3": "3_different_languages_output.txt",
}
MEASURED = {"pi1": (0.5446, 0.5446), "pi2": (0.9507, 0.9508), "pi3": (0.8503, 0.8539)}
PAPER_RHO = {"pi2": 0.950, "pi3": 0.850}


def test_score_the_authors_invariance_release(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ["extracted_labels.csv", *RELEASE_FILES.values()]:
        (tmp_path / name).write_bytes(gzip.decompress((INV / f"{name}.gz").read_bytes()))
    specs = [a for m, f in RELEASE_FILES.items() for a in ("--invariance-file", f"{m}={f}")]
    args = ["recall", "score", "--kb", "go", "--predictions", "extracted_labels.csv", "--per-bucket", "20"]
    assert main([*args, *specs, "--json", "--n-perm", "2000", "--out", str(tmp_path / "rel")]) == 0
    inv = json.loads(capsys.readouterr().out)["invariance"]
    assert list(inv) == ["pi1", "pi2", "pi3"]
    for method, (paper_rho, knowsum_rho) in MEASURED.items():
        got = inv[method]
        assert got["m"] == {"pi1": 10, "pi2": 11, "pi3": 5}[method] and len(got["avpi"]) == 50
        assert got["avpi_spearman"] == pytest.approx(paper_rho, abs=5e-5)
        assert got["knowsum"]["avpi_spearman"] == pytest.approx(knowsum_rho, abs=5e-5)
        assert got["avpi_spearman_p"] < 0.01
        if method in PAPER_RHO:
            assert abs(got["avpi_spearman"] - PAPER_RHO[method]) <= 0.005
            assert abs(got["knowsum"]["avpi_spearman"] - PAPER_RHO[method]) <= 0.005
    # compare --published: the run's ρ in the §6.3 table, next to the paper's
    assert main(["recall", "compare", str(tmp_path / "rel"), "--published", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)["tables"][-1]
    assert table["title"].startswith("§6.3.")
    assert table["headers"][3:] == [
        "extracted_labels.csv",
        "Pythia-12B · Bombieri et al. §6.3",
        "Gemini-1.5F · Bombieri et al. §6.3",
        "GPT-3.5 · Bombieri et al. §6.3",
    ]
    row = next(r for r in table["rows"] if r[:3] == ["go", "PI-2 (temperatures)", "paper"])
    assert row[3] == pytest.approx(0.9507, abs=5e-5) and row[4:] == [0.795, 0.813, 0.950]
    own = next(r for r in table["rows"] if r[:3] == ["go", "PI-3 (languages)", "knowsum"])
    assert own[3] == pytest.approx(0.8539, abs=5e-5) and own[4:] == [None, None, None]


@pytest.mark.parametrize("kb", ["icd10", "uberon", "mesh"])
def test_score_against_a_kb_none_of_whose_ids_is_the_gold_is_refused(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], kb: str
) -> None:
    """GO predictions scored with another KB: every gold ID malformed for it, so the figures would
    compare nothing (was: a warning, then accuracy 0.667 and exit 0). One line naming the file, the
    first gold ID and its line; nothing written."""
    path = _release(tmp_path)
    assert main(["recall", "score", "--kb", kb, "--predictions", str(path), "--out", "out"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"knowsum: error: {path}: none of the 4 gold IDs")
    assert f"is a well-formed {kb} ID (the first: 'GO:0001822', line 1): give the --kb" in err
    assert not (tmp_path / "out").exists()
