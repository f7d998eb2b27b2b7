//! Hosted form pages, `/f/{short_id}`: the HTML a visitor fills in, and its submission.
//! Self-contained pages (no external assets), usable without JavaScript (except a form
//! that turns `proof_of_work` on, whose page solves its challenge with a script served
//! from the binary, and says so without it). Every rule (CSRF token, honeypot,
//! throttle, proof of work, validation) is the core's: this module renders.

mod endpoint;
mod nonce;
mod page;
mod posted;

use crate::call::Call;
use crate::error::reason_of;
use crate::routes::params::PathParams;
use crate::state::AppState;
use axum::extract::{RawQuery, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use forms::pb::{self, ErrorReason};
use nonce::{NonceHome, nonce, with_cookie};
use page::{Filled, FormActionOrigin, form_page, message_page};
use posted::{Posted, Stop, Submitted};
use std::collections::HashMap;
use tonic_types::StatusExt;

pub(crate) use endpoint::{preflight, thanks};
pub(crate) use page::{page_headers, script};

/// The page for an error of the core that is not about the answers.
fn error_page(call: &Call, status: &tonic::Status) -> Response {
    let reason = reason_of(status);
    match reason {
        // A draft or archived form's page does not exist for visitors, posted to or not.
        Some(ErrorReason::NotFound | ErrorReason::FormNotPublished) => message_page(
            StatusCode::NOT_FOUND,
            "Form not found",
            "There is no open form at this address.",
        ),
        Some(ErrorReason::FormClosed) => message_page(
            StatusCode::GONE,
            "This form is closed",
            "It no longer accepts responses.",
        ),
        Some(ErrorReason::ResponseLimitReached) => message_page(
            StatusCode::FORBIDDEN,
            "This form is not accepting responses",
            "Its owner has reached their response limit.",
        ),
        Some(ErrorReason::RateLimited) => message_page(
            StatusCode::TOO_MANY_REQUESTS,
            "Too many submissions",
            "Please wait a minute and try again.",
        ),
        _ => {
            tracing::error!(
                reason = reason.map(ErrorReason::code),
                message = status.message(),
                "hosted page failed"
            );
            message_page(
                StatusCode::SERVICE_UNAVAILABLE,
                "Something went wrong",
                &format!("Please try again shortly (request id {}).", call.request_id),
            )
        }
    }
}

/// The per-field messages of a VALIDATION_ERROR, by field id: the core sends one
/// `ErrorInfo` metadata entry per field, keyed `field.<field id>`.
fn field_errors(status: &tonic::Status) -> HashMap<String, String> {
    status
        .get_details_error_info()
        .map(|info| {
            info.metadata
                .into_iter()
                .filter_map(|(k, v)| k.strip_prefix("field.").map(|id| (id.to_owned(), v)))
                .collect()
        })
        .unwrap_or_default()
}

/// Why the core refused a submission's proof of work (`missing`, `invalid`, `expired`,
/// `spent`): its ErrorInfo metadata entry `proof_of_work`.
fn pow_refusal(status: &tonic::Status) -> Option<String> {
    status
        .get_details_error_info()
        .and_then(|mut info| info.metadata.remove("proof_of_work"))
}

/// The form's page; `filled` is what a failed submission left (answers, errors,
/// banner), empty on a first visit.
fn form_reply(
    short_id: &str,
    (form, token, pow): (Option<pb::Form>, &str, Option<&pb::ProofOfWorkChallenge>),
    filled: &Filled,
    status: StatusCode,
    (nonce, home): (&str, NonceHome),
) -> Response {
    let Some(form) = form else {
        return message_page(
            StatusCode::NOT_FOUND,
            "Form not found",
            "There is no open form at this address.",
        );
    };
    let page_nonce = (home == NonceHome::Page).then_some(nonce);
    let html = form_page(short_id, &form, (token, page_nonce, pow), filled);
    let mut response = with_cookie((status, Html(html)).into_response(), nonce, home);
    // After a submission the page may send the visitor on to the form's redirect URL:
    // the policy lets the form post lead there too.
    let redirect = form
        .settings
        .as_ref()
        .and_then(|s| s.fields.get("redirect_url"))
        .and_then(|v| match &v.kind {
            Some(prost_types::value::Kind::StringValue(url)) => url::Url::parse(url).ok(),
            _ => None,
        })
        .map(|url| url.origin().ascii_serialization())
        .filter(|origin| origin != "null");
    response.extensions_mut().insert(FormActionOrigin(redirect));
    response
}

/// A field's key in the URL query besides its id: its label in lower case, each run of
/// other characters than letters and digits made one `_` (`UTM source` → `utm_source`).
pub(crate) fn slug(label: &str) -> String {
    let mut slug = String::with_capacity(label.len());
    for c in label.trim().chars() {
        if c.is_alphanumeric() {
            slug.extend(c.to_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('_') {
            slug.push('_');
        }
    }
    slug.trim_end_matches('_').to_owned()
}

/// The answers a page's URL query prefills: `?<field id>=value` (or the slug of the
/// field's label, `?utm_source=newsletter` for a field labelled "utm_source"); a choice
/// by its option id (repeated for a multiple choice), a rating or scale by its number, a
/// checkbox by `true`/`1`/`on`/`yes`. Keys of no field are ignored; the core validates
/// the answers when the page is submitted.
fn prefill(form: &pb::Form, query: &str) -> HashMap<String, serde_json::Value> {
    use serde_json::Value;
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query).unwrap_or_default();
    let mut values = HashMap::new();
    if pairs.is_empty() {
        return values;
    }
    for field in &form.fields {
        if field.r#type == "file_upload" {
            continue;
        }
        let label = slug(&field.label);
        let by = |key: &str| -> Vec<&str> {
            pairs
                .iter()
                .filter(|(k, _)| !key.is_empty() && k == key)
                .map(|(_, v)| v.as_str())
                .collect()
        };
        // The id wins over the label's slug.
        let mut given = by(&field.id);
        if given.is_empty() {
            given = by(&label);
        }
        let Some(first) = given.first() else {
            continue;
        };
        let value = match field.r#type.as_str() {
            "multiple_choice" => Value::Array(
                given
                    .iter()
                    .filter(|v| !v.is_empty())
                    .map(|v| Value::String((*v).to_owned()))
                    .collect(),
            ),
            "rating" | "scale" => match first.trim().parse::<i64>() {
                Ok(n) => Value::from(n),
                Err(_) => continue,
            },
            "checkbox" => Value::Bool(matches!(
                first.to_ascii_lowercase().as_str(),
                "true" | "1" | "on" | "yes"
            )),
            _ => Value::String((*first).to_owned()),
        };
        values.insert(field.id.clone(), value);
    }
    values
}

pub(crate) async fn show(
    State(state): State<AppState>,
    call: Call,
    headers: HeaderMap,
    PathParams(short_id): PathParams<String>,
    RawQuery(query): RawQuery,
) -> Response {
    let (nonce, home) = nonce(&headers, None);
    let request = call.request(pb::GetHostedFormRequest {
        short_id: short_id.clone(),
        csrf_nonce: nonce.clone(),
        ..Default::default()
    });
    match state.hosted().get_hosted_form(request).await {
        Ok(reply) => {
            let page = reply.into_inner();
            let filled = Filled {
                values: page
                    .form
                    .as_ref()
                    .map(|form| prefill(form, query.as_deref().unwrap_or("")))
                    .unwrap_or_default(),
                ..Filled::default()
            };
            form_reply(
                &short_id,
                (page.form, &page.start_token, page.pow_challenge.as_ref()),
                &filled,
                StatusCode::OK,
                (&nonce, home),
            )
        }
        Err(status) => with_cookie(error_page(&call, &status), &nonce, home),
    }
}

pub(crate) async fn submit(
    State(state): State<AppState>,
    call: Call,
    PathParams(short_id): PathParams<String>,
    req: Request,
) -> Response {
    // The owner's own form on another site, not our page: its own way.
    if let Some(caller) = endpoint::caller(&state, req.headers()) {
        return endpoint::submit(&state, &call, &short_id, caller, req).await;
    }
    let headers = req.headers().clone();
    let submitted = Submitted {
        state: &state,
        call: &call,
        short_id: &short_id,
        headers: &headers,
        endpoint: None,
    };
    let posted = match submitted.read(req).await {
        Ok(posted) => posted,
        Err(Stop::Unreadable(unreadable)) => return unreadable.page(),
        Err(Stop::Refused(status, posted)) => {
            let nonce = posted.nonce(&headers);
            return refused(&call, &short_id, &status, posted.values, nonce);
        }
    };
    let (nonce, home) = posted.nonce(&headers);
    let Posted {
        values,
        files,
        token,
        honeypot_filled,
        pow_solution,
        ..
    } = posted;
    let answers = forms::pb::convert::object_to_struct(&posted::decode(&values));
    let user_agent = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let request = call.request(pb::SubmitHostedFormRequest {
        short_id: short_id.clone(),
        start_token: token,
        csrf_nonce: nonce.clone(),
        answers: Some(answers),
        user_agent,
        honeypot_filled,
        files,
        pow_solution,
        ..Default::default()
    });
    match state.hosted().submit_hosted_form(request).await {
        Ok(reply) => {
            let reply = reply.into_inner();
            if let Some(url) = reply.redirect_url.filter(|u| !u.is_empty()) {
                return Redirect::to(&url).into_response();
            }
            let text = reply
                .confirmation_message
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| "Your response was recorded.".to_owned());
            message_page(StatusCode::OK, "Thank you", &text)
        }
        Err(status) => refused(&call, &short_id, &status, values, (nonce, home)),
    }
}

/// The answer to a refused submission (or admission). Refused answers or an expired
/// page: the page again, answers kept; the core sends the form and a fresh token with
/// the refusal, so this takes no second call. Anything else: its error page.
fn refused(
    call: &Call,
    short_id: &str,
    status: &tonic::Status,
    values: Vec<(String, String)>,
    (nonce, home): (String, NonceHome),
) -> Response {
    let (banner, errors, code) = match reason_of(status) {
        Some(ErrorReason::ValidationError) => match pow_refusal(status).as_deref() {
            None => (
                "Please correct the fields marked below.",
                field_errors(status),
                StatusCode::UNPROCESSABLE_ENTITY,
            ),
            Some("missing") => (
                "This form needs JavaScript to be sent: your browser solves a small puzzle \
                 that shows it is not a robot. Your answers are kept: please turn JavaScript \
                 on and submit again.",
                HashMap::new(),
                StatusCode::UNPROCESSABLE_ENTITY,
            ),
            Some(_) => (
                "This page's check against robots had expired or was used already. Your \
                 answers are kept: please submit again.",
                HashMap::new(),
                StatusCode::UNPROCESSABLE_ENTITY,
            ),
        },
        Some(ErrorReason::CsrfFailed) => (
            "This page had expired. Your answers are kept: please submit again.",
            HashMap::new(),
            StatusCode::FORBIDDEN,
        ),
        _ => return with_cookie(error_page(call, status), &nonce, home),
    };
    let Some(page) = pb::details::detail::<pb::HostedFormPage>(status) else {
        // Only a core of an older release refuses without the page.
        return error_page(call, status);
    };
    let filled = Filled {
        values: posted::decode(&values).into_iter().collect(),
        errors,
        banner: Some(banner.to_owned()),
    };
    let form = (
        page.form,
        page.start_token.as_str(),
        page.pow_challenge.as_ref(),
    );
    form_reply(short_id, form, &filled, code, (&nonce, home))
}
