"""Hidden information under every rule variant, not only the defaults.

The per-game env tests (``test_<game>_env.py``) check with their own ``permute_hidden`` that a seat's
observation, action mask, ``info``, render, table view and text view do not change when the cards
hidden from that seat move, mostly with the default options. Here the same checks run, once for all
games, over every option set of ``test_frame.OPTION_SETS`` plus the option values that change what a
seat may see (each game's ``RULES.md`` §7 Information and §8 Options): Avinas' face-down signal,
honesty and lead rule, Aluette's signal channel (truth, visibility, interception, timing), the chant
and the partnership draw, P'yanitsa's ``winner_chooses`` (the bottom part a seat ordered itself),
player counts and the 52-card pack with its set-aside card, Ottocento's declaration modes and deal
packets, All Fours' match and deal packet.

Two levels: the batched kernel (``env_util.check_hidden_information``: ``observe``, the mask,
``info``, ``render(view=seat)``, ``table_view``, ``text_view``), and the AEC env a user holds
(``observe``, ``text_observation``, the ansi render of the seat's view, ``infos``, ``table_view``),
where a twin env is the same game with the hidden cards moved; and the web API (as
``test_web_hidden_info``) for the option values that change what seat 0 may see.

The permutations are the per-game ``permute_hidden`` functions, widened where an option needs it:
All Fours' deal positions follow ``deal_packet``; Avinas also flips the face-down lead's valuable bit
(for all but the leader and his partner) and the honesty verdict (for all but the declarer);
Ottocento also redraws what an undeclared hand's declaration would be worth and show; Aluette
also draws again which cards another chant recipient received, and scrambles every opponent signal
``seat`` did not see and which of ``seat``'s team's signals the opponents caught; P'yanitsa (whose env test works on whole states) has its own, below.

Last, whole episodes as twins (:func:`test_nothing_shows_later_the_cards_a_deal_kept_hidden`):
the same moves from two packs that differ in two cards a seat never learns in deal 1, so that what a
later deal keeps of an earlier one (summaries, ``infos``, the web table's frames, the lines of terminal
play) is checked too.
About 90 s on one core.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import zlib

import numpy as np
import pytest

from cardzoo.envs import GAMES, kernel
from cardzoo.envs import make as envs_make

import test_aluette_env
import test_all_fours_env
import test_avinas_env
import test_ottocento_env
from env_util import check_hidden_information
from test_frame import OPTION_SETS


def pyanitsa_permute(options):
    """The P'yanitsa twin maker for ``options`` (:func:`_pyanitsa_permute`)."""
    history = bool(options.get("observe_history", False))
    fixed = options.get("collect_order", "winner_first") in ("winner_first", "seat_order")
    return lambda st, b, seat, rng: _pyanitsa_permute(st, b, seat, rng, history, fixed)


def _pyanitsa_permute(st, b, seat, rng, history=False, fixed=True) -> bool:
    """P'yanitsa (RULES.md §7, §11.1, §11.9): every pile's content and order is hidden from everybody,
    except the bottom part ``seat`` ordered itself (``known[seat]``, ``winner_chooses``), which stays.
    The unknown parts of all piles are shuffled together (sizes kept), the part another seat ordered
    itself is reordered, and with 52 cards and 3 players the set-aside card (in no pile, hidden from
    all) may change places with a pile card; then :func:`_pyanitsa_relabel`. True if a card moved.

    With ``observe_history`` a seat also remembers where the cards shown in earlier battles went
    (§7): such a card (in ``shown``, at a place some battle took) keeps its place under the fixed
    orders (``fixed``) and otherwise moves only within its pot's stretch of the pile (the places of
    one battle's pot, ``pot_of``), each stretch shuffled as a whole; every other place joins the pool.
    The last battle's face-up cards are treated so as well (where they went is public without it)."""
    n_players, C = st.piles.shape[1], st.piles.shape[2]
    before = (st.piles[b].copy(), int(st.in_play[b]))
    shown = int(st.shown[b])
    slots, cards, in_piles = [], [], 0  # slots: (seat, buffer index) of the unknown parts
    for s in range(n_players):
        n, kn = int(st.size[b, s]), int(st.known[b, s])
        idx = (int(st.head[b, s]) + np.arange(n)) % C
        for i in idx:
            in_piles |= 1 << int(st.piles[b, s, i])
        if not history:
            slots += [(s, int(i)) for i in idx[: n - kn]]
            cards += [int(st.piles[b, s, i]) for i in idx[: n - kn]]
            if s != seat and kn > 1:
                mine = idx[n - kn :]
                st.piles[b, s, mine] = st.piles[b, s, mine][rng.permutation(kn)]
            continue
        free = idx[: n - kn] if s == seat else idx
        if not fixed:  # each pot's stretch shuffled within itself
            pots = st.pot_of[b, s, free]
            for t in np.unique(pots[pots > 0]):
                here = free[pots == t]
                st.piles[b, s, here] = st.piles[b, s, here][rng.permutation(len(here))]
        for i in free:
            c, t = int(st.piles[b, s, i]), int(st.pot_of[b, s, i])
            if not (t > 0 and (shown >> c) & 1):  # the last battle's face-up cards stay in its stretch too
                slots.append((s, int(i)))
                cards.append(c)
    in_play = int(st.in_play[b])
    # the set-aside card: not in play, in no pile, not on the table
    aside = [c for c in range(C) if not (in_play >> c) & 1 and not ((in_piles | int(st.pot[b])) >> c) & 1]
    pool = cards + aside
    perm = [pool[i] for i in rng.permutation(len(pool))]
    for (s, i), c in zip(slots, perm):
        st.piles[b, s, i] = c
    for c in aside:
        in_play |= 1 << c
    for c in perm[len(slots) :]:
        in_play &= ~(1 << c)
    st.in_play[b] = np.uint64(in_play)
    _pyanitsa_relabel(st, b, seat, rng, keep=shown if history else 0)
    return not np.array_equal(before[0], st.piles[b]) or before[1] != in_play


def _pyanitsa_relabel(st, b, seat, rng, keep: int = 0) -> None:
    """Rename the cards whose identity ``seat`` has not seen, everywhere in game ``b``: the face-down
    tie cards of the last battle (``tie_mode="down_up"``) included, and the pot while another seat
    orders it (``winner_chooses``: only the winner sees it, face-down cards included). Kept: every
    face-up card of the last battle, ``seat``'s own ordered part, the pot while ``seat`` orders it,
    and the cards in ``keep`` (a bit set: with ``observe_history``, the remembered ones)."""
    n_players, C = st.piles.shape[1], st.piles.shape[2]
    seen = keep
    for s in range(n_players):
        seen |= int(st.face_up[b, s])
    n, kn = int(st.size[b, seat]), int(st.known[b, seat])
    for j in range(n - kn, n):
        seen |= 1 << int(st.piles[b, seat, (int(st.head[b, seat]) + j) % C])
    if int(st.phase[b]) == 1 and int(st.winner[b]) == seat:  # ORDER_PHASE: seat orders the pot
        seen |= int(st.pot[b])
    hidden = [c for c in range(C) if not (seen >> c) & 1]
    sigma = np.arange(256)
    sigma[hidden] = np.array(hidden)[rng.permutation(len(hidden))]

    def bits(m):
        out = 0
        for c in range(C):
            if (int(m) >> c) & 1:
                out |= 1 << int(sigma[c])
        return np.uint64(out)

    st.piles[b] = sigma[st.piles[b]]  # every slot, used or not: a renaming keeps each pile's content consistent
    st.saved[b] = sigma[st.saved[b]]  # the cycle check's copy of the piles (255 past the end stays)
    st.battle_cards[b, : int(st.battle_n[b])] = sigma[st.battle_cards[b, : int(st.battle_n[b])]]
    st.pot[b], st.in_play[b] = bits(st.pot[b]), bits(st.in_play[b])


def aluette_permute(options):
    """Aluette (RULES.md §4.5, §7): the cards of ``test_aluette_env.permute_hidden``, and every signal
    of an opponent that ``seat`` did not see (with ``signal_visibility="partner"``; ``"public"`` shows
    them all): the opponents' ``sent`` keep the signals in ``heard[seat]`` (caught with
    ``signal_intercept``) and get any others; the opponents' ``heard`` follows (each sees his team's
    signals, and caught any part of the signals of ``seat``'s team: nobody is told whether his signal
    was caught), and so do the signals of the opponents that ``seat``'s partner caught (the partner's
    private knowledge: a random part of them)."""
    public = options.get("signal_visibility", "partner") == "public" or options.get("signals") == "off"

    def permute(st, b, seat, rng):
        old = st.stock[b].copy(), [int(x) for x in st.dealt[b]], int(st.talon[b])
        moved = test_aluette_env.permute_hidden(st, b, seat, rng)
        _aluette_redraw_received(st, b, seat, rng, *old)
        if public:
            return moved
        opps, partner = ((seat + 1) % 4, (seat + 3) % 4), (seat + 2) % 4
        team = 0
        for o in opps:
            caught = (int(st.heard[b, seat]) >> (10 * o)) & 0x3FF
            new = caught | (int(rng.integers(0, 1 << 10)) & ~caught)
            st.sent[b, o] = new
            team |= new << (10 * o)
        opp_bits = (0x3FF << (10 * opps[0])) | (0x3FF << (10 * opps[1]))
        ours = (int(st.sent[b, seat]) << (10 * seat)) | (int(st.sent[b, partner]) << (10 * partner))
        for o in opps:  # his team's signals, and which of ours he caught: the sender is not told (§4.5)
            st.heard[b, o] = np.uint64(team | (ours & int(rng.integers(0, 1 << 40))))
        st.heard[b, partner] = np.uint64((int(st.heard[b, partner]) & ~opp_bits) | (team & int(rng.integers(0, 1 << 40))))
        return moved

    return permute


def _aluette_redraw_received(st, b, seat, rng, old_stock, old_dealt, old_talon) -> None:
    """``permute_hidden`` moves the other seats' cards but leaves their ``dealt`` as it was; and which
    of another chant recipient's cards came from the talon is his alone to know (§4.2, §7): draw
    ``received`` again among the cards he has had since the deal (held, discarded, played), the same
    number; ``dealt`` (the rest) and ``talon`` follow."""
    unused = int(st.talon[b])
    for s in range(4):
        unused &= ~int(st.received[b, s])
    for s in range(4):
        if s == seat:
            continue
        had = [c for c in range(48) if ((int(st.hands[b, s]) | int(st.discarded[b, s]) | int(st.played[b, s])) >> c) & 1]
        got = 0
        for c in rng.choice(had, int(st.received[b, s]).bit_count(), replace=False):
            got |= 1 << int(c)
        st.received[b, s] = np.uint64(got)
        st.dealt[b, s] = np.uint64(sum(1 << c for c in had) & ~got)
    talon = unused
    for s in range(4):
        talon |= int(st.received[b, s])
    st.talon[b] = np.uint64(talon)
    _sync_stock(st, b, old_stock, [(old_dealt[s], int(st.dealt[b, s])) for s in range(4)] + [(old_talon, talon)], rng)


def _sync_stock(st, b, old_stock, groups, rng) -> None:
    """Rewrite ``stock[b]`` after the cards moved: ``groups`` pairs each part of the deal (a seat's
    dealt cards, a talon) as it was (``old``, a bitboard) with what it holds now (``new``). A position
    keeps its card if the card stayed in its part; the part's other positions get its new cards in a
    random order. So a view that read the stock would see the move."""
    stock = old_stock.copy()
    cards = old_stock.astype(np.int64)
    for old, new in groups:
        if old == new:
            continue
        in_old = (np.uint64(old) >> cards.astype(np.uint64)) & np.uint64(1)
        in_new = (np.uint64(new) >> cards.astype(np.uint64)) & np.uint64(1)
        free = np.flatnonzero(in_old & ~in_new & np.uint64(1))
        fresh = [c for c in range(64) if (new >> c) & 1 and not (old >> c) & 1]
        assert len(free) == len(fresh)
        stock[free] = np.array(fresh)[rng.permutation(len(fresh))]
    st.stock[b] = stock


def avinas_permute(st, b, seat, rng) -> bool:
    """Avinas (RULES.md §5, §7): the cards of ``test_avinas_env.permute_hidden``; the valuable bit of a
    face-down lead for every seat but the leader and his partner (flipped: with
    ``facedown_signal="free"`` it may be a bluff, so it says nothing the card does not); whether the
    declarer lied (flipped) for every seat but the declarer until the deal is scored."""
    old_stock, old_dealt = st.stock[b].copy(), [int(x) for x in st.dealt[b]]
    moved = test_avinas_env.permute_hidden(st, b, seat, rng)
    for s in range(4):  # permute_hidden moves held cards only: the deal follows them
        st.dealt[b, s] = np.uint64(int(st.hands[b, s]) | int(st.played[b, s]))
    _sync_stock(st, b, old_stock, [(old_dealt[s], int(st.dealt[b, s])) for s in range(4)], rng)
    fd = int(st.fd_seat[b])
    if fd >= 0 and int(st.signal[b]) >= 0 and seat not in (fd, (fd + 2) % 4):
        st.signal[b] = 1 - int(st.signal[b])
    if int(st.declarer[b]) not in (-1, seat):
        st.lied[b] = not st.lied[b]
    return moved


def ottocento_permute(st, b, seat, rng) -> bool:
    """Ottocento (RULES.md §3.5, §4.1, §7): the cards of ``test_ottocento_env.permute_hidden``; and what
    another seat's declaration would be worth and show (``decl_value``, ``decl_cards``) until it declares
    (a pass shows nothing)."""
    old_stock, old_dealt = st.stock[b].copy(), [int(x) for x in st.dealt[b]]
    moved = test_ottocento_env.permute_hidden(st, b, seat, rng)
    d = int(st.dealer[b])
    for s in range(4):  # permute_hidden moves held cards and discards only: the deal follows them
        st.dealt[b, s] = np.uint64(int(st.hands[b, s]) | int(st.played[b, s]) | (int(st.discards[b]) if s == d else 0))
    _sync_stock(st, b, old_stock, [(old_dealt[s], int(st.dealt[b, s])) for s in range(4)], rng)
    for s in range(4):
        if s != seat and not st.declared[b, s]:
            st.decl_value[b, s] = int(rng.integers(0, 300))
            st.decl_cards[b, s] = np.uint64(int(rng.integers(0, 1 << 62)))
    return moved


PERMUTE = {
    "all_fours": lambda options: functools.partial(test_all_fours_env.permute_hidden, packet=options.get("deal_packet", 3)),
    "avinas": lambda options: avinas_permute,
    "ottocento": lambda options: ottocento_permute,
    "aluette": aluette_permute,
    "pyanitsa": pyanitsa_permute,
}
assert set(PERMUTE) == set(GAMES)

# option values that change what a seat may see (RULES.md §7, §8), beyond test_frame.OPTION_SETS
INFO_OPTION_SETS: dict[str, list[dict]] = {
    "all_fours": [{"episode": "match", "deal_packet": 1, "target_score": 21}],
    "avinas": [
        {"facedown_signal": "none", "trump_lead_rule": "every_lead"},
        {"facedown_signal": "auto", "trump_lead_rule": "every_lead", "episode": "match"},
        {"facedown_signal": "free", "honesty": "penalize", "call_count": "suit"},
        {"honesty": "mask", "call_count": "suit", "valuable_min_points": 0},
    ],
    "ottocento": [
        {"declaration_mode": "none"},
        {"declaration_mode": "auto_all", "deal_packets": 1},
        {"deal_packets": 15, "match_target": 300, "declarations_win_immediately": True},
        {"deal_packets": 3, "matto_rule": "captured", "discards_follow_tricks": False},
    ],
    "aluette": [
        {"signal_visibility": "public", "signals": "free"},
        {"signal_intercept": 1.0},
        {"signal_intercept": 0.3, "signals": "free", "signal_timing": "round"},
        {"partnership_draw": True, "episode": "match", "chant_recipients": "left_and_partner"},
        {"surrender": True, "signal_timing": "round", "episode": "match", "match_target": 3},
    ],
    "pyanitsa": [
        {"num_players": 4, "collect_order": "winner_chooses"},
        {"num_players": 3, "collect_order": "winner_chooses", "tie_mode": "down_up", "tie_players": "tied"},
        {"num_players": 2, "deck": 52, "collect_order": "winner_chooses", "runout": "forfeit"},
        {"num_players": 3, "deck": 52},
        {"collect_order": "random", "tie_mode": "down_up"},
        {"num_players": 3, "collect_order": "random", "tie_mode": "down_up", "observe_history": True},
    ],
}
assert set(INFO_OPTION_SETS) == set(GAMES)

CASES = [
    pytest.param(g, o, id=f"{g}-{tag}{i}")
    for g in sorted(GAMES)
    for tag, table in (("frame", OPTION_SETS), ("info", INFO_OPTION_SETS))
    for i, o in enumerate(table[g])
]

# every game's checks: the next seat's observation must change when its hidden cards move only where
# that always happens (All Fours, Aluette: other hands always hold cards the seat cannot see)
OTHERS_NOTICE = {"all_fours": True, "aluette": True, "avinas": False, "ottocento": False, "pyanitsa": False}
# the least share of (seat check, live game) pairs in which hidden cards must really move: at least the
# bars of the per-game copies this test replaced (All Fours, Aluette 0.9, Avinas 0.8, Ottocento 0.5)
MOVED_SHARE = {"all_fours": 0.95, "aluette": 0.95, "avinas": 0.85, "ottocento": 0.9, "pyanitsa": 0.95}


@pytest.mark.parametrize("game, options", CASES)
def test_kernel_views_do_not_change_when_hidden_cards_move(game, options):
    k = kernel(game, **options)
    checks, moved = check_hidden_information(
        k, PERMUTE[game](options), batch=24, steps=160, every=5, offset=2, render_every=2, seed=7,
        others_notice=OTHERS_NOTICE[game],
    )
    assert checks == 32 * k.num_players
    assert moved > MOVED_SHARE[game] * checks * 24, (checks, moved)


def _twin(env, seat, permute, rng):
    """A deep copy of ``env`` whose game differs only in the cards hidden from ``seat``; None if none moved."""
    t = copy.deepcopy(env)
    if not permute(t.game_state, 0, seat, rng):
        return None
    t._single = t.kernel.single_game(t._st)
    t._legal = None
    return t


def _seat_sees(env, seat):
    agent = env.possible_agents[seat]
    o = env.observe(agent)
    return (
        o["observation"].tolist(),
        o["action_mask"].tolist(),
        env.text_observation(agent),
        env.render(view=seat),
        env.infos[agent],
        env.table_view(seat),
    )


@pytest.mark.parametrize("game, options", CASES)
def test_env_views_do_not_change_when_hidden_cards_move(game, options):
    """The AEC env: ``observe``, ``text_observation``, the ansi render with ``render_view=seat``,
    ``infos`` and ``table_view`` of a seat are the same in a twin env whose hidden cards moved."""
    permute = PERMUTE[game](options)
    rng = np.random.default_rng(11)
    names = ("observation", "action mask", "text_observation", "render", "infos", "table_view")
    twins = 0
    for seed in range(2):
        env = envs_make(game, render_mode="ansi", render_view=0, **options)
        env.reset(seed=seed)
        assert env.render() == env.render(view=0)
        for step in range(200):
            if any(env.terminations.values()) or any(env.truncations.values()):
                break
            if step % 9 == 4:
                for seat in range(env.unwrapped.kernel.num_players):
                    t = _twin(env, seat, permute, rng)
                    if t is None:
                        continue
                    twins += 1
                    for name, a, b in zip(names, _seat_sees(env, seat), _seat_sees(t, seat)):
                        assert a == b, f"{game} {options} step {step}: seat {seat}'s {name} reveals hidden cards"
            env.step(int(rng.choice(env.legal_actions())))
    assert twins >= 4


# the web API (training/web) for the option values that change what seat 0 may see, and whole matches:
# a web table plays one deal/hand per episode unless the person asks for a whole match (the table
# page's "whole match", ``tables.MATCH``), where the next deal is dealt at once and the last deal's
# summary stays on the table during it (its discards, a lie, High and Low...)
WEB_CASES = [
    ("all_fours", {"deal_packet": 1, "undertrump": "forbidden"}),
    ("avinas", {"facedown_signal": "free", "honesty": "mask", "trump_lead_rule": "every_lead"}),
    ("avinas", {"facedown_signal": "auto", "trump_lead_rule": "every_lead", "call_count": "suit"}),
    ("ottocento", {"declaration_mode": "auto_all", "deal_packets": 1}),
    ("aluette", {"signals": "free", "signal_intercept": 0.5, "chant_recipients": "left_and_partner"}),
    ("aluette", {"signal_visibility": "public", "surrender": True}),
    ("pyanitsa", {"num_players": 4, "collect_order": "winner_chooses", "max_battles": 60}),
    ("pyanitsa", {"num_players": 3, "deck": 52, "collect_order": "winner_chooses", "tie_mode": "down_up", "max_battles": 60}),
    ("all_fours", {"episode": "match", "deal_packet": 1}),
    ("avinas", {"episode": "match", "facedown_signal": "auto", "trump_lead_rule": "every_lead"}),
    ("ottocento", {"match_target": 800}),
    ("aluette", {"episode": "match", "signal_intercept": 0.5, "chant_recipients": "left_and_partner"}),
]


@pytest.mark.parametrize("game, options", [pytest.param(g, o, id=f"{g}-{i}") for i, (g, o) in enumerate(WEB_CASES)])
def test_web_answers_do_not_change_when_hidden_cards_move(game, options):
    """As ``test_web_hidden_info`` with these options: no answer names a card seat 0 may not know, and a
    twin table whose cards hidden from seat 0 moved (this file's permutations) gives the same answer."""
    from test_web_hidden_info import cards_named, copy_table, known_to_seat_0
    from web_util import make_client, manager, open_table

    permute = PERMUTE[game](options)
    client = make_client()
    rng = np.random.default_rng(3)
    deck = kernel(game, **options).deck
    twins = between = 0
    for seed in range(2):
        seats = {"opponents": "random"} if kernel(game).teams is None else {"partner": "random", "opponents": "random"}
        out = open_table(client, game, seed=seed, options=options, **seats)
        tid, view = out["table_id"], out["view"]
        table = manager(client).get(tid)
        known = known_to_seat_0(table)
        for step in range(40):
            scanned = view
            if game == "pyanitsa" and table.env.game_state.size[0, 0] == 0:
                # seat 0 is out and the others played on: the answer's frames show every battle since,
                # each battle's face-up cards public (RULES.md §7) but known_to_seat_0 sees only the last
                scanned = {key: v for key, v in view.items() if key != "frames"}
            leaked = cards_named(scanned, deck) - known
            assert not leaked, f"{game} {options} step {step}: {[deck.names[c] for c in leaked]} shown to seat 0"
            if view["done"]:
                break
            between += view["match"] and view["summary"] is not None  # a match's next deal, the last one's summary shown
            t2 = copy_table(table)
            if permute(t2.env.game_state, 0, 0, rng):
                t2.env._single = t2.kernel.single_game(t2.env._st)
                t2.env._legal = None
                manager(client)._tables[t2.id] = t2
                a, b = client.get(f"/api/tables/{tid}").json(), client.get(f"/api/tables/{t2.id}").json()
                assert {**b, "table_id": tid} == a, f"{game} {options} step {step}: the answer depends on hidden cards"
                client.delete(f"/api/tables/{t2.id}")
                twins += 1
            legal = view["legal"]
            r = client.post(f"/api/tables/{tid}/move", json={"action": legal[int(rng.integers(len(legal)))]["action"]})
            assert r.status_code == 200, r.text
            view = r.json()
            known |= known_to_seat_0(table)
    assert twins >= 10
    if getattr(kernel(game, **options), "match", False):
        assert between > 0  # the twins were compared in a later deal of the match too


# ---- the cards a deal kept hidden stay hidden for good: in the deals after it and at the episode's end
#
# The twins above move the cards hidden in the deal being played, and skip finished games; what a state
# keeps of an earlier deal of a match (its summary, the ``last_*`` fields, ``infos`` set when it was
# scored, the web table's frames of it) is never moved by them, and the AEC env twin's ``infos`` is a
# copy, not recomputed. Here twins are whole episodes: the same moves and the same chance from two packs
# that differ only in two cards seat ``X`` never learns in deal 1 (in no hand of its own, no card set of
# its observation, no move it saw: cards of the stock, of an unused talon, of another seat's discard, of
# a hand that a stop or a surrender left unplayed). Every channel of ``X`` must be the same at every
# step, in deal 1, in every deal after it (each deal is dealt from its own shuffle, the same in both)
# and at the end of the episode (a single deal's end too: its infos and summary): the AEC env's, what
# an ``exec:`` bot's process for seat ``X`` is sent, and for seat 0 the web table's answers and every
# line of terminal play (``cardzoo play``), which the other tests check only for card names. Ottocento
# is left out: at the end of a deal everything is revealed (RULES.md §7); P'yanitsa has no match, and
# its piles are turned up as they are played.
MATCH_TWIN_CASES = [
    ("all_fours", {"episode": "match", "target_score": 7}),
    ("all_fours", {"episode": "match", "target_score": 11, "deal_packet": 1, "undertrump": "forbidden"}),
    ("avinas", {"episode": "match"}),
    ("avinas", {"episode": "match", "facedown_signal": "free", "call_count": "suit", "knock_back": "always"}),
    ("aluette", {"episode": "match", "match_deals": 3, "surrender": True, "signals": "free"}),
    ("aluette", {"episode": "match", "match_deals": 3, "chant_recipients": "left_and_partner",
                 "signal_intercept": 0.5}),
    ("aluette", {"episode": "match", "match_target": 3, "signal_visibility": "public", "surrender": True,
                 "chant": False}),
    # one deal (hand) an episode: what its end shows (infos, the summary) of the cards it kept hidden
    ("all_fours", {}),
    ("avinas", {"call_count": "suit"}),
    ("aluette", {"surrender": True, "chant_recipients": "left_and_partner"}),
]
#: the state field that counts scored deals (hands) of a match
DEAL_COUNT = {"all_fours": "hands_played", "avinas": "deals", "aluette": "deals"}
#: what the rules reveal when a deal ends that is no card but may depend on cards never played: a
#: twin must agree on it (Avinas RULES.md §7: whether the declarer lied, told by the deal's summary)
REVEALED_AT_END = {"avinas": ("last_lied",)}


def _seat_channels(env, seat):
    """Everything ``seat`` receives from the AEC env now: observation, mask, text, ansi render of its
    view, its ``infos`` and reward as the env set them, table view, who acts, whether it is done."""
    agent = env.possible_agents[seat]
    o = env.observe(agent)
    return {
        "observation": o["observation"].tolist(), "action mask": o["action_mask"].tolist(),
        "text_observation": env.text_observation(agent), "render": env.render(view=seat),
        "infos": repr(env.infos[agent]), "reward": env.rewards[agent], "table_view": env.table_view(seat),
        "agent to act": env.agent_selection, "terminated": env.terminations[agent],
    }


def _match_env(game, options, seed, deck, dealer):
    env = envs_make(game, render_mode="ansi", **options)
    env.reset(seed=seed, options={"deck": deck, "dealer": dealer})
    return env


def _deal_1_secrets(game, options, seed, deck, dealer, moves, seat):
    """``(cards seat never learns in deal 1, number of moves of deal 1, state before its last move, state
    after it)`` of the match (or single deal) played with ``moves``."""
    env = _match_env(game, options, seed, deck, dealer)
    k = env.unwrapped.kernel
    cardsets = [e for e in k.obs_layout.entries if e.stop - e.start == k.deck.n and e.high == 1]
    known = set()
    for i, a in enumerate(moves):
        st = env.unwrapped.game_state
        obs = k.observe(st, seat)[0]
        known |= set(k.hands(st, 0)[seat])
        for e in cardsets:
            known |= set(np.flatnonzero(obs[e.start : e.stop]).tolist())
        c = k.action_card(a)
        if c is not None and (int(st.current_player[0]) == seat or k.action_is_public(st, 0, a)):
            known.add(c)
        before = st.copy()
        env.step(a)
        after = env.unwrapped.game_state
        if getattr(after, DEAL_COUNT[game])[0] != getattr(before, DEAL_COUNT[game])[0] or after.done[0]:
            return sorted(set(range(k.deck.n)) - known), i + 1, before, after
    return [], len(moves), None, None


def _places(st, card):
    """Where ``card`` is in ``st``: which of its card sets (one bit per card) hold it."""
    out = []
    for f in dataclasses.fields(st):
        v = getattr(st, f.name)
        if v.dtype == np.uint64:
            out.append(tuple(((v[0].reshape(-1).astype(object) >> card) & 1).tolist()))
    return tuple(out)


def _match_twins(game, options, seed, seat, pairs=2):
    """The match of ``seed`` (random legal moves) and up to ``pairs`` packs that differ from its pack in two
    cards ``seat`` never learns in deal 1 and with which the same moves are legal: ``(pack, dealer, moves,
    moves of deal 1, [(card, card, twin pack)])``; cards in different places first."""
    n = kernel(game, **options).deck.n
    rng = np.random.default_rng([seed, zlib.crc32(repr(sorted(options.items())).encode())])
    deck, dealer = rng.permutation(n), int(rng.integers(4))
    env = _match_env(game, options, seed, deck, dealer)
    moves = []
    while not (any(env.terminations.values()) or any(env.truncations.values())) and len(moves) < 600:
        moves.append(int(rng.choice(env.legal_actions())))
        env.step(moves[-1])
    secret, end1, last, scored = _deal_1_secrets(game, options, seed, deck, dealer, moves, seat)
    if last is None:
        return deck, dealer, moves, end1, []
    candidates = [(a, b) for i, a in enumerate(secret) for b in secret[i + 1 :]]
    rng.shuffle(candidates)
    candidates.sort(key=lambda p: _places(last, p[0]) == _places(last, p[1]))
    out = []
    where = {int(c): i for i, c in enumerate(deck)}
    for a, b in candidates[:40]:
        twin = deck.copy()
        twin[where[a]], twin[where[b]] = b, a
        t = _match_env(game, options, seed, twin, dealer)
        for m in moves[:end1]:
            if m not in t.legal_actions():
                break
            t.step(m)
        else:
            ends = t.unwrapped.game_state
            if all(np.array_equal(getattr(ends, f), getattr(scored, f)) for f in REVEALED_AT_END.get(game, ())):
                out.append((a, b, twin))
        if len(out) == pairs:
            break
    return deck, dealer, moves, end1, out


class _Script:
    """An agent that plays the next move of a list shared by every seat (the person's too)."""

    name = "script"
    needs_state = False

    def __init__(self, moves: list) -> None:
        self.moves = moves

    def act(self, observation, action_mask):
        a = self.moves.pop(0)
        assert action_mask[0, a]
        return np.array([a])


def _exec_messages(game, options, seed, deck, dealer, moves):
    """What the process of each seat of an ``exec:`` bot playing every seat of this match is sent
    (:class:`~cardzoo.agents.external.ExecAgent`: its ``act`` messages and the ``end`` message), the
    bot answering the moves as given; its processes are left out (the messages are recorded instead)."""
    import json
    import sys

    from cardzoo.agents.external import ExecAgent, _Process
    from cardzoo.training.common import agent_action

    left, sent = list(moves), {}

    class Recorded(ExecAgent):
        def _start(self, table, seat, where):
            sent.setdefault(seat, [])
            p = self.procs[(table, seat)] = _Process(table, seat, None, None)
            return p

        def _send(self, p, msg):
            sent[p.seat].append(json.dumps(msg, sort_keys=True))

        def _receive(self, p, what):
            return {"action": left.pop(0)}

        def close(self):
            self.procs = {}

    bot = Recorded(sys.executable)
    env = _match_env(game, options, seed, deck, dealer)
    bot.begin(env.unwrapped.kernel)
    returns = np.zeros(len(env.possible_agents))
    while not (any(env.terminations.values()) or any(env.truncations.values())):
        env.step(agent_action(bot, env))
        returns += [env.rewards[a] for a in env.possible_agents]
    bot.end_episodes(returns[None])
    assert not left and not bot.faults
    return sent


def _web_answers(game, options, seed, deck, dealer, moves):
    """What a web table (``training/web``) of this match sends seat 0, the person, at each of its turns
    and at the end: the View and the frames of the moves made since the last one (moves played as given)."""
    from cardzoo.training.web.tables import Table
    from cardzoo.training.web.views import answer_frames, table_view_json

    left = list(moves)
    script = _Script(left)
    table = Table("twin", game, options, {s: ("script", script, None) for s in (1, 2, 3)}, seed=seed)
    table.env.reset = functools.partial(table.env.reset, options={"deck": deck, "dealer": dealer})
    table.deal()
    start, out = 0, []
    while True:
        out.append((table_view_json(table), answer_frames(table, start)))
        if table.done:
            assert not left  # every move was played
            return out
        start = table.move(left.pop(0))


def _terminal_lines(game, options, seed, deck, dealer, moves, monkeypatch):
    """Every line terminal play (``cardzoo play``) writes to the person at seat 0 in this match, the
    moves played as given (the person types each of its moves by name)."""
    import cardzoo.training.play as terminal

    left = list(moves)
    script = _Script(left)
    names = kernel(game, **options).action_name
    real_make = terminal.envs.make

    def make(*args, **kwargs):
        env = real_make(*args, **kwargs)
        env.reset = functools.partial(env.reset, options={"deck": deck, "dealer": dealer})
        return env

    with monkeypatch.context() as m:
        m.setattr(terminal.envs, "make", make)
        m.setattr(terminal, "seat_agent", lambda *args, **kwargs: (script, "script", None))
        lines = []
        terminal.play(game, "script", "script", seed=seed, env_options=options, read=lambda _: names(left.pop(0)),
                      write=lines.append)
    assert not left  # every move was played
    return lines


@pytest.mark.parametrize("game, options", [pytest.param(g, o, id=f"{g}-{i}")
                                           for i, (g, o) in enumerate(MATCH_TWIN_CASES)])
def test_nothing_shows_later_the_cards_a_deal_kept_hidden(game, options, monkeypatch):
    """The AEC env's channels and an exec: bot's messages of every seat, and for seat 0 the web table's
    answers and terminal play's lines, through whole matches (and single deals, to their end)."""
    names = kernel(game, **options).deck.names
    twins = later = web = exec_sent = 0
    for seed in range(4):
        for seat in range(4):
            deck, dealer, moves, end1, found = _match_twins(game, options, seed, seat)
            for a, b, twin in found:
                what = f"{game} {options} seed {seed}: seat {seat} never sees {names[a]} or {names[b]} in deal 1"
                e1, e2 = _match_env(game, options, seed, deck, dealer), _match_env(game, options, seed, twin, dealer)
                for i, m in enumerate(moves):
                    s1, s2 = _seat_channels(e1, seat), _seat_channels(e2, seat)
                    for name in s1:
                        assert s1[name] == s2[name], f"{what}, but its {name} at move {i} tells them apart"
                    if i == end1:
                        hands = e1.unwrapped.kernel.hands
                        assert hands(e1.unwrapped.game_state, 0) == hands(e2.unwrapped.game_state, 0), (
                            f"{what}: the next deal depends on where they were")
                    later += i >= end1
                    e1.step(m)
                    e2.step(m)
                s1, s2 = _seat_channels(e1, seat), _seat_channels(e2, seat)
                for name in s1:  # the end of the episode: its infos and the last summary
                    assert s1[name] == s2[name], f"{what}, but its {name} at the end tells them apart"
                x1 = _exec_messages(game, options, seed, deck, dealer, moves)[seat]
                x2 = _exec_messages(game, options, seed, twin, dealer, moves)[seat]
                assert x1 == x2, f"{what}, but the messages its exec: bot process is sent tell them apart"
                exec_sent += len(x1)
                twins += 1
                if seat == 0:
                    w1 = _web_answers(game, options, seed, deck, dealer, moves)
                    w2 = _web_answers(game, options, seed, twin, dealer, moves)
                    assert len(w1) == len(w2)
                    for turn, (x, y) in enumerate(zip(w1, w2)):
                        assert x == y, f"{what}, but the web table's answer at its turn {turn} tells them apart"
                    web += len(w1)
                    t1 = _terminal_lines(game, options, seed, deck, dealer, moves, monkeypatch)
                    t2 = _terminal_lines(game, options, seed, twin, dealer, moves, monkeypatch)
                    assert t1 == t2, f"{what}, but terminal play tells them apart"
                    assert len(t1) > 5
    match = getattr(kernel(game, **options), "match", False)
    assert twins >= 16 and web > (40 if match else 10)  # twins were played, through the web table's answers too
    assert exec_sent > 3 * twins  # and an exec: bot's messages
    if match:
        assert later > 10 * twins  # well into the later deals
