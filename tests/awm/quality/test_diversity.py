"""The diversity measures: masking, exact near-duplicate detection, the corpus report and the partition share."""

import itertools
import random

from awm.quality.diversity import (
    Masker,
    TaskText,
    corpus_diversity,
    near_duplicate_flags,
    partition_duplicate_shares,
    shingles,
    skeleton,
    words,
)

LABELS = {"party": "patient", "case": "appointment", "staff": "dentist", "site": "dental office"}


def test_values_and_domain_nouns_are_masked():
    masker = Masker.for_environment(LABELS, extra=["Adult Cleaning", "Susan Martin", "Riverton Dental Office"])
    masked = masker.mask("Hi, this is Susan Martin (susan.martin@example.com). Please move my appointment APP-1042 "
                         "at Riverton Dental Office to 2025-07-01 at 10:00, add 2 x 'Adult Cleaning' and note "
                         "'Running late' for the dentists. I'm grateful, Dr Alvarez said it costs $1,234.50.")
    text = skeleton(masked)
    for leaked in ("susan", "martin", "1042", "riverton", "adult", "running", "alvarez", "1,234", "appointment",
                   "dentists"):
        assert leaked not in text, (leaked, text)
    assert "<email>" in text and "<code>" in text and "<date>" in text and "<quote>" in text
    assert {"please", "move", "my", "note", "for", "the", "said", "it", "costs", "i'm"} <= set(words(masked))


def test_a_lone_capitalised_word_that_starts_a_sentence_is_a_word_not_a_name():
    masked = Masker().mask("Please cancel it. Thanks, Maria Lopez will call.")
    assert skeleton(masked).startswith("please cancel it . thanks , <name> will call")


def _jaccard(a, b):
    return len(a & b) / len(a | b) if a | b else 0.0


def test_near_duplicates_are_found_exactly_as_all_pairs_would():
    rng = random.Random(5)
    vocabulary = [f"w{i}" for i in range(12)]
    sets = [frozenset(rng.sample(vocabulary, rng.randint(1, 8))) for _ in range(150)]
    groups = [str(i % 4) for i in range(150)]
    expected = [False] * len(sets)
    for i, j in itertools.combinations(range(len(sets)), 2):
        if groups[i] != groups[j] and _jaccard(sets[i], sets[j]) >= 0.6:
            expected[i] = expected[j] = True
    assert near_duplicate_flags(sets, groups) == expected
    assert any(expected) and not all(expected)


def test_the_corpus_report_counts_what_a_trainer_sees():
    masker = Masker.for_environment(LABELS)
    texts = ["Please cancel appointment APP-1 for the patient.", "Please cancel appointment APP-2 for the patient.",
             "What is the total of the patient's appointments?"]
    tasks = [TaskText(f"d{n}__00", f"d{n}", t, ("cancel",) if n < 2 else ("total",), 3 + n, 2 + n, masker.mask(t))
             for n, t in enumerate(texts)]
    report = corpus_diversity(tasks, {"cancel": "action", "total": "question"}, {"total"})
    assert report["distinct_intents"] == 2 and report["distinct_skeletons"] == 2
    assert report["top_skeleton_share"] == round(2 / 3, 4)
    assert report["cross_domain_near_duplicate_share"] == round(2 / 3, 4)
    assert report["steps"]["mean"] == 4 and report["shapes"]["action"]["tasks"] == 2
    # the depth of each shape's tasks and of the category's own requests: steps 3 and 4, tools 2 and 3; then 5 and 4
    assert report["shapes"]["action"]["steps_mean"] == 3.5 and report["shapes"]["action"]["distinct_tools_mean"] == 2.5
    assert report["category_specific"] == {"tasks": 1, "share": round(1 / 3, 4), "steps_mean": 5,
                                           "distinct_tools_mean": 4}


def test_sentences_are_counted_once_per_task_and_split_into_requests_and_small_talk():
    masker = Masker.for_environment(LABELS)
    texts = ["Two things. Please cancel appointment APP-1. Also close it. Thanks.",
             "Two things. Please cancel appointment APP-2. Thanks. Thanks.",
             "What is the total of the patient's appointments?", "Please cancel appointment APP-3."]
    tasks = [TaskText(f"d{n}__00", f"d{n}", t, ("x",), 1, 1, masker.mask(t)) for n, t in enumerate(texts)]
    report = corpus_diversity(tasks)
    assert report["top_request_sentence"] == "please cancel <noun> <code> ."
    assert report["top_request_sentence_share"] == 0.75
    assert report["distinct_request_sentences"] == 2  # the cancel and the total (both name a thing)
    assert report["top_filler_sentence_share"] == 0.5 and report["distinct_filler_sentences"] == 3


def test_a_partition_of_near_duplicates_is_flagged_and_a_varied_one_is_not():
    masker = Masker.for_environment(LABELS)
    same = [f"Please cancel appointment APP-{n} for the patient today." for n in range(8)]
    varied = ["Please cancel appointment APP-1 for the patient today.", "What is the total of all captured payments?",
              "Hi, I'm moving house: change my city to Boise.", "Which dentist handles the most appointments?"]
    share, flagged = partition_duplicate_shares({"x__00": (same, masker)})
    assert share == 1.0 and len(flagged) == 8
    assert partition_duplicate_shares({"x__00": (varied, masker)})[0] == 0.0
    assert shingles(masker.mask(same[0])) == shingles(masker.mask(same[1]))
