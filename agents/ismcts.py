"""Single-observer information-set MCTS (SO-ISMCTS) over any kernel that can ``determinize``.

Cowling, Powley & Whitehouse (2012), *Information Set Monte Carlo Tree Search*, IEEE TCIAIG 4(2),
algorithm 2 (SO-ISMCTS). One tree per decision, over the information of the seat to act (the
*searcher*): a node is the sequence of actions taken from the root, whoever took them, so
opponents' nodes are shared by every determinization that reaches them. Each iteration

1. draws a determinization of the root for the searcher (:meth:`~cardzoo.envs.core.kernel.Kernel.determinize`);
2. descends the tree, at each node choosing among the actions legal *in this determinization*
   by UCB1 with availability counts (``mean + c * spread * sqrt(ln(available) / visits)``, the
   mean from the chooser's side: the searcher's side maximizes its return, the other side
   minimizes it; ``available`` counts the iterations in which the action was legal at that node);
3. expands one action legal here and not yet in the tree: the rollout agent's own choice first
   (``guided=True``, the default: with few visits the tree follows the rule bot, as PIMC's
   rollouts do), else uniformly at random among them (``guided=False``, the paper's rule);
4. plays the episode out with the rollout agent in every seat (PIMC's rollout,
   :meth:`cardzoo.agents.search.PIMCSearch._rollout`: the rule bot, compiled where it has
   ``play_out``);
5. backs up the searcher's return from the root decision on (the sum of the kernel's rewards to
   the searcher's seat, as PIMC's q-values), to every edge on the path.

The move played is the root action with the most visits. ``spread`` scales the exploration to the
game's units: the range of the returns seen so far in this search (``hi - lo``).

Speed: the iterations run in *waves* of ``wave`` iterations per game, for all games of the batch
together: one ``determinize`` call per wave, one ``kernel.step`` call per tree level, and one
batched rollout per wave. Within a wave the iterations descend with *virtual loss*: an edge taken
by an earlier iteration of the wave counts as visited with the worst return seen so far (from its
chooser's side) until the wave backs up, so the wave's iterations spread over the tree as
sequential ones would. ``wave=1`` is the plain sequential algorithm.

``others="rollout"`` (not SO-ISMCTS; default ``"search"``) lets the rollout agent choose for every
seat but the searcher's inside the tree too: the tree then searches only the searcher's own
decisions, against PIMC's model of the other seats.

Like PIMC it reads the game state and sees only what ``determinize`` keeps (the searcher's
information); episodes must end with the deal. The four-seat games have two sides, so minimizing
the searcher's return is the opponents' best reply; P'yanitsa with 3 or 4 players has a side per
seat (``kernel.sides()``) and is not zero-sum between two sides (RULES.md §6 there): every other
seat is then taken to minimize the searcher's return (a paranoid model, not their own interest).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .base import Agent
from .search import PIMCAgent, PIMCSearch, check_count, check_flag, check_number

__all__ = ["ISMCTSAgent", "ISMCTSSearch"]


@njit(cache=True)
def _select(nd, legal, pref, fixed, mine, vloss, scale, u, tie, widen, child, N, W, AV, n_nodes, acts, expand):
    """One tree level of a wave, its rows one after another (the order of the wave's iterations).

    Row ``i`` stands at node ``nd[i]`` with legal actions ``legal[i]`` (``bool[A]``). If one of them
    has no child yet, it expands one (the ``u[i]``-quantile among those: uniform), making node
    ``n_nodes`` (then ``n_nodes + 1``, ...); else it takes the legal edge of highest UCB1 with
    availability, ``sign * W/N + scale[i] * sqrt(ln(max(AV - 1, 1)) / N)`` (``AV - 1``: the
    iterations before this one in which the edge was legal here; ``sign`` +1 where the chooser is
    on the searcher's side, ``mine[i]``, else -1; ties broken by ``tie[i]``). Either way every legal edge already
    in the tree gains one availability, and the edge taken gains one visit and the virtual return
    ``vloss[i]`` (replaced by the real return at back-up), so later rows see it. Where ``fixed[i]``
    (a seat the rollout agent plays in the tree) the edge taken is ``pref[i]``, its node made if
    new; elsewhere an expansion takes ``pref[i]`` first if it is legal and untried. With
    ``widen > 0`` a node that has ``k`` legal children after ``n`` visits expands only while
    ``k < widen * sqrt(n)`` (progressive widening). Writes
    ``acts[i]``, ``expand[i]``; returns the new node count."""
    A = legal.shape[1]
    for i in range(nd.shape[0]):
        v = nd[i]
        n_untried = 0
        n_tried = 0
        visits = 0.0
        for a in range(A):
            visits += N[v, a]
            if legal[i, a]:
                if child[v, a] < 0:
                    n_untried += 1
                else:
                    n_tried += 1
        if widen > 0 and n_tried > 0 and n_tried >= widen * np.sqrt(visits):
            n_untried = 0  # progressive widening: no new child yet, choose among the legal ones made
        best = -1
        if fixed[i]:  # a seat played by the rollout agent inside the tree too: its move, no choice
            best = pref[i]
            expand[i] = child[v, best] < 0
            if expand[i]:
                child[v, best] = n_nodes
                n_nodes += 1
        elif n_untried > 0:
            pick = min(int(u[i] * n_untried), n_untried - 1)
            p = pref[i]
            if p >= 0 and legal[i, p] and child[v, p] < 0:
                best = p
            for a in range(A):
                if best >= 0:
                    break
                if legal[i, a] and child[v, a] < 0:
                    if pick == 0:
                        best = a
                        break
                    pick -= 1
            for a in range(A):
                if legal[i, a] and child[v, a] >= 0:
                    AV[v, a] += 1.0
            child[v, best] = n_nodes
            n_nodes += 1
            AV[v, best] += 1.0
            expand[i] = True
        else:
            sign = 1.0 if mine[i] else -1.0
            top = -np.inf
            for a in range(A):
                if legal[i, a] and child[v, a] >= 0:
                    AV[v, a] += 1.0
                    score = sign * W[v, a] / N[v, a] + scale[i] * np.sqrt(np.log(max(AV[v, a] - 1.0, 1.0)) / N[v, a])
                    if score > top or (score == top and tie[i, a] > tie[i, best]):
                        top = score
                        best = a
            expand[i] = False
        acts[i] = best
        N[v, best] += 1.0
        W[v, best] += vloss[i]
    return n_nodes


class ISMCTSSearch(PIMCSearch):
    """SO-ISMCTS with rollouts (see the module docstring); a :class:`PIMCSearch` whose decisions
    come from a tree search instead of one rollout per (determinization, action).

    Args:
        kernel: a batched kernel with ``determinize`` whose episodes end with the deal.
        rollout: the :class:`~cardzoo.agents.base.Agent` that plays every seat in the rollouts
            (the game's rule bot; its compiled ``play_out`` is used where it has one).
        n_iter: iterations (determinization, descent, expansion, rollout) per decision, >= 1.
        wave: iterations run together per game (batched, with virtual loss), >= 1.
        c: UCB1 exploration constant (>= 0), in units of the spread of the returns seen.
        seed: seeds the determinizations, the expansions, the tie-breaks and the rollouts' chance.
        max_games: decisions searched at once (the tree arrays take about
            ``max_games * (n_iter + 1) * num_actions * 28`` bytes).
        search: as :class:`PIMCSearch` (``"all"``, ``"phase"``, ``"cards"``).
        guided: expand the rollout agent's move first at a new node (else a random untried one).
        others: ``"search"`` (SO-ISMCTS: every seat chooses by UCB in the tree) or ``"rollout"``
            (the other seats play the rollout agent's move in the tree too).
        shared: one determinization per game for all the iterations of a wave (their returns
            are then compared on the same deal, like PIMC's common random numbers; still a
            uniform determinization per iteration) instead of one per iteration.
        widen: progressive widening (> 0): a node expands a new action only while its legal
            children number fewer than ``widen * sqrt(visits)``; 0 (default): the paper's rule,
            every legal untried action is expanded before UCB chooses.

    Raises:
        ValueError: ``n_iter``, ``wave`` or ``max_games`` that is not an int >= 1, a ``c`` or ``widen``
        that is not a finite number >= 0, a ``guided`` or ``shared`` that is not a bool, an unknown
        ``search`` or ``others``, and what :class:`~cardzoo.agents.search.PIMCSearch` refuses (a bad
        ``seed``, ``kernel`` or ``rollout``, a kernel in match mode).
    """

    OTHERS = ("search", "rollout")

    def __init__(self, kernel, rollout: Agent, n_iter: int = 64, wave: int = 8, c: float = 0.7, seed=None,
                 max_games: int = 64, search: str = "all", guided: bool = True, others: str = "search",
                 shared: bool = False, widen: float = 0.0) -> None:
        if others not in self.OTHERS:
            raise ValueError(f"others must be one of {self.OTHERS}, got {others!r}")
        # ints, numbers and flags as such: n_iter=2.5 was cut to 2, c="x" raised float()'s own message and
        # guided="no" was true
        n_iter, wave, max_games = (check_count(name, v) for name, v in (("n_iter", n_iter), ("wave", wave), ("max_games", max_games)))
        c = check_number("c (the exploration constant)", c)
        widen = check_number("widen", widen, " (0: expand every legal action before choosing)")
        guided, shared = check_flag("guided", guided), check_flag("shared", shared)
        super().__init__(kernel, rollout, n_det=1, seed=seed, search=search)
        self.n_iter, self.wave, self.c, self.max_games = n_iter, wave, c, max_games
        self.guided = guided
        self.others = others
        self.shared = shared
        self.widen = widen
        mode = "" if search == "all" else "-" + search
        self.name = f"ismcts{self.n_iter}{mode}({getattr(rollout, 'name', 'rollout')})"
        sides = kernel.sides()
        self._side = np.empty(kernel.num_players, dtype=np.int64)
        for i, seats in enumerate(sides):
            self._side[seats] = i
        #: root visit counts ``float64[B, A]`` of the last :meth:`q_values` call (0 where never taken)
        self.visits: np.ndarray | None = None

    # ------------------------------------------------------------------ the search
    def q_values(self, state) -> np.ndarray:
        """Mean return of each root action over the iterations that took it, ``float64[B, A]``
        (NaN where illegal or never taken); the visit counts are left in :attr:`visits`.

        ``state``: a batch of live games, each waiting for a decision. Units: the game's reward
        for the acting seat (its side's), as :meth:`PIMCSearch.q_values`."""
        B = state.batch_size
        A = self.kernel.num_actions
        n = np.zeros((B, A))
        w = np.zeros((B, A))
        for s in range(0, B, self.max_games):
            rows = np.arange(s, min(B, s + self.max_games))
            n[rows], w[rows] = self._search(state.take(rows))
        self.visits = n
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n > 0, w / np.maximum(n, 1), np.nan)

    def _best(self, state) -> np.ndarray:
        """The root action with the most visits (ties: the higher mean), ``int64[B]``."""
        q = self.q_values(state)
        n = self.visits
        key = np.where(n > 0, n + 1e-9 * np.tanh(np.nan_to_num(q)), -np.inf)
        return np.argmax(key, axis=1).astype(np.int64)

    def _search(self, root) -> tuple[np.ndarray, np.ndarray]:
        """Run ``n_iter`` iterations for each game of ``root``; ``(visits, total return)`` of the
        root's edges, each ``float64[B, A]``."""
        k, rng = self.kernel, self.rng
        B, A = root.batch_size, k.num_actions
        me = root.current_player.astype(np.int64)
        my_side = self._side[me]
        cap = B * (self.n_iter + 1)
        child = np.full((cap, A), -1, dtype=np.int32)
        N = np.zeros((cap, A))  # visits of each edge (virtual ones included during a wave)
        W = np.zeros((cap, A))  # total searcher's return through each edge
        AV = np.zeros((cap, A))  # availability: iterations in which the edge's action was legal there
        n_nodes = B  # the roots are nodes 0..B-1
        lo = np.zeros(B)  # range of the returns seen per game: virtual loss and exploration scale
        hi = np.zeros(B)
        seen = np.zeros(B, dtype=bool)
        done_iter = 0
        while done_iter < self.n_iter:
            K = min(self.wave, self.n_iter - done_iter)
            done_iter += K
            games = np.repeat(np.arange(B), K)
            R = games.size
            if self.shared:  # one determinization per game and wave: the wave's iterations compare on it
                sims = k.determinize(root, me, rng).take(games)
            else:
                sims = k.determinize(root.take(games), me[games], rng)
            seat = me[games]
            node = games.astype(np.int64)
            ret = np.zeros(R)
            live = np.arange(R)  # rows still descending the tree
            path = []  # per level: (rows, nodes, actions, virtual value added)
            exp_rows, exp_acts = [], []
            scale = np.maximum(hi - lo, 1e-9)[games] * self.c
            while live.size:
                legal = k.legal_actions(sims)[live]
                nd = node[live]
                mine = self._side[sims.current_player[live].astype(np.int64)] == my_side[games[live]]
                vloss = np.where(mine, lo[games[live]], hi[games[live]])  # the worst return for the chooser
                acts = np.empty(live.size, dtype=np.int64)
                expand = np.empty(live.size, dtype=np.bool_)
                pref = np.full(live.size, -1, dtype=np.int64)
                fixed = np.zeros(live.size, dtype=np.bool_)
                if self.others == "rollout":  # every seat but the searcher's plays the rollout agent's move
                    fixed = sims.current_player[live].astype(np.int64) != seat[live]
                if self.guided or fixed.any():  # the rollout agent's move: expanded first / played
                    grow = np.flatnonzero((legal & (child[nd] < 0)).any(axis=1) | fixed)
                    if grow.size:
                        sub = sims.take(live[grow])
                        pref[grow] = self.rollout.act(k.observe(sub, sub.current_player), legal[grow])
                u, tie = rng.random(live.size), rng.random((live.size, A))
                n_nodes = _select(nd, legal, pref, fixed, mine, vloss, scale[live], u, tie, self.widen, child, N, W, AV,
                                  n_nodes, acts, expand)
                path.append((live, nd, acts, vloss))
                if expand.any():
                    exp_rows.append(live[expand])
                    exp_acts.append(acts[expand])
                moved = live[~expand]
                if not moved.size:
                    break
                step = np.zeros(R, dtype=np.int64)
                active = np.zeros(R, dtype=bool)
                step[moved] = acts[~expand]
                active[moved] = True
                k.step(sims, step, rng, active=active)
                ret[moved] += sims.rewards[moved, seat[moved]]
                node[moved] = child[nd[~expand], acts[~expand]]
                live = moved[~sims.done[moved]]
            if exp_rows:
                er = np.concatenate(exp_rows)
                ea = np.concatenate(exp_acts)
                ret[er] += self._rollout(sims.take(er), ea, seat[er])
            # back up: replace each edge's virtual value by the iteration's return
            for rows, nds, acts, vl in path:
                np.add.at(W, (nds, acts), ret[rows] - vl)
            glo = np.full(B, np.inf)
            ghi = np.full(B, -np.inf)
            np.minimum.at(glo, games, ret)
            np.maximum.at(ghi, games, ret)
            lo = np.where(seen, np.minimum(lo, glo), glo)
            hi = np.where(seen, np.maximum(hi, ghi), ghi)
            seen[:] = True
        return N[:B].copy(), W[:B].copy()


class ISMCTSAgent(PIMCAgent):
    """:class:`ISMCTSSearch` as a named agent for the arena (``cardzoo.agents.load("all_fours/ismcts")``).

    Like :class:`~cardzoo.agents.search.PIMCAgent` it needs the game state (``needs_state``): the
    arena calls :meth:`act_state`; :meth:`act` raises ``TypeError``."""

    needs_state = True

    def __init__(self, kernel, rollout: Agent, n_iter: int = 64, wave: int = 8, c: float = 0.7, seed=None,
                 search: str = "all", guided: bool = True, others: str = "search", shared: bool = False,
                 widen: float = 0.0) -> None:
        self.search = ISMCTSSearch(kernel, rollout, n_iter=n_iter, wave=wave, c=c, seed=seed, search=search,
                                   guided=guided, others=others, shared=shared, widen=widen)
        self.name = self.search.name
