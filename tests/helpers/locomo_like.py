"""A small conversation in LoCoMo's file format, written for the tests (the LoCoMo data sits
beside the repo only on machines that have it): two sessions of two speakers, questions of
categories 1-4 with their evidence turns, and one adversarial (5) question that readers skip."""

from __future__ import annotations

import json
from pathlib import Path

SESSIONS = (
    (
        "1:56 pm on 8 May, 2023",
        [
            ("Ines", "Hi Tomas! I finally adopted a dog last weekend, a grey whippet called Pico."),
            ("Tomas", "Congratulations! How is Pico settling in at your flat?"),
            ("Ines", "He sleeps all day on the sofa and sprints around the park at dusk."),
            ("Tomas", "Ha. I spent Saturday repairing my bike, the chain kept slipping."),
            ("Ines", "Are you still planning to cycle to Porto in the summer?"),
            ("Tomas", "Yes, in July, with my sister Rosa. About 300 km in four days."),
            ("Ines", "That sounds hard. I could never ride that far."),
            ("Tomas", "You should come to the pottery class on Thursdays instead, it is calmer."),
        ],
    ),
    (
        "7:10 pm on 2 June, 2023",
        [
            ("Tomas", "Rosa broke her wrist climbing, so the Porto trip moves to September."),
            ("Ines", "Oh no, poor Rosa! I hope she heals quickly."),
            ("Ines", "Pico passed his obedience course today, he got a little certificate."),
            ("Tomas", "Clever dog. Did you go to the pottery class after all?"),
            ("Ines", "I did! I made a lopsided blue bowl, it holds Pico's treats now."),
            ("Tomas", "I started learning the cello, my neighbours are very patient."),
            ("Ines", "Which piece are you practising?"),
            ("Tomas", "A simple Bach minuet, slowly, very slowly."),
        ],
    ),
)

QUESTIONS = (
    ("What breed is Ines's dog?", "A whippet", ["D1:1"], 4),
    ("When did the Porto trip move to?", "September", ["D2:1"], 2),
    ("Why did the cycling trip to Porto move?", "Rosa broke her wrist", ["D2:1", "D1:6"], 1),
    ("What does Ines keep in the bowl she made?", "Pico's treats", ["D2:5"], 3),
    ("Which instrument did Tomas start learning?", "The cello", ["D2:6"], 4),
    ("What is Tomas's favourite cheese?", "Not mentioned", ["D1:4"], 5),
)


def write_conversation(path: Path) -> Path:
    """Write the conversation to ``path`` (its stem names it, as LoCoMo's files do)."""
    data: dict = {"qa": []}
    for n, (when, turns) in enumerate(SESSIONS, start=1):
        data[f"session_{n}_date_time"] = when
        data[f"session_{n}"] = [
            {"speaker": speaker, "dia_id": f"D{n}:{i}", "text": text}
            for i, (speaker, text) in enumerate(turns, start=1)
        ]
    for question, answer, evidence, category in QUESTIONS:
        data["qa"].append(
            {"question": question, "answer": answer, "evidence": evidence, "category": category}
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1))
    return path
