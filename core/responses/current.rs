//! A submission alone on its form, stored in one statement. The form, its account and
//! the form's counters as the last transaction of this instance left them are kept
//! (a `Snapshot`); the next submission is judged on them (open form, answers, quota
//! limit, submission time) and stored by `store::insert_if_current`, which writes only
//! if neither row has moved since (their `xmin`). One round trip in place of five
//! (begin, lock, insert, counters, commit). Whatever the snapshot cannot settle takes
//! the locked path: no snapshot, a moved row, a refusal (judged again on the locked
//! rows, so that a stale snapshot never refuses), files, notifications or webhooks.

use super::Response;
use super::batch::Target;
use super::store::{self, Current, Locked};
use super::submit::{Submission, respond, writes_only_the_response};
use crate::config::CoreConfig;
use crate::db::lanes::Lanes;
use crate::error::CoreError;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// Forms whose snapshot is kept at most; beyond, the map starts again (a form's fields
/// can be large, and a snapshot only saves round trips).
const MAX_SNAPSHOTS: usize = 1024;

/// The snapshots of this instance, by form.
#[derive(Clone, Default)]
pub struct Snapshots {
    forms: Arc<Mutex<HashMap<Target, Locked>>>,
}

impl Snapshots {
    fn forms(&self) -> std::sync::MutexGuard<'_, HashMap<Target, Locked>> {
        self.forms.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps the form as a committed transaction left it (its counters advanced, the
    /// versions those of its rows after the commit).
    pub fn keep(&self, at: &Target, locked: Locked) {
        let mut forms = self.forms();
        if forms.len() >= MAX_SNAPSHOTS && !forms.contains_key(at) {
            forms.clear();
        }
        forms.insert(at.clone(), locked);
    }

    fn take(&self, at: &Target) -> Option<Locked> {
        self.forms().remove(at)
    }

    /// Stores `submission` in one statement if the snapshot of its form settles it;
    /// with the outcome, the form's settings. `None`: nothing was written; take the
    /// locked path.
    pub async fn try_store(
        &self,
        lanes: &Lanes,
        config: &CoreConfig,
        at: &Target,
        submission: &Submission,
    ) -> Option<(Result<Response, CoreError>, Arc<Map<String, Value>>)> {
        // Taken out while in use: a form's submissions are stored one at a time (its
        // batch task), and a failure leaves no snapshot behind.
        let mut locked = self.take(at)?;
        if !writes_only_the_response(&locked, submission) {
            return None;
        }
        let (response, (quota, limit)) = respond(config, &locked, submission).ok()?;
        let count = locked.target.response_count + 1;
        let stored = async {
            let mut lane = lanes.take().await?;
            let current = store::insert_if_current(
                &mut *lane,
                &response,
                quota,
                limit,
                &locked.versions,
                count,
            )
            .await?;
            // One statement, committed: nothing is pending on the connection.
            lane.finish();
            Ok::<_, CoreError>(current)
        }
        .await;
        let settings = Arc::new(locked.target.settings.clone());
        let outcome = match stored {
            Ok(Current::Stored(version)) => {
                locked.target.response_count = count;
                locked.target.last_submitted_at = Some(response.submitted_at);
                locked.versions.form = version;
                self.keep(at, locked);
                Ok(response)
            }
            // The quota is never part of the snapshot: this refusal is exact.
            Ok(Current::OverQuota) => {
                self.keep(at, locked);
                Err(CoreError::ResponseLimitReached)
            }
            Ok(Current::Moved) => return None,
            Err(error) => Err(error),
        };
        Some((outcome, settings))
    }
}
