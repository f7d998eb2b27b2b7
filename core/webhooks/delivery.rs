//! Webhook deliveries as the outbox carries them (`crate::outbox`, which claims, retries
//! and records them as it does every message): each is POSTed with its exact stored
//! bytes, signed with its subscription's current secret, to a target checked again at
//! send time, and what the receiver answered is kept with the attempt.

use super::signing;
use super::target::{self, PublicResolver};
use crate::config::DeliveryConfig;
use crate::error::CoreError;
use crate::outbox::store::{self, DueDelivery};
use crate::outbox::{self, Attempt, Carrier, Claim, Kind, Limits, Sent};
use chrono::Utc;
use sqlx::PgPool;
use std::time::Duration;
use uuid::Uuid;

/// Longest response body kept with an attempt.
const MAX_RECORDED_BODY: usize = 1024;

/// What a receiver answered, as the attempt keeps it.
pub(crate) struct Answer {
    status_code: Option<i32>,
    /// The start of the body, at most [`MAX_RECORDED_BODY`] bytes.
    body: String,
}

/// Sends webhook deliveries: an HTTP client that follows no redirect and, unless the
/// operator allowed private targets, resolves names to public addresses only.
#[derive(Clone)]
pub(crate) struct Deliverer {
    client: reqwest::Client,
    allow_private: bool,
}

impl Deliverer {
    pub(crate) fn new(config: &DeliveryConfig) -> Result<Self, CoreError> {
        // reqwest is built without a default TLS provider: use ring (a no-op when the
        // process already installed one).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(config.timeout)
            .no_proxy()
            .user_agent(concat!("formsd-webhooks/", env!("CARGO_PKG_VERSION")));
        if !config.allow_private {
            builder = builder.dns_resolver(PublicResolver);
        }
        let client = builder
            .build()
            .map_err(|e| CoreError::Internal(format!("webhook HTTP client: {e}")))?;
        Ok(Self {
            client,
            allow_private: config.allow_private,
        })
    }

    /// The share of the process deliveries take, as configured.
    pub(crate) fn limits(config: &DeliveryConfig) -> Limits {
        Limits {
            concurrency: config.concurrency,
            per_account: config.concurrency_per_account,
            // Longer than any attempt can take, behind the others of its sequence that
            // this instance claimed (an account holds at most `per_account` of them).
            lease: config
                .timeout
                .saturating_mul(
                    u32::try_from(config.concurrency_per_account.max(1)).unwrap_or(u32::MAX),
                )
                .saturating_add(Duration::from_secs(30)),
            poll_interval: config.poll_interval,
        }
    }

    async fn post(&self, due: &DueDelivery) -> Sent<Answer> {
        let failed = |error: String| Sent {
            result: Err(error),
            permanent: false,
            receipt: Answer {
                status_code: None,
                body: String::new(),
            },
        };
        let url = match reqwest::Url::parse(&due.url) {
            Ok(url) => url,
            Err(e) => return failed(format!("invalid url: {e}")),
        };
        if let Err(refused) = target::check_literal_host(&url, self.allow_private) {
            return failed(refused);
        }
        let Some(secret) = due.secret.as_deref() else {
            return failed("the subscription was deleted: nothing to sign with".to_owned());
        };
        let id = due.id.to_string();
        let event_time = crate::pb::convert::rfc3339(due.created_at);
        let now = Utc::now().timestamp();
        let request = self
            .client
            .post(url)
            .header("content-type", "application/json")
            .header("x-webhook-event", &due.event)
            .header("x-webhook-timestamp", &event_time)
            .header(
                "x-webhook-signature",
                signing::spec_signature(secret, &due.payload),
            )
            .header("x-webhook-delivery", &id)
            .header("webhook-id", &id)
            .header("webhook-timestamp", now.to_string())
            .header(
                "webhook-signature",
                signing::standard_signature(secret, &id, now, &due.payload),
            )
            .body(due.payload.clone());
        match request.send().await {
            Err(e) => failed(describe(&e)),
            Ok(response) => {
                let status = response.status();
                let body = recorded_start(response).await;
                Sent {
                    result: if status.is_success() {
                        Ok(())
                    } else {
                        Err(format!("receiver answered {status}"))
                    },
                    permanent: false,
                    receipt: Answer {
                        status_code: Some(i32::from(status.as_u16())),
                        body,
                    },
                }
            }
        }
    }
}

impl outbox::Message for DueDelivery {
    fn id(&self) -> Uuid {
        self.id
    }
    fn account_id(&self) -> Uuid {
        self.account_id
    }
    fn attempts(&self) -> i32 {
        self.attempts
    }
    fn max_retries(&self) -> i32 {
        self.max_retries
    }
    fn sequence(&self) -> Option<(Uuid, &str)> {
        self.webhook_id
            .map(|webhook| (webhook, self.event.as_str()))
    }
}

impl Carrier for Deliverer {
    type Message = DueDelivery;
    type Receipt = Answer;

    const KIND: Kind = Kind {
        name: "webhook",
        channel: super::outbox::CHANNEL,
        attempts_metric: "formsd_webhook_attempts_total",
        duration_metric: Some("formsd_webhook_attempt_duration_seconds"),
    };

    async fn claim(&self, pool: &PgPool, claim: Claim<'_>) -> Result<Vec<DueDelivery>, CoreError> {
        store::claim_deliveries(pool, claim).await
    }

    async fn send(&self, _pool: &PgPool, due: &DueDelivery) -> Option<Sent<Answer>> {
        Some(self.post(due).await)
    }

    async fn record(
        &self,
        pool: &PgPool,
        attempts: &[Attempt<DueDelivery, Answer>],
    ) -> Result<(), CoreError> {
        let recorded: Vec<store::DeliveryAttempt<'_>> = attempts
            .iter()
            .map(|attempt| store::DeliveryAttempt {
                id: attempt.message.id,
                attempted_at: attempt.attempted_at,
                status_code: attempt.sent.receipt.status_code,
                duration_ms: attempt.duration_ms(),
                error: attempt.error(),
                response_body: &attempt.sent.receipt.body,
                settled: attempt.settled,
            })
            .collect();
        store::record_delivery_attempts(pool, &recorded).await
    }
}

/// The start of a receiver's answer, as much as is recorded: read chunk by chunk and
/// no further, so a receiver answering gigabytes costs no more than one that does not.
async fn recorded_start(mut response: reqwest::Response) -> String {
    let mut kept = Vec::with_capacity(MAX_RECORDED_BODY);
    while kept.len() < MAX_RECORDED_BODY {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = MAX_RECORDED_BODY - kept.len();
                kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            // The end, or the receiver stopped answering: what came is what is kept.
            Ok(None) | Err(_) => break,
        }
    }
    // Cut at a character boundary: the recorded text stays valid UTF-8.
    let mut text = String::from_utf8_lossy(&kept).into_owned();
    while text.len() > MAX_RECORDED_BODY {
        text.pop();
    }
    text
}

/// A transport error without the URL (which may carry a path token) or other noise.
fn describe(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "could not connect"
    } else if e.is_redirect() {
        "redirect refused"
    } else {
        "request failed"
    };
    let mut cause = String::new();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        cause = s.to_string();
        source = s.source();
    }
    if cause.is_empty() {
        kind.to_owned()
    } else {
        format!("{kind}: {cause}")
    }
}
