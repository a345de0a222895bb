"""Helpers for the Avinas tests: stacked decks, crafted positions, scripted play.

The deal positions and card facts here come from the rules text (RULES.md §2, §3), not from
the kernel, so tests that use them check the kernel against the rules.
"""

from __future__ import annotations

import numpy as np

from cardzoo.envs import avinas_v0
from cardzoo.envs.core.cards import FRENCH32

P = [f"player_{i}" for i in range(4)]
#: RULES.md §2 card points by rank letter
POINTS = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}


def cid(name: str) -> int:
    """Card id of a name like ``"TD"`` / ``"10D"`` / ``"QC"``."""
    name = name.strip().upper()
    if name.startswith("T"):
        name = "10" + name[1:]
    return FRENCH32.card_id(name)


def ids(names: str) -> list[int]:
    return [cid(n) for n in names.replace(",", " ").split()]


def name(card: int) -> str:
    return FRENCH32.names[int(card)]


def bits(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


def cards_of(mask) -> list[int]:
    m = int(mask)
    return [i for i in range(32) if (m >> i) & 1]


def seat_positions(dealer: int) -> dict[int, list[int]]:
    """RULES.md §3.2: two rounds; in each, L, P, R, D receive 4 consecutive cards.
    Returns seat -> its 8 pack positions in the order received (index 3 = 4th, 7 = 8th)."""
    pos: dict[int, list[int]] = {s: [] for s in range(4)}
    p = 0
    for _round in range(2):
        for k in range(1, 5):
            s = (dealer + k) % 4
            pos[s] += list(range(p, p + 4))
            p += 4
    return pos


def make_deck(dealer: int, hands: dict[int, str] | None = None, key: dict[int, str] | None = None) -> list[int]:
    """A 32-card pack dealing the given cards.

    ``hands``: seat -> up to 8 names in the order received (the 4th and 8th are the key cards).
    ``key``: seat -> "4th 8th" names, placed at the 4th/8th positions (unless ``hands`` fixes them).
    Remaining positions are filled with the remaining cards, sevens placed away from the
    4th/8th positions whenever possible (so no seven is exposed by accident).
    """
    deck: list[int | None] = [None] * 32
    pos = seat_positions(dealer)
    for s, cards in (key or {}).items():
        c4, c8 = ids(cards)
        deck[pos[s][3]], deck[pos[s][7]] = c4, c8
    for s, cards in (hands or {}).items():
        for p, c in zip(pos[s], ids(cards)):
            deck[p] = c
    used = [c for c in deck if c is not None]
    assert len(used) == len(set(used)), "a card is placed twice"
    rest = sorted(set(range(32)) - set(used), key=lambda c: (c % 8 != 0, c))  # sevens first
    keypos = {pos[s][i] for s in range(4) for i in (3, 7)}
    free = [p for p in range(32) if deck[p] is None]
    free.sort(key=lambda p: p in keypos)  # fill non-key positions first (with the sevens)
    for p, c in zip(free, rest):
        deck[p] = c
    return deck  # type: ignore[return-value]


def new_env(deck=None, dealer=0, seed=0, pips=None, ram_balance=None, **options):
    env = avinas_v0.env(**options)
    opts = {"dealer": dealer}
    if deck is not None:
        opts["deck"] = deck
    if pips is not None:
        opts["pips"] = pips
    if ram_balance is not None:
        opts["ram_balance"] = ram_balance
    env.reset(seed=seed, options=opts)
    return env


def legal_names(env) -> set[str]:
    return {env.action_name(a) for a in env.legal_actions()}


def act(env, token: str) -> None:
    """Step one action given by name (``"TD"`` style tens allowed), optionally ``S2:name``."""
    if ":" in token:
        seat, token = token.split(":")
        assert env.agent_selection == f"player_{int(seat[1:])}", (seat, token, env.agent_selection)
    t = token.upper()
    if t[:1] == "T" and len(t) == 2:
        t = "10" + t[1:]
    if t.startswith("FD_T"):
        t = "FD_10" + t[4:]
    env.step(env.action_id(t))


def play(env, script: str) -> None:
    for tok in script.split():
        act(env, tok)


def craft(env, *, game, trump, declarer, leader, hands: dict[int, str], tricks_done, points=(0, 0),
          tricks_won=None, knocked=(), lied=False, high_call=0, dealer=None) -> None:
    """Overwrite the env's (B = 1) state with a trick-play position (for the scoring examples).

    ``game``: "sevens" / "no_sevens"; ``hands``: seat -> names; the cards nobody holds are put
    into the played sets of seats round-robin so that every card is accounted for.
    """
    from cardzoo.envs.avinas.constants import NO_SEVENS, PLAY, SEVENS

    st = env.game_state
    held = {s: ids(h) for s, h in hands.items()}
    allh = [c for h in held.values() for c in h]
    gone = [c for c in range(32) if c not in allh]
    st.hands[0] = [np.uint64(bits(held.get(s, []))) for s in range(4)]
    st.played[0] = 0
    for i, c in enumerate(gone):
        st.played[0, i % 4] |= np.uint64(1 << c)
    st.game[0] = SEVENS if game == "sevens" else NO_SEVENS
    st.trump[0] = "CDHS".index(trump)
    st.declarer[0] = declarer
    st.leader[0] = leader
    st.current_player[0] = leader
    st.phase[0] = PLAY
    st.tricks_done[0] = tricks_done
    st.points[0] = points
    st.tricks_won[0] = tricks_won if tricks_won is not None else (tricks_done, 0)
    st.knocked[0] = [s in knocked for s in range(4)]
    st.lied[0] = lied
    st.high_call[0] = high_call
    if dealer is not None:
        st.dealer[0] = dealer
    st.exposed[0] = 0  # a crafted position has no exposed or privately seen cards
    st.dealer_seen[0] = 0
    st.n_in_trick[0] = 0
    st.trick[0] = 0
    st.trick_card[0] = -1
    st.led[0] = -1
    st.trick_winner[0] = -1
    st.fd_seat[0] = -1
    st.signal[0] = -1
    env._single = env.kernel.single_game(st)  # the B = 1 path caches the legal actions: bind it to the crafted state
    env._after_step()


def obs_slice(env, agent: str, slice_name: str) -> np.ndarray:
    return env.observe(agent)["observation"][env.kernel.obs_layout[slice_name]]


def team_rewards(env) -> tuple[float, float]:
    r = env.rewards
    assert r["player_0"] == r["player_2"] and r["player_1"] == r["player_3"]
    assert r["player_0"] == -r["player_1"]
    return r["player_0"], r["player_1"]
