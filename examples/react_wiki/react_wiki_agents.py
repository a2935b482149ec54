"""The agents of the react_wiki example, for `--agents` (or `graphrt.run(..., agents=AGENTS)`):

    graphrt run examples/react_wiki/react_wiki.yaml --agents examples/react_wiki/react_wiki_agents.py \\
        -i question="Who designed the Eiffel Tower?"

focusedWikiAgent (react_wiki_reader.py) reads the wiki with the question; reactGrammarAgent and
reactToolSchemasAgent (react_wiki_rules.py) hold each step to the phrases that rules extract.
"""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:  # the modules beside this one, also when it is imported by a dotted name
    sys.path.insert(0, _HERE)

from react_wiki_reader import AGENTS as _READER  # noqa: E402
from react_wiki_rules import AGENTS as _RULES  # noqa: E402

AGENTS = [*_READER, *_RULES]
