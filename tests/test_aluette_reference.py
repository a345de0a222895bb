"""The kernel against an independent model of the rules (``aluette_reference.py``), step by step:
random legal actions over every option value (RULES.md §8), comparing the player to act, the legal
actions, every hand, the trick results and tricks won, the rewards of every step, the end and the
truncation, each deal's points, winner and mordienne, the match score and result, the partnership
draw's seats, and one seat's observation after every step (a different seat each step, §7). The
model deals each pack itself (§3), so dealing and the chant are checked too."""

from __future__ import annotations

import numpy as np
import pytest
from aluette_reference import (
    ACCEPT, CARD, COUNTS, END, KEYS, NO_OFFER, OFFER, OFFERS, PLAY, POWER, REFUSE, SIGNALS, VOTE,
    ReferenceGame, partnership_draw,
)
from reference_util import play_in_lockstep

from cardzoo.envs.aluette.kernel import AluetteKernel

# (options, how the games start): "scored" from a match score (reset hook); "spoil" and "sweep" from a
# stacked pack (_stacked_pack), so that all nine tricks are spoiled (§9 D8, D11) or won by one player (D10)
OPTION_SETS = [
    ({}, ""),
    ({"surrender": True, "chant_recipients": "left_and_partner", "first_dealer": 1}, ""),
    ({"signals": "free", "signal_visibility": "public", "reward": "win"}, ""),
    ({"signals": "off", "chant": False, "surrender": True, "first_dealer": 3}, "spoil"),
    ({"signal_timing": "round", "signal_intercept": 0.5, "mordienne": False}, ""),
    ({"partnership_draw": True, "signal_intercept": 1.0, "surrender": True}, ""),
    ({"first_dealer": 0, "chant": False, "signals": "free"}, "sweep"),
    ({"first_dealer": 2, "episode": "match"}, ""),
    ({"episode": "match", "reward": "win", "match_deals": 3, "chant": False, "signals": "free", "surrender": True},
     ""),
    ({"episode": "match", "match_target": 3, "max_deals": 3, "surrender": True, "signal_intercept": 0.3},
     "scored"),
    ({"episode": "match", "match_target": 4, "max_deals": 6, "reward": "win", "partnership_draw": True,
      "signals": "off"}, "scored"),
    ({"episode": "match", "match_deals": 1, "signal_visibility": "public", "chant_recipients": "left_and_partner"}, ""),
    ({"episode": "match", "match_target": 2, "max_deals": 1, "reward": "score", "mordienne": False}, "scored"),
]
SPOIL_RANKS = [0, 11, 10, 9, 7, 6, 5, 4, 3]  # A K N J 8 7 6 5 4


def _bits(mask) -> list[int]:
    return [c for c in range(48) if (int(mask) >> c) & 1]


def _stacked_pack(rng, start: str) -> list[int]:
    """A pack whose four hands (the packets of L, P, R, D, §3) are stacked. ``"spoil"``: hand k holds
    each of SPOIL_RANKS once, in suit (k + j) % 4, so every trick can tie on top. ``"sweep"``: one
    hand holds the eight key cards and an ace, the other aces lie in the talon, so it takes all nine."""
    if start == "spoil":
        hands = [[12 * ((k + j) % 4) + r for j, r in enumerate(SPOIL_RANKS)] for k in range(4)]
        rest = [c for c in range(48) if all(c not in h for h in hands)]
        talon = []
    else:
        sweeper = [CARD[n] for n in KEYS] + [CARD["ACo"]]
        talon = [CARD["A" + s] for s in ("Cu", "Cl", "Sw")]
        rest = [c for c in range(48) if c not in sweeper + talon]
        rng.shuffle(rest)
        hands = [rest[9 * k : 9 * k + 9] for k in range(3)]
        hands.insert(int(rng.integers(4)), sweeper)
        rest = rest[27:]
    for h in hands:
        rng.shuffle(h)
    rng.shuffle(rest)
    return [c for rnd in range(3) for h in hands for c in h[3 * rnd : 3 * rnd + 3]] + talon + rest


def _choose(r: ReferenceGame, rng, plan: list, always_tie: bool) -> int:
    """A random legal action, leaning towards what makes the rules matter: chants, offers, end of
    signalling, ties on top, and (``plan`` = [seat, k]) one seat losing tricks 1..k-1 and taking the rest."""
    legal = r.legal()
    if r.phase == VOTE:
        return ACCEPT if rng.random() < 0.85 else REFUSE
    if r.phase == SIGNALS and rng.random() < 0.4:
        return END
    if r.phase == OFFERS:
        return OFFER if rng.random() < 0.25 else NO_OFFER
    if r.phase != PLAY:
        return int(rng.choice(legal))
    cards = [a for a in legal if a < 48]
    if len(cards) < len(legal) and rng.random() < 0.12:
        return int(rng.choice(legal[len(cards) :]))
    top = max((POWER[c] for _, c in r.trick), default=-1)
    same = [c for c in cards if POWER[c] == top]
    if same and (always_tie or rng.random() < 0.25):
        return int(rng.choice(same))
    hero, k = plan
    if hero >= 0 and rng.random() < 0.95:
        low = (r.to_act() == hero) == (len(r.results) < k)
        return min(cards, key=POWER.__getitem__) if low else max(cards, key=POWER.__getitem__)
    return int(rng.choice(cards))


IDS = [",".join([f"{k}={v}" for k, v in o.items()] + [s] * bool(s)) or "defaults" for o, s in OPTION_SETS]


@pytest.mark.parametrize("options, start", OPTION_SETS, ids=IDS)
def test_the_kernel_plays_as_the_reference_model(options, start):
    k = AluetteKernel(**options)
    o = dict(k.options)
    B = 16
    rng, pick = np.random.default_rng(31), np.random.default_rng(32)
    hooks = {}
    if start == "scored":
        hooks["score"] = np.random.default_rng(33).integers(0, o["match_target"], size=(B, 2))
    if start in ("spoil", "sweep"):
        hooks["deck"] = np.array([_stacked_pack(pick, start) for _ in range(B)])
    if o["partnership_draw"]:
        hooks["draw_deck"] = np.array([pick.permutation(48) for _ in range(B)])
    st = k.init(rng, B, **hooks)
    ref = []
    for b in range(B):
        r = ReferenceGame(o, int(st.dealer[b]), hooks["score"][b].tolist() if "score" in hooks else (0, 0))
        r.deal(st.stock[b])
        if "deck" in hooks:
            assert st.stock[b].tolist() == hooks["deck"][b].tolist()
        ref.append(r)
        if o["partnership_draw"]:
            assert int(st.dealer[b]) == 0 and st.draw_map[b].tolist() == partnership_draw(hooks["draw_deck"][b]), b
        elif o["first_dealer"] != "random":
            assert int(st.dealer[b]) == o["first_dealer"]
    L = k.obs_layout
    high = {e.name: e.high for e in L.entries}
    seen = dict.fromkeys(["steps", "deals", "ends", "spoiled", "caught", "mordienne", "refused", "accepted", "chants",
                          "nobody", "truncated", "draws", "swept"], 0)
    plans = [[-1, 0] for _ in range(B)]

    def new_plan(b: int) -> None:
        plans[b] = [int(pick.integers(4)), int(pick.integers(2, 7))] if pick.random() < 0.35 else [-1, 0]

    def check(b: int, r: ReferenceGame) -> None:
        assert bool(st.done[b]) == r.done and bool(st.truncated[b]) == r.truncated, b
        assert np.allclose(st.rewards[b], r.step_rewards), (b, st.rewards[b].tolist(), r.step_rewards)
        assert (st.score[b].tolist(), int(st.deals[b]), int(st.dealer[b])) == (r.score, r.deals, r.dealer), b
        assert (st.points[b].tolist(), int(st.deal_winner[b])) == (r.points, r.deal_winner), b
        assert bool(st.mordienne[b]) == (r.mordienne and r.deal_winner >= 0), b
        if o["episode"] == "match":
            assert int(st.winner[b]) == r.result, b
        if r.done:
            return
        assert [_bits(h) for h in st.hands[b]] == [sorted(h) for h in r.hands], b
        assert [4 if s is None else s for s in r.results] == [x for x in st.results[b].tolist() if x != -1], b
        assert st.won[b].tolist() == r.won, b

    def check_observation(obs: np.ndarray, b: int, seat: int) -> None:
        for name, want in ref[b].observation(seat).items():
            got = obs[L[name]]
            if name.split("[")[0] not in COUNTS:
                assert np.flatnonzero(got).tolist() == want, (b, seat, name)
            else:
                assert got.tolist() == [min(v, high[name]) for v in want], (b, seat, name)

    for b in range(B):
        new_plan(b)
        check(b, ref[b])
    rounds = [0]

    def advance(b: int, r, action: int) -> None:
        tricks = len(r.results)
        seen["caught"] += int(st.catch[b].any())
        outcome = r.step(action, catch=st.catch[b].tolist())
        if len(r.results) > tricks:
            seen["spoiled"] += r.results[-1] is None
        if outcome == "deal" or r.done:  # a deal ended (before the next one is dealt)
            seen["deals"] += 1
            for key, happened in (("mordienne", r.mordienne), ("refused", r.refused), ("accepted", r.accepted),
                                  ("chants", r.recipients), ("nobody", r.deal_winner < 0 and not r.accepted),
                                  ("truncated", r.truncated), ("draws", r.result == 2), ("swept", 9 in r.won)):
                seen[key] += bool(happened)
        if outcome == "deal":  # a match goes on: deal the kernel's fresh pack
            r.deal(st.stock[b])
            new_plan(b)
        check(b, r)
        if r.done:
            seen["ends"] += 1
            info = k.info(st, b)
            assert ("truncation" in info) == r.truncated and info["deal_points"] == r.points, b

    def observations(rows: np.ndarray) -> None:  # one seat's view per game, a different seat each round
        rounds[0] += 1
        step = rounds[0]
        seats = np.array([(ref[b].to_act() + step) % 4 if not ref[b].done else step % 4 for b in range(B)])
        obs = k.observe(st, seats)
        for b in rows:
            check_observation(obs[b], b, int(seats[b]))

    choose = lambda b, r, legal: _choose(r, pick, plans[b], start == "spoil" and r.deals == 0)  # noqa: E731
    seen["steps"] = play_in_lockstep(k, st, rng, ref, choose, advance, after_step=observations)
    assert seen["ends"] == B and seen["steps"] > 25 * B, seen
    assert seen["spoiled"] > 0 or start == "sweep", seen
    if o["signal_intercept"] > 0:
        assert seen["caught"] > 0, seen
    if o["surrender"]:
        assert seen["refused"] and seen["accepted"], seen
    if start == "spoil":
        assert seen["nobody"], seen
    if start == "sweep":
        assert seen["swept"] == B, seen
