"""Prompts (Fig. 11 word for word), cyclic rotations and reply validation (App. B)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from knowsum.genebench import Question, content_hash, messages, parse_reply, rotate, rotations


def _choice(n: int, gold: str | list[str], qtype: str = "single_choice") -> Question:
    opts = {chr(65 + i): f"option {i}" for i in range(n)}
    return Question.model_validate(
        {
            "question_index": content_hash(qtype, "full name", "q?", opts, None),
            "question_type": qtype,
            "knowledge": "full name" if qtype == "single_choice" else "synonyms",
            "question": "Select the full name of KLKB1 gene.",
            "options": opts,
            "answer": gold,
            "perspective": "study_bias",
            "flag": "non-loc",
        }
    )


def test_fig11_prompts_word_for_word() -> None:
    q = _choice(4, "D")
    system, user = messages(q, 0)
    assert system == (
        "system",
        "You are a biologist. Please carefully read the provided instruction and answer the questions. "
        "Question: Select the full name of KLKB1 gene. "
        "Options: A: option 0\nB: option 1\nC: option 2\nD: option 3",
    )
    assert user == (
        "user",
        "Task Instruction: Only provide the correct option item (e.g., 'A'). "
        "Do not include option details and any additional information or explanations.",
    )
    # every instruction in full against the paper's text: test_paper_wording.py


@given(n=st.integers(2, 8), data=st.data())
def test_cyclic_rotation_puts_gold_in_every_position_once(n: int, data: st.DataObject) -> None:
    gold = data.draw(st.sampled_from([chr(65 + i) for i in range(n)]))
    q = _choice(n, gold)
    positions = []
    for r in rotations(q):
        options, gold_letters = rotate(q, r)
        assert sorted(options.values()) == sorted(q.options.values())  # a permutation of the options
        assert options[gold_letters[0]] == q.options[gold]  # the gold text moves with its letter
        positions.append(gold_letters[0])
    assert sorted(positions) == [chr(65 + i) for i in range(n)]


def test_rotation_of_multiple_answers() -> None:
    q = _choice(4, ["A", "C"], "multiple_choice")
    assert rotate(q, 1) == ({"A": "option 3", "B": "option 0", "C": "option 1", "D": "option 2"}, ("B", "D"))
    with pytest.raises(ValueError):
        rotate(q, 4)


OPTS = {"A": "carboxypeptidase B1", "B": "cyclin B1", "C": "chymotrypsinogen B1", "D": "kallikrein B1"}


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ("D", "D"),
        (" D.", "D"),
        ("(D)", "D"),
        ("**D**", "D"),
        ("D: kallikrein B1", "D"),
        ("The correct answer is D.", "D"),
        ("Answer: d", "D"),
        ("kallikrein B1", "D"),
    ],
)
def test_single_choice_valid_lenient(reply: str, value: str) -> None:
    p = parse_reply("single_choice", reply, OPTS, lenient=True)
    assert p.ok and p.value == value


@pytest.mark.parametrize(
    "reply", ["", "A gene encoding a serine protease.", "E", "I am not sure.", "The answer is E"]
)
def test_single_choice_format_errors(reply: str) -> None:
    assert not parse_reply("single_choice", reply, OPTS, lenient=True).ok
    assert not parse_reply("single_choice", reply, OPTS).ok


@pytest.mark.parametrize(
    "reply",
    [
        "D",
        " D.",
        "(D)",
        "**D**",
        "'D'",
        '"D"',
        "D\n",
        '{"answer": "D"}',
        '["D"]',
        '```json\n{"answer": "D"}\n```',
    ],
)
def test_single_choice_valid_strict(reply: str) -> None:
    p = parse_reply("single_choice", reply, OPTS)
    assert p.ok and p.value == "D"


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        ("D: kallikrein B1", "not an option letter only"),  # restates the option: App. B forbids it
        ("The correct answer is D.", "not an option letter only"),
        ("Answer: D", "not an option letter only"),
        ("kallikrein B1", "not an option letter only"),
        ("d", "not an option letter only"),
        ("A, D", "more than one letter"),
        ('{"answer": "E"}', "E not among the options"),
        ('{"answer": "D"', "not a JSON value"),
    ],
)
def test_single_choice_strict_rejects_what_lenient_reads(reply: str, error: str) -> None:
    p = parse_reply("single_choice", reply, OPTS)
    assert not p.ok and p.error is not None and error in p.error


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ("A, B", ("A", "B")),
        ("B,A", ("A", "B")),
        ("A and C", ("A", "C")),
        ("Answer: D", ("D",)),
        ("'A, B'", ("A", "B")),
    ],
)
def test_multiple_choice_valid_lenient(reply: str, value: tuple[str, ...]) -> None:
    p = parse_reply("multiple_choice", reply, OPTS, lenient=True)
    assert p.ok and p.value == value


@pytest.mark.parametrize(
    ("reply", "ok"),
    [
        ("A, B", True),
        ("B,A", True),
        ("'A, B'", True),
        ("A; B.", True),
        ('{"answers": ["B", "A"]}', True),
        ('["A", "B"]', True),
        ("A and B", False),
        ("Answer: A, B", False),
    ],
)
def test_multiple_choice_strict(reply: str, ok: bool) -> None:
    p = parse_reply("multiple_choice", reply, OPTS)
    assert p.ok == ok and (not ok or p.value == ("A", "B"))


@pytest.mark.parametrize("reply", ["A, E", "The synonyms are NgR2 and NGRH1", ""])
def test_multiple_choice_format_errors(reply: str) -> None:
    assert not parse_reply("multiple_choice", reply, OPTS, lenient=True).ok
    assert not parse_reply("multiple_choice", reply, OPTS).ok


def test_expression_replies() -> None:
    ok = parse_reply(
        "expression", '```json\n{"Tissue": ["liver", "colon"], "Category": "biased expression"}\n```'
    )
    assert ok.ok and ok.value == {"category": "Biased expression", "tissue_list": ("liver", "colon")}
    single_quoted = parse_reply("expression", "{'Tissue': ['Low expression'], 'Category': 'Low expression'}")
    assert single_quoted.ok and single_quoted.value["tissue_list"] == ("Low expression",)
    assert not parse_reply("expression", '{"Tissue": ["liver"], "Category": "High expression"}').ok
    assert not parse_reply("expression", "It is expressed in the liver.").ok
    wrapped = 'Here it is: {"Tissue": ["liver"], "Category": "Biased expression"}'
    assert parse_reply("expression", wrapped, lenient=True).ok and not parse_reply("expression", wrapped).ok
    other_keys = '{"tissue_list": ["liver"], "category": "Biased expression"}'
    assert (
        parse_reply("expression", other_keys, lenient=True).ok
        and not parse_reply("expression", other_keys).ok
    )


def test_go_replies() -> None:
    chatty = 'Sure: [{"go": "located in nucleus", "evidence": "IDA"}]'
    ok = parse_reply("go_annotation", chatty, lenient=True)
    assert ok.ok and ok.value == (("located in nucleus", "IDA"),)
    assert parse_reply("go_annotation", chatty).error == "not a JSON value (the whole reply must be one)"
    cut = parse_reply("go_annotation", '[{"go": "enables DNA binding", "evidence": "IDA"', truncated=True)
    assert cut.error is not None and cut.error.startswith("truncated: stopped at the token limit")
    beyond_prompt = parse_reply("go_annotation", '[{"go": "enables DNA binding", "evidence": "HDA"}]')
    assert beyond_prompt.ok  # a code the gold data uses, though not in the prompt's list
    assert parse_reply("go_annotation", "[]").ok
    assert not parse_reply("go_annotation", '[{"go": "enables DNA binding", "evidence": "XYZ"}]').ok
    assert not parse_reply("go_annotation", '[{"go": "enables DNA binding", "evidence": "IDA"').ok
    assert not parse_reply("go_annotation", "nucleus").ok


def test_summary_replies() -> None:
    assert parse_reply("summary", "  This gene encodes a protein. ").value == "This gene encodes a protein."
    assert not parse_reply("summary", "   ").ok


_PIECES = [
    "A",
    "B",
    "D",
    "E",
    ", ",
    " and ",
    "The answer is ",
    "**",
    "'",
    '{"answer": ',
    '{"answers": [',
    "]",
    "}",
    '"',
    ".",
    " ",
    "\n",
    "kallikrein B1",
    "```json\n",
    "\n```",
    "[",
    "Answer: ",
]


@given(st.lists(st.sampled_from(_PIECES), max_size=6), st.sampled_from(["single_choice", "multiple_choice"]))
def test_lenient_accepts_everything_strict_accepts(pieces: list[str], qtype: str) -> None:
    reply = "".join(pieces)
    strict = parse_reply(qtype, reply, OPTS)
    lenient = parse_reply(qtype, reply, OPTS, lenient=True)
    if strict.ok:
        assert lenient.ok and lenient.value == strict.value
