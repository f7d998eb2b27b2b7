//! The rules of each kind's answer, one field at a time: what a required question
//! takes, and what each kind accepts and stores (an option's id, a number in its
//! bounds, a date, an address, a phone number in international form, a file's
//! reference), next to the kinds they belong to. `responses::TargetForm::validate`
//! applies them over a form; the conditions' checks (`logic`) read numbers and phones
//! the same way.

use super::{Field, FieldKind};
use crate::Problem;
use serde_json::Value;

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

pub(crate) fn is_blank(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        // No option ticked: unanswered (so refused when the field is required).
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// The rules of each field type; `Err` says what is wrong.
pub(crate) fn check_answer(field: &Field, value: &Value) -> Result<Value, Problem> {
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
                    .and_then(super::parse_date)
            };
            let Some(date) = value
                .as_str()
                .and_then(|s| super::parse_date(s.trim()))
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

#[cfg(test)]
mod tests {
    use super::e164;

    #[test]
    fn a_phone_is_kept_in_international_form_only() {
        assert_eq!(e164("+44 20 7946 0958").as_deref(), Some("+442079460958"));
        assert_eq!(e164("020 7946 0958"), None);
    }
}
