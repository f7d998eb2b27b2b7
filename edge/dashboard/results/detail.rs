//! One response (`/app/forms/{id}/responses/{response_id}`), finished or not: answers
//! by label as a person reads them (`answer`), the metadata, device/browser/OS and
//! times; its files as downloads; and its deletion (a posted form with a confirmation
//! box and the CSRF token).

use super::answer;
use super::inbox::{answers, at_seconds};
use super::segment;
use crate::dashboard::layout::{self, Section, csrf};
use crate::dashboard::owner::{Owner, Posted, see_other};
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use forms::pb::{self, convert};
use maud::html;
use serde::Deserialize;
use serde_json::Value;

/// A duration for people: `45 s`, `1 min 12 s`, `2 h 5 min`, `3 d 4 h`.
pub(crate) fn human_duration(seconds: i64) -> String {
    let s = seconds.max(0);
    let (d, h, m, s) = (s / 86_400, s % 86_400 / 3_600, s % 3_600 / 60, s % 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{s} s"),
        (0, 0, _) if s == 0 => format!("{m} min"),
        (0, 0, _) => format!("{m} min {s} s"),
        (0, _, 0) => format!("{h} h"),
        (0, _, _) => format!("{h} h {m} min"),
        (_, 0, _) => format!("{d} d"),
        _ => format!("{d} d {h} h"),
    }
}

/// A metadata value as text.
fn meta_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// What a response was made through.
fn source(metadata: &serde_json::Map<String, Value>) -> &'static str {
    match metadata.get("source").and_then(Value::as_str) {
        Some("api") => "API",
        _ => "Hosted page",
    }
}

/// The response, or the page for the core's error.
async fn response_of(owner: &Owner, form_id: &str, id: &str) -> Result<pb::FormResponse, Response> {
    let reply = owner
        .state
        .responses()
        .get_response(owner.request(pb::GetResponseRequest {
            form_id: form_id.to_owned(),
            id: id.to_owned(),
        }))
        .await
        .map_err(|status| owner.failure(&status))?;
    reply
        .into_inner()
        .response
        .ok_or_else(|| owner.failure(&tonic::Status::not_found("response")))
}

/// `GET /app/forms/{id}/responses/{response_id}`
pub(crate) async fn show(owner: Owner, Path((form_id, id)): Path<(String, String)>) -> Response {
    let (form, response) =
        match tokio::join!(owner.form(&form_id), response_of(&owner, &form_id, &id)) {
            (Ok(form), Ok(response)) => (form, response),
            (Err(page), _) | (_, Err(page)) => return page,
        };
    let inbox = format!("/app/forms/{}/responses", segment(&form.id));
    let base = format!("{inbox}/{}", segment(&response.id));
    let answers = answers(&response);
    let metadata = response
        .metadata
        .as_ref()
        .map(convert::struct_to_object)
        .unwrap_or_default();
    let removed: Vec<&Value> = answers
        .iter()
        .filter(|(key, _)| !form.fields.iter().any(|f| &f.id == *key))
        .map(|(_, value)| value)
        .collect();
    // An answer to a question removed from the form: no kind to read it by any more.
    let gone = pb::FormField::default();
    let unfinished = response.status == i32::from(pb::ResponseStatus::Partial);
    let or_dash = |v: &Option<String>| {
        v.clone()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "—".to_owned())
    };
    let body = html! {
        (layout::crumbs(&[
            ("/app/forms", "Forms"),
            (&format!("/app/forms/{}", segment(&form.id)), &form.title),
            (&inbox, "Responses"),
        ], "Response"))
        @if unfinished {
            h1 { "Unfinished response, last saved " (at_seconds(response.submitted_at.as_ref())) }
            p { "Reached " (answer::page_title(&form.fields, response.last_page.max(1))) "; not sent yet." }
        } @else {
            h1 { "Response of " (at_seconds(response.submitted_at.as_ref())) }
        }
        (layout::form_tabs(&form.id, layout::FormTab::Responses))
        section aria-labelledby="answers-h" {
            h2 id="answers-h" { "Answers" }
            dl class="facts" {
                @for field in form.fields.iter().filter(|f| answer::is_question(f)) {
                    dt { (field.label) }
                    dd {
                        @match answers.get(&field.id).filter(|v| !v.is_null()) {
                            Some(value) => (answer::show(field, value, &base, None)),
                            None => span class="muted" { "No answer" },
                        }
                    }
                }
                @for value in &removed {
                    dt { "A question removed from the form" }
                    dd { (answer::show(&gone, value, &base, None)) }
                }
            }
        }
        section aria-labelledby="about-h" {
            h2 id="about-h" { "About this response" }
            dl class="facts" {
                dt { @if unfinished { "Last saved" } @else { "Submitted" } } dd { (at_seconds(response.submitted_at.as_ref())) }
                dt { "Started" } dd { (at_seconds(response.started_at.as_ref())) }
                dt { "Completion time" }
                dd { (response.completion_time_seconds.map_or_else(|| "—".to_owned(), human_duration)) }
                dt { "Source" } dd { (source(&metadata)) }
                dt { "Device" } dd { (or_dash(&response.device_type)) }
                dt { "Browser" } dd { (or_dash(&response.browser)) }
                dt { "Operating system" } dd { (or_dash(&response.os)) }
                @for (key, value) in metadata.iter().filter(|(k, _)| k.as_str() != "source") {
                    dt { "Metadata " code { (key) } }
                    dd { span class="answer" { (meta_text(value)) } }
                }
            }
        }
        @if owner.may("admin") { section aria-labelledby="delete-h" class="card danger" {
            h2 id="delete-h" { "Delete this response" }
            p { "The response and its files are removed for good." }
            form method="post" action={(base) "/delete"} {
                (csrf(&owner.session))
                div class="inline" {
                    input id="confirm" name="confirm" type="checkbox" value="yes" required;
                    label for="confirm" { "Yes, delete this response" }
                }
                button type="submit" class="danger" { "Delete response" }
            }
        } }
        p { a href=(inbox) { "Back to the responses" } }
    };
    owner.page("Response", Section::Forms, body)
}

/// The posted deletion: the box must be ticked.
#[derive(Deserialize)]
pub(crate) struct DeleteForm {
    #[serde(default)]
    confirm: String,
}

/// `POST /app/forms/{id}/responses/{response_id}/delete`
pub(crate) async fn delete(
    owner: Owner,
    Path((form_id, id)): Path<(String, String)>,
    Posted { csrf, form }: Posted<DeleteForm>,
) -> Response {
    let inbox = format!("/app/forms/{}/responses", segment(&form_id));
    if form.confirm != "yes" {
        let body = html! {
            h1 { "Not deleted" }
            p class="error" role="alert" { "Tick “Yes, delete this response” to confirm, then press Delete." }
            p { a href={(inbox) "/" (segment(&id))} { "Back to the response" } }
        };
        return layout::reply(
            StatusCode::UNPROCESSABLE_ENTITY,
            layout::page("Not deleted", Section::Forms, Some(&owner.session), body),
        );
    }
    let deleted = owner
        .state
        .responses()
        .delete_response(owner.change(pb::DeleteResponseRequest { form_id, id }, &csrf))
        .await;
    match deleted {
        Ok(_) => see_other(&format!("{inbox}?done=deleted")),
        Err(status) => owner.failure(&status),
    }
}

/// `GET /app/forms/{id}/responses/{response_id}/files/{file_id}`: the file as an
/// attachment with its stored media type (and `nosniff`, as every dashboard reply).
pub(crate) async fn file(
    owner: Owner,
    Path((form_id, response_id, file_id)): Path<(String, String, String)>,
) -> Response {
    let reply = owner
        .state
        .responses()
        .get_response_file(owner.request(pb::GetResponseFileRequest {
            form_id,
            response_id,
            file_id,
        }))
        .await;
    match reply {
        Ok(reply) => {
            let file = reply.into_inner();
            let mut response = file.content.into_response();
            crate::http::download::attachment(&mut response, &file.content_type, &file.file_name);
            response
        }
        Err(status) => owner.failure(&status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(human_duration(0), "0 s");
        assert_eq!(human_duration(45), "45 s");
        assert_eq!(human_duration(60), "1 min");
        assert_eq!(human_duration(72), "1 min 12 s");
        assert_eq!(human_duration(3_600), "1 h");
        assert_eq!(human_duration(7_500), "2 h 5 min");
        assert_eq!(human_duration(86_400 * 3 + 3_600 * 4), "3 d 4 h");
        assert_eq!(human_duration(-5), "0 s");
    }
}
