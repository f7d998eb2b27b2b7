//! Bounds on partial responses. A saved page of a multi-page form leaves a partial
//! response (and the files its pages uploaded) waiting for its visitor for
//! `--partial-retention`; without bounds, saving pages would be a way around every
//! bound a submission meets. So a page is saved only where a submission would be
//! taken: with the form's proof of work (checked in `Hosted::submit`, as for a
//! submission), under the per-visitor throttle of submissions, and, for a page that
//! begins a new partial, while the owner's monthly response quota has room, the form,
//! the account and the visitor have fewer unfinished partials than their caps, and the
//! account's unfinished partials hold fewer bytes of files than theirs.
//!
//! A visitor is their address's throttle bucket (`gate::throttle_key`), kept only as a
//! keyed digest. The counts are read before the partial is saved: first pages that
//! arrive together may pass a cap by as many as arrive at once, never by more.

use super::Hosted;
use crate::crypto::hmac_sha256;
use crate::error::CoreError;
use crate::forms::{Form, now_millis};
use crate::gate;
use crate::responses::quota_month;
use crate::responses::store::partial;
use std::net::IpAddr;
use uuid::Uuid;

/// What a page refused by a cap is told to wait, in seconds: partials leave as their
/// visitors finish them or at the retention purge, so a minute is a fair first wait.
const RETRY_AFTER_SECS: u64 = 60;
/// Label under which the visitors' key is derived from the start tokens' key.
const KEY_LABEL: &[u8] = b"forms.v1 partial response visitors";
/// Bytes of a visitor's digest kept: enough to tell visitors apart, no more.
const VISITOR_BYTES: usize = 16;

/// Names visitors by a keyed digest of their address's throttle bucket.
#[derive(Clone)]
pub(crate) struct Visitors {
    key: [u8; 32],
}

impl Visitors {
    pub(crate) fn new(token_key: &[u8]) -> Self {
        Self {
            key: hmac_sha256(token_key, &[KEY_LABEL]),
        }
    }

    /// The visitor at `ip`, as partials keep it.
    pub(crate) fn of(&self, ip: IpAddr) -> Vec<u8> {
        let bucket = gate::throttle_key(ip).to_string();
        hmac_sha256(&self.key, &[bucket.as_bytes()])[..VISITOR_BYTES].to_vec()
    }
}

impl Hosted {
    /// Refuses a page of `form` that would begin a partial (`new`) over a cap, or
    /// whose `staged` files would pass the account's bytes of waiting files.
    pub(super) async fn check_room(
        &self,
        form: &Form,
        visitor: &[u8],
        new: bool,
        staged: &[Uuid],
    ) -> Result<(), CoreError> {
        if !new && staged.is_empty() {
            return Ok(());
        }
        let month = quota_month(now_millis());
        let room = partial::room(&self.pool, form, visitor, month, staged).await?;
        let caps = &self.config.partials;
        if new {
            // A response it could never become: refused as a submission would be.
            let quota = room
                .response_limit
                .or(self.config.response_limit(room.plan));
            if quota.is_some_and(|quota| room.used >= quota) {
                return Err(CoreError::ResponseLimitReached);
            }
            if room.visitor_open >= caps.per_visitor
                || room.form_open >= caps.per_form
                || room.account_open >= caps.per_account
            {
                return Err(refused());
            }
        }
        if room.staged_bytes > 0
            && room.held_bytes.saturating_add(room.staged_bytes) > caps.file_bytes_per_account
        {
            return Err(refused());
        }
        Ok(())
    }
}

/// The refusal of a page over a cap on partials, counted as such.
fn refused() -> CoreError {
    metrics::counter!("formsd_rate_limit_refusals_total", "limit" => "partials").increment(1);
    CoreError::PartialsFull {
        retry_after: RETRY_AFTER_SECS,
    }
}
