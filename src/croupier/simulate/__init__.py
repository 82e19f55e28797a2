"""Monte Carlo simulation at scale: a compiled kernel held to the engine.

:mod:`~croupier.simulate.kernel` deals and plays whole rounds in Numba;
:mod:`~croupier.simulate.compile` turns a :class:`~croupier.rules.Rules` and a chart
into its arrays; :mod:`~croupier.simulate.run` cuts a run into reproducibly seeded
chunks, plays them on every core or a Dask cluster and merges their exact tallies.
"""
