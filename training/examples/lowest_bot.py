#!/usr/bin/env python3
"""A complete cardzoo bot over the exec: protocol: it plays the lowest legal action id.

Run it with:  cardzoo arena all_fours "exec:python3 training/examples/lowest_bot.py" all_fours/rule
"""
import json
import sys

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        reply = {"type": "ready"}
    elif msg["type"] == "act":
        reply = {"action": min(msg["legal_actions"])}
    else:  # "end": the rewards of an episode, no answer
        continue
    print(json.dumps(reply), flush=True)
