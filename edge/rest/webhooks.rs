//! `/forms/{form_id}/webhooks[/{id}]`: subscriptions onto WebhooksService.

use crate::http::body::JsonBody;
use crate::http::call::{Call, Success};
use crate::http::params::{FormIdOfChild, PathParams, WebhookId};
use crate::http::state::AppState;
use crate::http::timestamp;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A webhook subscription as the API shows it.
#[derive(Serialize, ToSchema)]
pub(crate) struct Webhook {
    #[schema(format = Uuid)]
    id: String,
    #[schema(format = Uuid)]
    form_id: String,
    name: String,
    url: String,
    #[schema(value_type = Vec<Event>)]
    events: Vec<String>,
    is_active: bool,
    max_retries: i32,
    #[schema(value_type = String, format = DateTime)]
    created_at: Option<String>,
    #[schema(value_type = String, format = DateTime)]
    updated_at: Option<String>,
    /// The signing secret: only in the reply that creates the webhook.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    secret: Option<String>,
}

impl From<pb::Webhook> for Webhook {
    fn from(w: pb::Webhook) -> Self {
        Self {
            id: w.id,
            form_id: w.form_id,
            name: w.name,
            url: w.url,
            events: w.events,
            is_active: w.is_active,
            max_retries: w.max_retries,
            created_at: timestamp(w.created_at.as_ref()),
            updated_at: timestamp(w.updated_at.as_ref()),
            secret: w.secret,
        }
    }
}

/// An event a subscription may list (the core's list of names).
#[derive(ToSchema)]
#[allow(dead_code)] // documents the strings the core accepts in `events`
pub(crate) enum Event {
    /// A new submission (through the hosted page or the API).
    #[schema(rename = "form.submitted")]
    FormSubmitted,
    /// Alias of form.submitted.
    #[schema(rename = "response.received")]
    ResponseReceived,
    #[schema(rename = "form.updated")]
    FormUpdated,
    #[schema(rename = "form.published")]
    FormPublished,
    #[schema(rename = "form.deleted")]
    FormDeleted,
    #[schema(rename = "quiz.completed")]
    QuizCompleted,
}

/// `data` of a webhook list.
#[derive(Serialize, ToSchema)]
pub(crate) struct WebhookList {
    webhooks: Vec<Webhook>,
}

/// `data` of a reply with one webhook.
#[derive(Serialize, ToSchema)]
pub(crate) struct OneWebhook {
    webhook: Option<Webhook>,
}

/// The body of `POST /forms/{form_id}/webhooks`. A null property counts as absent; what
/// a valid name, URL and event list are is the core's rule.
#[derive(Deserialize, ToSchema)]
#[schema(as = CreateWebhook)]
pub(crate) struct CreateWebhookBody {
    #[schema(value_type = String, required = true, min_length = 1, max_length = 100)]
    name: Option<String>,
    /// A public HTTPS endpoint.
    #[schema(value_type = String, required = true, format = Uri)]
    url: Option<String>,
    /// One or more event names.
    #[schema(value_type = Vec<Event>, required = true, min_items = 1)]
    events: Option<Vec<String>>,
}

fn create_request(form_id: String, body: CreateWebhookBody) -> pb::CreateWebhookRequest {
    pb::CreateWebhookRequest {
        form_id,
        name: body.name.unwrap_or_default(),
        url: body.url.unwrap_or_default(),
        events: body.events.unwrap_or_default(),
    }
}

/// List webhooks
#[utoipa::path(get, path = "/forms/{form_id}/webhooks", operation_id = "listWebhooks",
    tag = "webhooks", description = "Scope: read. The form's subscriptions, without secrets.",
    params(FormIdOfChild),
    responses((status = 200, description = "The subscriptions", body = Success<WebhookList>)))]
pub(crate) async fn list(
    State(state): State<AppState>,
    call: Call,
    PathParams(FormIdOfChild(form_id)): PathParams<FormIdOfChild>,
) -> Response {
    let result = state
        .webhooks()
        .list_webhooks(call.request(pb::ListWebhooksRequest { form_id }))
        .await;
    call.reply(result, StatusCode::OK, |r| WebhookList {
        webhooks: r.webhooks.into_iter().map(Webhook::from).collect(),
    })
}

/// Create a webhook
#[utoipa::path(post, path = "/forms/{form_id}/webhooks", operation_id = "createWebhook",
    tag = "webhooks",
    description = "Scope: admin. At most 20 per form. The reply carries the signing secret, \
        once.",
    params(FormIdOfChild),
    request_body = CreateWebhookBody,
    responses((status = 201, description = "The subscription, with its secret",
        body = Success<OneWebhook>)))]
pub(crate) async fn create(
    State(state): State<AppState>,
    call: Call,
    PathParams(FormIdOfChild(form_id)): PathParams<FormIdOfChild>,
    JsonBody(body): JsonBody<CreateWebhookBody>,
) -> Response {
    let request = call.request(create_request(form_id, body));
    let result = state.webhooks().create_webhook(request).await;
    call.reply(result, StatusCode::CREATED, |r| OneWebhook {
        webhook: r.webhook.map(Webhook::from),
    })
}

/// Delete a webhook
#[utoipa::path(delete, path = "/forms/{form_id}/webhooks/{id}", operation_id = "deleteWebhook",
    tag = "webhooks", description = "Scope: admin. Its pending deliveries are dropped.",
    params(FormIdOfChild, WebhookId),
    responses((status = 204, description = "Deleted")))]
pub(crate) async fn delete(
    State(state): State<AppState>,
    call: Call,
    PathParams((FormIdOfChild(form_id), WebhookId(id))): PathParams<(FormIdOfChild, WebhookId)>,
) -> Response {
    let request = call.request(pb::DeleteWebhookRequest { form_id, id });
    let result = state.webhooks().delete_webhook(request).await;
    call.reply(result, StatusCode::NO_CONTENT, |_| ())
}
