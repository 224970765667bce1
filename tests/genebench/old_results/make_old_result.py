"""Write the ``result.json`` of a small genebench run with the knowsum found first on ``sys.path``.

Run with an older checkout's ``src`` first on ``PYTHONPATH`` (see README.md in this folder)::

    git archive REV src | tar -x -C /tmp/REV
    PYTHONPATH=/tmp/REV/src .venv/bin/python tests/genebench/old_results/make_old_result.py OUT.json
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository: tests.genebench._mixture
from tests.genebench import _mixture as mx

from knowsum.genebench import GenebenchConfig, Question, run_genebench
from knowsum.models import MockBackend

out = Path(sys.argv[1])
# the mixture without its two GO questions (no GO knowledge base needed)
qs = [Question.model_validate(q.model_dump()) for i, q in enumerate(mx.QUESTIONS) if i not in (5, 6)]
made = run_genebench(GenebenchConfig(), MockBackend(mx.reply), store=None, questions=qs)
# versions 1-2 returned (result, records, questions); version 3 a GenebenchRun (it also writes the run)
result = made[0] if isinstance(made, tuple) else made.record
out.write_text(result.model_dump_json(indent=2) + "\n")
print(result.version, result.scores.overall)
