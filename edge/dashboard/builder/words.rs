//! The builder's words for what happened: the notice after a change (`?done=`), and the
//! core's refusals rewritten in the page's terms (`fields[2].label` is "Question 3:
//! label", an operator's name is its words, a kind's name its label).

use super::conditions::op_words;
use super::kinds::KINDS;

/// What `?done=` says after a change; nothing else is ever shown.
pub(super) fn done_text(done: Option<&str>) -> Option<&'static str> {
    Some(match done? {
        "created" => "The form was created. Add its questions below.",
        "saved" => "The title and description were saved.",
        "field-added" => "The question was added.",
        "field-saved" => "The question was saved.",
        "field-moved" => "The question was moved.",
        "field-duplicated" => "The question was duplicated: the copy is below it.",
        "field-removed" => "The question was deleted.",
        "conditions-saved" => "The conditions were saved.",
        "settings" => "The settings were saved.",
        "language-default" => "The default language was saved.",
        "language-removed" => "The language was removed, with its texts.",
        "design" => "The design was saved: the form's page shows it.",
        "logo" => "The logo was saved: the form's page shows it above the title.",
        "logo-removed" => "The logo was removed.",
        "published" => "The form is published: it accepts responses.",
        "closed" => "The form is closed: it no longer accepts responses.",
        "reopened" => "The form is open again.",
        "archived" => "The form is archived.",
        "drafted" => "The form is back to draft: it no longer accepts responses.",
        _ => return None,
    })
}

/// Core messages in the builder's words: `fields[2].label` is "Field 3: label",
/// `settings.max_responses` is "Response cap", `greater_than` is "is more than".
pub(crate) fn humane(message: &str) -> String {
    let mut text = message.to_owned();
    for (key, name) in [
        ("settings.confirmation_message", "Confirmation message"),
        ("settings.redirect_url", "Redirect URL"),
        ("settings.notifications_enabled", "Notifications"),
        ("settings.proof_of_work", "Proof-of-work check"),
        ("settings.one_question_at_a_time", "One question at a time"),
        ("settings.closes_at", "Closing date"),
        ("settings.max_responses", "Response cap"),
        ("settings.allowed_origins", "Allowed origins"),
    ] {
        text = text.replace(key, name);
    }
    text = operators(&text);
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("fields[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "fields[".len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        match (
            after[..digits].parse::<usize>(),
            after[digits..].strip_prefix(']'),
        ) {
            (Ok(i), Some(tail)) => {
                out.push_str(&format!("Field {}", i + 1));
                rest = match tail.strip_prefix('.') {
                    Some(tail) => {
                        out.push_str(": ");
                        tail
                    }
                    None => tail,
                };
            }
            _ => {
                out.push_str("fields[");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    conditions_humane(&out)
}

/// "op greater_than does not apply to short_text fields" is "“is more than” does not
/// apply to Short text questions".
fn operators(text: &str) -> String {
    let mut text = text.to_owned();
    if let Some(at) = text.find(" does not apply to ") {
        let (head, tail) = text.split_at(at);
        let head = match head.rsplit_once("op ") {
            Some((before, op)) => format!("{before}“{}”", op_words(op, None)),
            None => head.to_owned(),
        };
        let mut tail = tail.to_owned();
        for kind in KINDS {
            tail = tail.replace(
                &format!(" {} fields", kind.name()),
                &format!(" {} questions", kind.label),
            );
        }
        text = format!("{head}{tail}");
    }
    text
}

/// `show_if[1].value` is "condition 2: value"; `show_if:` is "conditions:".
fn conditions_humane(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("show_if") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "show_if".len()..];
        let index = after.strip_prefix('[').and_then(|tail| {
            let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
            let n = tail[..digits].parse::<usize>().ok()?;
            tail[digits..].strip_prefix(']').map(|tail| (n, tail))
        });
        match index {
            Some((n, tail)) => {
                out.push_str(&format!("condition {}", n + 1));
                rest = match tail.strip_prefix('.') {
                    Some(tail) => {
                        out.push_str(": ");
                        tail
                    }
                    None => tail,
                };
            }
            None => {
                out.push_str("conditions");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_messages_name_fields_and_settings_as_the_page_does() {
        assert_eq!(
            humane("fields[2].label is required"),
            "Field 3: label is required"
        );
        assert_eq!(
            humane("settings.max_responses: must be a positive integer or null"),
            "Response cap: must be a positive integer or null"
        );
        assert_eq!(humane("fields[x] and fields[10]"), "fields[x] and Field 11");
        assert_eq!(
            humane("fields[4].show_if[0].field is not a field of this form"),
            "Field 5: condition 1: field is not a field of this form"
        );
        assert_eq!(
            humane("fields[2].show_if: the conditions on \"A\" can never all hold"),
            "Field 3: conditions: the conditions on \"A\" can never all hold"
        );
        assert_eq!(
            humane("fields[3].show_if[0].op greater_than does not apply to short_text fields"),
            "Field 4: condition 1: “is more than” does not apply to Short text questions"
        );
    }
}
