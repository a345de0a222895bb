"""Suite-wide settings."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_stay_in_pytests_folder(tmp_path_factory):
    """stable-baselines3's ``learn()`` on a model made without ``tensorboard_log`` configures its logger with
    ``configure(folder=None)``, which makes an empty ``$TMPDIR/SB3-<date>`` folder that nobody removes (four
    a suite run: the SB3 tests of test_training, test_vector, test_api_single_seat and the envs/core/README.md
    example). ``$SB3_LOGDIR`` is the folder it uses instead: one in pytest's own temporary folder, which
    pytest prunes. (``cardzoo train``/``exploit`` give every model a ``tensorboard_log`` in the run folder.)"""
    before = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3_logs"))
    yield
    if before is None:
        os.environ.pop("SB3_LOGDIR", None)
    else:
        os.environ["SB3_LOGDIR"] = before
