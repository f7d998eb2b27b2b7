//! The confirmation mail as the respondent reads it, in their language: the owner's
//! subject and text with recalls filled, the answers by label, and the line saying why
//! it came. Everything in it is the owner's or the respondent's, so the HTML escapes
//! every piece and the subject is kept to one line.

use super::mail::{Rendered, escape};
use crate::forms::confirmation::ConfirmationMail;
use crate::forms::reading::Reading;
use std::fmt::Write;

/// Renders `mail` of the form `title` for the response `reading` reads.
pub(crate) fn render(title: &str, mail: &ConfirmationMail, reading: &Reading<'_>) -> Rendered {
    let translated = reading
        .translation()
        .and_then(|t| t.confirmation_mail.as_ref());
    let subject = translated
        .and_then(|t| t.subject.as_deref())
        .unwrap_or(&mail.subject);
    let text = translated
        .and_then(|t| t.text.as_deref())
        .unwrap_or(&mail.text);
    let title = reading
        .translation()
        .and_then(|t| t.title.as_deref())
        .unwrap_or(title);
    let subject: String = reading
        .recall(subject)
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(250)
        .collect();
    let text = reading.recall(text);
    let words = &reading.words;
    let heading = words.get("answers-heading");
    let why = words.with("why", &[("form", title)]);
    let lines = reading.lines();

    let mut plain = format!("{}\n\n{heading}:\n\n", text.trim_end());
    for (label, answer) in &lines {
        let answer = answer.replace('\n', "\n    ");
        let _ = writeln!(plain, "{label}:\n    {answer}\n");
    }
    // A line of its own after the answers (not "-- ", which some readers fold away).
    let _ = writeln!(plain, "\n{why}");

    let dir = if reading.tag == "ar" { "rtl" } else { "ltr" };
    let mut html = format!(
        "<!DOCTYPE html>\n<html lang=\"{tag}\" dir=\"{dir}\"><head><meta charset=\"utf-8\"><title>{s}</title></head><body>\n\
         <p style=\"white-space:pre-wrap\">{t}</p>\n<h2>{h}</h2>\n<table>\n",
        tag = escape(&reading.tag),
        s = escape(&subject),
        t = escape(text.trim_end()),
        h = escape(&heading),
    );
    for (label, answer) in &lines {
        let _ = writeln!(
            html,
            "<tr><th valign=\"top\" style=\"text-align:start\">{}</th><td style=\"white-space:pre-wrap\">{}</td></tr>",
            escape(label),
            escape(answer)
        );
    }
    let _ = write!(
        html,
        "</table>\n<hr>\n<p><small>{}</small></p>\n</body></html>\n",
        escape(&why)
    );
    Rendered {
        subject,
        text: plain,
        html,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forms::languages::translations_from_json;
    use crate::forms::{Field, FieldKind, Languages};
    use serde_json::{Map, json};
    use uuid::Uuid;

    #[test]
    fn german_with_recalls_escaped_and_the_reason() {
        let name = Field {
            id: Uuid::new_v4(),
            kind: FieldKind::ShortText,
            label: "Name".into(),
            r#ref: Some("name".into()),
            ..Field::default()
        };
        let id = name.id.to_string();
        let languages = Languages {
            default: "en".into(),
            translations: translations_from_json(json!({"de": {
                "title": "Kontakt",
                "fields": {id.clone(): {"label": "Ihr Name"}},
                "confirmation_mail": {"subject": "Danke, {{name}}\r\nBcc: x@example.com"}
            }}))
            .expect("shape"),
        };
        let mut answers = Map::new();
        answers.insert(id, json!("<b>Ada</b>"));
        let fields = [name];
        let reading = Reading::new(&fields, &languages, &answers, Some("de"));
        let mail = ConfirmationMail {
            field_id: None,
            field_ref: None,
            subject: "Thanks".into(),
            text: "Hallo {{name}}!".into(),
        };
        let out = render("Contact", &mail, &reading);
        assert_eq!(out.subject, "Danke, <b>Ada</b>  Bcc: x@example.com");
        assert!(
            out.text
                .starts_with("Hallo <b>Ada</b>!\n\nIhre Antworten:\n\nIhr Name:\n    <b>Ada</b>")
        );
        assert!(out.text.contains("„Kontakt“"), "{}", out.text);
        assert!(out.html.contains("Hallo &lt;b&gt;Ada&lt;/b&gt;!") && !out.html.contains("<b>"));
    }
}
