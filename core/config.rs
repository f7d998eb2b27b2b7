//! Settings of the core that operators tune. Their defaults are the defaults of the
//! `formsd` flags that fill them (edge/config.rs), written there once.

use crate::accounts::Plan;
use std::time::Duration;

/// Settings of webhook delivery (notifications are retried on the same schedule and
/// polled as often).
#[derive(Debug, Clone)]
pub struct DeliveryConfig {
    /// Allow http:// and non-public targets (development and tests only).
    pub allow_private: bool,
    /// Time a receiver has to answer (SPEC: 10 s).
    pub timeout: Duration,
    /// Wait before each retry (SPEC: 30 s, 5 min, 30 min).
    pub retry_schedule: Vec<Duration>,
    /// Deliveries in flight at once per instance.
    pub concurrency: usize,
    /// Deliveries of one account in flight at once per instance (at least 1).
    pub concurrency_per_account: usize,
    /// Fallback polling interval when no notification arrives.
    pub poll_interval: Duration,
}

/// Tunable limits and switches of the core.
#[derive(Debug, Clone)]
pub struct CoreConfig {
    /// Requests per fixed 60-second window for a Pro key.
    pub pro_rate_limit: u32,
    /// Requests per fixed 60-second window for an Enterprise key.
    pub enterprise_rate_limit: u32,
    /// Length of a rate-limit window in seconds (60; shorter only in tests).
    pub rate_window_secs: u32,
    /// Requests failing authentication allowed per client IP and minute (key guessing).
    pub auth_failures_per_minute: u32,
    /// The secret a separate REST edge proves itself with (`x-edge-secret`), whose
    /// `x-client-ip` metadata is then believed; the in-process edge always is, a client
    /// of the gRPC port never (`None`: no separate edge is believed).
    pub edge_secret: Option<String>,
    /// Operator token for the admin gRPC services; `None` disables them.
    pub admin_token: Option<String>,
    /// Responses per calendar month (UTC) of a Free account; `None`: unlimited.
    pub free_response_limit: Option<i64>,
    /// Responses per calendar month of a Pro account.
    pub pro_response_limit: Option<i64>,
    /// Responses per calendar month of an Enterprise account.
    pub enterprise_response_limit: Option<i64>,
    /// How long an Idempotency-Key is remembered (24 hours by SPEC).
    pub idempotency_ttl: Duration,
    /// Hosted-page submissions allowed per visitor IP and minute.
    pub hosted_submissions_per_minute: u32,
    /// Where uploaded files live: an object store URL, or `None` for PostgreSQL.
    pub file_store_url: Option<String>,
    /// Session-cookie sign-in for the API; `None`: API keys only.
    pub sessions: Option<crate::accounts::sessions::SessionVerifier>,
    /// Webhook delivery settings (notifications are retried on the same schedule).
    pub delivery: DeliveryConfig,
    /// How long settled deliveries and notifications (and their attempts) are kept.
    pub delivery_retention: Duration,
    /// The SMTP relay of owner notifications; `None`: notifications are not sent.
    pub smtp: Option<crate::notifications::smtp::SmtpSettings>,
    /// Confirmation mails one form may send in 24 hours (`--confirmation-mails-per-form`).
    pub confirmation_mails_per_form: i64,
    /// Largest API request (the REST body limit): bounds the gRPC messages decoded.
    pub max_request_bytes: usize,
    /// Largest hosted submission with its files: bounds the hosted service's messages.
    pub max_upload_bytes: usize,
    /// How long a file written for a submission may stay unattached before the sweep
    /// removes it (the submission was refused, rolled back or cut off by a crash).
    pub staged_file_grace: Duration,
    /// How long an unfinished partial response (a multi-page form left half way) is
    /// kept after its last saved page.
    pub partial_retention: Duration,
    /// How long audit trail entries are kept.
    pub audit_retention: Duration,
    /// How many exports may be open at once, and how long one waits for its reader.
    pub exports: ExportLimits,
    /// How many reads whose cost the caller chooses may run at once, and how long.
    pub reads: ReadLimits,
    /// How many partial responses (and bytes of their files) may wait.
    pub partials: PartialLimits,
    /// How dashboard sessions end by themselves.
    pub dashboard: crate::dashboard::SessionPolicy,
    /// Sign-in attempts per minute, per client address and per account.
    pub sign_in_attempts_per_minute: u32,
    /// Where browsers reach the dashboard (`--public-url`): the only base of the sign-in
    /// links the core mails, whoever asks; `None`: it mails none.
    pub public_url: Option<String>,
    /// The OpenID Connect provider of dashboard sign-in; `None`: not offered.
    pub oidc: Option<crate::dashboard::oidc::OidcSettings>,
    /// Memory of the instance's view of the forms it stores responses to (their
    /// owners and last state), which lets a create take one statement.
    pub form_view_bytes: usize,
}

/// Exports hold a database connection (and a snapshot) until their reader has taken
/// the last chunk: these bound how many, and for how long a reader may stall.
#[derive(Debug, Clone)]
pub struct ExportLimits {
    /// Exports of one account open at once.
    pub per_account: usize,
    /// Exports open at once in the instance; `None`: half the database pool.
    pub per_instance: Option<usize>,
    /// How long an export waits for its reader to take the next chunk before it gives
    /// up, releasing its connection (the reader sees a broken transfer).
    pub stall_timeout: Duration,
}

/// Reads whose cost the caller chooses (response lists with a filter or a search, or
/// of partial responses, and summaries) hold a database connection for as long as
/// their statements take: these bound how many at once and how long a statement runs.
#[derive(Debug, Clone)]
pub struct ReadLimits {
    /// Such reads of one account at once.
    pub per_account: usize,
    /// Such reads at once in the instance; `None`: a quarter of the database pool.
    pub per_instance: Option<usize>,
    /// How long one statement of such a read may run; `None`: no limit.
    pub statement_timeout: Option<Duration>,
}

/// Partial responses (pages of a multi-page form saved on the way) wait for their
/// visitor for `partial_retention`, with the files their pages uploaded: these bound
/// how many may wait, so that saving pages is no way around every other bound.
#[derive(Debug, Clone)]
pub struct PartialLimits {
    /// Unfinished partials of one form.
    pub per_form: i64,
    /// Unfinished partials of one account's forms.
    pub per_account: i64,
    /// Unfinished partials begun from one visitor's address, per form.
    pub per_visitor: i64,
    /// Bytes of files held by one account's unfinished partials.
    pub file_bytes_per_account: i64,
}

impl CoreConfig {
    /// The per-minute request limit of a plan; 0 for a plan without API access.
    pub fn rate_limit(&self, plan: Plan) -> u32 {
        match plan {
            Plan::Free => 0,
            Plan::Pro => self.pro_rate_limit,
            Plan::Enterprise => self.enterprise_rate_limit,
        }
    }
}

impl CoreConfig {
    /// The monthly response quota of a plan (an account may have its own).
    pub fn response_limit(&self, plan: Plan) -> Option<i64> {
        match plan {
            Plan::Free => self.free_response_limit,
            Plan::Pro => self.pro_response_limit,
            Plan::Enterprise => self.enterprise_response_limit,
        }
    }
}
