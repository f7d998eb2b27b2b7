//! Judging on the instance's view. Each instance keeps the form as its last batch on
//! it left it (its "snapshot": a `Locked` read under the row lock, with the form's
//! counters and the versions of the form and account rows). The next batch is judged
//! on it, each submission on the form as those before it leave it (open form, cap,
//! answers, quota limit, submission time), and stored by the shared statement
//! (`statement`), which writes only if neither row has moved since (their `xmin`, and
//! the form's counters): one round trip in place of four and one a submission (begin,
//! lock, inserts, counters, commit). Whatever the view cannot settle takes the locked
//! path: none kept, a moved row, a refusal (judged again on the locked rows, so that a
//! stale view never refuses), files or notifications. A form's webhook events are
//! made here and written by the statement with its responses (the view knows whether
//! the form has an active webhook; the statement refuses a form that gained one).

use super::statement::{Statements, Written};
use super::submission::{Outcome, Stored, Submission, failed_together, respond};
use crate::config::CoreConfig;
use crate::db::lanes::Lanes;
use crate::lru::ByteLru;
use crate::outbox::bell::Bell;
use crate::responses::Response;
use crate::responses::store::{Current, IfCurrent, Locked};
use serde_json::{Map, Value};
use std::sync::{Arc, Mutex, PoisonError};
use uuid::Uuid;

/// The forms as this instance last left them (its "snapshots"), by id, within a bound
/// of memory: beyond it the least recently kept is let go (its form's next batch takes
/// the locked path, which keeps it again). A form's fields can be large, and a
/// snapshot only saves round trips.
#[derive(Clone)]
pub(super) struct Snapshots {
    forms: Arc<Mutex<ByteLru<Uuid, Locked>>>,
    /// The statements that store the responses judged on snapshots, several forms'
    /// at once.
    statements: Statements,
}

impl Snapshots {
    /// Snapshots kept in at most `max_bytes` (as `held_bytes` counts them); the
    /// statements ring `deliveries` when they write some.
    pub(super) fn new(lanes: Lanes, max_bytes: usize, deliveries: Bell) -> Self {
        Self {
            forms: Arc::new(Mutex::new(ByteLru::new(max_bytes))),
            statements: Statements::new(lanes, deliveries),
        }
    }

    fn forms(&self) -> std::sync::MutexGuard<'_, ByteLru<Uuid, Locked>> {
        self.forms.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps the form as a committed transaction left it (its counters advanced, the
    /// versions those of its rows after the commit).
    pub(super) fn keep(&self, form_id: Uuid, locked: Locked) {
        let bytes = held_bytes(&locked);
        self.keep_counted(form_id, locked, bytes);
    }

    /// Keeps a snapshot already counted (its fields and settings are those it was
    /// counted with).
    fn keep_counted(&self, form_id: Uuid, locked: Locked, bytes: usize) {
        let mut forms = self.forms();
        forms.insert(form_id, locked, bytes);
        gauge_view("snapshots", &forms);
    }

    fn take(&self, form_id: Uuid) -> Option<(Locked, usize)> {
        self.forms().remove(&form_id)
    }

    /// Stores `submissions` (in arrival order) in one statement if the snapshot of
    /// their form settles them all. `None`: nothing was written; take the locked path.
    pub(super) async fn try_store(
        &self,
        config: &CoreConfig,
        form_id: Uuid,
        submissions: &[Submission],
    ) -> Option<Vec<Outcome>> {
        // Taken out while in use: a form's submissions are stored one batch at a time
        // (its batch task), and a failure leaves no snapshot behind.
        let (mut locked, bytes) = self.take(form_id)?;
        let (count, newest) = (
            locked.target.response_count,
            locked.target.last_submitted_at,
        );
        let mut responses = Vec::with_capacity(submissions.len());
        let mut events = Vec::new();
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
            // The events, made only for a form with webhooks (the statement refuses a
            // form that has one when the view knew of none).
            if locked.has_webhooks {
                events.extend(
                    super::events::of(&locked.target, &response, submission.from.via()).ok()?,
                );
            }
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
            has_webhooks: locked.has_webhooks,
            events,
        };
        let (responses, current) = match self.statements.store(form).await {
            Written::Ran(responses, current) => (responses, current),
            Written::Nothing => return None,
            Written::Unknown(error) => return Some(failed_together(error, submissions.len())),
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
        self.keep_counted(form_id, locked, bytes);
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

/// What a snapshot holds beyond its own size, roughly: its fields as stored (a `Field`
/// each) with their text, its settings (counted as twice their JSON text: a parsed
/// value's strings, maps and vectors take about that), its short id and versions.
/// Counted once, when the locked path keeps the form, never per batch.
fn held_bytes(locked: &Locked) -> usize {
    let fields = &locked.target.fields;
    fields.capacity() * size_of::<crate::forms::Field>()
        + json_len(fields)
        + 2 * json_len(&*locked.target.settings)
        + locked.short_id.len()
        + locked.versions.form.len()
        + locked.versions.account.len()
}

/// The length of `value`'s JSON text, counted without keeping it.
fn json_len(value: &impl serde::Serialize) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Serialising these values cannot fail (string keys, no foreign types).
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// Reports a view's size in /metrics: `formsd_form_view_entries{view}` and
/// `formsd_form_view_bytes{view}`.
pub(super) fn gauge_view<V>(view: &'static str, kept: &ByteLru<Uuid, V>) {
    metrics::gauge!("formsd_form_view_entries", "view" => view).set(kept.len() as f64);
    metrics::gauge!("formsd_form_view_bytes", "view" => view).set(kept.bytes() as f64);
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

/// Whether storing `submission` on `locked` writes the response, its quota and the
/// form's counters and its webhook events, and nothing else (no file or
/// notification), all of which the shared statement does.
fn writes_only_the_response(locked: &Locked, submission: &Submission) -> bool {
    submission.files.ids.is_empty()
        && !locked.target.notifies()
        && !crate::notifications::confirm::confirms(&locked.target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounts::Plan;
    use crate::files::Staged;
    use crate::forms::FormStatus;
    use crate::responses::TargetForm;
    use crate::responses::create::Source;
    use crate::responses::store::Versions;
    use chrono::Utc;
    use serde_json::json;

    fn response(answers: Value, metadata: Value, browser: Option<&str>) -> Response {
        let object = |value: Value| value.as_object().cloned().unwrap_or_default();
        Response {
            id: Uuid::new_v4(),
            form_id: Uuid::new_v4(),
            answers: object(answers),
            metadata: object(metadata),
            device_type: None,
            browser: browser.map(str::to_owned),
            os: None,
            started_at: Utc::now(),
            submitted_at: Utc::now(),
            completion_time_seconds: None,
            partial_page: None,
            language: None,
        }
    }

    #[test]
    fn a_nul_anywhere_is_not_storable_with_other_forms() {
        let clean = response(
            json!({"a": ["x", {"b": 1}]}),
            json!({"source": "api"}),
            Some("Firefox"),
        );
        assert!(storable(&clean));
        for unstorable in [
            response(json!({"a": "x\u{0}"}), json!({}), None),
            response(json!({"a": ["x", {"b": "\u{0}"}]}), json!({}), None),
            response(json!({"a\u{0}": "x"}), json!({}), None),
            response(json!({}), json!({"k": {"n\u{0}": 1}}), None),
            response(json!({}), json!({}), Some("Fire\u{0}fox")),
        ] {
            assert!(!storable(&unstorable), "{unstorable:?}");
        }
    }

    #[test]
    fn only_a_submission_that_writes_the_response_alone_is_judged_on_the_view() {
        let account_id = Uuid::new_v4();
        let locked = |settings: Value, has_webhooks: bool| Locked {
            target: TargetForm {
                id: Uuid::new_v4(),
                account_id,
                status: FormStatus::Published,
                fields: Vec::new(),
                settings: Arc::new(settings.as_object().cloned().unwrap_or_default()),
                response_count: 0,
                last_submitted_at: None,
            },
            short_id: "abc".into(),
            plan: Plan::Pro,
            response_limit: None,
            has_webhooks,
            versions: Versions {
                form: "1".into(),
                account: "1".into(),
            },
        };
        let submission = |files: Vec<Uuid>| Submission {
            id: None,
            answers: Map::new(),
            metadata: Map::new(),
            device_type: None,
            browser: None,
            os: None,
            started_at: None,
            from: Source::Api { account_id },
            files: Staged {
                ids: files,
                answers: Map::new(),
            },
            drop_unshown: false,
            language: None,
        };
        let plain = locked(json!({}), false);
        assert!(writes_only_the_response(&plain, &submission(vec![])));
        // Files to attach, the owner's mail: the locked path. A webhook's events are
        // the statement's too.
        assert!(!writes_only_the_response(
            &plain,
            &submission(vec![Uuid::new_v4()])
        ));
        let mailed = locked(json!({"notifications_enabled": true}), false);
        assert!(!writes_only_the_response(&mailed, &submission(vec![])));
        let hooked = locked(json!({"notifications_enabled": false}), true);
        assert!(writes_only_the_response(&hooked, &submission(vec![])));
    }
}
