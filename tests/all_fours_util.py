"""Helpers for the All Fours tests: stacked decks, scripted play, independent rule facts.

Everything here is derived from the rules text (RULES.md §2, §3, §4, §11.1), not from
the kernel, so the tests that use it check the kernel against the rules.
"""

from __future__ import annotations

import numpy as np

from cardzoo.envs import all_fours_v0
from cardzoo.envs.core.cards import FRENCH52

TEAM_A, TEAM_B = 0, 1
SUITS = "CDHS"
#: RULES.md §2: value towards Game by rank index (2..A = 0..12): A 4, K 3, Q 2, J 1, 10 10
GAME_VALUE = {12: 4, 11: 3, 10: 2, 9: 1, 8: 10}
#: RULES.md §2 / §8 kick points by rank index
KICK_TRINIDAD = {12: 1, 4: 2, 9: 3}  # A 1, 6 2, J 3
KICK_TOBAGO = {12: 1, 0: 2, 9: 3}  # A 1, 2 2, J 3
#: RULES.md §3, §4: stock positions (0-based) of the first kick and the two run kicks
KICK_POSITIONS = (24, 37, 50)


def cid(name: str) -> int:
    """Card id of a name like ``"10H"``."""
    return FRENCH52.card_id(name)


def ids(names: str) -> list[int]:
    return FRENCH52.ids(names)


def name(card: int) -> str:
    return FRENCH52.names[int(card)]


def names(cards) -> set[str]:
    return {name(c) for c in cards}


def bits(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


def cards_of(mask) -> list[int]:
    m = int(mask)
    return [i for i in range(52) if (m >> i) & 1]


def seat_positions(dealer: int, packet: int = 3) -> dict[int, list[int]]:
    """0-based stock positions of the cards each seat receives (first deal, run 1, run 2).

    RULES.md §3.2: 6 cards each, beggar (dealer+1) first, anticlockwise (seat+1), dealer last,
    in packets of ``packet``; position 24 is the kick. §4 / §11.1: each run deals 3 more in the
    same packet size, then kicks (positions 37 and 50). Returns seat -> 12 positions.
    """
    order = [(dealer + 1 + k) % 4 for k in range(4)]
    pos: dict[int, list[int]] = {s: [] for s in range(4)}
    p = 0
    for _ in range(6 // packet):
        for s in order:
            pos[s] += list(range(p, p + packet))
            p += packet
    assert p == 24
    p += 1  # first kick
    for _run in range(2):
        for _ in range(3 // packet):
            for s in order:
                pos[s] += list(range(p, p + packet))
                p += packet
        p += 1  # run kick
    assert p == 51
    return pos


def make_deck(dealer: int, hands: dict[int, str] | None = None, kicks: str = "", last: str | None = None,
              packet: int = 3) -> list[int]:
    """A 52-card stock (position 0 = top) that deals the given cards.

    ``hands``: seat -> card names; the first 6 are dealt in the first deal, cards 7-9 in run 1,
    10-12 in run 2. ``kicks``: up to three names for the kick and the two run kicks.
    ``last``: the card at position 51 (never used, §4). Unspecified positions get the
    remaining cards in ascending id order.
    """
    deck: list[int | None] = [None] * 52
    seat_pos = seat_positions(dealer, packet)
    for s, cards in (hands or {}).items():
        for p, c in zip(seat_pos[s], ids(cards)):
            deck[p] = c
        assert len(ids(cards)) <= 12
    for p, c in zip(KICK_POSITIONS, ids(kicks)):
        deck[p] = c
    if last is not None:
        deck[51] = cid(last)
    used = [c for c in deck if c is not None]
    assert len(used) == len(set(used)), "a card is placed twice"
    pool = iter(sorted(set(range(52)) - set(used)))
    return [c if c is not None else next(pool) for c in deck]


def new_env(deck, dealer, score=None, seed=0, **options):
    env = all_fours_v0.env(**options)
    opts = {"deck": deck, "dealer": dealer}
    if score is not None:
        opts["score"] = score
    env.reset(seed=seed, options=opts)
    return env


def legal_names(env) -> set[str]:
    return {env.action_name(a) for a in env.legal_actions()}


def play(env, script: str) -> None:
    """Step ``env`` through a whitespace-separated script of action names.

    A token may be prefixed by the seat that must be to act, e.g. ``S2:KS``; ``env.step``
    itself raises ``ValueError`` if a scripted action is illegal.
    """
    for tok in script.split():
        if ":" in tok:
            seat, act = tok.split(":")
            assert env.agent_selection == f"player_{int(seat[1:])}", (tok, env.agent_selection)
        else:
            act = tok
        assert not any(env.terminations.values()), f"episode ended before {tok}"
        env.step(env.action_id(act))


def play_out(env, max_steps: int = 10_000) -> tuple[int, dict[str, float]]:
    """Play the lowest legal action until the episode ends; returns (steps, summed rewards)."""
    total = {a: 0.0 for a in env.possible_agents}
    steps = 0
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        env.step(min(env.legal_actions()))
        for a, r in env.rewards.items():
            total[a] += r
        steps += 1
        assert steps < max_steps
    return steps, total


def item_points_oracle(dealt, captured, trump, jack_points=1, hang_points=3, game_points=1, game_tie_team=-1):
    """Independent end-of-hand scoring (RULES.md §6): ``[A, B]`` points of High, Low, Jack/Hang jack, Game.

    ``dealt``: 4 bitboards by seat; ``captured``: 2 bitboards by team; ``trump``: suit index.
    """
    pts = [0, 0]
    shift = 13 * trump
    trumps = [(int(d) >> shift) & 0x1FFF for d in dealt]
    if any(trumps):
        high = max(range(4), key=lambda s: trumps[s].bit_length() if trumps[s] else -1)
        low = min(range(4), key=lambda s: (trumps[s] & -trumps[s]).bit_length() if trumps[s] else 99)
        pts[high % 2] += 1
        pts[low % 2] += 1
    jack = 1 << (shift + 9)
    holders = [s for s in range(4) if int(dealt[s]) & jack]
    if holders:
        won = 0 if int(captured[0]) & jack else 1
        assert int(captured[won]) & jack
        pts[won] += jack_points if won == holders[0] % 2 else hang_points
    gv = [sum(GAME_VALUE.get(c % 13, 0) for c in cards_of(captured[t])) for t in range(2)]
    if gv[0] != gv[1]:
        pts[0 if gv[0] > gv[1] else 1] += game_points
    elif game_tie_team >= 0:
        pts[game_tie_team] += game_points
    return pts


def obs_slice(env, agent: str, slice_name: str) -> np.ndarray:
    lay = env.kernel.obs_layout
    return env.observe(agent)["observation"][lay[slice_name]]
