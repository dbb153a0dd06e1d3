"""Model output parsing: what small and reasoning models wrap around JSON."""

from __future__ import annotations

import pytest

from mags_langgraph.llm.parse import ParseError, parse_json, strip_thinking
from mags_langgraph.schemas import Adjudication, Engram

GOOD = (
    '{"facts": [{"subject": "Maya", "predicate": "lives_in", "object": "Leeds", '
    '"confidence": 0.9}]}'
)


@pytest.mark.parametrize(
    "text",
    [
        GOOD,
        f"<think>The user moved.\nSo lives_in.</think>\n{GOOD}",
        f"Sure! Here are the facts:\n```json\n{GOOD}\n```\nAnything else?",
        GOOD.replace("0.9}", "0.9},").replace("}]}", "}]}"),
        '{"facts": [{"subject": "Maya", "predicate": "lives_in", "object": "Leeds", '
        '"confidence": 0.9},]}',  # trailing comma
        f"{{not json}} then {GOOD}",  # a first brace that is not the object
    ],
)
def test_parse_finds_the_object(text):
    out = parse_json(text, Engram)
    assert [(f.subject, f.predicate, f.object) for f in out.facts] == [
        ("Maya", "lives_in", "Leeds")
    ]


@pytest.mark.parametrize(
    "text, why",
    [
        ("", "empty"),
        ("<think>I wonder what to say", "empty"),  # unclosed thinking: nothing else
        ("Maya vit à Leeds depuis la semaine dernière.", "no JSON object"),
        (
            '{"facts": [{"subject": "Maya", "predicate": "lives_in", "object": "Leeds", '
            '"confidence": 2018}]}',
            "confidence",
        ),
        ('{"facts": "Maya lives in Leeds"}', "facts"),
        ('["Maya", "lives_in", "Leeds"]', "no JSON object"),
    ],
)
def test_parse_rejects_what_does_not_fit(text, why):
    with pytest.raises(ParseError, match=why):
        parse_json(text, Engram)


def test_other_languages_inside_valid_json_are_kept():
    out = parse_json('{"winner": "new", "reason": "新的值更近"}', Adjudication)
    assert out.winner == "new" and out.reason == "新的值更近"


def test_strip_thinking_keeps_the_answer():
    assert strip_thinking("<THINK>x</THINK>Hello [1]") == "Hello [1]"


def test_cut_off_output_is_not_an_empty_answer():
    cut = '{"facts": [{"subject": "Maya", "predicate": "lives_in", "object": "Leeds"}, {"subj'
    with pytest.raises(ParseError):
        parse_json(cut, Engram)  # the nested complete triplet must not pass as {"facts": []}
