"""Model output parsing: what small and reasoning models wrap around JSON."""

from __future__ import annotations

import pytest

from mags_langgraph.llm.parse import ParseError, parse_json, strip_thinking
from mags_langgraph.schemas import Adjudication, Engram, grounded_engram_schema, turn_phrases

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


def test_turn_phrases_are_the_turns_word_runs_without_lone_pronouns():
    phrases = turn_phrases("I'm flying to São Paulo for my cousin Selin's 30th, on 2024-03-21!")
    assert {"São Paulo", "Selin's", "Selin", "cousin Selin", "30th", "2024-03-21"} <= set(phrases)
    assert "my cousin Selin's 30th" in phrases  # runs of words as written, possessive kept
    assert not {"I", "my", "flying to São Paulo for my cousin Selin's 30th"} & set(phrases)
    assert all(p == p.strip(" ,.!") for p in phrases)
    assert len(turn_phrases("one two three four five six seven eight nine ten")) == 52  # <= 8 words


def test_the_grounded_schema_limits_entities_and_still_validates_the_answer():
    schema = grounded_engram_schema("I live in Porto now.", ["Pat", "2024-05-01"])
    triplet = schema["$defs"]["Triplet"]["properties"]
    assert triplet["subject"]["enum"][:2] == ["Pat", "2024-05-01"]
    assert triplet["subject"]["enum"] == triplet["object"]["enum"]
    assert "Porto" in triplet["object"]["enum"] and "Lisbon" not in triplet["object"]["enum"]
    assert "I" not in triplet["subject"]["enum"]
    assert (
        triplet["predicate"]
        == Engram.model_json_schema()["$defs"]["Triplet"]["properties"]["predicate"]
    )  # predicates stay free: only entities must be grounded
    answer = parse_json(
        '{"facts": [{"subject": "Pat", "predicate": "lives_in", "object": "Porto"}]}', Engram
    )
    assert answer.facts[0].object == "Porto"
