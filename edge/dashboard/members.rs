//! Members (`/app/members`): the account's people and their roles, inviting by address
//! (the link shown once, to copy, and mailed when the service mails), changing a role,
//! removing a member, withdrawing an invitation, leaving, and the other accounts the
//! signed-in person may switch to. What a role may do is the core's rule; the page
//! offers only what the caller's role allows, and shows the core's refusal otherwise.

use super::layout::{self, Section, csrf, when};
use super::owner::{Owner, Posted, see_other};
use super::roles::{ROLES, does, rank, role_name};
use super::sign_in::{origin, signed_in};
use crate::http::error::reason_of;
use axum::extract::{Path, Query};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::Response;
use forms::pb::{self, ErrorReason};
use maud::{Markup, html};
use serde::Deserialize;

#[derive(Deserialize, Default)]
pub(crate) struct DoneQuery {
    done: Option<String>,
}

fn done_text(done: Option<&str>) -> Option<&'static str> {
    match done? {
        "role" => Some("The role was changed. It applies to their next click, on every server."),
        "removed" => Some("The member was removed: their sessions of this account have ended."),
        "revoked" => Some("The invitation was withdrawn: its link no longer works."),
        _ => None,
    }
}

/// The rank of the highest role `mine` may give: owners give owner (0), admins only
/// the roles below it.
fn lowest_giver(mine: &str) -> usize {
    usize::from(mine != "owner")
}

/// A role picker offering the roles `mine` may give.
fn role_select(id: &str, mine: &str, chosen: &str) -> Markup {
    html! {
        select id=(id) name="role" {
            @for (role, _) in ROLES.iter().filter(|(r, _)| rank(r) >= lowest_giver(mine)) {
                option value=(role) selected[*role == chosen] { (role_name(role)) }
            }
        }
    }
}

/// The invitation form; `typed`: the address and role sent, with what to fix.
fn invite_form(owner: &Owner, mine: &str, typed: Option<(&str, &str, &str)>) -> Markup {
    let (email, role, problem) = typed.unwrap_or(("", "editor", ""));
    let problem = Some(problem).filter(|p| !p.is_empty());
    html! {
        section class="card" aria-labelledby="invite-h" {
            h2 id="invite-h" { "Invite someone" }
            form method="post" action="/app/members/invite" {
                (csrf(&owner.session))
                @if let Some(problem) = problem {
                    p class="error field-error" id="invite-error" role="alert" { (problem) }
                }
                label for="invite-email" { "Their email address" }
                input id="invite-email" name="email" type="email" required maxlength="254"
                    autocomplete="off" value=(email)
                    aria-describedby=[problem.map(|_| "invite-error")]
                    aria-invalid=[problem.map(|_| "true")];
                label for="invite-role" { "Role" }
                (role_select("invite-role", mine, role))
                div class="actions" { button type="submit" { "Send the invitation" } }
            }
            dl class="roles" {
                @for (role, what) in ROLES { dt { (role_name(role)) } dd { (what) } }
            }
        }
    }
}

fn member_row(owner: &Owner, mine: &str, member: &pb::Member) -> Markup {
    let may_touch = rank(mine) <= 1 && (mine == "owner" || member.role != "owner");
    let who = match (member.email.as_str(), member.is_caller) {
        ("", true) => "You",
        ("", false) => "Someone who signs in through the identity provider",
        (email, _) => email,
    };
    let select_id = format!("role-{}", member.person_id);
    html! {
        li class="member" {
            div {
                strong { (who) }
                @if member.is_caller && !member.email.is_empty() { " " span class="badge" { "You" } }
                p class="muted" { (role_name(&member.role)) " · joined " (when(member.joined_at.as_ref())) }
            }
            @if may_touch && !member.is_caller {
                form class="inline" method="post" action={ "/app/members/" (member.person_id) "/role" } {
                    (csrf(&owner.session))
                    label for=(select_id) class="visually-hidden" { "Role of " (who) }
                    (role_select(&select_id, mine, &member.role))
                    button type="submit" { "Change role" span class="visually-hidden" { " of " (who) } }
                }
                form class="inline" method="post" action={ "/app/members/" (member.person_id) "/remove" } {
                    (csrf(&owner.session))
                    button type="submit" class="danger" { "Remove" span class="visually-hidden" { " " (who) } }
                }
            }
        }
    }
}

/// The whole page; `top`: what to show above the lists (a new link, an error);
/// `typed`: a refused invitation's address, role and problem, kept in its form.
async fn render(owner: &Owner, top: Markup, typed: Option<(&str, &str, &str)>) -> Response {
    let members = owner.state.members();
    let listed = members
        .clone()
        .list_members(owner.request(pb::ListMembersRequest {}))
        .await;
    let listed = match listed {
        Ok(reply) => reply.into_inner(),
        Err(status) => return owner.failure(&status),
    };
    let accounts = members
        .clone()
        .list_my_accounts(owner.request(pb::ListMyAccountsRequest {}))
        .await
        .map(|r| r.into_inner().accounts)
        .unwrap_or_default();
    let mine = listed.caller_role.as_str();
    let manages = rank(mine) <= 1;
    let owners = listed.members.iter().filter(|m| m.role == "owner").count();
    let body = html! {
        h1 { "Members" }
        (top)
        section class="card" aria-labelledby="members-h" {
            h2 id="members-h" { "People in " (owner.session.account_name) }
            p class="muted" { "You are " (role_name(mine)) ". " (does(mine)) "." }
            ul class="members" { @for m in &listed.members { (member_row(owner, mine, m)) } }
        }
        @if manages {
            (invite_form(owner, mine, typed))
            @if !listed.invitations.is_empty() {
                section class="card" aria-labelledby="pending-h" {
                    h2 id="pending-h" { "Invitations not yet accepted" }
                    ul class="members" {
                        @for i in &listed.invitations {
                            li class="member" {
                                div { strong { (i.email) } p class="muted" { (role_name(&i.role)) " · link works until " (when(i.expires_at.as_ref())) } }
                                form class="inline" method="post" action={ "/app/invitations/" (i.id) "/revoke" } {
                                    (csrf(&owner.session))
                                    button type="submit" class="secondary" { "Withdraw" span class="visually-hidden" { " the invitation of " (i.email) } }
                                }
                            }
                        }
                    }
                }
            }
        }
        @if accounts.len() > 1 {
            section class="card" aria-labelledby="accounts-h" {
                h2 id="accounts-h" { "Your accounts" }
                ul class="members" {
                    @for a in &accounts {
                        li class="member" {
                            div { strong { (a.account_name) } p class="muted" { (role_name(&a.role)) } }
                            @if a.current { span class="badge" { "Signed in here" } }
                            @else {
                                form class="inline" method="post" action="/app/accounts/switch" {
                                    (csrf(&owner.session))
                                    input type="hidden" name="account_id" value=(a.account_id);
                                    button type="submit" { "Switch to " (a.account_name) }
                                }
                            }
                        }
                    }
                }
            }
        }
        section class="card" aria-labelledby="leave-h" {
            h2 id="leave-h" { "Leave this account" }
            @if mine == "owner" && owners == 1 {
                p { "You are its only owner, and an account keeps one: make another member owner first, then you can leave." }
            } @else {
                p { "You lose access to its forms and results at once." }
                form method="post" action="/app/members/leave" {
                    (csrf(&owner.session))
                    button type="submit" class="danger" { "Leave " (owner.session.account_name) }
                }
            }
        }
    };
    owner.page("Members", Section::Members, body)
}

/// `GET /app/members`
pub(crate) async fn page(owner: Owner, Query(q): Query<DoneQuery>) -> Response {
    render(&owner, layout::notice(done_text(q.done.as_deref())), None).await
}

#[derive(Deserialize)]
pub(crate) struct InviteForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    role: String,
}

/// `POST /app/members/invite`: the page again, with the link to copy (or what to fix).
pub(crate) async fn invite(
    owner: Owner,
    parts: Parts,
    Posted { csrf, form }: Posted<InviteForm>,
) -> Response {
    let request = pb::InviteMemberRequest {
        email: form.email.clone(),
        role: form.role.clone(),
    };
    match owner
        .state
        .members()
        .invite_member(owner.change(request, &csrf))
        .await
    {
        Ok(reply) => {
            let reply = reply.into_inner();
            let link = format!(
                "{}/app/invitation?token={}",
                origin(&owner.state, &parts),
                reply.token
            );
            let top = html! {
                section class="card notice" role="status" aria-labelledby="sent-h" {
                    h2 id="sent-h" { "Invitation made for " (form.email) }
                    @if reply.mailed { p { "It was mailed to them. You can also send them this link:" } }
                    @else { p { "This service sends no email: send them this link yourself. It is shown only now." } }
                    label for="invite-link" { "Invitation link (works once, for 7 days)" }
                    input id="invite-link" class="link-to-copy" readonly value=(link);
                    p {
                        button type="button" data-copy="invite-link" { "Copy the link" }
                        " "
                        span id="invite-link-copied" role="status" {}
                    }
                }
            };
            render(&owner, top, None).await
        }
        Err(status) if reason_of(&status) == Some(ErrorReason::ValidationError) => {
            let problem = super::owner::plain_refusal(status.message());
            let typed = Some((form.email.as_str(), form.role.as_str(), problem.as_str()));
            let mut response = render(&owner, html! {}, typed).await;
            *response.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
            response
        }
        Err(status) => owner.failure(&status),
    }
}

#[derive(Deserialize)]
pub(crate) struct RoleForm {
    #[serde(default)]
    role: String,
}

/// `POST /app/members/{person}/role`
pub(crate) async fn change_role(
    owner: Owner,
    Path(person): Path<String>,
    Posted { csrf, form }: Posted<RoleForm>,
) -> Response {
    let request = pb::ChangeMemberRoleRequest {
        person_id: person,
        role: form.role,
    };
    match owner
        .state
        .members()
        .change_member_role(owner.change(request, &csrf))
        .await
    {
        Ok(_) => see_other("/app/members?done=role"),
        Err(status) => owner.failure(&status),
    }
}

#[derive(Deserialize)]
pub(crate) struct Nothing {}

/// `POST /app/members/{person}/remove`
pub(crate) async fn remove(
    owner: Owner,
    Path(person): Path<String>,
    Posted { csrf, .. }: Posted<Nothing>,
) -> Response {
    let request = pb::RemoveMemberRequest { person_id: person };
    match owner
        .state
        .members()
        .remove_member(owner.change(request, &csrf))
        .await
    {
        Ok(_) => see_other("/app/members?done=removed"),
        Err(status) => owner.failure(&status),
    }
}

/// `POST /app/invitations/{id}/revoke`
pub(crate) async fn revoke(
    owner: Owner,
    Path(id): Path<String>,
    Posted { csrf, .. }: Posted<Nothing>,
) -> Response {
    let request = pb::RevokeInvitationRequest { id };
    match owner
        .state
        .members()
        .revoke_invitation(owner.change(request, &csrf))
        .await
    {
        Ok(_) => see_other("/app/members?done=revoked"),
        Err(status) => owner.failure(&status),
    }
}

/// `POST /app/members/leave`: signed out of this account, on to sign in again.
pub(crate) async fn leave(owner: Owner, Posted { csrf, .. }: Posted<Nothing>) -> Response {
    match owner
        .state
        .members()
        .leave_account(owner.change(pb::LeaveAccountRequest {}, &csrf))
        .await
    {
        Ok(_) => super::sign_in::left(&owner.session.account_name),
        Err(status) => owner.failure(&status),
    }
}

#[derive(Deserialize)]
pub(crate) struct SwitchForm {
    #[serde(default)]
    account_id: String,
}

/// `POST /app/accounts/switch`: a new session of the other account, this one ended.
pub(crate) async fn switch(
    owner: Owner,
    parts: Parts,
    Posted { csrf, form }: Posted<SwitchForm>,
) -> Response {
    let request = pb::SwitchAccountRequest {
        account_id: form.account_id,
    };
    match owner
        .state
        .members()
        .switch_account(owner.change(request, &csrf))
        .await
    {
        Ok(reply) => signed_in(&parts, reply.into_inner().session, Some("/app/forms")),
        Err(status) => owner.failure(&status),
    }
}
