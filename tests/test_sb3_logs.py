"""What stable-baselines3 leaves behind when the suite trains with it."""

from __future__ import annotations

import tempfile

import pytest

pytest.importorskip("sb3_contrib")


def test_an_sb3_model_without_tensorboard_log_leaves_no_folder_in_the_temp_dir(tmp_path, monkeypatch):
    """``learn()`` on a model made without ``tensorboard_log`` (as the SB3 tests and the envs/core/README.md
    example make theirs) made an empty ``$TMPDIR/SB3-<date>`` folder every time (63 in /tmp)."""
    import torch
    from sb3_contrib import MaskablePPO

    import cardzoo
    from cardzoo.training.vec_env import KernelVecEnv

    fresh = tmp_path / "tmp"
    fresh.mkdir()
    monkeypatch.setenv("TMPDIR", str(fresh))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() caches its answer: read $TMPDIR again
    assert tempfile.gettempdir() == str(fresh)
    torch.set_num_threads(1)
    venv = cardzoo.make_vec("pyanitsa", 4, opponents="random", seed=0, autoreset_mode="SameStep")
    model = MaskablePPO("MlpPolicy", KernelVecEnv.from_vector_env(venv), n_steps=8, batch_size=32, n_epochs=1, seed=0,
                        device="cpu", policy_kwargs={"net_arch": [8]})
    model.learn(32)
    venv.close()
    assert model.num_timesteps == 32
    # torch keeps its compile cache there (torchinductor_<user>, one folder reused by every run): not SB3's
    assert [p.name for p in fresh.iterdir() if not p.name.startswith("torchinductor_")] == []
