//! Recall (issue 32 §3): a text the owner writes (a later page's label, the
//! confirmation message, the redirect, the confirmation mail) may name an earlier
//! answer as `{{ref}}`, `ref` being a field's `ref`. These functions only substitute
//! text: which answers a text may recall (those of earlier pages on the page, all of
//! them after submitting) is the caller's to decide, and so is escaping where the text
//! goes (maud escapes a page's text, the mail its HTML; a redirect takes
//! `recall_in_url`, which percent-encodes).
//!
//! Substitution is one pass over the owner's text: an answer that itself contains
//! `{{x}}` is never read as a recall. A `{{name}}` that names no field is left as typed
//! (it may be the owner's own braces); a field with no answer (skipped, or not earlier)
//! recalls nothing.

use serde_json::Value;

/// Longest ref a recall names (a field's `ref` is at most 64 characters).
const MAX_REF: usize = 64;

/// Whether `text` may recall anything (a cheap test before any work).
pub fn has_recall(text: &str) -> bool {
    text.contains("{{")
}

/// The refs `text` recalls, in order (repeats included).
pub fn refs(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    scan(text, |piece| {
        if let Piece::Recall(name, _) = piece {
            out.push(name);
        }
    });
    out
}

/// `text` with each `{{ref}}` replaced by `value(ref)`: `Some(answer)` (empty when the
/// field has no answer to recall), or `None` for a name that is no field's (kept as
/// typed).
pub fn recall(text: &str, mut value: impl FnMut(&str) -> Option<String>) -> String {
    if !has_recall(text) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    scan(text, |piece| match piece {
        Piece::Text(t) => out.push_str(t),
        Piece::Recall(name, raw) => match value(name) {
            Some(answer) => out.push_str(&answer),
            None => out.push_str(raw),
        },
    });
    out
}

/// A redirect URL with its recalls percent-encoded (every byte but the unreserved
/// ones), so that an answer never adds a path segment, a query parameter or a host.
/// `None` when the recalls would change the URL's scheme, host or port (a recall in
/// the authority): a respondent's answer never chooses where they are sent.
pub fn recall_in_url(url: &str, value: impl FnMut(&str) -> Option<String>) -> Option<String> {
    if !has_recall(url) {
        return Some(url.to_owned());
    }
    if !recalls_after_host(url) {
        return None;
    }
    let mut value = value;
    Some(recall(url, |name| {
        value(name).map(|answer| encode(&answer))
    }))
}

/// Whether every recall of `url` stands after its host (in the path, the query or the
/// fragment): the URL names the same scheme, host and port whatever is recalled.
pub fn recalls_after_host(url: &str) -> bool {
    let with = |fill: &str| {
        let filled = recall(url, |_| Some(fill.to_owned()));
        url::Url::parse(&filled).ok().map(|u| {
            (
                u.scheme().to_owned(),
                u.host_str().map(str::to_owned),
                u.port(),
            )
        })
    };
    match (with("a"), with("b")) {
        (Some(a), Some(b)) => a == b && a.1.is_some(),
        _ => false,
    }
}

fn encode(answer: &str) -> String {
    const KEEP: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    percent_encoding::utf8_percent_encode(answer, KEEP).to_string()
}

/// An answer as the respondent would read it: an option by its label (`label(id)`,
/// in their language), several joined by commas, an "Other" by its text, a file by
/// its name, a checkbox as `yes` or `no` (in their language), numbers as written.
pub fn answer_text(
    value: &Value,
    label: &dyn Fn(&str) -> Option<String>,
    (yes, no): (&str, &str),
) -> String {
    match value {
        Value::Null => String::new(),
        Value::Bool(true) => yes.to_owned(),
        Value::Bool(false) => no.to_owned(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => label(s).unwrap_or_else(|| s.clone()),
        Value::Array(items) => items
            .iter()
            .map(|item| answer_text(item, label, (yes, no)))
            .collect::<Vec<_>>()
            .join(", "),
        Value::Object(o) => o
            .get("other")
            .or_else(|| o.get("name"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
    }
}

enum Piece<'a> {
    Text(&'a str),
    /// The ref named, and the recall as typed.
    Recall(&'a str, &'a str),
}

/// Splits `text` into plain text and recalls: `{{`, optional spaces, a ref (letters,
/// digits, `_`, `-`), optional spaces, `}}`. Anything else is text.
fn scan<'a>(text: &'a str, mut emit: impl FnMut(Piece<'a>)) {
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            break;
        };
        let name = after[..end].trim_matches(' ');
        let is_ref = !name.is_empty()
            && name.len() <= MAX_REF
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if is_ref {
            emit(Piece::Text(&rest[..start]));
            emit(Piece::Recall(name, &rest[start..start + 2 + end + 2]));
            rest = &after[end + 2..];
        } else {
            // Not a recall: its first brace is text, and scanning goes on after it.
            emit(Piece::Text(&rest[..start + 1]));
            rest = &rest[start + 1..];
        }
    }
    emit(Piece::Text(rest));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answers(name: &str) -> Option<String> {
        match name {
            "name" => Some("<b>x</b> {{city}}".to_owned()),
            "city" => Some("Köln & Bonn/?a=1".to_owned()),
            "skipped" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn recalls_once_keeps_unknown_names_and_odd_braces() {
        assert_eq!(
            recall("Hi {{name}}, from {{ city }}?", answers),
            "Hi <b>x</b> {{city}}, from Köln & Bonn/?a=1?"
        );
        assert_eq!(recall("{{nobody}} {{skipped}}.", answers), "{{nobody}} .");
        assert_eq!(
            recall("a {{ b c }} {{{name}}}", answers),
            "a {{ b c }} {<b>x</b> {{city}}}"
        );
        assert_eq!(recall("open {{name", answers), "open {{name");
        assert_eq!(refs("{{a}} and {{b-2}} {{a}}"), ["a", "b-2", "a"]);
    }

    #[test]
    fn a_redirect_encodes_answers_and_refuses_recalls_in_its_host() {
        assert_eq!(
            recall_in_url("https://example.com/t?city={{city}}", answers).as_deref(),
            Some("https://example.com/t?city=K%C3%B6ln%20%26%20Bonn%2F%3Fa%3D1")
        );
        assert!(recall_in_url("https://{{city}}.example.com/", answers).is_none());
        assert!(recall_in_url("https://example.com:{{n}}/", |_| Some("1".into())).is_none());
        assert!(!recalls_after_host("https://{{a}}/x"));
        assert!(recalls_after_host("https://example.com/{{a}}#{{b}}"));
    }

    #[test]
    fn answers_read_as_the_respondent_sees_them() {
        let label = |id: &str| (id == "red").then(|| "Rot".to_owned());
        let words = ("ja", "nein");
        assert_eq!(answer_text(&json!("red"), &label, words), "Rot");
        assert_eq!(
            answer_text(&json!(["red", {"other": "Lila"}]), &label, words),
            "Rot, Lila"
        );
        assert_eq!(answer_text(&json!(true), &label, words), "ja");
        assert_eq!(answer_text(&json!(4.5), &label, words), "4.5");
        assert_eq!(
            answer_text(&json!({"file_id": "f", "name": "cv.pdf"}), &label, words),
            "cv.pdf"
        );
    }
}
