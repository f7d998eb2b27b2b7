//! A replica's connections: each new one checked against the reads already sent to the
//! replica (a server that came back behind them serves none), and what logs and metrics
//! call a replica.

use super::state::State;
use crate::db::store::replay_position;
use sqlx::postgres::PgConnectOptions;
use std::time::Duration;

/// Checks a new connection to a replica. A connection does not outlive its server, so a
/// new one may reach a server that restarted (or another at the same address) since a
/// read was sent here for a position it has not replayed (a standby restarted replays
/// again from its last restart point). Such a server serves nothing: the connection is
/// refused (the pool tries again until its acquire timeout, and the probe finds the
/// replica down), and what was seen of the replica is forgotten, until it has replayed
/// that far again. Without this, a replica restarted between two probes would serve the
/// reads sent by its last seen position, short of writes they must see.
pub(super) async fn connected(
    conn: &mut sqlx::PgConnection,
    state: &State,
    ports: &[u16],
) -> Result<(), sqlx::Error> {
    crate::db::nodelay::set_on_peers_at(ports);
    let replayed = replay_position(&mut *conn).await?.replayed;
    if state.may_serve(replayed) {
        return Ok(());
    }
    state.went_back(replayed.unwrap_or(0));
    Err(sqlx::Error::Protocol(format!(
        "the replica has replayed {} bytes of WAL, short of reads already sent to it: it serves again once it has replayed as far",
        replayed.map_or_else(|| "no".to_owned(), |r| r.to_string())
    )))
}

/// Whether a connection idle for `idle_for` went idle before its replica was last
/// found down (`since_down` ago): then it may have died with the replica.
pub(super) fn idle_since_down(since_down: Option<Duration>, idle_for: Duration) -> bool {
    since_down.is_some_and(|since| since <= idle_for)
}

/// `host:port` of a replica (the socket directory for a unix socket); no user, no
/// password.
pub(super) fn label(connect: &PgConnectOptions) -> String {
    let host = match connect.get_socket() {
        Some(dir) => dir.display().to_string(),
        None => connect.get_host().to_owned(),
    };
    format!("{host}:{}", connect.get_port())
}
