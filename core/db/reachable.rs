//! Whether the database answers, as the readiness probe last found it. While it does
//! not, API calls are refused at once (503 with Retry-After) rather than each waiting
//! for a pooled connection until the acquire deadline; they are served again as soon as
//! the probe, which looks more often while the database is away, finds it back.
//!
//! A server that refuses connections (nothing listens on its port or socket, or it
//! turns them away: stopped, shutting down, crashed, restarting) is away at once, for the requests already waiting too: sqlx's
//! pool retries a refused connect until the acquire deadline, so a request that arrived
//! before the probe looked would otherwise wait all of it. The probe looks at once when
//! a request lost its connection ([`Reachable::kick`]), and when the server refuses,
//! every request waiting on the database is answered unavailable ([`Reachable::refused`]).
//! Only a server that is slow without refusing may cost the acquire deadline.

use sqlx::postgres::PgConnectOptions;
use sqlx::{ConnectOptions, Connection, PgPool};
use std::io::ErrorKind;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::Notify;

/// How often the probe looks while the database answers.
pub(crate) const PROBE_EVERY: Duration = Duration::from_secs(1);
/// How often it looks while the database does not: its return is seen within this.
pub(crate) const PROBE_EVERY_WHILE_DOWN: Duration = Duration::from_millis(250);
/// How long a question to one server on a connection of its own may take (the failover
/// follower asking every host, `primary`); a question through the pool waits the pool's
/// acquire deadline instead (`pool_takes_writes`).
pub(crate) const PROBE_DEADLINE: Duration = Duration::from_secs(1);
/// How long a question through the pool may take before the probe also checks whether
/// the server refuses connections (and then every [`PROBE_EVERY_WHILE_DOWN`] until it
/// answers): a pool with a connection to give answers well within it, so a server that
/// answers costs no connection of the probe's own.
const REFUSAL_CHECK_AFTER: Duration = Duration::from_millis(100);

/// What a probe of the server behind a pool found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Probe {
    /// It answered that it takes writes.
    Writable,
    /// It answered that it takes none, failed, or did not answer within the deadline.
    NotWritable,
    /// It refuses connections: nothing listens there now.
    Refused,
}

/// Whether the server behind `pool` takes writes, asked through the pool: by the
/// readiness probe and by the failover follower. It waits as long as a request may
/// wait for its connection (the pool's acquire deadline): a pool busy with requests
/// that the database is serving is not a lost server, and taking it for one would
/// refuse those very requests. A server that refuses connections is seen at once: the
/// pool would retry its refused connects until the deadline.
pub(crate) async fn probe_pool(pool: &PgPool) -> Probe {
    let deadline = pool.options().get_acquire_timeout();
    let asked = tokio::time::timeout(deadline, super::store::accepts_writes(pool));
    tokio::pin!(asked);
    // While the pool has no answer, whether the server refuses is checked again and
    // again: a server shutting down still accepts connections (to turn them away) for a
    // while, and refuses them only once it is gone.
    let mut check_in = REFUSAL_CHECK_AFTER;
    let answered = loop {
        tokio::select! {
            answered = &mut asked => break answered,
            () = tokio::time::sleep(check_in) => {
                if refuses(&pool.connect_options()).await {
                    return Probe::Refused;
                }
                check_in = PROBE_EVERY_WHILE_DOWN;
            }
        }
    };
    match answered {
        Ok(Ok(true)) => Probe::Writable,
        // Read-only, or a failure: a pooled connection found dead fails at once while
        // the requests that need a new one wait in the pool's retries of a refused
        // connect. Whether the server refuses tells them apart.
        Ok(Ok(false)) => Probe::NotWritable,
        _ => match refuses(&pool.connect_options()).await {
            true => Probe::Refused,
            false => Probe::NotWritable,
        },
    }
}

/// [`probe_pool`] as a yes or no.
pub(crate) async fn pool_takes_writes(pool: &PgPool) -> bool {
    probe_pool(pool).await == Probe::Writable
}

/// Whether the server of `options` refuses connections now: its port refuses or resets
/// a connection, its socket is not there, or it turns the connection away as shutting
/// down or starting up (SQLSTATE 57P03, which sqlx's pool retries until the acquire
/// deadline as it does a refused connect). A server that is slow to answer, full
/// (`too many clients`), or a name that does not resolve is not taken for one that
/// refuses.
async fn refuses(options: &PgConnectOptions) -> bool {
    match tokio::time::timeout(PROBE_DEADLINE, options.connect()).await {
        Ok(Ok(conn)) => {
            let _ = conn.close().await;
            false
        }
        Ok(Err(sqlx::Error::Io(error))) => refusal(error.kind()),
        Ok(Err(sqlx::Error::Database(error))) => {
            error.code().as_deref() == Some(CANNOT_CONNECT_NOW)
        }
        _ => false,
    }
}

/// SQLSTATE `cannot_connect_now`: the server is shutting down, starting, or in a
/// recovery that takes no connections.
const CANNOT_CONNECT_NOW: &str = "57P03";

/// Whether a connect that failed so was refused by the server's host.
fn refusal(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionReset | ErrorKind::NotFound
    )
}

/// The probe's last finding, shared by clones; reachable until found otherwise.
#[derive(Clone, Debug, Default)]
pub(crate) struct Reachable(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    up: AtomicBool,
    /// Wakes the requests waiting on the database when the server refuses connections.
    refused: Notify,
    /// Wakes the probe before its time (it keeps one wake-up for when it next waits).
    kicked: Notify,
}

impl Default for Inner {
    fn default() -> Self {
        Self {
            up: AtomicBool::new(true),
            refused: Notify::new(),
            kicked: Notify::new(),
        }
    }
}

impl Reachable {
    /// Whether the database answered the last probe.
    pub(crate) fn is_up(&self) -> bool {
        self.0.up.load(Ordering::Acquire)
    }

    /// Records a probe's finding; says whether it changed. A server found refusing
    /// connections also ends the waits of the requests on it ([`Reachable::refused`]).
    pub(crate) fn set(&self, probe: Probe) -> bool {
        let up = probe == Probe::Writable;
        let changed = self.0.up.swap(up, Ordering::AcqRel) != up;
        if probe == Probe::Refused {
            self.0.refused.notify_waiters();
        }
        changed
    }

    /// Resolves when a probe finds the server refusing connections, from the moment this
    /// is called: a request runs its work against it and is answered unavailable at
    /// once rather than after the acquire deadline.
    pub(crate) fn refused(&self) -> tokio::sync::futures::Notified<'_> {
        self.0.refused.notified()
    }

    /// Asks the probe to look now (a request lost its connection: the server may be
    /// gone).
    pub(crate) fn kick(&self) {
        self.0.kicked.notify_one();
    }

    /// Waits until the next probe is due: its interval, or a [`Reachable::kick`].
    pub(crate) async fn next_probe(&self) {
        let every = match self.is_up() {
            true => PROBE_EVERY,
            false => PROBE_EVERY_WHILE_DOWN,
        };
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            () = self.0.kicked.notified() => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_finding_is_shared_and_changes_are_told() {
        let reachable = Reachable::default();
        let seen = reachable.clone();
        assert!(seen.is_up());
        assert!(!reachable.set(Probe::Writable), "no change");
        assert!(reachable.set(Probe::NotWritable));
        assert!(!seen.is_up());
        assert!(reachable.set(Probe::Writable));
        assert!(seen.is_up());
        // A kick makes the next probe due at once, however long its interval.
        reachable.kick();
        let due = tokio::time::timeout(Duration::from_millis(500), seen.next_probe()).await;
        assert!(due.is_ok(), "the kick was kept for the probe");
    }

    #[tokio::test]
    async fn a_refusal_ends_the_waits_begun_before_it() {
        let reachable = Reachable::default();
        let waiting = reachable.refused();
        tokio::pin!(waiting);
        // Registered before the probe's finding, even if not yet polled.
        waiting.as_mut().enable();
        assert!(!reachable.set(Probe::Writable));
        assert!(reachable.set(Probe::Refused));
        assert!(!reachable.is_up());
        let ended = tokio::time::timeout(Duration::from_secs(1), waiting).await;
        assert!(ended.is_ok(), "the waiting request was told");
    }

    #[test]
    fn only_a_refusal_is_an_outage_at_once() {
        assert!(refusal(ErrorKind::ConnectionRefused));
        assert!(refusal(ErrorKind::ConnectionReset));
        assert!(refusal(ErrorKind::NotFound), "no socket file: no server");
        assert!(!refusal(ErrorKind::TimedOut));
        assert!(!refusal(ErrorKind::PermissionDenied));
        assert!(!refusal(ErrorKind::Other), "a name that does not resolve");
    }

    #[tokio::test]
    async fn a_closed_port_refuses_and_a_listening_one_does_not() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let options = PgConnectOptions::new().host("127.0.0.1").port(port);
        assert!(!refuses(&options).await, "something listens");
        drop(listener);
        assert!(refuses(&options).await, "nothing listens any more");
        let socket = PgConnectOptions::new()
            .socket(std::env::temp_dir().join("formsd-no-such-dir"))
            .port(5432);
        assert!(refuses(&socket).await, "no socket there");
    }
}
