//! The superuser's password of a cluster run for root (SCRAM on its socket): a
//! cluster created with trust by an earlier formsd is switched at its next start.

use super::report::command_error;
use super::{EmbeddedError, EmbeddedPostgres, SUPERUSER, blocking, files, io_err};
use std::io;

impl EmbeddedPostgres {
    /// A cluster created with trust (by an earlier formsd run as root) gets the
    /// superuser's password and SCRAM on its socket; a no-op once it has them.
    pub(super) async fn require_password(&self) -> Result<(), EmbeddedError> {
        let hba = self.pgdata.join("pg_hba.conf");
        // Only run for root, with the cluster's user in `run_as`; pgdata is that user's,
        // who could put a link in the file's place: read and written as `files` says.
        let Some(user) = self.run_as.clone() else {
            return Ok(());
        };
        let text = blocking({
            let (hba, uid) = (hba.clone(), user.uid);
            move || {
                files::read_owned(&hba, uid).map_err(io_err(format!("reading {}", hba.display())))
            }
        })
        .await?;
        let trusting = |line: &str| {
            let line = line.trim();
            !line.starts_with('#') && line.split_whitespace().any(|word| word == "trust")
        };
        if !text.lines().any(trusting) {
            return Ok(());
        }
        tracing::warn!(pgdata = %self.pgdata.display(), "embedded PostgreSQL trusted local connections: setting a password (SCRAM)");
        let password = self.password.clone().unwrap_or_default();
        let trust_url = self.url_with(None, "postgres");
        let set = async {
            use sqlx::Connection;
            let mut conn = sqlx::PgConnection::connect(&trust_url).await?;
            // A literal, not a parameter: ALTER ROLE takes none. Safe: the role is a
            // constant and the password hex digits we generated.
            let sql = format!("ALTER ROLE {SUPERUSER} PASSWORD '{password}'");
            sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                .execute(&mut conn)
                .await?;
            conn.close().await
        };
        set.await
            .map_err(|e| io_err("setting the superuser's password")(io::Error::other(e)))?;
        let rewritten: String = text
            .lines()
            .map(|line| {
                if trusting(line) {
                    line.replace("trust", "scram-sha-256")
                } else {
                    line.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        blocking(move || {
            files::write_new(&hba, &(rewritten + "\n"), 0o600, Some((user.uid, user.gid)))
                .map_err(io_err(format!("writing {}", hba.display())))
        })
        .await?;
        let mut cmd = self.command("pg_ctl");
        cmd.arg("reload").arg("-D").arg(&self.pgdata);
        let out = self.run(cmd, "pg_ctl reload").await?;
        if !out.status.success() {
            return Err(command_error("pg_ctl reload", &out, None));
        }
        Ok(())
    }
}
