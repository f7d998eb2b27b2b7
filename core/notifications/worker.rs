//! Owner notifications as the outbox carries them (`crate::outbox`, which claims,
//! retries and records them as it does every message): each mail is rendered from its
//! response when it is sent and handed to the relay. A crash leaves leases that
//! expire, so a mail is sent at least once (and once in normal operation).

use super::mail;
use super::smtp::Mailer;
use super::store;
use crate::error::CoreError;
use crate::outbox::store::{DueNotification, NotificationAttempt};
use crate::outbox::{self, Attempt, Carrier, Claim, Kind, Limits, MAX_RETRIES, Sent};
use sqlx::PgPool;
use std::time::Duration;
use uuid::Uuid;

/// Mails in flight at once per instance. All go to one relay, the operator's, which is
/// better served by a few connections than by many.
const CONCURRENCY: usize = 4;

/// Longest an attempt may hold its lease: the relay's command timeout, a few commands.
const LEASE: Duration = Duration::from_secs(150);

/// Sends owner notifications through the relay.
#[derive(Clone)]
pub(crate) struct Notifier {
    mailer: Mailer,
}

/// What an attempt keeps besides its result: to whom it went, what the relay said.
pub(crate) struct Receipt {
    recipient: Option<String>,
    reply: String,
}

impl Notifier {
    pub(crate) fn new(mailer: Mailer) -> Self {
        Self { mailer }
    }

    /// The share of the process mails take: a few at once, each account's first (no
    /// account takes a slot while another with fewer in flight waits for one).
    pub(crate) fn limits(poll_interval: Duration) -> Limits {
        Limits {
            concurrency: CONCURRENCY,
            per_account: CONCURRENCY,
            lease: LEASE,
            poll_interval,
        }
    }

    async fn mail(&self, content: store::Content) -> Sent<Receipt> {
        let store::Content {
            email,
            response_id,
            title,
            fields,
            answers,
            submitted_at,
            kind,
            language,
            settings,
            languages,
        } = content;
        let failed = |recipient, error: &str, permanent| Sent {
            result: Err(error.to_owned()),
            permanent,
            receipt: Receipt {
                recipient,
                reply: String::new(),
            },
        };
        let (Some(response_id), Some(title), Some(fields), Some(answers), Some(submitted_at)) =
            (response_id, title, fields, answers, submitted_at)
        else {
            // Deleted with its response or form: nothing of it may be sent any more.
            return failed(
                email,
                "the response was deleted before the mail was sent",
                true,
            );
        };
        let (to, reply_to, rendered) = if kind == "confirmation" {
            // To the respondent, replies to the owner (when the account has an address).
            let settings = settings.map(|s| s.0).unwrap_or_default();
            let languages = languages.map(|l| l.0).unwrap_or_default();
            let Some(mail) = crate::forms::confirmation::of(&settings) else {
                return failed(None, "the form no longer sends a confirmation mail", true);
            };
            let to = mail
                .field_id
                .as_deref()
                .and_then(|id| answers.0.get(id))
                .and_then(|v| v.as_str())
                .map(str::to_owned);
            let Some(to) = to else {
                return failed(None, "the response has no address to confirm to", true);
            };
            let reading = crate::forms::reading::Reading::new(
                &fields.0,
                &languages,
                &answers.0,
                language.as_deref(),
            );
            let rendered = super::confirm_mail::render(&title, &mail, &reading);
            (to, email, rendered)
        } else {
            let Some(email) = email else {
                return failed(None, "the account has no email address", false);
            };
            let rendered = mail::render(&title, &fields.0, &answers.0, submitted_at, response_id);
            (email, None, rendered)
        };
        let email = to;
        let sent = self
            .mailer
            .send_replying(
                &email,
                reply_to.as_deref(),
                &rendered.subject,
                rendered.text,
                rendered.html,
            )
            .await;
        let (result, reply) = match sent {
            Ok(reply) => (Ok(()), reply),
            Err(e) => (Err(e.0), String::new()),
        };
        Sent {
            result,
            permanent: false,
            receipt: Receipt {
                recipient: Some(email),
                reply,
            },
        }
    }
}

impl outbox::Message for DueNotification {
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
        MAX_RETRIES
    }
}

impl Carrier for Notifier {
    type Message = DueNotification;
    type Receipt = Receipt;

    const KIND: Kind = Kind {
        name: "notification",
        channel: super::CHANNEL,
        attempts_metric: "formsd_notification_attempts_total",
        duration_metric: None,
    };

    async fn claim(
        &self,
        pool: &PgPool,
        claim: Claim<'_>,
    ) -> Result<Vec<DueNotification>, CoreError> {
        outbox::store::claim_notifications(pool, claim).await
    }

    async fn send(&self, pool: &PgPool, due: &DueNotification) -> Option<Sent<Receipt>> {
        match store::content(pool, due.id).await {
            Ok(Some(content)) => Some(self.mail(content).await),
            // Gone with its account: nothing to send, nothing to record.
            Ok(None) => None,
            Err(error) => Some(Sent {
                result: Err(format!("reading the response: {error}")),
                permanent: false,
                receipt: Receipt {
                    recipient: None,
                    reply: String::new(),
                },
            }),
        }
    }

    async fn record(
        &self,
        pool: &PgPool,
        attempts: &[Attempt<DueNotification, Receipt>],
    ) -> Result<(), CoreError> {
        // Mail is rare: an attempt's record is its own transaction.
        for attempt in attempts {
            let receipt = &attempt.sent.receipt;
            let recorded = NotificationAttempt {
                attempted_at: attempt.attempted_at,
                duration_ms: attempt.duration_ms(),
                recipient: receipt.recipient.as_deref(),
                error: attempt.error(),
                reply: &receipt.reply,
            };
            let id = attempt.message.id;
            outbox::store::record_notification_attempt(pool, id, recorded, &attempt.settled)
                .await?;
        }
        Ok(())
    }
}
