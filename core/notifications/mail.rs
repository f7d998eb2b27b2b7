//! The mail a form owner gets for a new response: the form's title, when it was
//! submitted, and each answer under its field's label, as plain text and as HTML.
//! Everything in it comes from respondents or form authors, so the HTML escapes every
//! piece of it and the subject is kept to one line. Nothing else of the service goes in
//! (no keys, no webhook secrets, no respondent metadata).

use crate::forms::{Field, FieldKind};
use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Map, Value};
use std::fmt::Write;

/// What a notification says, before it is put in an envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rendered {
    pub subject: String,
    pub text: String,
    pub html: String,
}

/// One line of the mail: a label and the answer as text.
struct Line {
    label: String,
    answer: String,
}

/// Renders the mail of response `response_id` to the form `title` with `fields`.
pub(crate) fn render(
    title: &str,
    fields: &[Field],
    answers: &Map<String, Value>,
    submitted_at: DateTime<Utc>,
    response_id: uuid::Uuid,
) -> Rendered {
    let title = one_line(title);
    let when = submitted_at.to_rfc3339_opts(SecondsFormat::Secs, true);
    let lines = lines(fields, answers);
    let mut text = format!("New response to \"{title}\", submitted {when}.\n\n");
    for line in &lines {
        // Continuation lines are indented so a multi-line answer stays under its label.
        let answer = line.answer.replace('\n', "\n    ");
        let _ = writeln!(text, "{}:\n    {answer}\n", line.label);
    }
    let _ = writeln!(text, "Response id: {response_id}");
    let mut html = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{t}</title></head><body>\n\
         <p>New response to <strong>{t}</strong>, submitted {w}.</p>\n<table>\n",
        t = escape(&title),
        w = escape(&when)
    );
    for line in &lines {
        let _ = writeln!(
            html,
            "<tr><th align=\"left\" valign=\"top\">{}</th><td style=\"white-space:pre-wrap\">{}</td></tr>",
            escape(&line.label),
            escape(&line.answer)
        );
    }
    let _ = write!(
        html,
        "</table>\n<p>Response id: {}</p>\n</body></html>\n",
        escape(&response_id.to_string())
    );
    Rendered {
        subject: format!("New response: {}", truncate(&title, 150)),
        text,
        html,
    }
}

/// The form's fields in order, then answers whose field was removed since (by id).
fn lines(fields: &[Field], answers: &Map<String, Value>) -> Vec<Line> {
    let mut out: Vec<Line> = fields
        .iter()
        .map(|field| Line {
            label: field.label.clone(),
            answer: answers
                .get(&field.id.to_string())
                .map_or_else(|| "(no answer)".to_owned(), |v| answer_text(field, v)),
        })
        .collect();
    for (id, value) in answers {
        if !fields.iter().any(|f| f.id.to_string() == *id) {
            out.push(Line {
                label: format!("(removed field {id})"),
                answer: plain(value),
            });
        }
    }
    out
}

/// An answer as text: a stored file by its name (the file itself is not attached).
fn answer_text(field: &Field, value: &Value) -> String {
    if field.kind == FieldKind::FileUpload
        && let Some(name) = value.get("name").and_then(Value::as_str)
    {
        return format!("{name} (file)");
    }
    plain(value)
}

fn plain(value: &Value) -> String {
    match value {
        Value::Null => "(no answer)".to_owned(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Control characters (CR and LF included) become spaces: a title never adds a header.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn truncate(s: &str, max_chars: usize) -> String {
    match s.char_indices().nth(max_chars) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_owned(),
    }
}

/// HTML text and attribute escaping.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use uuid::Uuid;

    fn field(kind: &str, label: &str) -> Field {
        serde_json::from_value(json!({
            "id": Uuid::new_v4(), "type": kind, "label": label, "required": false
        }))
        .expect("field")
    }

    #[test]
    fn answers_by_label_with_files_as_names_and_html_escaped() {
        let name = field("short_text", "Name <b>");
        let cv = field("file_upload", "CV");
        let skipped = field("long_text", "Notes");
        let mut answers = Map::new();
        answers.insert(name.id.to_string(), json!("<script>alert(1)</script> & co"));
        answers.insert(
            cv.id.to_string(),
            json!({"file_id": "f", "name": "cv\".pdf", "size": 3, "content_type": "application/pdf"}),
        );
        let at = DateTime::parse_from_rfc3339("2026-11-05T10:00:00Z")
            .expect("time")
            .with_timezone(&Utc);
        let id = Uuid::new_v4();
        let mail = render(
            "Contact\r\nBcc: x@example.com",
            &[name, cv, skipped],
            &answers,
            at,
            id,
        );
        assert!(!mail.subject.contains('\n') && !mail.subject.contains('\r'));
        assert!(
            mail.text
                .contains("Name <b>:\n    <script>alert(1)</script> & co")
        );
        assert!(mail.text.contains("CV:\n    cv\".pdf (file)"));
        assert!(mail.text.contains("Notes:\n    (no answer)"));
        assert!(mail.text.contains("2026-11-05T10:00:00Z") && mail.text.contains(&id.to_string()));
        assert!(!mail.html.contains("<script>") && !mail.html.contains("<b>"));
        assert!(
            mail.html
                .contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; co")
        );
        assert!(mail.html.contains("cv&quot;.pdf (file)"));
        assert!(!mail.text.contains("file_id"));
    }
}
