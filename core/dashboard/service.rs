//! `SessionsService`: signing in to the dashboard, and the sessions it opens.

use super::throttle::SignInThrottle;
use super::{LINK_LIFETIME, Method, digest, new_token, store};
use crate::config::CoreConfig;
use crate::error::CoreError;
use crate::gate::{Ctx, Dashboard, Gate, client_ip};
use crate::pb::{self, convert::timestamp, sessions_service_server::SessionsService};
use crate::rpc::{AdminAuth, reply};
use sqlx::PgPool;
use std::net::IpAddr;
use std::sync::Arc;
use tonic::{Request, Response, Status};
use uuid::Uuid;

#[derive(Clone)]
pub(crate) struct Sessions {
    pub(crate) gate: Gate,
    pub(crate) pool: PgPool,
    pub(crate) config: Arc<CoreConfig>,
    pub(crate) auth: AdminAuth,
    pub(crate) throttle: Arc<SignInThrottle>,
}

/// The session of a call made with one; Unauthenticated for any other credential.
pub(crate) fn session_of(ctx: &Ctx) -> Result<&Dashboard, CoreError> {
    ctx.caller
        .dashboard
        .as_ref()
        .ok_or(CoreError::InsufficientScope("dashboard session"))
}

impl Sessions {
    fn client<T>(&self, req: &Request<T>) -> IpAddr {
        client_ip(req, &self.config.trusted_proxies)
    }

    /// Opens a session of `account_id`, once the attempt is within the account's
    /// allowance.
    async fn open(
        &self,
        account_id: Uuid,
        method: Method,
    ) -> Result<pb::DashboardSession, CoreError> {
        self.throttle.at_account(account_id)?;
        let token = new_token();
        let session = store::create_session(
            &self.pool,
            account_id,
            &digest(&token),
            method,
            self.config.dashboard.lifetime,
        )
        .await?;
        tracing::info!(account_id = %account_id, session_id = %session.session_id, method = method.as_str(), "dashboard sign-in");
        Ok(pb::DashboardSession {
            csrf_token: super::csrf_of(&token),
            token,
            account_id: session.account_id.to_string(),
            account_name: session.account_name,
            expires_at: Some(timestamp(session.expires_at)),
            method: session.method,
        })
    }

    async fn create_link(
        &self,
        req: pb::CreateSignInLinkRequest,
    ) -> Result<pb::CreateSignInLinkResponse, CoreError> {
        let account = crate::accounts::store::find_account(&self.pool, &req.account).await?;
        let token = new_token();
        let expires =
            store::create_link(&self.pool, account.id, &digest(&token), LINK_LIFETIME).await?;
        Ok(pb::CreateSignInLinkResponse {
            token,
            expires_at: Some(timestamp(expires)),
        })
    }

    async fn redeem(&self, ip: IpAddr, token: &str) -> Result<pb::DashboardSession, CoreError> {
        self.throttle.from_ip(ip)?;
        let account = store::redeem_link(&self.pool, &digest(token))
            .await?
            .ok_or(CoreError::KeyInvalid)?;
        self.open(account, Method::Link).await
    }

    async fn with_cookie(
        &self,
        ip: IpAddr,
        md: &tonic::metadata::MetadataMap,
    ) -> Result<pb::DashboardSession, CoreError> {
        self.throttle.from_ip(ip)?;
        let verifier = self
            .config
            .sessions
            .as_ref()
            .ok_or(CoreError::Unauthenticated)?;
        let token = md
            .get_all("cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find_map(|header| verifier.token(header))
            .ok_or(CoreError::Unauthenticated)?;
        let subject = verifier.subject(token)?;
        let account = store::account_of_subject(&self.pool, &subject)
            .await?
            .ok_or(CoreError::KeyInvalid)?;
        self.open(account, Method::Cookie).await
    }
}

/// The session of a call as GetSession shows it: without its token.
fn shown(ctx: &Ctx) -> Result<pb::DashboardSession, CoreError> {
    let session = session_of(ctx)?;
    Ok(pb::DashboardSession {
        token: String::new(),
        csrf_token: super::csrf_of(&session.token),
        account_id: ctx.caller.account_id.to_string(),
        account_name: session.account_name.clone(),
        expires_at: Some(timestamp(session.expires_at)),
        method: session.method.clone(),
    })
}

#[tonic::async_trait]
impl SessionsService for Sessions {
    async fn create_sign_in_link(
        &self,
        req: Request<pb::CreateSignInLinkRequest>,
    ) -> Result<Response<pb::CreateSignInLinkResponse>, Status> {
        self.auth.check(&req)?;
        reply(self.create_link(req.into_inner()).await)
    }

    async fn mail_sign_in_link(
        &self,
        _req: Request<pb::MailSignInLinkRequest>,
    ) -> Result<Response<pb::MailSignInLinkResponse>, Status> {
        Err(Status::unimplemented(
            "mailed sign-in links are not built yet",
        ))
    }

    async fn redeem_sign_in_link(
        &self,
        req: Request<pb::RedeemSignInLinkRequest>,
    ) -> Result<Response<pb::RedeemSignInLinkResponse>, Status> {
        let ip = self.client(&req);
        let session = self.redeem(ip, &req.into_inner().token).await;
        reply(session.map(|s| pb::RedeemSignInLinkResponse { session: Some(s) }))
    }

    async fn sign_in_with_provider_cookie(
        &self,
        req: Request<pb::SignInWithProviderCookieRequest>,
    ) -> Result<Response<pb::SignInWithProviderCookieResponse>, Status> {
        let ip = self.client(&req);
        let session = self.with_cookie(ip, req.metadata()).await;
        reply(session.map(|s| pb::SignInWithProviderCookieResponse { session: Some(s) }))
    }

    async fn begin_oidc_sign_in(
        &self,
        _req: Request<pb::BeginOidcSignInRequest>,
    ) -> Result<Response<pb::BeginOidcSignInResponse>, Status> {
        Err(Status::unimplemented(
            "OpenID Connect sign-in is not built yet",
        ))
    }

    async fn finish_oidc_sign_in(
        &self,
        _req: Request<pb::FinishOidcSignInRequest>,
    ) -> Result<Response<pb::FinishOidcSignInResponse>, Status> {
        Err(Status::unimplemented(
            "OpenID Connect sign-in is not built yet",
        ))
    }

    async fn get_session(
        &self,
        req: Request<pb::GetSessionRequest>,
    ) -> Result<Response<pb::GetSessionResponse>, Status> {
        self.gate
            .call(req, None, |ctx, _| async move {
                Ok(pb::GetSessionResponse {
                    session: Some(shown(&ctx)?),
                })
            })
            .await
    }

    async fn end_session(
        &self,
        req: Request<pb::EndSessionRequest>,
    ) -> Result<Response<pb::EndSessionResponse>, Status> {
        let pool = self.pool.clone();
        self.gate
            .call(
                req,
                Some(crate::accounts::Scope::Write),
                |ctx, _| async move {
                    let session = session_of(&ctx)?;
                    store::end_session(&pool, session.session_id).await?;
                    tracing::info!(session_id = %session.session_id, "dashboard sign-out");
                    Ok(pb::EndSessionResponse {})
                },
            )
            .await
    }
}
