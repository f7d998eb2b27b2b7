//! The server that takes writes, among the hosts of the database URL.
//!
//! The rule: **the service talks only to the server that takes writes.** The URL may
//! name several hosts as libpq does, `postgres://u@h1:5432,h2:5433/db` (what
//! `pg_autoctl show uri` prints). At start, and whenever the current server stops
//! answering or stops taking writes (`transaction_read_only` is on: a standby, or a
//! primary being demoted), all the hosts are asked at once whether they take writes,
//! and the first in the URL's order that does becomes the current one, as libpq's
//! `target_session_attrs=read-write` chooses. It stays current while it takes writes:
//! a former primary that comes back does not take over again by itself. The pool's new
//! connections go to it, and those opened before a switch are closed rather than
//! handed out again.
//!
//! Reads are no exception: a server that takes no writes may be a standby behind the
//! primary, or a former primary on a timeline of its own, and could answer with stale
//! data. The readiness probe asks the same question (`server::Core::spawn_readiness`),
//! so that while no server takes writes every request is refused at once.
//!
//! Meanwhile no request waits for long: requests on the lost server fail with a
//! connection error or `read only transaction`, new ones find no connection within the
//! pool's acquire deadline or are refused by the gate once readiness has seen it; all
//! are answered 503 SERVICE_UNAVAILABLE with Retry-After (`crate::error`). A failover
//! takes what PostgreSQL's promotion takes, plus up to [`PROBE_EVERY`] to notice the
//! loss (and the pool's acquire deadline if the lost server hangs rather than refuses:
//! `pool_takes_writes`), and [`PROBE_EVERY_WHILE_DOWN`] to notice the new primary.
//!
//! No acknowledged write is lost only if the standby had it before it was acknowledged:
//! that is the servers' synchronous replication (the book, docs/src/running/replicas-and-failover.md), not ours.

use super::reachable::{PROBE_DEADLINE, PROBE_EVERY, PROBE_EVERY_WHILE_DOWN, pool_takes_writes};
use super::store;
use sqlx::postgres::{PgConnectOptions, PgPool};
use sqlx::{ConnectOptions, Connection};
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The URL's parameter that libpq reads to choose among hosts.
const SESSION_ATTRS: &str = "target_session_attrs";
/// Its values that mean what the service needs anyway: a server that takes writes.
const WRITABLE_ATTRS: &[&str] = &["read-write", "primary"];

/// Why no server to write to was found.
#[derive(Debug, thiserror::Error)]
pub enum PrimaryError {
    #[error("database URL: {0}")]
    Url(String),
    #[error("no database server takes writes: {0}")]
    NoneWritable(String),
}

/// One host of the URL: its name for the logs (never the URL: it may hold a password)
/// and the options of a connection to it.
struct Host {
    name: String,
    options: PgConnectOptions,
}

/// What asking a host found.
enum Finding {
    Writable,
    ReadOnly,
    Unreachable(String),
}

/// The hosts of the URL and which of them the pool connects to.
pub(crate) struct Primary {
    hosts: Vec<Host>,
    current: AtomicUsize,
    /// When the pool last moved to another host, in nanoseconds after `epoch` (0: never).
    switched: AtomicU64,
    epoch: Instant,
}

impl Primary {
    /// The hosts of `url`, which may name several (`h1:5432,h2:5433`); the first is
    /// current until [`Primary::find_first`] says otherwise.
    pub(crate) fn parse(url: &str) -> Result<Self, PrimaryError> {
        let hosts = split_hosts(url)?
            .iter()
            .map(|url| {
                let options = PgConnectOptions::from_str(url)
                    .map_err(|e| PrimaryError::Url(e.to_string()))?;
                let name = match options.get_socket() {
                    Some(dir) => format!("{}:{}", dir.display(), options.get_port()),
                    None => format!("{}:{}", options.get_host(), options.get_port()),
                };
                Ok(Host { name, options })
            })
            .collect::<Result<Vec<_>, PrimaryError>>()?;
        Ok(Self {
            hosts,
            current: AtomicUsize::new(0),
            switched: AtomicU64::new(0),
            epoch: Instant::now(),
        })
    }

    /// Whether there is another host to turn to.
    pub(crate) fn has_alternatives(&self) -> bool {
        self.hosts.len() > 1
    }

    /// The options of a connection to the current host.
    pub(crate) fn options(&self) -> PgConnectOptions {
        self.hosts[self.current()].options.clone()
    }

    /// The ports of all the hosts.
    pub(crate) fn ports(&self) -> Vec<u16> {
        self.hosts.iter().map(|h| h.options.get_port()).collect()
    }

    fn current(&self) -> usize {
        self.current.load(Ordering::Acquire)
    }

    /// Makes the first host that takes writes current, asking again with back-off until
    /// one does or `patience` is over (a server starting, busy, or a failover under
    /// way), and saying in the log what it waits for. Each round gives the hosts longer
    /// to answer: a server slowed by load past [`PROBE_DEADLINE`] is found all the same.
    pub(crate) async fn find_first(&self, patience: Duration) -> Result<(), PrimaryError> {
        let started = Instant::now();
        let deadline = started + patience;
        let mut wait = Backoff::default();
        loop {
            let findings = self.ask_all(wait.answer).await;
            if let Some(writable) = first_writable(&findings) {
                self.current.store(writable, Ordering::Release);
                if wait.round > 0 {
                    tracing::info!(
                        host = %self.hosts[writable].name,
                        waited = ?started.elapsed(),
                        "a database server takes writes: starting"
                    );
                }
                return Ok(());
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(PrimaryError::NoneWritable(self.describe(&findings)));
            }
            let pause = wait.next().min(deadline - now);
            tracing::warn!(
                hosts = %self.describe(&findings),
                next_in = ?pause,
                gives_up_in = ?(deadline - now),
                "waiting for a database server that takes writes (--db-start-timeout)"
            );
            tokio::time::sleep(pause).await;
        }
    }

    /// Whether a pooled connection of this `age` was opened before the last switch:
    /// it leads to the former server and must not be handed out.
    pub(crate) fn opened_before_switch(&self, age: Duration) -> bool {
        let switched = self.switched.load(Ordering::Acquire);
        if switched == 0 {
            return false;
        }
        let opened = Instant::now()
            .checked_sub(age)
            .unwrap_or(self.epoch)
            .saturating_duration_since(self.epoch);
        opened.as_nanos() < u128::from(switched)
    }

    /// Follows the primary for the life of `pool`: checks every [`PROBE_EVERY`] that
    /// the current server takes writes; once it does not, asks every host each
    /// [`PROBE_EVERY_WHILE_DOWN`] until one does, and moves the pool there.
    pub(crate) fn spawn_follow(self: Arc<Self>, pool: PgPool) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            while !pool.is_closed() {
                tokio::time::sleep(PROBE_EVERY).await;
                if pool_takes_writes(&pool).await || pool.is_closed() {
                    continue;
                }
                let lost = &self.hosts[self.current()].name;
                tracing::warn!(
                    host = %lost,
                    "the database server does not take writes now: looking for one that does"
                );
                self.find_again(&pool).await;
            }
        })
    }

    /// Asks every host until one takes writes (or the pool closes), and makes it current.
    async fn find_again(&self, pool: &PgPool) {
        let mut said = false;
        while !pool.is_closed() {
            let findings = self.ask_all(PROBE_DEADLINE).await;
            match first_writable(&findings) {
                Some(found) if found == self.current() => {
                    tracing::info!(host = %self.hosts[found].name, "the database server takes writes again");
                    return;
                }
                Some(found) => {
                    self.switch(pool, found);
                    tracing::warn!(host = %self.hosts[found].name, "writing to another database server now (failover)");
                    return;
                }
                None if !said => {
                    said = true;
                    tracing::warn!(hosts = %self.describe(&findings), "no database server takes writes yet");
                }
                None => {}
            }
            tokio::time::sleep(PROBE_EVERY_WHILE_DOWN).await;
        }
    }

    /// Points the pool's new connections at host `to`; those opened before are not
    /// handed out again (`opened_before_switch`).
    fn switch(&self, pool: &PgPool, to: usize) {
        // Options first, then the time: a connection opened in between leads to the new
        // host and is merely renewed once, never the other way round.
        pool.set_connect_options(self.hosts[to].options.clone());
        let now = Instant::now().saturating_duration_since(self.epoch);
        let nanos = u64::try_from(now.as_nanos()).unwrap_or(u64::MAX).max(1);
        self.switched.store(nanos, Ordering::Release);
        self.current.store(to, Ordering::Release);
    }

    /// Asks every host at once whether it takes writes (each within `deadline`).
    async fn ask_all(&self, deadline: Duration) -> Vec<Finding> {
        let mut asks = tokio::task::JoinSet::new();
        for (i, host) in self.hosts.iter().enumerate() {
            let options = host.options.clone();
            asks.spawn(async move { (i, ask(options, deadline).await) });
        }
        let mut findings: Vec<Option<Finding>> = self.hosts.iter().map(|_| None).collect();
        while let Some(asked) = asks.join_next().await {
            if let Ok((i, finding)) = asked {
                findings[i] = Some(finding);
            }
        }
        findings
            .into_iter()
            .map(|f| f.unwrap_or_else(|| Finding::Unreachable("the check stopped".into())))
            .collect()
    }

    /// "h1:5432: read-only; h2:5433: connection refused" (no password: names only).
    fn describe(&self, findings: &[Finding]) -> String {
        let what = |finding: &Finding| match finding {
            Finding::Writable => "takes writes".to_owned(),
            Finding::ReadOnly => "read-only (a standby?)".to_owned(),
            Finding::Unreachable(why) => why.clone(),
        };
        self.hosts
            .iter()
            .zip(findings)
            .map(|(host, finding)| format!("{}: {}", host.name, what(finding)))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// Whether the server of `options` takes writes, on a connection of its own, asked
/// within `deadline`.
async fn ask(options: PgConnectOptions, deadline: Duration) -> Finding {
    let asked = async {
        let mut conn = options.connect().await?;
        let writable = store::accepts_writes(&mut conn).await;
        let _ = conn.close().await;
        writable
    };
    match tokio::time::timeout(deadline, asked).await {
        Ok(Ok(true)) => Finding::Writable,
        Ok(Ok(false)) => Finding::ReadOnly,
        Ok(Err(error)) => Finding::Unreachable(error.to_string()),
        Err(_) => Finding::Unreachable(format!("no answer within {deadline:?}")),
    }
}

/// The rounds of the search at start: each gives the hosts twice as long to answer and
/// waits twice as long before the next, up to a ceiling, so that a server that is
/// merely slow is found and one that is down is not asked in a tight loop.
struct Backoff {
    round: u32,
    /// How long the hosts have to answer this round.
    answer: Duration,
    pause: Duration,
}

/// Longest a host is given to answer at start, and longest pause between rounds.
const MOST_ANSWER: Duration = Duration::from_secs(10);
const MOST_PAUSE: Duration = Duration::from_secs(5);

impl Default for Backoff {
    fn default() -> Self {
        Self {
            round: 0,
            answer: PROBE_DEADLINE,
            pause: PROBE_EVERY_WHILE_DOWN,
        }
    }
}

impl Backoff {
    /// The pause before the next round; the round after it is given longer.
    fn next(&mut self) -> Duration {
        let pause = self.pause;
        self.round += 1;
        self.answer = (self.answer * 2).min(MOST_ANSWER);
        self.pause = (self.pause * 2).min(MOST_PAUSE);
        pause
    }
}

fn first_writable(findings: &[Finding]) -> Option<usize> {
    findings.iter().position(|f| matches!(f, Finding::Writable))
}

/// One single-host URL per host of `url`, in order, without `target_session_attrs`
/// (which sqlx does not know; only the values meaning "writable" are accepted).
fn split_hosts(url: &str) -> Result<Vec<String>, PrimaryError> {
    let bad = |why: &str| PrimaryError::Url(why.to_owned());
    let scheme_end = url.find("://").ok_or_else(|| bad("no scheme"))? + 3;
    let (scheme, rest) = url.split_at(scheme_end);
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, after) = rest.split_at(authority_end);
    let (path, query) = after.split_once('?').unwrap_or((after, ""));
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        if name != SESSION_ATTRS {
            kept.push(pair);
        } else if !WRITABLE_ATTRS.contains(&value) {
            return Err(PrimaryError::Url(format!(
                "{SESSION_ATTRS}={value}: formsd writes, so it always connects to the server \
                 that takes writes (leave it out, or say read-write)"
            )));
        }
    }
    let query = match kept.is_empty() {
        true => String::new(),
        false => format!("?{}", kept.join("&")),
    };
    // A password may hold a comma: the hosts start after the last '@'.
    let (user, hosts) = match authority.rsplit_once('@') {
        Some((user, hosts)) => (format!("{user}@"), hosts),
        None => (String::new(), authority),
    };
    hosts
        .split(',')
        .map(|host| match host.is_empty() && hosts.contains(',') {
            true => Err(bad("an empty host in the list of hosts")),
            false => Ok(format!("{scheme}{user}{host}{path}{query}")),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_with_several_hosts_is_one_url_per_host() {
        let urls = split_hosts(
            "postgres://u:p,w@h1:5432,[::1]:5433,h3/db?sslmode=prefer&target_session_attrs=read-write",
        )
        .expect("parsed");
        assert_eq!(
            urls,
            [
                "postgres://u:p,w@h1:5432/db?sslmode=prefer",
                "postgres://u:p,w@[::1]:5433/db?sslmode=prefer",
                "postgres://u:p,w@h3/db?sslmode=prefer",
            ]
        );
        let primary = Primary::parse(
            "postgres://u@h1:5432,h2:5433/db?target_session_attrs=primary&application_name=x",
        )
        .expect("parsed");
        let names: Vec<_> = primary.hosts.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, ["h1:5432", "h2:5433"]);
        assert_eq!(primary.ports(), [5432, 5433]);
        assert!(primary.has_alternatives());
    }

    #[test]
    fn one_host_and_socket_urls_pass_unchanged() {
        for url in [
            "postgres://postgres@127.0.0.1:5432/postgres",
            "postgres://postgres@localhost/forms?host=%2Ftmp%2Fs&port=5999",
            "postgres:///forms",
        ] {
            assert_eq!(split_hosts(url).expect("parsed"), [url]);
        }
        let socket =
            Primary::parse("postgres://postgres@localhost/forms?host=%2Ftmp%2Fs&port=5999")
                .expect("parsed");
        assert_eq!(socket.hosts[0].name, "/tmp/s:5999");
        assert!(!socket.has_alternatives());
    }

    #[test]
    fn session_attributes_other_than_writable_are_refused() {
        for attrs in ["any", "read-only", "standby", "prefer-standby"] {
            let url = format!("postgres://h1,h2/db?target_session_attrs={attrs}");
            assert!(
                matches!(split_hosts(&url), Err(PrimaryError::Url(_))),
                "{attrs}"
            );
        }
        assert!(split_hosts("postgres://h1,,h2/db").is_err());
        assert!(split_hosts("h1,h2/db").is_err());
    }

    #[test]
    fn the_search_at_start_backs_off_to_a_ceiling() {
        let mut wait = Backoff::default();
        assert_eq!(
            (wait.answer, wait.pause),
            (PROBE_DEADLINE, PROBE_EVERY_WHILE_DOWN)
        );
        let pauses: Vec<_> = (0..8).map(|_| wait.next().as_millis()).collect();
        assert_eq!(pauses, [250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
        assert_eq!(wait.answer, MOST_ANSWER);
        assert_eq!(wait.round, 8);
    }

    #[tokio::test]
    async fn only_connections_opened_before_a_switch_are_old() {
        let primary = Primary::parse("postgres://h1,h2/db").expect("parsed");
        assert!(!primary.opened_before_switch(Duration::from_secs(3600)));
        std::thread::sleep(Duration::from_millis(5));
        let pool = sqlx::postgres::PgPoolOptions::new().connect_lazy_with(primary.options());
        primary.switch(&pool, 1);
        assert_eq!(pool.connect_options().get_host(), "h2");
        assert!(primary.opened_before_switch(Duration::from_millis(2)));
        std::thread::sleep(Duration::from_millis(5));
        assert!(!primary.opened_before_switch(Duration::from_millis(1)));
    }
}
