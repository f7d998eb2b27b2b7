//! Responses: validation of answers against a form's fields, the rules that close a
//! form, and the response quota. Plain Rust; `create` stores submissions, `store` holds
//! the SQL and `service` the gRPC adapter.

mod bounded;
pub(crate) mod create;
pub(crate) mod cursor;
pub(crate) mod export;
pub mod filter;
mod listing;
pub mod rollup;
pub mod search;
pub(crate) mod service;
pub mod store;
pub(crate) mod summary;
pub mod tally;

pub use crate::forms::answers::{
    MAX_EMAIL, MAX_FILE_REF, MAX_HIDDEN, MAX_LONG_TEXT, MAX_OTHER_TEXT, MAX_SHORT_TEXT, MAX_URL,
    is_email,
};
use crate::forms::answers::{check_answer, is_blank};

use crate::Problem;
use crate::error::{CoreError, FieldError};
use crate::forms::logic::Visibility;
use crate::forms::{Field, FieldKind, FormStatus};
use chrono::{DateTime, Datelike, NaiveDate, Utc};
use serde_json::{Map, Value};
use std::sync::Arc;
use uuid::Uuid;

/// Largest serialized metadata object.
pub const MAX_METADATA_BYTES: usize = 16 * 1024;

/// A stored response.
#[derive(Debug, Clone)]
pub struct Response {
    pub id: Uuid,
    pub form_id: Uuid,
    pub answers: Map<String, Value>,
    pub metadata: Map<String, Value>,
    pub device_type: Option<String>,
    pub browser: Option<String>,
    pub os: Option<String>,
    pub started_at: DateTime<Utc>,
    pub submitted_at: DateTime<Utc>,
    pub completion_time_seconds: Option<i64>,
    /// A partial response (`partial`): the page it is at; `None` for a completed one.
    pub partial_page: Option<i32>,
    /// The language of the hosted page it was answered on (one of the form's
    /// languages); `None` over the API and for forms in one language.
    pub language: Option<String>,
}

/// What the create path needs of a form, read under its row lock.
#[derive(Debug, Clone)]
pub struct TargetForm {
    pub id: Uuid,
    pub account_id: Uuid,
    pub status: FormStatus,
    pub fields: Vec<Field>,
    /// Shared with what a stored response answers (a hosted page's confirmation):
    /// never copied per response.
    pub settings: Arc<Map<String, Value>>,
    pub response_count: i64,
    pub last_submitted_at: Option<DateTime<Utc>>,
}

impl TargetForm {
    /// SPEC: only a published form takes responses; a published form is closed once its
    /// `closes_at` has passed or it holds `max_responses` responses.
    pub fn check_open(&self, now: DateTime<Utc>) -> Result<(), CoreError> {
        if self.status != FormStatus::Published {
            return Err(CoreError::FormNotPublished);
        }
        let closes_at = self
            .settings
            .get("closes_at")
            .and_then(Value::as_str)
            .and_then(|s| DateTime::parse_from_rfc3339(s).ok());
        if closes_at.is_some_and(|at| at <= now) {
            return Err(CoreError::FormClosed);
        }
        let max = self.settings.get("max_responses").and_then(Value::as_i64);
        if max.is_some_and(|max| self.response_count >= max) {
            return Err(CoreError::FormClosed);
        }
        Ok(())
    }

    /// The submission time of the next response: now, or just after the form's newest
    /// response if the clock has not moved past it. Responses of a form are inserted
    /// under its row lock, so submission order equals commit order and keyset paging
    /// never skips a row that commits late.
    pub fn next_submitted_at(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        match self.last_submitted_at {
            Some(last) if last >= now => last + chrono::Duration::milliseconds(1),
            _ => now,
        }
    }

    /// Whether the form's owner is mailed about each response.
    pub fn notifies(&self) -> bool {
        self.settings.get("notifications_enabled") == Some(&Value::Bool(true))
    }

    /// Moves the form's counters by a response stored at `submitted_at`.
    pub fn count(&mut self, submitted_at: DateTime<Utc>) {
        self.response_count += 1;
        self.last_submitted_at = Some(submitted_at);
    }

    /// Validates answers against the fields; returns them with unanswered optional
    /// fields (null) left out and numbers normalised. `uploaded` holds the answers of
    /// file fields whose files were checked already (browser uploads); they take the
    /// place of whatever was sent for those fields.
    pub fn validate_answers(
        &self,
        answers: Map<String, Value>,
        uploaded: &Map<String, Value>,
    ) -> Result<Map<String, Value>, CoreError> {
        self.validate_through(answers, uploaded, None)
    }

    /// `validate_answers`, dropping (not refusing) the answers of fields that the other
    /// answers hide: for an owner's own HTML form (endpoint mode), which shows every
    /// question whatever is answered, and cannot be expected to apply the conditions.
    pub fn validate_dropping_unshown(
        &self,
        answers: Map<String, Value>,
        uploaded: &Map<String, Value>,
    ) -> Result<Map<String, Value>, CoreError> {
        self.validate(answers, uploaded, None, true)
    }

    /// `validate_answers` of the pages up to `through` (all of them with `None`): the
    /// fields of later pages are not required yet, and take no answer yet.
    ///
    /// A hosted page passes `through`, and for it a `hidden` field that is not shown
    /// has its value dropped instead of refused: the page sends the value it got from
    /// its address whatever the visitor answers, and the visitor can neither see nor
    /// clear it. (A caller of the API sends what it chooses, so there it is refused.)
    pub fn validate_through(
        &self,
        answers: Map<String, Value>,
        uploaded: &Map<String, Value>,
        through: Option<usize>,
    ) -> Result<Map<String, Value>, CoreError> {
        self.validate(answers, uploaded, through, false)
    }

    /// The check of `validate_through`; `drop_unshown`: the answers of fields not shown
    /// are dropped instead of refused.
    fn validate(
        &self,
        answers: Map<String, Value>,
        uploaded: &Map<String, Value>,
        through: Option<usize>,
        drop_unshown: bool,
    ) -> Result<Map<String, Value>, CoreError> {
        // Every problem is reported at once, each with its field, so that a page can show
        // each message next to its input.
        let mut errors = Vec::new();
        for key in answers.keys() {
            if !self.fields.iter().any(|f| f.id.to_string() == *key) {
                errors.push(FieldError {
                    field: key.clone(),
                    label: String::new(),
                    problem: Problem::new("unknown-field", "is not a field of this form"),
                });
            }
        }
        let mut out = Map::new();
        // Pages and conditions (`forms::logic`): a field not shown is not required and
        // takes no answer.
        let mut seen = Visibility::new(&self.fields);
        for (i, field) in self.fields.iter().enumerate() {
            let id = field.id.to_string();
            let describe = |problem: Problem| FieldError {
                field: id.clone(),
                label: field.label.clone(),
                problem,
            };
            let shown = seen.shown(i, field);
            let given = uploaded
                .get(&id)
                .or_else(|| answers.get(&id).filter(|v| !is_blank(v)));
            if field.kind == FieldKind::PageBreak {
                if given.is_some() {
                    errors.push(describe(Problem::new(
                        "page-break",
                        "is a page break, which takes no answer",
                    )));
                }
                continue;
            }
            if through.is_some_and(|last| seen.page() > last) {
                if given.is_some() {
                    errors.push(describe(Problem::new(
                        "later-page",
                        "is on a later page: answer it there",
                    )));
                }
                continue;
            }
            if !shown {
                let unseen = drop_unshown || (field.kind == FieldKind::Hidden && through.is_some());
                if given.is_some() && !unseen {
                    errors.push(describe(Problem::new(
                        "not-shown",
                        "is not shown, given the answers it depends on: send no answer for it",
                    )));
                }
                continue;
            }
            if let Some(file) = uploaded.get(&id) {
                seen.answered(field, file);
                out.insert(id, file.clone());
                continue;
            }
            match given {
                None if field.required => {
                    errors.push(describe(Problem::new("required", "is required")))
                }
                None => {}
                Some(value) => match check_answer(field, value) {
                    Ok(value) => {
                        seen.answered(field, &value);
                        out.insert(id, value);
                    }
                    Err(why) => errors.push(describe(why)),
                },
            }
        }
        if errors.is_empty() {
            Ok(out)
        } else {
            Err(CoreError::FieldErrors(errors))
        }
    }
}

/// Client metadata of an API-created response, with `source` set to "api".
pub fn api_metadata(mut metadata: Map<String, Value>) -> Result<Map<String, Value>, CoreError> {
    metadata.insert("source".into(), Value::String("api".into()));
    let size = serde_json::to_vec(&metadata).map_or(usize::MAX, |v| v.len());
    if size > MAX_METADATA_BYTES {
        return Err(CoreError::validation("metadata must be at most 16 KiB"));
    }
    Ok(metadata)
}

/// The quota period containing `now`: the calendar month (UTC), named by its first day.
pub fn quota_month(now: DateTime<Utc>) -> NaiveDate {
    NaiveDate::from_ymd_opt(now.year(), now.month(), 1).unwrap_or_else(|| now.date_naive())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form(kinds: &[(FieldKind, bool)]) -> TargetForm {
        TargetForm {
            id: Uuid::new_v4(),
            account_id: Uuid::new_v4(),
            status: FormStatus::Published,
            fields: kinds
                .iter()
                .map(|(k, required)| Field {
                    id: Uuid::new_v4(),
                    kind: *k,
                    label: format!("{} field", k.as_str()),
                    required: *required,
                    placeholder: None,
                    allowed_types: vec![],
                    max_size_mb: None,
                    correct_answer: None,
                    points: None,
                    ..Field::default()
                })
                .collect(),
            settings: Arc::default(),
            response_count: 0,
            last_submitted_at: None,
        }
    }

    fn answers(f: &TargetForm, values: &[Value]) -> Map<String, Value> {
        f.fields
            .iter()
            .zip(values)
            .map(|(fd, v)| (fd.id.to_string(), v.clone()))
            .collect()
    }

    fn v(f: &TargetForm, answers: Map<String, Value>) -> Result<Map<String, Value>, CoreError> {
        f.validate_answers(answers, &Map::new())
    }

    #[test]
    fn a_hosted_page_drops_an_unshown_hidden_value_the_api_refuses_it() {
        let mut f = form(&[(FieldKind::Checkbox, false), (FieldKind::Hidden, false)]);
        f.fields[1].show_if = vec![crate::forms::logic::Condition {
            field: f.fields[0].id,
            op: crate::forms::logic::Op::Equals,
            value: Some(json!(true)),
        }];
        let given = answers(&f, &[json!(false), json!("newsletter")]);
        assert!(v(&f, given.clone()).is_err(), "the API refuses it");
        let page = f
            .validate_through(given, &Map::new(), Some(1))
            .expect("the page drops it");
        assert_eq!(page, answers(&f, &[json!(false)]));
        let shown = answers(&f, &[json!(true), json!("newsletter")]);
        let kept = f.validate_through(shown.clone(), &Map::new(), Some(1));
        assert_eq!(kept.ok(), Some(shown));
    }

    #[test]
    fn answers_follow_field_rules() {
        let f = form(&[
            (FieldKind::ShortText, true),
            (FieldKind::Email, false),
            (FieldKind::Number, false),
        ]);
        assert!(
            v(
                &f,
                answers(&f, &[json!("Ada"), json!("ada@example.com"), json!(3)])
            )
            .is_ok()
        );
        assert!(
            v(&f, answers(&f, &[json!("  ")])).is_err(),
            "blank required"
        );
        assert!(v(&f, answers(&f, &[json!("Ada"), json!("not-an-email")])).is_err());
        assert!(
            v(&f, answers(&f, &[json!(5)])).is_err(),
            "text must be a string"
        );
        let n =
            v(&f, answers(&f, &[json!("Ada"), json!(null), json!("4")])).expect("numeric string");
        assert_eq!(n[&f.fields[2].id.to_string()], json!(4));
        let mut stray = answers(&f, &[json!("Ada")]);
        stray.insert(Uuid::new_v4().to_string(), json!("x"));
        assert!(v(&f, stray).is_err());
    }

    #[test]
    fn multiple_choice_counts_and_required_checkbox() {
        let mut f = form(&[
            (FieldKind::MultipleChoice, true),
            (FieldKind::Checkbox, true),
        ]);
        f.fields[0].options = ["a", "b", "c"]
            .iter()
            .map(|id| crate::forms::FieldOption {
                id: (*id).to_owned(),
                label: id.to_uppercase(),
            })
            .collect();
        f.fields[0].max_selected = Some(2);
        let ok = v(&f, answers(&f, &[json!(["c", "a"]), json!("on")])).expect("valid");
        assert_eq!(ok[&f.fields[0].id.to_string()], json!(["a", "c"]));
        assert_eq!(ok[&f.fields[1].id.to_string()], json!(true));
        assert!(
            v(&f, answers(&f, &[json!([]), json!(true)])).is_err(),
            "required, none ticked"
        );
        assert!(v(&f, answers(&f, &[json!(["a", "b", "c"]), json!(true)])).is_err());
        assert!(
            v(
                &f,
                answers(&f, &[json!(["a", {"other": "x"}]), json!(true)])
            )
            .is_err(),
            "no other allowed"
        );
        assert!(
            v(&f, answers(&f, &[json!(["a"]), json!(false)])).is_err(),
            "required checkbox unticked"
        );
    }

    #[test]
    fn closing_rules() {
        let now = Utc::now();
        let mut f = form(&[]);
        assert!(f.check_open(now).is_ok());
        let settings = Arc::make_mut(&mut f.settings);
        settings.insert("closes_at".into(), json!("2000-01-01T00:00:00Z"));
        assert!(matches!(f.check_open(now), Err(CoreError::FormClosed)));
        let settings = Arc::make_mut(&mut f.settings);
        settings.remove("closes_at");
        settings.insert("max_responses".into(), json!(2));
        f.response_count = 2;
        assert!(matches!(f.check_open(now), Err(CoreError::FormClosed)));
        f.status = FormStatus::Draft;
        assert!(matches!(
            f.check_open(now),
            Err(CoreError::FormNotPublished)
        ));
    }

    #[test]
    fn submission_times_strictly_increase() {
        let now = Utc::now();
        let mut f = form(&[]);
        f.last_submitted_at = Some(now);
        assert!(f.next_submitted_at(now) > now);
        assert!(is_email("a.b+c@mail.example.org") && !is_email("a@b") && !is_email("a b@c.de"));
    }
}
