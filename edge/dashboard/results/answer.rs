//! An answer as a person reads it, from the form's definition (the core's `Form` over
//! gRPC): a choice by its option's label, "Other: …" for free text, Yes/No for a
//! checkbox, stars for a rating, a date written out, a file as a link with its name and
//! size. Pure presentation: the one place the results pages turn stored values into
//! words, so that the list, the detail and the unfinished tab agree.

use forms::pb;
use forms::pb::FieldKind;
use maud::{Markup, html};
use serde_json::Value;

/// Field kinds that are not questions (a page break starts a page): never a column,
/// never a "No answer" row.
pub(crate) fn is_question(field: &pb::FormField) -> bool {
    !field.is(FieldKind::PageBreak)
}

/// The label of option `id` of a choice field; an option removed since keeps no label,
/// and reads as "(a removed option)" rather than its id.
fn option_label(field: &pb::FormField, id: &str) -> String {
    field
        .options
        .iter()
        .find(|o| o.id == id)
        .map_or_else(|| "(a removed option)".to_owned(), |o| o.label.clone())
}

/// One picked choice: an option's label, or "Other: text".
fn choice(field: &pb::FormField, value: &Value) -> String {
    match value {
        Value::String(id) => option_label(field, id),
        Value::Object(o) => format!(
            "Other: {}",
            o.get("other").and_then(Value::as_str).unwrap_or_default()
        ),
        other => plain(other),
    }
}

/// A scalar as text, without JSON quoting.
fn plain(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Bool(true) => "Yes".to_owned(),
        Value::Bool(false) => "No".to_owned(),
        Value::Array(items) => items.iter().map(plain).collect::<Vec<_>>().join(", "),
        Value::Object(file) if file.contains_key("file_id") => file
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("a file")
            .to_owned(),
        other => other.to_string(),
    }
}

/// A `YYYY-MM-DD` answer written out: `31 Jan 2026` (unambiguous in every locale).
fn day(text: &str) -> String {
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map_or_else(|_| text.to_owned(), |d| d.format("%-d %b %Y").to_string())
}

/// Stars of a rating: `(given, of)`, `of` from the field's `max` (default 5).
fn stars(field: &pb::FormField, value: &Value) -> Option<(u64, u64)> {
    let given = value.as_f64()?.round().max(0.0) as u64;
    let of = field
        .max
        .as_ref()
        .and_then(|m| match &m.kind {
            Some(prost_types::value::Kind::NumberValue(n)) => Some(*n as u64),
            _ => None,
        })
        .unwrap_or(5)
        .clamp(1, 10);
    Some((given.min(of), of))
}

/// A file's size for people: `512 bytes`, `3.4 KB`, `1.2 MB`.
pub(crate) fn size_text(bytes: u64) -> String {
    match bytes {
        b if b < 1024 => format!("{b} bytes"),
        b if b < 1024 * 1024 => format!("{:.1} KB", b as f64 / 1024.0),
        b => format!("{:.1} MB", b as f64 / (1024.0 * 1024.0)),
    }
}

/// The answer as plain text (a cell's title, a search's words): what [`show`] draws.
pub(crate) fn text(field: &pb::FormField, value: &Value) -> String {
    match (field.kind(), value) {
        (_, Value::Null) => String::new(),
        (Some(FieldKind::SingleChoice | FieldKind::Dropdown), v) => choice(field, v),
        (Some(FieldKind::MultipleChoice), Value::Array(items)) => items
            .iter()
            .map(|v| choice(field, v))
            .collect::<Vec<_>>()
            .join(", "),
        (Some(FieldKind::Rating), v) => match stars(field, v) {
            Some((given, of)) => format!("{given} of {of} stars"),
            None => plain(v),
        },
        (Some(FieldKind::Date), Value::String(d)) => day(d),
        (_, Value::Object(file)) if file.contains_key("file_id") => {
            let name = plain(value);
            match file.get("size").and_then(Value::as_u64) {
                Some(size) => format!("{name} ({})", size_text(size)),
                None => name,
            }
        }
        (_, v) => plain(v),
    }
}

/// At most `max` characters of `text`, with an ellipsis when cut.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(max).collect();
    if chars.next().is_some() {
        format!("{}…", head.trim_end())
    } else {
        head
    }
}

/// The answer drawn: stars for a rating, a file as a download link (under `files`, the
/// response's address) with its size, text cut to `max` characters (`None`: whole, with
/// its line breaks); no answer is empty.
pub(crate) fn show(
    field: &pb::FormField,
    value: &Value,
    files: &str,
    max: Option<usize>,
) -> Markup {
    let cut = |t: String| max.map_or_else(|| t.clone(), |m| truncate(&t, m));
    match (field.kind(), value) {
        (_, Value::Null) => html! {},
        (Some(FieldKind::Rating), v) => match stars(field, v) {
            Some((given, of)) => {
                let drawn = "★".repeat(given as usize) + &"☆".repeat((of - given) as usize);
                html! { span class="stars" role="img" aria-label=(text(field, v)) { (drawn) } }
            }
            None => html! { span class="answer" { (cut(text(field, v))) } },
        },
        (_, Value::Object(file)) if file.contains_key("file_id") => file_link(file, files),
        (_, Value::Array(items))
            if items.iter().any(Value::is_object) && field.is(FieldKind::FileUpload) =>
        {
            html! {
                @for item in items {
                    @if let Value::Object(file) = item { (file_link(file, files)) " " }
                }
            }
        }
        (_, v) => html! { span class="answer" { (cut(text(field, v))) } },
    }
}

fn file_link(file: &serde_json::Map<String, Value>, files: &str) -> Markup {
    let id = file.get("file_id").and_then(Value::as_str).unwrap_or("");
    let name = file.get("name").and_then(Value::as_str).unwrap_or("a file");
    let size = file.get("size").and_then(Value::as_u64);
    html! {
        a href={(files) "/files/" (super::segment(id))} download { (name) }
        @if let Some(size) = size { " " span class="muted nowrap" { "(" (size_text(size)) ")" } }
    }
}

/// The title of page `n` (from 1) of a form: "Page 2: Your team" (a page break's label
/// titles the page it starts).
pub(crate) fn page_title(fields: &[pb::FormField], n: i32) -> String {
    let title = usize::try_from(n - 2)
        .ok()
        .and_then(|i| fields.iter().filter(|f| !is_question(f)).nth(i))
        .map(|f| f.label.trim().to_owned())
        .filter(|t| !t.is_empty());
    match title {
        Some(t) => format!("Page {n}: {t}"),
        None => format!("Page {n}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field(kind: &str) -> pb::FormField {
        pb::FormField {
            r#type: kind.to_owned(),
            label: "Q".to_owned(),
            options: vec![
                pb::FieldOption {
                    id: "opt_a".to_owned(),
                    label: "Search engine".to_owned(),
                },
                pb::FieldOption {
                    id: "opt_b".to_owned(),
                    label: "Newsletter".to_owned(),
                },
            ],
            ..Default::default()
        }
    }

    #[test]
    fn choices_read_as_their_labels_and_other_as_its_text() {
        let one = field("single_choice");
        assert_eq!(text(&one, &json!("opt_b")), "Newsletter");
        assert_eq!(
            text(&one, &json!({"other": "Hacker News"})),
            "Other: Hacker News"
        );
        assert_eq!(text(&one, &json!("opt_gone")), "(a removed option)");
        let many = field("multiple_choice");
        assert_eq!(
            text(&many, &json!(["opt_a", "opt_b"])),
            "Search engine, Newsletter"
        );
        assert_eq!(text(&field("dropdown"), &json!("opt_a")), "Search engine");
    }

    #[test]
    fn booleans_dates_ratings_and_files_read_as_people_write_them() {
        assert_eq!(text(&field("checkbox"), &json!(true)), "Yes");
        assert_eq!(text(&field("checkbox"), &json!(false)), "No");
        assert_eq!(text(&field("date"), &json!("2024-03-05")), "5 Mar 2024");
        assert_eq!(text(&field("date"), &json!("soon")), "soon");
        assert_eq!(text(&field("rating"), &json!(4)), "4 of 5 stars");
        let stars = show(&field("rating"), &json!(4), "/r", None).into_string();
        assert!(stars.contains("★★★★☆"), "{stars}");
        assert!(stars.contains("aria-label=\"4 of 5 stars\""), "{stars}");
        let file = json!({"file_id": "f1", "name": "cv.pdf", "size": 2048});
        assert_eq!(text(&field("file_upload"), &file), "cv.pdf (2.0 KB)");
        let link = show(&field("file_upload"), &file, "/r/1", None).into_string();
        assert!(link.contains("href=\"/r/1/files/f1\""), "{link}");
        assert!(
            link.contains(">cv.pdf</a>") && link.contains("(2.0 KB)"),
            "{link}"
        );
        assert_eq!(text(&field("number"), &json!(4.5)), "4.5");
        assert_eq!(text(&field("short_text"), &Value::Null), "");
        assert_eq!(
            show(&field("short_text"), &Value::Null, "/r", None).into_string(),
            ""
        );
    }

    #[test]
    fn long_text_is_cut_with_an_ellipsis() {
        let long = "é".repeat(100);
        assert_eq!(truncate(&long, 80).chars().count(), 81);
        assert_eq!(truncate("short", 80), "short");
        assert_eq!(size_text(10), "10 bytes");
        assert_eq!(size_text(3 * 1024 * 1024), "3.0 MB");
    }

    #[test]
    fn pages_are_titled_by_the_page_break_that_starts_them() {
        let mut first = field("page_break");
        first.label = "Your team".to_owned();
        let fields = vec![field("short_text"), first, field("short_text")];
        assert_eq!(page_title(&fields, 1), "Page 1");
        assert_eq!(page_title(&fields, 2), "Page 2: Your team");
        assert_eq!(page_title(&fields, 3), "Page 3");
        assert!(is_question(&fields[0]) && !is_question(&fields[1]));
    }
}
