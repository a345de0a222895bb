"""P'yanitsa ("Drunkard") rules as a batched kernel.

Implements ``envs/pyanitsa/RULES.md`` (sections cited as §n): dealing (§3), the ``FLIP`` and
``ORDER`` decisions (§4), battle resolution with six-over-ace compared as a set, face-up and
down-up tie steps, ``all`` / ``tied`` participants and both run-out rules (§2, §5), the four
collection orders (§5), both objectives, draws, the battle cap and exact Brent-style cycle
detection (§6).

The rules themselves are compiled single-game functions (:mod:`cardzoo.envs.pyanitsa.rules`,
numba) that the core's compiled driver (:class:`cardzoo.envs.core.compiled.Drivers`) runs over
the batch; the AEC env runs the same functions at B = 1 (:meth:`PyanitsaKernel.single_game`).
This module holds the frame: options, validation, chance (the deal's shuffle and the random
collection order are drawn here, in Python, through :mod:`cardzoo.envs.core.chance`), views.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..core.cards import FRENCH36, FRENCH52, bit
from ..core import chance
from ..core.compiled import CompiledKernel, arrays_type
from ..core.kernel import BatchState, Layout, Option, bool_option, check_permutation, int_option, is_int, state_field
from . import observation as _obs
from . import render as _render
from . import rules as _rules
from .constants import COLLECT_ORDERS, EMPTY, FLIP_PHASE, ORDER_PHASE, OVER, PHASE_NAMES, TRUNC_CAP, TRUNC_CYCLE  # noqa: F401

_U64 = np.uint64


_f = state_field


@dataclasses.dataclass
class PyanitsaState(BatchState):
    """Batched P'yanitsa state: ``B`` games, ``players`` seats (absolute), a pack of ``cards`` cards.

    Piles are ordered, so they are not bitboards: seat ``s``'s pile top -> bottom is
    ``piles[b, s, (head + j) % cards]`` for ``j < size``. Hidden from every player: ``piles``,
    ``saved``, ``battle_cards`` (face-down cards), ``collect``; the rest is public (§7)."""

    piles: np.ndarray = _f(np.uint8, ("players", "cards"), 0, "each seat's pile, a circular buffer read from ``head``")
    head: np.ndarray = _f(np.int16, ("players",), 0, "buffer index of each pile's top card")
    size: np.ndarray = _f(np.int16, ("players",), 0, "cards in each pile")
    phase: np.ndarray = _f(np.int8, (), FLIP_PHASE, "0 flip, 1 order the pot (``winner_chooses``), 2 over")
    battles: np.ndarray = _f(np.int32, (), 0, "battles completed")
    face_up: np.ndarray = _f(_U64, ("players",), 0, "cards each seat showed face up in the current/last battle")
    n_down: np.ndarray = _f(np.uint8, ("players",), 0, "face-down cards each seat put down in that battle")
    pot: np.ndarray = _f(_U64, (), 0, "cards on the table not under a pile (the pot while ordering; the dead pot after a draw)")
    winner: np.ndarray = _f(np.int8, (), -1, "winner of the last battle (-1 none / dead battle)")
    known: np.ndarray = _f(np.int16, ("players",), 0, "length of the bottom part of each pile its owner ordered itself (§7)")
    in_play: np.ndarray = _f(_U64, (), 0, "cards of the game (all but the set-aside card, or a constructed position's)")
    saved: np.ndarray = _f(np.uint8, ("players", "cards"), EMPTY, "the cycle check's saved piles, linearised, 255 past the end (§6)")
    saved_size: np.ndarray = _f(np.int16, ("players",), 0, "sizes of the saved piles")
    loser: np.ndarray = _f(bool, ("players",), False, "the losers, once the game is decided (§6)")
    draw: np.ndarray = _f(bool, (), False, "the game ended in a draw (dead battle, §5.5)")
    trunc_reason: np.ndarray = _f(np.int8, (), 0, "0 none, 1 cycle, 2 max_battles (§6)")
    took_part: np.ndarray = _f(bool, ("players",), False, "seats active in the last battle")
    standing: np.ndarray = _f(np.int8, ("players",), -1, "each seat's standing (last face-up) card in the last battle (-1 none)")
    battle_cards: np.ndarray = _f(np.uint8, ("cards",), 0, "the last battle's cards in time order (step, seat, face-down first)")
    battle_tags: np.ndarray = _f(np.int16, ("cards",), 0, "each one's ``step * 2 * players + seat * 2 + face_up``")
    battle_n: np.ndarray = _f(np.int16, (), 0, "cards in the last battle")
    battle_steps: np.ndarray = _f(np.int16, (), 0, "reveals in the last battle (1 + tie steps)")
    collect: np.ndarray = _f(np.uint8, ("cards",), 0, "drawn order of the pot under the winner's pile (``collect_order='random'``)")
    pot_of: np.ndarray = _f(np.int32, ("players", "cards"), 0, "the battle (1, 2, ...) whose pot each place of ``piles`` took, 0 for the deal (public, §7)")
    shown: np.ndarray = _f(_U64, (), 0, "cards whose place every seat can tell: put down face up (or face down from a public place), and not since lost in a pot taken face down from (§7)")
    seen: np.ndarray = _f(_U64, (), 0, "cards ever turned face up: never in a pile's dealt part again, nor set aside (§7)")


#: the state's arrays as compiled code sees them (a namedtuple with the fields of :class:`PyanitsaState`)
PyanitsaArrays = arrays_type(PyanitsaState, "PyanitsaArrays", __name__)

def _params(o: dict, obs: Layout, state: Layout) -> np.ndarray:
    """The option vector ``int64[rules.P_SIZE]`` of the compiled rules (``RULES.md`` §8) and the
    observation offsets they write at."""
    r = _rules
    P = np.zeros(r.P_SIZE, dtype=np.int64)
    P[r.P_N] = o["num_players"]
    P[r.P_C] = o["deck"]
    P[r.P_RANKS] = 9 if o["deck"] == 36 else 13
    P[r.P_SIX] = bool(o["six_beats_ace"])
    P[r.P_ORDER] = COLLECT_ORDERS.index(o["collect_order"])
    P[r.P_CYCLES] = bool(o["detect_cycles"]) and o["collect_order"] in ("winner_first", "seat_order")
    P[r.P_FIRST_OUT] = o["objective"] == "first_out_loses"
    P[r.P_DOWN_UP] = o["tie_mode"] == "down_up"
    P[r.P_FORFEIT] = o["runout"] == "forfeit"
    P[r.P_ALL_TIE] = o["tie_players"] == "all"
    P[r.P_MAX_BATTLES] = o["max_battles"]
    P[r.P_HISTORY] = bool(o["observe_history"])
    if o["observe_history"]:
        P[r.O_HISTORY] = obs["remembered[me]"].start
    for i, name in (
        (r.O_SIZE, "pile_size[me]"), (r.O_OUT, "out"), (r.O_TO_ACT, "to_act"), (r.O_PHASE, "phase"),
        (r.O_WINNER, "battle_winner"), (r.O_DOWN, "face_down[me]"), (r.O_BATTLES, "battles"),
        (r.O_FACE_UP, "face_up[me]"), (r.O_POT, "pot"), (r.O_KNOWN_SET, "my_known_set"),
        (r.O_KNOWN_ORDER, "my_known_order"), (r.O_KNOWN_COUNT, "my_known_count"),
    ):
        P[i] = obs[name].start
    if state["out"].start != obs["out"].start or state["battles"].start != obs["battles"].start:
        raise AssertionError("the public part of the observation and state layouts must coincide")
    P[r.G_FACE_UP] = state["face_up[S0]"].start
    P[r.G_POT] = state["pot"].start
    P[r.G_PILE] = state["pile[S0]"].start
    return P


class PyanitsaKernel(CompiledKernel):
    """Batched P'yanitsa (``RULES.md``).

    Options (``RULES.md`` §8; a bad value raises ``ValueError`` naming the valid values):

    ==================  ===========================================================  ======================
    option              values                                                       default
    ==================  ===========================================================  ======================
    ``num_players``     2, 3, 4 (``n_players``, the spec's name, is an alias)         2
    ``objective``       ``"last_holder_loses"``, ``"first_out_loses"``               ``"last_holder_loses"``
    ``tie_mode``        ``"face_up"``, ``"down_up"``                                 ``"face_up"``
    ``tie_players``     ``"all"``, ``"tied"``                                        ``"all"``
    ``runout``          ``"last_card_stands"``, ``"forfeit"``                        ``"last_card_stands"``
    ``six_beats_ace``   bool                                                         True
    ``collect_order``   ``"winner_first"``, ``"seat_order"``, ``"random"``,
                        ``"winner_chooses"``                                         ``"winner_first"``
    ``deck``            36, 52                                                       36
    ``max_battles``     int 1..10000000                                              5000
    ``detect_cycles``   bool                                                         True
    ``observe_history`` bool: the observation adds each pile's remembered cards (§7)  False
    ==================  ===========================================================  ======================

    Actions: ``Discrete(C + 1)``: ``ORDER(card)`` for card ids ``0..C-1`` (``9*suit + rank`` for
    36 cards, ``13*suit + rank`` for 52), ``FLIP`` = ``C``.
    """

    renderer = _render  # render() and table_view() (Kernel)

    name = "pyanitsa"
    display_name = "P'yanitsa"
    EPISODE_NAME = "game"
    deck = FRENCH36
    teams = None
    zero_sum = True
    OPTIONS = {
        "num_players": Option(2, choices=(2, 3, 4)),
        "objective": Option("last_holder_loses", choices=("last_holder_loses", "first_out_loses")),
        "tie_mode": Option("face_up", choices=("face_up", "down_up")),
        "tie_players": Option("all", choices=("all", "tied")),
        "runout": Option("last_card_stands", choices=("last_card_stands", "forfeit")),
        "six_beats_ace": bool_option(True),
        "collect_order": Option("winner_first", choices=("winner_first", "seat_order", "random", "winner_chooses")),
        "deck": Option(36, choices=(36, 52)),
        "max_battles": int_option(5000, 1, 10_000_000),  # §8 int; the observation's two bytes saturate at 65535
        "detect_cycles": bool_option(True),
        # not a rule: the observation adds what a seat remembers of the earlier battles (§7)
        "observe_history": bool_option(False),
    }
    OBSERVATION_OPTIONS = frozenset({"observe_history"})
    INIT_HOOKS = ("piles", "deck")
    CARD_HOOKS = ("piles", "deck")
    State = PyanitsaState
    Arrays = PyanitsaArrays
    rules = _rules
    CHANCE_ORDER = (_rules.NEED_COLLECT,)
    OPTION_ALIASES = {"n_players": "num_players"}  # the spec says n_players, PettingZoo's classic envs num_players

    def __init__(self, **options) -> None:
        super().__init__(**options)
        o = self.options
        self.deck = FRENCH36 if o["deck"] == 36 else FRENCH52
        self.C = self.deck.n
        self.num_players = int(o["num_players"])
        self.num_actions = self.C + 1
        self.FLIP = self.C
        self.n_ranks = 9 if o["deck"] == 36 else 13
        self.top_rank = self.n_ranks - 1  # the ace
        self.choose = o["collect_order"] == "winner_chooses"
        self.cycles = o["detect_cycles"] and o["collect_order"] in ("winner_first", "seat_order")
        self.variant2 = o["objective"] == "first_out_loses"
        self.down_up = o["tie_mode"] == "down_up"
        self.forfeit = o["runout"] == "forfeit"
        self.all_tie = o["tie_players"] == "all"
        self.per_seat = self.C // self.num_players
        self._obs_layout = _obs.observation_layout(self)
        self._state_layout = _obs.state_layout(self)

    @property
    def has_choices(self) -> bool:
        """Only ``collect_order="winner_chooses"`` asks a player anything but the forced ``FLIP``
        (ordering the pot, RULES.md §4.2)."""
        return self.choose

    def make_params(self) -> np.ndarray:
        """``int64[rules.P_SIZE]``: the options (RULES.md §8) as the compiled rules read them (indices ``rules.P_*``)."""
        return _params(self.options, self._obs_layout, self._state_layout)

    def state_dims(self) -> dict[str, int]:
        """Named sizes of the state's fields: ``players`` and ``cards`` (the pack, 36 or 52: RULES.md §2)."""
        return {"players": self.num_players, "cards": self.C}

    # ------------------------------------------------------------------ layouts
    @property
    def max_episode_steps(self) -> int:
        """Agent steps bound: per battle at most one ``FLIP`` per seat and ``C - 1`` ``ORDER`` choices."""
        per_battle = self.num_players + (self.C - 1 if self.choose else 0)
        return self.options["max_battles"] * per_battle

    # ------------------------------------------------------------------ names
    def action_name(self, action: int) -> str:
        """``"ORDER(KS)"`` for card ids ``0..C-1``, ``"FLIP"`` for ``C`` (the actions of RULES.md §4);
        ``ValueError`` otherwise."""
        a = self.valid_action_id(action)
        return f"ORDER({self.deck.names[a]})" if a < self.C else "FLIP"

    def action_id(self, name: str) -> int:
        """Inverse of :meth:`action_name` (case-insensitive, RULES.md §4); also accepts a bare card name
        (``"KS"`` = ``ORDER(KS)``). ``ValueError`` for a name that is not a string or no action."""
        if not isinstance(name, str):
            raise ValueError(f"action name must be a string such as 'FLIP' or 'ORDER(KS)', got {name!r}")
        key = name.strip().upper()
        if key == "FLIP":
            return self.FLIP
        if key.startswith("ORDER(") and key.endswith(")"):
            key = key[6:-1]
        try:
            return self.deck.card_id(key)
        except ValueError:
            raise ValueError(
                f"{name!r} is not an action of {self.name}; actions are 'FLIP' and 'ORDER(card)' "
                f"with a card of the {self.C}-card pack (e.g. 'ORDER(KS)' or just 'KS')"
            ) from None

    # ------------------------------------------------------------------ init (§3)
    def new_games(self, st: PyanitsaState, rng, rows: np.ndarray, piles=None, deck=None) -> int:
        """Shuffle and deal the fresh games ``rows`` (``int64[n]``) of ``st`` (§3; ``init(rng, B, piles=..., deck=...)``);
        returns 0 (no compiled ``deal_one`` follows: ``CompiledKernel.new_games``).

        Test hooks:
            deck: ``int[C]`` or ``int[n, C]`` shuffled pack (``c[0..C-1]``, position 0 first) instead
                of a shuffle (the name the arena's duplicate deals use; not the ``deck`` option).
            piles: a list of ``P`` lists of card ids or names (each top -> bottom), the same
                position for every game; cards in no pile are out of play. At least two
                piles must hold cards.

        Raises ``ValueError`` for a hook that is not a permutation / not valid piles.
        """
        n, P, C = rows.size, self.num_players, self.C
        if piles is not None:
            if deck is not None:
                raise ValueError("reset options 'piles' and 'deck' exclude each other")
            seqs = self._check_piles(piles)
            for s, seq in enumerate(seqs):
                st.piles[rows, s, : len(seq)] = seq
                st.size[rows, s] = len(seq)
                st.in_play[rows] |= _U64(sum(1 << c for c in seq))
        else:
            if deck is None:
                c = chance.permutations(rng, rows, C, "deal", np.uint8)
            else:
                c = self._check_order(deck, n)
            k = self.per_seat
            for s in range(P):
                st.piles[rows, s, :k] = c[:, s : s + P * k : P]
            st.size[rows] = k
            used = c[:, : P * k]
            st.in_play[rows] = np.bitwise_or.reduce(bit(used), axis=1)
        size = st.size[rows]
        st.saved[rows] = np.where(np.arange(C) < size[:, :, None], st.piles[rows], EMPTY)
        st.saved_size[rows] = size
        st.current_player[rows] = (size > 0).argmax(axis=1)
        return 0  # dealt in full here: no deal_one

    def _check_order(self, order, B) -> np.ndarray:
        C = self.C
        valid = f"int card ids 0..{C - 1} (a permutation), shape ({C},) or ({B}, {C})"  # B: the games dealt
        try:
            arr = np.asarray(order)
        except ValueError:  # ragged nested lists
            raise ValueError(f"reset option deck must be {valid}; got ragged lists") from None
        if arr.dtype.kind not in "iu":
            raise ValueError(f"reset option deck must be {valid}; got {arr.dtype} values of shape {arr.shape}")
        if arr.shape not in ((C,), (B, C)):  # the shapes the message states, as core.hook_ints
            raise ValueError(f"reset option deck must be {valid}; got shape {arr.shape}")
        return check_permutation("deck", np.broadcast_to(arr, (B, self.C))).astype(np.uint8)

    def _check_piles(self, piles) -> list[list[int]]:
        if not isinstance(piles, (list, tuple)) or len(piles) != self.num_players:
            raise ValueError(f"reset option piles must be a list of {self.num_players} card lists (one per seat), got {piles!r}")
        out, seen = [], set()
        for s, seq in enumerate(piles):
            if isinstance(seq, str):
                seq = seq.replace(",", " ").split()
            if not isinstance(seq, (list, tuple, np.ndarray)) or np.ndim(seq) != 1:
                raise ValueError(f"reset option piles: seat {s}'s pile must be a list of card ids or names (top first), got {seq!r}")
            ids = []
            for c in seq:
                if isinstance(c, str):
                    c = self.deck.card_id(c)  # ValueError naming the pack and its names
                elif not is_int(c):  # a bool or a float is not a card id
                    raise ValueError(
                        f"reset option piles: {c!r} in seat {s}'s pile is not a card: give card ids "
                        f"(ints 0..{self.C - 1}) or names such as {self.deck.names[-1]!r}")
                c = int(c)
                if not 0 <= c < self.C:
                    raise ValueError(f"reset option piles: card id {c} in seat {s}'s pile is out of range; card ids are 0..{self.C - 1}")
                if c in seen:
                    raise ValueError(f"reset option piles: card {self.deck.names[c]} (id {c}) appears twice")
                seen.add(c)
                ids.append(c)
            out.append(ids)
        if sum(1 for s in out if s) < 2:
            raise ValueError("reset option piles: at least two seats must hold cards")
        return out

    # ------------------------------------------------------------------ search
    def determinize(self, st: PyanitsaState, seat, rng: np.random.Generator) -> PyanitsaState:
        """A copy of ``st`` (a new state of the same batch size; ``st`` is unchanged) in which what
        ``seat`` cannot see is dealt again uniformly among the pile arrangements consistent with
        what it has seen (for PIMC search; RULES.md §7, collecting §5; what is kept and what is
        redealt: :mod:`cardzoo.envs.pyanitsa.determinize`). The result depends only on ``seat``'s
        information and ``rng``.

        ``seat``: an int (a seat of this game) or ``int[B]``, one per game; ``rng``: a
        ``numpy.random.Generator`` (all the chance). ``ValueError`` for another seat or rng
        (:meth:`~cardzoo.envs.core.kernel.Kernel.check_determinize`) or a state made for another
        game or other options."""
        from .determinize import determinize

        return determinize(self, st, self.check_determinize(st, seat, rng), rng)

    # ------------------------------------------------------------------ chance (§5 collecting the pot)
    def _chance(self, st: PyanitsaState, need: np.ndarray, rng) -> None:
        """Draw the chance the compiled step asked for (``need``: ``int64[B]`` codes) and go on."""
        if need.any():
            rows = np.flatnonzero(need == _rules.NEED_COLLECT)
            self.draw_chance(st, rows, _rules.NEED_COLLECT, rng)
            self.drivers.deal(st, rows, _rules.NEED_COLLECT, self.params)

    def draw_chance(self, st: PyanitsaState, rows: np.ndarray, code: int, rng) -> None:
        """Draw the random collection order (§5, ``collect_order="random"``; ``code`` is
        ``rules.NEED_COLLECT``) of the battles just resolved in games ``rows`` (``int64[n]``, ascending)
        into ``st.collect``; :func:`rules.deal_one` then places the pot.

        With a ``numpy.random.Generator`` (the AEC env, training), exactly the draw of the numpy kernel:
        one ``uniform`` block of kind ``"play"`` for the games whose battle was not dead, ``width = steps
        * P * m`` keys per game (``steps``: most reveals of any battle in ``rows``; ``m`` = 2 when a
        face-down card could be in it, else 1), one key per (step, seat from the winner up, face-down /
        face-up) slot; the cards go under the pile in the order of their keys.

        With a :class:`~cardzoo.envs.core.chance.RowStreams` (the arena's duplicate deals) each game
        draws ``steps * P * m`` keys for its own battle (its own ``steps`` and ``m``), so what a game
        draws, and so every later collection of that game, does not depend on the other games
        resolved in the same step (the batch size, the other deals, the other seatings). The
        batch-wide width made a deal's game change with ``--batch``.
        """
        if rows.size == 0:
            return
        N = self.num_players
        steps = int(st.battle_steps[rows].max())
        m = 2 if (self.down_up and steps > 1) else 1
        g = rows[~st.draw[rows]]
        if g.size == 0:
            return
        if isinstance(rng, chance.RowStreams):
            own = st.battle_steps[g].astype(np.int64)
            mg = np.where(self.down_up & (own > 1), 2, 1)[:, None]
            width = own * N * mg[:, 0]
            keys = np.full((g.size, int(width.max())), 3.0)
            for w in np.unique(width):
                sel = np.flatnonzero(width == w)
                keys[sel, :w] = chance.uniform(rng, g[sel], (int(w),), np.float64, "play")
        else:
            mg = np.full((g.size, 1), m)
            keys = chance.uniform(rng, g, (steps * N * m,), np.float64, "play")
        n = st.battle_n[g].astype(np.int64)
        tags = st.battle_tags[g].astype(np.int64)
        step, seat, up = tags // (2 * N), (tags % (2 * N)) // 2, tags % 2
        rel = (seat - st.winner[g].astype(np.int64)[:, None]) % N
        slot = step * N * mg + rel * mg + np.where(mg == 2, up, 0)
        valid = np.arange(self.C)[None, :] < n[:, None]
        slot = np.where(valid, slot, 0)
        key = np.where(valid, np.take_along_axis(keys, slot, axis=1), 3.0)
        order = np.lexsort((slot, key), axis=-1)
        st.collect[g] = np.take_along_axis(st.battle_cards[g], order, axis=1)

    def _keys(self, standing: np.ndarray, cont: np.ndarray) -> np.ndarray:
        """§2 comparison keys ``int16[n, P]`` of standing cards ``standing`` (``int[n, P]`` card ids) of
        the contenders ``cont`` (``bool[n, P]``), -1 elsewhere; higher wins, six over ace applied as a set
        (compiled :func:`rules.keys_batch`, the function battles use)."""
        out = np.empty(np.shape(standing), dtype=np.int16)
        _rules.keys_batch(np.asarray(standing, dtype=np.int64), np.asarray(cont, dtype=bool), self.params, out)
        return out

    def play_battle(self, st: PyanitsaState, rng: np.random.Generator) -> None:
        """Resolve one whole battle in every live game in the flip phase, as if all its active seats
        took ``FLIP`` (§4.1; the battle: §5): the fast path for simulations where nobody decides (game-length studies).

        Same rules and results as stepping ``FLIP``; rewards of the battle land in ``st.rewards``.
        """
        need = np.empty(st.batch_size, dtype=np.int64)
        _rules.play_battle_batch(self.drivers.arrays(st), self.params, need)
        self._chance(st, need, rng)

    # ------------------------------------------------------------------ end of game (§6)
    def outcome(self, returns: np.ndarray) -> np.ndarray:
        """``int8[..., P]`` outcome of each seat from its return ``float[..., P]`` (§6):

        * ``+1`` *win*: the seat is safe, someone else lost (return ``L/(N-L) > 0``);
        * ``-1`` *loss*: the seat is a loser (return ``-1``);
        * ``0`` *draw*: nobody lost (a dead battle or a truncation: every return 0).

        With two players this is the usual win/loss. With ``N`` = 3 or 4 players and one loser,
        ``N-1`` seats win; so the share of games one of ``N`` equal agents wins is ``(N-1)/N`` of
        the decided games, while the arena's pairwise win rate (A compared with each other seat:
        safe beats loser, equal fates tie) has the null ``1/2`` (:attr:`Kernel.null_win_rate`).
        """
        return np.sign(self.check_returns(returns)).astype(np.int8)

    def linear_piles(self, st: PyanitsaState, g=None) -> np.ndarray:
        """``uint8[m, P, C]`` piles top -> bottom from position 0, ``255`` past the end, for games ``g``
        (``int[m]``; default all ``B``). Hidden from every player (RULES.md §7)."""
        g = np.arange(st.batch_size) if g is None else g
        C = self.C
        j = np.arange(C)
        pos = (st.head[g][:, :, None] + j) % C
        lin = np.take_along_axis(st.piles[g], pos.astype(np.intp), axis=2)
        return np.where(j < st.size[g][:, :, None], lin, EMPTY).astype(np.uint8)

    # ------------------------------------------------------------------ views
    def piles(self, st: PyanitsaState, b: int = 0) -> list[list[int]]:
        """Each seat's pile in game ``b`` as card ids, top -> bottom (hidden from every player, RULES.md §7);
        ``ValueError`` for a game index the state has not."""
        b = self.check_game(st, b)
        lin = self.linear_piles(st, np.array([b]))[0]
        return [[int(c) for c in lin[s, : int(st.size[b, s])]] for s in range(self.num_players)]

    def hands(self, st: PyanitsaState, b: int = 0) -> list[list[int]]:
        """Nobody holds cards privately in P'yanitsa (piles are hidden from their owners too, RULES.md §7):
        one empty list per seat."""
        b = self.check_game(st, b)
        return [[] for _ in range(self.num_players)]

    def action_is_public(self, st: PyanitsaState, b: int, action: int) -> bool:
        """``FLIP`` is public; ``ORDER(card)`` (``winner_chooses``) is not: the order in which a
        winner stacks the pot under its pile is hidden from the others (§7), and with
        ``tie_mode="down_up"`` the pot holds face-down cards."""
        return self.check_public_args(st, b, action)[1] == self.FLIP

    def info(self, st: PyanitsaState, b: int = 0) -> dict:
        """Public facts (RULES.md §7): battles, pile sizes, last battle winner; at the end losers, draw
        (§6), truncation reason. ``ValueError`` for a game index the state has not."""
        b = self.check_game(st, b)
        out = {
            "battles": int(st.battles[b]),
            "pile_sizes": st.size[b].tolist(),
            "battle_winner": int(st.winner[b]),
        }
        if st.done[b]:
            out["losers"] = np.flatnonzero(st.loser[b]).tolist()
            out["draw"] = bool(st.draw[b])
        if st.truncated[b]:
            r = int(st.trunc_reason[b])
            out["truncation"] = "cycle" if r == TRUNC_CYCLE else "max_battles"
        return out
