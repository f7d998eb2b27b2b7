//! The account (`/app/account`): plan, rate limit, this month's responses against the
//! limit, the notification address (set here, with a warning in words when no mail
//! can go out), the default design of the account's forms (`account_design`), and the
//! linked identities with unlink.

use super::layout::{self, Section, csrf, when};
use super::owner::{Owner, Posted, see_other};
use crate::http::error::reason_of;
use axum::extract::Query;
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb::{self, ErrorReason};
use maud::{Markup, html};
use serde::Deserialize;

#[derive(Deserialize, Default)]
pub(crate) struct DoneQuery {
    done: Option<String>,
}

/// What `?done=` says after a change; nothing else is ever shown.
fn done_text(done: Option<&str>) -> Option<&'static str> {
    match done? {
        "unlinked" => Some("The identity was unlinked: it no longer signs in to this account."),
        "address" => Some("The notification address was saved."),
        "no-address" => Some("The notification address was removed: no notification is mailed."),
        "design" => Some("The design was saved: your forms without their own show it."),
        _ => None,
    }
}

/// The provider of an identity in words: the host of an OpenID issuer (or of a
/// configured cookie issuer that is a URL), the provider's session cookie, or, for an
/// identity linked without a provider, that the first to sign it in will keep it.
fn provider_words(issuer: &str) -> String {
    if issuer.is_empty() {
        return "Not yet used: the first provider to sign it in keeps it".to_owned();
    }
    if issuer == pb::identity::PROVIDER_COOKIE {
        return "Your provider's session cookie".to_owned();
    }
    match url::Url::parse(issuer) {
        Ok(url) => url
            .host_str()
            .map_or_else(|| issuer.to_owned(), str::to_owned),
        Err(_) => issuer.to_owned(),
    }
}

fn plan_name(plan: i32) -> &'static str {
    match pb::Plan::try_from(plan) {
        Ok(pb::Plan::Free) => "Free",
        Ok(pb::Plan::Pro) => "Pro",
        Ok(pb::Plan::Enterprise) => "Enterprise",
        _ => "Unknown",
    }
}

/// Why owner notifications would not reach anyone, in words; `None` when they would.
pub(crate) fn notifications_warning(account: &pb::GetOwnAccountResponse) -> Option<&'static str> {
    let address = account
        .account
        .as_ref()
        .is_some_and(|a| a.email.as_deref().is_some_and(|e| !e.is_empty()));
    if account.notifications_mailed == Some(false) {
        Some(
            "This service sends no email: its operator has not set up a mail server, so no \
             notification goes out, whatever your forms ask.",
        )
    } else if !address {
        Some(
            "No notification address is set, so forms that email you each new response send nothing yet.",
        )
    } else {
        None
    }
}

/// The notification address and its form; `problem`: what to fix in what was typed.
fn notifications(
    owner: &Owner,
    reply: &pb::GetOwnAccountResponse,
    typed: Option<(&str, &str)>,
) -> Markup {
    let email = reply
        .account
        .as_ref()
        .and_then(|a| a.email.clone())
        .unwrap_or_default();
    let (value, problem) = match typed {
        Some((value, problem)) => (value.to_owned(), Some(problem)),
        None => (email, None),
    };
    let described = if problem.is_some() {
        "notify-hint notify-error"
    } else {
        "notify-hint"
    };
    html! {
        section class="card" aria-labelledby="notify-h" id="notifications" {
            h2 id="notify-h" { "Notifications" }
            p { "Forms whose settings say “Email me each new response” mail this address." }
            @if let Some(warning) = notifications_warning(reply) {
                p class="warning" role="status" { (warning) }
            }
            form method="post" action="/app/account/notifications" {
                (csrf(&owner.session))
                label for="notify-email" { "Notification address" }
                p class="muted hint" id="notify-hint" { "Leave it empty to mail no notification." }
                @if let Some(problem) = problem {
                    p class="error field-error" id="notify-error" { (problem) }
                }
                input id="notify-email" name="email" type="email" maxlength="254" autocomplete="email" value=(value)
                    aria-describedby=(described)
                    aria-invalid=[problem.map(|_| "true")];
                div class="actions" { button type="submit" { "Save the address" } }
            }
        }
    }
}

/// `GET /app/account`
pub(crate) async fn page(owner: Owner, Query(q): Query<DoneQuery>) -> Response {
    render(&owner, done_text(q.done.as_deref()), None).await
}

async fn render(owner: &Owner, done: Option<&str>, typed: Option<(&str, &str)>) -> Response {
    let reply = owner
        .state
        .owner()
        .get_own_account(owner.request(pb::GetOwnAccountRequest {}))
        .await;
    let reply = match reply {
        Ok(reply) => reply.into_inner(),
        Err(status) => return owner.failure(&status),
    };
    let refused = typed.is_some();
    let section = notifications(owner, &reply, typed);
    let account = reply.account.clone().unwrap_or_default();
    let used = reply.responses_this_month;
    let body = html! {
        h1 { "Account" }
        (layout::notice(done))
        dl class="facts" {
            dt { "Name" } dd { (account.name) }
            dt { "Plan" } dd { (plan_name(account.plan)) }
            dt { "Rate limit" }
            dd {
                @if reply.rate_limit_per_minute > 0 { (reply.rate_limit_per_minute) " requests per minute per key" }
                @else { "No API access on this plan (the dashboard works on every plan)" }
            }
        }
        (section)
        h2 { "Responses this month" }
        @if let Some(limit) = reply.monthly_response_limit {
            p {
                label for="quota" { (used) " of " (limit) " responses this month (UTC)" }
            }
            meter id="quota" min="0" max=(limit.max(1)) low=(limit.max(1) * 8 / 10) high=(limit.max(1) * 95 / 100) optimum="0" value=(used.min(limit.max(1))) {
                (used) " of " (limit)
            }
            @if used >= limit { p class="error" role="alert" { "The limit is reached: new responses are refused until next month." } }
        } @else {
            p { (used) " responses this month (UTC); your plan has no monthly limit." }
        }
        div class="card folds" { (super::account_design::section(owner, reply.default_theme.as_ref())) }
        h2 { "Data rights" }
        p { "Someone asked you to delete what they sent? " a href="/app/account/erasure" { "Erase a respondent" } " finds their responses in all your forms and deletes them. Each form's settings can also delete its responses after a number of days." }
        h2 { "Linked identities" }
        p { "Identity-provider accounts that sign in to this account. Each is one provider's: the same name at another provider is someone else." }
        @if reply.identities.is_empty() {
            p class="muted" { "No identity is linked." }
        } @else {
            (layout::table("Linked identities", &["Subject", "Provider", "Linked", "Action"], html! {
                @for identity in &reply.identities {
                    tr {
                        @let provider = provider_words(&identity.issuer);
                        th scope="row" { code { (identity.subject) } }
                        td { (provider) }
                        td { (when(identity.created_at.as_ref())) }
                        td {
                            form method="post" action="/app/account/unlink" {
                                (csrf(&owner.session))
                                input type="hidden" name="subject" value=(identity.subject);
                                input type="hidden" name="issuer" value=(identity.issuer);
                                button type="submit" class="secondary" {
                                    "Unlink" span class="visually-hidden" { " " (identity.subject) " (" (provider) ")" }
                                }
                            }
                        }
                    }
                }
            }))
        }
    };
    let mut response = owner.page("Account", Section::Account, body);
    if refused {
        *response.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
    }
    response
}

#[derive(Deserialize)]
pub(crate) struct Address {
    #[serde(default)]
    email: String,
}

/// `POST /app/account/notifications`: sets the notification address (empty removes
/// it); a malformed one is shown again with what to fix.
pub(crate) async fn set_address(owner: Owner, Posted { csrf, form }: Posted<Address>) -> Response {
    let email = form.email.trim().to_owned();
    let done = if email.is_empty() {
        "no-address"
    } else {
        "address"
    };
    let saved = owner
        .state
        .owner()
        .update_own_account(owner.change(pb::UpdateOwnAccountRequest { email: Some(email) }, &csrf))
        .await;
    match saved {
        Ok(_) => see_other(&format!("/app/account?done={done}#notifications")),
        Err(status) if reason_of(&status) == Some(ErrorReason::ValidationError) => {
            let problem = "Write a whole address, such as you@example.com.";
            render(&owner, None, Some((&form.email, problem))).await
        }
        Err(status) => owner.failure(&status),
    }
}

#[derive(Deserialize)]
pub(crate) struct Unlink {
    #[serde(default)]
    subject: String,
    /// The identity's provider as the page showed it; absent (a form of an older
    /// page): the subject whatever its provider.
    issuer: Option<String>,
}

/// `POST /app/account/unlink`
pub(crate) async fn unlink(owner: Owner, Posted { csrf, form }: Posted<Unlink>) -> Response {
    let done = owner
        .state
        .owner()
        .unlink_own_identity(owner.change(
            pb::UnlinkOwnIdentityRequest {
                subject: form.subject,
                issuer: form.issuer,
            },
            &csrf,
        ))
        .await;
    match done {
        Ok(_) => see_other("/app/account?done=unlinked"),
        Err(status) => owner.failure(&status),
    }
}
