"""P'yanitsa ("Drunkard") rules as a batched kernel.

Implements ``envs/pyanitsa/RULES.md`` (sections cited as §n): dealing (§3), the ``FLIP`` and
``ORDER`` decisions (§4), battle resolution with six-over-ace compared as a set, face-up and
down-up tie steps, ``all`` / ``tied`` participants and both run-out rules (§2, §5), the four
collection orders (§5), both objectives, draws, the battle cap and exact Brent-style cycle
detection (§6).

Piles are ordered, so they are not bitboards: each seat's pile is a circular buffer
``piles[b, seat, :]`` (``uint8``, capacity = pack size) read from ``head`` (the top) for
``size`` cards; collected cards are written after the bottom. A battle, tie steps included,
is resolved inside the ``step`` that applies the last ``FLIP``; the Python loop there runs
over tie steps (a shrinking subset of the games still tied), never over the batch.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..core.cards import FRENCH36, FRENCH52, bit, mask_to_cards, popcount, unpack_bits
from ..core import chance
from ..core.kernel import BatchState, Kernel, Layout, Option, bool_option, int_option
from . import observation as _obs
from . import render as _render

_U64 = np.uint64
FLIP_PHASE, ORDER_PHASE, OVER = 0, 1, 2
PHASE_NAMES = ("flip", "order the pot", "over")
NO_TRUNC, TRUNC_CYCLE, TRUNC_CAP = 0, 1, 2
EMPTY = 255  # unused slot of a linearised pile


@dataclasses.dataclass
class PyanitsaState(BatchState):
    """Batched P'yanitsa state: ``B`` games, ``P`` seats, pack of ``C`` cards.

    Fields beyond :class:`BatchState` (seats absolute):

    * ``piles``: ``uint8[B, P, C]`` circular buffers; the pile of seat ``s`` top -> bottom is
      ``piles[b, s, (head + j) % C]`` for ``j < size``.
    * ``head``, ``size``: ``int16[B, P]``.
    * ``phase``: ``int8[B]`` 0 flip, 1 order the pot (``winner_chooses``), 2 over.
    * ``battles``: ``int32[B]`` battles completed.
    * ``face_up``: ``uint64[B, P]`` cards each seat showed face up in the current/last battle.
    * ``n_down``: ``uint8[B, P]`` face-down cards each seat put down in that battle.
    * ``pot``: ``uint64[B]`` cards on the table not yet placed under a pile (the pot while
      ordering; the dead pot after a draw; else 0).
    * ``winner``: ``int8[B]`` winner of the last battle (-1 none / dead battle).
    * ``known``: ``int16[B, P]`` length of the bottom part of each pile that its owner placed
      itself with ``ORDER`` (§7); 0 outside ``winner_chooses``.
    * ``in_play``: ``uint64[B]`` cards of the game (all but the set-aside card, or the cards
      of a constructed test position).
    * ``saved``, ``saved_size``: ``uint8[B, P, C]``, ``int16[B, P]`` the cycle check's saved
      piles (linearised, ``255`` past the end; §6).
    * ``loser``: ``bool[B, P]``; ``draw``: ``bool[B]``; ``trunc_reason``: ``int8[B]`` (0 none,
      1 cycle, 2 max_battles); ``took_part``: ``bool[B, P]`` seats active in the last battle.
    """

    piles: np.ndarray
    head: np.ndarray
    size: np.ndarray
    phase: np.ndarray
    battles: np.ndarray
    face_up: np.ndarray
    n_down: np.ndarray
    pot: np.ndarray
    winner: np.ndarray
    known: np.ndarray
    in_play: np.ndarray
    saved: np.ndarray
    saved_size: np.ndarray
    loser: np.ndarray
    draw: np.ndarray
    trunc_reason: np.ndarray
    took_part: np.ndarray


class PyanitsaKernel(Kernel):
    """Batched P'yanitsa (``RULES.md``).

    Options (``RULES.md`` §8; a bad value raises ``ValueError`` naming the valid values):

    ==================  ===========================================================  ======================
    option              values                                                       default
    ==================  ===========================================================  ======================
    ``num_players``     2, 3, 4 (``n_players``: deprecated alias, warns)             2
    ``objective``       ``"last_holder_loses"``, ``"first_out_loses"``               ``"last_holder_loses"``
    ``tie_mode``        ``"face_up"``, ``"down_up"``                                 ``"face_up"``
    ``tie_players``     ``"all"``, ``"tied"``                                        ``"all"``
    ``runout``          ``"last_card_stands"``, ``"forfeit"``                        ``"last_card_stands"``
    ``six_beats_ace``   bool                                                         True
    ``collect_order``   ``"winner_first"``, ``"seat_order"``, ``"random"``,
                        ``"winner_chooses"``                                         ``"winner_first"``
    ``deck``            36, 52                                                       36
    ``max_battles``     int 1..65535                                                 5000
    ``detect_cycles``   bool                                                         True
    ==================  ===========================================================  ======================

    Actions: ``Discrete(C + 1)``: ``ORDER(card)`` for card ids ``0..C-1`` (``9*suit + rank`` for
    36 cards, ``13*suit + rank`` for 52), ``FLIP`` = ``C``.
    """

    name = "pyanitsa"
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
        "max_battles": int_option(5000, 1, 65535),  # bounded: the battle count is two uint8 in the observation
        "detect_cycles": bool_option(True),
    }
    INIT_HOOKS = ("piles", "deck")
    DEPRECATED_OPTIONS = {"n_players": "num_players"}  # PettingZoo classic envs say num_players

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
        # the card value used in comparisons before six-over-ace: rank index
        self.rank_of = (np.arange(256) % self.n_ranks).astype(np.int16)
        self.choose = o["collect_order"] == "winner_chooses"
        self.cycles = o["detect_cycles"] and o["collect_order"] in ("winner_first", "seat_order")
        self.variant2 = o["objective"] == "first_out_loses"
        self.down_up = o["tie_mode"] == "down_up"
        self.forfeit = o["runout"] == "forfeit"
        self.all_tie = o["tie_players"] == "all"
        self.per_seat = self.C // self.num_players
        self._bit1 = np.concatenate([[_U64(0)], bit(np.arange(self.C))]).astype(_U64)  # card + 1 -> bitboard
        self._obs_layout = _obs.observation_layout(self)
        self._state_layout = _obs.state_layout(self)

    # ------------------------------------------------------------------ layouts
    @property
    def obs_layout(self) -> Layout:
        return self._obs_layout

    @property
    def state_layout(self) -> Layout:
        return self._state_layout

    @property
    def max_episode_steps(self) -> int:
        """Agent steps bound: per battle at most one ``FLIP`` per seat and ``C - 1`` ``ORDER`` choices."""
        per_battle = self.num_players + (self.C - 1 if self.choose else 0)
        return self.options["max_battles"] * per_battle

    # ------------------------------------------------------------------ names
    def action_name(self, action: int) -> str:
        """``"ORDER(KS)"`` for card ids ``0..C-1``, ``"FLIP"`` for ``C``; ``ValueError`` otherwise."""
        if not isinstance(action, (int, np.integer)) or isinstance(action, (bool, np.bool_)):
            raise ValueError(f"action must be an int id 0..{self.num_actions - 1}, got {action!r}")
        a = int(action)
        if 0 <= a < self.C:
            return f"ORDER({self.deck.names[a]})"
        if a == self.FLIP:
            return "FLIP"
        raise ValueError(f"action {action!r} is out of range; valid ids are 0..{self.num_actions - 1}")

    def action_id(self, name: str) -> int:
        """Inverse of :meth:`action_name`; also accepts a bare card name (``"KS"`` = ``ORDER(KS)``)."""
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
    def init(self, rng: np.random.Generator, batch: int, *, piles=None, deck=None) -> PyanitsaState:
        """Shuffle and deal ``batch`` games (§3).

        Test hooks:
            deck: ``int[C]`` or ``int[B, C]`` shuffled pack (``c[0..C-1]``, position 0 first) instead
                of a shuffle (the name the arena's duplicate deals use; not the ``deck`` option).
            piles: a list of ``P`` lists of card ids or names (each top -> bottom), the same
                position for every game; cards in no pile are out of play. At least two
                piles must hold cards.

        Raises ``ValueError`` for a hook that is not a permutation / not valid piles.
        """
        B, P, C = int(batch), self.num_players, self.C
        z = lambda dt, *shape: np.zeros((B, *shape), dtype=dt)  # noqa: E731
        st = PyanitsaState(
            current_player=z(np.int8),
            done=z(bool),
            truncated=z(bool),
            rewards=z(np.float32, P),
            piles=z(np.uint8, P, C),
            head=z(np.int16, P),
            size=z(np.int16, P),
            phase=z(np.int8),
            battles=z(np.int32),
            face_up=z(_U64, P),
            n_down=z(np.uint8, P),
            pot=z(_U64),
            winner=np.full(B, -1, dtype=np.int8),
            known=z(np.int16, P),
            in_play=z(_U64),
            saved=np.full((B, P, C), EMPTY, dtype=np.uint8),
            saved_size=z(np.int16, P),
            loser=z(bool, P),
            draw=z(bool),
            trunc_reason=z(np.int8),
            took_part=z(bool, P),
        )
        if piles is not None:
            if deck is not None:
                raise ValueError("reset options 'piles' and 'deck' exclude each other")
            seqs = self._check_piles(piles)
            for s, seq in enumerate(seqs):
                st.piles[:, s, : len(seq)] = seq
                st.size[:, s] = len(seq)
                st.in_play |= _U64(sum(1 << c for c in seq))
        else:
            if deck is None:
                c = chance.uniform(rng, B, (C,), np.float32, "deal").argsort(axis=1).astype(np.uint8)
            else:
                c = self._check_order(deck, B)
            n = self.per_seat
            for s in range(P):
                st.piles[:, s, :n] = c[:, s : s + P * n : P]
            st.size[:] = n
            used = c[:, : P * n]
            st.in_play[:] = np.bitwise_or.reduce(bit(used), axis=1)
        st.saved[:] = np.where(np.arange(C) < st.size[:, :, None], st.piles, EMPTY)
        st.saved_size[:] = st.size
        st.current_player[:] = (st.size > 0).argmax(axis=1)
        return st

    def _check_order(self, order, B) -> np.ndarray:
        arr = np.asarray(order)
        if arr.dtype.kind not in "iu" or arr.shape[-1:] != (self.C,) or arr.ndim > 2:
            raise ValueError(f"reset option deck must be int[{self.C}] or int[B, {self.C}], got shape {arr.shape}")
        arr = np.broadcast_to(arr, (B, self.C))
        if not (np.sort(arr, axis=1) == np.arange(self.C)).all():
            raise ValueError(f"reset option deck must be a permutation of the card ids 0..{self.C - 1}")
        return arr.astype(np.uint8)

    def _check_piles(self, piles) -> list[list[int]]:
        if not isinstance(piles, (list, tuple)) or len(piles) != self.num_players:
            raise ValueError(f"reset option piles must be a list of {self.num_players} card lists (one per seat), got {piles!r}")
        out, seen = [], set()
        for seq in piles:
            if isinstance(seq, str):
                seq = seq.replace(",", " ").split()
            ids = [self.deck.card_id(c) if isinstance(c, str) else int(c) for c in seq]
            for c in ids:
                if not 0 <= c < self.C or c in seen:
                    raise ValueError(f"reset option piles: card {c} is out of range or appears twice")
                seen.add(c)
            out.append(ids)
        if sum(1 for s in out if s) < 2:
            raise ValueError("reset option piles: at least two seats must hold cards")
        return out

    # ------------------------------------------------------------------ legal actions (§4)
    def legal_bitboard(self, st: PyanitsaState) -> np.ndarray:
        """Legal actions as ``uint64[B]`` bitboards (bit ``a`` set = action ``a`` legal)."""
        flip = _U64(1 << self.FLIP)
        out = np.where(st.phase == FLIP_PHASE, flip, np.where(st.phase == ORDER_PHASE, st.pot, _U64(0)))
        return np.where(st.done, _U64(0), out)

    def determinize(self, st: PyanitsaState, seat, rng: np.random.Generator) -> PyanitsaState:
        """A copy of ``st`` with the pile cards ``seat`` cannot know dealt again uniformly among the
        arrangements consistent with what it has seen (for PIMC search;
        :mod:`cardzoo.envs.pyanitsa.determinize`)."""
        from .determinize import determinize

        return determinize(self, st, seat, rng)

    def legal_actions(self, st: PyanitsaState) -> np.ndarray:
        """Action mask ``bool[B, C + 1]`` (§4): ``FLIP`` only, or the pot cards while ordering."""
        return unpack_bits(self.legal_bitboard(st)[:, None], self.num_actions)[:, 0].view(bool)

    def check_actions(self, st: PyanitsaState, actions) -> None:
        """Raise ``ValueError`` if any live game's action is illegal (names the action and the legal ones)."""
        actions = np.asarray(actions, dtype=np.int64)
        legal = self.legal_bitboard(st)
        ok = (actions >= 0) & (actions < self.num_actions)
        ok &= (legal >> np.clip(actions, 0, 63).astype(_U64)) & _U64(1) == 1
        bad = np.flatnonzero(~ok & ~st.done)
        if bad.size:
            b = int(bad[0])
            a = int(actions[b])
            name = self.action_name(a) if 0 <= a < self.num_actions else repr(a)
            legal_names = [self.action_name(x) for x in mask_to_cards(legal[b])]
            raise ValueError(f"illegal action {name} in game {b} for seat {st.current_player[b]}; legal: {legal_names}")

    # ------------------------------------------------------------------ step
    def step(self, st: PyanitsaState, actions, rng: np.random.Generator, active=None) -> None:
        """Apply ``actions`` (``int[B]``, legal; unchecked here, see :meth:`check_actions`) and
        advance every game to its next decision (§4-§6).

        A ``FLIP`` passes the turn to the next active seat; the last one resolves the whole battle,
        collects the pot (or opens the ``ORDER`` phase) and checks the end of the game. ``active``
        (``bool[B]``) restricts the step to those games. Rewards land in ``st.rewards``.
        """
        st.rewards[:] = 0
        live = ~st.done if active is None else active & ~st.done
        phase = st.phase
        if self.choose:
            o = np.flatnonzero(live & (phase == ORDER_PHASE))
            if o.size:
                self._order(st, o, np.asarray(actions)[o].astype(np.int64))
            f = live & (phase == FLIP_PHASE)
            f[o] = False
        else:
            f = live
        if not f.any():
            return
        P = self.num_players
        cur = st.current_player.astype(np.int64)
        seats = np.arange(P)
        nxt_ok = (st.size > 0) & (seats > cur[:, None])
        has_next = nxt_ok.any(axis=1)
        st.current_player[:] = np.where(f & has_next, nxt_ok.argmax(axis=1), st.current_player)
        resolve = np.flatnonzero(f & ~has_next)
        if resolve.size:
            self._battle(st, resolve, rng)

    def play_battle(self, st: PyanitsaState, rng: np.random.Generator) -> None:
        """Resolve one whole battle in every live game in the flip phase, as if all its active seats
        took ``FLIP`` (§4.1): the fast path for simulations where nobody decides (game-length studies).

        Same rules and results as stepping ``FLIP``; rewards of the battle land in ``st.rewards``.
        """
        st.rewards[:] = 0
        idx = np.flatnonzero(~st.done & (st.phase == FLIP_PHASE))
        if idx.size:
            self._battle(st, idx, rng)

    # ------------------------------------------------------------------ battle (§5)
    def _pop(self, st, g, s):
        """Pop the top card of seats ``s`` in games ``g`` (each holding one); returns ``int16`` cards."""
        h = st.head[g, s]
        card = st.piles[g, s, h].astype(np.int16)
        st.head[g, s] = (h + 1) % self.C
        st.size[g, s] -= 1
        return card

    def _keys(self, standing: np.ndarray, cont: np.ndarray) -> np.ndarray:
        """Comparison keys ``int16[n, P]`` of the standing cards of the contenders (§2); -1 elsewhere."""
        r = np.where(cont, self.rank_of[np.maximum(standing, 0)], -1)
        if self.options["six_beats_ace"]:
            low = cont & (r == 0)
            flip = (r == self.top_rank).any(axis=1) & low.any(axis=1)
            r = np.where(low & flip[:, None], self.top_rank + 1, r)
        return r

    def _battle(self, st: PyanitsaState, idx: np.ndarray, rng) -> None:
        """Resolve one battle in games ``idx`` (all active seats have flipped), tie steps included."""
        P, n = self.num_players, idx.size
        rows = idx[:, None]
        active = st.size[idx] > 0  # [n, P]
        st.took_part[idx] = active
        # first reveal
        ups = [np.full((n, P), -1, dtype=np.int16)]
        downs = []
        gi, si = np.nonzero(active)
        ups[0][gi, si] = self._pop(st, idx[gi], si)
        standing = ups[0].copy()
        cont = active.copy()
        result = np.full(n, -2, dtype=np.int64)  # winner seat, -1 dead, -2 undecided
        u = np.arange(n)  # undecided games (indices into idx)
        first = True
        while u.size:
            key = self._keys(standing[u], cont[u])
            best = key.max(axis=1)
            top = key == best[:, None]
            ntop = top.sum(axis=1)
            if not first and self.forfeit:
                ncont = cont[u].sum(axis=1)
                one = ncont == 1
                result[u[one]] = cont[u[one]].argmax(axis=1)
                none = ncont == 0
                result[u[none]] = -1
                settled = one | none
            else:
                settled = np.zeros(u.size, dtype=bool)
            win = ~settled & (ntop == 1)
            result[u[win]] = top[win].argmax(axis=1)
            tie = ~settled & ~win
            u, top = u[tie], top[tie]
            if not u.size:
                break
            first = False
            # tie step: who takes part (§5.2)
            if not self.all_tie:
                cont[u] = top
            part = cont[u]
            g = idx[u]
            sz = st.size[g]  # [m, P]
            up = np.full((n, P), -1, dtype=np.int16)
            down = np.full((n, P), -1, dtype=np.int16)
            need = 2 if self.down_up else 1
            full = part & (sz >= need)
            if self.down_up:
                gi, si = np.nonzero(full)
                down[u[gi], si] = self._pop(st, g[gi], si)
                if not self.forfeit:  # a last single card is played face up (§5.3)
                    full = full | (part & (sz == 1))
            gi, si = np.nonzero(full)
            up[u[gi], si] = self._pop(st, g[gi], si)
            if self.forfeit:
                cont[u] = cont[u] & ~(part & ~full)
            ups.append(up)
            downs.append(down)
            added = full.any(axis=1)
            standing[u[gi], si] = up[u[gi], si]
            dead = ~added
            result[u[dead]] = -1
            u = u[~dead]
        # record the battle (public: face-up cards and face-down counts per seat)
        U = np.stack(ups, axis=1)  # [n, S, P]
        b1 = self._bit1
        fu = b1[U[:, 0] + 1] if len(ups) == 1 else np.bitwise_or.reduce(b1[U + 1], axis=1)
        st.face_up[idx] = fu
        pot = np.bitwise_or.reduce(fu, axis=1)
        if downs and self.down_up:
            D = np.stack([np.full((n, P), -1, dtype=np.int16)] + downs, axis=1)
            st.n_down[idx] = (D >= 0).sum(axis=1)
            pot |= np.bitwise_or.reduce(b1[D + 1].reshape(n, -1), axis=1)
        else:
            D = None
            st.n_down[idx] = 0
        st.battles[idx] += 1
        winner = result
        st.winner[idx] = np.where(winner >= 0, winner, -1)
        dead = winner < 0
        # dead battle: the game is a draw (§5.5, §6); the pot stays on the table
        d = idx[dead]
        if d.size:
            st.pot[d] = pot[dead]
            st.done[d] = True
            st.draw[d] = True
            st.phase[d] = OVER
        ok = ~dead
        if not ok.any():
            return
        g, w = idx[ok], winner[ok]
        U, pot = U[ok], pot[ok]
        D = None if D is None else D[ok]
        k = popcount(pot).astype(np.int16)
        # end of game is checked first: pile sizes do not depend on the order (§4.2, §6)
        size_after = st.size[g].copy()
        size_after[np.arange(g.size), w] += k
        ended = self._check_end(st, g, size_after)
        cap = ~ended & (st.battles[g] >= self.options["max_battles"])
        if self.choose:
            # the winner orders the pot unless the game ends now (or the cap cuts it off, §12.2)
            auto = ended | cap
            o = ~auto
            if o.any():
                go = g[o]
                st.pot[go] = pot[o]
                st.phase[go] = ORDER_PHASE
                st.current_player[go] = w[o]
            if auto.any():
                self._collect(st, g[auto], w[auto], U[auto], None if D is None else D[auto], w[auto], rng, order="winner_first")
        else:
            start = w if self.options["collect_order"] != "seat_order" else np.zeros_like(w)
            self._collect(st, g, w, U, D, start, rng, order=self.options["collect_order"])
        st.known[g] = np.minimum(st.known[g], st.size[g])
        if cap.any():
            self._truncate(st, g[cap], TRUNC_CAP)
        cont_g = g[~ended & ~cap]
        if self.cycles and cont_g.size:
            self._cycle_check(st, cont_g)
        nxt = g[~ended & ~cap]
        if self.choose:
            nxt = nxt[st.phase[nxt] == FLIP_PHASE]
        nxt = nxt[~st.done[nxt]]
        st.current_player[nxt] = (st.size[nxt] > 0).argmax(axis=1)

    def _collect(self, st, g, w, U, D, start, rng, order) -> None:
        """Place the pot under the winners' piles (§5 Collecting the pot).

        ``U``, ``D``: ``int16[m, S, P]`` face-up / face-down card of each seat at each step (-1 none;
        ``D`` may be ``None`` when no card went face down).
        Order: steps in time order; seats from ``start`` upwards; face-down before face-up.
        """
        P, C = self.num_players, self.C
        m, S, _ = U.shape
        rot = (start[:, None] + np.arange(P)) % P  # [m, P]
        Ur = np.take_along_axis(U, rot[:, None, :], axis=2)
        if D is None:  # no face-down cards: time order, then seats from ``start``
            seq = Ur.reshape(m, S * P)
        else:
            Dr = np.take_along_axis(D, rot[:, None, :], axis=2)
            seq = np.stack([Dr, Ur], axis=3).reshape(m, S * P * 2)
        valid = seq >= 0
        if order == "random":
            keys = np.where(valid, chance.uniform(rng, g, seq.shape[1:], np.float64, "play"), 2.0)
            perm = keys.argsort(axis=1, kind="stable")
            seq = np.take_along_axis(seq, perm, axis=1)
            valid = np.take_along_axis(valid, perm, axis=1)
        rank = valid.cumsum(axis=1) - 1
        gi, j = np.nonzero(valid)
        ww = w[gi]
        pos = (st.head[g[gi], ww].astype(np.int64) + st.size[g[gi], ww] + rank[gi, j]) % C
        st.piles[g[gi], ww, pos] = seq[gi, j]
        st.size[g, w] += valid.sum(axis=1).astype(np.int16)
        st.pot[g] = 0

    def _order(self, st, g, card) -> None:
        """``ORDER(card)`` (§4.2): put ``card`` under the winner's pile; the last pot card follows itself."""
        w = st.current_player[g].astype(np.int64)
        self._append(st, g, w, card)
        st.pot[g] ^= bit(card)
        last = popcount(st.pot[g]) == 1
        if last.any():
            gl, wl = g[last], w[last]
            c = np.log2(st.pot[gl].astype(np.float64)).astype(np.int64)  # the one remaining bit
            self._append(st, gl, wl, c)
            st.pot[gl] = 0
            st.phase[gl] = FLIP_PHASE
            st.current_player[gl] = (st.size[gl] > 0).argmax(axis=1)

    def _append(self, st, g, w, card) -> None:
        pos = (st.head[g, w].astype(np.int64) + st.size[g, w]) % self.C
        st.piles[g, w, pos] = card
        st.size[g, w] += 1
        st.known[g, w] += 1

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
        return np.sign(np.asarray(returns, dtype=np.float64)).astype(np.int8)

    def _check_end(self, st, g, size_after) -> np.ndarray:
        """Apply the objective to games ``g`` after their battle; returns ``bool[m]`` ended (rewards set)."""
        has = size_after > 0
        if self.variant2:
            losers = st.took_part[g] & ~has
        else:
            losers = has & (has.sum(axis=1) == 1)[:, None]
        end = losers.any(axis=1)
        e = g[end]
        if e.size:
            lo = losers[end]
            L = lo.sum(axis=1, keepdims=True).astype(np.float32)
            W = self.num_players - L
            st.rewards[e] = np.where(lo, -1.0, L / W)
            st.loser[e] = lo
            st.done[e] = True
            st.phase[e] = OVER
        return end

    def _truncate(self, st, g, reason) -> None:
        st.done[g] = True
        st.truncated[g] = True
        st.trunc_reason[g] = reason
        st.phase[g] = OVER
        st.rewards[g] = 0

    def linear_piles(self, st: PyanitsaState, g=None) -> np.ndarray:
        """``uint8[m, P, C]`` piles top -> bottom from position 0, ``255`` past the end (games ``g``)."""
        g = np.arange(st.batch_size) if g is None else g
        C = self.C
        j = np.arange(C)
        pos = (st.head[g][:, :, None] + j) % C
        lin = np.take_along_axis(st.piles[g], pos.astype(np.intp), axis=2)
        return np.where(j < st.size[g][:, :, None], lin, EMPTY).astype(np.uint8)

    def _cycle_check(self, st, g) -> None:
        """Brent-style exact cycle check after a battle (§6): compare with the saved piles,
        truncate on equality, save the piles when the battle count is a power of two."""
        same = (st.size[g] == st.saved_size[g]).all(axis=1)
        c = g[same]
        if c.size:  # cheap filter first: the top card of every non-empty pile
            sz = st.size[c]
            top = np.take_along_axis(st.piles[c], st.head[c][:, :, None].astype(np.intp), axis=2)[:, :, 0]
            c = c[((top == st.saved[c][:, :, 0]) | (sz == 0)).all(axis=1)]
        if c.size:
            eq = (self.linear_piles(st, c) == st.saved[c]).all(axis=(1, 2))
            if eq.any():
                self._truncate(st, c[eq], TRUNC_CYCLE)
        t = st.battles[g]
        pw = (t & (t - 1)) == 0
        s = g[pw & ~st.done[g]]
        if s.size:
            st.saved[s] = self.linear_piles(st, s)
            st.saved_size[s] = st.size[s]

    # ------------------------------------------------------------------ observations (§7)
    def observe(self, st: PyanitsaState, seat) -> np.ndarray:
        """Observation ``uint8[B, D]`` of ``seat`` (int or ``int[B]``); layout :attr:`obs_layout`."""
        return _obs.observe(self, st, seat)

    def global_state(self, st: PyanitsaState) -> np.ndarray:
        """Perfect-information vector ``uint8[B, S]`` (every pile in order) for centralised critics."""
        return _obs.global_state(self, st)

    # ------------------------------------------------------------------ views
    def piles(self, st: PyanitsaState, b: int = 0) -> list[list[int]]:
        """Each seat's pile in game ``b`` as card ids, top -> bottom (hidden from every player)."""
        lin = self.linear_piles(st, np.array([b]))[0]
        return [[int(c) for c in lin[s, : int(st.size[b, s])]] for s in range(self.num_players)]

    def hands(self, st: PyanitsaState, b: int = 0) -> list[list[int]]:
        """Nobody holds cards privately in P'yanitsa (piles are hidden from their owners too): empty lists."""
        return [[] for _ in range(self.num_players)]

    def render(self, st: PyanitsaState, b: int = 0, view=None) -> str:
        """Text table of game ``b``: ``view`` None/seat = public (+ that seat's pot while it orders), ``"all"`` = every pile."""
        return _render.render(self, st, b, view)

    def table_view(self, st: PyanitsaState, b: int, seat: int) -> dict:
        """What ``seat`` sees in game ``b`` as JSON-able data (contract: :meth:`Kernel.table_view`;
        details: :func:`cardzoo.envs.pyanitsa.render.table_view`): pile sizes, the last battle, the pot
        while ``seat`` orders it; never a pile's content."""
        return _render.table_view(self, st, b, self.check_seat(seat))

    def action_is_public(self, st: PyanitsaState, b: int, action: int) -> bool:
        """``FLIP`` is public; ``ORDER(card)`` (``winner_chooses``) is not: the order in which a
        winner stacks the pot under its pile is hidden from the others (§7), and with
        ``tie_mode="down_up"`` the pot holds face-down cards."""
        return int(action) == self.FLIP

    def info(self, st: PyanitsaState, b: int = 0) -> dict:
        """Public facts: battles, pile sizes, last battle winner; at the end losers, draw, truncation reason."""
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
