//! `/usage`: the calling key's usage record.

use crate::body::QueryParams;
use crate::call::Call;
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb;
use serde_json::json;

fn usage_json(usage: pb::Usage) -> serde_json::Value {
    json!({
        "key_id": usage.key_id,
        "period_days": usage.period_days,
        "rate_limit_per_minute": usage.rate_limit_per_minute,
        "total_requests": usage.total_requests,
        "total_errors": usage.total_errors,
        "daily": usage.daily.into_iter().map(|d| json!({
            "day": d.day,
            "request_count": d.request_count,
            "error_count": d.error_count,
        })).collect::<Vec<_>>(),
    })
}

pub async fn get(
    State(state): State<AppState>,
    call: Call,
    query: QueryParams,
) -> Result<Response, Response> {
    let days = call.valid(&state, query.int("days")).await?;
    let result = state
        .usage()
        .get_usage(call.request(pb::GetUsageRequest { days }))
        .await;
    Ok(call.reply(result, StatusCode::OK, |r| {
        r.usage.map(usage_json).unwrap_or_default()
    }))
}
