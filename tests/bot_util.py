"""Test ``exec:`` bots: small Python programs that speak the protocol of ``training/BOTS.md``."""

from __future__ import annotations

import sys
import textwrap


def bot_command(tmp_path, name: str, body: str) -> str:
    """Write ``body`` (dedented, after ``import json, sys, time``) to ``tmp_path / f"{name}.py"``;
    return the command that runs it (put ``exec:`` before it to name it as an agent)."""
    path = tmp_path / f"{name}.py"
    path.write_text("import json, sys, time\n" + textwrap.dedent(body))
    return f"{sys.executable} {path}"


def replying_bot(tmp_path, name: str, on_act: str, log=None) -> str:
    """A bot that answers the hello with ``ready`` and runs the statements ``on_act`` (which see the act
    message as ``m``) at each act message; with ``log`` (a path) it first appends every message it
    receives to that file, one JSON line each. Returns the command, as :func:`bot_command`."""
    lines = [f"log = open({str(log)!r}, 'a')"] if log is not None else []
    lines.append("for line in sys.stdin:")
    if log is not None:
        lines.append("    log.write(line); log.flush()")
    lines += [
        "    m = json.loads(line)",
        "    if m['type'] == 'hello':",
        "        print(json.dumps({'type': 'ready'}), flush=True)",
        "    elif m['type'] == 'act':",
        textwrap.indent(textwrap.dedent(on_act).strip(), "        "),
    ]
    return bot_command(tmp_path, name, "\n".join(lines) + "\n")
