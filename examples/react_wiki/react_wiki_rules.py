"""reactGrammarAgent and reactToolSchemasAgent: what a 135M model may write at each ReAct step (an example).

This is the example's question classifier and phrase rules: the rules choose what may be answered,
and the model only picks among their choices. It is extractive QA tuned on the questions of
bench/react_eval/questions.yaml, not a ReAct kit: the library's graphs/react.yaml holds replies to
the step format only (graphrt_agents.llm.react).


reactGrammarAgent writes the GBNF grammar of the next text reply (llama.cpp servers);
reactToolSchemasAgent writes the same choices as tool schemas with `enum`s, for
function calling (a server that constrains a named tool's arguments to its
schema, as llama-cpp-python's does, then cannot stray either).

A reply is `Thought: ...` on one line and one action. The first action must
search. After that, `finish` takes only an answer *extracted* from what was
observed: a phrase of the observed sentences that best match the question, of
the kind the question asks for (a year for "in which year", a number for "how
many", a name for "who"), and never a phrase the question already contains (a
small model otherwise answers with the very thing it searched for). The last
step must finish. The kind is read from the question's wording, the same way for
every question; the model still chooses among the phrases.
"""

from __future__ import annotations

import re
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import is_null

from graphrt_agents.wiki.agent import split_sentences
from react_wiki_reader import rank_sentences

__all__ = ["AGENTS", "answer_candidates", "answer_kind", "finish_candidates", "react_grammar", "react_tool_schemas",
           "search_candidates"]

_PHRASE = re.compile(
    r"\d[\d,.]*\d|\d"                                             # numbers: 1851, 7,088, 8,848.86
    r"|(?:[A-Z]\.\s?)*[A-Z][\w'’-]*(?:\s+(?:(?:de|da|di|del|von|van|of|the|and)\s+)*(?:[A-Z]\.\s?)*[A-Z][\w'’-]*)*"
    #                                                             names: Gustave Eiffel, J. K. Rowling
    r"|[a-z][\w'-]+"                                              # any other word
)
_THOUGHT = r"[^\n\[\]]{1,160}"
_ARGUMENT = r"[^\n\[\]]{1,80}"
_NOT_PAGE_TEXT = re.compile(
    r"Could not find \[[^\]]*\]\. Similar: \[[^\]]*\]\.?"        # a failed search's list of titles
    r"|\(No page \[[^\]]*\]; the closest is \[[^\]]*\]\.\)"      # the note before the closest page
    r"|\(Result \d+/\d+\)|No (?:More )?Results"                   # lookup's counter and misses
    r"|There is no page to look in yet[^\n]*|(?:search|lookup) needs [^\n]*|Invalid action[^\n]*"  # the reader's advice
)
_STOP = frozenset(
    "a an and are as at be by for from has have he her his in is it its of on or she that the their they this to "
    "was were which who with also than then there these those been being into over under after before about".split()
)
_NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million billion "
    "dozen".split()
)
_KINDS: list[tuple[str, re.Pattern[str]]] = [
    ("year", re.compile(r"\b(?:what|which) year\b|\bwhen\b", re.IGNORECASE)),
    ("number", re.compile(r"\bhow (?:many|much|long|high|tall|far|old|big|deep|large|wide|heavy)\b"
                          r"|\b(?:what|which) number\b|\bnumber of\b|\batomic number\b", re.IGNORECASE)),
    ("nationality", re.compile(r"\bnationality\b", re.IGNORECASE)),
    ("person", re.compile(r"^\W*who(?:m|se)?\b|\bby whom\b", re.IGNORECASE)),
    ("name", re.compile(r"^\W*where\b|\b(?:what|which)(?: other)? (?:city|country|capital|continent|state)\b"
                        r"|\bcapital of\b", re.IGNORECASE)),
]
_CHOICE = re.compile(r",\s*(?:the\s+)?([^,?]+?)\s+or\s+(?:the\s+)?([^,?]+?)\s*\?\s*$", re.IGNORECASE)
_FULL_NAME = re.compile(r"[A-Z][\w'’.-]*(?:\s(?:(?:de|da|di|del|du|la|le|van|von|y)\s)*[A-Z][\w'’.-]*){1,3}")
_YEAR = re.compile(r"1\d{3}|20\d{2}")
_DEMONYM = re.compile(r"^[A-Z][a-z]+(?:an|ish|ese|ch|i|ic|ek)$")


def _literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _plain(text: str) -> str:
    """Lower-case words only: "Moby-Dick?" and "moby dick" are the same."""
    return " ".join(re.findall(r"\w+", text.casefold()))


def answer_kind(question: str) -> str:
    """What the question asks for, from its wording: year, number, nationality, person, name, or any."""
    for kind, pattern in _KINDS:
        if pattern.search(question):
            return kind
    return "any"


def _fits(phrase: str, kind: str) -> bool:
    if kind == "year":
        return re.fullmatch(r"\d{3,4}", phrase) is not None
    if kind == "number":
        return phrase[0].isdigit() or phrase.casefold() in _NUMBER_WORDS
    if kind == "nationality":
        return _DEMONYM.match(phrase) is not None
    if kind in ("name", "person"):
        return phrase[0].isupper()
    return True


def answer_candidates(observations: str, question: str, limit: int = 300) -> list[str]:
    """The phrases of what was observed that an answer may be: names, numbers and words, not the question's own.

    A phrase the question already contains ("Eiffel Tower" in "Who designed the Eiffel Tower?") is left
    out, and so is a capitalised word that only opens a sentence ("Written when...") unless it is the sentence's
    subject ("Mars is..."): a capital there alone says nothing.
    """
    asked = f" {_plain(question)} "
    text = _NOT_PAGE_TEXT.sub(" ", observations)
    matches = [(_trimmed(match.group(0)), _starts_sentence(text, match.start()) and not _subject(match, text))
               for match in _PHRASE.finditer(text)]
    named_inside = {phrase for phrase, first in matches if not first}
    found: dict[str, None] = {}
    for phrase, first in matches:
        if len(phrase) < 2 and not phrase.isdigit():
            continue
        if f" {_plain(phrase)} " in asked or phrase.casefold() in _STOP:
            continue
        if first and phrase[0].isupper() and " " not in phrase and phrase not in named_inside:
            continue
        found.setdefault(phrase, None)
    return list(found)[:limit]


def _trimmed(phrase: str) -> str:
    """A phrase without end punctuation, a possessive or a leading article ("The Nile's" is "Nile")."""
    phrase = re.sub(r"['’]s$", "", phrase.strip(",'’-")).strip(",'’-")
    phrase = phrase if re.search(r"[A-Z]\.$", phrase) and " " in phrase else phrase.rstrip(".")
    return re.sub(r"^(?:The|A|An)\s+(?=[A-Z])", "", phrase)


def _subject(match: re.Match[str], text: str) -> bool:
    """True when a sentence's first word is its subject ("Mars is", "The Nile has"), so a name, not just a capital."""
    return match.group(0)[:4] in ("The ", "A ", "An ") or re.match(r"\s+(?:is|was|are|were|has|had)\b", text[match.end():]) is not None


def _starts_sentence(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    return not before or before[-1] in ".!?\n:"


def finish_candidates(observations: str, question: str, sentences: int = 2) -> list[str]:
    """What `finish` may answer: phrases of the kind the question asks for, from the observed sentences
    that best match the question (the best `sentences` of them, more when those hold none of that kind).

    A question that ends in a choice ("..., the Nile or the Amazon?") is answered by one of its options.
    """
    choice = _CHOICE.search(question)
    if choice:
        return [choice.group(1).strip(), choice.group(2).strip()]
    observed = split_sentences(_NOT_PAGE_TEXT.sub(" ", observations))
    if not observed:
        return []
    ranked = [observed[index] for index in rank_sentences(observed, question)]
    kind = answer_kind(question)
    for count in range(min(sentences, len(ranked)), len(ranked) + 1):
        phrases = answer_candidates(" ".join(ranked[:count]), question)
        typed = [phrase for phrase in phrases if _fits(phrase, kind)]
        if kind == "person":  # a person has a first and a last name: "Herman Melville", not "Ahab" or "Tragedy of Hamlet"
            typed = [phrase for phrase in typed if _FULL_NAME.fullmatch(phrase)] or typed
        if kind == "nationality" and not typed:  # "the Dutch Post-Impressionist painter": inside a longer name
            typed = list(dict.fromkeys(word for phrase in phrases for word in phrase.split() if _fits(word, kind)))
        if kind == "number":  # "how high": 8,848.86 rather than the year it was measured in
            typed = [phrase for phrase in typed if not _YEAR.fullmatch(phrase)] or typed
        if typed:
            return typed
    return answer_candidates(" ".join(ranked[:sentences]), question)


def search_candidates(question: str, observations: str = "") -> list[str]:
    """What `search` and `lookup` may take: the names the question mentions ("Statue of Liberty", "Newton"),
    else its runs of content words ("theory of relativity", "river"), and the names of the pages read so far
    (the second hop: "Leo Tolstoy").

    A tiny model asked to name a page invents one ("Talismoflougion") or copies its worked example; from the
    question's own phrases it picks one that the wiki can find.
    """
    names = [phrase for phrase in _names(question)]
    if not names:
        names = _content_runs(question)
    found = dict.fromkeys(names)
    for phrase in answer_candidates(observations, question):
        if phrase[0].isupper() and not _DEMONYM.match(phrase):
            found.setdefault(phrase, None)
    return list(found)


def _names(text: str) -> list[str]:
    """The capitalised phrases of a text, but not a capitalised word that only opens it ("Which", "In")."""
    found = []
    for match in _PHRASE.finditer(text):
        phrase = re.sub(r"['’]s$", "", match.group(0).strip(".,'’-"))
        number = re.match(r" \d+\b", text[match.end():])  # "Apollo 11"
        phrase += number.group(0) if number and phrase[:1].isupper() else ""
        if not phrase or not phrase[0].isupper() or phrase.casefold() in _STOP:
            continue
        if match.start() == 0:
            phrase = re.sub(r"^(?:Who|Whom|Whose|What|Which|Where|When|How|In|On|At|Of|For|Did|Does|Is|Was)\b\s*",
                            "", phrase)
        if len(phrase) > 1:
            found.append(phrase)
    return found


def _content_runs(text: str) -> list[str]:
    """Runs of words that are not stopwords ("of" and "the" may join two: "theory of relativity").

    Whole runs only: a single word of one ("number" of "atomic number of helium") names a more general page.
    """
    words = re.findall(r"[\w'-]+", text)
    runs, current = [], []
    for index, word in enumerate(words):
        lower = word.casefold()
        joins = lower in ("of", "the") and current and index + 1 < len(words) \
            and words[index + 1].casefold() not in _QUESTION_WORDS and not words[index + 1].endswith("ed")
        if joins:
            current.append(word)
        elif lower in _QUESTION_WORDS or lower.endswith("ed"):  # "designed", "published": a question's verbs
            if current:
                runs.append(" ".join(current).removesuffix(" of").removesuffix(" the"))
            current = []
        else:
            current.append(word)
    if current:
        runs.append(" ".join(current))
    return list(dict.fromkeys(runs))


_QUESTION_WORDS = _STOP | frozenset(
    "what which who whom whose where when why how many much long high did does do is was known in the world "
    "first year".split()
)


def react_grammar(question: str, observations: str, first: bool, last: bool = False) -> str:
    """The GBNF grammar of one ReAct reply: `Thought: ...` on one line, then one action and nothing after it.

    The first reply must search; search and lookup take one of `search_candidates`; `finish` takes one of
    `finish_candidates`; the last reply must finish (when there is anything to answer with).
    """
    head = f'root ::= "Thought: " {_THOUGHT} "\\nAction: " '
    topics = search_candidates(question, observations)
    topic = f'({" | ".join(_literal(phrase) for phrase in topics)})' if topics else _ARGUMENT
    if first:
        return head + f'"search[" {topic} "]"'
    candidates = finish_candidates(observations, question)
    finish = f'"finish[" ({" | ".join(_literal(phrase) for phrase in candidates)}) "]"' if candidates else ""
    if last and finish:
        return head + finish
    return head + f'(("search" | "lookup") "[" {topic} "]"{" | " + finish if finish else ""})'


async def react_grammar_agent(ctx: AgentContext) -> str:
    """The grammar for the next ReAct reply, from the question and the observations so far.

    Args:
        ctx: inputs `question`, `observations` (the text of every observation so far; empty
            before the first step), and optionally `step` (0 for the first) and `maxSteps`.

    Returns:
        A GBNF grammar for openAIAgent's `grammar` (llama.cpp servers).
    """
    question = _text(ctx.inputs.get("question"))
    observations = _text(ctx.inputs.get("observations"))
    step, max_steps = ctx.inputs.get("step"), ctx.inputs.get("maxSteps")
    last = isinstance(step, int) and isinstance(max_steps, int) and step + 1 >= max_steps
    return react_grammar(question, observations, first=not observations.strip(), last=last)


def _text(value: Any) -> str:
    return "" if is_null(value) else str(value)


react_grammar_agent_info = AgentInfo(
    name="reactGrammarAgent",
    func=react_grammar_agent,
    description="The GBNF grammar of the next ReAct reply: a thought and one action; the first must search, "
    "finish takes a phrase of the observed sentences that best match the question, of the kind it asks for, "
    "and the last step must finish",
    inputs={"type": "object", "properties": {"question": {"type": ["string", "null"]},
                                             "observations": {"type": ["string", "null"]},
                                             "step": {"type": ["integer", "null"]},
                                             "maxSteps": {"type": ["integer", "null"]}}},
    output={"type": "string"},
    samples=(
        Sample(inputs={"question": "Who wrote Hamlet?", "observations": ""}, params={},
               result='root ::= "Thought: " [^\\n\\[\\]]{1,160} "\\nAction: " "search[" ("Hamlet") "]"'),
        Sample(inputs={"question": "Who wrote Hamlet?", "observations": "Hamlet was written by William Shakespeare."},
               params={},
               result='root ::= "Thought: " [^\\n\\[\\]]{1,160} "\\nAction: " (("search" | "lookup") "[" '
                      '("Hamlet" | "William Shakespeare") "]" | "finish[" ("William Shakespeare") "]")'),
        Sample(inputs={"question": "When was Hamlet written?", "observations": "Hamlet was written around 1600.",
                       "step": 3, "maxSteps": 4},
               params={},
               result='root ::= "Thought: " [^\\n\\[\\]]{1,160} "\\nAction: " "finish[" ("1600") "]"'),
    ),
    category=("llm", "react", "example"),
    author="graphrt",
    license="MIT",
)

AGENTS: list[AgentInfo] = [react_grammar_agent_info]


def react_tool_schemas(question: str, observations: str) -> dict[str, dict[str, Any]]:
    """focusedWikiAgent's search and finish tools, their argument held to `search_candidates` and `finish_candidates`.

    An empty choice leaves the argument a free string.
    """

    def tool(func: str, description: str, parameter: str, choices: list[str]) -> dict[str, Any]:
        prop: dict[str, Any] = {"type": "string"}
        if choices:
            prop["enum"] = choices
        return {"type": "function", "function": {
            "name": f"focusedWikiAgent--{func}", "description": description,
            "parameters": {"type": "object", "properties": {parameter: prop}, "required": [parameter]}}}

    return {
        "search": tool("search", "Reads the sentences of the wiki page about an entity that bear on the question.",
                       "entity", search_candidates(question, observations)),
        "finish": tool("finish", "Finishes the task with the answer.", "answer",
                       finish_candidates(observations, question)),
    }


async def react_tool_schemas_agent(ctx: AgentContext) -> dict[str, dict[str, Any]]:
    """The search and finish tool schemas for the next ReAct step of a function-calling graph.

    Args:
        ctx: inputs `question` and `observations` (the text of every observation so far).

    Returns:
        `{search, finish}`: OpenAI tool schemas named `focusedWikiAgent--search` and `focusedWikiAgent--finish`.
    """
    return react_tool_schemas(_text(ctx.inputs.get("question")), _text(ctx.inputs.get("observations")))


react_tool_schemas_agent_info = AgentInfo(
    name="reactToolSchemasAgent",
    func=react_tool_schemas_agent,
    description="focusedWikiAgent's search and finish tool schemas for the next ReAct step, their arguments held (enum) "
    "to the question's phrases and to the answers the observations offer",
    inputs={"type": "object", "properties": {"question": {"type": ["string", "null"]},
                                             "observations": {"type": ["string", "null"]}}},
    output={"type": "object"},
    samples=(
        Sample(inputs={"question": "Who wrote Hamlet?", "observations": "Hamlet was written by William Shakespeare."},
               params={},
               result=react_tool_schemas("Who wrote Hamlet?", "Hamlet was written by William Shakespeare.")),
    ),
    category=("llm", "react", "example"),
    author="graphrt",
    license="MIT",
)

AGENTS.append(react_tool_schemas_agent_info)
