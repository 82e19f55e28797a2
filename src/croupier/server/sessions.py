"""Which sessions a server process trusts for its sockets' commands, and since when.

Every command on a table socket is held to a live session: a logout, a break or a
self-exclusion elsewhere ends the socket's rights too.  Asking the database at each
command would cost a transaction a command, so a session the database confirmed is
trusted for :data:`SESSION_RECHECK_SECONDS`.  Before then it is confirmed again in the
background, every one due in one transaction: a session in use is marked as used
(:meth:`Sessions.check`), and an idle socket's session is read, not marked
(:meth:`Sessions.keep_trusted`: a session is used only when its player does something).
So a socket never waits for the database, whether its player acts every second or
once a round.  A logout, a break or a self-exclusion through any process of a cluster
ends the trust at once, on every process (:meth:`Sessions.forget`,
:meth:`Sessions.forget_user`, :meth:`Sessions.heard`).

>>> told = []
>>> sessions = Sessions(None, lambda: 0.0, tokens_of=lambda user: [],  # type: ignore[arg-type]
...                     tell_others=told.append, keep=lambda task: None)
>>> sessions.trusted_since("a token") is None  # not trusted before the database says so
True
>>> sessions.forget("a token")  # a logout: told to the cluster's other processes
>>> [sorted(body) for body in told]
[['forget_session']]
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from croupier.server import accounts
from croupier.server.db import reading
from croupier.server.errors import SessionExpired
from croupier.server.together import ReadTogether, settle

__all__ = [
    "SESSIONS_RENEWED_EVERY",
    "SESSION_RECHECK_SECONDS",
    "SESSION_RENEW_SECONDS",
    "SIGN_INS_TOGETHER",
    "Sessions",
]

_log = logging.getLogger("croupier.server")

#: Seconds a session confirmed by the database is trusted for a socket's commands before
#: it is asked again.  A logout, break or self-exclusion through this server, or through
#: another process of its cluster, ends the trust at once; an account disabled from the
#: command line, or a logout through a server outside the cluster, is noticed within this
#: time.
SESSION_RECHECK_SECONDS = 10.0
#: Seconds after its confirmation from which a session in use is confirmed again in
#: the background, with every other one due, before its trust runs out: a socket in
#: play never waits for the database, and the sessions of a whole room cost one
#: transaction every :data:`SESSIONS_RENEWED_EVERY` seconds, not one each.
SESSION_RENEW_SECONDS = 5.0
#: Seconds between two background confirmations of the sessions due.
SESSIONS_RENEWED_EVERY = 1.0
#: The most sockets signing in whose sessions are read in one transaction: a crowd's
#: sign-ins hold the database's write lock for a moment at a time, not for the crowd.
SIGN_INS_TOGETHER = 50


class Sessions:
    """The sessions this process trusts, and since when (see the module's text).

    Args:
        engine: the database.
        clock: the time in seconds (the settings' clock).
        tokens_of: the session tokens of a user's sockets in this process.
        tell_others: tells the cluster's other processes (nothing without one).
        keep: holds a task until it ends.
    """

    def __init__(
        self,
        engine: sa.Engine,
        clock: Callable[[], float],
        *,
        tokens_of: Callable[[int], Iterable[str]],
        tell_others: Callable[[dict[str, Any]], None],
        keep: Callable[[asyncio.Task[Any]], None],
    ) -> None:
        self.engine = engine
        self.clock = clock
        self.tokens_of = tokens_of
        self.tell_others = tell_others
        self.keep = keep
        #: Session token -> when the database last confirmed it (the clock's time).
        self._trusted: dict[str, float] = {}
        #: Session token -> when this process last marked it as used.
        self._marked: dict[str, float] = {}
        #: Whether idle sockets' sessions are being read (:meth:`keep_trusted`).
        self._keeping = False
        #: Transactions that confirmed sessions: a command waited for them, they marked
        #: sessions in use in the background, they read idle sockets' sessions (for the
        #: metrics and the load benchmark).
        self.waited = 0
        self.renewed = 0
        self.kept = 0
        #: Sessions in use to be confirmed again in the background, and when that runs.
        self._renewing: set[str] = set()
        self._renewal: asyncio.TimerHandle | None = None
        #: Commands waiting for the database's word on their session, by token: the
        #: next transaction asks for all of them (:meth:`_ask`), one at a time.
        self._waiting: dict[str, tuple[asyncio.Future[None], float]] = {}
        self._asking = False
        #: The sockets signing in, read together (:meth:`sign_in`), as of the latest time.
        self._signing: ReadTogether[str, accounts.User] = ReadTogether(
            self.read_all, most=SIGN_INS_TOGETHER
        )
        self._signing_at = 0.0

    def trusted_since(self, token: str) -> float | None:
        """When the database last confirmed ``token`` (``None``: it is not trusted)."""
        return self._trusted.get(token)

    async def sign_in(self, token: str, now: float) -> accounts.User:
        """The user of ``token`` for a socket signing in (:meth:`read_all`, in a worker
        thread; :class:`SessionExpired` says why not), and the session trusted from
        now: the database has just said it is alive, so the socket's first commands do
        not ask again.

        The sockets signing in at one moment are read together, up to
        :data:`SIGN_INS_TOGETHER` in a transaction: a crowd arriving at a table costs a
        few transactions, not one each (a thousand of them, each taking the write lock
        in turn, held up the table's commits for seconds on SQLite)."""
        self._signing_at = max(self._signing_at, now)
        user = await self._signing.get(token)
        self._trusted[token] = max(self._trusted.get(token, now), now)
        self._marked[token] = max(self._marked.get(token, now), now)
        return user

    async def check(self, token: str, now: float) -> None:
        """Hold a command to a live session (:class:`SessionExpired` if it is not).

        A command is taken on the trust its session has (confirmed by the database
        within :data:`SESSION_RECHECK_SECONDS`), and its session marked as used behind it,
        in the background, with every other one due (at most once every
        :data:`SESSION_RENEW_SECONDS` a token).  An idle socket's trust is kept by
        :meth:`keep_trusted`, so only a socket whose trust ran out (the database did not
        answer, or a socket this process does not know of) waits for the database; the
        commands waiting at one moment wait for one transaction together (a crowd betting
        at once behind a box costs a transaction a burst, not one each: :meth:`_ask`).
        """
        confirmed = self._trusted.get(token)
        if confirmed is not None and 0 <= now - confirmed < SESSION_RECHECK_SECONDS:
            marked = self._marked.get(token)
            if marked is None or not 0 <= now - marked < SESSION_RENEW_SECONDS:
                self._renew(token)
            return
        try:
            await self._asked(token, now)
        except SessionExpired:
            self._trusted.pop(token, None)
            raise
        if len(self._trusted) > 10_000:  # forget the stale ones now and then
            self._trusted = {
                kept: at
                for kept, at in self._trusted.items()
                if 0 <= now - at < SESSION_RECHECK_SECONDS
            }
            self._marked = {kept: at for kept, at in self._marked.items() if kept in self._trusted}
        self._trusted[token] = now
        self._marked[token] = now

    async def _asked(self, token: str, now: float) -> None:
        """Wait for the database's word on ``token``, with every command waiting."""
        waiting = self._waiting.get(token)
        if waiting is None:
            future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            # A command that went away leaves its answer unread: read here, not logged.
            future.add_done_callback(lambda done: done.cancelled() or done.exception())
            self._waiting[token] = (future, now)
        else:
            future = waiting[0]
        if not self._asking:
            self._asking = True
            self.keep(asyncio.get_running_loop().create_task(self._ask()))
        await asyncio.shield(future)

    async def _ask(self) -> None:
        """Ask the database about the sessions waiting, in one transaction, until none
        waits: those that came while one was asked go in the next.  A lone session is
        asked as :meth:`confirm` asks it; of several, each the database no longer holds
        as alive is asked alone again, for why (:class:`SessionExpired` says it)."""
        try:
            while self._waiting:
                batch, self._waiting = self._waiting, {}
                now = max(at for _, at in batch.values())
                alive: set[str] = set()
                self.waited += 1
                try:
                    if len(batch) == 1:
                        alone = next(iter(batch))
                        await asyncio.to_thread(self.confirm, alone, now)
                        alive = {alone}
                    else:
                        alive = await asyncio.to_thread(self.confirm_all, set(batch), now)
                except Exception as problem:  # each waiting command is refused with it
                    for future, _ in batch.values():
                        settle(future, exception=problem)
                    continue
                for token, (future, _) in batch.items():
                    if token in alive:
                        settle(future)
                        continue
                    try:
                        await asyncio.to_thread(self.confirm, token, now)
                    except Exception as problem:
                        settle(future, exception=problem)
                    else:
                        settle(future)
        finally:
            self._asking = False

    def _renew(self, token: str) -> None:
        """Have ``token`` confirmed again within :data:`SESSIONS_RENEWED_EVERY` seconds,
        with every other session due, in one transaction of a worker thread."""
        self._renewing.add(token)
        if self._renewal is None:
            loop = asyncio.get_running_loop()
            self._renewal = loop.call_later(SESSIONS_RENEWED_EVERY, self._start_renewal)

    def _start_renewal(self) -> None:
        self._renewal = None
        tokens, self._renewing = self._renewing, set()
        self.keep(asyncio.get_running_loop().create_task(self.renew(tokens)))

    async def renew(self, tokens: set[str]) -> None:
        """Confirm ``tokens`` again now, in one transaction: each still alive is trusted
        from now; one the database no longer holds is not, and its next command asks
        (and is told why); one forgotten meanwhile (a logout) stays forgotten."""
        now = self.clock()
        self.renewed += 1
        try:
            alive = await asyncio.to_thread(self.confirm_all, tokens, now)
        except Exception as problem:  # each is asked again when its trust runs out
            _log.warning("%d sessions were not confirmed again: %s", len(tokens), problem)
            return
        self._trusted_again(tokens, alive, now)
        for token in alive & self._trusted.keys():
            self._marked[token] = max(self._marked.get(token, now), now)

    def _trusted_again(self, tokens: set[str], alive: set[str], now: float) -> None:
        """The database's word at ``now`` on ``tokens``: those ``alive`` are trusted from
        then, the others not; one forgotten meanwhile (a logout) stays forgotten."""
        for token in tokens:
            confirmed = self._trusted.get(token)
            if confirmed is None:  # ended meanwhile: it stays ended
                continue
            if token in alive:
                self._trusted[token] = max(confirmed, now)
            else:
                del self._trusted[token]

    def keep_trusted(self, present: Iterable[str], now: float) -> None:
        """Keep the trust in the sessions of the sockets ``present`` (signed in here):
        those confirmed :data:`SESSION_RENEW_SECONDS` ago or more, and not about to be
        marked as used (:meth:`check`), are read again in one transaction of a worker
        thread (:meth:`read_alive`), unless such a read is under way.  A session the
        database no longer holds loses its trust; its next command asks, and is told
        why.  What the table server does every second.

        Nothing is marked: a player who only watches is not using his session (it
        still ends after :data:`~croupier.server.accounts.IDLE` without a command), nor
        playing (his session of play does not go on)."""
        if self._keeping:
            return
        due = {
            token
            for token in present
            if (at := self._trusted.get(token)) is not None
            and not 0 <= now - at < SESSION_RENEW_SECONDS
            and token not in self._renewing
        }
        if not due:
            return
        self._keeping = True
        self.keep(asyncio.get_running_loop().create_task(self._keep_trusted(due, now)))

    async def _keep_trusted(self, tokens: set[str], now: float) -> None:
        try:
            self.kept += 1
            alive = await asyncio.to_thread(self.read_alive, tokens, now)
        except Exception as problem:  # each is asked again when its trust runs out
            _log.warning("%d idle sessions were not read again: %s", len(tokens), problem)
            return
        finally:
            self._keeping = False
        self._trusted_again(tokens, alive, now)

    def stop(self) -> None:
        """Confirm nothing more in the background (each session is asked again when its
        trust runs out)."""
        if self._renewal is not None:
            self._renewal.cancel()
            self._renewal = None
        self._renewing.clear()

    # -- the database (blocking: a worker thread) -------------------------------------------------

    def read(self, token: str, now: float) -> accounts.User:
        """The token's user, the session marked as used."""
        with self.engine.begin() as conn:
            return accounts.authenticate(conn, token, now=_utc(now))

    def read_all(self, tokens: set[str]) -> dict[str, accounts.User | SessionExpired]:
        """Each token's user, each session marked as used, in one transaction; for a
        token that is no live session, why (what :meth:`read` raises).  Each token is
        read in a savepoint of its own: what refusing one does is undone alone, as
        :meth:`read` undoes it.  At the latest time a socket signed in with."""
        now = self._signing_at
        if len(tokens) == 1:
            (token,) = tokens
            try:
                return {token: self.read(token, now)}
            except SessionExpired as problem:
                return {token: problem}
        found: dict[str, accounts.User | SessionExpired] = {}
        with self.engine.begin() as conn:
            for token in tokens:
                try:
                    with conn.begin_nested():
                        found[token] = accounts.authenticate(conn, token, now=_utc(now))
                except SessionExpired as problem:
                    found[token] = problem
        return found

    def confirm(self, token: str, now: float) -> int:
        """The token's user id, the session marked as used."""
        with self.engine.begin() as conn:
            return accounts.confirm(conn, token, now=_utc(now))

    def confirm_all(self, tokens: set[str], now: float) -> set[str]:
        """Of ``tokens``, the live sessions, each marked as used."""
        with self.engine.begin() as conn:
            return accounts.confirm_alive(conn, tokens, now=_utc(now))

    def read_alive(self, tokens: set[str], now: float) -> set[str]:
        """Of ``tokens``, the live sessions, read (none marked as used)."""
        with reading(self.engine).begin() as conn:  # on SQLite, no write lock
            return accounts.still_alive(conn, tokens, now=_utc(now))

    # -- ended elsewhere --------------------------------------------------------------------------

    def forget(self, token: str) -> None:
        """A session ended (a logout): no command is taken on it from now on, here or,
        in a cluster, on the other processes."""
        self._trusted.pop(token, None)
        self._marked.pop(token, None)
        self.tell_others({"forget_session": accounts.hash_token(token)})

    def forget_user(self, user_id: int) -> None:
        """Every session of a user ended (a break, self-exclusion): his sockets'
        commands are asked of the database again, and refused there (on every process
        of a cluster)."""
        self._forget_user_here(user_id)
        self.tell_others({"forget_user": user_id})

    def _forget_user_here(self, user_id: int) -> None:
        for token in list(self.tokens_of(user_id)):
            self._trusted.pop(token, None)

    def heard(self, body: Mapping[str, Any]) -> None:
        """Another process ended a session or a user's sessions."""
        if "forget_user" in body:
            self._forget_user_here(int(body["forget_user"]))
        if "forget_session" in body:
            gone = str(body["forget_session"])
            for token in [t for t in self._trusted if accounts.hash_token(t) == gone]:
                self._trusted.pop(token, None)


def _utc(now: float) -> datetime:
    return datetime.fromtimestamp(now, UTC)
