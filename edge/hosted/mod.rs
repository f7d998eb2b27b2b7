//! Hosted form pages, `/f/{short_id}`: the HTML a visitor fills in, and its submission.
//! Self-contained pages (no external assets), usable without JavaScript (except a form
//! that turns `proof_of_work` on, whose page solves its challenge with a script served
//! from the binary, and says so without it). Every rule (CSRF token, honeypot,
//! throttle, proof of work, validation, pages, conditions) is the core's; this renders.
//!
//! A form with pages is walked with Post/Redirect/Get: each page is posted, the core
//! saves its answers as a partial response and names the next page, and the visitor
//! is sent on to `?page=N` (see `resume` for where their place is kept).

mod choices;
pub(crate) use choices::{OTHER, range_of};
mod conditions;
mod controls;
mod endpoint;
mod form;
mod nonce;
mod page;
mod posted;
mod resume;
mod theme;

use crate::http::call::Call;
use crate::http::error::reason_of;
use crate::http::params::PathParams;
use crate::http::site::Origin;
use crate::http::state::AppState;
use axum::extract::{RawQuery, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use controls::Filled;
use form::{Paging, form_page, page_address};
use forms::pb::{self, ErrorReason, convert};
use nonce::{NonceHome, nonce, with_cookie};
use page::{FormActionOrigin, message_page, thanks_page};
use posted::{Posted, Stop, Submitted};
use std::collections::HashMap;
use tonic_types::StatusExt;

pub(crate) use conditions::script as conditions_script;
pub(crate) use endpoint::{challenge, preflight, thanks};
pub(crate) use page::{keys_script, logo, page_headers, script, theme_css};

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
        Some(ErrorReason::RateLimited) if refused_limit(status).as_deref() == Some("partials") => {
            message_page(
                StatusCode::TOO_MANY_REQUESTS,
                "Your answers could not be saved for later",
                "This form is holding as many unfinished responses as it can. Go back and \
                 submit your answers now, or try saving them again later.",
            )
        }
        Some(ErrorReason::RateLimited) => message_page(
            StatusCode::TOO_MANY_REQUESTS,
            "Too many submissions",
            "Please wait a minute and try again.",
        ),
        _ => {
            tracing::error!(
                request_id = call.request_id,
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

/// Which cap refused a rate-limited request, when the core says (`partials`): its
/// ErrorInfo metadata entry `limit`.
fn refused_limit(status: &tonic::Status) -> Option<String> {
    status
        .get_details_error_info()
        .and_then(|mut info| info.metadata.remove("limit"))
}

/// The form's page; `filled` is what a failed submission left (answers, errors,
/// banner), empty on a first visit; `paging`, the page of a form with pages.
fn form_reply(
    short_id: &str,
    (form, token, pow): (Option<pb::Form>, &str, Option<&pb::ProofOfWorkChallenge>),
    filled: &Filled,
    status: StatusCode,
    (nonce, home): (&str, NonceHome),
    paging: &Paging<'_>,
) -> Response {
    let Some(form) = form else {
        return message_page(
            StatusCode::NOT_FOUND,
            "Form not found",
            "There is no open form at this address.",
        );
    };
    let page_nonce = (home == NonceHome::Page).then_some(nonce);
    let html = form_page(short_id, &form, (token, page_nonce, pow), filled, paging);
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
        if matches!(field.r#type.as_str(), "file_upload" | "page_break") {
            continue;
        }
        let label = convert::slug(&field.label);
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

/// How the visitor reached a page: the prefill of its query (without `page` and
/// `resume`), the origin of links they may copy, and the resume token of their cookie.
struct Visit {
    rest: String,
    origin: Option<String>,
    cookie: Option<String>,
}

impl Visit {
    fn paging<'p>(&self, progress: Option<&'p pb::HostedProgress>) -> Paging<'p> {
        Paging {
            progress,
            query: self.rest.clone(),
            origin: self.origin.clone(),
        }
    }
}

/// Keeps the visitor's resume cookie in step with the core's progress: the token of
/// their partial response once there is one; cleared when the cookie's token led
/// nowhere (unknown, expired or completed: the core started afresh).
fn keep_resume(
    response: &mut Response,
    short_id: &str,
    progress: Option<&pb::HostedProgress>,
    cookie: Option<&str>,
) {
    let Some(progress) = progress else {
        return;
    };
    let token = progress.resume_token.as_str();
    if !token.is_empty() {
        if cookie != Some(token) {
            resume::set_cookie(response, short_id, Some(token));
        }
    } else if cookie.is_some() {
        resume::set_cookie(response, short_id, None);
    }
}

pub(crate) async fn show(
    State(state): State<AppState>,
    call: Call,
    Origin(origin): Origin,
    headers: HeaderMap,
    PathParams(short_id): PathParams<String>,
    RawQuery(query): RawQuery,
) -> Response {
    let (nonce, home) = nonce(&headers, None);
    let query = query.unwrap_or_default();
    let asked = resume::parse(&query);
    let visit = Visit {
        rest: asked.rest,
        origin,
        cookie: resume::from_cookie(&headers),
    };
    // A resume link wins over the cookie: it may name a response begun elsewhere.
    let resume_token = asked.resume.or_else(|| visit.cookie.clone());
    let request = call.request(pb::GetHostedFormRequest {
        short_id: short_id.clone(),
        csrf_nonce: nonce.clone(),
        resume_token: resume_token.unwrap_or_default(),
        page: asked.page,
    });
    match state.hosted().get_hosted_form(request).await {
        Ok(reply) => {
            let pb::GetHostedFormResponse {
                form,
                start_token,
                progress,
                pow_challenge,
            } = reply.into_inner();
            let progress = progress.as_ref();
            // On a page of a form with pages the answers saved come first; the query
            // prefills what is not answered yet.
            let prefilled = if progress.is_some() {
                visit.rest.as_str()
            } else {
                query.as_str()
            };
            let mut values = form
                .as_ref()
                .map(|form| prefill(form, prefilled))
                .unwrap_or_default();
            if let Some(answers) = progress.and_then(|p| p.answers.as_ref()) {
                values.extend(forms::pb::convert::struct_to_object(answers));
            }
            let filled = Filled {
                values,
                ..Filled::default()
            };
            let mut response = form_reply(
                &short_id,
                (form, &start_token, pow_challenge.as_ref()),
                &filled,
                StatusCode::OK,
                (&nonce, home),
                &visit.paging(progress),
            );
            keep_resume(&mut response, &short_id, progress, visit.cookie.as_deref());
            response
        }
        Err(status) => with_cookie(error_page(&call, &status), &nonce, home),
    }
}

pub(crate) async fn submit(
    State(state): State<AppState>,
    call: Call,
    Origin(origin): Origin,
    PathParams(short_id): PathParams<String>,
    RawQuery(query): RawQuery,
    req: Request,
) -> Response {
    // The owner's own form on another site, not our page: its own way.
    if let Some(caller) = endpoint::caller(&state, req.headers()) {
        return endpoint::submit(&state, &call, &short_id, caller, req).await;
    }
    let headers = req.headers().clone();
    let visit = Visit {
        rest: resume::parse(query.as_deref().unwrap_or("")).rest,
        origin,
        cookie: resume::from_cookie(&headers),
    };
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
            return refused(&call, &short_id, &status, posted.values, nonce, &visit);
        }
    };
    let (nonce, home) = posted.nonce(&headers);
    let Posted {
        values,
        files,
        token,
        honeypot_filled,
        page,
        resume,
        back,
        pow_solution,
        ..
    } = posted;
    let answers = forms::pb::convert::object_to_struct(&posted::decode(&values));
    let user_agent = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    // The page's own token first: it names the response the page belongs to.
    let resume_token = resume::given(&resume).or_else(|| visit.cookie.clone());
    let request = call.request(pb::SubmitHostedFormRequest {
        short_id: short_id.clone(),
        start_token: token,
        csrf_nonce: nonce.clone(),
        answers: Some(answers),
        user_agent,
        honeypot_filled,
        // Back saves nothing: no file is worth sending.
        files: if back { Vec::new() } else { files },
        page,
        resume_token: resume_token.unwrap_or_default(),
        back,
        pow_solution,
    });
    match state.hosted().submit_hosted_form(request).await {
        Ok(reply) => {
            let reply = reply.into_inner();
            if let Some(progress) = reply.progress {
                return next_page(&short_id, &progress, home, &visit);
            }
            let mut response = if let Some(url) = reply.redirect_url.filter(|u| !u.is_empty()) {
                Redirect::to(&url).into_response()
            } else {
                thanks_page(reply.confirmation_message.as_deref())
            };
            // Completed: nothing is left to resume.
            if visit.cookie.is_some() || page > 0 {
                resume::set_cookie(&mut response, &short_id, None);
            }
            response
        }
        Err(status) => refused(&call, &short_id, &status, values, (nonce, home), &visit),
    }
}

/// Post/Redirect/Get: a page saved (or Back) sends the visitor on to the page the core
/// names, so that reloading it or the browser's own Back posts nothing again. A framed
/// page's address carries the resume token: the browser may withhold its cookie there.
fn next_page(
    short_id: &str,
    progress: &pb::HostedProgress,
    home: NonceHome,
    visit: &Visit,
) -> Response {
    let token = Some(progress.resume_token.as_str()).filter(|t| !t.is_empty());
    let in_page = token.filter(|_| home == NonceHome::Page);
    let query = resume::page_query(progress.page.max(1), in_page, &visit.rest);
    let mut response = Redirect::to(&page_address(short_id, &query)).into_response();
    keep_resume(
        &mut response,
        short_id,
        Some(progress),
        visit.cookie.as_deref(),
    );
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        axum::http::HeaderValue::from_static("no-store"),
    );
    response
}

/// The answer to a refused submission (or admission). Refused answers or an expired
/// page: the page again (the same page of a form with pages), answers kept; the core
/// sends the form and a fresh token with the refusal, so this takes no second call.
/// Anything else: its error page.
fn refused(
    call: &Call,
    short_id: &str,
    status: &tonic::Status,
    values: Vec<(String, String)>,
    (nonce, home): (String, NonceHome),
    visit: &Visit,
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
    let pb::HostedFormPage {
        form,
        start_token,
        progress,
        pow_challenge,
    } = page;
    let progress = progress.as_ref();
    let mut response = form_reply(
        short_id,
        (form, &start_token, pow_challenge.as_ref()),
        &filled,
        code,
        (&nonce, home),
        &visit.paging(progress),
    );
    keep_resume(&mut response, short_id, progress, visit.cookie.as_deref());
    response
}
