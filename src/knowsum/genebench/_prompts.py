"""The prompts of SciHorizon-GENE (Huang et al., App. C Fig. 11, word for word) and cyclic permutations.

Each question is sent as two chat messages: the unified *system prompt* of Fig. 11, carrying the
question (and, for choice questions, the options — "[Only within Single Choice and Multiple
Choice]"), and the *task instruction* of its question type as the user message. Options are written
one per line as ``A: text``.

Cyclic permutation (§4.2, App. B, after Zheng et al. 2023): a choice question with ``n`` options is
asked ``n`` times; in rotation ``r`` the option at position ``j`` moves to position ``(j + r) mod n``,
so the gold option visits every position exactly once.
"""

from __future__ import annotations

from knowsum.genebench._schema import Question

__all__ = [
    "EVIDENCE_CODES",
    "EVIDENCE_ORDER",
    "INSTRUCTIONS",
    "PROMPT_EVIDENCE_CODES",
    "SYSTEM_PROMPT",
    "messages",
    "rotate",
    "rotations",
]

#: Fig. 11, "System Prompt" (the options part only for single and multiple choice).
SYSTEM_PROMPT = (
    "You are a biologist. Please carefully read the provided instruction and answer the questions. "
    "Question: {question}"
)
SYSTEM_OPTIONS = " Options: {options_text}"

#: Fig. 11 task instruction prompts by question type, word for word.
INSTRUCTIONS: dict[str, str] = {
    "single_choice": (
        "Task Instruction: Only provide the correct option item (e.g., 'A'). Do not include option details "
        "and any additional information or explanations."
    ),
    "multiple_choice": (
        "Task Instruction: Only provide the letters of the correct options, separated by commas "
        "(e.g., 'A, B'). Do not include option details and any additional information or explanations."
    ),
    "expression": (
        "Task Instruction: Provide a JSON dictionary with two keys: 'Tissue' and 'Category'. 'Tissue' key's "
        "value should be a list of relevant tissues. 'Category' key's value must be one of the following "
        "categories: 'Low expression', 'Broad expression', 'Biased expression', 'Restricted expression', "
        "'Ubiquitous expression'. Here are the candidate tissues: 'fat', 'brain', 'gall bladder', 'heart', "
        "'endometrium', 'prostate', 'testis', 'salivary gland', 'lung', 'ovary', 'esophagus', 'colon', "
        "'duodenum', 'liver', 'lymph node', 'appendix', 'small intestine', 'skin', 'urinary bladder', "
        "'stomach', 'spleen', 'adrenal', 'kidney', 'placenta', 'bone marrow', 'thyroid', 'pancreas'. For "
        "'Low expression' category, the tissue list should be 'Low expression'. For example: {[Tissue: "
        "['Low expression']], Category: 'Low expression'}. For example of other categories: {[Tissue: "
        "['liver', 'colon'], Category: 'Biased expression']}. Only provide the JSON dictionary as your "
        "response, without any additional text or explanations."
    ),
    "go_annotation": (
        "Task Instruction: Provide a JSON array of objects. Each object in the array must contain two keys: "
        "'go' and 'evidence'. The value for 'go' should be the full Gene Ontology annotation. The value for "
        "'evidence' must be one of the following codes: EXP, IDA, IPI, IMP, IGI, IEP, IBA, IBD, IKR, IRD, "
        'ISM, IGC, RCA, TAS, NAS, IC, ND, IEA. For example: [{"go": "located in nucleus", "evidence": '
        '"IDA"}, {"go": "enables calcium ion binding", "evidence": "IEA"}] Do not include any '
        "additional information, explanations, or text before or after the JSON array. Your answer should "
        "based on the context. Context: {context}"
    ),
    "summary": (
        "Task Instruction: Provide a functional summary of the given gene. Do not include any additional "
        "information, explanations, or text before or after the summary. You could use the following "
        "context to answer the question. Context: {context}"
    ),
}


#: The evidence codes listed in the Fig. 11 GO instruction (read from the instruction itself).
PROMPT_EVIDENCE_CODES: tuple[str, ...] = tuple(
    INSTRUCTIONS["go_annotation"].split("following codes: ")[1].split(". ")[0].split(", ")
)
#: Every GO evidence code, most direct first (experimental, high-throughput, phylogenetic,
#: computational, author/curator statements, electronic). The prompt lists a subset; a reply using
#: any of them passes validation, since the gold data uses them all (HDA, ISS, …).
_ORDER = (
    "EXP IDA IPI IMP IGI IEP HTP HDA HMP HGI HEP IBA IBD IKR IRD ISS ISO ISA ISM IGC RCA TAS NAS IC ND IEA"
)
EVIDENCE_ORDER: tuple[str, ...] = tuple(_ORDER.split(" "))
EVIDENCE_CODES: frozenset[str] = frozenset(EVIDENCE_ORDER)


def rotations(question: Question) -> tuple[int, ...]:
    """Rotations asked for ``question``: ``0 … n−1`` for a choice question, ``(0,)`` otherwise."""
    return tuple(range(len(question.options))) if question.options else (0,)


def rotate(question: Question, r: int) -> tuple[dict[str, str], tuple[str, ...]]:
    """Options and gold letters of ``question`` in rotation ``r`` (see the module docstring).

    Raises:
        ValueError: ``question`` has no options or ``r`` is out of range.
    """
    opts = question.options
    if not opts:
        raise ValueError("only choice questions rotate")
    n = len(opts)
    if not 0 <= r < n:
        raise ValueError(f"rotation {r} out of range 0..{n - 1}")
    texts = list(opts.values())
    moved = texts[n - r :] + texts[: n - r]  # position p holds the option that was at p - r
    gold = tuple(sorted(chr(65 + (ord(g) - 65 + r) % n) for g in question.gold_letters))
    return dict(zip(opts, moved, strict=True)), gold


def messages(question: Question, r: int = 0) -> tuple[tuple[str, str], ...]:
    """The chat messages of ``question`` in rotation ``r``: (system prompt, task instruction)."""
    system = SYSTEM_PROMPT.format(question=question.question)
    if question.options:
        options, _ = rotate(question, r)
        system += SYSTEM_OPTIONS.format(options_text="\n".join(f"{k}: {v}" for k, v in options.items()))
    instruction = INSTRUCTIONS[question.question_type]
    if "{context}" in instruction:
        instruction = instruction.replace("{context}", question.context or "")
    return (("system", system), ("user", instruction))
