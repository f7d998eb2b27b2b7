//! Confirmation mails (issue 32 §4): a respondent of a form whose settings carry a
//! `confirmation_mail` (`forms::confirmation`) is mailed at the address they gave in its
//! email field: the owner's subject and text (recalls filled), the answers by label,
//! and a line saying why the mail came, in the language their page was shown in, with
//! the owner's address (if set) to reply to. It rides the notification outbox as the
//! owner's mails do (`kind = 'confirmation'`), enqueued in the response's transaction
//! and rendered from the response when sent.
//!
//! It must not become a relay for anyone who can type an address:
//! - only submissions of the form's page (or the owner's own HTML form) are mailed, so
//!   each passed the honeypot, the per-IP throttle and, where the form asks, the proof
//!   of work: a robot's dropped submission stores nothing and mails nothing, and an
//!   API caller sends its own mail;
//! - at most `PER_ADDRESS_PER_DAY` mails to one address in 24 hours, whatever the form
//!   or account (the address is kept only as a digest, which is what is counted);
//! - at most `--confirmation-mails-per-form` of one form in 24 hours.
//!
//! Both are counted in the response's transaction. The form's row lock orders one
//! form's submissions; the addresses a transaction mails are locked too (advisory
//! locks, taken in one order, before any response of the batch is judged), so two
//! forms' transactions mailing one address are counted one after the other.

use crate::config::CoreConfig;
use crate::error::CoreError;
use crate::forms::confirmation;
use crate::responses::Response;
use crate::responses::TargetForm;
use crate::responses::create::{Source, Submission};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use sqlx::{Postgres, Transaction};

/// Confirmation mails to one address in 24 hours (the next is not sent).
pub(crate) const PER_ADDRESS_PER_DAY: i64 = 10;

/// The recipient a submission's answers give the form's confirmation mail, in lower
/// case, if the form has one and the answer is an address.
fn recipient(settings: &Map<String, Value>, answers: &Map<String, Value>) -> Option<String> {
    let mail = confirmation::of(settings)?;
    let address = answers.get(mail.field_id.as_deref()?)?.as_str()?.trim();
    crate::responses::is_email(address).then(|| address.to_lowercase())
}

fn digest(address: &str) -> Vec<u8> {
    Sha256::digest(address.as_bytes()).to_vec()
}

/// Whether `target` mails its respondents (a form that does takes the locked path).
pub(crate) fn confirms(target: &TargetForm) -> bool {
    target
        .settings
        .get(confirmation::KEY)
        .is_some_and(|v| !v.is_null())
}

/// Locks, in one order, the addresses `submissions` would mail on `target` (held to
/// the end of `tx`): two transactions mailing one address count one after the other.
pub(crate) async fn lock_recipients(
    tx: &mut Transaction<'_, Postgres>,
    config: &CoreConfig,
    target: &TargetForm,
    submissions: &[Submission],
) -> Result<(), CoreError> {
    if config.smtp.is_none() || !confirms(target) {
        return Ok(());
    }
    let mut keys: Vec<i64> = submissions
        .iter()
        .filter(|s| matches!(s.from, Source::Page { .. }))
        .filter_map(|s| recipient(&target.settings, &s.answers))
        .map(|address| {
            let d = digest(&address);
            let mut first = [0u8; 8];
            first.copy_from_slice(&d[..8]);
            i64::from_be_bytes(first)
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    if !keys.is_empty() {
        super::store::lock_addresses(tx, &keys).await?;
    }
    Ok(())
}

/// Enqueues the confirmation mail of `response` (stored in `tx` from `submission`),
/// unless a daily bound is reached; returns whether it did.
pub(crate) async fn enqueue(
    tx: &mut Transaction<'_, Postgres>,
    config: &CoreConfig,
    target: &TargetForm,
    response: &Response,
    submission: &Submission,
) -> Result<bool, CoreError> {
    if config.smtp.is_none() || !matches!(submission.from, Source::Page { .. }) {
        return Ok(false);
    }
    let Some(address) = recipient(&target.settings, &response.answers) else {
        return Ok(false);
    };
    let bounds = (PER_ADDRESS_PER_DAY, config.confirmation_mails_per_form);
    let inserted = super::store::enqueue_confirmation(
        tx,
        target,
        response,
        (&digest(&address), submission.language.as_deref()),
        bounds,
    )
    .await?;
    if inserted {
        crate::outbox::store::notify(&mut **tx, super::CHANNEL).await?;
    } else {
        tracing::info!(form_id = %target.id, response_id = %response.id,
            "confirmation mail not sent: a daily bound (per address or per form) is reached");
        metrics::counter!("formsd_confirmation_mails_bounded_total").increment(1);
    }
    Ok(inserted)
}
