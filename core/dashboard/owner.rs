//! `OwnerService`: what only an account's owner does, from a dashboard session. Every
//! method passes the gate (so it is rate-limited and counted under the account's
//! session key), needs a dashboard session (`session_of`), and reads or changes the
//! session's account only.

use super::service::session_of;
use super::store;
use crate::accounts::Scope;
use crate::error::CoreError;
use crate::gate::{Ctx, Gate};
use crate::pb::{self, convert::timestamp, owner_service_server::OwnerService};
use crate::rpc::parse_id;
use chrono::{Days, Utc};
use sqlx::PgPool;
use tonic::{Request, Response, Status};

#[derive(Clone)]
pub(crate) struct Owner {
    pub(crate) gate: Gate,
    pub(crate) pool: PgPool,
}

/// Most forms one GetFormActivity call may ask about.
const MAX_ACTIVITY_FORMS: usize = 100;

fn not_built<T>() -> Result<Response<T>, Status> {
    Err(Status::unimplemented("not built yet"))
}

impl Owner {
    async fn activity(
        &self,
        ctx: &Ctx,
        req: pb::GetFormActivityRequest,
    ) -> Result<pb::GetFormActivityResponse, CoreError> {
        session_of(ctx)?;
        let days = req.days.unwrap_or(14);
        if !(1..=90).contains(&days) {
            return Err(CoreError::validation("days must be between 1 and 90"));
        }
        if req.form_ids.len() > MAX_ACTIVITY_FORMS {
            return Err(CoreError::validation("at most 100 form_ids"));
        }
        // Ids that are not UUIDs name no form of the account: left out, like others'.
        let ids: Vec<_> = req
            .form_ids
            .iter()
            .filter_map(|id| parse_id(id, "form").ok())
            .collect();
        let today = Utc::now().date_naive();
        let first = today - Days::new(u64::from(days.unsigned_abs()) - 1);
        let found = store::activity(&self.pool, ctx.caller.account_id, &ids, first).await?;
        let forms = ids
            .iter()
            .filter_map(|id| found.iter().find(|a| a.form_id == *id))
            .map(|a| pb::FormActivity {
                form_id: a.form_id.to_string(),
                response_count: a.response_count,
                last_response_at: a.last_response_at.map(timestamp),
                daily: first
                    .iter_days()
                    .take_while(|day| *day <= today)
                    .map(|day| {
                        a.days
                            .iter()
                            .find(|(d, _)| *d == day)
                            .map_or(0, |(_, n)| *n)
                    })
                    .collect(),
            })
            .collect();
        Ok(pb::GetFormActivityResponse { forms })
    }
}

#[tonic::async_trait]
impl OwnerService for Owner {
    async fn get_own_account(
        &self,
        _req: Request<pb::GetOwnAccountRequest>,
    ) -> Result<Response<pb::GetOwnAccountResponse>, Status> {
        not_built()
    }

    async fn unlink_own_identity(
        &self,
        _req: Request<pb::UnlinkOwnIdentityRequest>,
    ) -> Result<Response<pb::UnlinkOwnIdentityResponse>, Status> {
        not_built()
    }

    async fn list_own_keys(
        &self,
        _req: Request<pb::ListOwnKeysRequest>,
    ) -> Result<Response<pb::ListOwnKeysResponse>, Status> {
        not_built()
    }

    async fn create_own_key(
        &self,
        _req: Request<pb::CreateOwnKeyRequest>,
    ) -> Result<Response<pb::CreateOwnKeyResponse>, Status> {
        not_built()
    }

    async fn revoke_own_key(
        &self,
        _req: Request<pb::RevokeOwnKeyRequest>,
    ) -> Result<Response<pb::RevokeOwnKeyResponse>, Status> {
        not_built()
    }

    async fn get_own_key_usage(
        &self,
        _req: Request<pb::GetOwnKeyUsageRequest>,
    ) -> Result<Response<pb::GetOwnKeyUsageResponse>, Status> {
        not_built()
    }

    async fn update_own_webhook(
        &self,
        _req: Request<pb::UpdateOwnWebhookRequest>,
    ) -> Result<Response<pb::UpdateOwnWebhookResponse>, Status> {
        not_built()
    }

    async fn list_own_deliveries(
        &self,
        _req: Request<pb::ListOwnDeliveriesRequest>,
    ) -> Result<Response<pb::ListOwnDeliveriesResponse>, Status> {
        not_built()
    }

    async fn retry_own_delivery(
        &self,
        _req: Request<pb::RetryOwnDeliveryRequest>,
    ) -> Result<Response<pb::RetryOwnDeliveryResponse>, Status> {
        not_built()
    }

    async fn send_test_event(
        &self,
        _req: Request<pb::SendTestEventRequest>,
    ) -> Result<Response<pb::SendTestEventResponse>, Status> {
        not_built()
    }

    async fn get_form_activity(
        &self,
        req: Request<pb::GetFormActivityRequest>,
    ) -> Result<Response<pb::GetFormActivityResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Read), |ctx, msg| async move {
                self.activity(&ctx, msg).await
            })
            .await
    }
}
