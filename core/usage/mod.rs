//! Per-key usage: the daily request and error counts that the gate records.

use crate::error::CoreError;
use crate::gate::{Ctx, Gate};
use crate::pb::{self, usage_service_server::UsageService};
use chrono::NaiveDate;
use sqlx::PgPool;
use tonic::{Request, Response, Status};

pub const DEFAULT_DAYS: i32 = 30;
pub const MAX_DAYS: i32 = 90;

/// The UsageService of the core.
#[derive(Clone)]
pub struct Usage {
    pub(crate) gate: Gate,
    pub(crate) pool: PgPool,
}

/// Every day of the window ending today (UTC), newest first, zeros where there was no
/// traffic, so that charts need no gap filling.
async fn daily(
    pool: &PgPool,
    key_id: uuid::Uuid,
    days: i32,
) -> Result<Vec<pb::DailyUsage>, CoreError> {
    let rows: Vec<(NaiveDate, i64, i64)> = sqlx::query_as(
        "SELECT d.day, COALESCE(u.request_count, 0), COALESCE(u.error_count, 0)
           FROM (SELECT (now() AT TIME ZONE 'UTC')::date - g AS day
                   FROM generate_series(0, $2 - 1) AS g) AS d
           LEFT JOIN usage_daily u ON u.key_id = $1 AND u.day = d.day
          ORDER BY d.day DESC",
    )
    .bind(key_id)
    .bind(days)
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(day, request_count, error_count)| pb::DailyUsage {
            day: day.format("%Y-%m-%d").to_string(),
            request_count,
            error_count,
        })
        .collect())
}

impl Usage {
    async fn get(
        &self,
        ctx: Ctx,
        req: pb::GetUsageRequest,
    ) -> Result<pb::GetUsageResponse, CoreError> {
        let days = req.days.unwrap_or(DEFAULT_DAYS);
        if !(1..=MAX_DAYS).contains(&days) {
            return Err(CoreError::validation(
                "days must be an integer from 1 to 90",
            ));
        }
        let daily = daily(&self.pool, ctx.caller.key_id, days).await?;
        Ok(pb::GetUsageResponse {
            usage: Some(pb::Usage {
                key_id: ctx.caller.key_id.to_string(),
                period_days: days,
                rate_limit_per_minute: i32::try_from(ctx.caller.rate_limit).unwrap_or(i32::MAX),
                total_requests: daily.iter().map(|d| d.request_count).sum(),
                total_errors: daily.iter().map(|d| d.error_count).sum(),
                daily,
            }),
        })
    }
}

#[tonic::async_trait]
impl UsageService for Usage {
    async fn get_usage(
        &self,
        req: Request<pb::GetUsageRequest>,
    ) -> Result<Response<pb::GetUsageResponse>, Status> {
        // Reading one's own usage needs a valid key but no scope.
        self.gate.call(req, None, |ctx, m| self.get(ctx, m)).await
    }
}
