//! A form's batch of submissions, stored in one statement. Each instance keeps the form
//! as its last transaction on it left it (a `Locked` read under the row lock, with the
//! form's counters and the versions of the form and account rows): the next batch is
//! judged on it, each submission on the form as those before it leave it (open form,
//! cap, answers, quota limit, submission time), and stored by
//! `store::insert_all_if_current`, which writes only if neither row has moved since
//! (their `xmin`, and the form's counters). One round trip in place of four and one a
//! submission (begin, lock, inserts, counters, commit), shared with the batches of
//! other forms that arrive meanwhile (`group`). Whatever the kept view cannot settle takes the
//! locked path: none kept, a moved row, a refusal (judged again on the locked rows, so
//! that a stale view never refuses), files, notifications or webhooks.

use super::Response;
use super::batch::{Stored, failed_together};
use super::group::Group;
use super::store::{Current, IfCurrent, Locked};
use super::submit::{Submission, respond, writes_only_the_response};
use crate::config::CoreConfig;
use crate::db::lanes::Lanes;
use crate::error::CoreError;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use uuid::Uuid;

/// Forms whose snapshot is kept at most; beyond, the map starts again (a form's fields
/// can be large, and a snapshot only saves round trips).
const MAX_SNAPSHOTS: usize = 1024;

/// The forms as this instance last left them (its "snapshots"), by id.
#[derive(Clone)]
pub struct Snapshots {
    forms: Arc<Mutex<HashMap<Uuid, Locked>>>,
    /// The statements that store the responses judged on snapshots, several forms'
    /// at once.
    group: Group,
}

impl Snapshots {
    pub fn new(lanes: Lanes) -> Self {
        Self {
            forms: Arc::default(),
            group: Group::new(lanes),
        }
    }

    fn forms(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, Locked>> {
        self.forms.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps the form as a committed transaction left it (its counters advanced, the
    /// versions those of its rows after the commit).
    pub fn keep(&self, form_id: Uuid, locked: Locked) {
        let mut forms = self.forms();
        if forms.len() >= MAX_SNAPSHOTS && !forms.contains_key(&form_id) {
            forms.clear();
        }
        forms.insert(form_id, locked);
    }

    fn take(&self, form_id: Uuid) -> Option<Locked> {
        self.forms().remove(&form_id)
    }

    /// Stores `submissions` (in arrival order) in one statement if the snapshot of
    /// their form settles them all. `None`: nothing was written; take the locked path.
    pub async fn try_store(
        &self,
        config: &CoreConfig,
        form_id: Uuid,
        submissions: &[Submission],
    ) -> Option<Vec<Result<Stored, CoreError>>> {
        // Taken out while in use: a form's submissions are stored one batch at a time
        // (its batch task), and a failure leaves no snapshot behind.
        let mut locked = self.take(form_id)?;
        let (count, newest) = (
            locked.target.response_count,
            locked.target.last_submitted_at,
        );
        let mut responses = Vec::with_capacity(submissions.len());
        let mut quota = None;
        for submission in submissions {
            if !writes_only_the_response(&locked, submission) {
                return None;
            }
            // A refusal is judged again on the locked rows: a stale snapshot never
            // refuses. Each is judged on the form as those before it leave it (its cap,
            // its submission times). A text PostgreSQL cannot store (a NUL) takes the
            // locked path too, where it is refused alone.
            let (response, its_quota) = respond(config, &locked, submission).ok()?;
            // Nor is a NUL sent with other forms' responses, whose statement it would fail.
            if !storable(&response) {
                return None;
            }
            // One quota for all (a batch across a month's end takes the locked path).
            if *quota.get_or_insert(its_quota) != its_quota {
                return None;
            }
            locked.target.count(response.submitted_at);
            responses.push(response);
        }
        let quota = quota?;
        let form = IfCurrent {
            form_id,
            versions: locked.versions.clone(),
            count,
            newest,
            quota,
            responses,
        };
        let (responses, current) = match self.group.store(form).await? {
            Ok(written) => written,
            Err(error) => return Some(failed_together(error, submissions.len())),
        };
        let label = match current {
            Current::Stored(_) => "stored",
            // Judged on the account's responses of the whole statement: the locked
            // path judges each alone.
            Current::OverQuota => "over_quota",
            Current::Moved => "moved",
        };
        metrics::counter!("formsd_one_statement_creates_total", "outcome" => label)
            .increment(responses.len() as u64);
        let Current::Stored(version) = current else {
            return None;
        };
        locked.versions.form = version;
        let settings = locked.target.settings.clone();
        self.keep(form_id, locked);
        Some(
            responses
                .into_iter()
                .map(|response| {
                    Ok(Stored {
                        response,
                        settings: settings.clone(),
                    })
                })
                .collect(),
        )
    }
}

/// Whether PostgreSQL can store the response's text: no NUL in its answers, metadata or
/// client fields.
fn storable(response: &Response) -> bool {
    fn clean(value: &Value) -> bool {
        match value {
            Value::String(s) => !s.contains('\0'),
            Value::Array(items) => items.iter().all(clean),
            Value::Object(map) => map.iter().all(|(k, v)| !k.contains('\0') && clean(v)),
            _ => true,
        }
    }
    let map = |map: &Map<String, Value>| map.iter().all(|(k, v)| !k.contains('\0') && clean(v));
    let text = |t: &Option<String>| t.as_deref().is_none_or(|t| !t.contains('\0'));
    map(&response.answers)
        && map(&response.metadata)
        && [&response.device_type, &response.browser, &response.os]
            .into_iter()
            .all(text)
}
