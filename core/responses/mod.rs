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

use crate::Problem;
use crate::error::{CoreError, FieldError};
use crate::forms::logic::Visibility;
use crate::forms::{Field, FieldKind, FormStatus};
use chrono::{DateTime, Datelike, NaiveDate, Utc};
use serde_json::{Map, Value};
use std::sync::Arc;
use uuid::Uuid;

/// Longest answer of a short_text field, in characters.
pub const MAX_SHORT_TEXT: usize = 1_000;
/// Longest answer of a long_text or textarea field.
pub const MAX_LONG_TEXT: usize = 20_000;
/// Longest email address (RFC 5321 path limit).
pub const MAX_EMAIL: usize = 254;
/// Longest file reference (URL) of a file_upload answer.
pub const MAX_FILE_REF: usize = 2_048;
/// Longest "other" text of a choice answer.
pub const MAX_OTHER_TEXT: usize = 500;
/// Longest url answer, and longest hidden answer.
pub const MAX_URL: usize = 2_000;
pub const MAX_HIDDEN: usize = 2_000;
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

fn is_blank(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        // No option ticked: unanswered (so refused when the field is required).
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// The rules of each field type; `Err` says what is wrong.
fn check_answer(field: &Field, value: &Value) -> Result<Value, Problem> {
    let text = |max: usize| match value {
        Value::String(s) if s.chars().count() <= max => Ok(value.clone()),
        Value::String(_) => Err(Problem::new(
            "too-long",
            format!("must be at most {max} characters"),
        )
        .arg("max", max)),
        _ => Err(Problem::new("not-text", "must be a string")),
    };
    match field.kind {
        FieldKind::ShortText => text(MAX_SHORT_TEXT),
        FieldKind::LongText | FieldKind::Textarea => text(MAX_LONG_TEXT),
        FieldKind::Email => match value {
            Value::String(s) if is_email(s.trim()) => Ok(Value::String(s.trim().to_owned())),
            _ => Err(Problem::new("email", "must be an email address")),
        },
        FieldKind::Number => {
            let number = match value {
                Value::Number(_) => Ok(value.clone()),
                Value::String(s) => s
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|n| n.is_finite())
                    .map(crate::pb::convert::number_to_json)
                    .ok_or_else(|| Problem::new("number", "must be a number")),
                _ => Err(Problem::new("number", "must be a number")),
            }?;
            let n = number.as_f64().unwrap_or(f64::NAN);
            if let Some(min) = field.min.as_ref().and_then(Value::as_f64)
                && n < min
            {
                return Err(Problem::new("at-least", format!("must be at least {min}")).arg("min", min));
            }
            if let Some(max) = field.max.as_ref().and_then(Value::as_f64)
                && n > max
            {
                return Err(Problem::new("at-most", format!("must be at most {max}")).arg("max", max));
            }
            Ok(number)
        }
        FieldKind::FileUpload => match value {
            Value::String(s)
                if s.len() <= MAX_FILE_REF
                    && (s.starts_with("https://") || s.starts_with("http://"))
                    && !s.chars().any(char::is_whitespace) =>
            {
                Ok(value.clone())
            }
            _ => Err(Problem::new("file-url", "must be the URL of the uploaded file")),
        },
        FieldKind::SingleChoice | FieldKind::Dropdown => choice(field, value),
        FieldKind::MultipleChoice => choices(field, value),
        FieldKind::Rating | FieldKind::Scale => {
            let (lo, hi) = field.int_bounds();
            let n = match value {
                Value::Number(n) => n
                    .as_i64()
                    .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64)),
                Value::String(s) => s.trim().parse::<i64>().ok(),
                _ => None,
            };
            match n {
                Some(n) if (lo..=hi).contains(&n) => Ok(Value::from(n)),
                _ => Err(Problem::new(
                    "whole-number",
                    format!("must be a whole number from {lo} to {hi}"),
                )
                .arg("min", lo)
                .arg("max", hi)),
            }
        }
        FieldKind::Date => {
            let bound = |v: &Option<Value>| {
                v.as_ref()
                    .and_then(Value::as_str)
                    .and_then(crate::forms::parse_date)
            };
            let Some(date) = value
                .as_str()
                .and_then(|s| crate::forms::parse_date(s.trim()))
            else {
                return Err(Problem::new("date", "must be a date written YYYY-MM-DD"));
            };
            if bound(&field.min).is_some_and(|min| date < min) {
                let min = field.min.as_ref().and_then(Value::as_str).unwrap_or_default();
                return Err(
                    Problem::new("not-before", format!("must not be before {min}")).arg("date", min),
                );
            }
            if bound(&field.max).is_some_and(|max| date > max) {
                let max = field.max.as_ref().and_then(Value::as_str).unwrap_or_default();
                return Err(
                    Problem::new("not-after", format!("must not be after {max}")).arg("date", max),
                );
            }
            Ok(Value::String(date.format("%Y-%m-%d").to_string()))
        }
        FieldKind::Url => match value {
            Value::String(s) if is_web_url(s.trim()) => Ok(Value::String(s.trim().to_owned())),
            _ => Err(Problem::new(
                "url",
                format!("must be an http or https address, at most {MAX_URL} characters"),
            )
            .arg("max", MAX_URL)),
        },
        FieldKind::Phone => match value {
            Value::String(s) => e164(s).map(Value::String).ok_or_else(|| {
                Problem::new(
                    "phone",
                    "must be a phone number in international form, starting with + and the country code",
                )
            }),
            _ => Err(Problem::new("phone", "must be a phone number")),
        },
        FieldKind::Checkbox => {
            let ticked = match value {
                Value::Bool(b) => Some(*b),
                Value::String(s) => match s.trim() {
                    "true" | "on" => Some(true),
                    "false" => Some(false),
                    _ => None,
                },
                _ => None,
            };
            match ticked {
                Some(false) if field.required => Err(Problem::new("ticked", "must be ticked")),
                Some(b) => Ok(Value::Bool(b)),
                None => Err(Problem::new("not-bool", "must be true or false")),
            }
        }
        FieldKind::Hidden => text(MAX_HIDDEN),
        FieldKind::PageBreak => Err(Problem::new(
            "page-break",
            "is a page break, which takes no answer",
        )),
    }
}

/// The "other" text of a choice answer `{"other": text}`, trimmed, 1 to 500 characters.
fn other_text(field: &Field, value: &Value) -> Result<Value, Problem> {
    if !field.allow_other {
        return Err(Problem::new(
            "option",
            "must be one of the field's option ids",
        ));
    }
    let text = match value {
        Value::Object(o) if o.len() == 1 => o.get("other").and_then(Value::as_str),
        _ => None,
    };
    match text.map(str::trim) {
        Some(t) if !t.is_empty() && t.chars().count() <= MAX_OTHER_TEXT => {
            Ok(serde_json::json!({ "other": t }))
        }
        _ => Err(Problem::new(
            "other-text",
            format!(
                "must be an option id or {{\"other\": text}} with 1 to {MAX_OTHER_TEXT} characters"
            ),
        )
        .arg("max", MAX_OTHER_TEXT)),
    }
}

/// single_choice, dropdown: one option id, or "other" text when allowed.
fn choice(field: &Field, value: &Value) -> Result<Value, Problem> {
    match value {
        Value::String(id) if field.option_label(id.trim()).is_some() => {
            Ok(Value::String(id.trim().to_owned()))
        }
        Value::Object(_) => other_text(field, value),
        _ => Err(Problem::new(
            "option",
            "must be one of the field's option ids",
        )),
    }
}

/// multiple_choice: distinct option ids (stored in the options' order), at most one
/// "other" text (stored last), as many as min_selected..max_selected.
fn choices(field: &Field, value: &Value) -> Result<Value, Problem> {
    let Value::Array(items) = value else {
        return Err(Problem::new("options", "must be an array of option ids"));
    };
    let mut ticked = std::collections::HashSet::new();
    let mut other = None;
    for item in items {
        match item {
            Value::String(id) if field.option_label(id).is_some() => {
                if !ticked.insert(id.as_str()) {
                    return Err(Problem::new(
                        "options",
                        format!("lists option {id:?} twice"),
                    ));
                }
            }
            Value::Object(_) if other.is_none() => other = Some(other_text(field, item)?),
            Value::Object(_) => {
                return Err(Problem::new(
                    "options",
                    "has more than one \"other\" answer",
                ));
            }
            _ => {
                return Err(Problem::new(
                    "options",
                    "must be an array of the field's option ids",
                ));
            }
        }
    }
    let count = ticked.len() + usize::from(other.is_some());
    let min = field.min_selected.map_or(usize::from(field.required), |m| {
        usize::try_from(m).unwrap_or(0)
    });
    let max = field
        .max_selected
        .map_or(usize::MAX, |m| usize::try_from(m).unwrap_or(0));
    if count < min {
        return Err(
            Problem::new("tick-at-least", format!("must tick at least {min} options"))
                .arg("min", min),
        );
    }
    if count > max {
        return Err(
            Problem::new("tick-at-most", format!("must tick at most {max} options"))
                .arg("max", max),
        );
    }
    let mut out: Vec<Value> = field
        .options
        .iter()
        .filter(|o| ticked.contains(o.id.as_str()))
        .map(|o| Value::String(o.id.clone()))
        .collect();
    out.extend(other);
    Ok(Value::Array(out))
}

/// An absolute http(s) URL with a host, at most 2000 characters, without spaces.
fn is_web_url(s: &str) -> bool {
    s.len() <= MAX_URL
        && !s.chars().any(char::is_whitespace)
        && url::Url::parse(s).is_ok_and(|u| {
            matches!(u.scheme(), "http" | "https") && u.host_str().is_some_and(|h| !h.is_empty())
        })
}

/// A phone number in E.164 (`+` and digits), when `s` is a valid international number.
/// There is no default region: a number must start with `+` and its country code, since
/// a form has no reliable country to assume.
pub(crate) fn e164(s: &str) -> Option<String> {
    let s = s.trim();
    if !s.starts_with('+') || s.len() > 64 {
        return None;
    }
    let number = phonenumber::parse(None, s).ok()?;
    phonenumber::is_valid(&number)
        .then(|| number.format().mode(phonenumber::Mode::E164).to_string())
}

/// A pragmatic address check: one `@`, a non-empty local part without spaces, and a
/// domain of dot-separated labels of letters, digits and hyphens.
pub fn is_email(s: &str) -> bool {
    if s.len() > MAX_EMAIL {
        return false;
    }
    let Some((local, domain)) = s.rsplit_once('@') else {
        return false;
    };
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && !local.contains('@')
        && !local.chars().any(|c| c.is_whitespace() || c.is_control());
    let labels: Vec<&str> = domain.split('.').collect();
    let domain_ok = labels.len() >= 2
        && labels.iter().all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars().all(|c| c.is_alphanumeric() || c == '-')
        });
    local_ok && domain_ok
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
        assert_eq!(e164("+44 20 7946 0958").as_deref(), Some("+442079460958"));
        assert_eq!(e164("020 7946 0958"), None);
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
