//! The flags that bound work whose size a caller or a visitor chooses: exports open at
//! once, reads whose filter, search or summary the caller chose, the statement time
//! limit of those reads, and the partial responses (with their files) that saved pages
//! leave waiting. Part of `formsd serve`'s flags (`config::ServeArgs`).

use clap::Args;

/// Caps on exports, expensive reads and partial responses.
#[derive(Args)]
pub(crate) struct LimitArgs {
    /// Exports one account may have open at once (each holds a database connection
    /// until read to its end); more are answered 429 RATE_LIMITED.
    #[arg(long, env = "FORMS_EXPORTS_PER_ACCOUNT", default_value_t = 2, value_parser = at_least_one)]
    pub exports_per_account: usize,
    /// Exports open at once in this process; unset: half of --db-max-connections.
    #[arg(long, env = "FORMS_EXPORTS_PER_INSTANCE", value_parser = at_least_one)]
    pub exports_per_instance: Option<usize>,
    /// How long an export waits for its reader to take more before it stops and gives
    /// its database connection back.
    #[arg(long, env = "FORMS_EXPORT_STALL_TIMEOUT", default_value = "30s")]
    pub export_stall_timeout: humantime::Duration,
    /// Reads whose cost the caller chooses (response lists with a filter, a search, a
    /// window or partial responses, and summaries) one account may run at once in this
    /// process; more are answered 429 RATE_LIMITED.
    #[arg(long, env = "FORMS_READS_PER_ACCOUNT", default_value_t = 4, value_parser = at_least_one)]
    pub reads_per_account: usize,
    /// Such reads at once in this process; unset: a quarter of --db-max-connections.
    #[arg(long, env = "FORMS_READS_PER_INSTANCE", value_parser = at_least_one)]
    pub reads_per_instance: Option<usize>,
    /// How long one statement of such a read may run before PostgreSQL stops it (the
    /// read is answered 503 SERVICE_UNAVAILABLE saying so); 0s: no limit. Exports,
    /// writes, migrations and the delivery worker are not bounded by it.
    #[arg(long, env = "FORMS_DB_STATEMENT_TIMEOUT", default_value = "30s")]
    pub db_statement_timeout: humantime::Duration,
    /// How long an uploaded file may wait, written but not yet part of a stored response,
    /// before it is swept: longer than any submission takes to be stored.
    #[arg(long, env = "FORMS_STAGED_FILE_GRACE", default_value = "10m")]
    pub staged_file_grace: humantime::Duration,
    /// How long a visitor's unfinished multi-page response is kept after its last saved
    /// page (it can be resumed until then; it never counts as a response).
    #[arg(long, env = "FORMS_PARTIAL_RETENTION", default_value = "30d")]
    pub partial_retention: humantime::Duration,
    /// How long audit trail entries are kept (purged by a job every minute, oldest
    /// first, in batches; `formsd audit verify` checks what is left).
    #[arg(long, env = "FORMS_AUDIT_RETENTION", default_value = "365d")]
    pub audit_retention: humantime::Duration,
    /// Unfinished partial responses (multi-page forms left half way) one form may
    /// have waiting; a new one over it is refused (429 RATE_LIMITED to the page).
    #[arg(long, env = "FORMS_PARTIALS_PER_FORM", default_value_t = 10_000, value_parser = at_least_one_i64)]
    pub partials_per_form: i64,
    /// Unfinished partial responses all forms of one account may have waiting.
    #[arg(long, env = "FORMS_PARTIALS_PER_ACCOUNT", default_value_t = 50_000, value_parser = at_least_one_i64)]
    pub partials_per_account: i64,
    /// Unfinished partial responses of one form begun from one visitor's address (an
    /// IPv6 /64 counts as one).
    #[arg(long, env = "FORMS_PARTIALS_PER_VISITOR", default_value_t = 10, value_parser = at_least_one_i64)]
    pub partials_per_visitor: i64,
    /// Bytes of files that one account's unfinished partial responses may hold (files
    /// uploaded on a page before the last); a page whose files would pass it is
    /// refused.
    #[arg(long, env = "FORMS_PARTIAL_FILE_BYTES_PER_ACCOUNT", default_value_t = 1 << 30, value_parser = at_least_one_i64)]
    pub partial_file_bytes_per_account: i64,
}

/// A count that must be positive (0 places or slots would refuse everything).
pub(crate) fn at_least_one(value: &str) -> Result<usize, String> {
    match value.parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_owned()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// A count kept as the database counts (bigint), at least 1.
fn at_least_one_i64(value: &str) -> Result<i64, String> {
    match value.parse::<i64>() {
        Ok(n) if n >= 1 => Ok(n),
        Ok(_) => Err("must be at least 1".to_owned()),
        Err(e) => Err(e.to_string()),
    }
}
