//! Private PostgreSQL clusters made by a test: a primary and its synchronous standby
//! (`initdb`, then `pg_basebackup -R`), on ports of their own, run as `postgres` when
//! the test runs as root (PostgreSQL refuses root). The primary can be killed as a
//! crash would (`kill -9` of its postmaster) and the standby promoted.

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

/// A primary and its synchronous standby, each a cluster of its own in one temporary
/// directory; both are stopped (immediately) when dropped.
pub struct Pair {
    dir: tempfile::TempDir,
    bin: PathBuf,
    as_postgres: bool,
    pub primary: Cluster,
    pub standby: Cluster,
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

impl Pair {
    /// A primary with the database `database` and a standby that every commit waits
    /// for (`synchronous_standby_names = '*'`, `synchronous_commit = on`); `None` when
    /// PostgreSQL's programs are not on this machine.
    pub async fn start(database: &str) -> Option<Pair> {
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
        let primary = Cluster {
            pgdata: dir.path().join("primary"),
            port: free_port(),
        };
        let standby = Cluster {
            pgdata: dir.path().join("standby"),
            port: free_port(),
        };
        let pair = Pair {
            dir,
            bin,
            as_postgres,
            primary,
            standby,
        };
        pair.run(
            "initdb",
            &[
                "-D",
                path(&pair.primary.pgdata),
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "--no-instructions",
                "--encoding=UTF8",
                "--locale=C",
            ],
        );
        let socket_dir = path(pair.dir.path()).to_owned();
        pair.configure(
            &pair.primary.pgdata.join("postgresql.conf"),
            &format!(
                "port = {}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{socket_dir}'\n\
                 max_connections = 60\nshared_buffers = 16MB\nwal_level = replica\n\
                 max_wal_senders = 4\nsynchronous_commit = on\n",
                pair.primary.port
            ),
        );
        pair.pg_ctl(&pair.primary, "start");
        let mut admin = sqlx::PgConnection::connect(&pair.primary.url("postgres"))
            .await
            .expect("connecting to the new primary");
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
            "CREATE DATABASE \"{database}\""
        )))
        .execute(&mut admin)
        .await
        .expect("creating the database");
        let _ = admin.close().await;
        let port = pair.primary.port.to_string();
        pair.run(
            "pg_basebackup",
            &[
                "-D",
                path(&pair.standby.pgdata),
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
        // The standby's own port; promoted, it runs alone: it waits for no standby of
        // its own (pg_auto_failover does the same while no other node is there).
        pair.configure(
            &pair.standby.pgdata.join("postgresql.auto.conf"),
            &format!(
                "port = {}\nsynchronous_standby_names = ''\n",
                pair.standby.port
            ),
        );
        pair.pg_ctl(&pair.standby, "start");
        // Only now that the standby is there may commits wait for it (before, the
        // database's creation would have waited for ever).
        let mut admin = sqlx::PgConnection::connect(&pair.primary.url("postgres"))
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
                pair.log(&pair.standby)
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        let _ = admin.close().await;
        Some(pair)
    }

    /// Kills the primary's postmaster with SIGKILL, as a crash would.
    pub fn kill_primary(&self) {
        let pid = std::fs::read_to_string(self.primary.pgdata.join("postmaster.pid"))
            .expect("the primary's postmaster.pid");
        let pid: i32 = pid
            .lines()
            .next()
            .and_then(|l| l.trim().parse().ok())
            .expect("a pid");
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        )
        .expect("killing the primary's postmaster");
    }

    /// Promotes the standby (`pg_ctl promote`, which waits until it takes writes).
    pub fn promote_standby(&self) {
        self.pg_ctl(&self.standby, "promote");
    }

    fn pg_ctl(&self, cluster: &Cluster, action: &str) {
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

impl Drop for Pair {
    fn drop(&mut self) {
        for cluster in [&self.standby, &self.primary] {
            if cluster.pgdata.join("postmaster.pid").exists() {
                let _ = self
                    .command("pg_ctl")
                    .args(["-D", path(&cluster.pgdata), "-m", "immediate", "stop"])
                    .output();
            }
        }
    }
}

fn path(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}
