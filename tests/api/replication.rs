//! Private PostgreSQL clusters made by a test, on TCP ports of their own: a primary
//! (`initdb`), standbys of it (`pg_basebackup -R`), a primary and its synchronous
//! standby together, run as `postgres` when the test runs as root (PostgreSQL refuses
//! root). A server can be killed as a crash would (`kill -9` of its postmaster) and a
//! standby promoted. Without PostgreSQL's programs the tests that need them say
//! SKIPPED, unless FORMS_REQUIRE_POSTGRES_TOOLS=1 (as in CI): then they fail.

use sqlx::Connection;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// PostgreSQL's programs: `$FORMS_PG_BIN`, else the newest `/usr/lib/postgresql/*/bin`,
/// else `$PATH`; `None` when there is no `initdb` to be found.
fn bin_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("FORMS_PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path().join("bin"))
        .filter(|bin| bin.join("initdb").exists())
        .collect();
    versions.sort_by_key(|bin| {
        bin.parent()
            .and_then(Path::file_name)
            .and_then(|v| v.to_str()?.parse::<u32>().ok())
    });
    if let Some(newest) = versions.pop() {
        return Some(newest);
    }
    std::env::split_paths(&std::env::var_os("PATH")?).find(|dir| dir.join("initdb").exists())
}

/// A port nobody listens on right now.
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

/// PostgreSQL's programs and the temporary directory of the clusters made with them, run
/// as `postgres` when the test runs as root; every cluster made here is stopped
/// (immediately) when this is dropped.
pub struct Servers {
    dir: tempfile::TempDir,
    bin: PathBuf,
    as_postgres: bool,
    made: std::sync::Mutex<Vec<PathBuf>>,
}

/// A primary and its synchronous standby, each a cluster of its own in one temporary
/// directory; both are stopped (immediately) when dropped.
pub struct Pair {
    pub servers: Servers,
    pub primary: Cluster,
    pub standby: Cluster,
}

/// A cluster alone, made as a pair's primary is; stopped (immediately) when dropped.
pub struct Single {
    pub servers: Servers,
    pub server: Cluster,
}

/// One cluster of a [`Pair`].
pub struct Cluster {
    pub pgdata: PathBuf,
    pub port: u16,
}

impl Cluster {
    /// The URL of `database` on this cluster.
    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }
}

impl Servers {
    /// A temporary directory for clusters; `None` when PostgreSQL's programs are not on
    /// this machine (a test then skips, unless FORMS_REQUIRE_POSTGRES_TOOLS=1: see
    /// [`require`]).
    pub fn new() -> Option<Servers> {
        let bin = bin_dir()?;
        let dir = tempfile::Builder::new()
            .prefix("forms-pair-")
            .tempdir()
            .expect("a temporary directory");
        let as_postgres = nix::unistd::Uid::effective().is_root();
        if as_postgres {
            let user = nix::unistd::User::from_name("postgres")
                .expect("reading the user database")
                .expect("a postgres user to run PostgreSQL as (it refuses root)");
            std::os::unix::fs::chown(dir.path(), Some(user.uid.as_raw()), Some(user.gid.as_raw()))
                .expect("handing the directory to postgres");
        }
        Some(Servers {
            dir,
            bin,
            as_postgres,
            made: Default::default(),
        })
    }

    /// A new primary `name` on a free port, started, with the database `database`.
    pub async fn primary(&self, name: &str, database: &str) -> Cluster {
        let primary = self.cluster(name);
        self.run(
            "initdb",
            &[
                "-D",
                path(&primary.pgdata),
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "--no-instructions",
                "--encoding=UTF8",
                "--locale=C",
            ],
        );
        let socket_dir = path(self.dir.path()).to_owned();
        self.configure(
            &primary.pgdata.join("postgresql.conf"),
            &format!(
                "port = {}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{socket_dir}'\n\
                 max_connections = 60\nshared_buffers = 16MB\nwal_level = replica\n\
                 max_wal_senders = 4\nsynchronous_commit = on\n",
                primary.port
            ),
        );
        self.pg_ctl(&primary, "start");
        let mut admin = sqlx::PgConnection::connect(&primary.url("postgres"))
            .await
            .expect("connecting to the new primary");
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
            "CREATE DATABASE \"{database}\""
        )))
        .execute(&mut admin)
        .await
        .expect("creating the database");
        let _ = admin.close().await;
        primary
    }

    /// A new standby `name` of `primary` (`pg_basebackup -R`), started; it waits for no
    /// standby of its own once promoted.
    pub fn standby(&self, name: &str, primary: &Cluster) -> Cluster {
        let standby = self.cluster(name);
        let port = primary.port.to_string();
        self.run(
            "pg_basebackup",
            &[
                "-D",
                path(&standby.pgdata),
                "-h",
                "127.0.0.1",
                "-p",
                &port,
                "-U",
                "postgres",
                "-R",
                "-X",
                "stream",
                "-c",
                "fast",
                "--no-sync",
            ],
        );
        // Its own port; promoted, it runs alone (as
        // pg_auto_failover does while no other node is there).
        self.configure(
            &standby.pgdata.join("postgresql.auto.conf"),
            &format!("port = {}\nsynchronous_standby_names = ''\n", standby.port),
        );
        self.pg_ctl(&standby, "start");
        standby
    }

    fn cluster(&self, name: &str) -> Cluster {
        let pgdata = self.dir.path().join(name);
        self.made
            .lock()
            .expect("clusters made")
            .push(pgdata.clone());
        Cluster {
            pgdata,
            port: free_port(),
        }
    }

    /// Kills the postmaster of `cluster` with SIGKILL, as a crash would.
    pub fn kill(&self, cluster: &Cluster) {
        let pid = std::fs::read_to_string(cluster.pgdata.join("postmaster.pid"))
            .expect("the postmaster.pid");
        let pid: i32 = pid
            .lines()
            .next()
            .and_then(|l| l.trim().parse().ok())
            .expect("a pid");
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        )
        .expect("killing the postmaster");
    }

    /// `pg_ctl <action>` on `cluster`, waiting for its end (`start`, `promote`, `stop`).
    pub fn pg_ctl(&self, cluster: &Cluster, action: &str) {
        let log = self.dir.path().join(format!("{}.log", cluster.port));
        self.run(
            "pg_ctl",
            &[
                "-D",
                path(&cluster.pgdata),
                "-l",
                path(&log),
                "-w",
                "-t",
                "60",
                action,
            ],
        );
    }

    /// Appends `settings` to a configuration file (as its owner).
    fn configure(&self, file: &Path, settings: &str) {
        use std::io::Write;
        let mut conf = std::fs::OpenOptions::new()
            .append(true)
            .open(file)
            .unwrap_or_else(|e| panic!("opening {}: {e}", file.display()));
        conf.write_all(format!("\n{settings}").as_bytes())
            .expect("writing the configuration");
    }

    fn command(&self, program: &str) -> Command {
        let program = self.bin.join(program);
        if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(program);
            command
        } else {
            Command::new(program)
        }
    }

    fn run(&self, program: &str, args: &[&str]) -> Output {
        let output = self
            .command(program)
            .args(args)
            .current_dir(self.dir.path())
            .output()
            .unwrap_or_else(|e| panic!("running {program}: {e}"));
        assert!(
            output.status.success(),
            "{program} {args:?} failed: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// The server log of `cluster` (for a failure's message).
    pub fn log(&self, cluster: &Cluster) -> String {
        std::fs::read_to_string(self.dir.path().join(format!("{}.log", cluster.port)))
            .unwrap_or_default()
    }
}

impl Drop for Servers {
    fn drop(&mut self) {
        let made = std::mem::take(&mut *self.made.lock().unwrap_or_else(|e| e.into_inner()));
        for pgdata in made.iter().rev() {
            if pgdata.join("postmaster.pid").exists() {
                let _ = self
                    .command("pg_ctl")
                    .args(["-D", path(pgdata), "-m", "immediate", "stop"])
                    .output();
            }
        }
    }
}

impl Single {
    /// A cluster alone with the database `database`; `None` when PostgreSQL's programs
    /// are not on this machine.
    pub async fn start(database: &str) -> Option<Single> {
        let servers = Servers::new()?;
        let server = servers.primary("server", database).await;
        Some(Single { servers, server })
    }
}

impl Pair {
    /// A primary with the database `database` and a standby that every commit waits
    /// for (`synchronous_standby_names = '*'`, `synchronous_commit = on`); `None` when
    /// PostgreSQL's programs are not on this machine.
    pub async fn start(database: &str) -> Option<Pair> {
        let servers = Servers::new()?;
        let primary = servers.primary("primary", database).await;
        let standby = servers.standby("standby", &primary);
        // Only now that the standby is there may commits wait for it (before, the
        // database's creation would have waited for ever).
        let mut admin = sqlx::PgConnection::connect(&primary.url("postgres"))
            .await
            .expect("connecting to the primary");
        for statement in [
            "ALTER SYSTEM SET synchronous_standby_names = '*'",
            "SELECT pg_reload_conf()",
        ] {
            sqlx::raw_sql(statement)
                .execute(&mut admin)
                .await
                .expect("making the standby synchronous");
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let sync: Option<String> = sqlx::query_scalar(
                "SELECT sync_state FROM pg_stat_replication WHERE sync_state = 'sync'",
            )
            .fetch_optional(&mut admin)
            .await
            .expect("reading pg_stat_replication");
            if sync.is_some() {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the standby never became synchronous:\n{}",
                servers.log(&standby)
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        let _ = admin.close().await;
        Some(Pair {
            servers,
            primary,
            standby,
        })
    }

    /// Kills the primary's postmaster with SIGKILL, as a crash would.
    pub fn kill_primary(&self) {
        self.servers.kill(&self.primary);
    }

    /// Promotes the standby (`pg_ctl promote`, which waits until it takes writes).
    pub fn promote_standby(&self) {
        self.servers.pg_ctl(&self.standby, "promote");
    }

    /// The server log of `cluster` (for a failure's message).
    pub fn log(&self, cluster: &Cluster) -> String {
        self.servers.log(cluster)
    }
}

/// A test that cannot run here (`what` is missing) says SKIPPED and passes, unless
/// FORMS_REQUIRE_POSTGRES_TOOLS=1 (as in CI), which makes it fail instead.
pub fn require(what: &str) {
    assert!(
        std::env::var("FORMS_REQUIRE_POSTGRES_TOOLS").as_deref() != Ok("1"),
        "FORMS_REQUIRE_POSTGRES_TOOLS=1 but {what}"
    );
    eprintln!("SKIPPED: {what}");
}

fn path(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}
