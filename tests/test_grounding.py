"""Names and dates read from a query (graph_db/grounding.py)."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from graph_db.grounding import (
    DAY_S,
    Grounding,
    about_now,
    as_asker,
    is_named,
    name_free,
    names_in,
    query_dates,
    topic_of,
)
from graph_db.text import is_question, terms


def _day(y: int, m: int, d: int) -> float:
    return datetime(y, m, d, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What did Nate cook on 9 November, 2022?", [(_day(2022, 11, 9), 3)]),
        ("as mentioned on 3rd of June 2023", [(_day(2023, 6, 3), 3)]),
        ("Was it May 7th, 2023 or 2023-05-08?", [(_day(2023, 5, 7), 3), (_day(2023, 5, 8), 3)]),
        ("What did Maria do in July 2023?", [(_day(2023, 7, 15), 20)]),
        ("Sept. 2021 was busy", [(_day(2021, 9, 15), 20)]),
        ("When did Melanie go camping in June?", []),  # which June: left out
        ("I may go on 31 February, 2023", [(_day(2023, 2, 15), 20)]),  # no such day: the month
        ("He scored 12 goals in 2023", []),
    ],
)
def test_query_dates(text, expected):
    assert query_dates(text) == [(t, days * DAY_S) for t, days in expected]


def test_names_are_capitalised_words_less_question_words_months_and_days():
    assert names_in("What is Nate's favorite game, and did Joanna play on Monday in May?") == {
        "nate",
        "joanna",
    }
    assert names_in("Did Élodie meet Zoë in Kraków?") == {"élodie", "zoë", "kraków"}
    assert is_named("Nate Smith", {"nate"}) and not is_named("Joanna", {"nate"})
    assert not is_named(None, {"nate"}) and not is_named("", {"nate"})


def test_time_boosts_per_query_and_the_speaker_named_in_any():
    ground = Grounding.of(["What did Nate do on 9 November, 2022?", "Anything else?"])
    day = _day(2022, 11, 9)
    assert ground.time_boosts({"ts": day}, 1.5) == [pytest.approx(1.5), 0.0]
    a_week_on = ground.time_boosts({"ts": day + 7 * DAY_S}, 1.0)
    assert a_week_on[0] == pytest.approx(math.exp(-7 / 3))
    fact = {"ts": None, "valid_from": day}  # as recall rows carry a fact
    assert ground.time_boosts(fact, 1.0)[0] == pytest.approx(1.0)
    assert ground.time_boosts({"ts": None}, 1.0) == [0.0, 0.0]
    assert ground.names_speaker({"speaker": "Nate"})
    assert ground.names_speaker({"subject": "Nate Smith"})
    assert not ground.names_speaker({"speaker": "Joanna"})


def test_the_name_free_query_keeps_what_is_asked():
    assert name_free("What traits might Melanie say Caroline has?") == "What traits might say has?"
    assert name_free("What is Nate's favorite game?") == "What is favorite game?"
    assert (
        name_free("What did Nate cook on 9 November, 2022?") == "What did cook on 9 November, 2022?"
    )
    assert name_free("Who is Nate?") is None  # nothing left to search for
    assert name_free("What is the weather like?") is None  # no name


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Where do I live now?", "Where do pat live now?"),
        ("What's my dog's name?", "What's pat's dog's name?"),
        ("I'm lost: remind me where I'd moved", "pat is lost: remind pat where pat would moved"),
        (
            "Do you know MY favourite colour? Tell me.",
            "Do you know pat's favourite colour? Tell pat.",
        ),
        ("Is mine the red one?", "Is pat's the red one?"),
        ("Where does Nate live?", None),  # no first person: nothing to add
        ("Is it time?", None),  # "it", "time": no "i" inside words
    ],
)
def test_a_first_person_question_is_also_asked_about_the_asker(text, expected):
    assert as_asker(text, "pat") == expected


def test_the_asker_is_named_by_the_first_person_only():
    ground = Grounding.of(["Where do I live now?", "Where does Nate live?"], asker="Pat Smith")
    assert ground.names == [{"pat"}, {"nate"}]
    assert ground.names_speaker({"subject": "pat"}) and ground.names_speaker({"speaker": "Pat"})
    assert not ground.names_speaker({"speaker": "assistant"})
    assert Grounding.of(["Where do I live?"]).names == [set()]  # nobody asks: nobody named
    assert as_asker("Where do I live?", None) is None and as_asker("Where do I live?", " ") is None


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("Where do I live?", True),
        ("Any news? How was the trip?", True),
        ("Really?!", True),
        ('Did she say "yes?"', True),
        ("I moved to Porto. Can you help me find a gym?", False),  # it states something too
        ("I live in Lisbon.", False),
        ("Hey! How are you?", False),
        ("", False),
    ],
)
def test_a_turn_that_only_asks(text, asks):
    assert is_question(text) is asks


def test_the_full_text_query_asks_each_term_once():
    """Lucene (Neo4j) scores a repeated term twice, ArcadeDB once: asked once, they agree."""
    from graph_db.text import fulltext_query

    assert fulltext_query("a theme park or a national park?") == "theme park nation"


@pytest.mark.parametrize(
    ("text", "now"),
    [
        ("Where is the laptop now?", True),
        ("What does Pat do for work?", True),
        ("Where's my passport?", True),
        ("Where did the laptop end up?", True),  # the outcome: the latest turn tells it
        ("What did Pat eventually choose?", True),
        ("Where did the laptop go first?", False),
        ("What did Mel paint last year?", False),
        ("When is the meeting?", False),
        ("What was the first rule?", False),
        ("What is on the menu on 9 November, 2022?", False),
    ],
)
def test_a_query_about_how_things_stand_names_no_past(text, now):
    assert about_now(text) is now


def test_the_words_that_ask_for_the_outcome_do_not_group_turns():
    """ "Where did the fondue end up?" is about the fondue: "You pick up the fondue" and "You
    put the fondue in the suitcase" are turns about the same thing, whatever "up" does."""
    assert terms(topic_of("Where did the fondue end up?")) == terms("the fondue")
    assert terms(topic_of("Where is the towel at the moment, currently?")) == "towel"
    assert terms(topic_of("Who ended up with the pot?")) == terms("Who with the pot?")
    # "where can I find" asks where it is: "You find yourself in a bar" is not about the towel
    assert terms(topic_of("Where can I find the towel?")) == "towel"
    assert terms(topic_of("Where could you find the towel?")) == "towel"
    assert terms(topic_of("What is the current location of the towel?")) == "towel"
    assert terms(topic_of("What's the location of the towel now?")) == "towel"
    assert terms(topic_of("What did you find in the towel?")) == terms("what did find towel")


def test_contractions_and_now_are_not_search_terms():
    """ "Where's the key right now?" is about the key: the "s" of "where's" and "now" match
    every room description that says "here's" or "now"."""
    assert terms("Where's the key right now? I'll look, you'd see") == "key right look see"
