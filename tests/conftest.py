"""Suite-wide settings."""

from __future__ import annotations

import contextlib
import os

import pytest

#: the pytest-xdist options of pyproject.toml's ``addopts`` (``--numprocesses auto --maxprocesses 2 --dist loadfile``)
XDIST_OPTIONS = ("--numprocesses", "--maxprocesses", "--dist")


def pytest_addoption(parser, pluginmanager):
    """The suite runs on pytest-xdist workers (pyproject.toml's ``addopts``; pytest-xdist comes with the ``[test]``
    extra). Without pytest-xdist (not installed, or ``-p no:xdist``) pytest would stop at those options before
    collecting anything: they are taken here and ignored, and the suite runs in one process."""
    if pluginmanager.has_plugin("xdist"):
        return
    group = parser.getgroup("xdist (not installed)")
    for name in XDIST_OPTIONS:
        group.addoption(name, dest=f"no_xdist_{name[2:]}", default=None,
                        help="ignored: pytest-xdist is not installed (the suite runs in one process)")


def pytest_report_header(config):
    if not config.pluginmanager.has_plugin("xdist"):
        return "pytest-xdist is not installed (or -p no:xdist): --numprocesses of addopts ignored, one process"
    return None


@pytest.fixture(autouse=True, scope="session")
def _each_xdist_worker_meets_every_game_before_its_first_test():
    """Under pytest-xdist, each worker process plays a few steps of every game (batched kernel and AEC env) before
    its first test, as the first tests of the one-process suite do. numba prints "compiling the GAME rules ..." on
    stderr once per game and process, when it compiles (its on-disk cache misses). With an empty cache the workers
    compile side by side from the start, so each says it here; without this, a worker that had so far loaded
    everything of a game from what the other worker had just written to the cache would say it inside the first
    test that compiles a new signature, and tests that check their stderr exactly (test_cli.py, ...) would fail
    depending on the order the workers happened to take. A failure here is left to the tests to report."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        from cardzoo import envs

        for game in sorted(envs.GAMES):
            with contextlib.suppress(Exception):  # the tests of that game report it
                envs.warm_up(game)
    yield


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
