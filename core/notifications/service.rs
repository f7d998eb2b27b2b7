//! NotificationAdminService: operators see the recent notifications and their attempts.

use super::store;
use crate::error::CoreError;
use crate::outbox::DeliveryStatus;
use crate::pb::{self, convert, notification_admin_service_server::NotificationAdminService};
use crate::rpc::{AdminAuth, reply};
use sqlx::PgPool;
use std::collections::HashMap;
use tonic::{Request, Response, Status};
use uuid::Uuid;

/// The NotificationAdminService of the core.
#[derive(Clone)]
pub(crate) struct NotificationAdmin {
    pub(crate) pool: PgPool,
    pub(crate) auth: AdminAuth,
}

impl NotificationAdmin {
    async fn list(
        &self,
        req: pb::ListNotificationsRequest,
    ) -> Result<pb::ListNotificationsResponse, CoreError> {
        let limit = i64::from(req.limit.unwrap_or(25).clamp(1, 100));
        let account = match req.account.as_str() {
            "" => None,
            name => Some(
                crate::accounts::store::find_account(&self.pool, name)
                    .await?
                    .id,
            ),
        };
        let rows = store::list_recent(&self.pool, account, limit).await?;
        let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
        let mut attempts: HashMap<Uuid, Vec<pb::NotificationAttempt>> = HashMap::new();
        for a in store::list_attempts(&self.pool, &ids).await? {
            attempts
                .entry(a.notification_id)
                .or_default()
                .push(pb::NotificationAttempt {
                    attempted_at: Some(convert::timestamp(a.attempted_at)),
                    duration_ms: a.duration_ms,
                    recipient: a.recipient,
                    error: a.error,
                    reply: a.reply,
                });
        }
        let notifications = rows
            .into_iter()
            .map(|r| pb::Notification {
                id: r.id.to_string(),
                account_id: r.account_id.to_string(),
                form_id: r.form_id.to_string(),
                response_id: r.response_id.map(|id| id.to_string()),
                status: pb::DeliveryStatus::from(r.status).into(),
                next_attempt_at: (r.status == DeliveryStatus::Pending)
                    .then(|| convert::timestamp(r.next_attempt_at)),
                created_at: Some(convert::timestamp(r.created_at)),
                attempts: attempts.remove(&r.id).unwrap_or_default(),
            })
            .collect();
        Ok(pb::ListNotificationsResponse { notifications })
    }
}

#[tonic::async_trait]
impl NotificationAdminService for NotificationAdmin {
    async fn list_notifications(
        &self,
        req: Request<pb::ListNotificationsRequest>,
    ) -> Result<Response<pb::ListNotificationsResponse>, Status> {
        self.auth.check(&req)?;
        reply(self.list(req.into_inner()).await)
    }
}
