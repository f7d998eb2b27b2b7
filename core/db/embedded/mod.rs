//! Embedded PostgreSQL: when no DATABASE_URL is configured, the service runs a
//! private cluster from the PostgreSQL binaries installed on the machine.
//!
//! Layout under the service's data directory:
//!   pgdata/        the cluster, created by initdb on first use
//!   run/           unix socket directory, mode 0700 — the only way in (no TCP)
//!   postgres.log   server log (pg_ctl -l)
//!
//! PostgreSQL refuses to run as root, so when we are root every PostgreSQL
//! command runs as the `postgres` system user (or `nobody`), which then owns
//! the data directory. That user is shared with other software, so the cluster
//! then asks for a password (SCRAM) on its socket instead of trusting every
//! process of that user: the password is generated once and kept in
//! `superuser.password`, readable by root only. Run as a normal user, the
//! socket's 0700 directory already admits nobody else, and trust is kept.

use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Output, Stdio};
use std::time::Duration;

mod auth;
mod files;
mod host;
mod owner;
mod report;
pub mod settings;

use host::{
    RunAs, can_traverse, check_path_chars, chown, find_bin_dir, own_entry, resolve,
    superuser_password, unprivileged_user, write_private,
};
use report::{command_error, file_tail, percent_encode};

use tokio::process::Command;

/// Only names the socket file (`.s.PGSQL.5432`): there is no TCP listener, so
/// it cannot clash with another server on the machine.
const PORT: u16 = 5432;
/// File under the data directory holding the superuser's password (run as root).
const PASSWORD_FILE: &str = "superuser.password";
/// Cluster superuser created by initdb; the user in every URL we hand out.
const SUPERUSER: &str = "postgres";
const BINARIES: [&str; 3] = ["initdb", "pg_ctl", "postgres"];
/// Seconds pg_ctl waits for start/stop to complete.
const PG_CTL_TIMEOUT: &str = "60";
/// Lines of stderr / server log quoted in error messages.
const TAIL_LINES: usize = 20;

/// `sizeof(sockaddr_un.sun_path)` minus the terminating NUL.
#[cfg(target_os = "linux")]
const MAX_SOCKET_PATH: usize = 107;
#[cfg(not(target_os = "linux"))]
const MAX_SOCKET_PATH: usize = 103;

#[derive(Debug, thiserror::Error)]
pub enum EmbeddedError {
    #[error(
        "no PostgreSQL server binaries found (looked for initdb, pg_ctl and postgres in {searched}); \
         install them, e.g. `apt install postgresql` or `dnf install postgresql-server`, \
         or point FORMS_PG_BIN at their directory, or set DATABASE_URL"
    )]
    NotFound { searched: String },

    #[error(
        "running as root, but there is neither a `postgres` nor a `nobody` user to run PostgreSQL as \
         (it refuses to run as root); create a `postgres` system user, run as a normal user, or set DATABASE_URL"
    )]
    NoUnprivilegedUser,

    #[error(
        "PostgreSQL runs as user `{user}` (it refuses to run as root), but that user cannot enter {dir}, \
         a parent of the data directory; use a data directory that user can reach, e.g. --data-dir /var/lib/formsd"
    )]
    NotTraversable { user: String, dir: PathBuf },

    #[error(
        "data directory path {path} is not UTF-8 or contains a character pg_ctl cannot pass on safely \
         (quote, backslash, `$`, backtick, comma or control character); choose another data directory"
    )]
    UnsupportedPath { path: PathBuf },

    #[error(
        "unix socket path {path} is {len} bytes, over the {max}-byte limit; choose a data directory with a shorter path"
    )]
    SocketPathTooLong {
        path: PathBuf,
        len: usize,
        max: usize,
    },

    #[error(
        "a PostgreSQL server is running on {pgdata} but its socket {socket} does not exist \
         (started by something else?); stop it with `pg_ctl -D {pgdata} stop` and try again"
    )]
    ForeignServer { pgdata: PathBuf, socket: PathBuf },

    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: io::Error,
    },

    #[error("{what} failed ({status}){details}")]
    Command {
        what: String,
        status: ExitStatus,
        details: String,
    },
}

fn io_err(what: impl Into<String>) -> impl FnOnce(io::Error) -> EmbeddedError {
    let what = what.into();
    move |source| EmbeddedError::Io { what, source }
}

/// A running private PostgreSQL cluster. Call [`EmbeddedPostgres::stop`] on exit.
#[derive(Debug)]
pub struct EmbeddedPostgres {
    data_dir: PathBuf,
    pgdata: PathBuf,
    socket_dir: PathBuf,
    log_file: PathBuf,
    bin_dir: PathBuf,
    /// `None`: run as ourselves (we are not root).
    run_as: Option<RunAs>,
    port: u16,
    /// Whether this process started the server (and so should stop it).
    started_here: bool,
    /// The superuser's password (run as root: SCRAM on the socket), else `None`.
    password: Option<String>,
}

impl EmbeddedPostgres {
    /// Creates the cluster under `data_dir/pgdata` on first use, starts it, waits until it accepts connections.
    pub async fn start(data_dir: &Path) -> Result<Self, EmbeddedError> {
        let data_dir = data_dir.to_path_buf();
        let mut pg = blocking(move || Self::prepare(data_dir)).await?;
        tracing::info!(
            pgdata = %pg.pgdata.display(),
            bin_dir = %pg.bin_dir.display(),
            user = pg.run_as.as_ref().map_or("(self)", |u| u.name.as_str()),
            "using embedded PostgreSQL"
        );

        let fresh = !pg.pgdata.join("PG_VERSION").exists();
        if pg.run_as.is_some() {
            let file = pg.data_dir.join(PASSWORD_FILE);
            pg.password = Some(blocking(move || superuser_password(&file)).await?);
        }
        if fresh {
            pg.initdb().await?;
        }

        if pg.is_running().await? {
            // Running already: reuse it, but only if it listens where we expect.
            if !pg.socket_path().exists() {
                return Err(EmbeddedError::ForeignServer {
                    pgdata: pg.pgdata.clone(),
                    socket: pg.socket_path(),
                });
            }
            if owner::alive(&pg.data_dir) {
                // Another formsd runs it and will stop it: we are its guest.
                tracing::info!(pgdata = %pg.pgdata.display(), "PostgreSQL is run by another formsd; joining it");
            } else {
                // Left behind by a formsd that crashed: ours now, stopped on our exit,
                // so no stray server outlives its last formsd.
                tracing::warn!(pgdata = %pg.pgdata.display(), "PostgreSQL was left running by a formsd that is gone; taking it over");
                owner::claim(&pg.data_dir)?;
                pg.started_here = true;
            }
        } else {
            // A stale postmaster.pid from a crash is handled by pg_ctl/postgres.
            pg.pg_ctl_start().await?;
            owner::claim(&pg.data_dir)?;
            pg.started_here = true;
        }
        pg.wait_for_socket().await?;
        if pg.password.is_some() && !fresh {
            pg.require_password().await?;
        }
        Ok(pg)
    }

    /// Whether this process started the server; a server found running (another
    /// `formsd` on the same data directory) is left running by its guest.
    pub fn started_here(&self) -> bool {
        self.started_here
    }

    /// A sqlx/libpq style URL for the `postgres` database over the unix socket.
    pub fn url(&self) -> String {
        self.url_for("postgres")
    }

    /// Same as [`url`](Self::url), for another database name.
    pub fn url_for(&self, database: &str) -> String {
        self.url_with(self.password.as_deref(), database)
    }

    fn url_with(&self, password: Option<&str>, database: &str) -> String {
        // `prepare` checked that the path is UTF-8, so this is lossless.
        let host = self.socket_dir.to_string_lossy();
        // The password is hex: nothing to encode.
        let user = match password {
            Some(password) => format!("{SUPERUSER}:{password}"),
            None => SUPERUSER.to_owned(),
        };
        format!(
            "postgres://{user}@localhost/{}?host={}&port={}",
            percent_encode(database, false),
            percent_encode(&host, true),
            self.port
        )
    }

    /// Fast shutdown (`pg_ctl stop -m fast`); waits for it.
    pub async fn stop(&self) -> Result<(), EmbeddedError> {
        tracing::info!(pgdata = %self.pgdata.display(), "stopping embedded PostgreSQL");
        let mut cmd = self.command("pg_ctl");
        cmd.arg("stop").arg("-D").arg(&self.pgdata).args([
            "-m",
            "fast",
            "-w",
            "-t",
            PG_CTL_TIMEOUT,
        ]);
        let out = self.run(cmd, "pg_ctl stop").await?;
        if !out.status.success() {
            return Err(command_error("pg_ctl stop", &out, None));
        }
        owner::release(&self.data_dir);
        tracing::info!("embedded PostgreSQL stopped");
        Ok(())
    }

    /// Everything before the first PostgreSQL command: find the binaries, pick
    /// the user, create the directories and check the paths. Blocking.
    fn prepare(data_dir: PathBuf) -> Result<Self, EmbeddedError> {
        let bin_dir = find_bin_dir()?;
        let run_as = if nix::unistd::geteuid().is_root() {
            Some(unprivileged_user()?)
        } else {
            None
        };

        // Check the paths before creating anything, so a refused data
        // directory is not left behind.
        let planned = resolve(&data_dir)?;
        let pg = Self::new(planned, bin_dir, run_as);
        pg.check_paths()?;

        fs::create_dir_all(&pg.data_dir).map_err(io_err(format!(
            "creating data directory {}",
            pg.data_dir.display()
        )))?;
        let data_dir = fs::canonicalize(&pg.data_dir).map_err(io_err(format!(
            "resolving data directory {}",
            pg.data_dir.display()
        )))?;
        let pg = Self::new(data_dir, pg.bin_dir, pg.run_as);
        // Normally a no-op (`resolve` gave the same path), unless something
        // raced us and put a symlink in its place.
        pg.check_paths()?;

        // 0700 so that only the server's user (and root) can reach the socket;
        // this is what makes trust authentication safe.
        match fs::DirBuilder::new().mode(0o700).create(&pg.socket_dir) {
            Err(e) if e.kind() != io::ErrorKind::AlreadyExists => {
                return Err(io_err(format!("creating {}", pg.socket_dir.display()))(e));
            }
            _ => {}
        }
        fs::set_permissions(&pg.socket_dir, fs::Permissions::from_mode(0o700)).map_err(io_err(
            format!("setting permissions of {}", pg.socket_dir.display()),
        ))?;

        if let Some(user) = &pg.run_as {
            // The data dir itself (not its other contents, which belong to the
            // service) so pg_ctl can create the log and initdb can create pgdata,
            // and our own entries, never recursively: the server's user can write
            // in those trees, and root must not follow what it may have put there.
            chown(&pg.data_dir, user)?;
            for path in [&pg.pgdata, &pg.socket_dir, &pg.log_file] {
                own_entry(path, user)?;
            }
        }
        Ok(pg)
    }

    fn new(data_dir: PathBuf, bin_dir: PathBuf, run_as: Option<RunAs>) -> Self {
        Self {
            pgdata: data_dir.join("pgdata"),
            socket_dir: data_dir.join("run"),
            log_file: data_dir.join("postgres.log"),
            data_dir,
            bin_dir,
            run_as,
            port: PORT,
            started_here: false,
            password: None,
        }
    }

    /// Refuse data directories the server could not use, with a clear reason.
    fn check_paths(&self) -> Result<(), EmbeddedError> {
        check_path_chars(&self.data_dir)?;

        let socket = self.socket_path();
        let len = socket.as_os_str().len();
        if len > MAX_SOCKET_PATH {
            return Err(EmbeddedError::SocketPathTooLong {
                path: socket,
                len,
                max: MAX_SOCKET_PATH,
            });
        }

        if let Some(user) = &self.run_as {
            // Don't chmod parents behind the operator's back: tell them instead.
            for dir in self.data_dir.ancestors().skip(1) {
                let Ok(meta) = fs::metadata(dir) else {
                    continue; // not created yet; checked again once it is
                };
                if !can_traverse(&meta, user) {
                    return Err(EmbeddedError::NotTraversable {
                        user: user.name.clone(),
                        dir: dir.to_path_buf(),
                    });
                }
            }
        }
        Ok(())
    }

    fn socket_path(&self) -> PathBuf {
        self.socket_dir.join(format!(".s.PGSQL.{}", self.port))
    }

    /// A command for one of the PostgreSQL binaries, run as the server's user.
    fn command(&self, binary: &str) -> Command {
        let mut cmd = Command::new(self.bin_dir.join(binary));
        // Our working directory may be unreadable for the server's user (e.g. /root).
        cmd.current_dir(&self.data_dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(user) = &self.run_as {
            // std drops supplementary groups when switching from root, so the
            // child has exactly this uid and primary gid (see `can_traverse`).
            cmd.uid(user.uid.as_raw()).gid(user.gid.as_raw());
        }
        cmd
    }

    async fn run(&self, mut cmd: Command, what: &str) -> Result<Output, EmbeddedError> {
        let user = self
            .run_as
            .as_ref()
            .map_or("the current user", |u| u.name.as_str());
        cmd.output().await.map_err(io_err(format!(
            "running {what} (in {}) as {user}",
            self.bin_dir.display()
        )))
    }

    async fn initdb(&self) -> Result<(), EmbeddedError> {
        tracing::info!(pgdata = %self.pgdata.display(), "creating PostgreSQL cluster (initdb)");
        let mut cmd = self.command("initdb");
        cmd.arg("-D")
            .arg(&self.pgdata)
            .args(["-U", SUPERUSER, "--encoding=UTF8", "--locale=C"]);
        // initdb reads the password from a file: one in the socket directory (0700,
        // the server user's), removed right after.
        let pwfile = self.socket_dir.join("initdb.pw");
        match (&self.password, &self.run_as) {
            (Some(password), Some(user)) => {
                let (file, password, user) = (pwfile.clone(), password.clone(), user.clone());
                blocking(move || {
                    write_private(&file, &password)?;
                    chown(&file, &user)
                })
                .await?;
                cmd.arg("--pwfile").arg(&pwfile).arg("--auth=scram-sha-256");
            }
            // Trust is fine here: the server only listens on a unix socket inside a
            // 0700 directory of our own user, so only we (and root) can connect.
            _ => {
                cmd.arg("--auth=trust");
            }
        }
        let out = self.run(cmd, "initdb").await;
        let _ = fs::remove_file(&pwfile);
        let out = out?;
        if !out.status.success() {
            return Err(command_error("initdb", &out, None));
        }
        Ok(())
    }

    /// `pg_ctl status`: exit code 0 means a server is running on pgdata.
    async fn is_running(&self) -> Result<bool, EmbeddedError> {
        let mut cmd = self.command("pg_ctl");
        cmd.arg("status").arg("-D").arg(&self.pgdata);
        let out = self.run(cmd, "pg_ctl status").await?;
        // 3 = not running, 4 = no accessible data directory: let start report that.
        Ok(out.status.success())
    }

    async fn pg_ctl_start(&self) -> Result<(), EmbeddedError> {
        tracing::info!(socket_dir = %self.socket_dir.display(), "starting embedded PostgreSQL");
        // pg_ctl hands -o to `sh -c`, hence the shell quoting; `check_path_chars`
        // guarantees the path contains no quote. The port is explicit so that
        // a PGPORT in our environment cannot rename the socket.
        let server_opts = format!(
            "-c listen_addresses='' -c unix_socket_directories='{}' -c port={} {}",
            self.socket_dir.display(),
            self.port,
            settings::as_options()
        );
        let mut cmd = self.command("pg_ctl");
        cmd.arg("start")
            .arg("-D")
            .arg(&self.pgdata)
            .arg("-l")
            .arg(&self.log_file)
            .args(["-w", "-t", PG_CTL_TIMEOUT, "-o"])
            .arg(server_opts);
        let out = self.run(cmd, "pg_ctl start").await?;
        if !out.status.success() {
            let log = self.log_file.clone();
            let log_tail = blocking(move || Ok(file_tail(&log))).await?;
            return Err(command_error(
                "pg_ctl start",
                &out,
                Some((&self.log_file, log_tail)),
            ));
        }
        Ok(())
    }

    /// pg_ctl -w already waited for "ready"; this also confirms the socket is
    /// where url() points.
    async fn wait_for_socket(&self) -> Result<(), EmbeddedError> {
        let socket = self.socket_path();
        for _ in 0..100 {
            if socket.exists() {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Err(io_err(format!(
            "PostgreSQL started but its socket did not appear (see {})",
            self.log_file.display()
        ))(io::Error::new(
            io::ErrorKind::NotFound,
            socket.display().to_string(),
        )))
    }
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, EmbeddedError> + Send + 'static,
) -> Result<T, EmbeddedError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| io_err("embedded PostgreSQL setup task")(io::Error::other(e)))?
}
