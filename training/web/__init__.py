"""The web card table: play any cardzoo game in a browser against the suite's AI agents.

``create_app()`` (:mod:`cardzoo.training.web.app`) is the FastAPI app (JSON API + static front end),
:mod:`cardzoo.training.web.tables` the tables and their sessions, :mod:`cardzoo.training.web.views` the View JSON
built from each game's ``Kernel.table_view``, :mod:`cardzoo.training.web.loadtest` a load test with many
simulated clients. ``cardzoo serve`` runs it on 127.0.0.1.
"""
