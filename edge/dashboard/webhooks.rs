//! A form's webhooks (`/app/forms/{id}/webhooks`): the list, creating one (its secret
//! shown once, in the reply to the create itself and never in an address), and per
//! webhook (`…/webhooks/{webhook_id}`) its settings to edit, a test event to send, and
//! its delivery log with the attempts of each delivery and a retry of a failed one.
//!
//! Creating and deleting are WebhooksService's; editing, the log, retrying and the test
//! event are OwnerService's (the dashboard's only, never on the REST edge).

use super::layout::{self, Section, csrf, problem, when};
use super::owner::{Owner, Posted, see_other};
use axum::extract::{Path, Query};
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb::{self, ErrorReason};
use maud::{Markup, html};
use serde::Deserialize;

/// Deliveries per page of the log.
const PER_PAGE: i32 = 20;

/// The events a subscription may list (`webhook.test` is not one: it is only sent by
/// hand, from the webhook's page).
const EVENTS: &[&str] = pb::WEBHOOK_EVENTS;

fn list_url(form_id: &str) -> String {
    format!("/app/forms/{form_id}/webhooks")
}

fn hook_url(form_id: &str, webhook_id: &str) -> String {
    format!("/app/forms/{form_id}/webhooks/{webhook_id}")
}

/// What `?done=` says after a change; nothing else is ever shown.
fn done_text(done: Option<&str>) -> Option<&'static str> {
    match done? {
        "deleted" => Some("The webhook was deleted."),
        "saved" => Some("The webhook was saved."),
        "test" => Some("A test event was queued for this webhook; it appears in the log below."),
        "retried" => Some("The delivery will be attempted again now."),
        _ => None,
    }
}

/// A time with seconds, for attempts.
fn at(ts: Option<&prost_types::Timestamp>) -> String {
    ts.and_then(pb::convert::datetime).map_or_else(
        || "—".to_owned(),
        |t| t.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
    )
}

fn active_badge(active: bool) -> Markup {
    html! {
        @if active { span class="badge active" { "active" } }
        @else { span class="badge inactive" { "paused" } }
    }
}

fn delivery_badge(status: i32) -> Markup {
    let word = match pb::DeliveryStatus::try_from(status) {
        Ok(pb::DeliveryStatus::Pending) => "pending",
        Ok(pb::DeliveryStatus::Succeeded) => "succeeded",
        Ok(pb::DeliveryStatus::Failed) => "failed",
        _ => "unknown",
    };
    html! { span class={"badge " (word)} { (word) } }
}

/// The fields of a subscription, for creating and for editing (`prefix` keeps ids
/// unique on a page).
fn hook_fields(prefix: &str, name: &str, url: &str, events: &[String]) -> Markup {
    html! {
        div {
            label for={(prefix) "-name"} { "Name" }
            input id={(prefix) "-name"} name="name" type="text" required maxlength="100" value=(name);
        }
        div {
            label for={(prefix) "-url"} { "Receiver URL" }
            input id={(prefix) "-url"} name="url" type="url" required inputmode="url"
                aria-describedby={(prefix) "-url-hint"} value=(url);
            p id={(prefix) "-url-hint"} class="muted" { "A public HTTPS address that accepts POST requests." }
        }
        fieldset class="events" {
            legend { "Events" }
            @for (i, event) in EVENTS.iter().enumerate() {
                div class="check" {
                    input id={(prefix) "-event-" (i)} name="events" type="checkbox" value=(event)
                        checked[events.iter().any(|e| e == event)];
                    label for={(prefix) "-event-" (i)} { code { (event) } }
                }
            }
        }
    }
}

/// The page heading trail: Forms › the form › Webhooks (› the webhook).
fn trail(form: &pb::Form, hook: Option<&pb::Webhook>) -> Markup {
    html! {
        nav class="trail" aria-label="Breadcrumb" {
            ol {
                li { a href="/app/forms" { "Forms" } }
                li { a href={"/app/forms/" (form.id)} { (form.title) } }
                @if let Some(hook) = hook {
                    li { a href=(list_url(&form.id)) { "Webhooks" } }
                    li { a href=(hook_url(&form.id, &hook.id)) aria-current="page" { (hook.name) } }
                } @else {
                    li { a href=(list_url(&form.id)) aria-current="page" { "Webhooks" } }
                }
            }
        }
    }
}

#[derive(Deserialize, Default)]
pub(crate) struct DoneQuery {
    done: Option<String>,
    page: Option<i32>,
}

/// `GET /app/forms/{id}/webhooks`
pub(crate) async fn list(
    owner: Owner,
    Path(form_id): Path<String>,
    Query(q): Query<DoneQuery>,
) -> Response {
    list_page(
        &owner,
        &form_id,
        done_text(q.done.as_deref()),
        None,
        None,
        None,
    )
    .await
}

/// What the create form held, shown again when it was refused.
struct Draft {
    name: String,
    url: String,
    events: Vec<String>,
}

/// The list page, with a notice, a problem with the create (and what was entered), or
/// a webhook just created with its secret.
async fn list_page(
    owner: &Owner,
    form_id: &str,
    notice: Option<&str>,
    refused: Option<(&str, Draft)>,
    created: Option<pb::Webhook>,
    status: Option<StatusCode>,
) -> Response {
    let form = match owner.form(form_id).await {
        Ok(form) => form,
        Err(response) => return response,
    };
    let listed = owner
        .state
        .webhooks()
        .list_webhooks(owner.request(pb::ListWebhooksRequest {
            form_id: form.id.clone(),
        }))
        .await;
    let hooks = match listed {
        Ok(reply) => reply.into_inner().webhooks,
        Err(status) => return owner.failure(&status),
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
        (trail(&form, None))
        h1 { "Webhooks of " (form.title) }
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
            div class="table-wrap" tabindex="0" role="region" aria-label="Webhooks" {
                table {
                    thead { tr {
                        th scope="col" { "Name" }
                        th scope="col" { "URL" }
                        th scope="col" { "Events" }
                        th scope="col" { "State" }
                    } }
                    tbody {
                        @for hook in &hooks {
                            tr {
                                td { a href=(hook_url(&form.id, &hook.id)) { (hook.name) } }
                                td class="url" { (hook.url) }
                                td { @for (i, e) in hook.events.iter().enumerate() { @if i > 0 { ", " } code { (e) } } }
                                td { (active_badge(hook.is_active)) }
                            }
                        }
                    }
                }
            }
        }
        section class="card" aria-labelledby="new-heading" {
            h2 id="new-heading" { "New webhook" }
            (problem(problem_text))
            form method="post" action=(list_url(&form.id)) {
                (csrf(&owner.session))
                (hook_fields("new", &draft.name, &draft.url, &draft.events))
                button type="submit" { "Create webhook" }
            }
        }
    };
    let mut response = owner.page("Webhooks", Section::Forms, body);
    if let Some(status) = status {
        *response.status_mut() = status;
    }
    response
}

#[derive(Deserialize)]
pub(crate) struct HookForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    events: Vec<String>,
    #[serde(default)]
    is_active: Option<String>,
}

/// Whether a refusal is about what was entered (shown beside the form, 422).
fn is_input_problem(status: &tonic::Status) -> bool {
    crate::http::error::reason_of(status) == Some(ErrorReason::ValidationError)
}

/// `POST /app/forms/{id}/webhooks`: creates it and answers with the list and the new
/// webhook's secret, once (no redirect: the secret never travels in an address, and no
/// later page has it).
pub(crate) async fn create(
    owner: Owner,
    Path(form_id): Path<String>,
    Posted { csrf, form }: Posted<HookForm>,
) -> Response {
    let created = owner
        .state
        .webhooks()
        .create_webhook(owner.change(
            pb::CreateWebhookRequest {
                form_id: form_id.clone(),
                name: form.name.trim().to_owned(),
                url: form.url.trim().to_owned(),
                events: form.events.clone(),
            },
            &csrf,
        ))
        .await;
    match created.map(|r| r.into_inner().webhook) {
        Ok(Some(hook)) => list_page(&owner, &form_id, None, None, Some(hook), None).await,
        Ok(None) => see_other(&list_url(&form_id)),
        Err(status) if is_input_problem(&status) => {
            let draft = Draft {
                name: form.name,
                url: form.url,
                events: form.events,
            };
            list_page(
                &owner,
                &form_id,
                None,
                Some((status.message(), draft)),
                None,
                Some(StatusCode::UNPROCESSABLE_ENTITY),
            )
            .await
        }
        Err(status) => owner.failure(&status),
    }
}

/// `GET /app/forms/{id}/webhooks/{webhook_id}`: settings, test event, delivery log.
pub(crate) async fn show(
    owner: Owner,
    Path((form_id, webhook_id)): Path<(String, String)>,
    Query(q): Query<DoneQuery>,
) -> Response {
    hook_page(
        &owner,
        &form_id,
        &webhook_id,
        q.page,
        done_text(q.done.as_deref()),
        None,
    )
    .await
}

async fn hook_page(
    owner: &Owner,
    form_id: &str,
    webhook_id: &str,
    page: Option<i32>,
    notice: Option<&str>,
    refused: Option<(&str, HookForm)>,
) -> Response {
    let page = page.unwrap_or(1).clamp(1, 100_000);
    // The log first: it is the account's webhook of this form, or NotFound.
    let log = owner
        .state
        .owner()
        .list_own_deliveries(owner.request(pb::ListOwnDeliveriesRequest {
            form_id: form_id.to_owned(),
            webhook_id: webhook_id.to_owned(),
            page: Some(page),
            per_page: Some(PER_PAGE),
        }))
        .await;
    let deliveries = match log {
        Ok(reply) => reply.into_inner().deliveries,
        Err(status) => return owner.failure(&status),
    };
    let form = match owner.form(form_id).await {
        Ok(form) => form,
        Err(response) => return response,
    };
    let listed = owner
        .state
        .webhooks()
        .list_webhooks(owner.request(pb::ListWebhooksRequest {
            form_id: form.id.clone(),
        }))
        .await;
    let hook = match listed {
        Ok(reply) => reply
            .into_inner()
            .webhooks
            .into_iter()
            .find(|h| h.id == webhook_id),
        Err(status) => return owner.failure(&status),
    };
    let Some(hook) = hook else {
        return owner.not_found();
    };
    let here = hook_url(&form.id, &hook.id);
    let (problem_text, shown) = match &refused {
        Some((text, entered)) => (
            Some(*text),
            (
                entered.name.as_str(),
                entered.url.as_str(),
                entered.events.clone(),
                entered.is_active.is_some(),
            ),
        ),
        None => (
            None,
            (
                hook.name.as_str(),
                hook.url.as_str(),
                hook.events.clone(),
                hook.is_active,
            ),
        ),
    };
    let body = html! {
        (trail(&form, Some(&hook)))
        h1 { "Webhook “" (hook.name) "”" }
        (layout::notice(notice))
        dl class="facts" {
            dt { "URL" } dd class="url" { (hook.url) }
            dt { "Events" } dd { @for (i, e) in hook.events.iter().enumerate() { @if i > 0 { ", " } code { (e) } } }
            dt { "State" } dd { (active_badge(hook.is_active)) }
            dt { "Created" } dd { (when(hook.created_at.as_ref())) }
        }
        div class="actions row" {
            form method="post" action={(here) "/test"} {
                (csrf(&owner.session))
                button type="submit" class="secondary" { "Send test event" }
            }
        }
        section aria-labelledby="log-heading" {
            h2 id="log-heading" { "Delivery log" }
            p { a href={(here) "?page=" (page)} { "Refresh" } }
            @if deliveries.is_empty() {
                p class="muted" { @if page > 1 { "No deliveries on this page." } @else { "No deliveries yet. Send a test event to see one." } }
            }
            ol class="deliveries" {
                @for delivery in &deliveries {
                    li class="card delivery" {
                        h3 {
                            code { (delivery.event) } " " (delivery_badge(delivery.status))
                        }
                        dl class="facts" {
                            dt { "Delivery" } dd { code { (delivery.id) } }
                            dt { "Event time" } dd { (at(delivery.created_at.as_ref())) }
                            @if delivery.next_attempt_at.is_some() {
                                dt { "Next attempt" } dd { (at(delivery.next_attempt_at.as_ref())) }
                            }
                        }
                        @if delivery.attempts.is_empty() {
                            p class="muted" { "No attempt yet." }
                        } @else {
                            div class="table-wrap" tabindex="0" role="region" aria-label={"Attempts of delivery " (delivery.id)} {
                                table {
                                    caption class="visually-hidden" { "Attempts of delivery " (delivery.id) }
                                    thead { tr {
                                        th scope="col" { "#" }
                                        th scope="col" { "Attempted" }
                                        th scope="col" { "Status" }
                                        th scope="col" class="num" { "Duration" }
                                        th scope="col" { "Error" }
                                        th scope="col" { "Receiver’s answer" }
                                    } }
                                    tbody {
                                        @for (i, attempt) in delivery.attempts.iter().enumerate() {
                                            tr {
                                                th scope="row" { (i + 1) }
                                                td { (at(attempt.attempted_at.as_ref())) }
                                                td class="status-code" { (attempt.status_code.map_or_else(|| "—".to_owned(), |c| c.to_string())) }
                                                td class="num" { (attempt.duration_ms) " ms" }
                                                td { (attempt.error.as_deref().unwrap_or("—")) }
                                                td { @if attempt.response_body.is_empty() { "—" } @else { pre { (attempt.response_body) } } }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                        @if delivery.status == pb::DeliveryStatus::Failed as i32 {
                            form method="post" action={(here) "/deliveries/" (delivery.id) "/retry"} {
                                (csrf(&owner.session))
                                button type="submit" { "Retry" span class="visually-hidden" { " delivery " (delivery.id) } }
                            }
                        }
                    }
                }
            }
            nav class="pager" aria-label="Pages of the log" {
                @if page > 1 { a href={(here) "?page=" (page - 1)} rel="prev" { "Newer" } }
                span { "Page " (page) }
                @if deliveries.len() >= usize::try_from(PER_PAGE).unwrap_or(usize::MAX) {
                    a href={(here) "?page=" (page + 1)} rel="next" { "Older" }
                }
            }
        }
        section class="card" aria-labelledby="edit-heading" {
            h2 id="edit-heading" { "Edit" }
            (problem(problem_text))
            form method="post" action=(here) {
                (csrf(&owner.session))
                (hook_fields("edit", shown.0, shown.1, &shown.2))
                div class="check" {
                    input id="edit-active" name="is_active" type="checkbox" value="on" checked[shown.3];
                    label for="edit-active" { "Active (a paused webhook keeps its deliveries until it is active again)" }
                }
                button type="submit" { "Save" }
            }
        }
        section class="card" aria-labelledby="delete-heading" {
            h2 id="delete-heading" { "Delete" }
            p { "Deleting the webhook stops its deliveries; those not yet made are dropped." }
            form method="post" action={(here) "/delete"} {
                (csrf(&owner.session))
                button type="submit" class="danger" { "Delete webhook" }
            }
        }
    };
    let mut response = owner.page(&hook.name, Section::Forms, body);
    if refused.is_some() {
        *response.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
    }
    response
}

/// `POST /app/forms/{id}/webhooks/{webhook_id}`: saves name, URL, events and active.
pub(crate) async fn update(
    owner: Owner,
    Path((form_id, webhook_id)): Path<(String, String)>,
    Posted { csrf, form }: Posted<HookForm>,
) -> Response {
    let updated = owner
        .state
        .owner()
        .update_own_webhook(
            owner.change(
                pb::UpdateOwnWebhookRequest {
                    form_id: form_id.clone(),
                    webhook_id: webhook_id.clone(),
                    webhook: Some(pb::Webhook {
                        name: form.name.trim().to_owned(),
                        url: form.url.trim().to_owned(),
                        events: form.events.clone(),
                        is_active: form.is_active.is_some(),
                        ..Default::default()
                    }),
                    update_mask: Some(prost_types::FieldMask {
                        paths: ["name", "url", "events", "is_active"]
                            .map(String::from)
                            .to_vec(),
                    }),
                },
                &csrf,
            ),
        )
        .await;
    match updated {
        Ok(_) => see_other(&format!("{}?done=saved", hook_url(&form_id, &webhook_id))),
        Err(status) if is_input_problem(&status) => {
            hook_page(
                &owner,
                &form_id,
                &webhook_id,
                None,
                None,
                Some((status.message(), form)),
            )
            .await
        }
        Err(status) => owner.failure(&status),
    }
}

#[derive(Deserialize)]
pub(crate) struct Nothing {}

/// `POST /app/forms/{id}/webhooks/{webhook_id}/delete`
pub(crate) async fn delete(
    owner: Owner,
    Path((form_id, webhook_id)): Path<(String, String)>,
    Posted { csrf, .. }: Posted<Nothing>,
) -> Response {
    let deleted = owner
        .state
        .webhooks()
        .delete_webhook(owner.change(
            pb::DeleteWebhookRequest {
                form_id: form_id.clone(),
                id: webhook_id,
            },
            &csrf,
        ))
        .await;
    match deleted {
        Ok(_) => see_other(&format!("{}?done=deleted", list_url(&form_id))),
        Err(status) => owner.failure(&status),
    }
}

/// `POST /app/forms/{id}/webhooks/{webhook_id}/test`: queues a `webhook.test` event.
pub(crate) async fn test(
    owner: Owner,
    Path((form_id, webhook_id)): Path<(String, String)>,
    Posted { csrf, .. }: Posted<Nothing>,
) -> Response {
    let sent = owner
        .state
        .owner()
        .send_test_event(owner.change(
            pb::SendTestEventRequest {
                form_id: form_id.clone(),
                webhook_id: webhook_id.clone(),
            },
            &csrf,
        ))
        .await;
    match sent {
        Ok(_) => see_other(&format!("{}?done=test", hook_url(&form_id, &webhook_id))),
        Err(status) => owner.failure(&status),
    }
}

/// `POST /app/forms/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry`
pub(crate) async fn retry(
    owner: Owner,
    Path((form_id, webhook_id, delivery_id)): Path<(String, String, String)>,
    Posted { csrf, .. }: Posted<Nothing>,
) -> Response {
    let retried = owner
        .state
        .owner()
        .retry_own_delivery(owner.change(
            pb::RetryOwnDeliveryRequest {
                form_id: form_id.clone(),
                webhook_id: webhook_id.clone(),
                delivery_id,
            },
            &csrf,
        ))
        .await;
    match retried {
        Ok(_) => see_other(&format!("{}?done=retried", hook_url(&form_id, &webhook_id))),
        Err(status) => owner.failure(&status),
    }
}
