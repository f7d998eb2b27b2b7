//! `SessionsService`: signing in to the dashboard, and the sessions it opens.

use super::throttle::SignInThrottle;
use super::{LINK_LIFETIME, Method, digest, new_token, store};
use crate::accounts::store::account_of_identity;
use crate::audit::{self, Actor, Outcome::Done, Outcome::Refused};
use crate::config::CoreConfig;
use crate::error::CoreError;
use crate::gate::{Ctx, Dashboard, Gate, client_ip, user_agent};
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
    /// The OpenID provider, when one is configured (shared by every `routes()`).
    pub(crate) oidc: Option<Arc<super::oidc::Provider>>,
    /// The queue of mailed sign-in links, when SMTP and a public URL are configured.
    pub(crate) link_mail: Option<super::link_mail::LinkMail>,
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
        client_ip(req, self.config.edge_secret.as_deref())
    }

    /// Whoever attempts a sign-in, as the audit trail names them until it succeeds.
    fn visitor<T>(&self, req: &Request<T>) -> Actor {
        let agent = user_agent(req, self.config.edge_secret.as_deref());
        Actor::visitor(self.client(req), &agent)
    }

    /// Records a sign-in attempt refused for its credential (a link unknown or spent,
    /// an identity linked to no account), in a transaction of its own: nothing else
    /// changed. Attempts refused by the throttle are not recorded (they are what a
    /// flood looks like, and the throttle already counts them).
    async fn audited<T>(
        &self,
        visitor: &Actor,
        action: &'static str,
        result: Result<T, CoreError>,
    ) -> Result<T, CoreError> {
        if let Err(CoreError::KeyInvalid) = &result {
            let nothing = audit::Target::nothing();
            audit::record_alone(&self.pool, visitor, action, &nothing, &[], Refused).await?;
        }
        result
    }

    /// Opens a session of `account_id` for `signer`, once the attempt is within the
    /// account's allowance; the sign-in is recorded in the account's trail with the
    /// session.
    pub(crate) async fn open(
        &self,
        by: (&Actor, &'static str),
        account_id: Uuid,
        signer: store::Signer<'_>,
    ) -> Result<pb::DashboardSession, CoreError> {
        let mut tx = self.pool.begin().await?;
        let session = self.open_in(&mut tx, by, account_id, signer).await?;
        tx.commit().await?;
        Ok(session)
    }

    /// [`Sessions::open`] inside the caller's transaction, so that what made the
    /// sign-in possible (an invitation spent, a membership) commits with it.
    pub(crate) async fn open_in(
        &self,
        tx: &mut sqlx::PgConnection,
        (visitor, action): (&Actor, &'static str),
        account_id: Uuid,
        signer: store::Signer<'_>,
    ) -> Result<pb::DashboardSession, CoreError> {
        self.throttle.at_account(account_id)?;
        let token = new_token();
        let session = store::create_session(
            &mut *tx,
            account_id,
            &digest(&token),
            signer,
            self.config.dashboard.lifetime,
        )
        .await?;
        let actor = visitor.in_session(account_id, session.session_id);
        let target = audit::Target::session(session.session_id);
        audit::record(&mut *tx, &actor, action, &target, &[], Done).await?;
        let method = signer.method.as_str();
        tracing::info!(account_id = %account_id, session_id = %session.session_id, method, "dashboard sign-in");
        Ok(pb::DashboardSession {
            csrf_token: super::csrf_of(&token),
            token,
            account_id: session.account_id.to_string(),
            account_name: session.account_name,
            expires_at: Some(timestamp(session.expires_at)),
            method: session.method,
            role: String::new(),
        })
    }

    async fn create_link(
        &self,
        operator: Actor,
        req: pb::CreateSignInLinkRequest,
    ) -> Result<pb::CreateSignInLinkResponse, CoreError> {
        let account = crate::accounts::store::find_account(&self.pool, &req.account).await?;
        let token = new_token();
        let mut tx = self.pool.begin().await?;
        let expires =
            store::create_link(&mut *tx, (account.id, None), &digest(&token), LINK_LIFETIME)
                .await?;
        let (actor, target) = (
            operator.on_account(account.id),
            audit::Target::account(account.id),
        );
        audit::record(&mut tx, &actor, "CreateSignInLink", &target, &[], Done).await?;
        tx.commit().await?;
        Ok(pb::CreateSignInLinkResponse {
            token,
            expires_at: Some(timestamp(expires)),
        })
    }

    async fn redeem(
        &self,
        (ip, visitor): (IpAddr, &Actor),
        token: &str,
    ) -> Result<pb::DashboardSession, CoreError> {
        self.throttle.from_ip(ip)?;
        let digest = digest(token);
        let (account, person) = store::redeem_link(&self.pool, &digest)
            .await?
            .ok_or(CoreError::KeyInvalid)?;
        let by = (visitor, "RedeemSignInLink");
        let signer = store::Signer {
            method: Method::Link,
            identity: None,
            person,
            signed_in_at: None,
        };
        let opened = self.open(by, account, signer).await;
        if let Err(CoreError::RateLimited { .. }) = &opened {
            store::give_back_link(&self.pool, &digest).await?;
        }
        opened
    }

    async fn begin_oidc(
        &self,
        ip: IpAddr,
        redirect_uri: &str,
    ) -> Result<pb::BeginOidcSignInResponse, Status> {
        let provider = self.oidc.as_ref().ok_or_else(|| {
            Status::failed_precondition("OpenID Connect sign-in is not configured (--oidc-issuer)")
        })?;
        let begun = async {
            // Each attempt stores a row: unauthenticated writes are throttled too.
            self.throttle.from_ip(ip)?;
            provider.begin(&self.pool, redirect_uri).await
        };
        let begun = begun
            .await
            .map_err(|e| e.into_status(&Uuid::new_v4().to_string()))?;
        Ok(pb::BeginOidcSignInResponse {
            authorization_url: begun.authorization_url,
            state: begun.state,
        })
    }

    async fn finish_oidc(
        &self,
        (ip, visitor): (IpAddr, &Actor),
        req: &pb::FinishOidcSignInRequest,
    ) -> Result<pb::DashboardSession, CoreError> {
        let provider = self.oidc.as_ref().ok_or(CoreError::KeyInvalid)?;
        self.throttle.from_ip(ip)?;
        let subject = provider.finish(&self.pool, &req.state, &req.code).await?;
        // The identity is the pair: the same `sub` at another provider is someone else.
        let identity = store::Identity {
            issuer: provider.issuer(),
            subject: &subject,
        };
        let account = account_of_identity(&self.pool, identity.issuer, &subject).await?;
        let Some(account) = account else {
            tracing::info!("OpenID sign-in refused: the subject is not linked to an account");
            return Err(CoreError::KeyInvalid);
        };
        let by = (visitor, "FinishOidcSignIn");
        self.open(by, account, store::Signer::of(Method::Oidc, identity))
            .await
    }

    /// Mails a sign-in link to the account with address `email`, if there is one. The
    /// caller learns nothing either way: the look-up and the mail happen after the
    /// reply, off the request path, so that neither the answer nor its timing tells
    /// which addresses are known.
    ///
    /// The link is built on the core's own `--public-url`, never on anything the caller
    /// sends (the request's `base_url` is ignored): anyone may call this, and a link to
    /// a host of the caller's choosing would carry the owner's token there. Without a
    /// public URL, nothing is mailed.
    fn mail_link(&self, ip: IpAddr, req: pb::MailSignInLinkRequest) -> Result<(), CoreError> {
        self.throttle.from_ip(ip)?;
        if let Some(link_mail) = &self.link_mail {
            link_mail.ask(req.email.trim());
        }
        Ok(())
    }

    async fn with_cookie(
        &self,
        (ip, visitor): (IpAddr, &Actor),
        md: &tonic::metadata::MetadataMap,
    ) -> Result<pb::DashboardSession, CoreError> {
        self.throttle.from_ip(ip)?;
        let verifier = self
            .config
            .sessions
            .as_ref()
            .ok_or(CoreError::Unauthenticated)?;
        let token = verifier.token_in(md).ok_or(CoreError::Unauthenticated)?;
        let subject = verifier.subject(token)?;
        let identity = store::Identity {
            issuer: verifier.issuer(),
            subject: &subject,
        };
        let account = account_of_identity(&self.pool, identity.issuer, &subject)
            .await?
            .ok_or(CoreError::KeyInvalid)?;
        let by = (visitor, "SignInWithProviderCookie");
        self.open(by, account, store::Signer::of(Method::Cookie, identity))
            .await
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
        role: ctx
            .caller
            .member
            .as_ref()
            .map(|m| m.role.as_str().to_owned())
            .unwrap_or_default(),
    })
}

#[tonic::async_trait]
impl SessionsService for Sessions {
    async fn create_sign_in_link(
        &self,
        req: Request<pb::CreateSignInLinkRequest>,
    ) -> Result<Response<pb::CreateSignInLinkResponse>, Status> {
        self.auth.check(&req)?;
        let operator = self.auth.actor(&req);
        reply(self.create_link(operator, req.into_inner()).await)
    }

    async fn mail_sign_in_link(
        &self,
        req: Request<pb::MailSignInLinkRequest>,
    ) -> Result<Response<pb::MailSignInLinkResponse>, Status> {
        let ip = self.client(&req);
        reply(
            self.mail_link(ip, req.into_inner())
                .map(|()| pb::MailSignInLinkResponse {}),
        )
    }

    async fn redeem_sign_in_link(
        &self,
        req: Request<pb::RedeemSignInLinkRequest>,
    ) -> Result<Response<pb::RedeemSignInLinkResponse>, Status> {
        let (ip, visitor) = (self.client(&req), self.visitor(&req));
        let session = self.redeem((ip, &visitor), &req.into_inner().token).await;
        let session = self.audited(&visitor, "RedeemSignInLink", session).await;
        reply(session.map(|s| pb::RedeemSignInLinkResponse { session: Some(s) }))
    }

    async fn sign_in_with_provider_cookie(
        &self,
        req: Request<pb::SignInWithProviderCookieRequest>,
    ) -> Result<Response<pb::SignInWithProviderCookieResponse>, Status> {
        let (ip, visitor) = (self.client(&req), self.visitor(&req));
        let session = self.with_cookie((ip, &visitor), req.metadata()).await;
        let session = self
            .audited(&visitor, "SignInWithProviderCookie", session)
            .await;
        reply(session.map(|s| pb::SignInWithProviderCookieResponse { session: Some(s) }))
    }

    async fn begin_oidc_sign_in(
        &self,
        req: Request<pb::BeginOidcSignInRequest>,
    ) -> Result<Response<pb::BeginOidcSignInResponse>, Status> {
        let ip = self.client(&req);
        self.begin_oidc(ip, &req.into_inner().redirect_uri)
            .await
            .map(Response::new)
    }

    async fn finish_oidc_sign_in(
        &self,
        req: Request<pb::FinishOidcSignInRequest>,
    ) -> Result<Response<pb::FinishOidcSignInResponse>, Status> {
        let (ip, visitor) = (self.client(&req), self.visitor(&req));
        let session = self.finish_oidc((ip, &visitor), req.get_ref()).await;
        let session = self.audited(&visitor, "FinishOidcSignIn", session).await;
        reply(session.map(|s| pb::FinishOidcSignInResponse { session: Some(s) }))
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
                    let mut tx = pool.begin().await?;
                    store::end_session(&mut *tx, session.session_id).await?;
                    let target = audit::Target::session(session.session_id);
                    audit::record(&mut tx, &ctx.actor, "EndSession", &target, &[], Done).await?;
                    tx.commit().await?;
                    tracing::info!(session_id = %session.session_id, "dashboard sign-out");
                    Ok(pb::EndSessionResponse {})
                },
            )
            .await
    }
}
