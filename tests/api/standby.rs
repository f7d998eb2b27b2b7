//! A primary and its hot standby, made by a test: `initdb` of a private primary
//! (`wal_level = replica`; its pg_hba trusts replication over its socket), then
//! `pg_basebackup -R` of it started on another port. Both listen on unix sockets only,
//! in a temporary directory (no TCP port to collide with another test or server).
//! PostgreSQL refuses to run as root: run as root, the clusters belong to `postgres`
//! (or `nobody`), as the embedded cluster does.

use sqlx::{Connection, PgConnection};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;
use tokio::process::Command;

/// Ports of the two servers (their sockets are in directories of their own).
const PRIMARY_PORT: u16 = 5433;
const STANDBY_PORT: u16 = 5434;

/// Settings of both servers: small, quick, unsafe on power loss (test data).
const COMMON: &str = "
listen_addresses = ''
fsync = off
shared_buffers = '16MB'
max_connections = 100
log_min_messages = warning
";

/// What the primary needs to feed a standby.
const PRIMARY: &str = "
wal_level = replica
max_wal_senders = 4
wal_keep_size = '256MB'
";

/// What the standby needs to serve reads: hot standby, and the primary told of its
/// queries, so that replay never cancels one.
const STANDBY: &str = "
hot_standby = on
hot_standby_feedback = on
";

/// A primary and its streaming standby, removed (stopped at once) when dropped.
pub struct Pair {
    pub primary: Cluster,
    pub standby: Cluster,
    /// Dropped last: the clusters stop before their files go.
    _dir: tempfile::TempDir,
}

/// One PostgreSQL server of a [`Pair`].
pub struct Cluster {
    pgdata: PathBuf,
    socket: PathBuf,
    port: u16,
    log: PathBuf,
    bin: PathBuf,
    /// The user it runs as when the test runs as root.
    user: Option<String>,
}

impl Pair {
    /// Makes and starts the primary, then its standby; the standby streams from the
    /// primary and serves reads once this returns.
    pub async fn start() -> Pair {
        let bin = bin_dir();
        let user = (nix::unistd::geteuid().is_root()).then(server_user);
        let dir = tempfile::Builder::new()
            .prefix("formsd-standby-")
            .tempdir()
            .expect("temporary directory");
        give(dir.path(), user.as_deref());
        let cluster = |name: &str, port| {
            let socket = dir.path().join(format!("{name}-run"));
            std::fs::create_dir(&socket).expect("socket directory");
            give(&socket, user.as_deref());
            Cluster {
                pgdata: dir.path().join(name),
                socket,
                port,
                log: dir.path().join(format!("{name}.log")),
                bin: bin.clone(),
                user: user.clone(),
            }
        };
        let primary = cluster("primary", PRIMARY_PORT);
        let standby = cluster("standby", STANDBY_PORT);

        let pgdata = primary.pgdata.to_str().expect("UTF-8 path").to_owned();
        primary
            .run(
                "initdb",
                &[
                    "-D",
                    &pgdata,
                    "-U",
                    "postgres",
                    "--auth=trust",
                    // As the embedded cluster: the migrations need UTF-8 (ICU collations).
                    "--encoding=UTF8",
                    "--locale=C",
                ],
            )
            .await;
        primary.configure(&format!("{COMMON}{PRIMARY}"));
        primary.start().await;

        let (from, port) = (primary.socket_str(), primary.port.to_string());
        let into = standby.pgdata.to_str().expect("UTF-8 path").to_owned();
        let args = ["-D", &into, "-h", &from, "-p", &port, "-U", "postgres"];
        let mut args = args.to_vec();
        // -R: standby.signal and primary_conninfo; WAL streamed meanwhile; no fsync.
        args.extend(["-R", "-X", "stream", "-c", "fast", "--no-sync"]);
        standby.run("pg_basebackup", &args).await;
        // The copied configuration names the primary's socket and port: these come after.
        standby.configure(&format!("{COMMON}{STANDBY}"));
        standby.start().await;
        let mut conn = standby.connect("postgres").await;
        let (in_recovery,): (bool,) = sqlx::query_as("SELECT pg_is_in_recovery()")
            .fetch_one(&mut conn)
            .await
            .expect("asking the standby");
        assert!(in_recovery, "the standby is not in recovery");
        Pair {
            primary,
            standby,
            _dir: dir,
        }
    }
}

impl Cluster {
    /// A URL of `database` on this server, as formsd takes it.
    pub fn url(&self, database: &str) -> String {
        format!(
            "postgres://postgres@localhost/{database}?host={}&port={}",
            self.socket_str().replace('/', "%2F"),
            self.port
        )
    }

    /// A connection to `database`, retried while the server starts.
    pub async fn connect(&self, database: &str) -> PgConnection {
        let url = self.url(database);
        let mut last = None;
        for _ in 0..40 {
            match PgConnection::connect(&url).await {
                Ok(conn) => return conn,
                Err(error) => last = Some(error),
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        panic!("connecting to {url}: {last:?}\n{}", self.log_text());
    }

    /// Creates `database` (on the primary); its URL.
    pub async fn create_database(&self, database: &str) -> String {
        let mut conn = self.connect("postgres").await;
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
            "CREATE DATABASE \"{database}\""
        )))
        .execute(&mut conn)
        .await
        .expect("creating the database");
        self.url(database)
    }

    /// Starts the server and waits until it takes connections.
    pub async fn start(&self) {
        let pgdata = self.pgdata.to_str().expect("UTF-8 path");
        let log = self.log.to_str().expect("UTF-8 path");
        let args = ["start", "-D", pgdata, "-l", log, "-w", "-t", "60"];
        self.run("pg_ctl", &args).await;
    }

    /// Stops the server at once, as a crash would (connections cut, no checkpoint).
    pub async fn stop(&self) {
        let pgdata = self.pgdata.to_str().expect("UTF-8 path");
        let args = ["stop", "-D", pgdata, "-m", "immediate", "-w", "-t", "60"];
        self.run("pg_ctl", &args).await;
    }

    fn socket_str(&self) -> String {
        self.socket.to_str().expect("UTF-8 path").to_owned()
    }

    /// Appends `settings`, with this server's socket and port, to its configuration.
    fn configure(&self, settings: &str) {
        let conf = self.pgdata.join("postgresql.conf");
        let mut text = std::fs::read_to_string(&conf).expect("postgresql.conf");
        text.push_str(settings);
        text.push_str(&format!(
            "unix_socket_directories = '{}'\nport = {}\n",
            self.socket_str(),
            self.port
        ));
        std::fs::write(&conf, text).expect("writing postgresql.conf");
    }

    /// The command `name` of the PostgreSQL binaries, as the server's user.
    fn command(&self, name: &str) -> Command {
        let program = self.bin.join(name);
        let mut cmd = match &self.user {
            Some(user) => {
                let mut cmd = Command::new("runuser");
                cmd.args(["-u", user, "--"]).arg(program);
                cmd
            }
            None => Command::new(program),
        };
        // The server's own environment: nothing of the test runner's PG* settings.
        for var in ["PGHOST", "PGPORT", "PGDATA", "PGUSER", "PGDATABASE"] {
            cmd.env_remove(var);
        }
        cmd.current_dir("/").kill_on_drop(true);
        cmd
    }

    /// Runs `name args` to its end; panics (with the server's log) when it fails.
    async fn run(&self, name: &str, args: &[&str]) -> Output {
        let out = self
            .command(name)
            .args(args)
            .output()
            .await
            .unwrap_or_else(|e| panic!("running {name}: {e}"));
        assert!(
            out.status.success(),
            "{name} {args:?}: {}\n{}\n{}\nlog:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            self.log_text()
        );
        out
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Cluster {
    /// Stops the server if it runs (a failed test included), at once.
    fn drop(&mut self) {
        if !self.pgdata.join("postmaster.pid").exists() {
            return;
        }
        let mut cmd = std::process::Command::new(match self.user {
            Some(_) => PathBuf::from("runuser"),
            None => self.bin.join("pg_ctl"),
        });
        if let Some(user) = &self.user {
            cmd.args(["-u", user, "--"]).arg(self.bin.join("pg_ctl"));
        }
        let _ = cmd
            .arg("stop")
            .arg("-D")
            .arg(&self.pgdata)
            .args(["-m", "immediate", "-w"])
            .current_dir("/")
            .output();
    }
}

/// The directory of the PostgreSQL server binaries: `$FORMS_PG_BIN`, else the newest
/// `/usr/lib/postgresql/*/bin`.
fn bin_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("FORMS_PG_BIN") {
        return PathBuf::from(dir);
    }
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("pg_basebackup").exists().then_some((version, bin))
        })
        .collect();
    found.sort();
    found
        .pop()
        .map(|(_, bin)| bin)
        .expect("PostgreSQL server binaries (initdb, pg_basebackup): set FORMS_PG_BIN")
}

/// The unprivileged user the servers run as when the test is root.
fn server_user() -> String {
    ["postgres", "nobody"]
        .into_iter()
        .find(|name| matches!(nix::unistd::User::from_name(name), Ok(Some(_))))
        .expect("a postgres or nobody user to run PostgreSQL as")
        .to_owned()
}

/// Hands `path` to `user` (when the test is root), so that the server can use it.
fn give(path: &Path, user: Option<&str>) {
    if let Some(user) = user {
        let user = nix::unistd::User::from_name(user)
            .expect("user lookup")
            .expect("the server's user");
        std::os::unix::fs::chown(path, Some(user.uid.as_raw()), Some(user.gid.as_raw()))
            .expect("chown");
    }
}
