//! `OwnerService`: what only an account's owner does, from a dashboard session. Every
//! method passes the gate (so it is rate-limited under the account's session key, and
//! not counted as API usage), needs a dashboard session (`session_of`), and reads or
//! changes the session's account only.

use super::service::session_of;
use super::store;
use crate::accounts::service::{account_to_pb, key_to_pb, scope_from_pb};
use crate::accounts::{Scope, Scopes, store as accounts};
use crate::audit::{self, Outcome::Done, Target};
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
    /// Where the pages' reads run (`db::replicas`).
    pub(crate) replicas: crate::db::Replicas,
    /// Webhooks may target private addresses and plain HTTP (`--webhook-allow-private`).
    pub(crate) allow_private: bool,
}

/// A key's label as given: trimmed, `None` when empty; 1 to 100 characters without
/// control characters.
fn label_of(label: Option<&str>) -> Result<Option<&str>, CoreError> {
    let Some(label) = label.map(str::trim).filter(|l| !l.is_empty()) else {
        return Ok(None);
    };
    if label.chars().count() > 100 || label.chars().any(char::is_control) {
        return Err(CoreError::validation(
            "label must be at most 100 characters, without control characters",
        ));
    }
    Ok(Some(label))
}

/// Most forms one GetFormActivity call may ask about.
const MAX_ACTIVITY_FORMS: usize = 100;

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
        let (account_id, ids_read) = (ctx.caller.account_id, &ids);
        let found = self
            .replicas
            .read(|pool| async move { store::activity(&pool, account_id, ids_read, first).await })
            .await?;
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

    async fn account(&self, ctx: &Ctx) -> Result<pb::GetOwnAccountResponse, CoreError> {
        session_of(ctx)?;
        let month = crate::responses::quota_month(Utc::now());
        let account_id = ctx.caller.account_id;
        let (account, responses, identities, theme) = self
            .replicas
            .read(|pool| async move {
                let account = accounts::account_by_id(&pool, account_id).await?;
                let responses = accounts::responses_in_month(&pool, account_id, month).await?;
                let identities = accounts::identities(&pool, account_id).await?;
                let theme = super::store::default_theme(&pool, account_id).await?;
                Ok((account, responses, identities, theme))
            })
            .await?;
        let limit = account
            .response_limit
            .or_else(|| self.gate.config().response_limit(account.plan));
        let identities = identities
            .into_iter()
            .map(|i| pb::LinkedIdentity {
                issuer: i.issuer,
                subject: i.subject,
                created_at: Some(timestamp(i.created_at)),
            })
            .collect();
        Ok(pb::GetOwnAccountResponse {
            rate_limit_per_minute: i32::try_from(self.gate.config().rate_limit(account.plan))
                .unwrap_or(i32::MAX),
            responses_this_month: responses,
            monthly_response_limit: limit,
            identities,
            default_theme: theme.map(crate::forms::logo::theme_to_pb),
            account: Some(account_to_pb(account)),
            notifications_mailed: Some(self.gate.config().smtp.is_some()),
        })
    }

    /// The account's notification address: set (checked as the operator's is), or
    /// removed when empty.
    async fn update_account(
        &self,
        ctx: &Ctx,
        req: pb::UpdateOwnAccountRequest,
    ) -> Result<pb::UpdateOwnAccountResponse, CoreError> {
        let session = session_of(ctx)?;
        let change = accounts::AccountChange {
            email: req
                .email
                .map(|e| Some(e.trim().to_owned()).filter(|e| !e.is_empty())),
            ..Default::default()
        };
        let mut tx = self.pool.begin().await?;
        let account = accounts::update_account(&mut *tx, &session.account_name, &change).await?;
        // The name and the session's account are one account; checked all the same.
        if account.id != ctx.caller.account_id {
            return Err(CoreError::NotFound("account"));
        }
        let target = Target::account(account.id);
        let changed = change.names();
        audit::record(
            &mut tx,
            &ctx.actor,
            "UpdateOwnAccount",
            &target,
            &changed,
            Done,
        )
        .await?;
        tx.commit().await?;
        Ok(pb::UpdateOwnAccountResponse {
            account: Some(account_to_pb(account)),
        })
    }

    async fn unlink(
        &self,
        ctx: &Ctx,
        req: pb::UnlinkOwnIdentityRequest,
    ) -> Result<pb::UnlinkOwnIdentityResponse, CoreError> {
        let session = session_of(ctx)?;
        let mut tx = self.pool.begin().await?;
        let account = accounts::unlink_identity(
            &mut tx,
            &session.account_name,
            req.issuer.as_deref(),
            &req.subject,
        )
        .await?;
        // The name and the session's account are one account; checked all the same.
        if account.id != ctx.caller.account_id {
            return Err(CoreError::NotFound("identity"));
        }
        let target = Target::account(account.id);
        let changed = ["identities"];
        audit::record(
            &mut tx,
            &ctx.actor,
            "UnlinkOwnIdentity",
            &target,
            &changed,
            Done,
        )
        .await?;
        tx.commit().await?;
        Ok(pb::UnlinkOwnIdentityResponse {})
    }

    async fn keys(&self, ctx: &Ctx) -> Result<pb::ListOwnKeysResponse, CoreError> {
        session_of(ctx)?;
        let account_id = ctx.caller.account_id;
        let (rows, mut labels) = self
            .replicas
            .read(|pool| async move {
                let rows = accounts::own_keys(&pool, account_id).await?;
                Ok((rows, accounts::labels(&pool, account_id).await?))
            })
            .await?;
        let ids: Vec<_> = rows.iter().map(|r| r.id).collect();
        let last = self.gate.tally().last_used(&self.replicas, &ids).await?;
        let session = accounts::session_lookup(account_id);
        let keys = rows
            .into_iter()
            .map(|row| pb::OwnKey {
                last_used_on: last.get(&row.id).map(|d| d.format("%Y-%m-%d").to_string()),
                session_key: row.lookup == session,
                label: labels.remove(&row.id),
                key: Some(key_to_pb(row)),
            })
            .collect();
        Ok(pb::ListOwnKeysResponse { keys })
    }

    async fn create_key(
        &self,
        ctx: &Ctx,
        req: pb::CreateOwnKeyRequest,
    ) -> Result<pb::CreateOwnKeyResponse, CoreError> {
        session_of(ctx)?;
        let label = label_of(req.label.as_deref())?;
        let scopes = req
            .scopes
            .iter()
            .map(|s| scope_from_pb(*s))
            .collect::<Result<Vec<_>, _>>()?;
        let expires_at = match req.expires_at.as_ref() {
            Some(ts) => {
                let at = pb::convert::datetime(ts)
                    .ok_or_else(|| CoreError::validation("expires_at is not a valid time"))?;
                if at <= Utc::now() {
                    return Err(CoreError::validation("expires_at must be in the future"));
                }
                Some(at)
            }
            None => None,
        };
        let account = accounts::account_by_id(&self.pool, ctx.caller.account_id).await?;
        // The key, its label and its entry commit together.
        let mut tx = self.pool.begin().await?;
        let created = accounts::create_key(
            &mut tx,
            &account.name,
            None,
            &Scopes::new(scopes),
            expires_at,
        )
        .await?;
        let mut changed = vec!["scopes"];
        if label.is_some() {
            accounts::set_label(&mut *tx, account.id, created.key_id, label).await?;
            changed.push("label");
        }
        let target = Target::key(created.key_id);
        audit::record(&mut tx, &ctx.actor, "CreateOwnKey", &target, &changed, Done).await?;
        tx.commit().await?;
        let row = accounts::own_key(&self.pool, account.id, created.key_id).await?;
        Ok(pb::CreateOwnKeyResponse {
            secret: created.key,
            key: Some(key_to_pb(row)),
        })
    }

    async fn revoke_key(
        &self,
        ctx: &Ctx,
        req: pb::RevokeOwnKeyRequest,
    ) -> Result<pb::RevokeOwnKeyResponse, CoreError> {
        session_of(ctx)?;
        let key_id = parse_id(&req.key_id, "key")?;
        let row = accounts::own_key(&self.pool, ctx.caller.account_id, key_id).await?;
        if row.lookup == accounts::session_lookup(ctx.caller.account_id) {
            return Err(CoreError::validation(
                "the dashboard's session key cannot be revoked here: sign out to end a session",
            ));
        }
        let mut tx = self.pool.begin().await?;
        let row = accounts::revoke_own_key(&mut *tx, ctx.caller.account_id, key_id).await?;
        let (target, changed) = (Target::key(key_id), ["revoked_at"]);
        audit::record(&mut tx, &ctx.actor, "RevokeOwnKey", &target, &changed, Done).await?;
        tx.commit().await?;
        // This instance forgets it now; the others hear of it from the update's NOTIFY.
        self.gate.keys().forget_key(&row.lookup);
        Ok(pb::RevokeOwnKeyResponse {
            key: Some(key_to_pb(row)),
        })
    }

    async fn key_usage(
        &self,
        ctx: &Ctx,
        req: pb::GetOwnKeyUsageRequest,
    ) -> Result<pb::GetOwnKeyUsageResponse, CoreError> {
        session_of(ctx)?;
        let key_id = parse_id(&req.key_id, "key")?;
        let row = accounts::own_key(&self.pool, ctx.caller.account_id, key_id).await?;
        // The key's account is the caller's: its plan's limit is the caller's.
        let usage = crate::usage::record(
            &self.gate,
            &self.replicas,
            row.id,
            ctx.caller.rate_limit,
            req.days.unwrap_or(crate::usage::MAX_DAYS),
        )
        .await?;
        Ok(pb::GetOwnKeyUsageResponse { usage: Some(usage) })
    }
}

#[tonic::async_trait]
impl OwnerService for Owner {
    async fn get_own_account(
        &self,
        req: Request<pb::GetOwnAccountRequest>,
    ) -> Result<Response<pb::GetOwnAccountResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Read), |ctx, _msg| async move {
                self.account(&ctx).await
            })
            .await
    }

    async fn update_own_account(
        &self,
        req: Request<pb::UpdateOwnAccountRequest>,
    ) -> Result<Response<pb::UpdateOwnAccountResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Admin), |ctx, msg| async move {
                self.update_account(&ctx, msg).await
            })
            .await
    }

    async fn set_own_default_theme(
        &self,
        req: Request<pb::SetOwnDefaultThemeRequest>,
    ) -> Result<Response<pb::SetOwnDefaultThemeResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Write), |ctx, msg| async move {
                self.set_default_theme(&ctx, msg).await
            })
            .await
    }

    async fn unlink_own_identity(
        &self,
        req: Request<pb::UnlinkOwnIdentityRequest>,
    ) -> Result<Response<pb::UnlinkOwnIdentityResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Admin), |ctx, msg| async move {
                self.unlink(&ctx, msg).await
            })
            .await
    }

    async fn list_own_keys(
        &self,
        req: Request<pb::ListOwnKeysRequest>,
    ) -> Result<Response<pb::ListOwnKeysResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Read), |ctx, _msg| async move {
                self.keys(&ctx).await
            })
            .await
    }

    async fn create_own_key(
        &self,
        req: Request<pb::CreateOwnKeyRequest>,
    ) -> Result<Response<pb::CreateOwnKeyResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Admin), |ctx, msg| async move {
                self.create_key(&ctx, msg).await
            })
            .await
    }

    async fn revoke_own_key(
        &self,
        req: Request<pb::RevokeOwnKeyRequest>,
    ) -> Result<Response<pb::RevokeOwnKeyResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Admin), |ctx, msg| async move {
                self.revoke_key(&ctx, msg).await
            })
            .await
    }

    async fn get_own_key_usage(
        &self,
        req: Request<pb::GetOwnKeyUsageRequest>,
    ) -> Result<Response<pb::GetOwnKeyUsageResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Read), |ctx, msg| async move {
                self.key_usage(&ctx, msg).await
            })
            .await
    }

    async fn update_own_webhook(
        &self,
        req: Request<pb::UpdateOwnWebhookRequest>,
    ) -> Result<Response<pb::UpdateOwnWebhookResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Admin), |ctx, msg| async move {
                self.update_webhook(&ctx, msg).await
            })
            .await
    }

    async fn list_own_deliveries(
        &self,
        req: Request<pb::ListOwnDeliveriesRequest>,
    ) -> Result<Response<pb::ListOwnDeliveriesResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Read), |ctx, msg| async move {
                self.deliveries(&ctx, msg).await
            })
            .await
    }

    async fn retry_own_delivery(
        &self,
        req: Request<pb::RetryOwnDeliveryRequest>,
    ) -> Result<Response<pb::RetryOwnDeliveryResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Admin), |ctx, msg| async move {
                self.retry(&ctx, msg).await
            })
            .await
    }

    async fn send_own_delivery_now(
        &self,
        req: Request<pb::SendOwnDeliveryNowRequest>,
    ) -> Result<Response<pb::SendOwnDeliveryNowResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Admin), |ctx, msg| async move {
                self.send_now(&ctx, msg).await
            })
            .await
    }

    async fn send_test_event(
        &self,
        req: Request<pb::SendTestEventRequest>,
    ) -> Result<Response<pb::SendTestEventResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Admin), |ctx, msg| async move {
                self.test_event(&ctx, msg).await
            })
            .await
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
