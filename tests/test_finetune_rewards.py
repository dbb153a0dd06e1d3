"""The GRPO rewards on hand-made good and broken answers (finetune/rewards.py).

Format, grounding, brevity and exact triplet matching are pure Python. The object-paraphrase
fallback runs the real default embedder, and recall usefulness runs graph_db's real recall on
a fixture graph in an embedded ArcadeDB (no stand-ins for either).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator

import pytest

from finetune.recall_fixture import FixtureGraphs, namespace_of, split_fact
from finetune.records import EngramExample, RecallExample
from finetune.reward_config import (
    RewardConfig,
    RewardConfigError,
    UsefulnessConfig,
    load_reward_config,
)
from finetune.rewards import (
    brevity_score,
    combined,
    examples_from,
    format_score,
    grounding_report,
    grounding_score,
    invented_entities,
    is_personal,
    norm_predicate,
    reward_columns,
    triplet_f1_score,
    triplet_prf,
    usefulness_score,
)
from graph_db.engram import fact_text
from graph_db.errors import InvalidInputError, MagsError
from graph_db.text import predicate_key

CFG = load_reward_config()
FMT = CFG.format


def facts(*triplets: tuple[str, str, str]) -> str:
    return json.dumps(
        {"facts": [{"subject": s, "predicate": p, "object": o} for s, p, o in triplets]}
    )


def plan(recall: bool, *queries: str, blocks: str = "both") -> str:
    return json.dumps({"recall": recall, "blocks": blocks, "queries": list(queries)})


ENGRAM = EngramExample.model_validate(
    {
        "id": "t-engram-1",
        "source": "seed",
        "domain": "pets",
        "input": {
            "user": "maya",
            "speaker": "Maya",
            "date": "2024-03-02",
            "turn": "I moved to Leeds last week, with my golden retriever Biscuit!",
            "facts": [{"subject": "Maya", "predicate": "lives_in", "object": "Berlin"}],
        },
        "output": {
            "facts": [
                {"subject": "Maya", "predicate": "lives_in", "object": "Leeds", "confidence": 0.95},
                {"subject": "Maya", "predicate": "has_dog", "object": "Biscuit", "confidence": 0.9},
            ]
        },
    }
)
GOOD = facts(("Maya", "lives_in", "Leeds"), ("Maya", "has_dog", "Biscuit"))

CHITCHAT = EngramExample.model_validate(
    {
        "id": "t-engram-2",
        "source": "seed",
        "domain": "small talk",
        "input": {"user": "kofi", "speaker": "Kofi", "date": "2024-05-01", "turn": "haha nice"},
        "output": {"facts": []},
    }
)

MEMORIES = [
    {
        "kind": "episode",
        "speaker": "Maya",
        "date": "2024-03-01",
        "text": "I finally adopted a beagle puppy, we named him Biscuit.",
    },
    {
        "kind": "episode",
        "speaker": "Maya",
        "date": "2024-03-05",
        "text": "Work at the bank has been exhausting this month, so many audits.",
    },
    {
        "kind": "episode",
        "speaker": "Tom",
        "date": "2024-03-06",
        "text": "My cat Pepper knocked the vase over again.",
    },
    {"kind": "fact", "date": "2024-02-01", "text": "Maya lives in Leeds"},
    {"kind": "fact", "date": "2024-02-01", "text": "Maya is allergic to peanuts"},
    {
        "kind": "episode",
        "speaker": "Maya",
        "date": "2024-03-10",
        "text": "We booked a trip to Lisbon for the second week of May.",
    },
    {"kind": "fact", "date": "2024-01-15", "text": "Maya works at Northern Bank"},
]


def recall_example(gold: list[int], output: dict, message: str = "what was he called?"):
    return RecallExample.model_validate(
        {
            "id": f"t-recall-{'-'.join(map(str, gold)) or 'none'}",
            "source": "seed",
            "domain": "pets",
            "input": {
                "user": "maya",
                "date": "2024-04-02",
                "message": message,
                "history": [{"speaker": "maya", "text": "remember my puppy?"}],
            },
            "output": output,
            "memories": MEMORIES if gold else MEMORIES[:3],
            "gold": gold,
        }
    )


DOG = recall_example([0], {"recall": True, "blocks": "episodic", "queries": ["Maya's puppy"]})
HELLO = recall_example([], {"recall": False, "blocks": "both", "queries": []}, "hi there!")


# -- format ------------------------------------------------------------------------------
def test_format_clean_json_scores_full() -> None:
    assert format_score(GOOD, "engram", CFG) == 1.0
    assert format_score('{"facts": []}', "engram", CFG) == 1.0
    assert format_score(plan(True, "Maya's puppy"), "recall", CFG) == 1.0
    assert format_score(plan(False), "recall", CFG) == 1.0


@pytest.mark.parametrize(
    "text",
    [
        "",
        "no facts here",
        '{"facts": [{"subject": "Maya", "predicate": "lives_in"',  # cut off
        "[1, 2, 3]",
    ],
)
def test_format_without_json_scores_zero(text: str) -> None:
    assert format_score(text, "engram", CFG) == 0.0


def test_format_json_that_breaks_the_schema_scores_little() -> None:
    wrong_confidence = '{"facts": [{"subject": "Maya", "predicate": "x", "object": "y", '
    wrong_confidence += '"confidence": 2018}]}'
    assert format_score(wrong_confidence, "engram", CFG) == FMT.schema_invalid
    assert format_score('{"triplets": []}', "engram", CFG) == FMT.schema_invalid  # no facts
    assert format_score('{"queries": ["x"]}', "recall", CFG) == FMT.schema_invalid  # no recall


def test_format_fence_and_prose_cost_part_of_the_reward() -> None:
    fenced = format_score(f"```json\n{GOOD}\n```", "engram", CFG)
    prose = format_score(f"Here are the facts: {GOOD} Hope this helps!", "engram", CFG)
    thinking = format_score(f"<think>Maya moved.</think>\n{GOOD}", "engram", CFG)
    assert fenced == pytest.approx(1 - FMT.fence_penalty)
    assert prose == pytest.approx(1 - FMT.prose_penalty)
    assert thinking == pytest.approx(1 - FMT.prose_penalty)
    assert 0 < prose < fenced < 1.0


def test_format_extra_keys_and_repairs_are_charged() -> None:
    top = GOOD[:-1] + ', "note": "done"}'
    inner = facts(("Maya", "lives_in", "Leeds")).replace('"Leeds"', '"Leeds", "source": "turn"')
    assert format_score(top, "engram", CFG) == pytest.approx(1 - FMT.extra_keys_penalty)
    assert format_score(inner, "engram", CFG) == pytest.approx(1 - FMT.extra_keys_penalty)
    assert format_score('{"facts": [],}', "engram", CFG) == pytest.approx(1 - FMT.repair_penalty)


def test_format_contract_snake_case_and_query_count() -> None:
    spaced = facts(("Maya", "Lives In", "Leeds"))
    assert format_score(spaced, "engram", CFG) == pytest.approx(1 - FMT.contract_penalty)
    for broken in (plan(True), plan(False, "Maya's dog"), plan(True, "Maya dog", "maya DOG")):
        assert format_score(broken, "recall", CFG) == pytest.approx(1 - FMT.contract_penalty)
    four = plan(True, "a b", "c d", "e f", "g h")  # the schema allows 3
    assert format_score(four, "recall", CFG) == FMT.schema_invalid


def test_format_non_english_values_are_charged_but_names_are_not() -> None:
    russian = facts(("Маша", "живет_в", "Москва"))
    assert format_score(russian, "engram", CFG) == pytest.approx(
        max(FMT.valid_floor, 1 - FMT.non_english_penalty - FMT.contract_penalty)
    )
    accented = facts(("Zoë", "lives_in", "Málaga"))
    assert format_score(accented, "engram", CFG) == 1.0


def test_format_never_falls_under_the_floor_when_valid() -> None:
    worst = f'Sure!\n```json\n{GOOD[:-1]}, "x": 1,}}\n```\nDone.'.replace("lives_in", "Lives In")
    score = format_score(worst, "engram", CFG)
    assert score == FMT.valid_floor
    assert score > FMT.schema_invalid


# -- grounding (engram) ----------------------------------------------------------------------
def test_grounding_of_a_good_answer() -> None:
    report = grounding_report(GOOD, ENGRAM)
    assert report is not None
    assert (report.triplets, report.grounded, report.violations) == (2, 2, 0)
    assert grounding_score(GOOD, ENGRAM) == 1.0
    assert invented_entities(GOOD, ENGRAM) == 0


def test_grounding_accepts_content_words_and_current_facts() -> None:
    spans = facts(
        ("Maya", "has_pet", "golden retriever"),  # a span
        ("Maya", "has_pet", "retriever golden"),  # its content words, in another order
        ("maya", "lived_in", "Berlin"),  # a current fact's object (wrong, but not invented)
    )
    assert grounding_score(spans, ENGRAM) == 1.0


def test_grounding_catches_an_invented_entity() -> None:
    invented = facts(("Maya", "lives_in", "Leeds"), ("Maya", "has_dog", "Rex"))
    report = grounding_report(invented, ENGRAM)
    assert report is not None
    assert report.invented == ["Rex"]
    assert grounding_score(invented, ENGRAM) == 0.5
    assert invented_entities(invented, ENGRAM) == 1
    assert invented_entities(facts(("Maya", "lives_in", "Leeds, England")), ENGRAM) == 1


def test_grounding_first_person_is_a_violation() -> None:
    unresolved = facts(("I", "lives_in", "Leeds"), ("Maya", "has_dog", "my golden retriever"))
    report = grounding_report(unresolved, ENGRAM)
    assert report is not None
    assert report.personal == ["I", "my golden retriever"]
    assert report.grounded == 0
    assert grounding_score(unresolved, ENGRAM) == 0.0
    assert invented_entities(unresolved, ENGRAM) == 2
    assert is_personal("you") and is_personal("We") and not is_personal("US")


def test_grounding_of_no_facts_and_of_broken_output() -> None:
    assert grounding_score('{"facts": []}', CHITCHAT) == 1.0
    assert grounding_score('{"facts": []}', ENGRAM) == 0.0  # silence where facts were due
    assert grounding_score("Maya lives in Leeds.", ENGRAM) == 0.0
    assert grounding_report("Maya lives in Leeds.", ENGRAM) is None


# -- triplet F1 (engram) ---------------------------------------------------------------------
def test_f1_exact_and_normalised_predicates() -> None:
    assert triplet_prf(GOOD, ENGRAM, CFG) == (1.0, 1.0, 1.0)
    spelled = facts(("maya", "Live in", "the Leeds"), ("MAYA", "has-dog", "biscuit"))
    assert triplet_f1_score(spelled, ENGRAM, CFG) == 1.0
    assert norm_predicate("Favourite colour") == "favorite_color"
    assert norm_predicate("works for") == "works_at"


def test_f1_partial_and_one_to_one() -> None:
    one = facts(("Maya", "lives_in", "Leeds"))
    assert triplet_prf(one, ENGRAM, CFG) == pytest.approx((1.0, 0.5, 2 / 3))
    twice = facts(("Maya", "lives_in", "Leeds"), ("Maya", "lives_in", "Leeds"))
    assert triplet_prf(twice, ENGRAM, CFG) == pytest.approx((0.5, 0.5, 0.5))  # no double count
    wrong_subject = facts(("I", "lives_in", "Leeds"), ("Maya", "has_cat", "Biscuit"))
    assert triplet_f1_score(wrong_subject, ENGRAM, CFG) == 0.0


def test_f1_empty_answers() -> None:
    assert triplet_f1_score('{"facts": []}', CHITCHAT, CFG) == 1.0
    assert triplet_f1_score('{"facts": []}', ENGRAM, CFG) == 0.0
    assert triplet_f1_score(facts(("Kofi", "says", "haha")), CHITCHAT, CFG) == 0.0
    assert triplet_f1_score("haha", CHITCHAT, CFG) == 0.0


def test_f1_embedding_fallback_matches_a_paraphrased_object(embedder) -> None:
    example = EngramExample.model_validate(
        {
            "id": "t-engram-3",
            "source": "seed",
            "domain": "hobbies",
            "input": {
                "user": "ines",
                "speaker": "Ines",
                "date": "2024-06-01",
                "turn": "Weekends are for hiking in the mountains, always.",
            },
            "output": {
                "facts": [
                    {"subject": "Ines", "predicate": "enjoys", "object": "hiking in the mountains"}
                ]
            },
        }
    )
    paraphrase = facts(("Ines", "enjoy", "mountain hiking"))
    other = facts(("Ines", "enjoys", "swimming"))
    assert triplet_f1_score(paraphrase, example, CFG, embedder) == 1.0
    assert triplet_f1_score(other, example, CFG, embedder) == 0.0
    strict = RewardConfig.model_validate({"triplet": {"object_similarity": 1.0}})
    assert triplet_f1_score(paraphrase, example, strict, embedder) == 0.0


# -- recall usefulness on the real fixture graph ----------------------------------------------
@pytest.fixture(scope="module")
def fixtures(embedder) -> Iterator[FixtureGraphs]:
    graphs = FixtureGraphs(embedder)
    yield graphs
    graphs.close()


TOP1 = RewardConfig(usefulness=UsefulnessConfig(k=1))


def test_top_k_scales_with_the_fixture() -> None:
    default = UsefulnessConfig()
    assert [default.top_k(n) for n in (3, 4, 5, 7, 8, 12)] == [1, 1, 2, 2, 3, 3]
    assert [default.top_k(4, gold) for gold in (1, 2, 3, 4)] == [1, 2, 3, 3]
    assert UsefulnessConfig(k_fraction=0).top_k(3) == 3


def test_recall_false_needs_no_graph() -> None:
    unused = FixtureGraphs()  # never opened: these cases are decided without a store
    assert usefulness_score(plan(False), HELLO, CFG, unused) == 1.0
    assert usefulness_score(plan(False), DOG, CFG, unused) == 0.0
    assert (
        usefulness_score(plan(True, "Maya"), HELLO, CFG, unused) == CFG.usefulness.needless_recall
    )
    assert usefulness_score(plan(True), DOG, CFG, unused) == 0.0  # recall without queries
    assert usefulness_score("I would search for the dog", DOG, CFG, unused) == 0.0
    assert unused._graph is None


def test_usefulness_graph_query_that_finds_the_gold(fixtures) -> None:
    found = plan(True, "name of Maya's beagle puppy", blocks="episodic")
    assert usefulness_score(found, DOG, TOP1, fixtures) == 1.0
    assert usefulness_score(found, DOG, CFG, fixtures) == 1.0  # default: top-2 of 7


def test_usefulness_graph_query_that_misses_the_gold(fixtures) -> None:
    missed = plan(True, "Maya's audits at the bank")
    assert usefulness_score(missed, DOG, TOP1, fixtures) == 0.0
    union = plan(True, "Maya's audits at the bank", "Maya adopted a puppy")
    assert usefulness_score(union, DOG, TOP1, fixtures) == 1.0  # any query may find it


def test_usefulness_graph_blocks_and_partial_gold(fixtures) -> None:
    wrong_block = plan(True, "name of Maya's beagle puppy", blocks="semantic")
    assert usefulness_score(wrong_block, DOG, TOP1, fixtures) == 0.0
    both = recall_example([0, 3], {"recall": True, "blocks": "both", "queries": ["a", "b"]})
    half = plan(True, "name of Maya's beagle puppy")
    full = plan(True, "name of Maya's beagle puppy", "where does Maya live")
    assert usefulness_score(half, both, TOP1, fixtures) == 0.5
    assert usefulness_score(full, both, TOP1, fixtures) == 1.0


def test_usefulness_graph_is_written_once_per_memory_set(fixtures) -> None:
    ns, ids = fixtures.memory_ids(DOG)
    again = recall_example([3], {"recall": True, "blocks": "semantic", "queries": ["Leeds"]})
    assert fixtures.memory_ids(again) == (ns, ids)
    assert ns == namespace_of(DOG.memories)
    assert len(set(ids)) == len(MEMORIES)
    stats = fixtures.graph.stats(ns)
    assert json.dumps(stats)  # the namespace exists and reports
    text = fixtures.graph.get(ns, ids[3]).text
    assert text == "Maya lives in Leeds"


def test_usefulness_graph_through_trl_functions_both_shapes(fixtures, embedder) -> None:
    funcs, weights = combined(TOP1, "recall", embedder=embedder, fixtures=fixtures)
    assert [f.__name__ for f in funcs] == ["recall_format", "recall_usefulness", "recall_brevity"]
    assert weights == [1.0, 2.0, 0.25]
    usefulness = funcs[1]
    good, bad = plan(True, "name of Maya's beagle puppy"), plan(True, "Maya's audits at the bank")
    record = [reward_columns(DOG)["record"]] * 2
    assert usefulness(completions=[good, bad], record=record) == [1.0, 0.0]
    chat = [[{"role": "assistant", "content": good}], [{"role": "assistant", "content": bad}]]
    assert usefulness(prompts=["p", "p"], completions=chat, record=record) == [1.0, 0.0]


# -- brevity ---------------------------------------------------------------------------------
def test_brevity_is_full_within_need_and_smoothly_lower_beyond() -> None:
    assert brevity_score(GOOD, ENGRAM, CFG) == 1.0
    padded = [brevity_score(GOOD + " " * n, ENGRAM, CFG) for n in (0, 300, 600, 900)]
    # trailing whitespace is stripped: length is measured on the answer's own text
    assert padded == [1.0] * 4
    notes = [f"{GOOD}\n{'Note. ' * n}" for n in (0, 50, 100, 200)]
    longer = [brevity_score(t, ENGRAM, CFG) for t in notes]
    assert longer[0] == 1.0
    assert longer[0] > longer[1] > longer[2] > longer[3] > 0
    gold_size = len(json.dumps(ENGRAM.output.model_dump(mode="json"), separators=(",", ":")))
    over = len(notes[2].strip()) - CFG.brevity.char_slack * gold_size
    assert longer[2] == pytest.approx(math.exp(-over / CFG.brevity.char_scale))


def test_brevity_charges_facts_and_queries_beyond_the_gold() -> None:
    extra = facts(("Maya", "lives_in", "Leeds"), ("Maya", "has_dog", "Biscuit"), ("Maya", "a", "b"))
    assert brevity_score(extra, ENGRAM, CFG) == pytest.approx(math.exp(-1 / 2))
    assert brevity_score(facts(("Kofi", "says", "haha")), CHITCHAT, CFG) < 1.0
    assert brevity_score(plan(True, "Maya's puppy"), DOG, CFG) == 1.0
    two = brevity_score(plan(True, "Maya's puppy", "Maya's beagle"), DOG, CFG)
    wordy = " ".join(["x"] * 18)  # 18 words, within the character budget
    assert two == pytest.approx(math.exp(-1 / 2))
    assert brevity_score(plan(True, wordy), DOG, CFG) == pytest.approx(math.exp(-6 / 6))
    assert brevity_score("Biscuit", ENGRAM, CFG) == 0.0


# -- TRL wrappers, columns, config ---------------------------------------------------------------
def test_engram_functions_on_strings_chat_messages_and_field_columns() -> None:
    funcs, weights = combined(CFG, "engram")
    names = [f.__name__ for f in funcs]
    assert names == ["engram_format", "engram_grounding", "engram_triplet_f1", "engram_brevity"]
    assert weights == [1.0, 1.0, 2.0, 0.25]
    broken = "I moved to Leeds."
    record = [reward_columns(ENGRAM)["record"]] * 2
    as_strings = [f(completions=[GOOD, broken], record=record) for f in funcs]
    chat = [[{"role": "assistant", "content": GOOD}], [{"role": "assistant", "content": broken}]]
    as_chat = [f(completions=chat, record=record) for f in funcs]
    columns = {k: [v, v] for k, v in ENGRAM.model_dump(mode="json").items()}
    as_columns = [f(completions=[GOOD, broken], **columns) for f in funcs]
    assert as_strings == as_chat == as_columns == [[1.0, 0.0]] * 4


def test_functions_skip_rows_of_the_other_role_and_need_the_example() -> None:
    grounding = combined(CFG, "engram").funcs[1]
    record = [reward_columns(ENGRAM)["record"], reward_columns(HELLO)["record"]]
    assert grounding(completions=[GOOD, plan(False)], record=record) == [1.0, None]
    with pytest.raises(InvalidInputError, match="record"):
        grounding(completions=[GOOD], prompts=["p"])
    with pytest.raises(InvalidInputError, match="reward_columns"):
        examples_from({"record": ['{"role": "engram"}']}, 1)


def test_zero_weight_turns_a_reward_off() -> None:
    cfg = RewardConfig.model_validate({"weights": {"engram": {"brevity": 0, "grounding": 0.5}}})
    funcs, weights = combined(cfg, "engram")
    assert [f.__name__ for f in funcs] == ["engram_format", "engram_grounding", "engram_triplet_f1"]
    assert weights == [1.0, 0.5, 2.0]


def test_config_default_file_loads() -> None:
    assert load_reward_config() == RewardConfig()  # the file states the defaults


@pytest.mark.parametrize(
    ("toml", "named"),
    [
        ("[weights.engram]\nformat = -1.0\n", "weights.engram.format"),
        ("[weights.recall]\nusefulness = nan\n", "weights.recall.usefulness"),
        ("[weights.recall]\nformat = 0\nusefulness = 0\nbrevity = 0\n", "weights.recall"),
        ("[weights.engram]\nformt = 1.0\n", "weights.engram.formt"),
        ("[usefulness]\nk = 0\n", "usefulness.k"),
    ],
)
def test_config_bad_values_name_the_key_and_the_fix(tmp_path, toml: str, named: str) -> None:
    path = tmp_path / "rewards.toml"
    path.write_text(toml)
    with pytest.raises(RewardConfigError) as err:
        load_reward_config(path)
    assert isinstance(err.value, MagsError)
    assert named in str(err.value)
    assert "Fix these keys" in str(err.value)


def test_config_missing_or_broken_file(tmp_path) -> None:
    with pytest.raises(RewardConfigError, match="does not exist"):
        load_reward_config(tmp_path / "nope.toml")
    (tmp_path / "bad.toml").write_text("[weights\n")
    with pytest.raises(RewardConfigError, match="not valid TOML"):
        load_reward_config(tmp_path / "bad.toml")


@pytest.mark.parametrize(
    "text",
    [
        "Maya lives in Leeds",
        "Ben's parents live in Bristol",
        "Kofi's favorite color is green",
        "Rex weighs 31 kg",
        "Ama's iPad has 64 GB of storage",
        "Karim, Mariam's father-in-law, can't eat gluten",
        "Rule: a six means roll again",
    ],
)
def test_split_fact_writes_the_same_text_back(text: str) -> None:
    subject, predicate, obj = split_fact(text)
    assert subject and predicate and obj
    assert fact_text(subject, predicate_key(predicate), obj) == text


def test_split_fact_finds_the_predicate() -> None:
    assert split_fact("Maya lives in Leeds") == ("Maya", "lives_in", "Leeds")
    assert split_fact("Ben's parents live in Bristol") == ("Ben's parents", "live_in", "Bristol")
    assert split_fact("Ana Lima works at the bakery") == ("Ana Lima", "works_at", "the bakery")
    assert split_fact("Rex weighs 31 kg") == ("Rex", "weighs", "31 kg")
    with pytest.raises(InvalidInputError, match="subject predicate object"):
        split_fact("Leeds")
