"""Helpers shared by the env tests of every game."""

from __future__ import annotations


def random_steps(env, rng, n):
    """Take up to ``n`` uniformly random legal steps in a PettingZoo env (stops when the episode
    ends); returns the actions taken."""
    taken = []
    for _ in range(n):
        if any(env.terminations.values()) or any(env.truncations.values()):
            break
        a = int(rng.choice(env.legal_actions()))
        env.step(a)
        taken.append(a)
    return taken


def check_hidden_information(kernel, permute_hidden, *, batch=64, steps=160, every=8, offset=3, seed=2024,
                             render_every=8, others_notice=True):
    """Play ``batch`` random games of ``kernel``; every ``every`` steps and for every seat, move the
    cards that seat cannot see (``permute_hidden(state, b, seat, rng) -> bool``: whether anything
    moved in game ``b``) and assert that nothing the seat is shown changes: its observation, its
    own action mask, the public ``info``, its ansi render, its text view and its ``table_view`` (every
    ``render_every``-th game). With ``others_notice`` the next seat's
    observation must change (the cards really moved). Finished games are skipped.

    Returns ``(checks, moved)``: seat checks made and games in which hidden cards moved.
    """
    import numpy as np

    k = kernel
    rng = np.random.default_rng(seed)
    st = k.init(rng, batch)
    assert isinstance(k.table_view(st, 0, 0), dict), "every game has a table view"
    checks = moved = 0
    for step in range(steps):
        if step % every == offset:
            live = np.flatnonzero(~st.done)
            shown = live[::render_every]
            for seat in range(k.num_players):

                def seen(s):
                    return (
                        k.observe(s, seat),
                        k.legal_actions(s)[st.current_player == seat],
                        [k.info(s, b) for b in live],
                        [k.render(s, b, view=seat) for b in shown],
                        [k.table_view(s, b, seat) for b in shown],
                        [k.text_view(s, b, seat) for b in shown],
                    )

                before = seen(st)
                other = st.copy()
                for b in live:
                    moved += bool(permute_hidden(other, b, seat, rng))
                after = seen(other)
                assert np.array_equal(after[0], before[0]), f"seat {seat}'s observation reveals hidden cards"
                assert np.array_equal(after[1], before[1]), f"seat {seat}'s action mask reveals hidden cards"
                assert after[2] == before[2], "info reveals hidden cards"
                assert after[3] == before[3], f"seat {seat}'s render reveals hidden cards"
                assert after[4] == before[4], f"seat {seat}'s table view reveals hidden cards"
                assert after[5] == before[5], f"seat {seat}'s text view reveals hidden cards"
                if others_notice:
                    nxt = (seat + 1) % k.num_players
                    assert not np.array_equal(k.observe(other, nxt), k.observe(st, nxt)), "no hidden card moved"
                checks += 1
        mask = k.legal_actions(st)
        u = rng.random(mask.shape)
        u[~mask] = -1
        k.step(st, u.argmax(axis=1), rng)
        k.reset_done(st, rng)
    return checks, moved


def snapshot(st) -> dict:
    """Copies of every array of a kernel state, to check later that nothing changed."""
    import dataclasses

    return {f.name: getattr(st, f.name).copy() for f in dataclasses.fields(st)}


def assert_unchanged(st, snap: dict) -> None:
    """Assert every array of ``st`` equals its copy in ``snap`` (from :func:`snapshot`); names the field."""
    import numpy as np

    for name, arr in snap.items():
        assert np.array_equal(getattr(st, name), arr), name


def assert_clone_plays_on_identically(env, twin, rng, *, min_steps: int = 1) -> int:
    """``twin`` is a copy (deepcopy or pickle) of the mid-game AEC ``env``: play both on with the same
    random legal actions to the end of the episode. Before each step and after it the two must agree
    on everything an agent sees (agent to act, every agent's observation and action mask, rewards,
    cumulative rewards, terminations, truncations, infos), on every array of the game state and on
    the env's random generator (new deals are drawn from it); stepping ``env`` must leave ``twin``
    untouched (the copy shares no array). Returns the number of steps, which must reach ``min_steps``."""
    import dataclasses

    import numpy as np

    def same_state(a, b):
        return all(np.array_equal(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))

    def assert_same():
        assert twin.agent_selection == env.agent_selection
        for ag in env.possible_agents:
            o1, o2 = env.observe(ag), twin.observe(ag)
            assert np.array_equal(o1["observation"], o2["observation"]), ag
            assert np.array_equal(o1["action_mask"], o2["action_mask"]), ag
        assert twin.rewards == env.rewards and twin._cumulative_rewards == env._cumulative_rewards
        assert twin.terminations == env.terminations and twin.truncations == env.truncations
        assert twin.infos == env.infos
        assert same_state(env.game_state, twin.game_state)
        assert env._rng.bit_generator.state == twin._rng.bit_generator.state

    assert env is not twin and env.game_state is not twin.game_state
    steps = 0
    assert_same()
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        assert twin.legal_actions() == env.legal_actions()
        a = int(rng.choice(env.legal_actions()))
        before = twin.game_state.copy()
        env.step(a)
        assert same_state(twin.game_state, before), "stepping the env changed its copy"
        twin.step(a)
        steps += 1
        assert_same()
    assert steps >= min_steps, steps
    return steps
