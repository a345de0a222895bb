"""The kernel against an independent model of the rules (``ottocento_reference.py``), step by
step: random legal actions over every option value (RULES.md §8), comparing the player to act, the
legal actions, every hand, the seat winning the current trick, tricks won, declarations and the
cards they show, the rewards of every step, the end, the truncation and every component of each
deal's result (§6). The model deals each pack itself (§3), so dealing is checked too. Stacked
"lopsided" deals add what random deals almost never show: a team without a trick and the Matto's
lowest-value fallback (§3.4, §6.1)."""

from __future__ import annotations

import numpy as np
import pytest
from ottocento_reference import MAT, MOORS, ReferenceGame, combo, half_points, value
from reference_util import play_in_lockstep

from cardzoo.envs.ottocento.kernel import OttocentoKernel

OPTION_SETS = [
    {},
    {"dealer": 0, "deal_packets": 1, "forbidden_discards": "five_point_cards", "moors_tie": "first_played"},
    {"dealer": 1, "deal_packets": 3, "declaration_mode": "auto_all", "natural_skip_counts_as_gap": True},
    {"dealer": 2, "deal_packets": 15, "declaration_mode": "none", "reward": "point_diff", "last_trick_bonus": -7},
    {"dealer": 3, "discards_follow_tricks": False, "discards_in_captured_combos": False, "matto_gift": "lowest_id"},
    {"matto_rule": "captured", "reward": "point_diff", "last_trick_bonus": 0},
    {"matto_fallback": "forfeit", "discards_in_captured_combos": False, "natural_skip_counts_as_gap": True},
    {"match_target": 800, "reward": "point_diff"},
    {"match_target": 500, "max_deals": 2, "reward": "point_diff", "moors_tie": "first_played", "matto_gift": "lowest_id"},
    {"match_target": 400, "declarations_win_immediately": True, "declaration_mode": "auto_all", "reward": "point_diff"},
    {"match_target": 500, "declarations_win_immediately": True},
]
SCORED = [False] * 9 + [True, True]  # start from a match score (reset hook)


def _bits(mask) -> set[int]:
    return {c for c in range(62) if (int(mask) >> c) & 1}


def _name(o) -> str:
    return ",".join(f"{k}={v}" for k, v in o.items()) if isinstance(o, dict) else str(o)


def _compare(k: OttocentoKernel, st, B: int, ref: list[ReferenceGame], choose, rng) -> dict:
    """Play the batch ``st`` to its end with ``choose(b, model)`` actions, checking the kernel
    against the models ``ref`` after every step; returns counts of what was seen."""
    seen = dict.fromkeys(("steps", "ends", "deals", "declared", "gifts", "fallback_gifts", "matto_stays", "no_trick", "truncated", "by_declaration", "moor_ties", "matto_led"), 0)

    def check(b: int, r: ReferenceGame) -> None:
        assert bool(st.done[b]) == r.done, b
        assert bool(st.truncated[b]) == r.truncated, b
        assert st.score[b].tolist() == r.score, b
        assert np.allclose(st.rewards[b], r.step_rewards), (b, st.rewards[b].tolist(), r.step_rewards)
        assert st.decl_points[b].tolist() == r.decl, b
        assert [_bits(m) for m in st.shown[b]] == r.shown, b
        if r.done:
            assert int(st.winner[b]) == r.winner, b
            assert (k.info(st, b).get("truncation") is not None) == r.truncated, b
            assert k.ended_by_declaration(st, b) == (r.result is None), b
            seen["ends"] += 1
            seen["truncated"] += r.truncated
            seen["by_declaration"] += r.result is None
            return
        assert [_bits(h) for h in st.hands[b]] == r.hands, b
        assert int(st.dealer[b]) == r.dealer, b
        assert st.tricks_won[b].tolist() == r.tricks_won, b
        if r.phase == "play":
            assert int(st.trick_winner[b]) == r.current_winner(), (b, r.trick)

    def check_result(b: int, r: ReferenceGame) -> None:
        res = r.result
        seen["deals"] += 1
        seen["gifts"] += res["gift"] >= 0
        seen["fallback_gifts"] += res["gift"] >= 0 and value(res["gift"]) > 1
        seen["matto_stays"] += res["fate"] == 2
        seen["no_trick"] += 0 in r.tricks_won
        assert [_bits(p) for p in st.final_piles[b]] == res["final_piles"], b
        assert st.res_cards[b].tolist() == res["cards"], b
        assert st.res_captured[b].tolist() == res["captured"], b
        assert st.res_declared[b].tolist() == res["declared"], b
        assert st.res_last[b].tolist() == res["last"], b
        assert st.res_total[b].tolist() == res["totals"], b
        assert (int(st.gift[b]), int(st.matto_fate[b]), int(st.discards_to[b])) == (res["gift"], res["fate"], res["to"]), b
        assert sum(res["cards"]) == 2 * 87

    for b in range(B):
        check(b, ref[b])

    def advance(b: int, r: ReferenceGame, action: int) -> None:
        decls, scored, trick = sum(r.decl), r.deals, list(r.trick)
        nxt = r.step(action)
        seen["declared"] += sum(r.decl) != decls
        if len(trick) == 3:
            cards = [c for _, c in trick] + [action]
            seen["moor_ties"] += sum(c in MOORS for c in cards) > 1 and not any(c > 44 and c != MAT for c in cards)
            seen["matto_led"] += cards[0] == MAT
        if r.deals > scored:
            check_result(b, r)
        if nxt == "deal":  # the kernel shuffled the next deal's pack: deal it as §3 says
            r.deal(st.stock[b])
        check(b, r)

    seen["steps"] = play_in_lockstep(k, st, rng, ref, lambda b, r, legal: choose(b, r), advance)
    assert seen["ends"] == B
    return seen


@pytest.mark.parametrize("options, scored", list(zip(OPTION_SETS, SCORED)), ids=_name)
def test_the_kernel_plays_as_the_reference_model(options, scored):
    k = OttocentoKernel(**options)
    o = dict(k.options)
    B = 48
    rng, pick = np.random.default_rng(31), np.random.default_rng(32)
    score = np.random.default_rng(33).integers(0, o["match_target"] or 1, size=(B, 2)) if scored else None
    st = k.init(rng, B) if score is None else k.init(rng, B, score=score)
    if o["dealer"] != "random":
        assert (st.dealer == o["dealer"]).all()
    ref = [ReferenceGame(o, int(st.dealer[b]), (0, 0) if score is None else score[b].tolist()) for b in range(B)]
    for b in range(B):
        ref[b].deal(st.stock[b])
    seen = _compare(k, st, B, ref, lambda b, r: pick.choice(r.legal()), rng)
    assert seen["steps"] > 60 * B and seen["moor_ties"] + seen["matto_led"] > 0
    if o["declaration_mode"] != "none":
        assert seen["declared"] > B // 2
    if o["declarations_win_immediately"]:
        assert seen["by_declaration"] > 0
    if o["max_deals"] < 10:
        assert 0 < seen["truncated"] < B


# ---------------------------------------------------------------------- lopsided deals
# Random deals almost never leave a team without a trick, nor a team that loses the Matto with no
# 1-point card to give for it. These stacked deals do (§3.4, §6.1): the strong team holds the 21
# trumps, QS, JS and the kings, queens and knights of batons, cups and coins, so the weak team
# wins a trick only by leading KS into trick 1 (the strong seats must follow with QS and JS, §5)
# or, rarely, when a strong seat has run out of trumps.
# When it does, and its other seat adds NS, its pile is KS QS NS JS: no 1-point card, so the Matto
# (weak) is paid for with the lowest-valued card, JS (or lost, matto_fallback="forfeit").
STRONG = list(range(40, 61)) + [8, 6] + [10 * s + r for s in (1, 2, 3) for r in (9, 8, 7)]
KS, NS, QS, JS = 9, 7, 8, 6


def _lopsided(dealer: int, weak: int, rng) -> np.ndarray:
    strong = list(STRONG)
    if dealer % 2 == weak:  # the weak team then holds 32 cards: it gets the knights of batons and cups
        strong.remove(17), strong.remove(27)
    leader = (dealer + 1) % 4
    lead_w, other_w = (leader, (leader + 2) % 4) if leader % 2 == weak else ((leader + 1) % 4, (leader + 3) % 4)
    lead_s, other_s = (lead_w + 1) % 4, (lead_w + 3) % 4
    hands = {lead_w: [KS, MAT], other_w: [NS], lead_s: [QS], other_s: [JS]}
    rest_s = [c for c in rng.permutation(strong) if c not in (QS, JS)]
    rest_w = [c for c in rng.permutation([c for c in range(62) if c not in strong]) if c not in (KS, MAT, NS)]
    for seat, rest in ((lead_w, rest_w), (other_w, rest_w), (lead_s, rest_s), (other_s, rest_s)):
        while len(hands[seat]) < (17 if seat == dealer else 15):
            hands[seat].append(int(rest.pop()))
    assert not rest_s and not rest_w
    stock = np.empty(62, np.int64)  # RULES §3: packets of 5 from the dealer's right, the dealer takes 60, 61
    for k in range(4):
        seat = (dealer + 1 + k) % 4
        pos = [r * 20 + k * 5 + i for r in range(3) for i in range(5)] + ([60, 61] if seat == dealer else [])
        stock[pos] = hands[seat]
    return stock


@pytest.mark.parametrize(
    "options",
    [{}, {"matto_fallback": "forfeit"}, {"discards_follow_tricks": False, "discards_in_captured_combos": False, "matto_gift": "lowest_id"}],
    ids=_name,
)
def test_lopsided_deals_play_as_the_reference_model(options):
    k = OttocentoKernel(**options)
    B = 32
    rng, pick = np.random.default_rng(41), np.random.default_rng(42)
    dealers = np.arange(B) % 4
    weak = (np.arange(B) // 4) % 2
    st = k.init(rng, B, deck=np.stack([_lopsided(int(dealers[b]), int(weak[b]), pick) for b in range(B)]), dealer=dealers)
    ref = [ReferenceGame(dict(k.options), int(dealers[b])) for b in range(B)]
    for b in range(B):
        ref[b].deal(st.stock[b])
    scripted = np.arange(B) % 8 < 6  # the weak team leads KS (and adds NS) when it can; the others play at random

    def choose(b: int, r: ReferenceGame) -> int:
        legal = r.legal()
        if r.phase == "discard" and r.dealer % 2 != weak[b]:  # the strong dealer keeps QS / JS and his plain cards
            legal = [c for c in legal if c >= 40] or legal
        elif r.phase == "play" and r.to_act() % 2 != weak[b] and not r.trick:  # strong leads trumps, then swords last
            legal = [c for c in legal if c >= 40] or [c for c in legal if c >= 10] or legal
        elif scripted[b] and r.phase == "play":
            legal = [c for c in legal if c in (KS, NS)] or legal
        elif r.phase == "discard":
            legal = [c for c in legal if c != NS]
        return int(pick.choice(legal))

    seen = _compare(k, st, B, ref, choose, rng)
    assert seen["no_trick"] >= B // 4 and seen["matto_stays"] >= B // 4
    if options.get("matto_fallback") != "forfeit":
        assert seen["fallback_gifts"] >= B // 4


def _ids(names: str) -> list[int]:
    """Card ids of RULES.md §2.1 short names ('KS', '10C', 'T16', 'MO2', 'MAT')."""
    special = {"BEG": 40, "MOO": 57, "SUN": 58, "WOR": 59, "ANG": 60, "MAT": 61}
    out = []
    for n in names.split():
        if n in special:
            out.append(special[n])
        elif n.startswith("MO"):
            out.append(40 + int(n[2:]))
        elif n.startswith("T"):
            out.append(40 + int(n[1:]))
        else:
            out.append(10 * "SBCD".index(n[-1]) + "A 6 7 8 9 10 J N Q K".split().index(n[:-1]))
    return out


@pytest.mark.parametrize(
    "cards, points",
    [
        ("ANG WOR MOO T16 T15 T13 BEG MAT KS QS JS AS KC KD AC", 203),  # E6
        ("ANG WOR SUN MOO T16 T13 T12 T11 BEG MAT", 66),  # E7
        ("ANG SUN MOO T16 T15 T13 T11 T8 T6 MO1 MO2 MO3 MO4 MAT", 30 + 20),  # E7b: Grande 30, Moors 4 + MAT 20
        ("ANG WOR SUN MOO T16 T15 T14 T13 T12 T11 T10 T8 T7 T6 T5 MAT MO1 MO2", 113),  # E8
        ("KS KB KC QS QB QD NS JS AS AB AD MO1 MO2 BEG T7 T8 6C 7C 9D 10B", 161),  # E9: 31 + 130
        ("KS QS AS", 0), ("KS QS AS MAT", 15), ("KS QS NS JS AS", 20), ("ANG MOO BEG T16 T15", 20),  # E11
        ("AS AB MAT", 10), ("AS BEG MAT", 0),
    ],
)
def test_the_model_scores_the_worked_examples(cards, points):
    """The model's combination scorer against RULES.md §10 (E6-E9, E11), so that an agreement with
    the kernel is an agreement with the rules text."""
    assert combo(_ids(cards))[0] == points


def test_the_model_counts_card_points_as_the_worked_examples():
    """RULES.md §2.3, §10 E9, E10: card points in half-points."""
    assert half_points(_ids("KS T16 7C MAT")) == 2 * 10
    assert half_points(range(62)) == 2 * 87
    assert half_points(_ids("KS KB KC QS QB QD NS JS AS AB AD MO1 MO2 BEG T7 T8 6C 7C 9D 10B")) == 2 * 38


def test_the_model_shows_every_scoring_card():
    """RULES.md §4.1, §10 E6: all 15 cards of E6 score, so all are shown; E11's {KS QS AS} shows none."""
    e6 = _ids("ANG WOR MOO T16 T15 T13 BEG MAT KS QS JS AS KC KD AC")
    assert combo(e6)[1] == set(e6)
    assert combo(_ids("KS QS AS"))[1] == set()
