//! The outbox: messages written in the transaction of the change that causes them (so
//! one goes out if and only if its change commits), and the one worker that carries
//! them out. Two kinds of message ride it, and differ only in how one is sent and in
//! the tables that hold them:
//! - webhook deliveries (`webhooks::delivery`): the exact signed bytes, POSTed to a
//!   tenant's receiver;
//! - owner notifications (`notifications::worker`): a mail rendered from its response
//!   when it is sent, handed to the operator's relay.
//!
//! Everything else is written once, here: claiming due messages with a lease (several
//! instances never claim the same one) and fairly between accounts (`worker`, `slots`),
//! waking on NOTIFY with polling as a fallback, recording every attempt and settling it
//! on the retry schedule (`schedule`), and purging settled messages after the retention
//! period (`retention`). A crash leaves leases that expire, and the messages become due
//! again: delivery is at least once.

pub(crate) mod bell;
pub(crate) mod pace;
pub(crate) mod retention;
pub(crate) mod schedule;
pub(crate) mod store;
pub(crate) mod worker;

use crate::error::CoreError;
use chrono::{DateTime, Utc};
use sqlx::PgPool;
use std::future::Future;
use std::time::Duration;
use uuid::Uuid;

pub(crate) use schedule::{MAX_RETRIES, Settled};

/// Where a message stands. Stored in the `status` (TEXT) of `deliveries` and
/// `notifications` by its lowercase name; a name this build does not know is an error
/// when read, never silently another state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum DeliveryStatus {
    /// Due now or at `next_attempt_at`.
    Pending,
    Succeeded,
    /// Retries used up (or retrying cannot help); an operator may retry a delivery.
    Failed,
}

impl DeliveryStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
        }
    }
}

impl std::fmt::Display for DeliveryStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<DeliveryStatus> for crate::pb::DeliveryStatus {
    fn from(status: DeliveryStatus) -> Self {
        match status {
            DeliveryStatus::Pending => Self::Pending,
            DeliveryStatus::Succeeded => Self::Succeeded,
            DeliveryStatus::Failed => Self::Failed,
        }
    }
}

/// How a kind of message is named in logs and metrics, and the channel its workers
/// LISTEN on (its enqueue NOTIFYs it).
#[derive(Debug)]
pub(crate) struct Kind {
    /// "webhook delivery", "notification": the subject of the worker's log lines.
    pub name: &'static str,
    pub channel: &'static str,
    /// Counter of attempts, by `outcome` (the status the attempt left).
    pub attempts_metric: &'static str,
    /// Histogram of attempt durations, where the kind has one.
    pub duration_metric: Option<&'static str>,
}

/// How much of the process a kind's worker uses.
#[derive(Debug, Clone)]
pub(crate) struct Limits {
    /// Messages in flight at once per instance.
    pub concurrency: usize,
    /// Messages of one account in flight at once per instance (at least 1 is used).
    pub per_account: usize,
    /// How long a claim holds a message: longer than any attempt can take.
    pub lease: Duration,
    /// Fallback polling interval when no notification arrives.
    pub poll_interval: Duration,
}

/// What one claim may take: `limit` messages in all, and per account no more than
/// `per_account` minus what it already has in flight (`busy`: accounts and counts, as
/// two arrays that PostgreSQL's `unnest` pairs up).
pub(crate) struct Claim<'a> {
    pub limit: i64,
    pub per_account: i64,
    pub busy_accounts: &'a [Uuid],
    pub busy_counts: &'a [i64],
    pub lease: Duration,
}

/// What the worker reads of every claimed message.
pub(crate) trait Message: Send + Sync + 'static {
    fn id(&self) -> Uuid;
    /// Whose message it is: its slot counts against this account's share.
    fn account_id(&self) -> Uuid;
    /// Attempts made before this one.
    fn attempts(&self) -> i32;
    /// Retries it may have after its first attempt.
    fn max_retries(&self) -> i32;
    /// The sequence it belongs to, if any: the messages of one sequence are sent one
    /// at a time, in the order they were claimed (a webhook's deliveries of one event).
    fn sequence(&self) -> Option<(Uuid, &str)> {
        None
    }
}

/// What one attempt came to.
pub(crate) struct Sent<R> {
    /// Accepted by the receiver or relay, or why not.
    pub result: Result<(), String>,
    /// A failure no retry can mend (a mail whose response was deleted).
    pub permanent: bool,
    /// What the kind keeps of the attempt besides (the receiver's code and answer, the
    /// relay's reply and the recipient).
    pub receipt: R,
}

/// An attempt as it is recorded: its message, what it came to and where it leaves the
/// message.
pub(crate) struct Attempt<M, R> {
    pub message: M,
    pub attempted_at: DateTime<Utc>,
    pub duration: Duration,
    pub sent: Sent<R>,
    pub settled: Settled,
}

impl<M, R> Attempt<M, R> {
    pub(crate) fn duration_ms(&self) -> i64 {
        i64::try_from(self.duration.as_millis()).unwrap_or(i64::MAX)
    }

    pub(crate) fn error(&self) -> Option<&str> {
        self.sent.result.as_ref().err().map(String::as_str)
    }
}

/// A kind of message the outbox carries: how its due messages are claimed, how one is
/// sent, and how an attempt is recorded (the SQL of each is in `outbox::store`).
pub(crate) trait Carrier: Clone + Send + Sync + 'static {
    type Message: Message;
    type Receipt: Send + Sync + 'static;

    const KIND: Kind;

    /// Claims due messages as `claim` allows, each for `claim.lease`.
    fn claim(
        &self,
        pool: &PgPool,
        claim: Claim<'_>,
    ) -> impl Future<Output = Result<Vec<Self::Message>, CoreError>> + Send;

    /// Sends one message; `None` when it is gone (nothing to send, nothing to record).
    fn send(
        &self,
        pool: &PgPool,
        message: &Self::Message,
    ) -> impl Future<Output = Option<Sent<Self::Receipt>>> + Send;

    /// Records attempts (of distinct messages) and moves each message on (released, to
    /// its settled status): all of them, or none.
    fn record(
        &self,
        pool: &PgPool,
        attempts: &[Attempt<Self::Message, Self::Receipt>],
    ) -> impl Future<Output = Result<(), CoreError>> + Send;
}
