//! Per-key usage: the daily request and error counts that the gate records.

pub mod store;
pub mod tally;

use crate::error::CoreError;
use crate::gate::{Ctx, Gate};
use crate::pb::{self, usage_service_server::UsageService};
use tonic::{Request, Response, Status};

pub const DEFAULT_DAYS: i32 = 30;
pub const MAX_DAYS: i32 = 90;

/// The UsageService of the core.
#[derive(Clone)]
pub struct Usage {
    pub(crate) gate: Gate,
    pub(crate) replicas: crate::db::Replicas,
}

impl Usage {
    async fn get(
        &self,
        ctx: Ctx,
        req: pb::GetUsageRequest,
    ) -> Result<pb::GetUsageResponse, CoreError> {
        let days = req.days.unwrap_or(DEFAULT_DAYS);
        let usage = record(
            &self.gate,
            &self.replicas,
            ctx.caller.key_id,
            ctx.caller.rate_limit,
            days,
        )
        .await?;
        Ok(pb::GetUsageResponse { usage: Some(usage) })
    }
}

/// The usage record of a key over `days` (1 to 90) ending today: what GetUsage gives the
/// key itself, and what its owner sees of it in the dashboard.
pub(crate) async fn record(
    gate: &Gate,
    replicas: &crate::db::Replicas,
    key_id: uuid::Uuid,
    rate_limit: u32,
    days: i32,
) -> Result<pb::Usage, CoreError> {
    if !(1..=MAX_DAYS).contains(&days) {
        return Err(CoreError::validation(
            "days must be an integer from 1 to 90",
        ));
    }
    let daily: Vec<pb::DailyUsage> = gate
        .tally()
        .daily(replicas, key_id, days)
        .await?
        .into_iter()
        .map(|d| pb::DailyUsage {
            day: d.day.format("%Y-%m-%d").to_string(),
            request_count: d.request_count,
            error_count: d.error_count,
        })
        .collect();
    Ok(pb::Usage {
        key_id: key_id.to_string(),
        period_days: days,
        rate_limit_per_minute: i32::try_from(rate_limit).unwrap_or(i32::MAX),
        total_requests: daily.iter().map(|d| d.request_count).sum(),
        total_errors: daily.iter().map(|d| d.error_count).sum(),
        daily,
    })
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
