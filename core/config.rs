//! Settings of the core that operators tune (the binary fills them from flags and env).

use crate::accounts::Plan;
use crate::webhooks::delivery::DeliveryConfig;
use std::time::Duration;

/// The default of every setting, written once: `CoreConfig::default()`,
/// `DeliveryConfig::default()` and the `formsd` flags all read these.
pub mod defaults {
    use std::time::Duration;

    /// Requests per window of a Pro key.
    pub const PRO_RATE_LIMIT: u32 = 1000;
    /// Requests per window of an Enterprise key.
    pub const ENTERPRISE_RATE_LIMIT: u32 = 5000;
    /// Length of a rate-limit window in seconds (SPEC: 60).
    pub const RATE_WINDOW_SECS: u32 = 60;
    /// Failed authentications allowed per client IP and minute.
    pub const AUTH_FAILURES_PER_MINUTE: u32 = 60;
    /// Hosted-page submissions allowed per visitor IP and minute.
    pub const HOSTED_SUBMISSIONS_PER_MINUTE: u32 = 30;
    /// Monthly responses of a Free account.
    pub const FREE_RESPONSE_LIMIT: Option<i64> = Some(100);
    /// Monthly responses of a Pro account.
    pub const PRO_RESPONSE_LIMIT: Option<i64> = Some(10_000);
    /// Monthly responses of an Enterprise account (unlimited).
    pub const ENTERPRISE_RESPONSE_LIMIT: Option<i64> = None;
    /// How long an Idempotency-Key is remembered (SPEC: 24 hours).
    pub const IDEMPOTENCY_TTL: Duration = Duration::from_secs(24 * 60 * 60);
    /// Time a webhook receiver has to answer (SPEC: 10 s).
    pub const WEBHOOK_TIMEOUT: Duration = Duration::from_secs(10);
    /// Waits before the retries of a failed delivery (SPEC: 30 s, 5 min, 30 min).
    pub const WEBHOOK_RETRY_SCHEDULE: [Duration; 3] = [
        Duration::from_secs(30),
        Duration::from_secs(5 * 60),
        Duration::from_secs(30 * 60),
    ];
    /// Webhook deliveries in flight at once per instance.
    pub const WEBHOOK_CONCURRENCY: usize = 64;
    /// Webhook deliveries of one account in flight at once per instance: a tenant with
    /// slow receivers holds at most this many of the `WEBHOOK_CONCURRENCY` slots.
    pub const WEBHOOK_CONCURRENCY_PER_ACCOUNT: usize = 8;
    /// Fallback polling interval of the delivery workers.
    pub const WEBHOOK_POLL_INTERVAL: Duration = Duration::from_secs(1);
    /// Plan of an account created with its first key, when none is named.
    pub const NEW_ACCOUNT_PLAN: crate::accounts::Plan = crate::accounts::Plan::Pro;
    /// Largest REST request body.
    pub const MAX_REQUEST_BYTES: usize = 1024 * 1024;
    /// Largest hosted-page submission with its files.
    pub const MAX_UPLOAD_BYTES: usize = 110 * 1024 * 1024;
    /// Name of the identity provider's session cookie.
    pub const SESSION_COOKIE: &str = "session";
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
    /// Peers (REST edges) whose `x-client-ip` metadata is believed; the in-process
    /// edge always is.
    pub trusted_proxies: Vec<std::net::IpAddr>,
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
    /// Webhook delivery settings.
    pub delivery: DeliveryConfig,
    /// Largest API request (the REST body limit): bounds the gRPC messages decoded.
    pub max_request_bytes: usize,
    /// Largest hosted submission with its files: bounds the hosted service's messages.
    pub max_upload_bytes: usize,
}

impl Default for CoreConfig {
    fn default() -> Self {
        Self {
            pro_rate_limit: defaults::PRO_RATE_LIMIT,
            enterprise_rate_limit: defaults::ENTERPRISE_RATE_LIMIT,
            rate_window_secs: defaults::RATE_WINDOW_SECS,
            auth_failures_per_minute: defaults::AUTH_FAILURES_PER_MINUTE,
            trusted_proxies: Vec::new(),
            admin_token: None,
            free_response_limit: defaults::FREE_RESPONSE_LIMIT,
            pro_response_limit: defaults::PRO_RESPONSE_LIMIT,
            enterprise_response_limit: defaults::ENTERPRISE_RESPONSE_LIMIT,
            idempotency_ttl: defaults::IDEMPOTENCY_TTL,
            hosted_submissions_per_minute: defaults::HOSTED_SUBMISSIONS_PER_MINUTE,
            sessions: None,
            file_store_url: None,
            delivery: DeliveryConfig::default(),
            max_request_bytes: defaults::MAX_REQUEST_BYTES,
            max_upload_bytes: defaults::MAX_UPLOAD_BYTES,
        }
    }
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
