//! `/usage`: the calling key's usage record.

use crate::http::call::{Call, Success};
use crate::http::state::AppState;
use crate::rest::query::{self, Query};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// The calling key's usage over the last `period_days` days.
#[derive(Serialize, ToSchema)]
#[schema(as = Usage)]
pub(crate) struct UsageRecord {
    #[schema(format = Uuid)]
    key_id: String,
    period_days: i32,
    rate_limit_per_minute: i32,
    total_requests: i64,
    total_errors: i64,
    /// Every day of the window, newest first (zeros for days without traffic).
    daily: Vec<Day>,
}

/// One day of usage.
#[derive(Serialize, ToSchema)]
#[schema(as = DailyUsage)]
pub(crate) struct Day {
    #[schema(format = Date)]
    day: String,
    request_count: i64,
    error_count: i64,
}

impl From<pb::Usage> for UsageRecord {
    fn from(usage: pb::Usage) -> Self {
        Self {
            key_id: usage.key_id,
            period_days: usage.period_days,
            rate_limit_per_minute: usage.rate_limit_per_minute,
            total_requests: usage.total_requests,
            total_errors: usage.total_errors,
            daily: usage
                .daily
                .into_iter()
                .map(|d| Day {
                    day: d.day,
                    request_count: d.request_count,
                    error_count: d.error_count,
                })
                .collect(),
        }
    }
}

/// The query of `GET /usage`.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct UsageQuery {
    /// Days of the window, today included.
    #[serde(default, deserialize_with = "query::integer")]
    #[param(minimum = 1, maximum = 90, default = 30)]
    days: Option<i32>,
}

/// Read own usage
#[utoipa::path(get, path = "/usage", operation_id = "getUsage", tag = "usage",
    description = "No scope needed: any active key reads its own usage (this request counts).",
    params(UsageQuery),
    responses((status = 200, description = "The usage record", body = Success<UsageRecord>)))]
pub(crate) async fn get(
    State(state): State<AppState>,
    call: Call,
    Query(UsageQuery { days }): Query<UsageQuery>,
) -> Response {
    let result = state
        .usage()
        .get_usage(call.request(pb::GetUsageRequest { days }))
        .await;
    call.reply(result, StatusCode::OK, |r| r.usage.map(UsageRecord::from))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest::query::parse;

    fn days(query: &str) -> Result<Option<i32>, String> {
        parse::<UsageQuery>(query).map(|query| query.days)
    }

    #[test]
    fn days_is_an_integer_whose_range_is_the_cores_rule() {
        assert_eq!(days(""), Ok(None));
        assert_eq!(days("days=7"), Ok(Some(7)));
        assert_eq!(days("days=91"), Ok(Some(91)));
        for bad in ["abc", "1.5", "", "1000000000000"] {
            assert_eq!(
                days(&format!("days={bad}")),
                Err(format!("days must be an integer, got {bad:?}"))
            );
        }
    }
}
