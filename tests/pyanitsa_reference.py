"""An independent model of P'yanitsa's battles (RULES.md §2, §5, §6), written from the rules text
alone in plain Python, for the step-by-step comparison in ``test_pyanitsa_reference.py``.

It shares nothing with the kernel but the card ids (§2: ``9*suit + rank``, ranks 6..A = 0..8;
``13*suit + rank`` with 52 cards, ranks 2..A = 0..12) and the dealt piles it starts from.
"""

from __future__ import annotations


class ReferenceGame:
    """One game from its dealt ``piles`` (lists top -> bottom) under the kernel's ``options``."""

    def __init__(self, options: dict, piles: list[list[int]]) -> None:
        self.o = options
        self.n = options["num_players"]
        self.top_rank = 8 if options["deck"] == 36 else 12
        self.ranks = 9 if options["deck"] == 36 else 13
        self.piles = [list(p) for p in piles]
        self.saved = [list(p) for p in piles]  # §6 cycle check: the copy, first the dealt position
        self.battles = 0
        self.done = False
        self.draw = False
        self.truncation: str | None = None
        self.losers: list[int] = []
        self.rewards = [0.0] * self.n
        self.active = [s for s in range(self.n) if self.piles[s]]
        self.flipped = 0
        self.ordering: tuple[int, set[int]] | None = None  # winner_chooses: (winner, pot cards left)
        self.random_pot: tuple[int, list[int]] | None = None  # collect_order="random": (winner, pot)

    # ------------------------------------------------------------------ §2
    def highest(self, standing: dict[int, int]) -> list[int]:
        """The seats whose standing card is highest in the group compared (six over ace, §2)."""
        rank = {s: c % self.ranks for s, c in standing.items()}
        six_over_ace = self.o["six_beats_ace"] and self.top_rank in rank.values() and 0 in rank.values()
        key = {s: (100 if six_over_ace and r == 0 else r) for s, r in rank.items()}
        best = max(key.values())
        return sorted(s for s, k in key.items() if k == best)

    # ------------------------------------------------------------------ §4
    def to_act(self) -> int:
        return self.ordering[0] if self.ordering is not None else self.active[self.flipped]

    def legal(self) -> list[int]:
        """The legal action ids (§4): the pot cards ``ORDER`` may place, else ``FLIP`` (id = the pack size)."""
        return [self.o["deck"]] if self.ordering is None else sorted(self.ordering[1])

    def flip(self) -> None:
        self.flipped += 1
        if self.flipped == len(self.active):
            self.flipped = 0
            self._battle()

    def order(self, card: int) -> None:
        winner, left = self.ordering
        left.remove(card)
        self.piles[winner].append(card)
        if len(left) == 1:
            self.piles[winner].append(left.pop())
            self.ordering = None
            self.active = [s for s in range(self.n) if self.piles[s]]

    # ------------------------------------------------------------------ §5
    def _battle(self) -> None:
        o = self.o
        contenders = list(self.active)
        took_part = list(self.active)
        put: list[tuple[int, int, int, int]] = []  # (step, seat, 0 face down / 1 face up, card)
        standing = {}
        for s in contenders:
            standing[s] = self.piles[s].pop(0)
            put.append((0, s, 1, standing[s]))
        need = 1 if o["tie_mode"] == "face_up" else 2
        step, winner = 0, None
        while True:
            best = self.highest({s: standing[s] for s in contenders})
            if len(best) == 1:
                winner = best[0]
                break
            step += 1
            taking_part = list(contenders) if o["tie_players"] == "all" else best
            if o["tie_players"] == "tied":
                contenders = list(best)
            new_face_up, dropped = False, []
            for s in taking_part:
                pile = self.piles[s]
                if o["runout"] == "forfeit" and len(pile) < need:
                    dropped.append(s)
                elif need == 2 and len(pile) >= 2:
                    down, up = pile.pop(0), pile.pop(0)
                    put += [(step, s, 0, down), (step, s, 1, up)]
                    standing[s], new_face_up = up, True
                elif pile:  # one card face up (face_up, or the last card in down_up)
                    standing[s], new_face_up = pile.pop(0), True
                    put.append((step, s, 1, standing[s]))
            contenders = [s for s in contenders if s not in dropped]
            if o["runout"] == "forfeit" and len(contenders) == 1:
                winner = contenders[0]
                break
            if not contenders or not new_face_up:
                break  # a dead battle
        self.battles += 1
        if winner is None:
            self.done, self.draw = True, True
            return
        pot = [c for *_, c in put]
        sizes = [len(p) for p in self.piles]
        sizes[winner] += len(pot)
        if o["objective"] == "last_holder_loses":
            holders = [s for s in range(self.n) if sizes[s]]
            losers = holders if len(holders) == 1 else []
        else:
            losers = [s for s in took_part if sizes[s] == 0]
        capped = not losers and self.battles >= o["max_battles"]
        collect = o["collect_order"]
        if collect == "winner_chooses" and not losers and not capped:
            self.ordering = (winner, set(pot))
            return
        if collect == "random" and not capped:
            self.random_pot = (winner, pot)
            self.piles[winner] += pot  # in some order: the caller takes it from the kernel
        else:  # §12.2: the battle that reaches the cap is collected in the default (winner_first) order
            start = 0 if collect == "seat_order" and not capped else winner
            put.sort(key=lambda e: (e[0], (e[1] - start) % self.n, e[2]))
            self.piles[winner] += [c for *_, c in put]
        self.active = [s for s in range(self.n) if self.piles[s]]
        # §6
        if losers:
            self.done, self.losers = True, sorted(losers)
            won = len(losers) / (self.n - len(losers))
            self.rewards = [-1.0 if s in losers else won for s in range(self.n)]
        elif capped:
            self.done, self.truncation = True, "max_battles"
        elif o["detect_cycles"] and collect in ("winner_first", "seat_order"):
            if self.piles == self.saved:
                self.done, self.truncation = True, "cycle"
            elif self.battles & (self.battles - 1) == 0:  # a power of two: keep this position
                self.saved = [list(p) for p in self.piles]
