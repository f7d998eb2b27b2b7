//! A form's webhooks (`/app/forms/{id}/webhooks`): the list, creating one (its secret
//! shown once, in the reply to the create itself and never in an address), and per
//! webhook (`…/webhooks/{webhook_id}`) its settings to edit, a test event to send, and
//! its delivery log with the attempts of each delivery and a retry of a failed one.
//! This module holds the posts and the addresses; the pages are `list` and `hook`, the
//! events offered and what each means `events`.
//!
//! Creating and deleting are WebhooksService's; editing, the log, retrying and the test
//! event are OwnerService's (the dashboard's only, never on the REST edge).

mod events;
mod hook;
mod list;
mod words;

use super::layout::{self, FormTab};
use super::owner::{Owner, Posted, see_other};
use axum::extract::{Path, Query};
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb::{self, ErrorReason};
use hook::hook_page;
use list::{Draft, list_page};
use maud::{Markup, html};
use serde::Deserialize;

pub(super) fn list_url(form_id: &str) -> String {
    format!("/app/forms/{form_id}/webhooks")
}

pub(super) fn hook_url(form_id: &str, webhook_id: &str) -> String {
    format!("/app/forms/{form_id}/webhooks/{webhook_id}")
}

/// The form `form_id` and its webhooks, or the page that says why not.
async fn form_and_hooks(
    owner: &Owner,
    form_id: &str,
) -> Result<(pb::Form, Vec<pb::Webhook>), Response> {
    let form = owner.form(form_id).await?;
    let listed = owner
        .state
        .webhooks()
        .list_webhooks(owner.request(pb::ListWebhooksRequest {
            form_id: form.id.clone(),
        }))
        .await;
    match listed {
        Ok(reply) => Ok((form, reply.into_inner().webhooks)),
        Err(status) => Err(owner.failure(&status)),
    }
}

/// What `?done=` says after a change; nothing else is ever shown.
fn done_text(done: Option<&str>) -> Option<&'static str> {
    match done? {
        "deleted" => Some("The webhook was deleted."),
        "saved" => Some("The webhook was saved."),
        "test" => Some("A test event was queued for this webhook; it appears in the log below."),
        "retried" => Some("The delivery will be attempted again now."),
        "sent" => {
            Some("The delivery is being sent now: refresh the log in a moment to see how it went.")
        }
        _ => None,
    }
}

/// The page's head: the trail Forms › the form › Webhooks (› the webhook), then the
/// title and the form's tabs.
pub(super) fn head(form: &pb::Form, hook: Option<&pb::Webhook>) -> Markup {
    let form_url = format!("/app/forms/{}", form.id);
    let list = list_url(&form.id);
    html! {
        @if let Some(hook) = hook {
            (layout::crumbs(&[("/app/forms", "Forms"), (&form_url, &form.title), (&list, "Webhooks")], &hook.name))
            h1 { "Webhook “" (hook.name) "”" }
        } @else {
            (layout::crumbs(&[("/app/forms", "Forms"), (&form_url, &form.title)], "Webhooks"))
            h1 { "Webhooks" span class="visually-hidden" { " of " (form.title) } }
        }
        (layout::form_tabs(&form.id, FormTab::Webhooks))
    }
}

#[derive(Deserialize, Default)]
pub(crate) struct DoneQuery {
    pub(super) done: Option<String>,
    pub(super) page: Option<i32>,
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

#[derive(Deserialize)]
pub(crate) struct HookForm {
    #[serde(default)]
    pub(super) name: String,
    #[serde(default)]
    pub(super) url: String,
    #[serde(default)]
    pub(super) events: Vec<String>,
    #[serde(default)]
    pub(super) is_active: Option<String>,
}

/// Whether a refusal is about what was entered (shown beside the form, 422).
pub(super) fn is_input_problem(status: &tonic::Status) -> bool {
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
                Some((&words::humane(status.message()), draft)),
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
                Some((&words::humane(status.message()), form)),
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

/// `POST /app/forms/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/send`: a
/// pending delivery is made due now, in the outbox (never sent here, never twice at
/// once); one that cannot be is said in words on the webhook's page.
pub(crate) async fn send_now(
    owner: Owner,
    Path((form_id, webhook_id, delivery_id)): Path<(String, String, String)>,
    Posted { csrf, .. }: Posted<Nothing>,
) -> Response {
    let sent = owner
        .state
        .owner()
        .send_own_delivery_now(owner.change(
            pb::SendOwnDeliveryNowRequest {
                form_id: form_id.clone(),
                webhook_id: webhook_id.clone(),
                delivery_id,
            },
            &csrf,
        ))
        .await;
    match sent {
        Ok(_) => see_other(&format!("{}?done=sent", hook_url(&form_id, &webhook_id))),
        Err(status) if is_input_problem(&status) => {
            let why = if status.message().contains("being attempted") {
                "That delivery is being attempted at this moment: its outcome appears in the log."
            } else {
                "That delivery is no longer waiting: it was sent or gave up meanwhile. The log shows how it went."
            };
            hook_page(&owner, &form_id, &webhook_id, None, Some(why), None).await
        }
        Err(status) => owner.failure(&status),
    }
}
