"""An independent model of All Fours (RULES.md §3-§6), written from the rules text alone in plain
Python, for the step-by-step comparison in ``test_all_fours_reference.py``.

It shares nothing with the kernel but the card ids (``13*suit + rank``, ranks 2..A = 0..12) and the
shuffled pack of each deal (read from the kernel's ``stock``), which it deals itself (§3).
"""

from __future__ import annotations

STAND, BEG, GIVE_ONE, RUN = 52, 53, 54, 55
GAME_VALUE = {12: 4, 11: 3, 10: 2, 9: 1, 8: 10}  # A K Q J 10 (§2)
JACK = 9


def suit(card: int) -> int:
    return card // 13


def rank(card: int) -> int:
    return card % 13


class ReferenceGame:
    """One episode under the kernel's ``options``, from the first ``dealer`` and match ``score``."""

    def __init__(self, options: dict, dealer: int, score=(0, 0)) -> None:
        self.o = options
        self.match = options["episode"] == "match"
        self.dealer = dealer
        self.score = list(score)
        self.hand_points = [0, 0]
        self.winner: int | None = None
        self.done = False
        self.truncation: str | None = None
        self.step_rewards = [0.0] * 4
        self.redeals = 0
        self.hands_scored = 0

    # ------------------------------------------------------------------ §3 dealing and kicks
    def deal(self, pack) -> None:
        """A fresh deal from the shuffled ``pack`` (52 card ids, position 0 first)."""
        self.pack = [int(c) for c in pack]
        assert sorted(self.pack) == list(range(52))
        self.next_card = 0
        self.beggar = (self.dealer + 1) % 4
        self.hands = [set() for _ in range(4)]
        self.dealt = [set() for _ in range(4)]
        self._deal_cards(6)
        self.first_suit = None
        self.phase = "beg"
        self.trick: list[tuple[int, int]] = []
        self.leader = self.beggar
        self.tricks = 0
        self.cards_each = 6
        self.captured = [[], []]
        self.jack_trick: tuple[int, int] | None = None  # (holder, trick winner)
        self._kick()
        self.trump = self.first_suit

    def _deal_cards(self, each: int) -> None:
        packet = self.o["deal_packet"]
        for _ in range(each // packet):
            for i in range(4):
                seat = (self.beggar + i) % 4
                for _ in range(packet):
                    card = self.pack[self.next_card]
                    self.next_card += 1
                    self.hands[seat].add(card)
                    self.dealt[seat].add(card)

    def _kick(self) -> None:
        card = self.pack[self.next_card]
        self.next_card += 1
        rejected = self.first_suit is not None and suit(card) == self.first_suit
        if self.first_suit is None:
            self.first_suit = suit(card)
        self.kick = card
        points = {12: 1, JACK: 3, 4 if self.o["kick_points"] == "trinidad" else 0: 2}.get(rank(card), 0)
        if rejected and not self.o["score_rejected_kicks"]:
            points = 0
        self._credit(self.dealer % 2, points)

    def _credit(self, team: int, points: int) -> None:
        if self.winner is not None or points == 0:
            return
        self.hand_points[team] += points
        self.score[team] += points
        if self.match and self.score[team] >= self.o["target_score"]:
            self.winner = team

    # ------------------------------------------------------------------ §4, §5 decisions
    def to_act(self) -> int:
        if self.phase == "beg":
            return self.beggar
        if self.phase == "dealer":
            return self.dealer
        return (self.leader + len(self.trick)) % 4

    def legal(self) -> list[int]:
        if self.phase == "beg":
            return [STAND, BEG]
        if self.phase == "dealer":
            ends = self.score[self.beggar % 2] + 1 >= self.o["target_score"]
            return [RUN] if self.o["forbid_game_ending_give_one"] and ends else [GIVE_ONE, RUN]
        hand, trump = self.hands[self.to_act()], self.trump
        if not self.trick:
            return sorted(hand)
        led = suit(self.trick[0][1])
        trumps = [c for c in hand if suit(c) == trump]
        if led == trump:
            return sorted(trumps or hand)
        cards = [c for c in hand if suit(c) in (led, trump)] if any(suit(c) == led for c in hand) else list(hand)
        played = [rank(c) for _, c in self.trick if suit(c) == trump]
        if self.o["undertrump"] == "forbidden" and played and len(trumps) < len(hand):
            cards = [c for c in cards if suit(c) != trump or rank(c) > max(played)]
        return sorted(cards)

    def step(self, action: int) -> str | None:
        """Play ``action``; returns ``"deal"`` when a fresh deal from the kernel's pack follows
        (the next hand of a match, or a redeal after an exhausted pack), else ``None``."""
        self.step_rewards = [0.0] * 4
        if self.phase == "beg":
            self.phase = "play" if action == STAND else "dealer"
            return None
        if self.phase == "dealer":
            if action == GIVE_ONE:
                self._credit(self.beggar % 2, 1)
                self.phase = "play"
                return self._end_match() if self.winner is not None else None
            while True:  # run the pack (§4)
                self._deal_cards(3)
                self.cards_each += 3
                self._kick()
                if self.winner is not None:
                    return self._end_match()
                if suit(self.kick) != self.first_suit:
                    self.trump, self.phase = suit(self.kick), "play"
                    return None
                if 52 - self.next_card < 13:  # exhausted: the same dealer deals again
                    self.redeals += 1
                    if self.redeals >= self.o["max_redeals"]:
                        self.done, self.truncation = True, "max_redeals"
                        return None
                    return "deal"
        seat = self.to_act()
        self.hands[seat].remove(action)
        self.trick.append((seat, action))
        if len(self.trick) < 4:
            return None
        led = suit(self.trick[0][1])
        trumps = [(rank(c), s) for s, c in self.trick if suit(c) == self.trump]
        winner = max(trumps or [(rank(c), s) for s, c in self.trick if suit(c) == led])[1]
        self.captured[winner % 2] += [c for _, c in self.trick]
        for s, c in self.trick:
            if c == 13 * self.trump + JACK:
                self.jack_trick = (s, winner)
        self.trick, self.leader = [], winner
        self.tricks += 1
        return self._score_hand() if self.tricks == self.cards_each else None

    # ------------------------------------------------------------------ §6 scoring
    def _score_hand(self) -> str | None:
        o = self.o
        dealt = [(rank(c), s) for s in range(4) for c in self.dealt[s] if suit(c) == self.trump]
        items = []
        if dealt:
            items += [(max(dealt)[1] % 2, 1), (min(dealt)[1] % 2, 1)]  # High, Low
            if self.jack_trick is not None:
                holder, taker = self.jack_trick
                same = holder % 2 == taker % 2
                items.append((holder % 2, o["jack_points"]) if same else (taker % 2, o["hang_jack_points"]))
        value = [sum(GAME_VALUE.get(rank(c), 0) for c in self.captured[t]) for t in (0, 1)]
        if value[0] != value[1]:
            items.append((int(value[1] > value[0]), o["game_points"]))
        elif o["game_tie"] != "none":
            items.append(((self.beggar if o["game_tie"] == "beggar_team" else self.dealer) % 2, o["game_points"]))
        for team, points in items:  # High, Low, Jack / Hang jack, Game, in that order
            self._credit(team, points)
        if self.winner is not None:
            return self._end_match()
        self.hands_scored += 1
        self._pay()
        if not self.match:
            self.done = True
            return None
        if self.hands_scored >= o["max_hands"]:
            self.done, self.truncation, self.step_rewards = True, "max_hands", [0.0] * 4
            return None
        self.dealer = (self.dealer + 1) % 4
        self.hand_points, self.redeals = [0, 0], 0
        return "deal"

    def _pay(self) -> None:
        diff = self.hand_points[0] - self.hand_points[1]
        if self.o["reward"] == "win":
            if self.match:
                diff = 0 if self.winner is None else (1 if self.winner == 0 else -1)
            else:
                diff = (diff > 0) - (diff < 0)
        self.step_rewards = [float(diff), float(-diff)] * 2

    def _end_match(self) -> None:
        self.done = True
        self._pay()
        return None
