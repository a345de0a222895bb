"""Helpers for the Aluette tests: stacked packs, scripted play, deals that produce a given
sequence of trick winners, and rule facts written out from RULES.md (not from the kernel).
"""

from __future__ import annotations

import numpy as np

from cardzoo.envs import aluette_v0
from cardzoo.envs.core.cards import SPANISH48

P = [f"player_{i}" for i in range(4)]
#: RULES.md §2, written out again here: power by card name (named cards) or by rank letter
NAMED_POWER = {"3Co": 19, "3Cu": 18, "2Co": 17, "2Cu": 16, "9Cu": 15, "9Co": 14, "2Cl": 13, "2Sw": 12}
RANK_POWER = {"A": 11, "K": 10, "N": 9, "J": 8, "9": 7, "8": 6, "7": 5, "6": 4, "5": 3, "4": 2, "3": 1}
SIGNAL_NAMES = ["monsieur", "madame", "borgne", "vache", "grand_neuf", "petit_neuf", "deux_de_chene",
                "deux_d_ecrit", "as", "faible"]
#: the card each of the first eight signals names (RULES.md §4.5)
SIGNAL_CARD = dict(zip(SIGNAL_NAMES[:8], ["3Co", "3Cu", "2Co", "2Cu", "9Cu", "9Co", "2Cl", "2Sw"]))


def power(name: str) -> int:
    return NAMED_POWER[name] if name in NAMED_POWER else RANK_POWER[name[0]]


def cid(name: str) -> int:
    return SPANISH48.card_id(name)


def ids(names: str) -> list[int]:
    return SPANISH48.ids(names)


def name(card: int) -> str:
    return SPANISH48.names[int(card)]


def cards_of(mask) -> list[int]:
    m = int(mask)
    return [i for i in range(48) if (m >> i) & 1]


def deal_positions(dealer: int) -> dict[int, list[int]]:
    """RULES.md §3: three rounds of 3-card packets to L, P, R, D; returns seat -> 9 pack positions."""
    order = [(dealer + 1 + k) % 4 for k in range(4)]
    pos: dict[int, list[int]] = {s: [] for s in range(4)}
    p = 0
    for _ in range(3):
        for s in order:
            pos[s] += [p, p + 1, p + 2]
            p += 3
    assert p == 36
    return pos


def make_deck(dealer: int, hands: dict[int, str] | None = None, talon: str = "") -> list[int]:
    """A 48-card pack (position 0 dealt first) that deals ``hands`` (seat -> up to 9 names) and
    puts ``talon`` (up to 12 names) at t1, t2, ...; other positions get the remaining cards in id order."""
    deck: list[int | None] = [None] * 48
    pos = deal_positions(dealer)
    for s, cards in (hands or {}).items():
        cs = ids(cards)
        assert len(cs) <= 9
        for p, c in zip(pos[s], cs):
            deck[p] = c
    for p, c in zip(range(36, 48), ids(talon)):
        deck[p] = c
    used = [c for c in deck if c is not None]
    assert len(used) == len(set(used)), "a card is placed twice"
    pool = iter(sorted(set(range(48)) - set(used)))
    return [c if c is not None else next(pool) for c in deck]


def new_env(deck, dealer, seed=0, score=None, **options):
    env = aluette_v0.env(**options)
    opts = {"deck": deck, "dealer": dealer}
    if score is not None:
        opts["score"] = score
    env.reset(seed=seed, options=opts)
    return env


def legal_names(env) -> set[str]:
    return {env.action_name(a) for a in env.legal_actions()}


def play(env, script: str) -> None:
    """Step through whitespace-separated action names; ``S2:KSw`` also asserts the seat to act."""
    for tok in script.split():
        if ":" in tok:
            seat, act = tok.split(":")
            assert env.agent_selection == f"player_{int(seat[1:])}", (tok, env.agent_selection)
        else:
            act = tok
        assert not any(env.terminations.values()), f"episode ended before {tok}"
        env.step(env.action_id(act))


def sequence_deal(dealer: int, winners: list) -> tuple[dict[int, str], str]:
    """Hands and a play script whose nine tricks are won by ``winners`` (seat, or ``"X"`` = spoiled).

    Built from the rules alone (§5): the winner of a trick plays the most powerful card still
    unused; a spoiled trick has two equal top cards (kings, then knights, ...); every other card
    is the weakest unused one. Returns (seat -> 9 card names, script of ``S<seat>:<card>``).
    """
    names = sorted(SPANISH48.names, key=power)  # weakest first
    unused = list(names)
    hands: dict[int, list[str]] = {s: [] for s in range(4)}
    script = []
    leader = (dealer + 1) % 4
    for w in winners:
        order = [(leader + i) % 4 for i in range(4)]
        trick: dict[int, str] = {}
        if w == "X":
            r = next(r for r in "KNJ87A6" if sum(n[0] == r and n not in NAMED_POWER for n in unused) >= 2)
            pair = [n for n in unused if n[0] == r and n not in NAMED_POWER][:2]
            for n in pair:
                unused.remove(n)
            trick[order[1]], trick[order[2]] = pair  # the two players after the leader tie on top
        else:
            strongest = unused.pop()
            trick[w] = strongest
        for s in order:
            if s not in trick:
                trick[s] = unused.pop(0)
        top = max(power(c) for c in trick.values())
        assert sum(power(c) == top for c in trick.values()) == (2 if w == "X" else 1)
        for s in order:
            hands[s].append(trick[s])
            script.append(f"S{s}:{trick[s]}")
        if w != "X":
            leader = w
    return {s: " ".join(h) for s, h in hands.items()}, " ".join(script)


def play_out(env, max_steps: int = 10_000) -> dict[str, float]:
    """Play the lowest legal action until the episode ends; returns the summed rewards."""
    total = {a: 0.0 for a in env.possible_agents}
    steps = 0
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        env.step(min(env.legal_actions()))
        for a, r in env.rewards.items():
            total[a] += r
        steps += 1
        assert steps < max_steps
    return total


def obs_slice(env, agent: str, slice_name: str) -> np.ndarray:
    lay = env.kernel.obs_layout
    return env.observe(agent)["observation"][lay[slice_name]]
