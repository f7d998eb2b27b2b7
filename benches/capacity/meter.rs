//! What a phase of the capacity benchmark used: the CPU of formsd and of the
//! PostgreSQL processes that serve it, and the WAL written, read from `/proc` and the
//! server; and the line printed for it.

use sqlx::PgPool;
use std::collections::HashMap;
use std::time::Instant;

/// CPU seconds (user and system) of a process so far; 0 once it is gone.
fn cpu_seconds(pid: u32, tick: f64) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command name (which may hold spaces) are ") state ppid ...":
    // utime and stime are the 14th and 15th of the line, so the 12th and 13th after it.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok());
    match (ticks(11), ticks(12)) {
        (Some(user), Some(system)) => (user + system) / tick,
        _ => 0.0,
    }
}

/// The PostgreSQL processes that work for this database, and the cluster's own.
async fn postgres_pids(pool: &PgPool) -> Vec<u32> {
    let pids: Vec<i32> = sqlx::query_scalar(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() \
         OR backend_type IN ('walwriter', 'checkpointer', 'background writer', \
         'autovacuum launcher', 'autovacuum worker')",
    )
    .fetch_all(pool)
    .await
    .expect("pg_stat_activity");
    pids.into_iter()
        .filter_map(|p| u32::try_from(p).ok())
        .collect()
}

/// The CPU used by formsd and by PostgreSQL over a phase: a process that started
/// during it counts from its start, one that ended during it is missed (formsd's pool
/// keeps its connections, so that is an autovacuum worker at most).
pub struct Meter {
    formsd: u32,
    tick: f64,
    started: Instant,
    formsd_before: f64,
    postgres_before: HashMap<u32, f64>,
    wal_before: i64,
    statements_before: HashMap<i64, (i64, f64)>,
    vacuums_before: HashMap<String, (i64, i64)>,
}

/// What a phase used.
pub struct Used {
    seconds: f64,
    formsd: f64,
    postgres: f64,
    wal_bytes: f64,
    /// WAL by resource manager (heap, B-tree, GIN, …): (name, record bytes, bytes of
    /// full-page images), where `pg_walinspect` could read it.
    wal_parts: Vec<(String, i64, i64)>,
    /// The statements that took most of the server's time: (start of its text, calls,
    /// milliseconds), where `pg_stat_statements` is loaded.
    statements: Vec<(String, i64, f64)>,
    /// The tables autovacuum vacuumed or analyzed during the phase.
    vacuumed: Vec<String>,
}

/// Calls and milliseconds of execution of each statement so far, by query id; empty
/// where `pg_stat_statements` is not loaded.
async fn statement_times(pool: &PgPool) -> HashMap<i64, (i64, f64)> {
    let rows: Vec<(i64, i64, f64)> = sqlx::query_as(
        "SELECT queryid, calls, total_exec_time FROM pg_stat_statements \
          WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())",
    )
    .fetch_all(pool)
    .await
    .unwrap_or_default();
    rows.into_iter()
        .map(|(id, calls, ms)| (id, (calls, ms)))
        .collect()
}

/// How many times autovacuum has vacuumed and analyzed each table of the database.
async fn vacuum_counts(pool: &PgPool) -> HashMap<String, (i64, i64)> {
    let rows: Vec<(String, i64, i64)> = sqlx::query_as(
        "SELECT relname::text, autovacuum_count, autoanalyze_count FROM pg_stat_user_tables",
    )
    .fetch_all(pool)
    .await
    .expect("pg_stat_user_tables");
    rows.into_iter().map(|(t, v, a)| (t, (v, a))).collect()
}

/// The statements of `after` that took most time since `before`, longest first.
async fn busiest(
    pool: &PgPool,
    before: &HashMap<i64, (i64, f64)>,
    after: HashMap<i64, (i64, f64)>,
) -> Vec<(String, i64, f64)> {
    let mut spent: Vec<(i64, i64, f64)> = after
        .into_iter()
        .map(|(id, (calls, ms))| {
            let (c0, ms0) = before.get(&id).copied().unwrap_or((0, 0.0));
            (id, calls - c0, ms - ms0)
        })
        .filter(|(_, calls, _)| *calls > 0)
        .collect();
    spent.sort_by(|a, b| b.2.total_cmp(&a.2));
    spent.truncate(5);
    let mut named = Vec::new();
    for (id, calls, ms) in spent {
        let text: String =
            sqlx::query_scalar("SELECT query FROM pg_stat_statements WHERE queryid = $1 LIMIT 1")
                .bind(id)
                .fetch_one(pool)
                .await
                .unwrap_or_default();
        let words: Vec<&str> = text.split_whitespace().collect();
        named.push((words.join(" ").chars().take(70).collect(), calls, ms));
    }
    named
}

impl Meter {
    pub async fn start(pool: &PgPool, formsd: u32, tick: f64) -> Meter {
        let postgres_before = postgres_pids(pool)
            .await
            .into_iter()
            .map(|pid| (pid, cpu_seconds(pid, tick)))
            .collect();
        Meter {
            formsd,
            tick,
            started: Instant::now(),
            formsd_before: cpu_seconds(formsd, tick),
            postgres_before,
            wal_before: wal_position(pool).await,
            statements_before: statement_times(pool).await,
            vacuums_before: vacuum_counts(pool).await,
        }
    }

    pub async fn stop(self, pool: &PgPool) -> Used {
        let seconds = self.started.elapsed().as_secs_f64();
        let formsd = cpu_seconds(self.formsd, self.tick) - self.formsd_before;
        let mut pids = postgres_pids(pool).await;
        pids.extend(self.postgres_before.keys());
        pids.sort_unstable();
        pids.dedup();
        let postgres = pids
            .iter()
            .map(|pid| {
                let now = cpu_seconds(*pid, self.tick);
                now - self
                    .postgres_before
                    .get(pid)
                    .copied()
                    .unwrap_or(0.0)
                    .min(now)
            })
            .sum();
        let wal_bytes = (wal_position(pool).await - self.wal_before) as f64;
        let wal_parts = sqlx::query_as(
            "SELECT \"resource_manager/record_type\", record_size::bigint, fpi_size::bigint \
               FROM pg_get_wal_stats(('0/0'::pg_lsn + $1::numeric), pg_current_wal_flush_lsn(), false) \
              ORDER BY combined_size DESC LIMIT 5",
        )
        .bind(self.wal_before)
        .fetch_all(pool)
        .await
        .unwrap_or_default();
        let statements = busiest(pool, &self.statements_before, statement_times(pool).await).await;
        let mut vacuumed: Vec<String> = vacuum_counts(pool)
            .await
            .into_iter()
            .filter_map(|(table, (v, a))| {
                let (v0, a0) = self.vacuums_before.get(&table).copied().unwrap_or((0, 0));
                let what = match (v > v0, a > a0) {
                    (true, true) => "vacuumed and analyzed",
                    (true, false) => "vacuumed",
                    (false, true) => "analyzed",
                    (false, false) => return None,
                };
                Some(format!("{table} {what}"))
            })
            .collect();
        vacuumed.sort();
        Used {
            seconds,
            formsd,
            postgres,
            wal_bytes,
            wal_parts,
            statements,
            vacuumed,
        }
    }
}

async fn wal_position(pool: &PgPool) -> i64 {
    sqlx::query_scalar("SELECT (pg_current_wal_insert_lsn() - '0/0')::bigint")
        .fetch_one(pool)
        .await
        .expect("WAL position")
}

/// A phase's figures that the targets compare: things a second, and things per
/// core-second of PostgreSQL.
#[derive(Clone, Copy)]
pub struct Rates {
    pub per_second: f64,
    pub per_postgres_second: f64,
}

/// One line of a phase: how many things in how long, and per core-second of each side.
pub fn print_phase(what: &str, things: &str, n: i64, used: &Used) -> Rates {
    let n = n as f64;
    println!(
        "{what:<34} {n:>9.0} {things} in {:>5.1} s = {:>7.0}/s; per core-second: formsd {:>6.0}, \
         PostgreSQL {:>6.0} (CPU: formsd {:.1} s, PostgreSQL {:.1} s); WAL {:.0} B each",
        used.seconds,
        n / used.seconds,
        n / used.formsd.max(1e-9),
        n / used.postgres.max(1e-9),
        used.formsd,
        used.postgres,
        used.wal_bytes / n.max(1.0),
    );
    let parts: Vec<String> = used
        .wal_parts
        .iter()
        .map(|(name, record, fpi)| {
            format!(
                "{name} {:.0} B (full pages {:.0} B)",
                (record + fpi) as f64 / n.max(1.0),
                *fpi as f64 / n.max(1.0)
            )
        })
        .collect();
    if !parts.is_empty() {
        println!("    WAL each: {}", parts.join(", "));
    }
    for (text, calls, ms) in &used.statements {
        println!(
            "    server time {ms:>8.0} ms ({:>6.3} ms each of {calls:>6} calls, {:>6.3} ms a {}): {text}",
            ms / (*calls).max(1) as f64,
            ms / n.max(1.0),
            things.trim_end_matches('s'),
        );
    }
    if !used.vacuumed.is_empty() {
        println!("    autovacuum meanwhile: {}", used.vacuumed.join(", "));
    }
    Rates {
        per_second: n / used.seconds,
        per_postgres_second: n / used.postgres.max(1e-9),
    }
}
