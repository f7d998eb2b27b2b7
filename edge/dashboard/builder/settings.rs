//! The form's settings (confirmation, redirect, notifications, robots, closing date,
//! response cap, allowed origins): their fold on the page, and their post, read into
//! the core's keys (an empty box clears its key).

use super::{after, form_id, refused, settings_of, update};
use crate::dashboard::layout::csrf;
use crate::dashboard::owner::{Owner, Posted};
use crate::http::site::Origin;
use axum::extract::Path;
use axum::response::Response;
use chrono::{DateTime, NaiveDateTime, Utc};
use forms::pb::{self, convert};
use maud::{Markup, html};
use serde::Deserialize;
use serde_json::{Map, Value};

/// The moment the form stops taking responses by its settings, if it is set.
pub(super) fn closes_at(form: &pb::Form) -> Option<DateTime<Utc>> {
    let settings = settings_of(form);
    settings
        .get("closes_at")
        .and_then(Value::as_str)
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|at| at.with_timezone(&Utc))
}

pub(super) fn section(owner: &Owner, form: &pb::Form, base: &str, mail: Option<&str>) -> Markup {
    let settings = settings_of(form);
    let text = |key: &str| {
        settings
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let closes = closes_at(form)
        .map(|at| at.format("%Y-%m-%dT%H:%M").to_string())
        .unwrap_or_default();
    let closes_utc = closes_at(form).map(convert::rfc3339).unwrap_or_default();
    let cap = settings
        .get("max_responses")
        .and_then(Value::as_u64)
        .map(|n| n.to_string())
        .unwrap_or_default();
    let retention = form
        .retention_days
        .map(|d| d.to_string())
        .unwrap_or_default();
    let notify = settings.get("notifications_enabled") == Some(&Value::Bool(true));
    let pow = settings.get("proof_of_work") == Some(&Value::Bool(true));
    let score = settings.get("show_quiz_score") == Some(&Value::Bool(true));
    let steps = settings.get("one_question_at_a_time") == Some(&Value::Bool(true));
    let quiz = form.fields.iter().any(|f| f.correct_answer.is_some());
    let confirm = settings.get("confirmation_mail").and_then(Value::as_object);
    let confirm_text = |key: &str| {
        confirm
            .and_then(|c| c.get(key))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let confirm_field = confirm_text("field_id");
    let emails: Vec<&pb::FormField> = form
        .fields
        .iter()
        .filter(|f| f.is(pb::FieldKind::Email))
        .collect();
    let origins = settings
        .get("allowed_origins")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    html! {
        details class="fold" id="settings" {
            summary { h2 { "Settings" } }
            form method="post" action={(base) "/settings"} {
                (csrf(&owner.session))
                p class="muted" id="settings-hint" { "Leave a box empty to clear that setting." }
                label for="s-confirmation" { "Confirmation message" }
                textarea id="s-confirmation" name="confirmation_message" maxlength="5000" aria-describedby="settings-hint" { (text("confirmation_message")) }
                label for="s-redirect" { "Redirect after submitting " span class="muted" { "(an http or https URL; replaces the message)" } }
                input id="s-redirect" name="redirect_url" type="url" maxlength="2048" value=(text("redirect_url"));
                fieldset {
                    legend { "Notifications" }
                    label class="inline" {
                        input type="checkbox" name="notifications_enabled" value="on" aria-describedby="s-notify-hint" checked[notify];
                        "Email me each new response"
                    }
                    @if let Some(warning) = mail {
                        p class="warning" id="s-notify-hint" { (warning) " " a href="/app/account#notifications" { "Notification settings" } }
                    } @else {
                        p class="muted hint" id="s-notify-hint" { "Mailed to the address on your " a href="/app/account#notifications" { "account page" } "." }
                    }
                }
                fieldset {
                    legend { "Confirmation mail to the respondent" }
                    @if emails.is_empty() {
                        p class="muted hint" { "Add an email question to mail respondents a copy of their answers." }
                    } @else {
                        label for="s-cm-field" { "Send to the address given in" }
                        select id="s-cm-field" name="confirmation_field" aria-describedby="s-cm-hint" {
                            option value="" selected[confirm_field.is_empty()] { "No confirmation mail" }
                            @for field in &emails {
                                option value=(field.id) selected[field.id == confirm_field] { (field.label) }
                            }
                        }
                        label for="s-cm-subject" { "Subject" }
                        input id="s-cm-subject" name="confirmation_subject" type="text" maxlength="200" value=(confirm_text("subject"));
                        label for="s-cm-text" { "Text " span class="muted" { "(above the answers, which the mail lists by question)" } }
                        textarea id="s-cm-text" name="confirmation_text" rows="4" maxlength="5000" { (confirm_text("text")) }
                        p class="muted hint" id="s-cm-hint" {
                            "Write {{reference}} to recall an answer, e.g. “Thank you, {{name}}”, for a question whose reference is name. "
                            "Replies go to your notification address. Each address gets at most 10 such mails a day, whatever the form; robots' submissions get none."
                        }
                    }
                }
                fieldset {
                    legend { "Pace" }
                    label class="inline" {
                        input type="checkbox" name="one_question_at_a_time" value="on" aria-describedby="s-steps-hint" checked[steps];
                        "One question at a time"
                    }
                    p class="muted hint" id="s-steps-hint" {
                        "Each question is its own step with a progress bar; Enter continues. Without JavaScript each step is a page."
                    }
                }
                fieldset {
                    legend { "Quiz" }
                    label class="inline" {
                        input type="checkbox" name="show_quiz_score" value="on" aria-describedby="s-score-hint" checked[score];
                        "Show respondents their score after submitting"
                    }
                    p class="muted hint" id="s-score-hint" {
                        @if quiz { "Scored by the correct answers and points set on the questions." }
                        @else { "Set a correct answer on a question (in its Quiz fold) to make the form a quiz." }
                    }
                }
                fieldset {
                    legend { "Robots" }
                    label class="inline" {
                        input type="checkbox" name="proof_of_work" value="on" aria-describedby="s-pow-hint" checked[pow];
                        "Require a proof-of-work check (stops robots without a third party)"
                    }
                    p class="muted" id="s-pow-hint" {
                        "The visitor's browser solves a small puzzle while they type (well under a second); the form page then needs JavaScript to be sent."
                    }
                }
                label for="s-closes" { "Closing date and time " span class="muted" { "(no response is accepted from then on)" } }
                // In UTC without script; with it (app.js), on the owner's own clock,
                // which is how they think of "Friday at 6 pm", with the zone named.
                p class="muted hint" id="s-closes-zone" { "The date and time are in UTC (Coordinated Universal Time)." }
                input id="s-closes" name="closes_at" type="datetime-local" value=(closes)
                    data-utc=(closes_utc) data-zone-note="s-closes-zone" aria-describedby="s-closes-zone";
                input type="hidden" name="closes_offset" value="" data-zone-offset;
                label for="s-cap" { "Response cap " span class="muted" { "(the form closes when it holds this many responses)" } }
                input id="s-cap" name="max_responses" type="number" min="1" step="1" inputmode="numeric" value=(cap);
                label for="s-retention" { "Keep responses for (days) " span class="muted" { "— older ones are deleted automatically with their files; empty: kept until you delete them" } }
                input id="s-retention" name="retention_days" type="number" min="1" max="36500" step="1" inputmode="numeric" value=(retention);
                label for="s-origins" { "Allowed origins (one per line) " span class="muted" { "— accept posts from your own site's HTML form, e.g. https://www.example.com" } }
                textarea id="s-origins" name="allowed_origins" rows="3" spellcheck="false" autocapitalize="off" { (origins) }
                div class="actions" { button type="submit" { "Save settings" } }
            }
        }
    }
}

#[derive(Deserialize)]
pub(crate) struct SettingsForm {
    #[serde(default)]
    confirmation_message: String,
    #[serde(default)]
    redirect_url: String,
    notifications_enabled: Option<String>,
    proof_of_work: Option<String>,
    #[serde(default)]
    closes_at: String,
    /// Minutes east of UTC of the zone the closing date was typed in, for that date
    /// (the page's script sends it); empty: typed in UTC.
    #[serde(default)]
    closes_offset: String,
    #[serde(default)]
    max_responses: String,
    /// One origin a line; the core checks and normalises them.
    #[serde(default)]
    allowed_origins: String,
    /// Days responses are kept; empty (or absent, as every box): until deleted.
    #[serde(default)]
    retention_days: String,
    show_quiz_score: Option<String>,
    one_question_at_a_time: Option<String>,
    /// The email field whose address gets the confirmation mail (empty: no mail);
    /// absent from a form without email fields, whose post leaves the setting alone.
    confirmation_field: Option<String>,
    #[serde(default)]
    confirmation_subject: String,
    #[serde(default)]
    confirmation_text: String,
}

/// The posted retention; `None` keeps responses until deleted.
fn retention_from(posted: &SettingsForm) -> Result<Option<i32>, &'static str> {
    let days = posted.retention_days.trim();
    if days.is_empty() {
        return Ok(None);
    }
    days.parse::<i32>()
        .map(Some)
        .map_err(|_| "Keep responses for: write a whole number of days, or leave it empty.")
}

/// The posted settings as the core's keys; an empty box clears its key. Values that
/// are not even of the right shape are a problem to fix; the core checks the rest.
fn settings_from(posted: &SettingsForm) -> Result<Map<String, Value>, &'static str> {
    let mut settings = Map::new();
    let message = posted.confirmation_message.trim();
    // The core wants a string here: an empty one is the default message.
    settings.insert(
        "confirmation_message".into(),
        Value::String(message.to_owned()),
    );
    let url = posted.redirect_url.trim();
    settings.insert(
        "redirect_url".into(),
        if url.is_empty() {
            Value::Null
        } else {
            Value::String(url.to_owned())
        },
    );
    settings.insert(
        "notifications_enabled".into(),
        Value::Bool(posted.notifications_enabled.is_some()),
    );
    settings.insert(
        "proof_of_work".into(),
        Value::Bool(posted.proof_of_work.is_some()),
    );
    let closes = posted.closes_at.trim();
    let closes = if closes.is_empty() {
        Value::Null
    } else {
        let at = NaiveDateTime::parse_from_str(closes, "%Y-%m-%dT%H:%M")
            .or_else(|_| NaiveDateTime::parse_from_str(closes, "%Y-%m-%dT%H:%M:%S"))
            .map_err(|_| "Closing date: give a date and time such as 2030-12-31 18:00.")?;
        let offset = match posted.closes_offset.trim() {
            "" => 0,
            minutes => minutes
                .parse::<i64>()
                .ok()
                .filter(|m| m.abs() <= 18 * 60)
                .ok_or("Closing date: your time zone could not be read. Reload the page and try again.")?,
        };
        Value::String(convert::rfc3339(
            at.and_utc() - chrono::Duration::minutes(offset),
        ))
    };
    settings.insert("closes_at".into(), closes);
    let cap = posted.max_responses.trim();
    let cap =
        if cap.is_empty() {
            Value::Null
        } else {
            Value::from(cap.parse::<i64>().map_err(
                |_| "Response cap: write a whole number of at least 1, or leave it empty.",
            )?)
        };
    settings.insert("max_responses".into(), cap);
    let origins: Vec<Value> = posted
        .allowed_origins
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(|line| Value::String(line.to_owned()))
        .collect();
    let origins = if origins.is_empty() {
        Value::Null
    } else {
        Value::Array(origins)
    };
    settings.insert("allowed_origins".into(), origins);
    settings.insert(
        "show_quiz_score".into(),
        Value::Bool(posted.show_quiz_score.is_some()),
    );
    settings.insert(
        "one_question_at_a_time".into(),
        Value::Bool(posted.one_question_at_a_time.is_some()),
    );
    if let Some(field) = &posted.confirmation_field {
        let mail = if field.trim().is_empty() {
            Value::Null
        } else {
            serde_json::json!({
                "field_id": field.trim(),
                "subject": posted.confirmation_subject.trim(),
                "text": posted.confirmation_text.trim(),
            })
        };
        settings.insert("confirmation_mail".into(), mail);
    }
    Ok(settings)
}

/// `POST /app/forms/{id}/settings`
pub(crate) async fn settings(
    owner: Owner,
    origin: Origin,
    Path(id): Path<String>,
    Posted { csrf, form: posted }: Posted<SettingsForm>,
) -> Response {
    let Some(id) = form_id(&id) else {
        return owner.not_found();
    };
    let settings = match settings_from(&posted) {
        Ok(settings) => settings,
        Err(problem) => return refused(&owner, &id, &origin, None, problem).await,
    };
    let retention = match retention_from(&posted) {
        Ok(retention) => retention,
        Err(problem) => return refused(&owner, &id, &origin, None, problem).await,
    };
    let form = pb::Form {
        id: id.clone(),
        settings: Some(convert::object_to_struct(&settings)),
        retention_days: retention,
        ..Default::default()
    };
    let result = update(&owner, &csrf, form, &["settings", "retention_days"]).await;
    after(&owner, &id, &origin, result, "settings", "#settings", None).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_settings_boxes_clear_their_keys() {
        let posted = SettingsForm {
            confirmation_message: " ".into(),
            redirect_url: String::new(),
            notifications_enabled: None,
            proof_of_work: Some("on".into()),
            closes_at: "2030-12-31T18:00".into(),
            closes_offset: String::new(),
            max_responses: String::new(),
            allowed_origins: " https://www.example.com \r\n\r\nhttp://localhost:8080\n".into(),
            retention_days: " 30 ".into(),
            show_quiz_score: None,
            one_question_at_a_time: None,
            confirmation_field: None,
            confirmation_subject: String::new(),
            confirmation_text: String::new(),
        };
        assert_eq!(retention_from(&posted), Ok(Some(30)));
        let settings = settings_from(&posted).expect("valid");
        assert_eq!(
            settings["allowed_origins"],
            serde_json::json!(["https://www.example.com", "http://localhost:8080"])
        );
        assert_eq!(settings["redirect_url"], Value::Null);
        assert_eq!(settings["max_responses"], Value::Null);
        assert_eq!(settings["closes_at"], "2030-12-31T18:00:00.000Z");
        let none = SettingsForm {
            allowed_origins: " \n".into(),
            ..SettingsForm {
                confirmation_message: String::new(),
                redirect_url: String::new(),
                notifications_enabled: None,
                proof_of_work: None,
                closes_at: String::new(),
                closes_offset: String::new(),
                max_responses: String::new(),
                allowed_origins: String::new(),
                retention_days: String::new(),
                show_quiz_score: None,
                one_question_at_a_time: None,
                confirmation_field: None,
                confirmation_subject: String::new(),
                confirmation_text: String::new(),
            }
        };
        assert_eq!(retention_from(&none), Ok(None));
        assert_eq!(
            settings_from(&none).expect("valid")["allowed_origins"],
            Value::Null
        );
        assert_eq!(settings["notifications_enabled"], false);
        assert_eq!(settings["proof_of_work"], true);
        let bad = SettingsForm {
            max_responses: "ten".into(),
            ..posted
        };
        assert!(settings_from(&bad).is_err());
    }

    #[test]
    fn the_closing_date_is_taken_in_the_zone_it_was_typed_in() {
        let posted = |offset: &str| SettingsForm {
            confirmation_message: String::new(),
            redirect_url: String::new(),
            notifications_enabled: None,
            proof_of_work: None,
            closes_at: "2030-12-31T18:00".into(),
            closes_offset: offset.into(),
            max_responses: String::new(),
            allowed_origins: String::new(),
            retention_days: String::new(),
            show_quiz_score: None,
            one_question_at_a_time: None,
            confirmation_field: None,
            confirmation_subject: String::new(),
            confirmation_text: String::new(),
        };
        // Paris in winter is UTC+1: 18:00 there is 17:00 UTC; New York's 18:00 is 23:00.
        let at = |offset| settings_from(&posted(offset)).expect("valid")["closes_at"].clone();
        assert_eq!(at("60"), "2030-12-31T17:00:00.000Z");
        assert_eq!(at("-300"), "2030-12-31T23:00:00.000Z");
        assert_eq!(at(""), "2030-12-31T18:00:00.000Z");
        assert!(settings_from(&posted("east")).is_err());
        assert!(settings_from(&posted("5000")).is_err());
    }
}
