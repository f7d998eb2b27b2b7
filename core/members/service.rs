//! `MembersService`: the people of an account, their roles and invitations. Every
//! method but AcceptInvitation passes the gate, which has checked the method's least
//! role (`gate::permissions`); the rules about the member acted on are `rules`'.

use super::{INVITATION_LIFETIME, rules, store};
use crate::accounts::{Scope, check_email};
use crate::audit::{self, Outcome::Done, Target};
use crate::dashboard::link_mail::Invitation;
use crate::dashboard::service::{Sessions, session_of};
use crate::dashboard::store::{Identity, Signer};
use crate::dashboard::{self, Method, digest, new_token};
use crate::error::CoreError;
use crate::gate::{Ctx, Gate, Member, Role, client_ip, user_agent};
use crate::pb::{self, convert::timestamp, members_service_server::MembersService};
use crate::rpc::{parse_id, reply};
use tonic::{Request, Response, Status};

#[derive(Clone)]
pub(crate) struct Members {
    pub(crate) gate: Gate,
    /// Signing in (a session of the account joined or switched to).
    pub(crate) sessions: Sessions,
}

/// The member calling: a person's session or provider cookie, never an API key (keys
/// are the account's, not anyone's).
fn member_of(ctx: &Ctx) -> Result<Member, CoreError> {
    ctx.caller
        .member
        .ok_or(CoreError::InsufficientScope("member's session"))
}

fn role_of(name: &str) -> Result<Role, CoreError> {
    name.parse()
}

fn member_to_pb(row: store::MemberRow, caller: Option<uuid::Uuid>) -> pb::Member {
    pb::Member {
        person_id: row.person_id.to_string(),
        email: row.email.unwrap_or_default(),
        role: row.role,
        joined_at: Some(timestamp(row.joined_at)),
        is_caller: caller == Some(row.person_id),
    }
}

fn invitation_to_pb(row: store::InvitationRow) -> pb::Invitation {
    pb::Invitation {
        id: row.id.to_string(),
        email: row.email,
        role: row.role,
        created_at: Some(timestamp(row.created_at)),
        expires_at: Some(timestamp(row.expires_at)),
    }
}

impl Members {
    fn pool(&self) -> &sqlx::PgPool {
        &self.sessions.pool
    }

    async fn list(&self, ctx: &Ctx) -> Result<pb::ListMembersResponse, CoreError> {
        let me = member_of(ctx)?;
        let account = ctx.caller.account_id;
        let members = store::members(self.pool(), account).await?;
        let invitations = if me.role >= Role::Admin {
            store::pending(self.pool(), account).await?
        } else {
            Vec::new()
        };
        Ok(pb::ListMembersResponse {
            members: members
                .into_iter()
                .map(|m| member_to_pb(m, Some(me.person_id)))
                .collect(),
            invitations: invitations.into_iter().map(invitation_to_pb).collect(),
            caller_role: me.role.as_str().to_owned(),
        })
    }

    async fn invite(
        &self,
        ctx: &Ctx,
        req: pb::InviteMemberRequest,
    ) -> Result<pb::InviteMemberResponse, CoreError> {
        let me = member_of(ctx)?;
        let email = req.email.trim();
        check_email(email)?;
        let role = role_of(&req.role)?;
        rules::may_give(me.role, role)?;
        let account = ctx.caller.account_id;
        if store::is_member(self.pool(), account, email).await? {
            return Err(CoreError::validation(format!(
                "{email} is a member already: change their role instead"
            )));
        }
        let token = new_token();
        let mut tx = self.pool().begin().await?;
        let row = store::invite(
            &mut tx,
            (account, Some(me.person_id)),
            (email, role.as_str()),
            &digest(&token),
            INVITATION_LIFETIME,
        )
        .await?;
        let target = Target::invitation(row.id);
        audit::record(
            &mut tx,
            &ctx.actor,
            "InviteMember",
            &target,
            &["role"],
            Done,
        )
        .await?;
        tx.commit().await?;
        // A provider cookie's call has no session naming the account: "a team" then.
        let account_name =
            session_of(ctx).map_or_else(|_| "a team".to_owned(), |s| s.account_name.clone());
        let mailed = self.sessions.link_mail.as_ref().is_some_and(|mail| {
            mail.invite(Invitation {
                email: email.to_owned(),
                account_name,
                role: role.as_str(),
                token: token.clone(),
            })
        });
        Ok(pb::InviteMemberResponse {
            invitation: Some(invitation_to_pb(row)),
            token,
            mailed,
        })
    }

    async fn revoke(&self, ctx: &Ctx, id: &str) -> Result<(), CoreError> {
        member_of(ctx)?;
        let id = parse_id(id, "invitation")?;
        let mut tx = self.pool().begin().await?;
        if !store::revoke(&mut *tx, ctx.caller.account_id, id).await? {
            return Err(CoreError::NotFound("invitation"));
        }
        let target = Target::invitation(id);
        audit::record(&mut tx, &ctx.actor, "RevokeInvitation", &target, &[], Done).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Changes (`Some`) or ends (`None`) a member's place in the account, under the
    /// rules: who may touch whom, and the last owner stays.
    async fn change(
        &self,
        ctx: &Ctx,
        (person, becomes): (uuid::Uuid, Option<Role>),
        action: &'static str,
    ) -> Result<Option<pb::Member>, CoreError> {
        let me = member_of(ctx)?;
        let account = ctx.caller.account_id;
        let mut tx = self.pool().begin().await?;
        let owners = store::lock_owners(&mut tx, account).await?;
        let theirs = store::role_of(&mut tx, account, person)
            .await?
            .ok_or(CoreError::NotFound("member"))?;
        let theirs = role_of(&theirs)?;
        if person != me.person_id {
            rules::may_touch(me.role, theirs)?;
        }
        if let Some(role) = becomes {
            rules::may_give(me.role, role)?;
        }
        rules::keeps_an_owner(owners, theirs, becomes)?;
        match becomes {
            Some(role) => store::set_role(&mut tx, account, person, role.as_str()).await?,
            None => store::remove(&mut tx, account, person).await?,
        }
        let changed: &[&'static str] = if becomes.is_some() { &["role"] } else { &[] };
        audit::record(
            &mut tx,
            &ctx.actor,
            action,
            &Target::member(person),
            changed,
            Done,
        )
        .await?;
        tx.commit().await?;
        if becomes.is_none() {
            tracing::info!(account_id = %account, person_id = %person, "member removed");
            return Ok(None);
        }
        let members = store::members(self.pool(), account).await?;
        Ok(members
            .into_iter()
            .find(|m| m.person_id == person)
            .map(|m| member_to_pb(m, Some(me.person_id))))
    }

    async fn my_accounts(&self, ctx: &Ctx) -> Result<Vec<store::MembershipRow>, CoreError> {
        member_of(ctx)?;
        let session = session_of(ctx)?;
        store::accounts_of_session(self.pool(), session.session_id).await
    }

    async fn switch(&self, ctx: &Ctx, to: &str) -> Result<pb::DashboardSession, CoreError> {
        let me = member_of(ctx)?;
        let session = session_of(ctx)?;
        let to = parse_id(to, "account")?;
        let reachable = self.my_accounts(ctx).await?;
        let target = reachable
            .iter()
            .find(|a| a.account_id == to)
            .ok_or(CoreError::NotFound("account"))?;
        let mut tx = self.pool().begin().await?;
        dashboard::store::end_session(&mut *tx, session.session_id).await?;
        let signer = Signer {
            method: Method::of_name(&session.method),
            identity: None,
            person: Some(me.person_id),
            signed_in_at: Some(target.signed_in_at),
        };
        let by = (&ctx.actor, "SwitchAccount");
        let opened = self.sessions.open_in(&mut tx, by, to, signer).await?;
        tx.commit().await?;
        Ok(opened)
    }

    /// The person signed in on a call that carries a dashboard session, with when
    /// they signed in; the session's CSRF token is required with it.
    async fn signed_in<T>(
        &self,
        req: &Request<T>,
    ) -> Result<Option<(uuid::Uuid, chrono::DateTime<chrono::Utc>)>, CoreError> {
        let md = req.metadata();
        let text = |name| md.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
        let Some(token) = text(dashboard::SESSION_METADATA).filter(|t| !t.is_empty()) else {
            return Ok(None);
        };
        if !text(dashboard::CSRF_METADATA).is_some_and(|csrf| dashboard::csrf_matches(token, csrf))
        {
            return Err(CoreError::CsrfFailed);
        }
        let idle = self.sessions.config.dashboard.idle_timeout;
        let session = dashboard::store::find_session(self.pool(), &digest(token), idle)
            .await?
            .ok_or(CoreError::KeyInvalid)?;
        Ok(Some((session.person_id, session.signed_in_at)))
    }

    /// Not throttled as sign-ins are: it opens nothing, a token is 256 random bits
    /// (no guessing), and the look-up is one index probe, as cheap as the page itself.
    async fn peek(&self, token: &str) -> Result<pb::GetInvitationResponse, CoreError> {
        let (account_name, role, email, expires) = store::peek(self.pool(), &digest(token))
            .await?
            .ok_or(CoreError::NotFound("invitation"))?;
        Ok(pb::GetInvitationResponse {
            account_name,
            role,
            email,
            expires_at: Some(timestamp(expires)),
        })
    }

    /// The identity provider's subject of a call that carries its cookie, when the
    /// service takes one (`--session-…`); a cookie that does not verify is refused.
    fn cookie_identity(
        &self,
        md: &tonic::metadata::MetadataMap,
    ) -> Result<Option<(String, String)>, CoreError> {
        let Some(verifier) = self.sessions.config.sessions.as_ref() else {
            return Ok(None);
        };
        let Some(token) = verifier.token_in(md) else {
            return Ok(None);
        };
        let subject = verifier.subject(token)?;
        Ok(Some((verifier.issuer().to_owned(), subject)))
    }

    /// The person an invitation made out to `email` makes, accepted by no one signed
    /// in: a new one; never one who exists (they sign in first, so that a copied link
    /// does not make its holder them).
    async fn person_for(
        &self,
        tx: &mut sqlx::PgConnection,
        email: &str,
    ) -> Result<uuid::Uuid, CoreError> {
        if store::person_of_email(tx, email).await?.is_some() {
            return Err(CoreError::validation(format!(
                "{email} can sign in already: sign in first, then open the invitation again"
            )));
        }
        store::new_person(tx, email).await
    }

    async fn accept<T>(
        &self,
        req: &Request<T>,
        token: &str,
    ) -> Result<pb::AcceptInvitationResponse, CoreError> {
        let secret = self.sessions.config.edge_secret.as_deref();
        let ip = client_ip(req, secret);
        let visitor = audit::Actor::visitor(ip, &user_agent(req, secret));
        let signed_in = self.signed_in(req).await?;
        // Not signed in to the dashboard, the identity provider's cookie may say who
        // accepts: the API then takes that identity as the new member.
        let cookie = match signed_in {
            Some(_) => None,
            None => self.cookie_identity(req.metadata())?,
        };
        self.sessions.throttle.from_ip(ip)?;
        let mut tx = self.pool().begin().await?;
        let taken = store::take(&mut tx, &digest(token))
            .await?
            .ok_or(CoreError::NotFound("invitation"))?;
        let known = match &cookie {
            Some((issuer, subject)) => {
                store::person_of_identity(&mut tx, (issuer, subject)).await?
            }
            None => None,
        };
        let (person, since) = match (signed_in, known) {
            (Some((person, since)), _) => (person, Some(since)),
            (None, Some(person)) => (person, None),
            (None, None) => (self.person_for(&mut tx, &taken.email).await?, None),
        };
        if let (None, Some((issuer, subject))) = (known, &cookie) {
            store::link_identity(&mut tx, (issuer, subject), taken.account_id, person).await?;
        }
        let role = store::join(&mut tx, taken.account_id, person, &taken.role).await?;
        store::spent_by(&mut tx, taken.id, person).await?;
        let signer = Signer {
            method: if cookie.is_some() {
                Method::Cookie
            } else {
                Method::Link
            },
            identity: cookie
                .as_ref()
                .map(|(issuer, subject)| Identity { issuer, subject }),
            person: Some(person),
            signed_in_at: since,
        };
        let by = (&visitor, "AcceptInvitation");
        let session = self
            .sessions
            .open_in(&mut tx, by, taken.account_id, signer)
            .await?;
        tx.commit().await?;
        tracing::info!(account_id = %taken.account_id, person_id = %person, "invitation accepted");
        Ok(pb::AcceptInvitationResponse {
            session: Some(session),
            role,
        })
    }
}

#[tonic::async_trait]
impl MembersService for Members {
    async fn list_members(
        &self,
        req: Request<pb::ListMembersRequest>,
    ) -> Result<Response<pb::ListMembersResponse>, Status> {
        self.gate
            .call(req, None, |ctx, _| async move { self.list(&ctx).await })
            .await
    }

    async fn invite_member(
        &self,
        req: Request<pb::InviteMemberRequest>,
    ) -> Result<Response<pb::InviteMemberResponse>, Status> {
        let admin = Some(Scope::Admin);
        self.gate
            .call(req, admin, |ctx, msg| async move {
                self.invite(&ctx, msg).await
            })
            .await
    }

    async fn revoke_invitation(
        &self,
        req: Request<pb::RevokeInvitationRequest>,
    ) -> Result<Response<pb::RevokeInvitationResponse>, Status> {
        let admin = Some(Scope::Admin);
        self.gate
            .call(req, admin, |ctx, msg| async move {
                self.revoke(&ctx, &msg.id).await?;
                Ok(pb::RevokeInvitationResponse {})
            })
            .await
    }

    async fn get_invitation(
        &self,
        req: Request<pb::GetInvitationRequest>,
    ) -> Result<Response<pb::GetInvitationResponse>, Status> {
        reply(self.peek(&req.into_inner().token).await)
    }

    async fn accept_invitation(
        &self,
        req: Request<pb::AcceptInvitationRequest>,
    ) -> Result<Response<pb::AcceptInvitationResponse>, Status> {
        let token = req.get_ref().token.clone();
        reply(self.accept(&req, &token).await)
    }

    async fn change_member_role(
        &self,
        req: Request<pb::ChangeMemberRoleRequest>,
    ) -> Result<Response<pb::ChangeMemberRoleResponse>, Status> {
        let admin = Some(Scope::Admin);
        self.gate
            .call(req, admin, |ctx, msg| async move {
                let person = parse_id(&msg.person_id, "member")?;
                let role = role_of(&msg.role)?;
                let member = self
                    .change(&ctx, (person, Some(role)), "ChangeMemberRole")
                    .await?;
                Ok(pb::ChangeMemberRoleResponse { member })
            })
            .await
    }

    async fn remove_member(
        &self,
        req: Request<pb::RemoveMemberRequest>,
    ) -> Result<Response<pb::RemoveMemberResponse>, Status> {
        let admin = Some(Scope::Admin);
        self.gate
            .call(req, admin, |ctx, msg| async move {
                let person = parse_id(&msg.person_id, "member")?;
                self.change(&ctx, (person, None), "RemoveMember").await?;
                Ok(pb::RemoveMemberResponse {})
            })
            .await
    }

    async fn leave_account(
        &self,
        req: Request<pb::LeaveAccountRequest>,
    ) -> Result<Response<pb::LeaveAccountResponse>, Status> {
        let write = Some(Scope::Write);
        self.gate
            .call(req, write, |ctx, _| async move {
                let me = member_of(&ctx)?;
                self.change(&ctx, (me.person_id, None), "LeaveAccount")
                    .await?;
                Ok(pb::LeaveAccountResponse {})
            })
            .await
    }

    async fn list_my_accounts(
        &self,
        req: Request<pb::ListMyAccountsRequest>,
    ) -> Result<Response<pb::ListMyAccountsResponse>, Status> {
        self.gate
            .call(req, None, |ctx, _| async move {
                let current = ctx.caller.account_id;
                let accounts = self.my_accounts(&ctx).await?;
                Ok(pb::ListMyAccountsResponse {
                    accounts: accounts
                        .into_iter()
                        .map(|a| pb::Membership {
                            current: a.account_id == current,
                            account_id: a.account_id.to_string(),
                            account_name: a.account_name,
                            role: a.role,
                        })
                        .collect(),
                })
            })
            .await
    }

    async fn switch_account(
        &self,
        req: Request<pb::SwitchAccountRequest>,
    ) -> Result<Response<pb::SwitchAccountResponse>, Status> {
        let write = Some(Scope::Write);
        self.gate
            .call(req, write, |ctx, msg| async move {
                let session = self.switch(&ctx, &msg.account_id).await?;
                Ok(pb::SwitchAccountResponse {
                    session: Some(session),
                })
            })
            .await
    }
}
