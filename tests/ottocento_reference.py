"""An independent model of Ottocento (envs/ottocento/RULES.md §2-§8, §9, §11), written from the
rules text alone in plain Python, for the step-by-step comparison in ``test_ottocento_reference.py``.

It shares nothing with the kernel but the card ids (§2.1: ``10*suit + rank`` with ranks A 6 7 8 9
10 J N Q K = 0..9, then 40 BEG, 41-44 MO1-MO4, 45-56 T5-T16, 57 MOO, 58 SUN, 59 WOR, 60 ANG,
61 MAT) and the shuffled pack of each deal (read from the kernel's ``stock``), which it deals
itself (§3). Points are kept in half-points where card points enter (§2.3).
"""

from __future__ import annotations

DECLARE, PASS = 62, 63
BEG, MOORS, MOO, SUN, WOR, ANG, MAT = 40, (41, 42, 43, 44), 57, 58, 59, 60, 61
A, J, N, Q, K = 0, 6, 7, 8, 9
TRUMP = 4


def T(n: int) -> int:
    """The numbered trump Tn (5..16)."""
    return 40 + n


def suit(card: int) -> int | None:
    """0-3 plain suits S B C D, 4 trumps, None the Matto (§2.1)."""
    if card < 40:
        return card // 10
    return None if card == MAT else TRUMP


def value(card: int) -> int:
    """§2.3: K and the honours ANG WOR BEG MAT 5, Q 4, N 3, J 2, every other card 1."""
    if card in (ANG, WOR, BEG, MAT):
        return 5
    if card < 40:
        return {K: 5, Q: 4, N: 3, J: 2}.get(card % 10, 1)
    return 1


def strength(card: int) -> int:
    """§2.2 rank inside a suit (plain) or among trumps (higher wins)."""
    if card < 40:
        s, r = divmod(card, 10)
        if r >= J:
            return 10 + r  # the courts above every non-court
        order = [A, 1, 2, 3, 4, 5] if s < 2 else [5, 4, 3, 2, 1, A]  # S B: A 6..10 ; C D: 10..6 A, low to high
        return order.index(r)
    if card == BEG:
        return 0
    if card in MOORS:
        return 1
    return {MOO: 17, SUN: 18, WOR: 19, ANG: 20}.get(card, card - 40)


def half_points(cards) -> int:
    """§2.3 card points of a pile, in half-points: 2 * sum of values - number of cards."""
    return sum(2 * value(c) - 1 for c in cards)


SETS = [((ANG, WOR, BEG, MAT), 18, 36)] + [(tuple(10 * s + r for s in range(4)), v3, v4) for r, v3, v4 in ((K, 17, 34), (Q, 14, 28), (N, 13, 26), (J, 12, 24))]


def combo(cards, strict: bool = False) -> tuple[int, set[int]]:
    """§4.2-§4.4: (combination score, cards that score) of any collection."""
    x = set(cards)
    shown: set[int] = set()
    cont = [c for c in (BEG, MAT) if c in x]
    c = len(cont)
    set_pts, n_sets = 0, 0
    for members, v3, v4 in SETS:
        held = [m for m in members if m in x]
        if len(held) >= 3:
            set_pts += v3 if len(held) == 3 else v4
            n_sets += 1
            shown |= set(held)
    seqs = []  # (length, cards)
    for s in range(4):
        if 10 * s + K not in x:
            continue
        courts = [10 * s + r for r in (Q, N, J) if 10 * s + r in x]
        if len(courts) >= 2 or (len(courts) == 1 and c >= 1):
            ace = [10 * s + A] if 10 * s + A in x else []
            seqs.append([10 * s + K] + courts + ace + cont)
    for group in ([10 * s + A for s in range(4)], list(MOORS)):
        held = [g for g in group if g in x]
        if len(held) >= 2 and len(held) + c >= 3:
            seqs.append(held + cont)
    if ANG in x:
        head = [h for h in (WOR, SUN, MOO) if h in x]
        t = len(head)
        if t >= 2 or (t == 1 and c >= 1):
            fillers = c - (1 if t == 1 else 0)
            # a filler in the head sits on WOR or SUN; a missing MOO blocks a fill at T16 only in the strict reading
            prev_filled = strict and MOO not in x
            chain, reached_all = [], True
            for n in range(16, 4, -1):
                if T(n) in x:
                    chain.append(T(n))
                    prev_filled = False
                elif fillers > 0 and not prev_filled:
                    fillers -= 1
                    prev_filled = True
                else:
                    reached_all = False
                    break
            moors = [m for m in MOORS if m in x] if reached_all else []
            seqs.append([ANG] + head + chain + moors + cont)
    seq_pts = sum(5 * len(q) - 5 for q in seqs)
    for q in seqs:
        assert len(q) >= 3
        shown |= set(q)
    total = set_pts * (2 if n_sets >= 3 else 1) + seq_pts * (2 if len(seqs) >= 3 else 1)
    return total, shown


def trick_winner(trick, last_moor_wins: bool) -> int:
    """§2.2, §5: the seat winning ``trick`` (a list of (seat, card) in play order) so far; -1 if none."""
    cards = [(s, c) for s, c in trick if c != MAT]
    if not cards:
        return -1
    trumps = [(s, c) for s, c in cards if suit(c) == TRUMP]
    pool = trumps or [(s, c) for s, c in cards if suit(c) == suit(cards[0][1])]
    best = max(strength(c) for _, c in pool)
    top = [s for s, c in pool if strength(c) == best]  # several only for Moors
    return top[-1] if last_moor_wins else top[0]


class ReferenceGame:
    """One episode (a deal, or a match with ``match_target``) under the kernel's ``options``."""

    def __init__(self, options: dict, dealer: int, score=(0, 0)) -> None:
        self.o = options
        self.match = options["match_target"] is not None
        self.target_half = 2 * (options["match_target"] or 0)
        self.dealer = dealer
        self.score = [2 * score[0], 2 * score[1]]  # half-points
        self.done = False
        self.truncated = False
        self.winner = -1
        self.deals = 0
        self.step_rewards = [0.0] * 4
        self.result: dict | None = None

    # ------------------------------------------------------------------ §3 deal and discard
    def deal(self, pack) -> None:
        pack = [int(c) for c in pack]
        assert sorted(pack) == list(range(62))
        p = self.o["deal_packets"]
        self.hands = [set() for _ in range(4)]
        pos = 0
        for _ in range(15 // p):
            for k in range(4):
                seat = (self.dealer + 1 + k) % 4
                self.hands[seat] |= set(pack[pos : pos + p])
                pos += p
        self.hands[self.dealer] |= {pack[60], pack[61]}
        self.matto_owner = next(s for s in range(4) if MAT in self.hands[s])
        self.discards: list[int] = []
        self.phase = "discard"
        self.leader = (self.dealer + 1) % 4
        self.trick: list[tuple[int, int]] = []
        self.tricks = 0
        self.tricks_won = [0, 0]
        self.piles: list[set[int]] = [set(), set()]
        self.decided = [False] * 4
        self.decl = [0] * 4
        self.shown = [set() for _ in range(4)]
        self.matto_winner = -1
        self.last_winner = -1

    # ------------------------------------------------------------------ whose turn, legal actions
    def to_act(self) -> int:
        if self.phase == "discard":
            return self.dealer
        return (self.leader + len(self.trick)) % 4

    def led(self) -> int | None:
        """The suit to follow (§5): set by the first card that is not the Matto."""
        for _, c in self.trick:
            if c != MAT:
                return suit(c)
        return None

    def current_winner(self) -> int:
        """The seat winning the current trick so far (-1 before any card but the Matto, §9.11)."""
        return trick_winner(self.trick, self.o["moors_tie"] == "last_played")

    def legal(self) -> list[int]:
        seat = self.to_act()
        hand = self.hands[seat]
        if self.phase == "discard":
            forbidden = {10 * s + K for s in range(4)} | {ANG, WOR, BEG, MAT}
            return sorted(hand - forbidden)
        if self.phase == "declare":
            return [DECLARE, PASS]
        led = self.led()
        if led is None:  # leading, or the Matto was led: anything
            return sorted(hand)
        follow = {c for c in hand if suit(c) == led}
        if not follow:
            follow = {c for c in hand if suit(c) == TRUMP}
        if not follow:
            return sorted(hand)
        return sorted(follow | ({MAT} & hand))

    # ------------------------------------------------------------------ steps
    def step(self, action: int) -> str | None:
        """Apply ``action``; returns ``"deal"`` when the next deal of a match follows."""
        self.step_rewards = [0.0] * 4
        assert action in self.legal(), (action, self.legal())
        seat = self.to_act()
        if self.phase == "discard":
            self.hands[seat].remove(action)
            self.discards.append(action)
            if len(self.discards) == 2:
                strict = self.o["natural_skip_counts_as_gap"]
                self.decl_value = [combo(h, strict) for h in self.hands]  # §11.1: valued after the discard
                self.phase = "play"
                self._enter_turn()
            return None
        if self.phase == "declare":
            self.phase = "play"
            if action == DECLARE:
                self._declare(seat)
            return None
        self.hands[seat].remove(action)
        self.trick.append((seat, action))
        if len(self.trick) == 4:
            w = trick_winner(self.trick, self.o["moors_tie"] == "last_played")
            self.piles[w % 2] |= {c for _, c in self.trick}
            self.tricks_won[w % 2] += 1
            if MAT in [c for _, c in self.trick]:
                self.matto_winner = w
            self.trick, self.leader = [], w
            self.tricks += 1
            if self.tricks == 15:
                self.last_winner = w
                return self._score_deal()
        self._enter_turn()
        return None

    def _enter_turn(self) -> None:
        """§4.1: before his first card (trick 1) a player with a scoring hand declares or passes."""
        if self.done or self.tricks > 0:
            return
        seat = self.to_act()
        if self.decided[seat]:
            return
        self.decided[seat] = True
        mode = self.o["declaration_mode"]
        if mode == "none" or self.decl_value[seat][0] == 0:
            return
        if mode == "auto_all":
            self._declare(seat)
        else:
            self.phase = "declare"

    def _declare(self, seat: int) -> None:
        self.decl[seat], self.shown[seat] = self.decl_value[seat]
        if self.o["declarations_win_immediately"]:  # §11.5
            team = seat % 2
            d = [self.decl[0] + self.decl[2], self.decl[1] + self.decl[3]]
            if self.score[team] + 2 * d[team] >= self.target_half:
                self.score = [self.score[0] + 2 * d[0], self.score[1] + 2 * d[1]]
                self._finish(team, 2 * (d[0] - d[1]))
                self.result = None

    # ------------------------------------------------------------------ §6 scoring
    def _score_deal(self) -> str | None:
        o = self.o
        strict = o["natural_skip_counts_as_gap"]
        dteam = self.dealer % 2
        to = dteam
        if o["discards_follow_tricks"] and self.tricks_won[dteam] == 0:
            to = 1 - dteam
        piles = [set(p) for p in self.piles]
        piles[to] |= set(self.discards)
        fate, gift = 0, -1
        uncounted = set() if o["discards_in_captured_combos"] else set(self.discards)
        if o["matto_rule"] == "captured" and self.matto_winner % 2 != self.matto_owner % 2:
            fate = 3  # §8: the Matto went with its trick to the opponents
        if o["matto_rule"] == "exchange_at_end":
            own = self.matto_owner % 2
            if self.matto_winner % 2 != own:
                if self.tricks_won[own] == 0:
                    fate = 2
                else:
                    pile = piles[own]
                    eligible = [c for c in pile if value(c) == 1]
                    if not eligible and o["matto_fallback"] == "lowest_value":
                        low = min(value(c) for c in pile)
                        eligible = [c for c in pile if value(c) == low]
                    if not eligible:
                        fate = 2
                    else:
                        if o["matto_gift"] == "lowest_id":
                            gift = min(eligible)
                        else:

                            def gain(g):
                                skip = uncounted
                                mine = combo((pile - {g} | {MAT}) - skip, strict)[0]
                                theirs = combo((piles[1 - own] - {MAT} | {g}) - skip, strict)[0]
                                return (mine - theirs, -g)

                            gift = max(eligible, key=gain)
                        fate = 1
                        piles[own] = pile - {gift} | {MAT}
                        piles[1 - own] = piles[1 - own] - {MAT} | {gift}  # a discard given still counts card points only
        cards = [half_points(p) for p in piles]
        captured = [combo(p - uncounted, strict)[0] for p in piles]
        declared = [self.decl[0] + self.decl[2], self.decl[1] + self.decl[3]]
        last = [0, 0]
        last[self.last_winner % 2] = o["last_trick_bonus"]
        totals = [cards[t] + 2 * (captured[t] + declared[t] + last[t]) for t in (0, 1)]
        self.deals += 1
        diff = totals[0] - totals[1]
        self.result = {
            "final_piles": piles, "cards": cards, "captured": captured, "declared": declared, "last": last,
            "totals": totals, "gift": gift, "fate": fate, "to": to,
        }
        if not self.match:
            self._finish((diff < 0) if diff else -1, diff)
            return None
        self.score = [self.score[0] + totals[0], self.score[1] + totals[1]]
        lead = 0 if self.score[0] > self.score[1] else (1 if self.score[1] > self.score[0] else -1)
        if max(self.score) >= self.target_half and lead >= 0:
            self._finish(lead, diff)
            return None
        if o["reward"] == "point_diff":
            self._pay(diff / 200)
        if self.deals >= o["max_deals"]:
            self.done = self.truncated = True
            return None
        self.dealer = (self.dealer + 1) % 4
        return "deal"

    def _finish(self, winner: int, diff_half: int) -> None:
        self.done = True
        self.winner = int(winner)
        if self.o["reward"] == "point_diff":
            self._pay(diff_half / 200)
        else:
            self._pay({0: 1.0, 1: -1.0, -1: 0.0}[self.winner])

    def _pay(self, r: float) -> None:
        self.step_rewards = [r, -r, r, -r]
