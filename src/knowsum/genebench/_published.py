"""The published Table 2 of SciHorizon-GENE: reference rows for ``genebench compare --published``.

Source: Huang et al., *SciHorizon-GENE: Benchmarking LLM for Life Sciences Inference from Gene
Knowledge to Functional Understanding* (arXiv:2601.12805), Table 2 "The overall results of LLMs"
(% per knowledge type, "Overall scores are computed by equally averaging across tasks"); "-" (a type
the paper reports no score for) has no row, and the overall of such a model is the mean of the other
seven. Model names as printed, two text-extraction glitches mended ("Gemma 3.27B" → "Gemma 3-27B",
an Arabic-script "Ministral-8B"); ``*`` marks the paper's biomedical domain models. The values were
copied by hand and every row's overall is checked against the mean of its types in the tests.
"""

from __future__ import annotations

from knowsum.genebench._schema import KNOWLEDGE
from knowsum.records import PublishedRow

__all__ = ["DOMAIN_MODELS", "PAPER", "PUBLISHED", "PUBLISHED_SOURCE", "TABLE", "printed"]

PUBLISHED_SOURCE = "Huang et al. (arXiv:2601.12805), Table 2"
PAPER = "SciHorizon-GENE"
"""How a published row names the paper (:func:`knowsum.records.published_label`)."""
TABLE = "Table 2"

# model | full name, synonyms, chromosome, gene type, related proteins, expression, GO, summary | overall
_TABLE2 = """\
GPT-5|67.68 83.91 53.53 73.93 82.39 55.02 43.17 35.70|61.92
Claude 3.5 Sonnet|67.14 87.86 47.86 74.23 82.66 43.35 34.58 37.13|59.35
Mistral Medium 3.1|66.67 84.31 48.77 71.49 82.18 50.33 34.46 35.17|59.17
Gemini 2.5 Pro|64.68 82.48 44.92 64.80 83.38 53.58 35.51 36.19|58.19
Claude 4.5 Sonnet|62.74 75.02 38.14 73.22 84.80 45.73 39.23 37.43|57.04
GPT-4o|65.77 84.55 56.23 69.70 82.28 35.47 17.57 37.36|56.12
GPT-4 Turbo|67.38 75.84 46.98 61.01 83.01 32.99 31.91 37.66|54.60
Gemini 2.5 Flash|63.18 69.25 42.80 64.05 77.39 56.02 26.33 34.22|54.15
GPT-3.5 Turbo|64.58 60.61 14.02 63.31 80.38 22.70 25.40 35.33|45.79
DeepSeek Chat-671B|65.83 89.59 39.60 67.92 82.10 40.94 28.83 36.65|56.43
Mistral Large-123B|66.73 84.25 48.61 71.55 82.36 24.82 32.33 36.51|55.89
LLaMA 3.1-405B|64.05 82.54 36.27 60.30 83.66 22.73 23.00 37.55|51.26
Mixtral 8x22B (141B)|65.12 70.15 27.34 57.98 81.06 39.29 24.24 35.71|50.11
Qwen 2.5-72B|66.73 83.44 40.87 65.18 77.58 30.26 31.48 36.64|54.02
Mistral Small 3.1-24B|65.06 74.97 34.98 57.38 77.10 37.46 19.00 35.86|50.23
LLaMA 3.1-70B|64.29 54.65 23.17 72.26 83.69 33.60 28.79 36.00|49.56
Gemma 3-27B|62.56 45.15 14.60 63.93 79.40 34.58 - 34.02|47.75
*MedGemma-27B Text-it|55.66 49.67 17.98 53.09 67.78 38.28 16.26 31.81|41.32
*PMC-LLaMA-13B|57.32 43.85 20.68 29.23 46.73 7.81 2.77 16.71|28.14
Ministral-8B|62.32 81.21 17.42 57.86 72.42 24.12 16.27 36.25|45.98
Qwen 2.5-7B|64.17 76.33 27.66 55.95 68.56 24.35 11.22 29.61|44.73
Gemma 3-4B|53.15 38.41 14.09 56.90 72.16 19.87 11.07 32.82|37.31
Mistral-7B|50.71 44.65 17.18 45.12 78.47 7.55 2.84 25.54|34.01
LLaMA 3.1-8B|62.56 38.12 14.56 54.47 77.15 30.59 - 34.54|44.57
*BioMistral-7B|32.38 48.81 15.80 29.64 73.45 21.33 9.77 37.47|33.58
*Biomedical-LLaMA-3-8B|38.75 32.61 15.16 29.17 67.23 45.34 7.58 29.63|33.18
*MedAlpaca-7B|45.00 29.93 15.44 27.74 43.43 0.00 - 32.03|27.65
"""


DOMAIN_MODELS: frozenset[str] = frozenset(
    line.split("|")[0].lstrip("*") for line in _TABLE2.splitlines() if line.startswith("*")
)
"""The paper's biomedical domain models (``*`` in Table 2)."""


def printed(model: str) -> str:
    """``model`` as Table 2 prints it (``*`` before a domain model)."""
    return f"*{model}" if model in DOMAIN_MODELS else model


def _rows() -> tuple[PublishedRow, ...]:
    out = []
    for line in _TABLE2.splitlines():
        name, values, overall = line.split("|")
        model = name.lstrip("*")
        out.append(PublishedRow(model, PAPER, TABLE, "overall", float(overall) / 100))
        out += [
            PublishedRow(model, PAPER, TABLE, f"knowledge/{know}", float(v) / 100)
            for know, v in zip(KNOWLEDGE, values.split(), strict=True)
            if v != "-"
        ]
    return tuple(out)


#: The 27 models of Table 2, in the paper's order: per model its overall (``overall``), then each
#: knowledge type it reports a score for (``knowledge/<type>``), as fractions.
PUBLISHED: tuple[PublishedRow, ...] = _rows()
