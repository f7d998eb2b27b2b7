//! The owner's webhooks (OwnerService): editing a subscription, its delivery log,
//! retrying a failed delivery, sending a pending one now and the test event. Each
//! method first reads the subscription as the account's (`webhooks::store::get`), so
//! another account's is NotFound before anything else happens.

use super::owner::Owner;
use super::service::session_of;
use crate::audit::{self, Outcome::Done};
use crate::error::CoreError;
use crate::gate::Ctx;
use crate::paging::Page;
use crate::pb;
use crate::rpc::parse_id;
use crate::webhooks::{self, service as hooks};

/// The form and webhook a request names, as ids (a malformed one names nothing).
fn hook_ids(form_id: &str, webhook_id: &str) -> Result<(uuid::Uuid, uuid::Uuid), CoreError> {
    Ok((parse_id(form_id, "form")?, parse_id(webhook_id, "webhook")?))
}

impl Owner {
    pub(super) async fn update_webhook(
        &self,
        ctx: &Ctx,
        req: pb::UpdateOwnWebhookRequest,
    ) -> Result<pb::UpdateOwnWebhookResponse, CoreError> {
        session_of(ctx)?;
        let (form_id, id) = hook_ids(&req.form_id, &req.webhook_id)?;
        let mut row = webhooks::store::get(&self.pool, ctx.caller.account_id, form_id, id).await?;
        let new = req.webhook.unwrap_or_default();
        let changed = hooks::apply_mask(&mut row, new, req.update_mask, self.allow_private).await?;
        let mut tx = self.pool.begin().await?;
        let row = webhooks::store::update(&mut *tx, &row).await?;
        let target = audit::Target::webhook(id, Some(form_id));
        audit::record(
            &mut tx,
            &ctx.actor,
            "UpdateOwnWebhook",
            &target,
            &changed,
            Done,
        )
        .await?;
        tx.commit().await?;
        Ok(pb::UpdateOwnWebhookResponse {
            webhook: Some(hooks::webhook_of(row)),
        })
    }

    pub(super) async fn deliveries(
        &self,
        ctx: &Ctx,
        req: pb::ListOwnDeliveriesRequest,
    ) -> Result<pb::ListOwnDeliveriesResponse, CoreError> {
        session_of(ctx)?;
        let (form_id, id) = hook_ids(&req.form_id, &req.webhook_id)?;
        let page = Page::new(req.page, req.per_page)?;
        let account_id = ctx.caller.account_id;
        let page = &page;
        let deliveries = self
            .replicas
            .read(|pool| async move {
                let hook = webhooks::store::get(&pool, account_id, form_id, id).await?;
                hooks::deliveries_page(&pool, hook.id, page).await
            })
            .await?;
        Ok(pb::ListOwnDeliveriesResponse { deliveries })
    }

    pub(super) async fn retry(
        &self,
        ctx: &Ctx,
        req: pb::RetryOwnDeliveryRequest,
    ) -> Result<pb::RetryOwnDeliveryResponse, CoreError> {
        session_of(ctx)?;
        let (form_id, id) = hook_ids(&req.form_id, &req.webhook_id)?;
        let delivery_id = parse_id(&req.delivery_id, "delivery")?;
        let hook = webhooks::store::get(&self.pool, ctx.caller.account_id, form_id, id).await?;
        let by = (&ctx.actor, "RetryOwnDelivery");
        Ok(pb::RetryOwnDeliveryResponse {
            delivery: Some(
                hooks::retry_delivery(&self.pool, by, delivery_id, Some(hook.id)).await?,
            ),
        })
    }

    pub(super) async fn send_now(
        &self,
        ctx: &Ctx,
        req: pb::SendOwnDeliveryNowRequest,
    ) -> Result<pb::SendOwnDeliveryNowResponse, CoreError> {
        session_of(ctx)?;
        let (form_id, id) = hook_ids(&req.form_id, &req.webhook_id)?;
        let delivery_id = parse_id(&req.delivery_id, "delivery")?;
        let hook = webhooks::store::get(&self.pool, ctx.caller.account_id, form_id, id).await?;
        Ok(pb::SendOwnDeliveryNowResponse {
            delivery: Some(hooks::send_now(&self.pool, &ctx.actor, delivery_id, hook.id).await?),
        })
    }

    pub(super) async fn test_event(
        &self,
        ctx: &Ctx,
        req: pb::SendTestEventRequest,
    ) -> Result<pb::SendTestEventResponse, CoreError> {
        session_of(ctx)?;
        let (form_id, id) = hook_ids(&req.form_id, &req.webhook_id)?;
        let mut tx = self.pool.begin().await?;
        let row = webhooks::outbox::enqueue_test(
            &mut tx,
            ctx.caller.account_id,
            form_id,
            id,
            crate::forms::now_millis(),
        )
        .await?;
        let target = audit::Target::webhook(id, Some(form_id));
        audit::record(&mut tx, &ctx.actor, "SendTestEvent", &target, &[], Done).await?;
        tx.commit().await?;
        Ok(pb::SendTestEventResponse {
            delivery: Some(hooks::delivery_of(row)),
        })
    }
}
