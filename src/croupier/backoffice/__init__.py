"""The operator's back office: what each table and player won and should have won,
the irregularities, advantage play and the shuffle's health, for a period.

Read from the server's own records (rounds, their inputs) and its double-entry ledger,
never from numbers kept apart; the exact math (:mod:`croupier.analysis`) is the
yardstick.  :func:`croupier.backoffice.report.build_report` puts the sections together;
``croupier report`` prints them and ``/api/admin/`` serves them.
"""
