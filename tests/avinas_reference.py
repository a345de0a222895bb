"""An independent model of Avinas (RULES.md §1-§6, §11), written from the rules text alone in plain
Python, for the step-by-step comparison in ``test_avinas_reference.py``.

It shares nothing with the kernel but the card ids (§2: ``8*suit + rank``, suits C D H S = 0..3,
ranks 7 8 9 10 J Q K A = 0..7), the action ids (§8) and the shuffled pack of each deal (read from
the kernel's ``stock``), which it deals itself (§3).
"""

from __future__ import annotations

# §8 actions
FACE_DOWN = 32  # 32..63: lead card a - 32 face down
PASS = 64
CALL = 64  # CALL_N is 64 + N, N = 1..8
DECLARE = 73  # DECLARE_C/D/H/S is 73 + suit
KNOCK, NO_KNOCK, CONTINUE, STOP, SIGNAL_VALUABLE, SIGNAL_NOT_VALUABLE = 77, 78, 79, 80, 81, 82

SEVEN, JACK, QUEEN = 0, 4, 5
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
POINTS = [0, 0, 0, 10, 2, 3, 4, 11]  # by rank 7 8 9 10 J Q K A (§2)
TRUMP_SUIT_ORDER = [7, 3, 6, 2, 1]  # A 10 K 9 8 (the 7 is second of all)
PLAIN_ORDER = [7, 3, 6, 2, 1, 0]  # A 10 K 9 8 7 (§2)


def suit(card: int) -> int:
    return card // 8


def rank(card: int) -> int:
    return card % 8


def points(card: int) -> int:
    return POINTS[rank(card)]


def is_trump(card: int, trump: int) -> bool:
    """§2: every queen and jack, and the trump suit's other cards."""
    return rank(card) in (QUEEN, JACK) or suit(card) == trump


def trump_order(trump: int) -> list[int]:
    """The 14 trumps under ``trump``, best first (§2): QC, the 7 of trumps, QS, QH, QD, JC, JS, JH,
    JD, then the A, 10, K, 9, 8 of trumps."""
    queens = [8 * s + QUEEN for s in (CLUBS, SPADES, HEARTS, DIAMONDS)]
    jacks = [8 * s + JACK for s in (CLUBS, SPADES, HEARTS, DIAMONDS)]
    return queens[:1] + [8 * trump + SEVEN] + queens[1:] + jacks + [8 * trump + r for r in TRUMP_SUIT_ORDER]


def count(hand, s: int, call_count: str) -> int:
    """§4.2.1: the cards of ``hand`` that would be trumps were ``s`` trumps (``"suit"``: without the
    queens and jacks, §11.7)."""
    plain = sum(1 for c in hand if suit(c) == s and rank(c) not in (QUEEN, JACK))
    return plain if call_count == "suit" else plain + sum(1 for c in hand if rank(c) in (QUEEN, JACK))


class ReferenceGame:
    """One episode under the kernel's ``options`` from the first ``dealer`` (and a match's pips and
    ram balance, the kernel's reset hooks)."""

    def __init__(self, options: dict, dealer: int, pips=(0, 0), ram_balance: int = 0) -> None:
        self.o = options
        self.match = options["episode"] == "match"
        self.dealer = dealer
        self.pips = list(pips)
        self.ram_balance = ram_balance  # rams(A) - rams(B), §6.2
        self.deals = 0  # scored deals
        self.throw_ins = 0  # consecutive thrown-in deals
        self.done = False
        self.truncation: str | None = None  # "max_throw_ins" or "max_deals" (§11.8)
        self.winner: int | None = None  # the match's winning team
        self.clean = False
        self.last_loser: int | None = None
        self.last_penalty = 0
        self.step_rewards = [0.0] * 4

    # ------------------------------------------------------------------ §3 the deal
    def deal(self, pack) -> None:
        """A fresh deal from the shuffled ``pack`` (32 card ids, position 0 dealt first)."""
        pack = [int(c) for c in pack]
        assert sorted(pack) == list(range(32))
        d = self.dealer
        self.hands: list[set[int]] = [set() for _ in range(4)]
        keys = []  # (seat, card, is the seat an opponent of the dealer), in the order of §3.2
        position = 0
        for _round in range(2):
            for k in (1, 2, 3, 4):  # L, P, R, D
                seat = (d + k) % 4
                packet = pack[position : position + 4]
                position += 4
                self.hands[seat] |= set(packet)
                keys.append((seat, packet[3], k in (1, 3)))
        self.dealt = [set(h) for h in self.hands]
        self.played: list[set[int]] = [set() for _ in range(4)]
        # §3.3: L's and R's key cards face up; the dealer's side's sevens face up, the rest seen by him
        self.exposed = {c for _, c, opponent in keys if opponent or rank(c) == SEVEN}
        self.dealer_seen = {c for _, c, opponent in keys if not opponent and rank(c) != SEVEN}
        sevens = [(seat, c) for seat, c, _ in keys if rank(c) == SEVEN]
        self.history: list[int] = []  # this deal's actions
        self.knocked = [False] * 4
        self.calls = [-1] * 4  # -1 not yet, 0 pass, N call N
        self.high_call = 0
        self.lied = False
        self.stopped = False
        self.trick: list[tuple[int, int, bool]] = []  # (seat, card, face down)
        self.signal: bool | None = None  # the face-down card is valuable (what the partner is told)
        self.points = [0, 0]
        self.tricks_won = [0, 0]
        self.tricks_done = 0
        self.trick_winners: list[int] = []
        if sevens:  # §3.4, §4.1: the last exposed seven names the declarer and the trumps
            self.game = "sevens"
            self.declarer, seven = sevens[-1]
            self.trump = suit(seven)
            self.phase = "knock"
            self.knockers = [self.declarer, (self.declarer + 2) % 4]
            self.defenders_asked = False
            self.to_act = self.declarer
        else:  # §4.2
            self.game = "no_sevens"
            self.declarer = None
            self.trump = None
            self.phase = "call"
            self.to_act = (d + 1) % 4
        self.leader = self.declarer

    # ------------------------------------------------------------------ §4, §5 legal actions
    def legal(self) -> list[int]:
        o, phase, hand = self.o, self.phase, self.hands[self.to_act]
        if phase == "knock":
            return [KNOCK, NO_KNOCK]
        if phase == "stop":
            return [CONTINUE, STOP]
        if phase == "signal":
            return [SIGNAL_VALUABLE, SIGNAL_NOT_VALUABLE]
        if phase == "call":  # §4.2.1; "mask": no call above the best count (§4.2.3)
            best = max(count(hand, s, o["call_count"]) for s in range(4)) if o["honesty"] == "mask" else 8
            return [PASS] + [CALL + n for n in range(self.high_call + 1, best + 1)]
        if phase == "declare":  # §4.2.3: a suit in which he holds a trump; "mask": honest suits only
            call = self.calls[self.to_act]
            return [DECLARE + s for s in range(4)
                    if any(is_trump(c, s) for c in hand)
                    and (o["honesty"] != "mask" or count(hand, s, o["call_count"]) >= call)]
        trumps = sorted(c for c in hand if is_trump(c, self.trump))
        if not self.trick:  # leads (§5)
            if self.tricks_done == 0:
                return trumps
            if self.tricks_done == 1 or o["trump_lead_rule"] == "every_lead":
                return trumps or sorted(hand) + [FACE_DOWN + c for c in sorted(hand)]
            return sorted(hand)
        _, led, face_down = self.trick[0]
        if face_down or is_trump(led, self.trump):
            return trumps or sorted(hand)
        follow = [c for c in hand if suit(c) == suit(led) and not is_trump(c, self.trump)]
        return sorted(follow or hand)

    # ------------------------------------------------------------------ steps
    def step(self, action: int) -> str | None:
        """Play ``action`` (one of :meth:`legal`); returns ``"deal"`` when a fresh deal from the kernel's pack follows (after
        a throw-in, or the next deal of a match), else ``None``."""
        self.step_rewards = [0.0] * 4
        self.history.append(action)
        seat, o = self.to_act, self.o
        if self.phase == "knock":  # §4.1, §11.1
            if action == KNOCK:
                self.knocked[seat] = True
                self.knockers = [s for s in self.knockers if s % 2 != seat % 2]  # one knock per team
            if seat in self.knockers:
                self.knockers.remove(seat)
            if not self.knockers and not self.defenders_asked:
                self.defenders_asked = True
                back = o["knock_back"] == "always" or (o["knock_back"] == "after_knock" and self.declarers_knocked())
                if back:
                    self.knockers = [(self.declarer + 1) % 4, (self.declarer + 3) % 4]
            if self.knockers:
                self.to_act = self.knockers[0]
            else:
                self.phase, self.to_act = "play", self.declarer
            return None
        if self.phase == "call":  # §4.2.1, §4.2.2
            self.calls[seat] = 0 if action == PASS else action - CALL
            if action != PASS:
                self.high_call, self.declarer = action - CALL, seat
            if seat != self.dealer:
                self.to_act = (seat + 1) % 4
                return None
            if self.high_call:
                self.phase, self.to_act = "declare", self.declarer
                return None
            self.throw_ins += 1  # thrown in: the next dealer deals
            self.dealer = (self.dealer + 1) % 4
            if self.throw_ins >= o["max_throw_ins"]:
                self.done, self.truncation = True, "max_throw_ins"
                return None
            return "deal"
        if self.phase == "declare":  # §4.2.3, §4.2.4: honesty compares the eight cards held at the call
            self.trump = action - DECLARE
            self.lied = count(self.dealt[seat], self.trump, o["call_count"]) < self.calls[seat]
            self.phase, self.leader = "play", seat
            return None
        if self.phase == "stop":  # §4.2.6, §11.6
            if action == STOP:
                self.stopped = True
                return self._score_deal()
            self.phase, self.to_act = "play", self.leader
            return None
        if self.phase == "signal":  # §11.3: the leader's free (maybe false) bit
            self.signal = action == SIGNAL_VALUABLE
            self.phase, self.to_act = "play", (seat + 1) % 4
            return None
        face_down = action >= FACE_DOWN
        card = action - FACE_DOWN if face_down else action
        self.hands[seat].remove(card)
        self.played[seat].add(card)
        self.trick.append((seat, card, face_down))
        if face_down:  # §5 the valuable bit, §11.3, §11.4
            if o["facedown_signal"] == "auto":
                self.signal = points(card) >= o["valuable_min_points"]
            elif o["facedown_signal"] == "free":
                self.phase = "signal"
                return None
        if len(self.trick) < 4:
            self.to_act = (seat + 1) % 4
            return None
        winner = self.winning_seat()
        self.trick_winners.append(winner)
        self.points[winner % 2] += sum(points(c) for _, c, _ in self.trick)
        self.tricks_won[winner % 2] += 1
        self.tricks_done += 1
        self.trick, self.signal, self.leader = [], None, winner
        if self.tricks_done == 8:
            return self._score_deal()
        if self.game == "no_sevens" and o["no7_stop"]:
            self.phase, self.to_act = "stop", self.declarer
        else:
            self.to_act = winner
        return None

    def declarers_knocked(self) -> bool:
        return self.knocked[self.declarer] or self.knocked[(self.declarer + 2) % 4]

    def winning_seat(self) -> int:
        """§5: the best trump played face up; else a face-down leader; else the best card of the
        plain suit led."""
        order = trump_order(self.trump)
        trumps = [(order.index(c), seat) for seat, c, down in self.trick if not down and is_trump(c, self.trump)]
        if trumps:
            return min(trumps)[1]
        leader, led, face_down = self.trick[0]
        if face_down:
            return leader
        follow = [(PLAIN_ORDER.index(rank(c)), seat) for seat, c, _ in self.trick
                  if suit(c) == suit(led) and not is_trump(c, self.trump)]
        return min(follow)[1]

    # ------------------------------------------------------------------ §6 scoring
    def _score_deal(self) -> str | None:
        o = self.o
        team = self.declarer % 2
        if self.game == "sevens":  # §6.1, §6.2
            if self.declarers_knocked():
                won = self.tricks_won[team] == 8
            else:
                won = self.points[team] >= 61
            loser = 1 - team if won else team
            base = 1
            if o["ram_schedule"] == "graded" and not self.declarers_knocked():
                base = 3 if self.tricks_won[loser] == 0 else 2 if self.points[loser] <= 30 else 1
            penalty = base * 2 ** sum(self.knocked)
            self.ram_balance += penalty if loser == 0 else -penalty  # §6.2: strike off, keep the rest
            unit = float(penalty)
        else:  # §6.1, §6.3
            won = not self.lied and self.points[team] >= 61
            loser = 1 - team if won else team
            penalty = 2
            if o["pip_schedule"] == "graded":
                penalty = 6 if self.tricks_won[loser] == 0 else 4 if self.points[loser] <= 30 else 2
            self.pips[loser] += penalty
            unit = penalty / 2
        self.phase = "over"
        self.last_loser, self.last_penalty = loser, penalty
        self.deals += 1
        self.throw_ins = 0
        rewards = [-unit if s % 2 == loser else unit for s in range(4)]  # §6.5
        if not self.match:
            self.done = True
            self.step_rewards = [-1.0 if s % 2 == loser else 1.0 for s in range(4)] if o["reward"] == "win" else rewards
            return None
        if max(self.pips) >= o["pip_limit"]:  # §6.4
            full = 0 if self.pips[0] >= o["pip_limit"] else 1
            if self.pips[1 - full] == 0:
                match_loser, self.clean = full, True
            elif self.ram_balance:
                match_loser = 0 if self.ram_balance > 0 else 1
            else:
                match_loser = 0 if self.pips[0] > self.pips[1] else 1
            self.winner, self.done = 1 - match_loser, True
            if o["reward"] == "win":
                rewards = [1.0 if s % 2 == self.winner else -1.0 for s in range(4)]
        elif o["reward"] == "win":
            rewards = [0.0] * 4
        self.step_rewards = rewards
        if self.done:
            return None
        if self.deals >= o["max_deals"]:  # §11.8
            self.done, self.truncation = True, "max_deals"
            return None
        self.dealer = (self.dealer + 1) % 4  # §1: the deal passes left
        return "deal"
