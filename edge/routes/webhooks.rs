//! `/forms/{form_id}/webhooks[/{id}]`: subscriptions onto WebhooksService.

use crate::body::{JsonBody, PathParams};
use crate::call::Call;
use crate::routes::timestamp_json;
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb;
use serde::Deserialize;
use serde_json::{Value, json};

fn webhook_json(w: pb::Webhook) -> Value {
    let mut out = json!({
        "id": w.id,
        "form_id": w.form_id,
        "name": w.name,
        "url": w.url,
        "events": w.events,
        "is_active": w.is_active,
        "max_retries": w.max_retries,
        "created_at": timestamp_json(w.created_at.as_ref()),
        "updated_at": timestamp_json(w.updated_at.as_ref()),
    });
    if let Some(secret) = w.secret {
        out["secret"] = json!(secret);
    }
    out
}

/// The body of `POST /forms/{form_id}/webhooks`. A null property counts as absent; what
/// a valid name, URL and event list are is the core's rule.
#[derive(Deserialize)]
pub struct CreateWebhookBody {
    name: Option<String>,
    url: Option<String>,
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

pub async fn list(
    State(state): State<AppState>,
    call: Call,
    PathParams(form_id): PathParams<String>,
) -> Response {
    let result = state
        .webhooks()
        .list_webhooks(call.request(pb::ListWebhooksRequest { form_id }))
        .await;
    call.reply(
        result,
        StatusCode::OK,
        |r| json!({"webhooks": r.webhooks.into_iter().map(webhook_json).collect::<Vec<_>>()}),
    )
}

pub async fn create(
    State(state): State<AppState>,
    call: Call,
    PathParams(form_id): PathParams<String>,
    JsonBody(body): JsonBody<CreateWebhookBody>,
) -> Response {
    let request = call.request(create_request(form_id, body));
    let result = state.webhooks().create_webhook(request).await;
    call.reply(
        result,
        StatusCode::CREATED,
        |r| json!({"webhook": r.webhook.map(webhook_json)}),
    )
}

pub async fn delete(
    State(state): State<AppState>,
    call: Call,
    PathParams((form_id, id)): PathParams<(String, String)>,
) -> Response {
    let request = call.request(pb::DeleteWebhookRequest { form_id, id });
    let result = state.webhooks().delete_webhook(request).await;
    call.reply(result, StatusCode::NO_CONTENT, |_| Value::Null)
}
