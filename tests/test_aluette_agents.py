"""The Aluette agents: registry names, the rule bot's legality and its signal/spoiling behaviour
in set positions, and its duplicate-deal result against random (95% CI above 0)."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo import agents
from cardzoo import envs
from cardzoo.agents import RandomAgent
from cardzoo.agents.aluette_rule import AluetteRuleAgent
from cardzoo.training.arena import play_duplicate

from aluette_util import make_deck


def position(hands, script, dealer=3, **options):
    """Kernel and state after the named actions, from a stacked deal."""
    k = envs.kernel("aluette", **options)
    rng = np.random.default_rng(0)
    st = k.init(rng, 1, deck=make_deck(dealer, hands), dealer=dealer)
    for name in script.split():
        a = np.array([k.action_id(name)])
        k.check_actions(st, a)
        k.step(st, a, rng)
    return k, st


def choice(k, st, agent=None) -> str:
    agent = agent or AluetteRuleAgent(**k.options)
    a = int(agent.act(k.observe(st, st.current_player), k.legal_actions(st))[0])
    assert k.legal_actions(st)[0, a]
    return k.action_name(a)


def test_registry_names():
    assert {"aluette/random", "aluette/rule"} <= set(agents.available())
    assert isinstance(agents.load("aluette/random", seed=1, signals="free"), RandomAgent)
    rule = agents.load("aluette/rule", signals="off")
    assert isinstance(rule, AluetteRuleAgent) and rule.kernel.options["signals"] == "off"
    with pytest.raises(ValueError, match="signals"):
        agents.load("aluette/random", signals="on")


def test_rule_agent_sends_only_true_signals_then_ends():
    hands = {0: "3Cu ASw 4Co 5Co 6Co 7Co 8Co JCo NCo"}
    k, st = position(hands, "", dealer=3, chant=False, signals="free")
    sent = []
    while int(st.current_player[0]) == 0 and int(st.phase[0]) == 2:
        name = choice(k, st)
        sent.append(name)
        k.step(st, np.array([k.action_id(name)]), np.random.default_rng(0))
    assert sent == ["madame", "as", "end_signals"]


def test_rule_agent_spoils_an_opponents_trick_it_cannot_win():
    # S1 leads an ace, S2 (rule) holds another ace as its best card: it plays the ace to spoil
    hands = {1: "ACo", 2: "ACu 4Co 5Co 6Co 7Co 8Co 4Cl 5Cl 6Cl"}
    k, st = position(hands, "ACo", dealer=0, chant=False, signals="off")
    assert choice(k, st) == "ACu"


def test_rule_agent_does_not_tie_its_partners_card_and_lets_a_signalled_partner_win():
    # S0 leads KCo; S2 holds KCu (equal power) and low cards: it must not spoil its partner's king
    hands = {0: "KCo", 2: "KCu 4Co 5Co 6Co 7Co 8Co 4Cl 5Cl 6Cl", 1: "4Sw 5Sw 6Sw 7Sw 8Sw JSw NSw 4Cu 5Cu"}
    k, st = position(hands, "KCo 4Sw", dealer=3, chant=False, signals="off")
    assert choice(k, st) == "4Co"
    # S3 leads KCo; S0 holds 3Cu but its partner S2 signalled monsieur and plays after it: S0 keeps 3Cu
    hands = {3: "KCo 4Sw 5Sw 6Sw 7Sw 8Sw JSw NSw 4Cu", 0: "3Cu 4Co 5Co 6Co 7Co 8Co 4Cl 5Cl 6Cl",
             2: "3Co 9Cl KSw 5Cu 6Cu 7Cu 8Cu JCu NCu"}
    k, st = position(hands, "end_signals end_signals end_signals monsieur end_signals KCo", dealer=2, chant=False)
    assert int(st.current_player[0]) == 0
    assert choice(k, st) == "4Co"
    # without the signal it takes the trick with its cheapest winner
    k, st = position(hands, "KCo", dealer=2, chant=False, signals="off")
    assert choice(k, st) == "3Cu"


def test_rule_agent_leads_a_sure_winner():
    hands = {0: "3Co 4Co 5Co 6Co 7Co 8Co 4Cl 5Cl 6Cl"}
    k, st = position(hands, "", dealer=3, chant=False, signals="off")
    assert choice(k, st) == "3Co"


# ----------------------------------------------------------------------------- terminal play (RULES.md §7)
@pytest.mark.parametrize("seed", range(4))
def test_terminal_play_hides_opponents_signals_and_announces_tricks(seed):
    from cardzoo.training.play import play

    said = []
    returns = play("aluette", "aluette/rule", "aluette/rule", seed=seed, read=lambda p: "0", write=said.append)
    assert returns is not None
    text = "\n".join(said)
    assert "player_2 signals" in text or "player_2 says end_signals" in text
    assert "player_1 signals" not in text and "player_3 signals" not in text
    tricks = [x for x in said if x.startswith("-- trick ")]
    assert len(tricks) == 9
    assert all(("won by player_" in x) or ("spoiled" in x) for x in tricks)
    # the same facts as the final state: one line per trick, spoiled ones marked
    assert [x.split()[2] for x in tricks] == [str(i) for i in range(1, 10)]


def test_announce_hides_discards_and_uncaught_signals():
    k = envs.kernel("aluette")
    rng = np.random.default_rng(0)
    st = k.init(rng, 1, deck=make_deck(0), dealer=0)
    for _ in range(4):
        k.step(st, np.array([48]), rng)  # everybody accepts the chant
    before = st.copy()
    card = int(np.flatnonzero(k.legal_actions(st)[0, :48])[0])
    k.step(st, np.array([card]), rng)
    assert k.announce(before, st, card, 1, 0) == ["player_1 discards a card"]
    assert k.announce(before, st, card, 1, 1) == []


def test_signals_are_worth_something_to_the_rule_bot():
    """The rule bot that signals and reads its partner's signals beats its own signal-less variant."""
    r = play_duplicate("aluette", AluetteRuleAgent(), AluetteRuleAgent(use_signals=False), 2000, seed=0)
    assert r.diff_ci[0] > 0, r
    with_off = AluetteRuleAgent(use_signals=False)
    k = envs.kernel("aluette", chant=False)
    st = k.init(np.random.default_rng(0), 64)
    assert (with_off.act(k.observe(st, st.current_player), k.legal_actions(st)) == 60).all()  # end_signals at once


def test_action_is_public():
    k = envs.kernel("aluette")
    rng = np.random.default_rng(0)
    st = k.init(rng, 1, deck=make_deck(0), dealer=0)
    assert k.action_is_public(st, 0, 48)  # votes are public
    for _ in range(4):
        k.step(st, np.array([48]), rng)
    card = int(np.flatnonzero(k.legal_actions(st)[0, :48])[0])
    assert not k.action_is_public(st, 0, card)  # a discard
    assert not k.action_is_public(st, 0, 50)  # a partner-only signal
    assert envs.kernel("aluette", signal_visibility="public").action_is_public(st, 0, 50)


def test_silent_wrapper_sends_nothing_and_otherwise_plays_the_wrapped_agents_move():
    from cardzoo.agents.silent import Silent

    k = envs.kernel("aluette")
    rule = AluetteRuleAgent()
    silent = Silent.aluette(rule)
    st = k.init(np.random.default_rng(4), 300)
    rng = np.random.default_rng(5)
    saw_signal_round = differed_elsewhere = 0
    for _ in range(60):
        live = np.flatnonzero(~st.done)
        if live.size == 0:
            break
        obs, mask = k.observe(st, st.current_player), k.legal_actions(st)
        a = silent.act(obs[live], mask[live])
        assert mask[live, a].all()
        assert not ((a >= 50) & (a < 60)).any()  # never a signal
        signal_round = mask[live, 50:60].any(axis=1)
        saw_signal_round += int(signal_round.sum())
        plain = ~mask[live, 50:61].any(axis=1)
        assert np.array_equal(a[plain], rule.act(obs[live][plain], mask[live][plain]))  # same move elsewhere
        differed_elsewhere += int(plain.sum())
        acts = np.zeros(st.batch_size, dtype=np.int64)
        acts[live] = a
        k.step(st, acts, rng, active=~st.done)
    assert saw_signal_round > 100 and differed_elsewhere > 1000


def test_silent_rule_bot_plays_exactly_like_the_rule_bot_without_signals():
    """Two silent rule bots against the rule bot that neither sends nor reads signals: nobody
    signals, so both teams play the same way and every duplicate deal is exactly even."""
    from cardzoo.agents.silent import Silent

    r = play_duplicate("aluette", Silent.aluette(AluetteRuleAgent()), AluetteRuleAgent(use_signals=False), 200, seed=2)
    assert r.mean_diff == 0.0 and (r.deal_diff == 0).all()


def test_signal_study_rows():
    from cardzoo.training.aluette_signals import study

    rows = study(AluetteRuleAgent(), AluetteRuleAgent(use_signals=False), 60, seed=1)
    assert [(r["agent_a"], r["agent_b"], r["table"]) for r in rows] == [
        ("trained (on)", "trained (off), silent", "channel on"),
        ("trained (on)", "aluette/rule", "channel on"),
        ("trained (off), silent", "aluette/rule", "channel on"),
        ("trained (off)", "aluette/rule", "channel off"),
    ]
    assert rows[3]["env_options"] == {"signals": "off"}
    assert rows[1]["mean_diff"] == 0.0  # the rule bot against itself


def test_rule_bot_use_signals_must_be_a_bool():
    with pytest.raises(ValueError, match=r"use_signals='no' is not valid; valid values: True, False"):
        AluetteRuleAgent(use_signals="no")
