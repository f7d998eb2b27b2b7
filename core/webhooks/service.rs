//! gRPC adapters: WebhooksService (API clients) and WebhookAdminService (operators).

use super::{check_events, check_name, signing, store, target};
use crate::accounts::Scope;
use crate::audit::{self, Actor, Outcome::Done};
use crate::error::CoreError;
use crate::forms::now_millis;
use crate::gate::{Ctx, Gate};
use crate::outbox::DeliveryStatus;
use crate::paging::Page;
use crate::pb::{
    self, convert, webhook_admin_service_server::WebhookAdminService,
    webhooks_service_server::WebhooksService,
};
use crate::rpc::AdminAuth;
use crate::rpc::parse_id;
use sqlx::PgPool;
use tonic::{Request, Response, Status};
use uuid::Uuid;

/// Subscriptions a form may have (each event is delivered to every one of them).
pub(crate) const MAX_WEBHOOKS_PER_FORM: i64 = 20;

fn webhook_to_pb(row: store::WebhookRow, secret: Option<String>) -> pb::Webhook {
    pb::Webhook {
        id: row.id.to_string(),
        form_id: row.form_id.to_string(),
        name: row.name,
        url: row.url,
        events: row.events,
        is_active: row.is_active,
        max_retries: row.max_retries,
        created_at: Some(convert::timestamp(row.created_at)),
        updated_at: Some(convert::timestamp(row.updated_at)),
        secret,
    }
}

/// The WebhooksService of the core.
#[derive(Clone)]
pub(crate) struct Webhooks {
    pub(crate) gate: Gate,
    pub(crate) pool: PgPool,
    /// Where the list's reads run (`db::replicas`).
    pub(crate) replicas: crate::db::Replicas,
    pub(crate) allow_private: bool,
}

impl Webhooks {
    async fn list(
        &self,
        ctx: Ctx,
        req: pb::ListWebhooksRequest,
    ) -> Result<pb::ListWebhooksResponse, CoreError> {
        let form_id = parse_id(&req.form_id, "form")?;
        let account_id = ctx.caller.account_id;
        let rows = self
            .replicas
            .read(|pool| async move {
                crate::forms::store::get(&pool, account_id, form_id).await?;
                store::list(&pool, account_id, form_id).await
            })
            .await?;
        Ok(pb::ListWebhooksResponse {
            webhooks: rows.into_iter().map(|r| webhook_to_pb(r, None)).collect(),
        })
    }

    async fn create(
        &self,
        ctx: Ctx,
        req: pb::CreateWebhookRequest,
    ) -> Result<pb::CreateWebhookResponse, CoreError> {
        let form_id = parse_id(&req.form_id, "form")?;
        crate::forms::store::get(&self.pool, ctx.caller.account_id, form_id).await?;
        check_name(&req.name)?;
        let events = check_events(&req.events)?;
        let url = target::check_url(&req.url, self.allow_private).await?;
        let secret = signing::new_secret();
        let mut tx = self.pool.begin().await?;
        // Each event of a form is fanned out to its subscriptions: a bounded number.
        if store::count_for_form_locked(&mut tx, form_id).await? >= MAX_WEBHOOKS_PER_FORM {
            return Err(CoreError::Validation(format!(
                "a form has at most {MAX_WEBHOOKS_PER_FORM} webhooks; delete one first"
            )));
        }
        let row = store::insert(
            &mut tx,
            ctx.caller.account_id,
            form_id,
            req.name.trim(),
            url.as_str(),
            &events,
            &secret,
            now_millis(),
        )
        .await?;
        let target = audit::Target::webhook(row.id, Some(form_id));
        let changed = ["name", "url", "events", "secret"];
        audit::record(
            &mut tx,
            &ctx.actor,
            "CreateWebhook",
            &target,
            &changed,
            Done,
        )
        .await?;
        tx.commit().await?;
        Ok(pb::CreateWebhookResponse {
            webhook: Some(webhook_to_pb(row, Some(secret))),
        })
    }

    async fn delete(
        &self,
        ctx: Ctx,
        req: pb::DeleteWebhookRequest,
    ) -> Result<pb::DeleteWebhookResponse, CoreError> {
        let form_id = parse_id(&req.form_id, "webhook")?;
        let id = parse_id(&req.id, "webhook")?;
        let mut tx = self.pool.begin().await?;
        store::delete(&mut tx, ctx.caller.account_id, form_id, id).await?;
        let target = audit::Target::webhook(id, Some(form_id));
        audit::record(&mut tx, &ctx.actor, "DeleteWebhook", &target, &[], Done).await?;
        tx.commit().await?;
        Ok(pb::DeleteWebhookResponse {})
    }
}

#[tonic::async_trait]
impl WebhooksService for Webhooks {
    async fn list_webhooks(
        &self,
        req: Request<pb::ListWebhooksRequest>,
    ) -> Result<Response<pb::ListWebhooksResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Read), |ctx, m| self.list(ctx, m))
            .await
    }
    async fn create_webhook(
        &self,
        req: Request<pb::CreateWebhookRequest>,
    ) -> Result<Response<pb::CreateWebhookResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Admin), |ctx, m| self.create(ctx, m))
            .await
    }
    async fn delete_webhook(
        &self,
        req: Request<pb::DeleteWebhookRequest>,
    ) -> Result<Response<pb::DeleteWebhookResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Admin), |ctx, m| self.delete(ctx, m))
            .await
    }
}

/// The WebhookAdminService of the core (operator token).
#[derive(Clone)]
pub(crate) struct WebhookAdmin {
    pub(crate) pool: PgPool,
    pub(crate) auth: AdminAuth,
    pub(crate) allow_private: bool,
}

fn delivery_to_pb(row: store::DeliveryRow, attempts: Vec<pb::DeliveryAttempt>) -> pb::Delivery {
    let status = pb::DeliveryStatus::from(row.status);
    pb::Delivery {
        id: row.id.to_string(),
        webhook_id: row.webhook_id.map(|id| id.to_string()).unwrap_or_default(),
        event: row.event,
        status: status.into(),
        next_attempt_at: (status == pb::DeliveryStatus::Pending)
            .then(|| convert::timestamp(row.next_attempt_at)),
        created_at: Some(convert::timestamp(row.created_at)),
        attempts,
        body: None,
    }
}

/// Applies the paths of `mask` to `row` with the values of `new`, validated as a create
/// validates them (operators and the owner's dashboard alike).
pub(crate) async fn apply_mask(
    row: &mut store::WebhookRow,
    new: pb::Webhook,
    mask: Option<prost_types::FieldMask>,
    allow_private: bool,
) -> Result<Vec<&'static str>, CoreError> {
    let mut changed = Vec::new();
    for path in mask.map(|m| m.paths).unwrap_or_default() {
        changed.push(match path.as_str() {
            "name" => "name",
            "url" => "url",
            "events" => "events",
            "is_active" => "is_active",
            _ => "",
        });
        match path.as_str() {
            "name" => {
                check_name(&new.name)?;
                row.name = new.name.trim().to_owned();
            }
            "url" => {
                row.url = target::check_url(&new.url, allow_private)
                    .await?
                    .to_string()
            }
            "events" => row.events = check_events(&new.events)?,
            "is_active" => row.is_active = new.is_active,
            other => {
                return Err(CoreError::Validation(format!(
                    "{other:?} cannot be updated; updatable: name, url, events, is_active"
                )));
            }
        }
    }
    row.updated_at = now_millis();
    changed.sort_unstable();
    changed.dedup();
    Ok(changed)
}

/// A subscription as replies show it, without its secret.
pub(crate) fn webhook_of(row: store::WebhookRow) -> pb::Webhook {
    webhook_to_pb(row, None)
}

/// One page of subscription `webhook_id`'s deliveries, newest first, with their
/// attempts (the caller has checked whose subscription it is).
pub(crate) async fn deliveries_page(
    pool: &PgPool,
    webhook_id: Uuid,
    page: &Page,
) -> Result<Vec<pb::Delivery>, CoreError> {
    let rows = store::list_deliveries(pool, webhook_id, page.limit(), page.offset()).await?;
    let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
    let attempts = store::list_attempts(pool, &ids).await?;
    Ok(rows
        .into_iter()
        .map(|listed| {
            // The body is the JSON the service wrote: text, unless a byte went astray.
            let body = String::from_utf8_lossy(&listed.payload).into_owned();
            let row = store::DeliveryRow {
                id: listed.id,
                webhook_id: listed.webhook_id,
                event: listed.event,
                status: listed.status,
                next_attempt_at: listed.next_attempt_at,
                created_at: listed.created_at,
            };
            let mine = attempts
                .iter()
                .filter(|a| a.delivery_id == row.id)
                .map(|a| pb::DeliveryAttempt {
                    attempted_at: Some(convert::timestamp(a.attempted_at)),
                    status_code: a.status_code,
                    duration_ms: a.duration_ms,
                    error: a.error.clone(),
                    response_body: a.response_body.clone(),
                })
                .collect();
            pb::Delivery {
                body: Some(body),
                ..delivery_to_pb(row, mine)
            }
        })
        .collect())
}

/// Makes failed delivery `id` (of subscription `webhook_id`, when given) due again now.
/// NotFound when there is no such delivery; a delivery that has not failed is a
/// validation error (INVALID_ARGUMENT, VALIDATION_ERROR) and is left as it is.
pub(crate) async fn retry_delivery(
    pool: &PgPool,
    (actor, action): (&Actor, &'static str),
    id: Uuid,
    webhook_id: Option<Uuid>,
) -> Result<pb::Delivery, CoreError> {
    let mut tx = pool.begin().await?;
    let Some(row) = store::retry_failed(&mut *tx, id, webhook_id).await? else {
        drop(tx);
        return Err(match store::delivery_status(pool, id, webhook_id).await? {
            None => CoreError::NotFound("delivery"),
            Some(status) => CoreError::Validation(format!(
                "only failed deliveries can be retried; this one is {status}"
            )),
        });
    };
    record_delivery(&mut tx, actor, action, id).await?;
    tx.commit().await?;
    crate::outbox::store::notify(pool, super::outbox::CHANNEL).await?;
    Ok(delivery_to_pb(row, Vec::new()))
}

/// Records an action on delivery `id` in the chain of its account (an operator's
/// actor names none).
async fn record_delivery(
    tx: &mut sqlx::PgConnection,
    actor: &Actor,
    action: &'static str,
    id: Uuid,
) -> Result<(), CoreError> {
    let actor = match actor.account_id {
        Some(_) => actor.clone(),
        None => match store::account_of_delivery(&mut *tx, id).await? {
            Some(account) => actor.on_account(account),
            None => actor.clone(),
        },
    };
    audit::record(tx, &actor, action, &audit::Target::delivery(id), &[], Done).await
}

/// Makes pending delivery `id` of subscription `webhook_id` due now (`store::due_now`),
/// and wakes the dispatchers. NotFound when there is no such delivery; one not pending,
/// or being attempted at this moment, is a validation error and is left as it is.
pub(crate) async fn send_now(
    pool: &PgPool,
    actor: &Actor,
    id: Uuid,
    webhook_id: Uuid,
) -> Result<pb::Delivery, CoreError> {
    let mut tx = pool.begin().await?;
    let Some(row) = store::due_now(&mut *tx, id, webhook_id).await? else {
        drop(tx);
        return Err(
            match store::delivery_status(pool, id, Some(webhook_id)).await? {
                None => CoreError::NotFound("delivery"),
                Some(DeliveryStatus::Pending) => CoreError::validation(
                    "this delivery is being attempted at this moment; see its outcome in the log",
                ),
                Some(status) => CoreError::Validation(format!(
                    "only a delivery waiting for its next attempt can be sent now; this one is {status}"
                )),
            },
        );
    };
    record_delivery(&mut tx, actor, "SendOwnDeliveryNow", id).await?;
    tx.commit().await?;
    crate::outbox::store::notify(pool, super::outbox::CHANNEL).await?;
    Ok(delivery_to_pb(row, Vec::new()))
}

/// A delivery as replies show it.
pub(crate) fn delivery_of(row: store::DeliveryRow) -> pb::Delivery {
    delivery_to_pb(row, Vec::new())
}

impl WebhookAdmin {
    async fn update(
        &self,
        actor: Actor,
        req: pb::UpdateWebhookRequest,
    ) -> Result<pb::UpdateWebhookResponse, CoreError> {
        let id = parse_id(&req.id, "webhook")?;
        let mut row = store::get_any(&self.pool, id).await?;
        let changed = apply_mask(
            &mut row,
            req.webhook.unwrap_or_default(),
            req.update_mask,
            self.allow_private,
        )
        .await?;
        let mut tx = self.pool.begin().await?;
        let row = store::update(&mut *tx, &row).await?;
        let actor = match store::account_of_webhook(&mut *tx, id).await? {
            Some(account) => actor.on_account(account),
            None => actor,
        };
        let target = audit::Target::webhook(id, Some(row.form_id));
        audit::record(&mut tx, &actor, "UpdateWebhook", &target, &changed, Done).await?;
        tx.commit().await?;
        Ok(pb::UpdateWebhookResponse {
            webhook: Some(webhook_to_pb(row, None)),
        })
    }

    async fn deliveries(
        &self,
        req: pb::ListDeliveriesRequest,
    ) -> Result<pb::ListDeliveriesResponse, CoreError> {
        let id = parse_id(&req.webhook_id, "webhook")?;
        let page = Page::new(req.page, req.per_page)?;
        Ok(pb::ListDeliveriesResponse {
            deliveries: deliveries_page(&self.pool, id, &page).await?,
        })
    }

    async fn retry(
        &self,
        actor: Actor,
        req: pb::RetryDeliveryRequest,
    ) -> Result<pb::RetryDeliveryResponse, CoreError> {
        let id = parse_id(&req.id, "delivery")?;
        let by = (&actor, "RetryDelivery");
        Ok(pb::RetryDeliveryResponse {
            delivery: Some(retry_delivery(&self.pool, by, id, None).await?),
        })
    }
}

#[tonic::async_trait]
impl WebhookAdminService for WebhookAdmin {
    async fn update_webhook(
        &self,
        req: Request<pb::UpdateWebhookRequest>,
    ) -> Result<Response<pb::UpdateWebhookResponse>, Status> {
        self.auth.check(&req)?;
        let actor = self.auth.actor(&req);
        crate::rpc::reply(self.update(actor, req.into_inner()).await)
    }
    async fn list_deliveries(
        &self,
        req: Request<pb::ListDeliveriesRequest>,
    ) -> Result<Response<pb::ListDeliveriesResponse>, Status> {
        self.auth.check(&req)?;
        crate::rpc::reply(self.deliveries(req.into_inner()).await)
    }
    async fn retry_delivery(
        &self,
        req: Request<pb::RetryDeliveryRequest>,
    ) -> Result<Response<pb::RetryDeliveryResponse>, Status> {
        self.auth.check(&req)?;
        let actor = self.auth.actor(&req);
        crate::rpc::reply(self.retry(actor, req.into_inner()).await)
    }
}
