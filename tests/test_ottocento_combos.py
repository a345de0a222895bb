"""The Ottocento combination scorer (RULES.md §4, §10 E6-E11): worked examples with their exact
numbers, the vectorised scorer against the card-by-card reference, and properties."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo.envs.core.cards import TAROCCO62, cards_to_mask, mask_to_cards
from cardzoo.envs.ottocento.combos import SEQ_NAMES, SET_NAMES, combo_breakdown, combo_score, reference_breakdown

from ottocento_util import E11_CASES


def ids(names: str) -> list[int]:
    return TAROCCO62.ids(names)


def score(names: str, **kw) -> int:
    return int(combo_score(np.uint64(cards_to_mask(ids(names))), **kw))


def parts(names: str, **kw) -> tuple[dict, dict]:
    b = combo_breakdown(np.uint64(cards_to_mask(ids(names))), **kw)
    sets = {n: int(v) for n, v in zip(SET_NAMES, b.sets) if v}
    seqs = {n: int(v) for n, v in zip(SEQ_NAMES, b.seqs) if v}
    return sets, seqs


def test_e6_declaration_with_contatori_and_doubling():
    hand = "ANG WOR MOO T16 T15 T13 BEG MAT KS QS JS AS KC KD AC"
    assert len(ids(hand)) == 15
    sets, seqs = parts(hand)
    assert sets == {"Tarocchi": 36, "Kings": 17}  # two sets: no doubling -> 53
    assert seqs == {"Grande": 35, "swords": 25, "Aces": 15}  # cups and coins invalid
    b = combo_breakdown(np.uint64(cards_to_mask(ids(hand))))
    assert not b.sets_doubled and b.seqs_doubled
    assert score(hand) == 53 + (35 + 25 + 15) * 2 == 203


def test_e7_grande_cut_by_two_gaps_in_a_row():
    hand = "ANG WOR SUN MOO T16 T13 T12 T11 BEG MAT"
    sets, seqs = parts(hand)
    assert seqs == {"Grande": 30}
    assert sets == {"Tarocchi": 36}
    assert score(hand) == 66
    # T13-T11 are not part of the Grande: the declaration does not show them
    shown = mask_to_cards(combo_breakdown(np.uint64(cards_to_mask(ids(hand)))).shown)
    assert not set(ids("T13 T12 T11")) & set(shown)


def test_e7b_pisarris_case():
    first = ids("WOR T14 T12 T10 T9 T7 T5 BEG")
    trumps = set(range(40, 61))
    second = sorted((trumps - set(first)) | {TAROCCO62.card_id("MAT")})
    _, seqs = parts(" ".join(TAROCCO62.names[c] for c in second))
    assert seqs["Grande"] == 30 == 105 - 5 * (12 + 3)


def test_e8_grande_into_the_moors():
    pile = "ANG WOR SUN MOO T16 T15 T14 T13 T12 T11 T10 T8 T7 T6 T5 MAT MO1 MO2"
    assert len(ids(pile)) == 18
    sets, seqs = parts(pile)
    assert seqs == {"Grande": 85, "Moors": 10}
    assert sets == {"Tarocchi": 18}
    assert score(pile) == 113


def test_e9_captured_pile_combinations():
    pile = "KS KB KC QS QB QD NS JS AS AB AD MO1 MO2 BEG T7 T8 6C 7C 9D 10B"
    sets, seqs = parts(pile)
    assert sets == {"Kings": 17, "Queens": 14}
    assert seqs == {"swords": 25, "batons": 15, "Aces": 15, "Moors": 10}
    assert score(pile) == 31 + 65 * 2 == 161  # + 38 card points = 199 (tests/test_ottocento_scoring.py)


@pytest.mark.parametrize(
    "cards, expected",
    E11_CASES,
)
def test_e11_sequence_validity_edges(cards, expected):
    assert score(cards) == expected


def test_full_grande_is_105_and_full_criccone_is_296():
    grande = "ANG WOR SUN MOO " + " ".join(f"T{n}" for n in range(16, 4, -1)) + " MO1 MO2 MO3 MO4 BEG MAT"
    assert len(ids(grande)) == 22
    _, seqs = parts(grande)
    assert seqs["Grande"] == 105
    everything = np.uint64((1 << 62) - 1)
    b = combo_breakdown(everything)
    assert int(b.sets.sum()) * 2 == 296
    # whole pack: 4 suit sequences of 7, Aces 6, Moors 6, Grande 22 -> doubled
    assert b.seqs.tolist() == [30, 30, 30, 30, 25, 25, 105]
    assert int(b.total) == 296 + 2 * 275


def test_grande_head_rules():
    assert score("ANG WOR SUN") == 10  # t = 2, natural skip
    assert score("ANG WOR") == 0  # t = 1 and no contatore
    assert score("WOR SUN MOO T16 BEG") == 0  # no Angel, no Grande
    assert parts("ANG BEG MAT T16")[1] == {}  # t = 0: no Grande (the Tarocchi set of 3 still scores)
    # natural skip of MOO then a fill at T16: allowed by default, not with the stricter option
    assert parts("ANG WOR SUN BEG T15")[1] == {"Grande": 20}  # ANG WOR SUN (fill T16) T15 + BEG
    assert parts("ANG WOR SUN BEG T15", natural_skip_counts_as_gap=True)[1] == {"Grande": 15}
    # the stricter option changes nothing when MOO is held
    assert parts("ANG SUN MOO BEG T15")[1] == parts("ANG SUN MOO BEG T15", natural_skip_counts_as_gap=True)[1]


def test_moors_join_only_after_t5():
    nums = " ".join(f"T{n}" for n in range(16, 5, -1))  # T16..T6, T5 missing
    assert parts(f"ANG WOR SUN MOO {nums} MO1")[1] == {"Grande": 5 * 15 - 5}
    assert parts(f"ANG WOR SUN MOO {nums} T5 MO1")[1] == {"Grande": 5 * 17 - 5}
    # a contatore fills T5, then the Moors join
    assert parts(f"ANG WOR SUN MOO {nums} MAT MO1 MO2")[1]["Grande"] == 5 * (4 + 11 + 2 + 1) - 5


def test_set_doubling_needs_three_sets():
    assert score("KS KB KC QS QB QD") == 17 + 14
    # three sets double; K-Q-N of swords and of batons add two (undoubled) sequences of 10
    assert score("KS KB KC QS QB QD NS NB NC") == 2 * (17 + 14 + 13) + 10 + 10
    assert score("KS KB KC QC QB QD NS ND NC") == 2 * (17 + 14 + 13) + 10  # only cups K-Q-N


def test_reference_rejects_bad_ids():
    with pytest.raises(ValueError, match="distinct"):
        reference_breakdown([1, 1])
    with pytest.raises(ValueError, match="0..61"):
        reference_breakdown([62])


def _random_collections(rng, n):
    # biased towards combination-rich collections: honours, courts and trumps more likely
    p = np.full(62, 0.25)
    p[[6, 7, 8, 9, 16, 17, 18, 19, 26, 27, 28, 29, 36, 37, 38, 39]] = 0.55
    p[40:62] = 0.7
    take = rng.random((n, 62)) < rng.random((n, 1)) * p * 1.6
    weights = np.left_shift(np.uint64(1), np.arange(62, dtype=np.uint64))
    return np.bitwise_or.reduce(np.where(take, weights, np.uint64(0)), axis=1)


@pytest.mark.parametrize("strict", [False, True])
def test_vectorised_scorer_matches_the_reference(strict):
    rng = np.random.default_rng(7)
    xs = _random_collections(rng, 3000)
    b = combo_breakdown(xs, natural_skip_counts_as_gap=strict)
    for i in range(xs.size):
        r = reference_breakdown(mask_to_cards(xs[i]), natural_skip_counts_as_gap=strict)
        assert b.sets[i].tolist() == r["sets"]
        assert b.seqs[i].tolist() == r["seqs"], mask_to_cards(xs[i])
        assert int(b.total[i]) == r["total"]
        assert mask_to_cards(b.shown[i]) == r["shown"]


def test_properties_adding_a_card_and_order():
    rng = np.random.default_rng(3)
    xs = _random_collections(rng, 4000)
    add = np.left_shift(np.uint64(1), rng.integers(0, 62, xs.size).astype(np.uint64))
    before, after = combo_breakdown(xs), combo_breakdown(xs | add)
    # adding a card never lowers a set score, nor any sequence, nor the total
    assert (after.sets >= before.sets).all()
    assert (after.seqs >= before.seqs).all()
    assert (after.total >= before.total).all()
    # the shown cards score on their own exactly as the whole collection does
    assert (combo_score(before.shown) == before.total).all()
    # order invariance: the reference over shuffled id lists gives the same total
    for i in range(200):
        cards = mask_to_cards(xs[i])
        rng.shuffle(cards)
        assert reference_breakdown(cards)["total"] == int(before.total[i])


def test_shapes_broadcast():
    x = np.zeros((3, 4), dtype=np.uint64)
    x[1, 2] = cards_to_mask(ids("KS KB KC"))
    b = combo_breakdown(x)
    assert b.total.shape == (3, 4) and b.sets.shape == (3, 4, 5) and b.seqs.shape == (3, 4, 7)
    assert int(b.total[1, 2]) == 17 and int(b.total.sum()) == 17
