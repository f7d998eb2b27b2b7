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
mod errors;
mod form;
mod nonce;
mod page;
mod posted;
mod resume;
mod theme;
mod translate;
pub(crate) mod words;

use crate::http::call::Call;
use crate::http::params::PathParams;
use crate::http::site::Origin;
use crate::http::state::AppState;
use axum::extract::{RawQuery, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use controls::Filled;
use errors::{error_page, field_errors, pow_refusal};
use form::{Paging, form_page, page_address};
use forms::pb::FieldKind;
use forms::pb::{self, ErrorReason, convert};
use nonce::{NonceHome, nonce, with_cookie};
use page::{FormActionOrigin, scored_thanks_page};
use posted::{Posted, Stop, Submitted};
use std::collections::HashMap;
use words::Words;

pub(crate) use conditions::script as conditions_script;
pub(crate) use endpoint::{challenge, preflight, thanks};
pub(crate) use page::{
    back_script, keys_script, logo, page_headers, script, steps_script, theme_css,
};
pub(crate) use posted::{ENDPOINT_HONEYPOT_FIELD, ENDPOINT_POW_FIELD};

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
        return errors::not_found(paging.words);
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
        if matches!(
            field.kind(),
            Some(FieldKind::FileUpload | FieldKind::PageBreak)
        ) {
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
        let value = match field.kind() {
            Some(FieldKind::MultipleChoice) => Value::Array(
                given
                    .iter()
                    .filter(|v| !v.is_empty())
                    .map(|v| Value::String((*v).to_owned()))
                    .collect(),
            ),
            Some(FieldKind::Rating | FieldKind::Scale) => match first.trim().parse::<i64>() {
                Ok(n) => Value::from(n),
                Err(_) => continue,
            },
            Some(FieldKind::Checkbox) => Value::Bool(matches!(
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
/// `resume`), the origin of links they may copy, the resume token of their cookie, and
/// the language they asked for (`?lang=`) and accept (`Accept-Language`).
struct Visit {
    rest: String,
    origin: Option<String>,
    cookie: Option<String>,
    lang: Option<String>,
    accept: Option<String>,
}

impl Visit {
    fn new(query: &str, origin: Option<String>, headers: &HeaderMap) -> Self {
        Self {
            rest: resume::parse(query).rest,
            origin,
            cookie: resume::from_cookie(headers),
            lang: words::asked(query),
            accept: headers
                .get(header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
        }
    }

    /// The page's words: in the language of `form` the visitor sees; without a form
    /// (its error pages), in the visitor's language among those the page speaks.
    fn words(&self, form: Option<&pb::Form>) -> Words {
        let offered = words::offered(form);
        let offered: Vec<&str> = offered.iter().map(String::as_str).collect();
        let chosen = words::choose(self.lang.as_deref(), self.accept.as_deref(), &offered);
        chosen.map(Words::for_tag).unwrap_or_default()
    }

    /// The form in the language the visitor sees it in, and the page's words for it.
    fn localise(&self, form: Option<pb::Form>) -> (Option<pb::Form>, Words) {
        let words = self.words(form.as_ref());
        let form = form.map(|mut form| {
            translate::translate(&mut form, words.tag());
            form
        });
        (form, words)
    }

    fn paging<'p>(&self, progress: Option<&'p pb::HostedProgress>, words: Words) -> Paging<'p> {
        Paging {
            progress,
            query: self.rest.clone(),
            origin: self.origin.clone(),
            words,
            lang: self.lang.clone(),
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
    let visit = Visit::new(&query, origin, &headers);
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
            let (form, words) = visit.localise(form);
            let mut response = form_reply(
                &short_id,
                (form, &start_token, pow_challenge.as_ref()),
                &filled,
                StatusCode::OK,
                (&nonce, home),
                &visit.paging(progress, words),
            );
            keep_resume(&mut response, &short_id, progress, visit.cookie.as_deref());
            response
        }
        Err(status) => with_cookie(error_page(visit.words(None), &call, &status), &nonce, home),
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
    let mut visit = Visit::new(query.as_deref().unwrap_or(""), origin, &headers);
    let submitted = Submitted {
        state: &state,
        call: &call,
        short_id: &short_id,
        headers: &headers,
        endpoint: None,
    };
    let posted = match submitted.read(req).await {
        Ok(posted) => posted,
        Err(Stop::Unreadable(unreadable)) => return unreadable.page(visit.words(None)),
        Err(Stop::Refused(status, posted)) => {
            let nonce = posted.nonce(&headers);
            return refused(&call, &short_id, &status, posted.values, nonce, &visit);
        }
    };
    let (nonce, home) = posted.nonce(&headers);
    // The language the page was in: its refusal and its thanks are in it too.
    if !posted.language.is_empty() {
        visit.lang = Some(posted.language.clone());
    }
    let language = Some(posted.language.clone()).filter(|tag| !tag.is_empty());
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
        language,
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
                let score = reply.quiz_score.zip(reply.quiz_max_score);
                scored_thanks_page(
                    visit.words(None),
                    reply.confirmation_message.as_deref(),
                    None,
                    score,
                )
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
    let Some(page) = pb::details::detail::<pb::HostedFormPage>(status) else {
        // Only a core of an older release refuses without the page; and a refusal that
        // is not about the answers has none.
        return with_cookie(error_page(visit.words(None), call, status), &nonce, home);
    };
    let pb::HostedFormPage {
        form,
        start_token,
        progress,
        pow_challenge,
        kept_files,
    } = page;
    let (form, words) = visit.localise(form);
    let unprocessable = StatusCode::UNPROCESSABLE_ENTITY;
    let (banner, errors, code) = match crate::http::error::reason_of(status) {
        Some(ErrorReason::ValidationError) => match pow_refusal(status).as_deref() {
            None => (
                "fix-below",
                field_errors(status, words, form.as_ref()),
                unprocessable,
            ),
            Some("missing") => ("pow-missing", HashMap::new(), unprocessable),
            Some(_) => ("pow-expired", HashMap::new(), unprocessable),
        },
        Some(ErrorReason::CsrfFailed) => ("page-expired", HashMap::new(), StatusCode::FORBIDDEN),
        _ => return with_cookie(error_page(words, call, status), &nonce, home),
    };
    let mut values: HashMap<String, serde_json::Value> =
        posted::decode(&values).into_iter().collect();
    // The files the core kept for the page's next post, shown as chosen.
    for kept in kept_files {
        values.insert(
            kept.field_id,
            serde_json::json!({"kept": kept.token, "name": kept.file_name, "size": kept.size}),
        );
    }
    let filled = Filled {
        values,
        errors,
        banner: Some(words.get(banner)),
    };
    let progress = progress.as_ref();
    let mut response = form_reply(
        short_id,
        (form, &start_token, pow_challenge.as_ref()),
        &filled,
        code,
        (&nonce, home),
        &visit.paging(progress, words),
    );
    keep_resume(&mut response, short_id, progress, visit.cookie.as_deref());
    response
}
