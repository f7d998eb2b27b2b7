//! Account → Erase a respondent (`/app/account/erasure`): the owner types what a
//! respondent gave (their address, say), sees every response holding it (a dry run of
//! EraseRespondent), and confirms to erase them; the page says what an erasure cannot
//! reach. Works without script: each step is a posted form.

use super::layout::{self, Section, csrf, when};
use super::owner::{Owner, Posted, see_other};
use super::results::segment;
use crate::http::error::reason_of;
use axum::extract::Query;
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb::{self, ErrorReason};
use maud::{Markup, html};
use serde::Deserialize;

/// What no erasure can reach, in words.
const NOT_RETROACTIVE: &str = "An erasure cannot reach copies that have left this service: \
    webhooks already delivered and exports or files already downloaded keep what they \
    carried. Pending webhooks are still sent, without the answers.";

#[derive(Deserialize, Default)]
pub(crate) struct Done {
    erased: Option<u32>,
}

fn crumbs() -> Markup {
    layout::crumbs(&[("/app/account", "Account")], "Erase a respondent")
}

/// The box to type the value into; `problem`: what to fix in it.
fn finder(owner: &Owner, value: &str, problem: Option<&str>) -> Markup {
    let described = if problem.is_some() {
        "erase-hint erase-error"
    } else {
        "erase-hint"
    };
    html! {
        form method="post" action="/app/account/erasure" class="card" {
            (csrf(&owner.session))
            label for="erase-value" { "Address or answer to find" }
            p class="muted hint" id="erase-hint" {
                "Every response of your forms with an answer equal to it is listed first; nothing is deleted yet. "
                "Addresses match whatever their capitals."
            }
            @if let Some(problem) = problem {
                p class="error field-error" id="erase-error" { (problem) }
            }
            input id="erase-value" name="value" type="text" maxlength="1000" required
                autocomplete="off" spellcheck="false" value=(value)
                aria-describedby=(described) aria-invalid=[problem.map(|_| "true")];
            div class="actions" { button type="submit" { "Find responses" } }
        }
    }
}

/// `GET /app/account/erasure`
pub(crate) async fn page(owner: Owner, Query(done): Query<Done>) -> Response {
    let notice = done.erased.map(|n| match n {
        1 => "1 response was erased.".to_owned(),
        n => format!("{n} responses were erased."),
    });
    let body = html! {
        (crumbs())
        h1 { "Erase a respondent" }
        (layout::notice(notice.as_deref()))
        p { "When someone asks you to delete what they sent, find their responses here and erase them with their files and every copy this service keeps." }
        (finder(&owner, "", None))
        p class="muted" { (NOT_RETROACTIVE) }
    };
    owner.page("Erase a respondent", Section::Account, body)
}

#[derive(Deserialize)]
pub(crate) struct Erase {
    #[serde(default)]
    value: String,
    /// `yes` once the owner has seen the matches and ticked the box.
    #[serde(default)]
    confirm: String,
}

/// `POST /app/account/erasure`: without `confirm`, the matches; with it, the erasure.
pub(crate) async fn erase(owner: Owner, Posted { csrf: token, form }: Posted<Erase>) -> Response {
    let dry_run = form.confirm != "yes";
    let reply = owner
        .state
        .responses()
        .erase_respondent(owner.change(
            pb::EraseRespondentRequest {
                value: form.value.clone(),
                dry_run,
            },
            &token,
        ))
        .await;
    let reply = match reply {
        Ok(reply) => reply.into_inner(),
        Err(status) if reason_of(&status) == Some(ErrorReason::ValidationError) => {
            let body = html! {
                (crumbs())
                h1 { "Erase a respondent" }
                (finder(&owner, &form.value, Some("Type the address or answer to find, up to 1,000 characters.")))
            };
            let mut page = owner.page("Erase a respondent", Section::Account, body);
            *page.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
            return page;
        }
        Err(status) => return owner.failure(&status),
    };
    if reply.erased {
        return see_other(&format!(
            "/app/account/erasure?erased={}",
            reply.matches.len()
        ));
    }
    let n = reply.matches.len();
    let body = html! {
        (crumbs())
        h1 { "Erase a respondent" }
        (finder(&owner, &form.value, None))
        h2 id="matches-h" {
            @match n { 0 => { "No response holds it" } 1 => { "1 response holds it" } _ => { (n) " responses hold it" } }
        }
        @if n > 0 {
            (matches(&reply))
            section class="card danger" aria-labelledby="confirm-h" {
                h2 id="confirm-h" { "Erase them" }
                p { "These responses, their files and unfinished pages are deleted for good, and so are the copies of their answers held for webhooks." }
                p class="muted" { (NOT_RETROACTIVE) }
                form method="post" action="/app/account/erasure" {
                    (csrf(&owner.session))
                    input type="hidden" name="value" value=(form.value);
                    div class="inline" {
                        input id="erase-confirm" name="confirm" type="checkbox" value="yes" required;
                        label for="erase-confirm" { "Yes, erase " (n) (if n == 1 { " response" } else { " responses" }) }
                    }
                    button type="submit" class="danger" { "Erase" }
                }
            }
        }
    };
    owner.page("Erase a respondent", Section::Account, body)
}

/// The matches as a table: form, when, finished or not, a link to each.
fn matches(reply: &pb::EraseRespondentResponse) -> Markup {
    html! {
        @if reply.truncated {
            p class="warning" role="status" { "More responses hold it than are listed: erase these, then find it again." }
        }
        div class="table-wrap" tabindex="0" role="region" aria-labelledby="matches-h" {
            table {
                thead { tr {
                    th scope="col" { "Form" }
                    th scope="col" { "Submitted" }
                    th scope="col" { "Status" }
                } }
                tbody {
                    @for m in &reply.matches {
                        tr {
                            th scope="row" {
                                a href={"/app/forms/" (segment(&m.form_id)) "/responses/" (segment(&m.id))} { (m.form_title) }
                            }
                            td { (when(m.submitted_at.as_ref())) }
                            td {
                                @if m.status == i32::from(pb::ResponseStatus::Partial) { "Unfinished" } @else { "Finished" }
                            }
                        }
                    }
                }
            }
        }
    }
}
