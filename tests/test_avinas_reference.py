"""The kernel against an independent model of the rules (``avinas_reference.py``), step by step:
random legal actions over every option value (RULES.md §8), comparing the player to act, the legal
actions, every hand, the exposed and dealer-seen key cards, the game, declarer and trumps, the
knocks, the current trick's winner and each trick's winner, the card points and tricks won, the
valuable bit, the rewards of every step, rams and pips, the end and the truncation and the match
result, and the hidden-information items of one seat's observation every other step (§7). The model
deals each pack itself (§3), so dealing is checked too. Along the way, ``determinize`` is checked by
replaying the deal so far on the re-dealt hands: every action taken must be legal there (§4, §5),
and what the seat saw must not change (§7)."""

from __future__ import annotations

import numpy as np
import pytest
from avinas_reference import CONTINUE, FACE_DOWN, KNOCK, PASS, STOP, ReferenceGame
from reference_util import play_in_lockstep

from cardzoo.envs.avinas.kernel import AvinasKernel

# (options, start): "scored" starts each match from random pips and ram balance (the reset hooks)
OPTION_SETS = [
    ({}, ""),
    ({"first_dealer": 0, "knock_back": "always", "ram_schedule": "graded"}, ""),
    ({"first_dealer": 1, "knock_back": "never", "pip_schedule": "flat", "reward": "win"}, ""),
    ({"first_dealer": 2, "call_count": "suit", "honesty": "mask"}, ""),
    ({"first_dealer": 3, "honesty": "mask", "facedown_signal": "free", "trump_lead_rule": "every_lead"}, ""),
    ({"trump_lead_rule": "every_lead", "facedown_signal": "none", "valuable_min_points": 4}, ""),
    ({"valuable_min_points": 0, "no7_stop": False, "call_count": "suit"}, ""),
    ({"valuable_min_points": 12, "max_throw_ins": 1, "facedown_signal": "free"}, ""),
    ({"episode": "match"}, "scored"),
    ({"episode": "match", "reward": "win", "ram_schedule": "graded", "knock_back": "always"}, "scored"),
    ({"episode": "match", "pip_limit": 1, "max_throw_ins": 2, "honesty": "mask", "call_count": "suit"}, ""),
    ({"episode": "match", "pip_limit": 4, "max_deals": 3, "reward": "win", "pip_schedule": "flat"}, ""),
    ({"episode": "match", "max_deals": 1, "valuable_min_points": 11, "no7_stop": False,
      "trump_lead_rule": "every_lead", "knock_back": "never"}, "scored"),
]


def _bits(mask) -> set[int]:
    m, out = int(mask), set()
    while m:
        out.add((m & -m).bit_length() - 1)
        m &= m - 1
    return out


def _choose(r: ReferenceGame, legal: list[int], pick: np.random.Generator) -> int:
    """A random ``legal`` action, tilted so that the rarer paths happen: passes (throw-ins), stops,
    face-down leads."""
    down = [a for a in legal if FACE_DOWN <= a < FACE_DOWN + 32]
    if r.phase == "stop":
        return STOP if pick.random() < 0.12 else CONTINUE
    if r.phase == "call" and pick.random() < 0.55:
        return PASS
    if down and pick.random() < 0.5:
        return int(pick.choice(down))
    return int(pick.choice(legal))


REL = ("me", "next", "partner", "previous")


def _check_view(k: AvinasKernel, st, refs, rows, seats) -> None:
    """The hidden-information items of §7 in the observation of ``seats[b]`` in each of ``rows``: own
    hand, the cards played and the current trick (a face-down card for its leader alone until the
    trick is complete), the key cards it has seen still held by each seat (§3.3; §11.9, §11.12), the
    dealer's look at its cards (the dealer's partner), and the valuable bit (the leader's partner)."""
    obs = k.observe(st, seats)
    view = {e.name: e.slice for e in k.obs_layout.entries}
    for b in rows:
        r, seat = refs[b], int(seats[b])

        def cards(name: str) -> set[int]:
            return set(np.flatnonzero(obs[b, view[name]][:32]).tolist())

        hidden = {(s, c) for s, c, face_down in r.trick if face_down and s != seat}  # (leader, card) or nothing
        seen = r.exposed | (r.dealer_seen if seat == r.dealer else set())
        assert cards("hand") == r.hands[seat], (b, seat)
        assert cards("trick") == {c for s, c, _ in r.trick} - {c for _, c in hidden}, (b, seat)
        for i, name in enumerate(REL):
            other = (seat + i) % 4
            down = {c for s, c in hidden if s == other}
            assert cards(f"played_by[{name}]") == r.played[other] - down, (b, seat, name)
            assert cards(f"shown[{name}]") == (r.hands[other] | down) & seen, (b, seat, name)
        partner = seat == (r.dealer + 2) % 4
        assert cards("seen_by_dealer") == (r.hands[seat] & r.dealer_seen if partner else set()), (b, seat)
        told = r.signal is not None and any(face_down and s == (seat + 2) % 4 for s, _, face_down in r.trick)
        expected = ([1, 0] if r.signal else [0, 1]) if told else [0, 0]
        assert obs[b, view["signal"]].tolist() == expected, (b, seat, r.trick, r.signal)


def _check_determinize(k: AvinasKernel, st, refs, rows, rng, pick) -> int:
    """Re-deal what a random seat cannot see in each of ``rows`` and replay the deal so far in the
    model on the new hands; returns the number of rows checked."""
    viewers = pick.integers(0, 4, size=len(refs))
    d = k.determinize(st, viewers, rng)
    for b in rows:
        r, seat = refs[b], int(viewers[b])
        hands = [_bits(d.hands[b, s]) for s in range(4)]
        assert hands[seat] == r.hands[seat], b
        assert [len(h) for h in hands] == [len(h) for h in r.hands], b
        seen = r.exposed | (r.dealer_seen if seat == r.dealer else set())
        down = next(((s, c) for s, c, face_down in r.trick if face_down), None)
        new_down = None
        if down is not None:
            new_down = int(d.trick_card[b, down[0]])
            assert (new_down == down[1]) if seat == down[0] else new_down not in hands[down[0]]

        def holding(hs, card):  # a face-down card is still its leader's for the others (§11.12)
            return [h | ({card} if down is not None and s == down[0] else set()) for s, h in enumerate(hs)]

        # §3.3 key cards stay with their holders (the face-down leader's: in his hand or face down)
        assert [h & seen for h in holding(hands, new_down)] == [h & seen for h in holding(r.hands, down and down[1])], (b, seat)
        replay = ReferenceGame(r.o, r.dealer)
        replay.deal(st.stock[b])
        replay.hands = [h | _bits(d.played[b, s]) for s, h in enumerate(hands)]
        replay.dealt = [set(h) for h in replay.hands]
        for a in r.history:
            if down is not None and a == FACE_DOWN + down[1]:  # the re-dealt face-down card instead
                a = FACE_DOWN + new_down
            assert a in replay.legal(), (b, seat, a, replay.phase, replay.history)
            replay.step(a)
        assert [replay.hands[s] for s in range(4)] == hands, (b, seat)
        if down is not None and seat == (down[0] + 2) % 4 and r.o["facedown_signal"] == "auto":
            assert replay.signal == r.signal, (b, seat)  # the partner's valuable bit still holds
    return len(rows)


def _id(value) -> str:
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in value.items()) or "defaults"
    return value or "fresh"


@pytest.mark.parametrize("options, start", OPTION_SETS, ids=_id)
def test_the_kernel_plays_as_the_reference_model(options, start):
    k = AvinasKernel(**options)
    o = dict(k.options)
    B = 128 if o["episode"] == "deal" or o["max_deals"] == 1 else 32
    rng, pick = np.random.default_rng(31), np.random.default_rng(32)
    pips, rams = np.zeros((B, 2), np.int64), np.zeros(B, np.int64)
    if start == "scored":  # some teams without pips, so that clean defeats happen (§6.4)
        score = np.random.default_rng(33)
        pips = score.integers(o["pip_limit"] // 2, o["pip_limit"], size=(B, 2)) * (score.random((B, 2)) < 0.7)
        rams = score.integers(-4, 5, size=B)
    st = k.init(rng, B, pips=pips, ram_balance=rams)
    ref = []
    for b in range(B):
        r = ReferenceGame(o, int(st.dealer[b]), pips[b].tolist(), int(rams[b]))
        r.deal(st.stock[b])
        ref.append(r)
    if o["first_dealer"] != "random":
        assert (st.dealer == o["first_dealer"]).all()
    seen = dict.fromkeys(["steps", "knock", "face_down", "stop", "throw_in", "lie", "sevens", "no_sevens",
                          "truncated", "won_clean", "won_rams", "won_pips", "determinized"], 0)

    def check(b: int, r: ReferenceGame) -> None:
        assert bool(st.done[b]) == r.done, b
        assert np.allclose(st.rewards[b], r.step_rewards), (b, st.rewards[b].tolist(), r.step_rewards)
        assert (int(st.ram_balance[b]), st.pips[b].tolist()) == (r.ram_balance, r.pips), b
        assert int(st.last_loser[b]) == (-1 if r.last_loser is None else r.last_loser), b
        assert int(st.last_penalty[b]) == r.last_penalty, b
        if r.match:
            assert int(st.deals[b]) == r.deals, b
        if r.done:
            info = k.info(st, b)
            assert bool(st.truncated[b]) == (r.truncation is not None), b
            assert info.get("truncation", "").startswith(r.truncation or ""), b
            if r.match:
                assert info.get("match_winner") == (None if r.winner is None else "AB"[r.winner]), b
                assert info.get("clean_defeat", False) == r.clean, b
            return
        assert int(st.current_player[b]) == r.to_act, (b, r.phase)
        assert [_bits(h) for h in st.hands[b]] == r.hands, b
        assert (_bits(st.exposed[b]), _bits(st.dealer_seen[b])) == (r.exposed, r.dealer_seen), b
        assert int(st.dealer[b]) == r.dealer and int(st.game[b]) == ["sevens", "no_sevens"].index(r.game), b
        assert int(st.trump[b]) == (-1 if r.trump is None else r.trump), b
        if r.phase != "call":
            assert int(st.declarer[b]) == r.declarer, b
        assert st.knocked[b].tolist() == r.knocked and int(st.throw_ins[b]) == r.throw_ins, b
        assert (st.points[b].tolist(), st.tricks_won[b].tolist()) == (r.points, r.tricks_won), b
        assert int(st.tricks_done[b]) == r.tricks_done, b
        assert int(st.signal[b]) == (-1 if r.signal is None else int(r.signal)), b
        if r.trick:
            assert int(st.trick_winner[b]) == r.winning_seat(), (b, r.trick)
        elif r.trick_winners:
            assert int(st.leader[b]) == r.trick_winners[-1], b

    for b in range(B):
        check(b, ref[b])
    rounds = [0]

    def views(rows: np.ndarray, actions: np.ndarray) -> None:
        rounds[0] += 1
        if rounds[0] % 2 == 0:  # one seat's view, a different seat each time
            _check_view(k, st, ref, rows, (rounds[0] // 2 + np.arange(B)) % 4)
        if rounds[0] % 7 == 0:  # a few positions of every phase
            seen["determinized"] += _check_determinize(k, st, ref, rows[:32], rng, pick)

    def advance(b: int, r: ReferenceGame, a: int) -> None:
        seen["knock"] += a == KNOCK
        seen["face_down"] += FACE_DOWN <= a < FACE_DOWN + 32
        seen["stop"] += a == STOP
        thrown = r.phase == "call" and r.to_act == r.dealer and r.high_call == 0 and a == PASS
        seen["throw_in"] += thrown
        deals, game = r.deals, r.game
        again = r.step(a) == "deal"
        if r.deals > deals:  # a scored deal (§6)
            seen[game] += 1
            seen["lie"] += r.lied
        if again:  # the kernel shuffled a fresh pack: deal it as §3 says
            r.deal(st.stock[b])
        check(b, r)
        if r.done:
            seen["truncated"] += r.truncation is not None
            if r.winner is not None:  # §6.4
                seen["won_clean" if r.clean else "won_rams" if r.ram_balance else "won_pips"] += 1

    choose = lambda b, r, legal: _choose(r, legal, pick)  # noqa: E731
    seen["steps"] = play_in_lockstep(k, st, rng, ref, choose, advance, player=lambda r: r.to_act, before_step=views)
    assert seen["steps"] > 20 * B and seen["determinized"] > 100
    assert seen["sevens"] and seen["no_sevens"] and seen["knock"] and seen["face_down"]
    assert bool(seen["stop"]) == o["no7_stop"] and bool(seen["lie"]) == (o["honesty"] == "penalize")
    assert seen["throw_in"] and (seen["truncated"] > 0) == (o["max_throw_ins"] <= 2 or o["max_deals"] <= 3)
    if o["episode"] == "match":
        assert seen["won_clean"] + seen["won_rams"] + seen["won_pips"] + seen["truncated"] == B
