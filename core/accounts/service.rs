//! AdminService: accounts and keys for operators, behind the operator token.

use super::{Plan, Scope, Scopes, store};
use crate::audit::{self, Outcome::Done, Target};
use crate::error::CoreError;
use crate::pb::{self, admin_service_server::AdminService, convert};
use crate::rpc::{AdminAuth, parse_id, reply};
use sqlx::PgPool;
use tonic::{Request, Response, Status};

/// The AdminService of the core.
#[derive(Clone)]
pub(crate) struct Admin {
    pub(crate) pool: PgPool,
    pub(crate) auth: AdminAuth,
    /// This instance's key cache: what an operator changes here takes effect here at
    /// once (other instances hear of it by notification).
    pub(crate) keys: crate::gate::keys::KeyCache,
}

pub(crate) fn plan_to_pb(plan: Plan) -> pb::Plan {
    match plan {
        Plan::Free => pb::Plan::Free,
        Plan::Pro => pb::Plan::Pro,
        Plan::Enterprise => pb::Plan::Enterprise,
    }
}

fn plan_from_pb(value: i32) -> Result<Option<Plan>, CoreError> {
    match pb::Plan::try_from(value) {
        Ok(pb::Plan::Unspecified) => Ok(None),
        Ok(pb::Plan::Free) => Ok(Some(Plan::Free)),
        Ok(pb::Plan::Pro) => Ok(Some(Plan::Pro)),
        Ok(pb::Plan::Enterprise) => Ok(Some(Plan::Enterprise)),
        Err(_) => Err(CoreError::validation("unknown plan")),
    }
}

pub(crate) fn scope_from_pb(value: i32) -> Result<Scope, CoreError> {
    match pb::Scope::try_from(value) {
        Ok(pb::Scope::Read) => Ok(Scope::Read),
        Ok(pb::Scope::Write) => Ok(Scope::Write),
        Ok(pb::Scope::Admin) => Ok(Scope::Admin),
        _ => Err(CoreError::validation("scopes must be read, write or admin")),
    }
}

fn scope_to_pb(scope: Scope) -> pb::Scope {
    match scope {
        Scope::Read => pb::Scope::Read,
        Scope::Write => pb::Scope::Write,
        Scope::Admin => pb::Scope::Admin,
    }
}

pub(crate) fn account_to_pb(row: store::AccountRow) -> pb::Account {
    pb::Account {
        id: row.id.to_string(),
        plan: plan_to_pb(row.plan).into(),
        name: row.name,
        response_limit: row.response_limit,
        created_at: Some(convert::timestamp(row.created_at)),
        email: row.email,
    }
}

pub(crate) fn key_to_pb(row: store::KeyRow) -> pb::ApiKey {
    pb::ApiKey {
        id: row.id.to_string(),
        account_id: row.account_id.to_string(),
        prefix: format!("fsk_{}", row.lookup),
        scopes: Scopes::from_names(&row.scopes)
            .iter()
            .map(|s| scope_to_pb(s).into())
            .collect(),
        created_at: Some(convert::timestamp(row.created_at)),
        expires_at: row.expires_at.map(convert::timestamp),
        revoked_at: row.revoked_at.map(convert::timestamp),
    }
}

#[tonic::async_trait]
impl AdminService for Admin {
    async fn get_account(
        &self,
        req: Request<pb::GetAccountRequest>,
    ) -> Result<Response<pb::GetAccountResponse>, Status> {
        self.auth.check(&req)?;
        let name = req.into_inner().name;
        reply(
            store::find_account(&self.pool, &name)
                .await
                .map(|a| pb::GetAccountResponse {
                    account: Some(account_to_pb(a)),
                }),
        )
    }

    async fn update_account(
        &self,
        req: Request<pb::UpdateAccountRequest>,
    ) -> Result<Response<pb::UpdateAccountResponse>, Status> {
        self.auth.check(&req)?;
        let actor = self.auth.actor(&req);
        let req = req.into_inner();
        let result = async {
            let account = req.account.unwrap_or_default();
            let mut change = store::AccountChange::default();
            for path in req.update_mask.map(|m| m.paths).unwrap_or_default() {
                match path.as_str() {
                    "plan" => {
                        change.plan = Some(plan_from_pb(account.plan)?.ok_or_else(|| {
                            CoreError::validation("plan must be free, pro or enterprise")
                        })?)
                    }
                    "response_limit" => change.response_limit = Some(account.response_limit),
                    // Unset or empty removes the address.
                    "email" => {
                        let email = account.email.clone().map(|e| e.trim().to_owned());
                        change.email = Some(email.filter(|e| !e.is_empty()));
                    }
                    other => {
                        return Err(CoreError::Validation(format!(
                            "{other:?} cannot be updated"
                        )));
                    }
                }
            }
            let mut tx = self.pool.begin().await?;
            let row = store::update_account(&mut *tx, &req.name, &change).await?;
            let target = Target::account(row.id);
            let changed = change.names();
            let actor = actor.on_account(row.id);
            audit::record(&mut tx, &actor, "UpdateAccount", &target, &changed, Done).await?;
            tx.commit().await?;
            self.keys.forget_account(row.id);
            Ok(pb::UpdateAccountResponse {
                account: Some(account_to_pb(row)),
            })
        }
        .await;
        reply(result)
    }

    async fn create_key(
        &self,
        req: Request<pb::CreateKeyRequest>,
    ) -> Result<Response<pb::CreateKeyResponse>, Status> {
        self.auth.check(&req)?;
        let actor = self.auth.actor(&req);
        let req = req.into_inner();
        let result = async {
            let scopes = req
                .scopes
                .iter()
                .map(|s| scope_from_pb(*s))
                .collect::<Result<Vec<_>, _>>()?;
            let expires_at = match req.expires_in {
                Some(d) if d.seconds > 0 => Some(
                    chrono::Duration::try_seconds(d.seconds)
                        .and_then(|d| chrono::Utc::now().checked_add_signed(d))
                        .ok_or_else(|| CoreError::validation("expires_in is too long"))?,
                ),
                Some(_) => return Err(CoreError::validation("expires_in must be positive")),
                None => None,
            };
            let plan = plan_from_pb(req.plan)?;
            let mut tx = self.pool.begin().await?;
            let created = store::create_key(
                &mut tx,
                &req.account,
                plan,
                &Scopes::new(scopes),
                expires_at,
            )
            .await?;
            let target = Target::key(created.key_id);
            let actor = actor.on_account(created.account_id);
            audit::record(&mut tx, &actor, "CreateKey", &target, &["scopes"], Done).await?;
            tx.commit().await?;
            Ok(pb::CreateKeyResponse {
                key: created.key,
                key_id: created.key_id.to_string(),
                account_id: created.account_id.to_string(),
            })
        }
        .await;
        reply(result)
    }

    async fn revoke_key(
        &self,
        req: Request<pb::RevokeKeyRequest>,
    ) -> Result<Response<pb::RevokeKeyResponse>, Status> {
        self.auth.check(&req)?;
        let actor = self.auth.actor(&req);
        let key_id = req.into_inner().key_id;
        let result = async {
            let mut tx = self.pool.begin().await?;
            let row = store::revoke_key(&mut *tx, parse_id(&key_id, "key")?).await?;
            let actor = actor.on_account(row.account_id);
            let target = Target::key(row.id);
            audit::record(&mut tx, &actor, "RevokeKey", &target, &["revoked_at"], Done).await?;
            tx.commit().await?;
            self.keys.forget_key(&row.lookup);
            Ok(pb::RevokeKeyResponse {
                key: Some(key_to_pb(row)),
            })
        }
        .await;
        reply(result)
    }

    async fn list_keys(
        &self,
        req: Request<pb::ListKeysRequest>,
    ) -> Result<Response<pb::ListKeysResponse>, Status> {
        self.auth.check(&req)?;
        let account = req.into_inner().account;
        reply(
            store::list_keys(&self.pool, &account)
                .await
                .map(|rows| pb::ListKeysResponse {
                    keys: rows.into_iter().map(key_to_pb).collect(),
                }),
        )
    }

    async fn unlink_identity(
        &self,
        req: Request<pb::UnlinkIdentityRequest>,
    ) -> Result<Response<pb::UnlinkIdentityResponse>, Status> {
        self.auth.check(&req)?;
        let actor = self.auth.actor(&req);
        let req = req.into_inner();
        let result = async {
            let mut tx = self.pool.begin().await?;
            let issuer = req.issuer.as_deref();
            let account = store::unlink_identity(&mut tx, &req.name, issuer, &req.subject).await?;
            let actor = actor.on_account(account.id);
            let target = Target::account(account.id);
            audit::record(
                &mut tx,
                &actor,
                "UnlinkIdentity",
                &target,
                &["identities"],
                Done,
            )
            .await?;
            tx.commit().await?;
            Ok(pb::UnlinkIdentityResponse {
                account: Some(account_to_pb(account)),
            })
        };
        reply(result.await)
    }

    async fn link_identity(
        &self,
        req: Request<pb::LinkIdentityRequest>,
    ) -> Result<Response<pb::LinkIdentityResponse>, Status> {
        self.auth.check(&req)?;
        let actor = self.auth.actor(&req);
        let req = req.into_inner();
        let result = async {
            let mut tx = self.pool.begin().await?;
            let issuer = req.issuer.as_deref();
            let account = store::link_identity(&mut tx, &req.name, issuer, &req.subject).await?;
            let actor = actor.on_account(account.id);
            let target = Target::account(account.id);
            audit::record(
                &mut tx,
                &actor,
                "LinkIdentity",
                &target,
                &["identities"],
                Done,
            )
            .await?;
            tx.commit().await?;
            Ok(pb::LinkIdentityResponse {
                account: Some(account_to_pb(account)),
            })
        };
        reply(result.await)
    }
}
