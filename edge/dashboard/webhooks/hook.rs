//! One webhook's page: its settings, the test event, its delivery log (the attempts of
//! each delivery, what was sent, a retry of a failed one), the edit form and delete.

use super::events::{has_quiz, hook_fields, words};
use super::{HookForm, head, hook_url};
use crate::dashboard::layout::{self, Section, csrf, problem, when};
use crate::dashboard::owner::Owner;
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb;
use maud::{Markup, html};

/// Deliveries per page of the log.
const PER_PAGE: i32 = 20;

/// A time with seconds, for attempts.
fn at(ts: Option<&prost_types::Timestamp>) -> maud::Markup {
    layout::moment(ts, true, false)
}

/// A JSON body laid out for reading (as sent when it is not JSON).
fn pretty(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| body.to_owned())
}

pub(super) fn active_badge(active: bool) -> Markup {
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

pub(super) async fn hook_page(
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
    let (form, hooks) = match super::form_and_hooks(owner, form_id).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let hook = hooks.into_iter().find(|h| h.id == webhook_id);
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
        (head(&form, Some(&hook)))
        (layout::notice(notice))
        dl class="facts" {
            dt { "URL" } dd class="url" { (hook.url) }
            dt { "Sent when" } dd { (words(&hook.events)) }
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
                        @let sent = at(delivery.created_at.as_ref());
                        @let sent_text = layout::moment_text(delivery.created_at.as_ref(), true);
                        h3 {
                            (words(std::slice::from_ref(&delivery.event))) " " (delivery_badge(delivery.status))
                        }
                        dl class="facts" {
                            dt { "Event time" } dd { (sent) }
                            @if delivery.next_attempt_at.is_some() {
                                dt { "Next attempt" } dd { (at(delivery.next_attempt_at.as_ref())) }
                            }
                        }
                        @if delivery.attempts.is_empty() {
                            p class="muted" { "No attempt yet." }
                        } @else {
                            div class="table-wrap" tabindex="0" role="region" aria-label={"Attempts of the delivery of " (sent_text)} {
                                table {
                                    caption class="visually-hidden" { "Attempts of the delivery of " (sent_text) }
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
                        @if let Some(body) = delivery.body.as_deref().filter(|b| !b.is_empty()) {
                            details class="sent-body" {
                                summary { "What was sent" span class="visually-hidden" { " in the delivery of " (sent) } }
                                pre { (pretty(body)) }
                            }
                        }
                        @if delivery.status == pb::DeliveryStatus::Pending as i32 {
                            form method="post" action={(here) "/deliveries/" (delivery.id) "/send"} {
                                (csrf(&owner.session))
                                button type="submit" class="secondary" { "Send now" span class="visually-hidden" { " the delivery of " (sent) } }
                            }
                        }
                        @if delivery.status == pb::DeliveryStatus::Failed as i32 {
                            form method="post" action={(here) "/deliveries/" (delivery.id) "/retry"} {
                                (csrf(&owner.session))
                                button type="submit" { "Retry" span class="visually-hidden" { " the delivery of " (sent) } }
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
                (hook_fields("edit", shown.0, shown.1, &shown.2, has_quiz(&form)))
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
