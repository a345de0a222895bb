"""Option sweep: every value of every option of every game, one option changed at a time.

The cases are read from the kernels' own ``OPTIONS`` declarations (``cardzoo.envs.kernel_class(game).OPTIONS``),
so an option added to a kernel is swept without touching this file:

* a choice option (``Option(default, choices=...)``, bools included: ``bool_option`` declares
  ``choices=(True, False)``): every choice;
* a checked option (``int_option`` and the games' own ranges): the smallest and the largest valid
  value, read from the words of its ``valid`` text ("an int from 1 to 200", "a number from 0 to 1",
  "None or an int from 1 to 100"; ``None`` too where the text allows it).
  ``test_every_checked_option_declares_a_range`` checks that the declared check accepts both ends
  and refuses the values just outside, so the text and the check cannot drift apart; an option
  whose text names no closed range fails collection loudly.

Each value is swept from two bases: the defaults (what the task asks: one option changed from the
defaults), and ``CAPPED``, the game's long form (a match; P'yanitsa a small ``max_battles``) with a
small safety cap, where the options that act only in a match (targets, deal counts, match caps)
take effect and runs end both at the match's end and by truncation. A value equal to the base's is
the base's own case (``GAME-defaults``, ``GAME-capped``).

Refused at construction: only the cases in ``EXPECTED_REFUSALS``,
``ottocento-defaults-declarations_win_immediately=True`` ("needs match mode: set match_target"),
whose ``ValueError`` and message are checked; it is swept in the capped base, which sets
``match_target``. Any other refused case fails.

Each case plays ``EPISODES`` seeded episodes of random legal play through the AEC env
(``render_mode="ansi"``) and checks at every step: the acting agent's mask has a legal action and
``legal_actions()`` agrees with it, its observation is in its space, the rewards are finite, the
episode stays within ``kernel.max_episode_steps`` live steps. The other seats' observations (in
their space, zero masks), ``render()``, every seat's ``text_observation`` (printable ASCII:
the text wrapper's space) and ``table_view`` (JSON-able, naming the seat to act) and ``state()`` (in ``state_space``) are checked at every step
of the first ``TEXT_STEPS`` of an episode and every ``TEXT_EVERY``-th after (they cost ~0.3 ms a
step; a few cases run thousands of steps). At the end: every agent terminated or truncated (one
of the two, the same for all), a truncation named in the infos (``"truncation"``) and no such key
otherwise, partners' returns equal and, the games being zero-sum, the returns sum to 0 over the
sides; the views again with nobody to act. Then the batched kernel runs ``B`` = 16 games of the
option set to the end (no reset) with the same checks on its arrays (legal actions exactly in the
live games, every seat's observation within the layout's bounds, finite zero-sum rewards, steps
within ``max_episode_steps``, truncated only when done, returns and truncation infos as above).

Run time: about 50 s on one core of the shared 2-core machine under load (~250 cases, compiled
rules loaded from cache); every case plays to its natural end or its option's own cap.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from cardzoo.envs import GAMES, kernel, kernel_class
from cardzoo.envs import make as envs_make

EPISODES = 3
B = 16
TEXT_STEPS, TEXT_EVERY = 150, 10  # the text views and other seats' observations: every step of the first
# TEXT_STEPS of an episode, then every TEXT_EVERY-th (they cost ~0.3 ms a step; long matches run thousands)

_RANGE = re.compile(r"from (-?\d+(?:\.\d+)?) to (-?\d+(?:\.\d+)?)")


def checked_values(opt) -> list:
    """The smallest and largest valid value of a checked (non-choice) option, from its ``valid`` text;
    ``None`` first where the text allows it. ``ValueError`` when the text names no closed range."""
    m = _RANGE.search(opt.valid)
    if m is None:
        raise ValueError(f"no range 'from LO to HI' in the option's valid text {opt.valid!r}")
    cast = float if opt.valid.lstrip().startswith(("a number", "None or a number")) else int
    lo, hi = cast(m.group(1)), cast(m.group(2))
    return ([None] if "None" in opt.valid else []) + [lo, hi]


def option_values(opt) -> list:
    return list(opt.choices) if opt.choices is not None else checked_values(opt)


def _same(a, b) -> bool:
    return type(a) is type(b) and a == b


#: a second base per game, where the options that act only in a match (targets, deal counts, the
#: match caps) take effect: the game's long form with a small safety cap, so that runs end both at
#: the match's end and by truncation. The sweep changes one option at a time from each base (a swept
#: cap replaces the base's).
CAPPED: dict[str, dict] = {
    "all_fours": {"episode": "match", "max_hands": 10},
    "avinas": {"episode": "match", "max_deals": 10},
    "aluette": {"episode": "match", "max_deals": 6},
    "ottocento": {"match_target": 800, "max_deals": 4},
    "pyanitsa": {"max_battles": 100},
}
assert set(CAPPED) == set(GAMES), "every game needs its capped base"


def _sweep() -> list:
    cases = []
    for game in sorted(GAMES):
        options = kernel_class(game).OPTIONS
        for label, base in (("defaults", {}), ("capped", CAPPED[game])):
            assert set(base) <= set(options), (game, "CAPPED names an option the kernel does not have")
            cases.append(pytest.param(game, dict(base), id=f"{game}-{label}"))
            for name, opt in options.items():
                for value in option_values(opt):
                    if _same(value, base.get(name, opt.default)):
                        continue  # the base's own case
                    cases.append(pytest.param(game, {**base, name: value}, id=f"{game}-{label}-{name}={value}"))
    return cases


SWEEP = _sweep()


def _checked_options():
    return [
        pytest.param(game, name, id=f"{game}-{name}")
        for game in sorted(GAMES)
        for name, opt in kernel_class(game).OPTIONS.items()
        if opt.choices is None
    ]


@pytest.mark.parametrize("game, name", _checked_options())
def test_every_checked_option_declares_a_range(game, name):
    """The swept ends of a checked option are valid and the values just outside them are not."""
    opt = kernel_class(game).OPTIONS[name]
    values = checked_values(opt)
    assert opt.check(opt.default), (name, opt.default)
    lo, hi = values[-2], values[-1]
    step = 1 if isinstance(lo, int) else 1e-9
    for v in values:
        assert opt.check(v), f"{game} {name}={v!r} is in the declared range {opt.valid!r} but refused"
    for v in (lo - step, hi + step):
        assert not opt.check(v), f"{game} {name}={v!r} is outside {opt.valid!r} but accepted"
    assert opt.check(None) == ("None" in opt.valid)


#: the only swept cases refused at construction, with a word of the message each must give; every
#: other case must build (a valid value refused by mistake fails the sweep, it is not skipped)
EXPECTED_REFUSALS: dict[str, str] = {
    "ottocento-defaults-declarations_win_immediately=True": "match_target",
}


def _build(game, options, case_id):
    if case_id in EXPECTED_REFUSALS:
        with pytest.raises(ValueError, match=EXPECTED_REFUSALS[case_id]):
            kernel(game, **options)
        return None
    return kernel(game, **options)


def _printable(text) -> bool:
    """A ``str`` within :class:`~cardzoo.envs.core.aec.TextObservationWrapper`'s ``Text`` charset:
    printable ASCII and newlines (an Ottocento line once said "§11.5")."""
    return isinstance(text, str) and all(" " <= c <= "~" or c == "\n" for c in text)


def _finite(x) -> bool:
    return all(math.isfinite(v) for v in x)


def _check_sides(k, returns, where) -> None:
    returns = np.asarray(returns, dtype=np.float64)
    assert np.isfinite(returns).all(), where
    sides = k.sides()
    for side in sides:
        assert np.allclose(returns[side], returns[side[0]], atol=1e-5), (where, "partners' returns differ", returns)
    if k.zero_sum:
        side_returns = [returns[side[0]] for side in sides] if k.teams else list(returns)
        assert abs(sum(side_returns)) < 1e-4, (where, "returns do not sum to 0 over the sides", returns)


def _check_table_view(env, agent, to_act, where) -> None:
    """The web table's view of ``agent``: JSON-able, and it names the seat to act (``None`` once over)."""
    view = env.unwrapped.table_view(env.agent_name_mapping[agent])
    json.dumps(view)
    assert view["to_act"] == to_act, (where, agent, view["to_act"], to_act)


def _play_aec(game, options, k, seed) -> None:
    env = envs_make(game, render_mode="ansi", **options)
    cap = k.max_episode_steps
    rng = np.random.default_rng(seed)
    for episode in range(EPISODES):
        where = (game, options, seed, episode)
        env.reset(seed=seed * 10 + episode)
        returns = dict(env.rewards)  # a game can end (and pay) while dealing
        assert _finite(returns.values()), where
        steps = 0
        while not (any(env.terminations.values()) or any(env.truncations.values())):
            agent = env.agent_selection
            obs = env.observe(agent)
            assert env.observation_space(agent).contains(obs), (where, steps, agent)
            mask = obs["action_mask"]
            legal = env.legal_actions()
            assert legal and mask.any(), (where, steps, "no legal action")
            assert legal == np.flatnonzero(mask).tolist(), (where, steps)
            if steps < TEXT_STEPS or steps % TEXT_EVERY == 0:
                for other in env.agents:
                    if other != agent:
                        o = env.observe(other)
                        assert env.observation_space(other).contains(o), (where, steps, other)
                        assert not o["action_mask"].any(), (where, steps, other)
                    assert _printable(env.unwrapped.text_observation(other))
                    _check_table_view(env, other, env.agent_name_mapping[agent], where)
                assert isinstance(env.render(), str)
                assert env.state_space.contains(env.state()), (where, steps, "global state")
            env.step(int(rng.choice(legal)))
            steps += 1
            assert _finite(env.rewards.values()), (where, steps, env.rewards)
            for a, r in env.rewards.items():
                returns[a] += r
            assert cap is None or steps <= cap, (where, steps, cap)
        assert cap is None or steps <= cap, (where, steps, cap)
        term, trunc = env.terminations, env.truncations
        assert all(term[a] != trunc[a] for a in env.agents), (where, term, trunc)
        assert len(set(term.values())) == 1, (where, term)
        st = env.game_state
        assert bool(st.done[0]) and bool(st.truncated[0]) == trunc[env.agents[0]], where
        for agent in env.agents:  # every kernel's info names the cap that cut a truncated episode
            reason = env.infos[agent].get("truncation")
            assert (isinstance(reason, str) and reason) if trunc[agent] else reason is None, (where, env.infos[agent])
        for agent in env.agents:
            assert _printable(env.unwrapped.text_observation(agent))
            assert env.observation_space(agent).contains(env.observe(agent)), where
            _check_table_view(env, agent, None, where)
        assert env.state_space.contains(env.state()), (where, "global state")
        assert isinstance(env.render(), str)
        _check_sides(k, [returns[a] for a in env.possible_agents], where)
        for a in env.possible_agents:  # PettingZoo's cumulative reward of the last step
            assert math.isfinite(env._cumulative_rewards[a]), where
        while env.agents:  # dead steps
            env.step(None)


def _play_batch(k, seed) -> None:
    rng = np.random.default_rng(seed)
    st = k.init(rng, B)
    high = k.obs_layout.high()
    cap = k.max_episode_steps
    returns = st.rewards.astype(np.float64)
    steps = np.zeros(B, dtype=np.int64)
    for t in range(cap + 1 if cap is not None else 100_000):  # a game may take exactly cap steps
        if st.done.all():
            break
        live = ~st.done
        mask = k.legal_actions(st)
        assert (mask.any(axis=1) == live).all(), (t, "a live game without a legal action, or a done one with one")
        seat = st.current_player.astype(np.int64)
        assert ((seat >= 0) & (seat < k.num_players))[live].all(), t
        for s in range(k.num_players):
            assert (k.observe(st, s) <= high).all(), (t, s)
        u = rng.random(mask.shape)
        u[~mask] = -1
        k.step(st, u.argmax(axis=1), rng, active=live)
        steps += live
        assert np.isfinite(st.rewards).all(), t
        if k.zero_sum:
            assert np.allclose(st.rewards.sum(axis=1), 0, atol=1e-5), t
        returns += st.rewards
        assert (st.done | ~st.truncated).all(), t
    else:
        pytest.fail(f"the batch is not done after {t} steps (max_episode_steps {cap})")
    if cap is not None:
        assert (steps <= cap).all(), (steps.max(), cap)
    assert not k.legal_actions(st)[st.done].any()
    for b in np.flatnonzero(st.done):
        _check_sides(k, returns[b], ("batch game", int(b)))
        assert ("truncation" in k.info(st, b)) == bool(st.truncated[b]), (int(b), k.info(st, b))
    for b in range(min(B, 2)):
        assert isinstance(k.render(st, b), str)
        for s in range(k.num_players):
            assert _printable(k.text_view(st, b, s))


def test_expected_refusals_are_swept_cases():
    """Each expected refusal names a case of the sweep (a renamed option cannot leave a stale entry)."""
    assert set(EXPECTED_REFUSALS) <= {p.id for p in SWEEP}


@pytest.mark.parametrize("game, options", SWEEP)
def test_option_value_plays_to_the_end(game, options, request):
    k = _build(game, options, request.node.callspec.id)
    if k is None:  # refused as expected (EXPECTED_REFUSALS), with the message checked
        return
    seed = sum(map(ord, repr(sorted(options.items())))) % 1000
    _play_aec(game, options, k, seed)
    _play_batch(k, seed)


def test_ottocento_negative_match_score_is_clipped_not_wrapped():
    """Found by the sweep's extreme value last_trick_bonus=-1000 (RULES.md §8) in a
    match: min(score // 8, 255) written into a uint8 wrapped a negative score to a large one (-683 points
    showed as 85 units, 340 points); it is clipped to 0..255 as RULES.md §11.6 says."""
    k = kernel("ottocento", match_target=800, last_trick_bonus=-1000)
    rng = np.random.default_rng(0)
    st = k.init(rng, 1)
    while not st.done[0] and st.score[0].min() >= 0:
        mask = k.legal_actions(st)[0]
        k.step(st, np.array([rng.choice(np.flatnonzero(mask))]), rng)
    score = st.score[0].astype(np.int64)  # half-points per team
    assert score.min() < 0, "a negative match score was reached"
    e = next(e for e in k.obs_layout.entries if e.name == "match_score")
    for seat in range(4):
        mine = seat % 2
        got = k.observe(st, seat)[0, e.start : e.stop].tolist()
        want = np.clip(score[[mine, 1 - mine]] // 8, 0, 255).tolist()  # units of 4 points, clipped
        assert got == want, (seat, score.tolist(), got, want)
