//! `/forms/{form_id}/webhooks[/{id}]`: subscriptions onto WebhooksService.

use crate::body::{JsonObject, PathParams};
use crate::call::Call;
use crate::routes::timestamp_json;
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb;
use serde_json::{Map, Value, json};

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

fn create_request(
    form_id: String,
    body: &Map<String, Value>,
) -> Result<pb::CreateWebhookRequest, String> {
    let text = |key: &str| match body.get(key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(format!("{key} must be a string")),
    };
    let events = match body.get("events") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .ok_or("events must be an array of event names")?,
        Some(_) => return Err("events must be an array of event names".into()),
    };
    Ok(pb::CreateWebhookRequest {
        form_id,
        name: text("name")?,
        url: text("url")?,
        events,
    })
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
    JsonObject(body): JsonObject,
) -> Result<Response, Response> {
    let request = call.valid(&state, create_request(form_id, &body)).await?;
    let result = state.webhooks().create_webhook(call.request(request)).await;
    Ok(call.reply(
        result,
        StatusCode::CREATED,
        |r| json!({"webhook": r.webhook.map(webhook_json)}),
    ))
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
