"""Expert iteration: label positions with PIMC search, distil the labels into a policy network.

Two steps, each a function and a ``cardzoo`` command:

1. :func:`label_positions` (``cardzoo label``) plays deals between a saved policy (one team,
   sampling its actions) and an opponent agent (the other team), so the positions are the ones
   the policy meets. At every **card-play decision with a choice** it records the acting seat's
   observation, action mask and the PIMC action values of :class:`cardzoo.agents.search.PIMCSearch`
   (``n_det`` determinizations, the rollout agent in every seat). At every **bid** (a decision
   offering a non-card action, e.g. All Fours stand/beg, give one/run) it records observation
   and mask only.
2. :func:`distil` (``cardzoo distil``) starts from the saved policy and trains its actor with
   cross-entropy towards ``p_start(a)**prior * exp(q(a) / tau)`` over the legal cards (a
   KL-regularised improvement of the starting policy by the search's values: with a small
   ``tau`` it moves to PIMC's best card where the values are clearly apart and keeps its own
   choice among near-equal ones, where the 32-determinization values are mostly noise), while
   a KL term keeps its bids where they were (the bids are the starting policy's own: search
   did not improve them, see agents/shipped/README.md). ``tau = 0`` is PIMC's best card (a hard label).

Label files are ``.npz`` with ``obs`` ``uint8[N, D]``, ``mask`` ``bool[N, A]``, ``q``
``float32[N, A]`` (NaN where illegal), ``bid_obs`` ``uint8[M, D]``, ``bid_mask`` ``bool[M, A]``.
Labelling costs about 45 positions per second per core (All Fours, ``n_det=32``), so run one
``cardzoo label`` per core with different seeds and pass all files to ``cardzoo distil``.

The search reads the game state (``Kernel.determinize``), so only kernels with ``determinize``
and hand episodes can label (All Fours).
"""

from __future__ import annotations

import copy
import time
from pathlib import Path

import numpy as np

from cardzoo import agents
from cardzoo import envs
from cardzoo.agents.policy import load_policy_agent, save_policy_agent
from cardzoo.agents.search import PIMCSearch

__all__ = ["label_positions", "load_labels", "distil", "distillation_target", "agreement_and_regret", "LABEL_KEYS"]

LABEL_KEYS = ("obs", "mask", "q", "bid_obs", "bid_mask")


def _check_labelling_kernel(kernel) -> None:
    from cardzoo.envs.core.kernel import Kernel

    if type(kernel).determinize is Kernel.determinize:  # the base class's raises NotImplementedError
        raise ValueError(f"{kernel.name} has no determinize(): PIMC labels need a kernel that can redeal hidden cards")
    if kernel.name != "all_fours":  # every game can determinize now; the labelling is All Fours' card play so far
        raise ValueError(f"labels are made for all_fours only so far, not {kernel.name} (its card play and bids); "
                         f"{kernel.name}/pimc plays the search in the arena")


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
    progress: bool = True,
) -> dict[str, int]:
    """Play ``n_games`` deals (rounded up to whole batches) and write PIMC labels to ``out`` (.npz).

    Args:
        game: a game with ``Kernel.determinize`` (``"all_fours"``).
        policy: saved policy directory (or registry name of one, e.g. ``"all_fours/ppo"``) that
            plays one team, sampling from its action distribution; the team is drawn per deal.
        n_games: deals to play (>= 1).
        out: the label file (its name must end in ``.npz``), written after every batch through a
            temporary file and a rename, so a run stopped at any moment leaves a loadable file
            with the deals labelled so far.
        n_det: determinizations per labelled decision.
        seed: seeds the deals, the team draw, the policy's sampling and the search.
        batch: deals played at once.
        opponent: agent of the other team (default ``"<game>/rule"``).
        rollout: agent playing every seat in the search's rollouts (default ``"<game>/rule"``).

    Returns:
        counts ``{"games", "card_positions", "bid_positions"}``.

    Raises:
        ValueError: a game without ``determinize``, ``n_games``/``batch``/``n_det`` < 1, a
        negative seed, an output name without ``.npz``, or a policy/opponent/rollout agent for
        another game; ``FileNotFoundError`` / ``OSError`` for a missing policy path or an output
        that cannot be written (checked before any deal is played).
    """
    from tqdm import tqdm

    from .common import resolve_agent

    if n_games < 1 or batch < 1:
        raise ValueError(f"n_games and batch must be >= 1, got n_games={n_games}, batch={batch}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    out = Path(out)
    if out.suffix != ".npz":
        raise ValueError(f"label file {str(out)!r} must be named *.npz (e.g. labels.npz)")
    if out.is_dir():
        raise ValueError(f"cannot write labels to {out}: it is a folder")
    if not out.resolve().parent.is_dir():
        raise FileNotFoundError(f"cannot write labels to {out}: its folder does not exist")
    kernel = envs.kernel(game)
    _check_labelling_kernel(kernel)
    pol = _load_policy(policy, game, deterministic=False, seed=seed)
    opp = resolve_agent(opponent or f"{game}/rule", seed=seed, game=game)
    roll = resolve_agent(rollout or f"{game}/rule", seed=seed, game=game)
    for role, name, agent in (("opponent", opponent, opp), ("rollout", rollout, roll)):
        if getattr(agent, "needs_state", False):
            raise ValueError(f"{role} agent {name!r} searches the game state; it must act from observations (e.g. {game}/rule)")
    search = PIMCSearch(kernel, roll, n_det=n_det, seed=seed)
    _save_labels(out, {key: _stack([], kernel, key) for key in LABEL_KEYS})  # fails now if out is not writable
    rng = np.random.default_rng(seed)
    team_of = np.empty(kernel.num_players, dtype=np.int64)
    for t, seats in enumerate(kernel.teams):
        team_of[list(seats)] = t
    parts: dict[str, list[np.ndarray]] = {key: [] for key in LABEL_KEYS}
    played = 0
    with tqdm(total=n_games, desc=f"labelling {game} (PIMC {n_det})", unit="deal", disable=not progress) as bar:
        while played < n_games:
            played += _label_batch(kernel, pol, opp, search, team_of, batch, rng, parts)
            _save_labels(out, {key: _stack(parts[key], kernel, key) for key in LABEL_KEYS})
            bar.update(batch)
            bar.set_postfix(positions=sum(len(x) for x in parts["obs"]))
    return {"games": played, "card_positions": sum(len(x) for x in parts["obs"]), "bid_positions": sum(len(x) for x in parts["bid_obs"])}


def _label_batch(kernel, pol, opp, search, team_of, batch, rng, parts) -> int:
    """Play ``batch`` deals, appending labels to ``parts``; returns ``batch``."""
    n_cards = kernel.deck.n
    st = kernel.init(rng, batch)
    policy_team = rng.integers(0, len(kernel.teams), size=batch)
    while not st.done.all():
        seat = st.current_player.astype(np.int64)
        mask = kernel.legal_actions(st)
        obs = kernel.observe(st, seat)
        live = ~st.done
        is_bid = mask[:, n_cards:].any(axis=1)
        choice = live & (mask.sum(axis=1) > 1)
        cards = np.flatnonzero(choice & ~is_bid)
        bids = np.flatnonzero(choice & is_bid)
        if cards.size:
            parts["q"].append(search.q_values(st.take(cards)).astype(np.float32))
            parts["obs"].append(obs[cards])
            parts["mask"].append(mask[cards])
        if bids.size:
            parts["bid_obs"].append(obs[bids])
            parts["bid_mask"].append(mask[bids])
        actions = np.zeros(batch, dtype=np.int64)
        mine = team_of[seat] == policy_team
        for sel, agent in ((live & mine, pol), (live & ~mine, opp)):
            rows = np.flatnonzero(sel)
            if rows.size:
                actions[rows] = agent.act(obs[rows], mask[rows])
        kernel.step(st, actions, rng)
    return batch


def _save_labels(out: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` to ``out`` atomically (a temporary file in the same folder, then a rename)."""
    import os

    tmp = out.with_name(f".{out.name}.partial.npz")
    try:
        np.savez_compressed(tmp, **arrays)
        os.replace(tmp, out)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise OSError(f"cannot write labels to {out}: {e.strerror or e}") from None


def _stack(chunks: list[np.ndarray], kernel, key: str) -> np.ndarray:
    if chunks:
        return np.concatenate(chunks)
    width = kernel.num_actions if key in ("mask", "q", "bid_mask") else kernel.obs_layout.size
    dtype = {"q": np.float32, "mask": bool, "bid_mask": bool}.get(key, np.uint8)
    return np.zeros((0, width), dtype=dtype)


def _load_policy(policy: str, game: str, deterministic: bool, seed=None):
    from .common import check_agent_game

    path = _policy_dir(policy)
    agent = load_policy_agent(path, deterministic=deterministic, seed=seed)
    check_agent_game(agent, game, policy)
    return agent


def _policy_dir(name: str) -> str:
    """A saved policy directory from a path or a shipped name (``"all_fours/ppo"``)."""
    if name in agents.available():
        path = agents.registry.shipped_path(name)
        if path is None:
            raise ValueError(f"{name!r} is not a trained policy; give a saved agent directory or a shipped GAME/ppo name")
        return path
    return name


def load_labels(files) -> dict[str, np.ndarray]:
    """Concatenate label files written by :func:`label_positions`.

    Raises ``FileNotFoundError`` naming a missing file, ``ValueError`` naming a file given twice,
    one that is not a readable ``.npz`` (damaged, pickled, another format), lacks a key of
    :data:`LABEL_KEYS`, has arrays of the wrong kind or shape, no value on a legal card, or
    sizes that differ from the other files'.
    """
    import zipfile
    import zlib

    files = [Path(f) for f in files]
    if not files:
        raise ValueError("no label files given")
    seen: set[Path] = set()
    for f in files:
        if f.resolve() in seen:
            raise ValueError(f"label file {f} is given twice (its held-out positions would also be trained on)")
        seen.add(f.resolve())
    data: dict[str, list[np.ndarray]] = {key: [] for key in LABEL_KEYS}
    widths = None
    for f in files:
        if not f.is_file():
            raise FileNotFoundError(f"no label file at {f}")
        try:
            z = np.load(f, allow_pickle=False)
            if not isinstance(z, np.lib.npyio.NpzFile):
                raise ValueError(f"{f} is not a label file: a .npz archive with {list(LABEL_KEYS)} was expected")
            with z:
                missing = [key for key in LABEL_KEYS if key not in z.files]
                if missing:
                    raise ValueError(f"{f} is not a label file: it lacks {missing}")
                arrays = {key: z[key] for key in LABEL_KEYS}
        except (OSError, EOFError, zipfile.BadZipFile, zlib.error, KeyError) as e:
            raise ValueError(f"{f} is not a readable .npz label file (damaged or another format): {e}") from None
        except ValueError as e:
            if str(f) in str(e):
                raise
            raise ValueError(f"{f} is not a readable label file: {e}") from None
        _check_label_arrays(f, arrays)
        w = (arrays["obs"].shape[1], arrays["mask"].shape[1])
        if widths is not None and w != widths[0]:
            raise ValueError(
                f"{f} has observations of size {w[0]} and {w[1]} actions, {widths[1]} has {widths[0][0]} and {widths[0][1]}"
            )
        widths = widths or (w, f)
        for key in LABEL_KEYS:
            data[key].append(arrays[key])
    return {key: np.concatenate(v) for key, v in data.items()}


def _check_label_arrays(f: Path, a: dict[str, np.ndarray]) -> None:
    """Raise ``ValueError`` naming ``f`` if its arrays are not labels of one game."""
    problems = []
    for key in LABEL_KEYS:
        if a[key].ndim != 2:
            problems.append(f"{key} has shape {a[key].shape}, expected 2-D")
    if not problems:
        n, m = len(a["obs"]), len(a["bid_obs"])
        if a["mask"].dtype != bool or a["bid_mask"].dtype != bool:
            problems.append("mask and bid_mask must be boolean")
        if not np.issubdtype(a["obs"].dtype, np.integer) or not np.issubdtype(a["bid_obs"].dtype, np.integer):
            problems.append("obs and bid_obs must be integer observations")
        if not np.issubdtype(a["q"].dtype, np.floating):
            problems.append("q must be floating point")
        if a["mask"].shape != (n, a["q"].shape[1]) or a["q"].shape[0] != n:
            problems.append(f"obs, mask and q disagree: {a['obs'].shape}, {a['mask'].shape}, {a['q'].shape}")
        if a["bid_mask"].shape != (m, a["mask"].shape[1]) or a["bid_obs"].shape[1] != a["obs"].shape[1]:
            problems.append(f"bid_obs/bid_mask {a['bid_obs'].shape}/{a['bid_mask'].shape} do not match obs/mask")
        if not problems and np.issubdtype(a["q"].dtype, np.floating) and not np.isfinite(a["q"][a["mask"]]).all():
            problems.append("q has NaN or infinite values on legal cards")
    if problems:
        raise ValueError(f"{f} is not a valid label file: " + "; ".join(problems))


def _actor_logits(policy, scale, obs: np.ndarray, mask: np.ndarray):
    import torch

    x = torch.as_tensor(obs, dtype=torch.float32) * scale
    latent = policy.mlp_extractor.forward_actor(policy.extract_features(x, policy.pi_features_extractor))
    return policy.action_net(latent).masked_fill(~torch.as_tensor(mask), -1e9)


def agreement_and_regret(policy_agent, labels: dict[str, np.ndarray], rows=None) -> tuple[float, float]:
    """How the agent's greedy card compares with PIMC on labelled positions.

    Returns ``(agreement, regret)``: the share of positions where it picks PIMC's best card, and
    the mean PIMC value lost (best value minus the value of its card, reward units).
    """
    rows = np.arange(len(labels["obs"])) if rows is None else rows
    q = np.where(np.isnan(labels["q"][rows]), -np.inf, labels["q"][rows])
    a = policy_agent.act(labels["obs"][rows], labels["mask"][rows])
    best = q.argmax(axis=1)
    return float((a == best).mean()), float((q.max(axis=1) - q[np.arange(len(rows)), a]).mean())


def distillation_target(q: np.ndarray, mask: np.ndarray, tau: float, prior: float = 0.0, log_p_start=None) -> np.ndarray:
    """Target distribution ``float64[N, A]`` over the legal actions of ``mask`` (``bool[N, A]``).

    ``tau == 0``: one-hot on the best value of ``q`` (``[N, A]``, NaN or anything where illegal;
    ties go to the lowest action id). ``tau > 0``: proportional to
    ``p_start(a)**prior * exp(q(a) / tau)`` on the legal actions (``log_p_start`` ``[N, A]``: the
    starting policy's log-probabilities, needed when ``prior > 0``), 0 elsewhere.
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


def distil(
    init: str,
    files,
    out,
    *,
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
) -> dict:
    """Train the actor of saved policy ``init`` on PIMC labels; save the result to ``out``.

    Loss per minibatch: cross-entropy between the policy on ``batch_size`` card positions and
    the target (PIMC's best legal card if ``tau == 0``, else proportional to
    ``p_start(a)**prior * exp(q(a) / tau)`` over the legal cards, ``q`` in reward units; see
    :func:`distillation_target`), plus ``bid_weight`` times ``KL(start policy || policy)`` on
    ``batch_size / 2`` bid positions. Only the actor (policy MLP and action head) changes; the critic is left as it
    was. ``val_fraction`` of the card positions are held out to report agreement and regret
    (:func:`agreement_and_regret`) before and after each epoch, and those of ``reference`` (an
    agent name, e.g. the rule bot) for comparison. The regret is measured with held-out PIMC
    values, whose noise does not depend on the agent's choice, so differences in regret between
    agents are unbiased estimates of how much value they give up per decision. A plot of both
    per epoch is written to ``out/distillation.png``.

    The defaults are the recipe of the shipped ``all_fours/ppo`` (agents/shipped/README.md, All Fours).

    Returns a summary dict (positions, before/after agreement and regret, seconds) that is also
    stored in the saved agent's ``agent.json`` under ``"distillation"``.

    Raises:
        ValueError: bad hyper-parameters, labels of another observation size, or a policy of a
        game without labels; ``FileNotFoundError`` naming a missing policy or label file.
    """
    import torch
    from tqdm import tqdm

    import math

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
    labels = load_labels(files)
    init_dir = Path(_policy_dir(init))
    agent = load_policy_agent(init_dir)
    game = agent.meta["game"]
    _check_distil_out(Path(out), init_dir)
    ref_agent = None
    if reference is not None:
        from .common import resolve_agent

        ref_agent = resolve_agent(reference, agent.meta["env_options"], seed=seed, game=game)
    torch.set_num_threads(int(torch_threads))
    if labels["obs"].shape[1] != agent.scale.shape[0] or labels["q"].shape[1] != agent.policy.action_space.n:
        raise ValueError(
            f"labels have observations of size {labels['obs'].shape[1]} and {labels['q'].shape[1]} actions; "
            f"{init} expects {agent.scale.shape[0]} and {agent.policy.action_space.n}"
        )
    if len(labels["obs"]) < 10 or len(labels["bid_obs"]) < 1:
        raise ValueError(f"too few labels: {len(labels['obs'])} card and {len(labels['bid_obs'])} bid positions")
    policy, scale = agent.policy, torch.as_tensor(agent.scale)
    start = copy.deepcopy(policy)
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    perm = rng.permutation(len(labels["obs"]))
    n_val = max(1, int(len(perm) * val_fraction))
    val, train_rows = perm[:n_val], perm[n_val:]
    before = agreement_and_regret(agent, labels, val)
    params = [*policy.mlp_extractor.policy_net.parameters(), *policy.action_net.parameters()]
    opt = torch.optim.Adam(params, lr=lr)
    policy.set_training_mode(True)
    t0 = time.time()
    history = []
    n_batches = max(1, len(train_rows) // batch_size)
    with tqdm(total=epochs * n_batches, desc=f"distilling into {game}", unit="batch", disable=not progress) as bar:
        for epoch in range(epochs):
            rng.shuffle(train_rows)
            for i in range(n_batches):
                rows = train_rows[i * batch_size : (i + 1) * batch_size]
                log_p = None
                if tau > 0 and prior > 0:
                    with torch.no_grad():
                        log_p = torch.log_softmax(_actor_logits(start, scale, labels["obs"][rows], labels["mask"][rows]), dim=1).numpy()
                target = distillation_target(labels["q"][rows], labels["mask"][rows], tau, prior, log_p)
                logp = torch.log_softmax(_actor_logits(policy, scale, labels["obs"][rows], labels["mask"][rows]), dim=1)
                loss = -(torch.as_tensor(target, dtype=torch.float32) * logp).sum(dim=1).mean()
                b = rng.integers(0, len(labels["bid_obs"]), size=batch_size // 2)
                with torch.no_grad():
                    p_start = torch.softmax(_actor_logits(start, scale, labels["bid_obs"][b], labels["bid_mask"][b]), dim=1)
                logp_bid = torch.log_softmax(_actor_logits(policy, scale, labels["bid_obs"][b], labels["bid_mask"][b]), dim=1)
                kl = (p_start * (torch.log(p_start + 1e-12) - logp_bid)).sum(dim=1).mean()
                opt.zero_grad()
                (loss + bid_weight * kl).backward()
                opt.step()
                bar.update(1)
            policy.set_training_mode(False)
            agree, regret = agreement_and_regret(agent, labels, val)
            policy.set_training_mode(True)
            history.append({"epoch": epoch + 1, "loss": loss.item(), "bid_kl": kl.item(), "val_agreement": agree, "val_regret": regret})
            bar.set_postfix(agree=f"{agree:.3f}", regret=f"{regret:.4f}")
    policy.set_training_mode(False)
    ref = None
    if ref_agent is not None:
        agree, regret = agreement_and_regret(ref_agent, labels, val)
        ref = {"agent": reference, "agreement": agree, "regret": regret}
    summary = {
        "game": game,
        "init": str(init),
        "label_files": [str(f) for f in files],
        "card_positions": int(len(labels["obs"])),
        "bid_positions": int(len(labels["bid_obs"])),
        "val_positions": int(n_val),
        "epochs": epochs,
        "lr": lr,
        "tau": tau,
        "prior": prior,
        "bid_weight": bid_weight,
        "batch_size": batch_size,
        "seed": seed,
        "val_before": {"agreement": before[0], "regret": before[1]},
        "history": history,
        "reference": ref,
        "seconds": round(time.time() - t0, 1),
    }
    meta = agent.meta
    extra = {key: meta[key] for key in ("training", "training_summary") if key in meta}
    extra["name"] = Path(out).name
    extra["distillation"] = summary
    save_policy_agent(
        out, policy, game=game, env_options=meta["env_options"], kernel=envs.kernel(game, **meta["env_options"]),
        net_arch=meta["net_arch"], activation=meta["activation"], extra=extra,
    )
    plot_distillation(summary, Path(out) / "distillation.png")
    return summary


def _check_distil_out(out: Path, init_dir: Path) -> None:
    """Refuse an output that would clobber something: a file, the starting agent's own folder,
    or a non-empty folder that is not a saved agent (a saved agent there is replaced)."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"cannot write the agent to {out}: it is a file, not a folder")
    if out.resolve() == init_dir.resolve():
        raise ValueError(f"{out} is the starting agent's own folder; write the distilled agent to a new folder")
    if out.is_dir() and any(out.iterdir()) and not (out / "agent.json").is_file():
        raise ValueError(f"{out} is a folder with other files in it; give a new or empty folder (or a saved agent to replace)")
    if not out.resolve().parent.is_dir():
        raise FileNotFoundError(f"cannot write the agent to {out}: its folder does not exist")


def plot_distillation(summary: dict, path) -> None:
    """Held-out agreement with PIMC and regret per epoch (epoch 0: the starting policy), with the
    reference agent's as a dashed line; written to ``path`` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    epochs = [0] + [h["epoch"] for h in summary["history"]]
    series = {
        "regret (PIMC value lost per decision)": [summary["val_before"]["regret"]] + [h["val_regret"] for h in summary["history"]],
        "agreement with PIMC's best card": [summary["val_before"]["agreement"]] + [h["val_agreement"] for h in summary["history"]],
    }
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, (label, ys), key in zip(axes, series.items(), ("regret", "agreement")):
        ax.plot(epochs, ys, marker="o", label="policy being distilled")
        if summary.get("reference"):
            ax.axhline(summary["reference"][key], ls="--", color="gray", label=summary["reference"]["agent"])
        ax.set_xlabel("epoch")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(label, fontsize=10)
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    fig.suptitle(
        f"{summary['game']}: distillation on {summary['card_positions']:,} PIMC-labelled card positions "
        f"(held-out {summary['val_positions']:,})", fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
