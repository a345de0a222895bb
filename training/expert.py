"""Expert iteration: label positions with PIMC search, distil the labels into a policy network.

Three steps, each a function and a ``cardzoo`` command (the recipe and measurements: training/EXPERT.md):

1. :func:`label_positions` (``cardzoo label``) plays deals between a saved policy (one side,
   drawn per deal from ``kernel.sides()``, sampling its actions) and an opponent agent (the other
   sides), so the positions are the ones the policy meets. Every decision with a choice is one of
   two **decision types**:

   * ``"cards"``: every legal action is a card (action id ``< kernel.deck.n``): card play;
   * ``"others"``: some legal action is not a card (``>= kernel.deck.n``): bids, declarations,
     signals, stand/beg, give one/run, pass, ...

   For each it records the acting seat's observation and action mask, and, for the types in
   ``search_on``, the PIMC action values of :class:`cardzoo.agents.search.PIMCSearch`
   (``n_det`` determinizations, the rollout agent in every seat).
2. :func:`distil` (``cardzoo distil``) starts from the saved policy and trains its actor, per
   decision type in its own ``search_on``, with cross-entropy towards
   ``p_start(a)**prior * exp(q(a) / tau)`` over the legal actions (a KL-regularised improvement of
   the starting policy by the search's values: with a small ``tau`` it moves to PIMC's best
   action where the values are clearly apart and keeps its own choice among near-equal ones),
   while a KL term keeps the other type where the starting policy had it. It reports held-out
   agreement with PIMC and regret per decision type, for the starting policy and the result, so
   which type to distil is decided by measurement, together with the arena (as for All Fours:
   search taught its card play, not its bids; agents/shipped/README.md). ``tau = 0`` is PIMC's
   best action (a hard label).
3. :func:`expert_iterate` (``cardzoo expert-iterate``) runs rounds of label -> distil -> label
   with the new policy ..., each round in its own folder, with a table and plot of held-out
   regret per type and an arena result against the rule bot per round.

Label files are ``.npz`` with

* ``obs`` ``uint8[N, D]``, ``mask`` ``bool[N, A]``, ``q`` ``float32[N, A]``: card decisions
  (``q``: PIMC values, NaN where illegal; all NaN when cards were not searched);
* ``other_obs`` ``uint8[M, D]``, ``other_mask`` ``bool[M, A]``, ``other_q`` ``float32[M, A]``:
  the other decisions, the same way;
* ``labelled`` ``str[k]``: the decision types that carry values (``"cards"``, ``"others"``);
* ``deals``, ``deals_asked``: the deals labelled and the deals asked for (fewer labelled: the run
  was interrupted); ``game`` and ``env_options`` (JSON): the game and the policy's options the
  positions come from (:func:`distil` refuses labels of another game or options; files written
  before these keys lack them); ``labelling`` (JSON): who played and searched, ``{"policy",
  "opponents", "rollout", "rollout_opponents" (null: the rollout agent's own), "n_det", "seed"}`` (for the record; files written
  before 2026-12-04 lack it).

Files written before decision types (keys ``bid_obs``/``bid_mask``, no ``other_q`` nor
``labelled``) still load: their bids become the ``other_*`` positions without values
(``labelled = ("cards",)``). Labelling costs about 45 positions per second per core (All Fours,
``n_det=32``), so run one ``cardzoo label`` per core with different seeds and pass all files
to ``cardzoo distil``.

The search reads the game state (``Kernel.determinize``, every game) and plays each rollout to
the end of the episode, so the kernel is built with the policy's own options, which must end
episodes with the deal (All Fours ``episode="hand"``; no ``match_target``).
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import shutil
import time
from pathlib import Path

import numpy as np

from cardzoo import agents
from cardzoo import envs
from cardzoo.agents.policy import load_policy_agent, save_policy_agent
from cardzoo.agents.search import PIMCSearch

from .common import api_error

__all__ = [
    "label_positions", "load_labels", "distil", "distillation_target", "agreement_and_regret", "regret_change", "expert_iterate",
    "LABEL_KEYS", "DECISION_TYPES", "parse_search_on", "LabellingInterrupted",
]

#: the decision types: card play, and everything else (bids, declarations, signals, ...)
DECISION_TYPES = ("cards", "others")
#: the arrays of a label file (plus ``labelled``, the types with values)
LABEL_KEYS = ("obs", "mask", "q", "other_obs", "other_mask", "other_q")
#: label-file keys of each decision type: (observations, masks, values)
TYPE_KEYS = {"cards": ("obs", "mask", "q"), "others": ("other_obs", "other_mask", "other_q")}
_SEARCH_ON_WORDS = {"cards": ("cards",), "others": ("others",), "all": DECISION_TYPES, "none": ()}


def parse_search_on(search_on, what: str | None = "search_on", distilled: bool = False) -> tuple[str, ...]:
    """Decision types from ``"cards"``, ``"others"``, ``"all"``, ``"none"`` or a sequence of
    ``"cards"``/``"others"``; returned in :data:`DECISION_TYPES` order.

    Raises ``ValueError`` naming the valid values for anything else; its message calls the value
    ``what`` (the keyword; ``None`` where the caller names it, as the CLI names its flag). ``distilled``:
    the types to distil, where ``"none"`` is refused (it distils nothing) and not listed as valid.
    """
    said = f"{what} " if what else ""
    valid = sorted(w for w in _SEARCH_ON_WORDS if not (distilled and w == "none"))
    words = [search_on] if isinstance(search_on, str) else list(search_on)
    if distilled and "none" in words:
        raise ValueError(f"{said}'none' distils nothing; valid: {valid}")
    if "none" in words and len(words) > 1:
        raise ValueError(f"{said}{words} is contradictory: 'none' cannot be combined with other values")
    out: set[str] = set()
    for w in words:
        if not isinstance(w, str) or w not in valid:
            raise ValueError(
                f"unknown {said}value {w!r}; valid: {valid} "
                "(cards: card play; others: bids, declarations, signals and other non-card decisions)"
            )
        out.update(_SEARCH_ON_WORDS[w])
    return tuple(t for t in DECISION_TYPES if t in out)


def decision_types(mask: np.ndarray, n_cards: int) -> np.ndarray:
    """``int8[B]`` per legal mask ``bool[B, A]``: 0 card decision (every legal action
    ``< n_cards``), 1 other decision (a legal action ``>= n_cards``), -1 no choice (one legal action or none)."""
    kind = np.where(mask[:, n_cards:].any(axis=1), 1, 0).astype(np.int8)
    kind[mask.sum(axis=1) < 2] = -1
    return kind


def _check_int(name: str, value, least: int = 1) -> int:
    """``value`` as an ``int`` if it is an integer (numpy ones too, not a ``bool``) of at least ``least``;
    else ``ValueError`` naming ``name`` (the keyword), the value and what is valid. An int below ``least``
    gets the message it always got ("n_games must be >= 1, got 0")."""
    from cardzoo.envs.core.kernel import is_int

    if not is_int(value):
        raise ValueError(f"{name} must be an int >= {least}, got {value!r}")
    if value < least:
        raise ValueError(f"{name} must be >= {least}, got {int(value)}")
    return int(value)


def _check_seed(seed, name: str = "seed") -> int:
    """``seed`` as an ``int`` from 0 to :data:`~cardzoo.training.common.SEED_MAX` (what ``--seed`` takes: the
    seeds numpy, SB3 and torch all take); else ``ValueError`` naming ``name`` (``None`` is refused: it seeds
    the labels, the split and the training, which are reproducible)."""
    from .common import SEED_MAX

    seed = _check_int(name, seed, 0)
    if seed > SEED_MAX:
        raise ValueError(f"{name} must be at most {SEED_MAX} (2**32 - 1, the seeds SB3 and torch take), got {seed}")
    return seed


def _label_file_list(files, name: str = "files") -> list[Path]:
    """The label files of :func:`load_labels` and :func:`distil` as a list of ``Path``: one path (a ``str``
    or ``os.PathLike``) is a list of one, a list or tuple holds paths. Anything else, an empty or blank
    path, raises ``ValueError`` naming ``name`` (one string was read letter by letter: "label file / is
    given twice", and a ``Path`` said "'PosixPath' object is not iterable")."""
    example = "['labels.npz', 'labels_1.npz']"
    if isinstance(files, (str, os.PathLike)):
        files = [files]
    elif not isinstance(files, (list, tuple)):
        raise ValueError(f"{name} must be a label file's path or a list of them (e.g. {example}), got {type(files).__name__} {files!r}")
    out = []
    for f in files:
        if not isinstance(f, (str, os.PathLike)):
            raise ValueError(f"{name} must hold paths of label files (str or pathlib.Path, e.g. {example}), got "
                             f"{type(f).__name__} {f!r} among them")
        if isinstance(f, str) and not f.strip():  # Path("") is the current folder: "no label file at ."
            raise ValueError(f"{name} holds {f!r}, an empty path: give the label files of label_positions, e.g. {example}")
        out.append(Path(f))
    return out


def _check_labelling_kernel(kernel) -> None:
    from cardzoo.envs.core.kernel import Kernel

    if type(kernel).determinize is Kernel.determinize:  # the base class's raises NotImplementedError
        raise ValueError(f"{kernel.name} has no determinize(): PIMC labels need a kernel that can redeal hidden cards")


def label_positions(
    game: str,
    policy: str,
    n_games: int,
    out,
    *,
    n_det: int = 32,
    seed: int = 0,
    batch: int = 256,
    opponent: str | None = None,
    rollout: str | None = None,
    rollout_opponents: str | None = None,
    search_on=DECISION_TYPES,
    progress: bool = True,
    overwrite: bool = False,
) -> dict[str, int]:
    """Play ``n_games`` deals (``batch`` at a time, the last batch smaller if need be) and write PIMC
    labels to ``out`` (.npz: the arrays of :data:`LABEL_KEYS`, as the module docstring lays them
    out: ``obs uint8[N, D]``, ``mask bool[N, A]``, ``q float32[N, A]`` and their ``other_*`` twins).
    An existing ``out`` is refused (``FileExistsError``) unless ``overwrite``.

    Args:
        game: a name of :data:`cardzoo.envs.GAMES`; the kernel is built with the policy's
            ``env_options`` (its episodes must end with the deal: PIMC rollouts play to the end).
        policy: saved policy directory (or registry name of one, e.g. ``"all_fours/ppo"``) that
            plays one side, sampling from its action distribution; the side is drawn per deal
            from ``kernel.sides()`` (teams, or single seats in P'yanitsa).
        n_games: deals to play (>= 1).
        out: the label file (its name must end in ``.npz``), written after every batch through a
            temporary file and a rename, so a run stopped at any moment leaves a loadable file
            with the deals labelled so far.
        n_det: determinizations per labelled decision.
        seed: seeds the deals, the side draw, the policy's sampling and the search.
        batch: deals played at once (at most; the last batch plays only the deals left).
        opponent: agent of the other sides (default ``"<game>/rule"``), or several: names joined by
            commas (``"pyanitsa/rule,random"``; an existing path or ``exec:`` command is one name) or
            a list; deal ``i`` (counted in this run) is played against name ``i % n``.
        rollout: the agent of the search's rollouts (default ``"<game>/rule"``): it plays the
            searched seat, and every other seat unless ``rollout_opponents`` models them otherwise.
        rollout_opponents: the rollout agent's model of the other seats, given to it as its
            ``rollout_opponents`` parameter (``all_fours/rule``: ``"rule"``, ``"random"``;
            ``pyanitsa/rule``: also ``"mixed"``); ``None`` or ``"rule"``: every seat plays the rollout
            agent itself (recorded as ``None``). Refused when ``search_on`` searches nothing.
        search_on: decision types that get PIMC values (:func:`parse_search_on`: ``"cards"``,
            ``"others"``, ``"all"``, ``"none"`` or a sequence; default both); the positions of
            the other types are stored without values (for the KL term of :func:`distil`).

    Returns:
        counts ``{"games", "card_positions", "other_positions"}``.

    Raises:
        ValueError: a game without ``determinize``, a policy whose options do not end episodes
        with the deal, ``n_games``/``batch``/``n_det`` that is not an int >= 1 (``n_det`` at most
        4096, PIMC's limit), a ``seed`` that is not an int from 0 to 2**32 - 1, an unknown
        ``search_on``, an output name without ``.npz``, a policy/opponent/rollout agent for
        another game or trained for other options than the policy's, an ``exec:`` opponent, or
        ``rollout_opponents`` for a rollout agent without that model; ``FileNotFoundError`` / ``OSError`` for a missing policy path or an output
        that cannot be written (checked before any deal is played).
    """
    from tqdm import tqdm

    # every number before anything is read or written: n_games=1.5 labelled a deal, then blamed batch (0.5);
    # True was 1, "2" and seed=None raised raw TypeErrors. n_det's upper limit is PIMCSearch's (checked before any file)
    n_games, batch, n_det = (_check_int(name, v) for name, v in (("n_games", n_games), ("batch", batch), ("n_det", n_det)))
    seed = _check_seed(seed)
    searched = parse_search_on(search_on)
    if not searched and rollout_opponents not in (None, "rule"):
        said = "has no effect: no decision is searched ({}), so no rollout is played"
        raise api_error(ValueError, f"rollout_opponents={rollout_opponents!r} " + said.format(f"search_on={search_on!r}"),
                         f"--rollout-opponents {rollout_opponents} " + said.format("--label-search-on none"))
    out = Path(out)
    if out.suffix != ".npz":
        raise ValueError(f"label file {str(out)!r} must be named *.npz (e.g. labels.npz)")
    if out.is_dir():
        raise ValueError(f"cannot write labels to {out}: it is a folder")
    from .common import check_can_write, missing_folder_error

    if not out.resolve().parent.is_dir():
        raise missing_folder_error(out, "labels to")

    check_can_write(out, "labels to")  # /proc/l.npz: refused now, not after the first batch is labelled
    if out.exists() and not overwrite:  # the Python caller is told the keyword, cardzoo label the flag
        said = f"label file {out} exists; a run never overwrites another: choose a new name, or "
        raise api_error(FileExistsError, said + "pass overwrite=True to replace it", said + "give --overwrite to replace it")
    _check_labelling_kernel(envs.kernel(game))
    pol = _load_policy(policy, game, deterministic=False, seed=seed)
    env_options = dict(pol.meta.get("env_options") or {})
    kernel = envs.kernel(game, **env_options)
    opp_names, opps, roll = labelling_agents(game, env_options, opponent, rollout, rollout_opponents, seed)
    # the model the rollout agent plays, given by the flag or in its name (pyanitsa/rule:rollout_opponents=mixed);
    # its own ("rule") is recorded as the default, null, as expert-iterate does
    rollout_opponents = rollout_setting(getattr(roll, "rollout_opponents", None))
    if not searched and rollout_opponents is not None:  # the model named in --rollout NAME:rollout_opponents=...
        said = f"plays rollout_opponents={rollout_opponents!r}, which has no effect: no decision is searched ({{}}), so no rollout is played"
        raise api_error(ValueError, f"rollout={rollout!r} " + said.format(f"search_on={search_on!r}"),
                         f"--rollout {rollout} " + said.format("--label-search-on none"))
    try:
        search = PIMCSearch(kernel, roll, n_det=n_det, seed=seed)
    except ValueError as e:
        raise ValueError(f"cannot label {policy!r} (options {env_options}): {e}") from None
    made = {"game": game, "env_options": env_options,  # recorded in the file: distil refuses labels of another game or options
            "labelling": {"policy": str(policy), "opponents": opp_names, "rollout": rollout or f"{game}/rule",
                          "rollout_opponents": rollout_opponents, "n_det": int(n_det), "seed": int(seed)}}
    # an empty file first: the folder must be writable now, not after the first batch is labelled; an
    # earlier file (overwrite=True) stays until the first batch replaces it, so the probe goes beside it
    replacing = out.exists()
    probe = out.with_name(f".{out.name}.probe.npz") if replacing else out
    _save_labels(probe, {key: _stack([], kernel, key) for key in LABEL_KEYS}, searched, deals=0, deals_asked=n_games, **made,
                 named=out)
    if replacing:
        probe.unlink()
    rng = np.random.default_rng(seed)
    sides = kernel.sides()
    side_of = np.empty(kernel.num_players, dtype=np.int64)
    for t, seats in enumerate(sides):
        side_of[list(seats)] = t
    parts: dict[str, list[np.ndarray]] = {key: [] for key in LABEL_KEYS}
    played = 0
    counts = lambda: {t: sum(len(x) for x in parts[TYPE_KEYS[t][0]]) for t in DECISION_TYPES}  # noqa: E731
    saved = 0
    try:
        with tqdm(total=n_games, desc=f"labelling {game} (PIMC {n_det}, search on {'+'.join(searched) or 'none'})",
                  unit="deal", disable=not progress) as bar:
            while played < n_games:
                n = _label_batch(kernel, pol, opps, played, search, side_of, len(sides), min(batch, n_games - played), rng, parts,
                                 searched)
                played += n
                _save_labels(out, {key: _stack(parts[key], kernel, key) for key in LABEL_KEYS}, searched,
                             deals=played, deals_asked=n_games, **made)
                saved = played
                bar.update(n)
                bar.set_postfix(counts())
    except BaseException as e:
        if saved == 0 and not replacing:  # nothing labelled: the empty file written first would refuse the re-run
            out.unlink(missing_ok=True)
        if isinstance(e, KeyboardInterrupt):
            raise LabellingInterrupted(out, saved, n_games, kept_earlier=replacing) from None
        raise
    c = counts()
    return {"games": played, "card_positions": c["cards"], "other_positions": c["others"]}


class LabellingInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`label_positions`: ``out`` holds the labels of the first ``deals`` of ``deals_asked``
    deals (a complete label file; its ``deals`` key says how many). Before the first batch was labelled
    (``deals == 0``) nothing was written: ``out`` is unchanged, the earlier file where ``kept_earlier``
    (``overwrite=True``), else absent."""

    def __init__(self, out, deals: int, deals_asked: int, kept_earlier: bool = False):
        if deals:
            said = f"{out} holds the labels of those {deals:,} (a complete label file, its 'deals' says how many)"
        else:
            said = f"nothing was written; {out} " + ("still holds the earlier labels" if kept_earlier else "was not made")
        super().__init__(f"interrupted after {deals:,} of {deals_asked:,} deals: {said}")
        self.out, self.deals, self.deals_asked, self.kept_earlier = out, deals, deals_asked, kept_earlier


def opponent_names(opponent, game: str) -> list[str] | None:
    """The labelling opponents as a list of names (``None``: the default, ``GAME/rule`` alone).

    ``opponent``: ``None``, one name, names joined by commas (``"pyanitsa/rule,random"``; an existing
    file or folder, or an ``exec:`` command, is one name even with a comma, and so is a name with its
    parameters, ``"pyanitsa/rule:direction=weak_first,rollout_opponents=rule"``), or a list/tuple of
    names (a path may be a ``pathlib.Path``).
    ``ValueError`` for an empty name or another type."""
    if opponent is None:
        return None
    if isinstance(opponent, os.PathLike):  # a saved agent's path, as agents.load takes it
        opponent = os.fspath(opponent)
    if isinstance(opponent, (list, tuple)):
        names = [os.fspath(n) if isinstance(n, os.PathLike) else n for n in opponent]
    elif isinstance(opponent, str):
        names = [opponent] if opponent.startswith("exec:") or Path(opponent).exists() else []
        from .common import split_top_level

        for part in [] if names else split_top_level(opponent):  # "pyanitsa/rule:direction=weak_first,rank_order=..." is one name
            key = part.split("=", 1)[0]
            if names and ":" in names[-1] and "=" in part and not any(c in key for c in "/:"):  # a parameter, not a new name
                names[-1] += "," + part
            else:
                names.append(part)
    else:
        names = None
    if not names or not all(isinstance(n, str) and n.strip() for n in names):
        raise api_error(
            ValueError,
            f"opponent={opponent!r} is not valid: give an agent name, names joined by commas or a list of names, "
            f"none empty (e.g. '{game}/rule,random' or ['{game}/rule', 'random'])",
            f"--opponent {opponent} has an empty name: give agent names joined by commas, e.g. --opponent {game}/rule,random",
        )
    names = [n.strip() for n in names]
    return None if names == [f"{game}/rule"] else names


def rollout_setting(model: str | None) -> str | None:
    """A rollout model as labelling records and compares it: ``"rule"`` (the rollout agent in every
    seat, what every rollout agent does by default) is ``None``, the default; others as given."""
    return None if model == "rule" else model


def labelling_agents(game: str, env_options: dict, opponent=None, rollout: str | None = None, rollout_opponents: str | None = None,
                     seed: int | None = None) -> tuple[list[str], list, object]:
    """``(opponent names, opponent agents, rollout agent)`` of :func:`label_positions`, checked before
    any deal is played: every agent of ``game``, acting from observations and, if trained, trained
    for ``env_options`` (the labelled policy's options: :func:`~cardzoo.training.common.check_fits`),
    and ``rollout_opponents`` one of the rollout agent's models. ``"rule"`` (every seat plays the
    rollout agent itself) is every rollout agent's own model, as ``None`` is. ``ValueError`` naming
    the flag for the command line and the keyword for Python."""
    from .common import check_fits, resolve_agent, split_agent_spec

    names = opponent_names(opponent, game) or [f"{game}/rule"]
    opps = [resolve_agent(n, env_options, seed=seed, game=game) for n in names]
    roll_name = rollout or f"{game}/rule"
    in_name = split_agent_spec(roll_name)[1].get("rollout_opponents")
    if rollout_opponents is not None and in_name is not None:  # the same parameter twice, perhaps two values
        said = "the rollout agent's model of the other seats is given twice: {} and {}; give it once"
        raise api_error(ValueError, said.format(f"rollout={roll_name!r}", f"rollout_opponents={rollout_opponents!r}"),
                         said.format(f"--rollout {roll_name}", f"--rollout-opponents {rollout_opponents}"))
    roll = resolve_agent(roll_name, env_options, seed=seed, game=game)
    rollout_opponents = rollout_setting(rollout_opponents)
    if rollout_opponents is not None:
        models = getattr(type(roll), "ROLLOUT_OPPONENTS", None)
        if not models:
            said = (f"the rollout agent {roll_name!r} has no opponent model (all_fours/rule and pyanitsa/rule have one: "
                    "leave it out for the other games, or name one of those rule bots as the rollout agent)")
            raise api_error(ValueError, f"rollout_opponents={rollout_opponents!r}: {said}", f"--rollout-opponents {rollout_opponents}: {said}")
        if rollout_opponents not in models:
            said = f"is not an opponent model of {roll_name}; valid: {', '.join(models)}"
            raise api_error(ValueError, f"rollout_opponents={rollout_opponents!r} {said}", f"--rollout-opponents {rollout_opponents!r} {said}")
        roll = resolve_agent(roll_name, {**env_options, "rollout_opponents": rollout_opponents}, seed=seed, game=game)
    for role, name, agent in (*(("opponent", n, a) for n, a in zip(names, opps)), ("rollout", roll_name, roll)):
        if name.startswith("exec:"):
            raise ValueError(f"{role} agent {name!r}: an exec: bot plays one game at a time over a pipe and cannot "
                             f"play the batched deals of labelling; give a registered or saved agent (e.g. {game}/rule)")
        from cardzoo.agents.options import fit_observation, reads_state_because

        fit_observation(agent, game, env_options)  # a trained agent of other observation options reads the state
        if getattr(agent, "needs_state", False):
            why = reads_state_because(agent, game, env_options, "searches the game state")
            raise ValueError(f"{role} agent {name!r} {why}; it must act from observations (e.g. {game}/rule)")
        try:  # a policy trained for other options reads another observation, or learned another game
            check_fits(agent, name, game, env_options)
        except ValueError as e:
            raise ValueError(f"{role} agent {name!r} cannot play the labelled policy's game ({game}, options {env_options}): {e}") from None
    return names, opps, roll


def _label_batch(kernel, pol, opps, first, search, side_of, n_sides, batch, rng, parts, searched) -> int:
    """Play ``batch`` deals, appending labels to ``parts``; returns ``batch``. Deal ``first + j`` of the
    run plays the policy against ``opps[(first + j) % len(opps)]`` (they take turns deal by deal)."""
    opp_of = (first + np.arange(batch)) % len(opps)
    st = kernel.init(rng, batch)
    policy_side = rng.integers(0, n_sides, size=batch)
    while not st.done.all():
        seat = st.current_player.astype(np.int64)
        mask = kernel.legal_actions(st)
        obs = kernel.observe(st, seat)
        live = ~st.done
        kind = decision_types(mask, kernel.deck.n)
        for code, t in enumerate(DECISION_TYPES):
            rows = np.flatnonzero(live & (kind == code))
            if not rows.size:
                continue
            ko, km, kq = TYPE_KEYS[t]
            if t in searched:
                q = search.q_values(st.take(rows)).astype(np.float32)
            else:
                q = np.full(mask[rows].shape, np.nan, dtype=np.float32)
            parts[ko].append(obs[rows])
            parts[km].append(mask[rows])
            parts[kq].append(q)
        actions = np.zeros(batch, dtype=np.int64)
        mine = side_of[seat] == policy_side
        for sel, agent in ((live & mine, pol), *((live & ~mine & (opp_of == i), o) for i, o in enumerate(opps))):
            rows = np.flatnonzero(sel)
            if rows.size:
                actions[rows] = agent.act(obs[rows], mask[rows])
        kernel.step(st, actions, rng)
    return batch


def _save_labels(out: Path, arrays: dict[str, np.ndarray], labelled, deals: int = 0, deals_asked: int = 0,
                 game: str = "", env_options: dict | None = None, labelling: dict | None = None, named: Path | None = None) -> None:
    """Write ``arrays``, ``labelled``, the deal counts (``deals`` labelled of ``deals_asked``: fewer in the file of
    an interrupted run), the ``game``, its ``env_options`` and ``labelling`` (JSON) to ``out`` atomically (a temporary file in the
    same folder, then a rename; the temporary file is removed whatever stops the write, Ctrl-C included). An
    ``OSError`` names ``named`` (default ``out``): the label file the user asked for, when ``out`` is a probe beside it."""
    import os

    tmp = out.with_name(f".{out.name}.partial.npz")
    try:
        np.savez_compressed(tmp, **arrays, labelled=np.array(list(labelled), dtype="<U6"),
                            deals=np.int64(deals), deals_asked=np.int64(deals_asked), game=np.array(game),
                            env_options=np.array(json.dumps(env_options or {}, sort_keys=True)),
                            labelling=np.array(json.dumps(labelling or {}, sort_keys=True)))
        os.replace(tmp, out)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise OSError(f"cannot write labels to {named or out}: {e.strerror or e}") from None
    except BaseException:  # KeyboardInterrupt mid-write: the previous complete file stays, the half-written one goes
        tmp.unlink(missing_ok=True)
        raise


def _stack(chunks: list[np.ndarray], kernel, key: str) -> np.ndarray:
    if chunks:
        return np.concatenate(chunks)
    width = kernel.num_actions if key.endswith(("mask", "q")) else kernel.obs_layout.size
    dtype = np.float32 if key.endswith("q") else bool if key.endswith("mask") else np.uint8
    return np.zeros((0, width), dtype=dtype)


def _load_policy(policy: str, game: str, deterministic: bool, seed=None):
    from .common import check_agent_game

    prefix = str(policy).split("/", 1)[0]
    if prefix in envs.GAMES and prefix != game and str(policy) in agents.available():  # the game's agents were listed,
        raise ValueError(f"policy {str(policy)!r} plays {prefix}, not {game}; trained policies for {game}: "  # rule bots
                         f"{_trained_policies(game)}, or the path of a saved policy")  # too, which no policy can be
    path = _policy_dir(policy)
    agent = load_policy_agent(path, deterministic=deterministic, seed=seed)
    check_agent_game(agent, game, policy)
    return agent


def _policy_dir(name: str) -> str:
    """A saved policy directory from a path or a shipped name (``"all_fours/ppo"``).

    A missing ``GAME/xxx`` of a game with registered agents (``all_fours/ppox``) is a mistyped name, not
    a path: ``FileNotFoundError`` listing that game's trained policies, as ``--opponent`` lists its agents
    (the loader would say "no saved agent at all_fours/ppox: the path does not exist"). What is written
    as a path (``./all_fours/x``, a trailing ``/``, deeper paths, an unknown game) keeps the path's error.
    """
    if name in agents.available():
        path = agents.registry.shipped_path(name)
        if path is None:
            raise ValueError(f"{name!r} is not a trained policy; give a saved agent directory or a shipped GAME/ppo name")
        return path
    unknown = _unknown_policy_name(str(name))
    if unknown is not None:
        raise FileNotFoundError(unknown)
    return name


def _unknown_policy_name(name: str) -> str | None:
    """For :func:`_policy_dir`: the error for ``name`` when it is written as an agent name, ``GAME/xxx`` of a
    game with registered agents, and no file or folder ``GAME`` exists here; ``None`` for what is written as a path."""
    game, sep, kind = name.partition("/")
    if not (sep and game and kind) or "/" in kind or "\\" in name or game.startswith((".", "~")) or Path(game).exists():
        return None
    if not any(n.startswith(game + "/") for n in agents.available()):
        return None
    return f"unknown agent {name!r}; trained policies for {game}: {_trained_policies(game)}, or the path of a saved policy"


def _trained_policies(game: str) -> list[str]:
    """The registered names of ``game``'s shipped trained policies (``["all_fours/ppo"]``)."""
    return [n for n in agents.available() if n.startswith(game + "/") and agents.registry.shipped_path(n) is not None]


def load_labels(files) -> dict:
    """Concatenate label files written by :func:`label_positions`.

    Returns the arrays of :data:`LABEL_KEYS` (rows of all files, in order) and ``"labelled"``:
    the tuple of decision types that carry values in **every** file (a type without values in
    one file has NaN values there, and is not labelled in the result). Files of the format
    before decision types (``bid_obs``/``bid_mask``) load with their bids as ``other_*``
    positions without values.

    Raises ``FileNotFoundError`` naming a missing file, ``ValueError`` naming a file given twice,
    one that is not a readable ``.npz`` (damaged, pickled, another format), lacks a key of
    :data:`LABEL_KEYS`, has arrays of the wrong kind or shape, no value on a legal action of a
    labelled type, sizes that differ from the other files', or another game or option set than theirs.
    """
    import zipfile
    import zlib

    files = _label_file_list(files)
    if not files:
        raise ValueError("no label files given")
    seen: set[Path] = set()
    for f in files:
        if f.resolve() in seen:
            raise ValueError(f"label file {f} is given twice (its held-out positions would also be trained on)")
        seen.add(f.resolve())
    data: dict[str, list[np.ndarray]] = {key: [] for key in LABEL_KEYS}
    labelled = set(DECISION_TYPES)
    widths = None
    origin = None  # ((game, env_options), file) of the first file that records them
    for f in files:
        if not f.is_file():
            raise FileNotFoundError(f"no label file at {f}")
        with open(f, "rb") as fh:
            magic = fh.read(2)
        if magic and magic != b"PK":  # not a zip archive: np.load would read it as pickled data and suggest allow_pickle
            raise ValueError(f"{f} is not a label file: a .npz archive with {list(LABEL_KEYS)} was expected (cardzoo label "
                             "writes them)")
        try:
            z = np.load(f, allow_pickle=False)
            if not isinstance(z, np.lib.npyio.NpzFile):
                raise ValueError(f"{f} is not a label file: a .npz archive with {list(LABEL_KEYS)} was expected")
            with z:
                arrays, types = _read_label_arrays(f, z)
                made = (str(z["game"]), json.loads(str(z["env_options"]))) if {"game", "env_options"} <= set(z.files) else None
        except (OSError, EOFError, zipfile.BadZipFile, zlib.error, KeyError) as e:
            raise ValueError(f"{f} is not a readable .npz label file (damaged or another format): {e}") from None
        except ValueError as e:
            if str(f) in str(e):
                raise
            raise ValueError(f"{f} is not a readable label file: {e}") from None
        _check_label_arrays(f, arrays, types)
        if made is not None:  # files written before the game was recorded say nothing (their sizes are still checked)
            if origin is not None and made != origin[0]:
                raise ValueError(f"{f} holds labels of {made[0]} with options {made[1]}, {origin[1]} of {origin[0][0]} "
                                 f"with options {origin[0][1]}: label files given together must be of one game and option set")
            origin = origin or (made, f)
        labelled &= set(types)
        w = (arrays["obs"].shape[1], arrays["mask"].shape[1])
        if widths is not None and w != widths[0]:
            raise ValueError(
                f"{f} has observations of size {w[0]} and {w[1]} actions, {widths[1]} has {widths[0][0]} and {widths[0][1]}"
            )
        widths = widths or (w, f)
        for key in LABEL_KEYS:
            data[key].append(arrays[key])
    out: dict = {key: np.concatenate(v) for key, v in data.items()}
    out["labelled"] = tuple(t for t in DECISION_TYPES if t in labelled)
    return out


def _labels_origin(files) -> tuple[str, dict] | None:
    """``(game, env_options)`` recorded in the first of ``files`` that records them (``None``: none does, files
    written before they were); :func:`load_labels` has refused files that disagree."""
    for f in files:
        with np.load(f, allow_pickle=False) as z:
            if {"game", "env_options"} <= set(z.files):
                return str(z["game"]), json.loads(str(z["env_options"]))
    return None


def _read_label_arrays(f: Path, z) -> tuple[dict[str, np.ndarray], tuple[str, ...]]:
    """The arrays of an open label archive and its labelled types (old files: bids without values)."""
    names = set(z.files)
    if "other_obs" not in names and {"bid_obs", "bid_mask"} <= names:  # the format before decision types
        missing = [key for key in ("obs", "mask", "q") if key not in names]
        if missing:
            raise ValueError(f"{f} is not a label file: it lacks {missing}")
        arrays = {key: z[key] for key in ("obs", "mask", "q")}
        arrays["other_obs"], arrays["other_mask"] = z["bid_obs"], z["bid_mask"]
        arrays["other_q"] = np.full(arrays["other_mask"].shape, np.nan, dtype=np.float32)
        return arrays, ("cards",)
    missing = [key for key in (*LABEL_KEYS, "labelled") if key not in names]
    if missing:
        raise ValueError(f"{f} is not a label file: it lacks {missing}")
    types = tuple(str(t) for t in np.atleast_1d(z["labelled"]))
    bad = [t for t in types if t not in DECISION_TYPES]
    if bad:
        raise ValueError(f"{f} is not a valid label file: labelled types {bad} are not among {list(DECISION_TYPES)}")
    return {key: z[key] for key in LABEL_KEYS}, types


def _check_label_arrays(f: Path, a: dict[str, np.ndarray], labelled=DECISION_TYPES) -> None:
    """Raise ``ValueError`` naming ``f`` if its arrays are not labels of one game."""
    problems = []
    for key in LABEL_KEYS:
        if a[key].ndim != 2:
            problems.append(f"{key} has shape {a[key].shape}, expected 2-D")
    if not problems:
        if a["mask"].dtype != bool or a["other_mask"].dtype != bool:
            problems.append("mask and other_mask must be boolean")
        if not np.issubdtype(a["obs"].dtype, np.integer) or not np.issubdtype(a["other_obs"].dtype, np.integer):
            problems.append("obs and other_obs must be integer observations")
        if not np.issubdtype(a["q"].dtype, np.floating) or not np.issubdtype(a["other_q"].dtype, np.floating):
            problems.append("q and other_q must be floating point")
        n_act = a["mask"].shape[1]
        for t, (ko, km, kq) in TYPE_KEYS.items():
            n = len(a[ko])
            if a[km].shape != (n, n_act) or a[kq].shape != (n, n_act) or a[ko].shape[1] != a["obs"].shape[1]:
                problems.append(f"{ko}, {km} and {kq} disagree: {a[ko].shape}, {a[km].shape}, {a[kq].shape}")
        if not problems:
            for t in labelled:
                ko, km, kq = TYPE_KEYS[t]
                if np.issubdtype(a[kq].dtype, np.floating) and not np.isfinite(a[kq][a[km]]).all():
                    problems.append(f"{kq} has NaN or infinite values on legal actions ({t} decisions are labelled)")
    if problems:
        raise ValueError(f"{f} is not a valid label file: " + "; ".join(problems))


def _actor_logits(policy, scale, obs: np.ndarray, mask: np.ndarray):
    import torch

    x = torch.as_tensor(obs, dtype=torch.float32) * scale
    latent = policy.mlp_extractor.forward_actor(policy.extract_features(x, policy.pi_features_extractor))
    return policy.action_net(latent).masked_fill(~torch.as_tensor(mask), -1e9)


def agreement_and_regret(policy_agent, labels: dict, rows=None, kind: str = "cards") -> tuple[float, float]:
    """How the agent's greedy action compares with PIMC on labelled positions of one decision type.

    Args:
        policy_agent: any observation agent (``act(obs, mask)``).
        labels: from :func:`load_labels`.
        rows: positions to use (default all of that type).
        kind: ``"cards"`` or ``"others"`` (its values must be labelled).

    Returns ``(agreement, regret)``: the share of positions where it picks a PIMC best action (one of
    the highest value: any of a tie), and
    the mean PIMC value lost (best value minus the value of its action, reward units); ``(nan, nan)``
    when there are no rows.
    """
    hit, lost = _per_position(policy_agent, labels, rows, kind)
    if len(hit) == 0:
        return float("nan"), float("nan")
    return float(hit.mean()), float(lost.mean())


def _per_position(policy_agent, labels: dict, rows=None, kind: str = "cards") -> tuple[np.ndarray, np.ndarray]:
    """``(bool[n] picks PIMC's best action, float64[n] PIMC value lost)`` per position of ``rows``."""
    ko, km, kq = TYPE_KEYS[kind]
    rows = np.arange(len(labels[ko])) if rows is None else np.asarray(rows)
    if len(rows) == 0:
        return np.zeros(0, bool), np.zeros(0)
    q = np.where(np.isnan(labels[kq][rows]), -np.inf, labels[kq][rows]).astype(np.float64)
    a = policy_agent.act(labels[ko][rows], labels[km][rows])
    best, got = q.max(axis=1), q[np.arange(len(rows)), a]
    return got >= best, best - got  # a best action: any of equal value (argmax picked the lowest id of a tie)


def regret_change(before_agent, after_agent, labels: dict, rows, kind: str = "cards") -> dict:
    """Paired change of regret (after minus before) on the same positions, with a 95% CI:
    ``{"mean", "ci": [lo, hi], "n"}`` (reward units per decision; negative: the change helped).
    The PIMC values' noise is the same for both agents, so the interval is that of the policies'
    difference on these positions (:func:`cardzoo.training.arena.mean_ci`); ``None`` for the
    interval with fewer than 2 positions (and for the mean with none)."""
    from .arena import mean_ci

    d = _per_position(after_agent, labels, rows, kind)[1] - _per_position(before_agent, labels, rows, kind)[1]
    if len(d) < 2:  # no interval (None, not NaN: the summary is JSON)
        return {"mean": float(d.mean()) if len(d) else None, "ci": [None, None], "n": int(len(d))}
    m, lo, hi = mean_ci(d)
    return {"mean": m, "ci": [lo, hi], "n": int(len(d))}


def distillation_target(q: np.ndarray, mask: np.ndarray, tau: float, prior: float = 0.0, log_p_start=None) -> np.ndarray:
    """Target distribution ``float64[N, A]`` over the legal actions of ``mask`` (``bool[N, A]``).

    ``tau == 0``: one-hot on the best value of ``q`` (``[N, A]``, NaN or anything where illegal;
    ties go to the lowest action id). ``tau > 0``: proportional to
    ``p_start(a)**prior * exp(q(a) / tau)`` on the legal actions (``log_p_start`` ``[N, A]``: the
    starting policy's log-probabilities, needed when ``prior > 0``: ``ValueError`` without it), 0
    elsewhere.
    """
    q = np.where(mask, q, -np.inf).astype(np.float64)
    target = np.zeros(q.shape)
    if tau == 0:
        target[np.arange(len(q)), q.argmax(axis=1)] = 1.0
        return target
    z = q / tau
    if prior > 0:
        if log_p_start is None:
            raise ValueError("prior > 0 needs the starting policy's log-probabilities log_p_start")
        z = z + prior * np.where(mask, log_p_start, 0.0)
    z = z - z.max(axis=1, keepdims=True)
    target = np.where(mask, np.exp(z), 0.0)
    return target / target.sum(axis=1, keepdims=True)


def _check_distil_settings(epochs, batch_size, lr, tau, prior, bid_weight, val_fraction, torch_threads, seed) -> dict:
    """The numeric settings of :func:`distil` (``ValueError`` naming them all); also checked by
    :func:`expert_iterate` before it writes anything, since its first distillation comes after a
    round of labelling. Returns them by keyword, the counts and the seed as ``int``, the others as
    ``float``. A value of the wrong kind is named alone (``epochs`` must be an int, ``lr`` a number:
    1.5 epochs, ``seed=None`` or ``lr="x"`` raised Python's or numpy's own TypeErrors, ``True`` was 1)."""
    import math
    from cardzoo.envs.core.kernel import is_int, is_real

    for name, v, least in (("epochs", epochs, 1), ("batch_size", batch_size, 2), ("torch_threads", torch_threads, 1), ("seed", seed, 0)):
        if not is_int(v):
            raise ValueError(f"{name} must be an int >= {least}, got {v!r}")
    for name, v in (("lr", lr), ("tau", tau), ("prior", prior), ("bid_weight", bid_weight), ("val_fraction", val_fraction)):
        if not is_real(v):
            raise ValueError(f"{name} must be a finite number, got {v!r}")
    finite = all(math.isfinite(x) for x in (lr, tau, prior, bid_weight, val_fraction))
    if not finite or epochs < 1 or batch_size < 2 or not lr > 0 or tau < 0 or prior < 0 or bid_weight < 0 or not 0 < val_fraction < 1:
        raise ValueError(
            "need finite numbers with epochs >= 1, batch_size >= 2, lr > 0, tau >= 0, prior >= 0, bid_weight >= 0, "
            "0 < val_fraction < 1; got "
            f"epochs={epochs}, batch_size={batch_size}, lr={lr}, tau={tau}, prior={prior}, bid_weight={bid_weight}, "
            f"val_fraction={val_fraction}"
        )
    if torch_threads < 1 or seed < 0:
        raise ValueError(f"torch_threads must be >= 1 and seed >= 0, got torch_threads={torch_threads}, seed={seed}")
    _check_seed(seed)  # at most SEED_MAX, as --seed
    return {"epochs": int(epochs), "batch_size": int(batch_size), "lr": float(lr), "tau": float(tau), "prior": float(prior),
            "bid_weight": float(bid_weight), "val_fraction": float(val_fraction), "torch_threads": int(torch_threads),
            "seed": int(seed)}


def distil(
    init: str,
    files,
    out,
    *,
    search_on="cards",
    epochs: int = 4,
    lr: float = 1e-3,
    tau: float = 0.05,
    prior: float = 0.25,
    bid_weight: float = 1.0,
    batch_size: int = 1024,
    seed: int = 0,
    val_fraction: float = 0.1,
    reference: str | None = None,
    torch_threads: int = 1,
    progress: bool = True,
    overwrite: bool = False,
) -> dict:
    """Train the actor of saved policy ``init`` on PIMC labels; save the result to ``out``.

    ``files``: the label files of :func:`label_positions`, one path (``str`` or ``pathlib.Path``) or a
    list or tuple of them.

    ``search_on`` (:func:`parse_search_on`: ``"cards"``, ``"others"`` or ``"all"``) names the
    decision types distilled to the search; the others are kept near the starting policy. Loss
    per minibatch: cross-entropy between the policy on ``batch_size`` positions of the searched
    types (pooled) and the target (PIMC's best legal action if ``tau == 0``, else proportional
    to ``p_start(a)**prior * exp(q(a) / tau)`` over the legal actions, ``q`` in reward units;
    see :func:`distillation_target`), plus ``bid_weight`` times ``KL(start policy || policy)``
    on ``batch_size / 2`` positions of the kept types (bids, with the default ``"cards"``). Only
    the actor (policy MLP and action head) changes; the critic is left as it was.

    ``val_fraction`` of the positions of every labelled type are held out (never trained on) to
    report agreement and regret (:func:`agreement_and_regret`) per decision type, before
    training and after each epoch, and those of ``reference`` (an agent name, e.g. the rule bot)
    for comparison (lower regret is closer to the search; it is stronger play only where the search
    plays better than the policy: check with the arena, training/EXPERT.md). The regret is measured
    with held-out PIMC values, whose noise does not depend on the agent's choice, so differences
    in regret between agents are unbiased estimates of how much value they give up per
    decision. A plot of both per epoch and type is written to ``out/distillation.png``.

    The defaults are the recipe of the shipped ``all_fours/ppo`` (agents/shipped/README.md, All Fours).

    Returns a summary dict (positions, searched types, before/after agreement and regret per
    type, history, seconds) that is also stored in the saved agent's ``agent.json`` under
    ``"distillation"``.

    Raises:
        ValueError: bad hyper-parameters (``epochs``, ``batch_size``, ``torch_threads`` and ``seed`` must be
        ints, the others numbers; each is named), ``files`` that are not paths, an unknown ``search_on`` (naming the valid values), a
        searched type the labels carry no values for or have fewer than 10 positions of, labels
        of another observation size, a policy of a game without labels, or an ``out`` that is a
        file, the starting agent's folder, a folder of other files, or a saved agent (replaced
        only with ``overwrite=True``; a run never overwrites another);
        ``FileNotFoundError`` naming a missing policy or label file.
    """
    import torch
    from tqdm import tqdm

    ok = _check_distil_settings(epochs, batch_size, lr, tau, prior, bid_weight, val_fraction, torch_threads, seed)
    epochs, batch_size, lr, tau, prior, bid_weight = (ok[k] for k in ("epochs", "batch_size", "lr", "tau", "prior", "bid_weight"))
    val_fraction, torch_threads, seed = ok["val_fraction"], ok["torch_threads"], ok["seed"]
    files = _label_file_list(files)  # one path is a list of one (a string was read letter by letter)
    _refuse_empty_path(out, "the agent's folder", "my_agent")
    searched = parse_search_on(search_on)
    if not searched:
        raise ValueError(f"search_on={search_on!r} distils nothing; valid: 'cards', 'others' or 'all'")
    labels = load_labels(files)
    n_pos = {t: len(labels[TYPE_KEYS[t][0]]) for t in DECISION_TYPES}
    for t in searched:
        if t not in labels["labelled"]:
            have = list(labels["labelled"])
            carried = (f"the labels carry PIMC values for {have} only" if have else
                       "the labels carry no PIMC values (labelled with --label-search-on none: positions only)")
            relabel = f"label them with cardzoo label --label-search-on {t} (or all)"
            raise api_error(
                ValueError,
                f"search_on={search_on!r} distils {t} decisions, but {carried}; {relabel}"
                + (f", or distil with search_on among {have}" if have else ""),
                f"--search-on {search_on if isinstance(search_on, str) else ','.join(search_on)} distils {t} decisions, but {carried}; {relabel}"
                + (f", or give --search-on among {have}" if have else ""),
            )
        if n_pos[t] < 10:
            raise ValueError(
                f"too few labels: {n_pos[t]} {t} positions (need >= 10 to distil {t}; this game may have few "
                f"{t} decisions with a choice); positions per type: {n_pos}"
            )
    init_dir = Path(_policy_dir(init))
    agent = load_policy_agent(init_dir)
    game = agent.meta["game"]
    _check_distil_out(Path(out), init_dir, overwrite)
    ref_agent = None
    if reference is not None:
        from .common import resolve_agent

        ref_agent = resolve_agent(reference, agent.meta["env_options"], seed=seed, game=game)
        if getattr(ref_agent, "needs_state", False):  # measured after training: it failed then with a TypeError
            said = (f"reference agent {reference!r} reads the game state (a search or exec: bot); the held-out positions "
                    f"are observations: give an agent that acts from them (e.g. {game}/rule), or ")
            raise api_error(ValueError, said + "reference=None", said + "--reference none")
    torch.set_num_threads(int(torch_threads))
    # the game and options first: labels of another game also differ in sizes, which would say less
    trained_for = json.loads(json.dumps(dict(agent.meta.get("env_options") or {}), sort_keys=True))  # as the file holds it
    origin = _labels_origin(files)
    if origin is not None and origin != (game, trained_for):
        raise ValueError(
            f"the labels are positions of {origin[0]} with options {origin[1]}; {init} plays {game} with "
            f"options {trained_for}: distil labels made with a policy of the same game and options (cardzoo label --policy)"
        )
    if labels["obs"].shape[1] != agent.scale.shape[0] or labels["q"].shape[1] != agent.policy.action_space.n:
        raise ValueError(
            f"labels have observations of size {labels['obs'].shape[1]} and {labels['q'].shape[1]} actions; "
            f"{init} expects {agent.scale.shape[0]} and {agent.policy.action_space.n}"
        )
    policy, scale = agent.policy, torch.as_tensor(agent.scale)
    start = copy.deepcopy(policy)
    start_agent = copy.copy(agent)
    start_agent.policy = start
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    # held-out positions of every labelled type (measured, never trained on)
    val: dict[str, np.ndarray] = {}
    train: dict[str, np.ndarray] = {}
    for t in DECISION_TYPES:
        perm = rng.permutation(n_pos[t])
        n_val = max(1, int(n_pos[t] * val_fraction)) if t in labels["labelled"] and n_pos[t] >= 2 else 0
        val[t], train[t] = perm[:n_val], perm[n_val:]
    measured = [t for t in labels["labelled"] if len(val[t])]

    def measure(a) -> dict:
        out_ = {}
        for t in measured:
            agree, regret = agreement_and_regret(a, labels, val[t], t)
            out_[t] = {"agreement": agree, "regret": regret}
        return out_

    before = measure(agent)
    # the searched types' training positions, pooled: (obs, mask, q) rows
    pool = {k: np.concatenate([labels[TYPE_KEYS[t][i]][train[t]] for t in searched]) for i, k in enumerate(("obs", "mask", "q"))}
    kept = [t for t in DECISION_TYPES if t not in searched and len(train[t])]
    keep = {k: np.concatenate([labels[TYPE_KEYS[t][i]][train[t]] for t in kept]) for i, k in enumerate(("obs", "mask"))} if kept else None
    params = [*policy.mlp_extractor.policy_net.parameters(), *policy.action_net.parameters()]
    opt = torch.optim.Adam(params, lr=lr)
    policy.set_training_mode(True)
    t0 = time.time()
    history = []
    order = np.arange(len(pool["obs"]))
    n_batches = max(1, len(order) // batch_size)
    with tqdm(total=epochs * n_batches, desc=f"distilling {'+'.join(searched)} into {game}", unit="batch", disable=not progress) as bar:
        for epoch in range(epochs):
            rng.shuffle(order)
            for i in range(n_batches):
                rows = order[i * batch_size : (i + 1) * batch_size]
                obs, mask = pool["obs"][rows], pool["mask"][rows]
                log_p = None
                if tau > 0 and prior > 0:
                    with torch.no_grad():
                        log_p = torch.log_softmax(_actor_logits(start, scale, obs, mask), dim=1).numpy()
                target = distillation_target(pool["q"][rows], mask, tau, prior, log_p)
                logp = torch.log_softmax(_actor_logits(policy, scale, obs, mask), dim=1)
                loss = -(torch.as_tensor(target, dtype=torch.float32) * logp).sum(dim=1).mean()
                kl = torch.zeros(())
                if keep is not None:
                    b = rng.integers(0, len(keep["obs"]), size=max(1, batch_size // 2))
                    with torch.no_grad():
                        p_start = torch.softmax(_actor_logits(start, scale, keep["obs"][b], keep["mask"][b]), dim=1)
                    logp_keep = torch.log_softmax(_actor_logits(policy, scale, keep["obs"][b], keep["mask"][b]), dim=1)
                    kl = (p_start * (torch.log(p_start + 1e-12) - logp_keep)).sum(dim=1).mean()
                opt.zero_grad()
                (loss + bid_weight * kl).backward()
                opt.step()
                bar.update(1)
            policy.set_training_mode(False)
            now = measure(agent)
            policy.set_training_mode(True)
            history.append({"epoch": epoch + 1, "loss": loss.item(), "keep_kl": kl.item(), "val": now})
            bar.set_postfix({f"{t}_regret": f"{now[t]['regret']:.4f}" for t in now})
    policy.set_training_mode(False)
    change = {t: regret_change(start_agent, agent, labels, val[t], t) for t in measured}
    ref = None
    if ref_agent is not None:
        ref = {"agent": reference, **measure(ref_agent)}
    summary = {
        "game": game,
        "init": str(init),
        "label_files": [str(f) for f in files],
        "search_on": list(searched),
        "kept": kept,
        "labelled": list(labels["labelled"]),
        "card_positions": n_pos["cards"],
        "other_positions": n_pos["others"],
        "val_positions": {t: int(len(val[t])) for t in DECISION_TYPES},
        "epochs": epochs,
        "lr": lr,
        "tau": tau,
        "prior": prior,
        "bid_weight": bid_weight,
        "batch_size": batch_size,
        "seed": seed,
        "before": before,
        "after": history[-1]["val"],
        "regret_change": change,
        "history": history,
        "reference": ref,
        "seconds": round(time.time() - t0, 1),
    }
    meta = agent.meta
    extra = {key: meta[key] for key in ("training", "training_summary") if key in meta}
    extra["name"] = Path(out).name
    extra["distillation"] = summary
    with _no_ctrl_c():  # the agent is written whole (weights, agent.json, plot) or not at all
        save_policy_agent(
            out, policy, game=game, env_options=meta["env_options"], kernel=envs.kernel(game, **meta["env_options"]),
            net_arch=meta["net_arch"], activation=meta["activation"], extra=extra,
        )
        plot_distillation(summary, Path(out) / "distillation.png")
    return summary


@contextlib.contextmanager
def _no_ctrl_c():
    """Ctrl-C is ignored inside (a second or so of writing files), so that an interrupted :func:`distil`
    has written nothing; outside the main thread, where signals cannot be changed, nothing changes."""
    import signal

    from .common import signal_handled

    with signal_handled(signal.SIGINT, signal.SIG_IGN):
        yield


def _refuse_empty_path(out, what: str, example: str) -> None:
    """``ValueError`` for an empty or blank ``out`` string: ``Path("")`` is the current folder, never meant
    (cardzoo distil wrote its agent there and said "agent written to  (with distillation.png)")."""
    if isinstance(out, str) and not out.strip():
        raise ValueError(f"{out!r} is an empty path: give {what}, e.g. {example}")


def _read_run_json(path: Path, then: str) -> dict:
    """The JSON object of one of an expert-iterate run's files (``run.json``, ``start.json``, ``round.json``);
    a damaged one raises ``ValueError`` naming the file and ``then``, what to do (it said only "Expecting
    property name enclosed in double quotes: line 2 column 1 (char 2)")."""
    try:
        data = json.loads(path.read_text())
    except (ValueError, OSError) as e:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise ValueError(f"{path} is damaged ({e}); {then}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} is damaged (it holds {type(data).__name__}, not a JSON object); {then}")
    return data


def _check_distil_out(out: Path, init_dir: Path, overwrite: bool = False) -> None:
    """Refuse an output that would clobber something: a file, the starting agent's own folder,
    a non-empty folder that is not a saved agent, or a saved agent unless ``overwrite``."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"cannot write the agent to {out}: it is a file, not a folder")
    if out.resolve() == init_dir.resolve():
        raise ValueError(f"{out} is the starting agent's own folder; write the distilled agent to a new folder")
    if out.is_dir() and any(out.iterdir()) and not (out / "agent.json").is_file():
        raise ValueError(f"{out} is a folder with other files in it; give a new or empty folder")
    if (out / "agent.json").is_file() and not overwrite:
        said = f"{out} already holds a saved agent; give a new folder, or "
        raise api_error(ValueError, said + "pass overwrite=True to replace it", said + "give --overwrite to replace it")
    from .common import check_can_write, missing_folder_error

    if not out.resolve().parent.is_dir():
        raise missing_folder_error(out, "the agent to")

    check_can_write(out, "the agent folder", makes_folder=True)  # /proc/x: refused before training


def plot_distillation(summary: dict, path) -> None:
    """Held-out regret and agreement with PIMC per epoch (epoch 0: the starting policy), one line
    per labelled decision type (solid: distilled to search; dotted: kept by the KL term), with the
    reference agent's as dashed lines; written to ``path`` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    epochs = [0] + [h["epoch"] for h in summary["history"]]
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    titles = {"regret": "regret (PIMC value lost per decision)", "agreement": "agreement with PIMC's best action"}
    for ax, key in zip(axes, ("regret", "agreement")):
        for i, t in enumerate(summary["before"]):
            ys = [summary["before"][t][key]] + [h["val"][t][key] for h in summary["history"]]
            how = "distilled" if t in summary["search_on"] else "kept"
            ax.plot(epochs, ys, marker="o", color=f"C{i}", ls="-" if how == "distilled" else ":", label=f"{t} ({how})")
            if summary.get("reference") and t in summary["reference"]:
                ax.axhline(summary["reference"][t][key], ls="--", color=f"C{i}", alpha=0.6, label=f"{summary['reference']['agent']}, {t}")
        ax.set_xlabel("epoch")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(titles[key], fontsize=10)
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    vp = summary["val_positions"]
    fig.suptitle(
        f"{summary['game']}: distillation on {summary['card_positions']:,} card and {summary['other_positions']:,} other "
        f"positions (held-out {vp['cards']:,} and {vp['others']:,})", fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def expert_iterate(
    game: str,
    out,
    *,
    rounds: int = 2,
    init: str | None = None,
    games: int = 200,
    n_det: int = 8,
    label_search_on="all",
    search_on="cards",
    batch: int = 64,
    epochs: int = 4,
    lr: float = 1e-3,
    tau: float = 0.05,
    prior: float = 0.25,
    bid_weight: float = 1.0,
    batch_size: int = 1024,
    arena_deals: int = 100,
    seed: int = 0,
    resume: bool = False,
    progress: bool = True,
    workers: int = 1,
    aggregate: bool = False,
    torch_threads: int = 1,
    opponent: str | None = None,
    rollout_opponents: str | None = None,
) -> list[dict]:
    """Rounds of expert iteration: label (:func:`label_positions`) -> distil (:func:`distil`) ->
    label the new policy's positions -> ...

    Round ``r`` (1-based) writes ``out/round_r/``: ``labels.npz`` (``games`` deals of the round's
    policy, values for ``label_search_on``; label seed ``seed + r``), ``agent/`` (the distilled
    policy, trained with ``search_on`` and the distillation options) and ``round.json`` (its row of
    the table, written last: a round is complete when it exists). The round's policy is ``init``
    (default ``GAME/ppo``) in round 1 and the previous round's agent after. Every round's agent,
    and the starting policy (row 0), plays ``arena_deals`` duplicate deals (the same deals, seed
    ``seed + 10_000``) against ``GAME/rule``, and every round's agent against the starting policy
    (paired on the same deals: the direct answer to "did the rounds help"; 0: no arena). After each
    round ``out/rounds.json``,
    ``out/rounds.md`` (the table: held-out regret per decision type before and after the round,
    arena result) and ``out/rounds.png`` (regret by round per type, arena by round) are rewritten.

    ``workers`` > 1 labels each round in that many processes at once (this one and
    ``workers - 1`` spawned ones, each with ``games / workers`` deals, rounded up): process ``k``
    writes ``labels.npz`` (``k = 0``, seed ``seed + r``) or ``labels_k.npz`` (seed
    ``seed + r + 100_000 * k``). The labels, and so the run, depend on ``workers``.

    ``aggregate`` (DAgger-style): round ``r`` distils the *starting policy* on the labels of rounds
    1..r together, instead of the round's policy on its own labels; the positions still come from
    the previous round's agent. The round's ``before`` is then the starting policy's held-out
    regret. (All Fours, 3 rounds of 5,120 deals: +0.056 [+0.037, +0.075] per hand against the rule
    bot with ``aggregate``, +0.037 [+0.018, +0.057] without; training/EXPERT.md.)

    ``opponent`` and ``rollout_opponents`` (:func:`label_positions`'): whom the round's policy plays
    while its positions are labelled (default the rule bot; several names, joined by commas or in a
    list, take turns deal by deal in each labelling process) and the search's model of the other
    seats. They are checked before any work and kept in ``run.json`` (the default as ``null``). A search whose rollouts model every
    opponent as the rule bot teaches best replies to the rule bot (P'yanitsa, training/EXPERT.md).

    Args: as :func:`label_positions` and :func:`distil`; ``resume`` continues a run in ``out``
    (complete rounds are kept, an incomplete one is redone; the game, starting policy, ``workers``
    and ``aggregate`` must be the same); ``torch_threads``: distil's. A new run that fails with an
    error before its first round is finished is removed (``out`` is left as it was), so that it can be
    run again with other values.

    Returns the table rows (row 0: the starting policy's arena result).

    Raises:
        ValueError: ``rounds`` < 1, ``arena_deals`` < 0, an ``out`` that holds an earlier run while
        ``resume`` is not given (a run never overwrites another), an ``out`` that is not empty and
        holds no expert-iterate run (no ``run.json``; with or without ``resume``), a resumed run of another game
        or starting policy, and every error of :func:`label_positions` and :func:`distil`
        (checked before the first round's labels: unknown ``search_on`` values, a searched type
        not labelled).
    """
    from tqdm import tqdm

    from .arena import json_text, play_duplicate
    from .common import resolve_agent

    from cardzoo.envs.core.kernel import is_int

    if not all(map(is_int, (rounds, arena_deals, games, workers))):  # 1.5 or True were taken ("rounds=1.5" ran 2 rounds)
        raise ValueError(f"rounds, games, arena_deals and workers must be ints, got rounds={rounds!r}, games={games!r}, "
                         f"arena_deals={arena_deals!r}, workers={workers!r}")
    if rounds < 1 or arena_deals < 0 or games < 1 or not 1 <= workers <= games:
        raise ValueError(f"need rounds >= 1, games >= 1, arena_deals >= 0 and 1 <= workers <= games, got rounds={rounds}, "
                         f"games={games}, arena_deals={arena_deals}, workers={workers!r}")
    for name, v in (("n_det", n_det), ("batch", batch)):  # label_positions' checks, made in round 1 after the folder
        _check_int(name, v)
    _check_distil_settings(epochs, batch_size, lr, tau, prior, bid_weight, 0.1, torch_threads, seed)  # distil's, after labelling
    searched = parse_search_on(search_on)
    labelled = parse_search_on(label_search_on)
    if not searched:
        raise ValueError(f"search_on={search_on!r} distils nothing; valid: 'cards', 'others' or 'all'")
    missing = [t for t in searched if t not in labelled]
    if missing and not labelled:  # said "valid: search_on within []"
        raise api_error(
            ValueError,
            f"label_search_on={label_search_on!r} gives the labels no PIMC values, so nothing can be distilled; valid: "
            "label_search_on 'cards', 'others' or 'all' (including the search_on types)",
            f"--label-search-on {label_search_on} gives the labels no PIMC values, so nothing can be distilled; valid: "
            "--label-search-on cards, others or all (including the --search-on types)",
        )
    if missing:
        raise api_error(
            ValueError,
            f"search_on={search_on!r} distils {missing} decisions, which label_search_on={label_search_on!r} leaves "
            f"without values; valid: search_on within {list(labelled)}, or label them too (label_search_on='all')",
            f"--search-on {search_on} distils {missing} decisions, which --label-search-on {label_search_on} leaves "
            f"without values; valid: --search-on {' or '.join(labelled)}, or label them too (--label-search-on all)",
        )
    if game not in envs.GAMES:
        raise ValueError(f"unknown game {game!r}; available games: {sorted(envs.GAMES)}")
    init = init or f"{game}/ppo"
    _refuse_empty_path(out, "the run folder (--out)", f"--out runs/expert/{game}")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise api_error(ValueError, f"out={str(out)!r} is a file; give a new folder", f"--out {out} is a file; give a new folder")
    from .common import check_can_write

    check_can_write(out, "--out", makes_folder=True)  # /proc/x: refused before the first round's labelling
    opponent = opponent_names(opponent, game)  # None for the default (GAME/rule): equal settings compare equal on resume
    rollout_opponents = rollout_setting(rollout_opponents)  # equal settings compare equal on resume
    config = {"game": game, "init": str(init), "rounds": rounds, "games": games, "n_det": n_det,
              "label_search_on": list(labelled), "search_on": list(searched), "batch": batch, "epochs": epochs, "lr": lr,
              "tau": tau, "prior": prior, "bid_weight": bid_weight, "batch_size": batch_size, "arena_deals": arena_deals,
              "seed": seed, "workers": workers, "aggregate": bool(aggregate), "opponent": opponent,
              "rollout_opponents": rollout_opponents}
    if out.is_dir() and any(out.iterdir()):
        run_file = out / "run.json"
        if not run_file.is_file():  # no run.json: files of something else, never resumed nor written over
            said = " is not empty and is not an expert-iterate run (no run.json); give a new or empty folder"
            raise api_error(ValueError, f"out={str(out)!r}" + said, f"--out {out}" + said)
        if not resume:
            raise api_error(ValueError, f"out={str(out)!r} holds an earlier expert-iterate run; give a new folder, or "
                             "resume=True to continue that run", f"--out {out} holds an earlier expert-iterate run; give "
                             "a new folder, or --resume to continue that run")
        old = _read_run_json(run_file, "this run cannot be resumed: use another --out")
        old = {"workers": 1, "aggregate": False, "opponent": None, "rollout_opponents": None} | old  # runs from before these options
        for key in ("game", "init", "workers", "aggregate"):
            if old.get(key) != config[key]:
                raise ValueError(f"cannot resume {out}: it is a run with {key}={old.get(key)!r}, not {config[key]!r}")
        changed = sorted(k for k in config if k not in ("rounds", "arena_deals") and old.get(k) != config[k])
        if changed:  # the kept rounds were made with the earlier values: a resumed run must use them too
            raise ValueError(f"cannot resume {out} with other options: " + ", ".join(
                f"{k}={config[k]!r} (the run has {old.get(k)!r})" for k in changed) + "; give the run's own values")
        beyond = sorted(int(p.parent.name[6:]) for p in out.glob("round_*/round.json")
                        if p.parent.name[6:].isdigit() and int(p.parent.name[6:]) > rounds)
        if beyond:  # the tables would be rewritten without them (the rounds' folders stay): refused, not lost
            said = f"cannot resume {out} with {{}}: it holds {max(beyond)} finished rounds; give {{}} or more (a resumed run keeps its finished rounds)"
            raise api_error(ValueError, said.format(f"rounds={rounds}", f"rounds={max(beyond)}"),
                             said.format(f"--rounds {rounds}", f"--rounds {max(beyond)}"))
    # a registry name that is no trained policy, a missing or foreign policy fail before any work
    env_options = dict(_load_policy(init, game, deterministic=True).meta.get("env_options") or {})
    labelling_agents(game, env_options, opponent, None, rollout_opponents)  # a bad opponent or model: before any work
    existed, fresh = out.exists(), not (out.is_dir() and any(out.iterdir()))  # fresh: removed again if it fails in round 1
    out.mkdir(parents=True, exist_ok=True)
    (out / "run.json").write_text(json.dumps(config, indent=2))

    def arena_row(policy_path, against: str | None = None) -> dict | None:
        against = against or f"{game}/rule"
        if arena_deals == 0:
            return None
        a = resolve_agent(str(policy_path), env_options, game=game)
        b = resolve_agent(str(_policy_dir(against)) if against == str(init) else against, env_options, game=game)
        r = play_duplicate(game, a, b, arena_deals, seed=seed + 10_000, batch=min(256, arena_deals), env_options=env_options,
                           name_a=str(policy_path), name_b=against)
        return {k: v for k, v in r.to_dict().items() if k in ("n_deals", "mean_diff", "diff_ci", "win_rate", "win_ci", "null_win_rate")}

    pool = None
    try:
        start_file = out / "start.json"
        if start_file.is_file():
            rows = [_read_run_json(start_file, "delete it to measure the starting policy again")]
        else:
            rows = [{"round": 0, "policy": str(init), "arena": arena_row(_policy_dir(init))}]
            start_file.write_text(json_text(rows[0], indent=2))  # an undefined CI (arena_deals=1): null
        policy = str(init)
        label_files: list[Path] = []
        pool = _label_pool(workers - 1) if workers > 1 else None
        with tqdm(total=rounds, desc=f"expert iteration on {game}", unit="round", disable=not progress) as bar:
            for r in range(1, rounds + 1):
                folder = out / f"round_{r}"
                done = folder / "round.json"
                files = [folder / ("labels.npz" if k == 0 else f"labels_{k}.npz") for k in range(workers)]
                label_files += files
                if done.is_file():
                    rows.append(_read_run_json(done, f"delete it to redo round {r} (a round without round.json is redone)"))
                    policy = str(folder / "agent")
                    bar.update(1)
                    continue
                folder.mkdir(exist_ok=True)
                t0 = time.time()
                counts = _label_round(pool, game, policy, games, files, [seed + r + 100_000 * k for k in range(workers)],
                                      n_det=n_det, batch=batch, search_on=labelled, progress=progress, opponent=opponent,
                                      rollout_opponents=rollout_opponents)
                start = str(init) if aggregate else policy
                s = distil(start, label_files if aggregate else files, folder / "agent", search_on=searched, epochs=epochs, lr=lr,
                           tau=tau, prior=prior, bid_weight=bid_weight, batch_size=batch_size, seed=seed, reference=f"{game}/rule",
                           torch_threads=torch_threads, progress=progress, overwrite=True)  # this round's own folder, unfinished
                row = {"round": r, "policy": policy, "distilled_from": start, "agent": str(folder / "agent"),
                       "positions": {"cards": counts["card_positions"], "others": counts["other_positions"]},
                       "trained_on": {"cards": s["card_positions"], "others": s["other_positions"]},
                       "search_on": list(searched), "before": s["before"],
                       "after": s["after"], "regret_change": s["regret_change"], "reference": s["reference"],
                       "arena": arena_row(folder / "agent"), "arena_vs_start": arena_row(folder / "agent", str(init)),
                       "seconds": round(time.time() - t0, 1)}
                done.write_text(json_text(row, indent=2))
                rows.append(row)
                policy = str(folder / "agent")
                _write_rounds(out, rows)
                bar.update(1)
    except BaseException as e:
        if pool is not None:  # Ctrl-C or an error: stop the labelling processes now, not after their deals
            for proc in list(getattr(pool, "_processes", {}).values()):
                proc.terminate()
            pool.shutdown(wait=True, cancel_futures=True)  # joins the stopped processes
            pool = None
        if fresh and isinstance(e, Exception) and not any(out.glob("round_*/round.json")):
            # a new run that failed (e.g. out of memory) before a finished round: not left behind, or the same
            # command with other sizes would be refused as "holds an earlier run" (and --resume with them too)
            if not existed:
                shutil.rmtree(out, ignore_errors=True)
            else:
                for p in out.iterdir():
                    shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
        raise
    finally:
        if pool is not None:
            pool.shutdown(wait=True)
    _write_rounds(out, rows)
    return rows


def _label_worker_init() -> None:
    """A labelling process uses one core (torch and OpenMP to one thread) and leaves Ctrl-C to the
    main process, which stops it (no traceback from each worker)."""
    import os
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ["OMP_NUM_THREADS"] = "1"
    import torch

    torch.set_num_threads(1)


def _label_pool(n: int):
    """``n`` spawned processes for :func:`_label_round` (spawn: no fork of torch's or numba's threads)."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(n, mp_context=mp.get_context("spawn"), initializer=_label_worker_init)


def _label_round(pool, game: str, policy: str, games: int, files: list[Path], seeds: list[int], *, n_det: int, batch: int,
                 search_on, progress: bool, opponent: list[str] | None = None, rollout_opponents: str | None = None) -> dict[str, int]:
    """Label ``games`` deals of ``policy`` split over ``len(files)`` processes: this one writes
    ``files[0]`` (with a progress bar), ``pool``'s the others; returns the summed counts of
    :func:`label_positions`. An unfinished round's files are rewritten."""
    share = -(-games // len(files))
    kw = dict(n_det=n_det, batch=min(batch, share), search_on=search_on, overwrite=True, opponent=opponent,
              rollout_opponents=rollout_opponents)
    futures = [pool.submit(label_positions, game, policy, share, f, seed=s, progress=False, **kw)
               for f, s in zip(files[1:], seeds[1:])] if pool is not None else []
    counts = [label_positions(game, policy, share, files[0], seed=seeds[0], progress=progress, **kw)]
    counts += [f.result() for f in futures]
    return {k: sum(c[k] for c in counts) for k in counts[0]}


def _fmt(x, spec=".4f") -> str:
    return "-" if x is None or (isinstance(x, float) and np.isnan(x)) else format(x, spec)


def rounds_table(rows: list[dict]) -> str:
    """Markdown table of :func:`expert_iterate`'s rows: positions, held-out regret per decision type
    (the round's starting policy -> its distilled agent; ``*`` marks a type distilled to search),
    the paired change with its 95% CI, the rule bot's regret on the same positions, and the arena
    result against the rule bot."""
    from .arena import ci_text

    lines = [
        "| round | card / other positions | cards regret: before -> after, change [95% CI] (rule bot) "
        "| others regret: before -> after, change [95% CI] (rule bot) "
        "| vs rule bot: mean diff [95% CI] | win rate | vs the starting policy: mean diff [95% CI] |",
        "|---:|---:|---|---|---:|---:|---:|",
    ]
    for row in rows:
        a = row.get("arena")
        ci = a and ci_text(*a["diff_ci"], "+.3f", a["n_deals"])  # "n/a (1 deal)" names the deals itself
        arena = (f"{a['mean_diff']:+.3f} {ci}" + ("" if ci.startswith("n/a") else f" ({a['n_deals']} deals)"),
                 f"{a['win_rate']:.3f}") if a else ("-", "-")
        if row["round"] == 0:
            lines.append(f"| 0 (start) | - | - | - | {arena[0]} | {arena[1]} | - |")
            continue
        cells = []
        for t in DECISION_TYPES:
            b, f = row["before"].get(t), row["after"].get(t)
            ref = (row.get("reference") or {}).get(t)
            star = "*" if t in row["search_on"] else ""
            ch = (row.get("regret_change") or {}).get(t)
            ch = f", {ch['mean']:+.4f} [{ch['ci'][0]:+.4f}, {ch['ci'][1]:+.4f}]" if ch and ch["ci"][0] is not None else ""
            cells.append(f"{_fmt(b and b['regret'])} -> {_fmt(f and f['regret'])}{star}{ch} ({_fmt(ref and ref['regret'])})" if b else "not labelled")
        p = row["positions"]
        v = row.get("arena_vs_start")
        vs = f"{v['mean_diff']:+.3f} {ci_text(*v['diff_ci'], '+.3f', v['n_deals'])}" if v else "-"
        lines.append(f"| {row['round']} | {p['cards']:,} / {p['others']:,} | {cells[0]} | {cells[1]} | {arena[0]} | {arena[1]} | {vs} |")
    return "\n".join(lines)


def _write_rounds(out: Path, rows: list[dict]) -> None:
    from .arena import json_text

    (out / "rounds.json").write_text(json_text(rows, indent=2))
    (out / "rounds.md").write_text(rounds_table(rows) + "\n\n`*`: distilled to search; regret in reward units per decision, on held-out positions\n")
    plot_rounds(rows, out / "rounds.png")


def plot_rounds(rows: list[dict], path) -> None:
    """Held-out regret per decision type by round (round r's ``after``; round 0: round 1's
    ``before``, the starting policy) and the arena result against the rule bot (95% CI) by round (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    done = [r for r in rows if r["round"] > 0]
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for i, t in enumerate(DECISION_TYPES):
        xs, ys = [], []
        if done and t in done[0]["before"]:
            xs.append(0)
            ys.append(done[0]["before"][t]["regret"])
        for r in done:
            if t in r["after"]:
                xs.append(r["round"])
                ys.append(r["after"][t]["regret"])
        if xs:
            axes[0].plot(xs, ys, marker="o", color=f"C{i}", label=t)
            bx = [r["round"] - 1 for r in done if t in r["before"]]
            by = [r["before"][t]["regret"] for r in done if t in r["before"]]
            axes[0].scatter(bx, by, facecolors="none", edgecolors=f"C{i}", s=60, label=f"{t}: the same agent on the next round's positions")
    axes[0].set_title("held-out regret (PIMC value lost per decision)", fontsize=10)
    ar = [(r["round"], r["arena"]) for r in rows if r.get("arena")]
    if ar:
        x = [r for r, _ in ar]
        m = np.array([a["mean_diff"] for _, a in ar], dtype=float)
        lo = np.array([a["diff_ci"][0] for _, a in ar], dtype=float)  # null (1 deal, read back) -> NaN: no bar
        hi = np.array([a["diff_ci"][1] for _, a in ar], dtype=float)
        axes[1].errorbar(x, m, yerr=[m - lo, hi - m], marker="o", capsize=4)
        axes[1].axhline(0, color="gray", lw=0.8)
    axes[1].set_title("mean difference per deal vs the rule bot (95% CI)", fontsize=10)
    for ax in axes:
        ax.set_xlabel("round (0: starting policy)")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
    if axes[0].get_legend_handles_labels()[0]:  # no held-out regret yet (e.g. no positions of a type): no legend
        axes[0].legend(fontsize=8)
    fig.suptitle(f"expert iteration from {rows[0]['policy']}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
