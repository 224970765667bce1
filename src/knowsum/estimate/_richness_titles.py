"""The formula printed beside each richness estimate of ``knowsum estimate`` (text and JSON ``formula``).

:data:`RICHNESS_TITLES` holds each estimator's usual formula; :func:`richness_title` gives the one
actually computed, which differs where the estimator switches form on the data: Chao1/Chao2 with no
doubletons (SpadeR's bias-corrected ``f1(f1−1)/2``, or ``S_obs``), and ACE/ACE-1 when every rare
species is a singleton (``C_rare = 0``: Chao1 is reported instead, see :func:`knowsum.stats.ace`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["RICHNESS_TITLES", "richness_title"]

RICHNESS_TITLES: Mapping[str, str] = MappingProxyType(
    {
        "chao1-classic": "Chao1 = S + (n−1)/n · f1²/(2 f2), Chao 1984; iNEXT/SpadeR",
        "chao1-bc": "Chao1-bc = S + (n−1)/n · f1(f1−1)/(2(f2+1)), SpadeR form",
        "chao1-bc-vegan": "Chao1-bc = S + f1(f1−1)/(2(f2+1)), vegan estimateR form",
        "ichao1": "iChao1, Chiu et al. 2014",
        "ace": "ACE, rare threshold 10, Chao & Lee 1992",
        "ace-1": "ACE-1 (high-heterogeneity CV), rare threshold 10, Chao & Lee 1992",
        "jack1": "1st-order jackknife, finite-sample form (Burnham & Overton 1978)",
        "jack2": "2nd-order jackknife, finite-sample form (Burnham & Overton 1978)",
        "chao2": "Chao2 = S + (T−1)/T · Q1²/(2 Q2), Chao 1987",
        "chao2-bc": "Chao2-bc = S + (T−1)/T · Q1(Q1−1)/(2(Q2+1)), SpadeR form",
        "ichao2": "iChao2, Chiu et al. 2014",
        "ice": "ICE, rare threshold 10, Lee & Chao 1994",
        "ice-1": "ICE-1 (high-heterogeneity CV), rare threshold 10, Lee & Chao 1994",
    }
)
"""The usual formula and source of each richness estimator (:func:`richness_title` gives the one used)."""


def _chao(label: str, size: str, one: str, two: str, f1: float, f2: float) -> str | None:
    """The Chao1/Chao2 formula where ``f2 = 0`` switches it (``None``: the classic form holds)."""
    if f2 > 0 or f1 == 0:
        return None
    source = "Chao 1984" if label == "Chao1" else "Chao 1987"
    if f1 > 1:
        return (
            f"{label} = S + ({size}−1)/{size} · {one}({one}−1)/2: {two} = 0, so SpadeR's bias-corrected "
            f"form ({one}²/(2 {two}) is undefined), {source}; iNEXT/SpadeR"
        )
    return f"{label} = S: {one} = 1 and {two} = 0, nothing to extrapolate from, {source}; iNEXT/SpadeR"


def richness_title(name: str, parameters: Mapping[str, float]) -> str:
    """The formula ``name`` computed on data whose estimate reported ``parameters``: the usual one of
    :data:`RICHNESS_TITLES`, or the form the estimator switched to (so the printed formula is always
    the one whose value is printed beside it)."""
    if name == "chao1-classic" and "f1" in parameters:
        switched = _chao("Chao1", "n", "f1", "f2", parameters["f1"], parameters.get("f2", 0.0))
        return switched or RICHNESS_TITLES[name]
    if name == "chao2" and "Q1" in parameters:
        switched = _chao("Chao2", "T", "Q1", "Q2", parameters["Q1"], parameters.get("Q2", 0.0))
        return switched or RICHNESS_TITLES[name]
    if name in ("ace", "ace-1") and parameters.get("fallback"):
        chao = richness_title("chao1-classic", parameters)
        return (
            f"{'ACE' if name == 'ace' else 'ACE-1'} falls back to Chao1: C_rare = 1 − f1/n_rare = 0 "
            f"(every rare species a singleton) leaves ACE undefined (S_rare/C_rare), so Chao1 is "
            f"reported; {chao}"
        )
    return RICHNESS_TITLES[name]
