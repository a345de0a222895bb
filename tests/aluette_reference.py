"""An independent model of Aluette (RULES.md §2-§7), written from the rules text alone in plain
Python, for the step-by-step comparison in ``test_aluette_reference.py``.

It shares nothing with the kernel but the card ids (§2: ``12*suit + rank``, suits Co Cu Cl Sw,
ranks A 2..9 J N K = 0..11) and the shuffled packs it starts from (the deal's pack, read from the
kernel's ``stock``, and the partnership draw's pack), which it deals itself (§3).
"""

from __future__ import annotations

RANKS, SUITS = "A 2 3 4 5 6 7 8 9 J N K".split(), "Co Cu Cl Sw".split()
NAMES = [r + s for s in SUITS for r in RANKS]  # card id = 12*suit + rank
CARD = {n: i for i, n in enumerate(NAMES)}

# §2 powers: the eight key cards by name, the rest by rank
KEYS = ["3Co", "3Cu", "2Co", "2Cu", "9Cu", "9Co", "2Cl", "2Sw"]  # also the order of signals 50..57 (§4.5)
KEY_POWER = dict(zip(KEYS, [19, 18, 17, 16, 15, 14, 13, 12]))
RANK_POWER = {"A": 11, "K": 10, "N": 9, "J": 8, "9": 7, "8": 6, "7": 5, "6": 4, "5": 3, "4": 2, "3": 1}
POWER = [KEY_POWER.get(n, RANK_POWER.get(n[:-2])) for n in NAMES]
KEY_IDS = {CARD[k] for k in KEYS}
ACES = {CARD["A" + s] for s in SUITS}

# §4 actions: 0-47 cards, then these
ACCEPT, REFUSE = 48, 49
SIGNAL0, END = 50, 60  # 50..59 the ten signals of §4.5, 60 end_signals
OFFER, NO_OFFER, ACCEPT_SURRENDER, REFUSE_SURRENDER = 61, 62, 63, 64

# the phases of §4 and §5, in the order the observation's ``phase`` one-hot names them (§7)
VOTE, DISCARD, SIGNALS, OFFERS, ANSWER, PLAY, OVER = range(7)
REL = ("me", "next", "partner", "previous")  # seat-relative order of the observation (§7)
COUNTS = ("trick_top_power", "cards_in_trick", "tricks_done", "tricks_won", "deals", "deal_points", "score")


def signal_is_true(signal: int, hand: set[int]) -> bool:
    """§4.5: signals 0-7 name a key card, 8 (``as``) at least one ace, 9 (``faible``) neither."""
    if signal < 8:
        return CARD[KEYS[signal]] in hand
    if signal == 8:
        return bool(hand & ACES)
    return not hand & (KEY_IDS | ACES)


def partnership_draw(pack) -> list[int]:
    """§3: cards turned face up from ``pack`` to S1 first, then clockwise, skipping a player who
    already holds a drawing card. Returns the new seat of the player who drew at each seat."""
    new_seat = {CARD["3Cu"]: 0, CARD["2Cu"]: 1, CARD["3Co"]: 2, CARD["2Co"]: 3}
    got: dict[int, int] = {}
    seat = 1
    for card in pack:
        if len(got) == 4:
            break
        if card in new_seat:
            got[seat] = new_seat[card]
        seat = (seat + 1) % 4
        while len(got) < 4 and seat in got:
            seat = (seat + 1) % 4
    return [got[s] for s in range(4)]


class ReferenceGame:
    """One episode under the kernel's ``options``, from the first ``dealer`` and match ``score``."""

    def __init__(self, options: dict, dealer: int, score=(0, 0)) -> None:
        self.o = options
        self.match = options["episode"] == "match"
        self.dealer = dealer
        self.score = list(score)
        self.deals = 0
        self.points = [0, 0]  # the last scored deal's points per team
        self.deal_winner, self.mordienne = -1, False
        self.result = -1  # the match: 0 / 1 team, 2 draw (-1 running or cut)
        self.done = self.truncated = False
        self.step_rewards = [0.0] * 4

    # ------------------------------------------------------------------ §3 the deal
    def deal(self, pack) -> None:
        """A fresh deal from the shuffled ``pack`` (48 card ids, position 0 first)."""
        pack = [int(c) for c in pack]
        assert sorted(pack) == list(range(48))
        self.hands = [set() for _ in range(4)]
        for packet in range(12):  # packets of three to L, P, R, D, three times round
            self.hands[(self.dealer + 1 + packet) % 4] |= set(pack[3 * packet : 3 * packet + 3])
        self.talon = pack[36:]
        self.received, self.discarded, self.played = ([set() for _ in range(4)] for _ in range(3))
        self.votes: list[bool | None] = [None] * 4
        self.recipients: tuple[int, int] | None = None
        self.sent = [set() for _ in range(4)]  # signals sent, per seat
        self.heard = [set() for _ in range(4)]  # (sender, signal) each seat has observed
        self.trick: list[tuple[int, int]] = []  # (seat, card) of the current trick
        self.results: list[int | None] = []  # each finished trick's winner, None when spoiled
        self.won = [0] * 4
        self.offerer: int | None = None
        self.refused = self.accepted = False
        self.leader = self.left = (self.dealer + 1) % 4
        self.seat = self.left
        self.phase = VOTE if self.o["chant"] else DISCARD
        if not self.o["chant"]:
            self._next_phase()

    def _next_phase(self) -> None:
        """From the phase just finished to the next one that is on (§4: vote, chant, signals, surrender, play)."""
        order = [VOTE, DISCARD, SIGNALS, OFFERS, PLAY]
        on = {VOTE: self.o["chant"], DISCARD: self.recipients is not None, SIGNALS: self.o["signals"] != "off",
              OFFERS: self.o["surrender"], PLAY: True}
        self.phase = next(p for p in order[order.index(self.phase) + 1 :] if on[p])
        self.seat = self.recipients[0] if self.phase == DISCARD else self.left

    # ------------------------------------------------------------------ §4, §5 decisions
    def to_act(self) -> int:
        return self.seat

    def _signals(self, seat: int) -> list[int]:
        """§4.5: each signal once per deal; with ``"truthful"`` only what is true of the hand now."""
        free = self.o["signals"] == "free"
        hand = self.hands[seat]
        return [SIGNAL0 + i for i in range(10) if i not in self.sent[seat] and (free or signal_is_true(i, hand))]

    def legal(self) -> list[int]:
        seat = self.seat
        if self.phase == VOTE:
            return [ACCEPT, REFUSE]
        if self.phase == DISCARD:
            return sorted(self.hands[seat])
        if self.phase == SIGNALS:
            return self._signals(seat) + [END]
        if self.phase == OFFERS:
            return [OFFER, NO_OFFER]
        if self.phase == ANSWER:
            return [ACCEPT_SURRENDER, REFUSE_SURRENDER]
        turns = self.o["signals"] != "off" and self.o["signal_timing"] == "round_and_turns"  # §4.5 windows
        return sorted(self.hands[seat]) + (self._signals(seat) if turns else [])

    def step(self, action: int, catch=(False, False)) -> str | None:
        """Take ``action`` for the seat to act; ``catch`` is the kernel's intercept draw for a signal
        (the sender's left and right opponent, §4.5). Returns ``"deal"`` when the next deal of a
        match follows (the caller deals the kernel's fresh pack), else ``None``."""
        assert action in self.legal(), (action, self.legal())
        self.step_rewards = [0.0] * 4
        seat, dealer = self.seat, self.dealer
        if SIGNAL0 <= action < END:  # §4.5; the turn stays with the sender
            self._signal(seat, action - SIGNAL0, catch)
        elif self.phase == VOTE:  # §4.1
            self.votes[seat] = action == ACCEPT
            if action == REFUSE:
                self._next_phase()
            elif seat == dealer:  # all four accepted: the chant (§4.2)
                second = dealer if self.o["chant_recipients"] == "left_and_dealer" else (dealer + 2) % 4
                self.recipients = (self.left, second)
                for i, card in enumerate(self.talon):  # t1, t3, ... to L; t2, t4, ... to the second
                    self.hands[self.recipients[i % 2]].add(card)
                    self.received[self.recipients[i % 2]].add(card)
                self._next_phase()
            else:
                self.seat = (seat + 1) % 4
        elif self.phase == DISCARD:
            self.hands[seat].remove(action)
            self.discarded[seat].add(action)
            if len(self.discarded[seat]) == 6:
                if seat == self.recipients[0]:
                    self.seat = self.recipients[1]
                else:
                    self._next_phase()
        elif self.phase == SIGNALS:  # end_signals (§4.3): the dealer's closes the round
            if seat == dealer:
                self._next_phase()
            else:
                self.seat = (seat + 1) % 4
        elif self.phase == OFFERS:  # §4.4
            if action == OFFER:
                self.offerer, self.phase, self.seat = seat, ANSWER, (seat + 1) % 4
            elif seat == dealer:
                self._next_phase()
            else:
                self.seat = (seat + 1) % 4
        elif self.phase == ANSWER:
            if action == ACCEPT_SURRENDER:
                self.accepted = True
                return self._end_deal(seat % 2, 1, -1, False)
            self.refused = True
            self.phase = OFFERS
            self._next_phase()
        else:
            return self._play(seat, action)
        return None

    def _signal(self, seat: int, signal: int, catch) -> None:
        self.sent[seat].add(signal)
        seers = [seat, (seat + 2) % 4]  # the sender and his partner
        if self.o["signal_visibility"] == "public":
            seers += [(seat + 1) % 4, (seat + 3) % 4]
        elif self.o["signal_intercept"] > 0:
            seers += [s for s, caught in zip([(seat + 1) % 4, (seat + 3) % 4], catch) if caught]
        for s in seers:
            self.heard[s].add((seat, signal))

    def _play(self, seat: int, card: int) -> str | None:
        """§5: any card; the single highest power wins, a tie for the top spoils the trick."""
        self.hands[seat].remove(card)
        self.played[seat].add(card)
        self.trick.append((seat, card))
        if len(self.trick) < 4:
            self.seat = (seat + 1) % 4
            return None
        top = max(POWER[c] for _, c in self.trick)
        best = [s for s, c in self.trick if POWER[c] == top]
        winner = best[0] if len(best) == 1 else None
        self.results.append(winner)
        if winner is not None:
            self.won[winner] += 1
            self.leader = winner
        self.trick, self.seat = [], self.leader
        return self._score() if len(self.results) == 9 else None

    # ------------------------------------------------------------------ §6 scoring and the match
    def _score(self) -> str | None:
        most = max(self.won)
        team, points, winner, mordienne = None, 0, -1, False
        if most > 0:
            count = [0] * 4
            for t, s in enumerate(self.results):  # the first to reach ``most`` tricks
                if s is not None:
                    count[s] += 1
                    if count[s] == most:
                        winner = s
                        break
            mine = [t for t, s in enumerate(self.results) if s == winner]
            mordienne = self.o["mordienne"] and mine[0] >= 1 and mine == list(range(mine[0], 9))
            team, points = winner % 2, 2 if mordienne else 1
        if self.refused:  # the refusing team (the answerer's) made its mordienne, or the offerers get 2
            refusing = (self.offerer + 1) % 2
            team, points = (refusing, 2) if team == refusing and mordienne else (1 - refusing, 2)
        return self._end_deal(team, points, winner, mordienne)

    def _end_deal(self, team: int | None, points: int, winner: int, mordienne: bool) -> str | None:
        self.points = [0, 0]
        if team is not None:
            self.points[team] = points
            self.score[team] += points
        self.deal_winner, self.mordienne = winner, mordienne
        self.deals += 1
        diff = self.points[0] - self.points[1]
        sign = (diff > 0) - (diff < 0)
        if not self.match:
            self._finish(diff if self.o["reward"] == "score" else sign)
            return None
        target = self.o["match_target"]
        over = self.deals >= self.o["match_deals"] if target is None else max(self.score) >= target
        if over:
            a, b = self.score
            self.result = 0 if a > b else 1 if b > a else 2
            self._finish(diff if self.o["reward"] == "score" else {0: 1, 1: -1, 2: 0}[self.result])
            return None
        if target is not None and self.deals >= self.o["max_deals"]:  # §9 D9: cut, the deal's points paid
            self.truncated = True
            self._finish(diff if self.o["reward"] == "score" else 0)
            return None
        self._pay(diff if self.o["reward"] == "score" else 0)
        self.dealer = (self.dealer + 1) % 4
        return "deal"

    def _pay(self, team_a: int) -> None:
        self.step_rewards = [float(team_a), float(-team_a)] * 2

    def _finish(self, team_a: int) -> None:
        self._pay(team_a)
        self.done, self.phase = True, OVER

    # ------------------------------------------------------------------ §7 what a seat sees
    def observation(self, seat: int) -> dict[str, list[int]]:
        """The observation of ``seat`` by slice name: for the ``COUNTS`` slices their values, for
        the other (0/1) slices the indices that are set (seat-relative: me, next, partner, previous; my team first)."""
        rel = lambda s: (s - seat) % 4  # noqa: E731
        o: dict[str, list[int]] = {
            "hand": sorted(self.hands[seat]), "received": sorted(self.received[seat]),
            "discarded": sorted(self.discarded[seat]), "trick": sorted(c for _, c in self.trick),
            "phase": [] if self.done else [self.phase], "to_act": [] if self.done else [rel(self.seat)],
            "dealer": [rel(self.dealer)], "leader": [rel(self.leader)] if self.phase == PLAY else [],
            "chanted": [0] if self.recipients else [],
            "chant_recipients": sorted(rel(s) for s in self.recipients or ()),
            "chant_accepted": sorted(rel(s) for s in range(4) if self.votes[s] is True),
            "chant_refused": [rel(s) for s in range(4) if self.votes[s] is False],
            "surrender_offerer": [] if self.offerer is None else [rel(self.offerer)],
            "surrender_refused": [0] if self.refused else [], "surrender_accepted": [0] if self.accepted else [],
            "trick_results": [5 * t + (4 if s is None else rel(s)) for t, s in enumerate(self.results)],
            "cards_in_trick": [len(self.trick)], "tricks_done": [len(self.results)],
            "trick_top_power": [max((POWER[c] for _, c in self.trick), default=0)],
            "trick_top": [], "trick_tied": [],
            "deals": [self.deals], "deal_points": [self.points[seat % 2], self.points[1 - seat % 2]],
            "score": [self.score[seat % 2], self.score[1 - seat % 2]],
        }
        if self.trick:
            best = [s for s, c in self.trick if POWER[c] == o["trick_top_power"][0]]
            o["trick_top" if len(best) == 1 else "trick_tied"] = [rel(best[0])] if len(best) == 1 else [0]
        for r in range(4):
            o[f"played_by[{REL[r]}]"] = sorted(self.played[(seat + r) % 4])
            o[f"tricks_won[{REL[r]}]"] = [self.won[(seat + r) % 4]]
            o[f"signals[{REL[r]}]"] = sorted(i for sender, i in self.heard[seat] if rel(sender) == r)
        return o
