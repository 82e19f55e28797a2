"""The HTTP API and the table socket, one router per resource.

- :mod:`~croupier.server.routes.accounts`: sign-up, login and logout, the signed-in user;
- :mod:`~croupier.server.routes.wallet`: the movements of a player's money;
- :mod:`~croupier.server.routes.play_session`: the session of play and its reality check;
- :mod:`~croupier.server.routes.limits`: a player's own limits, breaks, self-exclusion;
- :mod:`~croupier.server.routes.tables`: the tables, each as a watcher sees it, its log,
  rules, strategy chart and RTP;
- :mod:`~croupier.server.routes.rounds`: a player's rounds and game recall;
- :mod:`~croupier.server.routes.operator`: health and metrics;
- :mod:`~croupier.server.routes.page`: the browser table's page;
- :mod:`~croupier.server.routes.table_socket`: the WebSocket of each table.
"""
