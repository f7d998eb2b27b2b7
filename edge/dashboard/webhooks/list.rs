//! The list of a form's webhooks, with the create form, and the secret of one just
//! created (shown in the reply to the create only).

use super::events::{has_quiz, hook_fields, words};
use super::hook::active_badge;
use super::{head, hook_url, list_url};
use crate::dashboard::layout::{self, Section, csrf, problem};
use crate::dashboard::owner::Owner;
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb;
use maud::html;

/// What the create form held, shown again when it was refused.
pub(super) struct Draft {
    pub(super) name: String,
    pub(super) url: String,
    pub(super) events: Vec<String>,
}

/// The list page, with a notice, a problem with the create (and what was entered), or
/// a webhook just created with its secret.
pub(super) async fn list_page(
    owner: &Owner,
    form_id: &str,
    notice: Option<&str>,
    refused: Option<(&str, Draft)>,
    created: Option<pb::Webhook>,
    status: Option<StatusCode>,
) -> Response {
    let (form, hooks) = match super::form_and_hooks(owner, form_id).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let (problem_text, draft) = match refused {
        Some((text, draft)) => (Some(text), draft),
        None => (
            None,
            Draft {
                name: String::new(),
                url: String::new(),
                events: Vec::new(),
            },
        ),
    };
    let body = html! {
        (head(&form, None))
        (layout::notice(notice))
        @if let Some(hook) = &created {
            section class="card created" aria-labelledby="created-heading" {
                h2 id="created-heading" { "Webhook “" (hook.name) "” created" }
                p { strong { "Copy its signing secret now: it will not be shown again." }
                    " Your receiver uses it to check the signature of every delivery." }
                p {
                    label for="webhook-secret" { "Signing secret" }
                    input id="webhook-secret" class="secret" type="text" readonly value=(hook.secret.as_deref().unwrap_or_default());
                }
                p class="row" {
                    button type="button" data-copy="webhook-secret" { "Copy secret" }
                    span id="webhook-secret-copied" role="status" {}
                }
                p { a href=(hook_url(&form.id, &hook.id)) { "Go to the webhook’s page" } }
            }
        }
        @if hooks.is_empty() {
            p class="muted" { "This form has no webhook yet. Create one below." }
        } @else {
            (layout::table("Webhooks", &["Name", "URL", "Sent when", "State"], html! {
                @for hook in &hooks {
                    tr {
                        // A webhook's own page (deliveries, secret) is an admin's.
                        td { @if owner.may("admin") { a href=(hook_url(&form.id, &hook.id)) { (hook.name) } } @else { (hook.name) } }
                        td class="url" { (hook.url) }
                        td { (words(&hook.events)) }
                        td { (active_badge(hook.is_active)) }
                    }
                }
            }))
        }
        @if owner.may("admin") { section class="card" aria-labelledby="new-heading" {
            h2 id="new-heading" { "New webhook" }
            (problem(problem_text))
            form method="post" action=(list_url(&form.id)) {
                (csrf(&owner.session))
                (hook_fields("new", &draft.name, &draft.url, &draft.events, has_quiz(&form)))
                button type="submit" { "Create webhook" }
            }
        } }
    };
    let mut response = owner.page("Webhooks", Section::Forms, body);
    if let Some(status) = status {
        *response.status_mut() = status;
    }
    response
}
