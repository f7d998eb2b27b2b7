//! Endpoint mode of `/f/{short_id}`: the owner's own HTML form (or a `fetch`) on their
//! own site posts here, without our page's token (the Formspree model). This module
//! tells such a post from the hosted page's, reads its body (urlencoded, multipart or
//! JSON), answers CORS preflights, and renders the core's answer: JSON for a `fetch`, a
//! redirect or a page for a plain form post. Whether the origin may post is the core's
//! rule (the form's `allowed_origins`), answered through `SubmitToEndpoint`.
//!
//! The page's origin is its `Origin` header; a request without one (older browsers send
//! none on some posts) is taken from its `Referer`'s origin. `Origin: null` (sandboxed
//! frames, file pages, privacy redirects) is an origin no form lists.

use super::errors::{error_page, field_errors};
use super::page::{refusal_page, thanks_page};
use super::posted::{
    self, ENDPOINT_HONEYPOT_FIELD, ENDPOINT_POW_FIELD, Posted, Stop, Submitted, Unreadable,
};
use super::words::Words;
use crate::http::call::Call;
use crate::http::error::{ApiError, reason_of};
use crate::http::origin::{is_own, origin_of, page_origin};
use crate::http::params::PathParams;
use crate::http::state::AppState;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use forms::pb::{self, ErrorReason};
use serde_json::{Map, Value, json};

/// How long a browser may keep a preflight's answer (Chromium keeps at most 2 hours).
const PREFLIGHT_MAX_AGE: &str = "600";

fn header_str(headers: &HeaderMap, name: impl header::AsHeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The caller of a post that goes the endpoint way, `None` for the hosted page's. The
/// hosted page never posts JSON, and posts from its own origin (which the browser
/// attests with `Sec-Fetch-Site: same-origin`, or its `Origin` shows); any other post
/// with an origin is an owner's form. A post with no origin at all stays the hosted
/// page's, whose token check refuses it unless it is one.
pub(super) fn caller(state: &AppState, headers: &HeaderMap) -> Option<pb::EndpointCaller> {
    let sec_fetch_site = header_str(headers, "sec-fetch-site")
        .unwrap_or("")
        .to_ascii_lowercase();
    let origin = page_origin(headers);
    let json = crate::http::body::is_json(header_str(headers, header::CONTENT_TYPE));
    let foreign = sec_fetch_site != "same-origin"
        && origin
            .as_deref()
            .is_some_and(|origin| !is_own(state, headers, origin));
    (json || foreign).then(|| pb::EndpointCaller {
        origin: origin.unwrap_or_default(),
        sec_fetch_site,
    })
}

/// Whether the caller reads JSON: it posted JSON, or asked for it (`Accept`, which a
/// `fetch` of a `FormData` may set without a preflight).
fn wants_json(headers: &HeaderMap) -> bool {
    crate::http::body::is_json(header_str(headers, header::CONTENT_TYPE))
        || header_str(headers, header::ACCEPT)
            .is_some_and(|accept| accept.to_ascii_lowercase().contains("application/json"))
}

/// Adds what lets the page's script read the reply: `Access-Control-Allow-Origin` for
/// an origin the form allows (`allowed`), and `Vary: Origin` always, so that no cache
/// hands one site's answer to another.
fn with_cors(mut response: Response, origin: Option<&str>, allowed: bool) -> Response {
    let headers = response.headers_mut();
    headers.append(header::VARY, HeaderValue::from_static("Origin"));
    if allowed
        && let Some(origin) = origin
        && let Ok(value) = HeaderValue::from_str(origin)
    {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, value);
    }
    response
}

/// Whether a refusal of the core is of an allowed origin: the core checks the origin
/// before anything else, so a refusal for the answers, the throttle or a closed form
/// came after it passed.
fn refused_after_origin(status: &tonic::Status) -> bool {
    matches!(
        reason_of(status),
        Some(
            ErrorReason::ValidationError
                | ErrorReason::RateLimited
                | ErrorReason::FormClosed
                | ErrorReason::ResponseLimitReached
                | ErrorReason::PayloadTooLarge
        )
    )
}

/// `OPTIONS /f/{short_id}`: the CORS preflight of a `fetch` that sends JSON. Answered
/// with the CORS headers only for an origin the form allows; any other gets a bare 403
/// (the browser then refuses to send the post).
pub(crate) async fn preflight(
    State(state): State<AppState>,
    call: Call,
    headers: HeaderMap,
    PathParams(short_id): PathParams<String>,
) -> Response {
    let Some(origin) = header_str(&headers, header::ORIGIN).map(str::to_owned) else {
        return with_cors(StatusCode::FORBIDDEN.into_response(), None, false);
    };
    let request = call.request(pb::CheckEndpointOriginRequest {
        short_id,
        origin: origin.clone(),
    });
    match state.hosted().check_endpoint_origin(request).await {
        Ok(_) => {
            let mut response = StatusCode::NO_CONTENT.into_response();
            let h = response.headers_mut();
            h.insert(
                header::ACCESS_CONTROL_ALLOW_METHODS,
                HeaderValue::from_static("POST"),
            );
            h.insert(
                header::ACCESS_CONTROL_ALLOW_HEADERS,
                HeaderValue::from_static("Content-Type, Accept"),
            );
            h.insert(
                header::ACCESS_CONTROL_MAX_AGE,
                HeaderValue::from_static(PREFLIGHT_MAX_AGE),
            );
            with_cors(response, Some(&origin), true)
        }
        Err(status) => {
            let code = match reason_of(&status) {
                Some(ErrorReason::OriginNotAllowed) => StatusCode::FORBIDDEN,
                _ => crate::http::error::status_of(
                    reason_of(&status).unwrap_or(ErrorReason::Internal),
                ),
            };
            with_cors(code.into_response(), None, false)
        }
    }
}

/// A JSON body: an object of answers keyed by field id or label slug, as the API's
/// `answers`; `_gotcha` and `_pow` as in a form post.
async fn read_json(state: &AppState, req: Request) -> Result<Posted, Stop> {
    let body = axum::body::to_bytes(req.into_body(), state.max_body_bytes)
        .await
        .map_err(|e| posted::unreadable(&e))?;
    let object: Map<String, Value> =
        crate::http::body::parse(&body).map_err(|why| posted::malformed(&why))?;
    let mut posted = Posted::new(true);
    let mut answers = Map::new();
    for (name, value) in object {
        match (name.as_str(), value) {
            (ENDPOINT_HONEYPOT_FIELD, value) => {
                posted.honeypot_filled |= match &value {
                    Value::String(s) => !s.trim().is_empty(),
                    Value::Null | Value::Bool(false) => false,
                    _ => true,
                };
            }
            (ENDPOINT_POW_FIELD, Value::String(solution)) => posted.pow_solution = solution,
            (reserved, _) if reserved.starts_with('_') => {}
            (_, value) => {
                answers.insert(name, value);
            }
        }
    }
    posted.json_answers = Some(answers);
    Ok(posted)
}

/// `POST /f/{short_id}` from an owner's form: see the module's comment.
pub(super) async fn submit(
    state: &AppState,
    call: &Call,
    short_id: &str,
    caller: pb::EndpointCaller,
    req: Request,
) -> Response {
    let headers = req.headers().clone();
    let json = wants_json(&headers);
    let origin = header_str(&headers, header::ORIGIN).map(str::to_owned);
    let reply = Reply {
        state,
        call,
        short_id,
        headers: &headers,
        json,
        origin: origin.as_deref(),
    };
    let read = if crate::http::body::is_json(header_str(&headers, header::CONTENT_TYPE)) {
        read_json(state, req).await
    } else {
        let submitted = Submitted {
            state,
            call,
            short_id,
            headers: &headers,
            endpoint: Some(&caller),
        };
        submitted.read(req).await
    };
    let posted = match read {
        Ok(posted) => posted,
        Err(Stop::Unreadable(unreadable)) => return reply.unreadable(&unreadable).await,
        Err(Stop::Refused(status, _)) => return reply.refused(&status),
    };
    let answers = match posted.json_answers {
        Some(answers) => answers,
        None => posted::decode(&posted.values),
    };
    let user_agent = header_str(&headers, header::USER_AGENT)
        .unwrap_or("")
        .to_owned();
    let request = call.request(pb::SubmitToEndpointRequest {
        short_id: short_id.to_owned(),
        caller: Some(caller),
        answers: Some(pb::convert::object_to_struct(&answers)),
        user_agent,
        honeypot_filled: posted.honeypot_filled,
        files: posted.files,
        pow_solution: posted.pow_solution,
    });
    match state.hosted().submit_to_endpoint(request).await {
        Ok(stored) => reply.stored(stored.into_inner()),
        Err(status) => reply.refused(&status),
    }
}

/// How an endpoint post is answered.
struct Reply<'a> {
    state: &'a AppState,
    call: &'a Call,
    short_id: &'a str,
    headers: &'a HeaderMap,
    /// The caller reads JSON (a `fetch`); else it is a browser's form post.
    json: bool,
    /// The `Origin` header as sent, echoed in `Access-Control-Allow-Origin`.
    origin: Option<&'a str>,
}

impl Reply<'_> {
    /// A stored submission: 201 and `{success, data: {response_id,
    /// confirmation_message, redirect_url}}` for a `fetch`; a form post is sent on to
    /// the form's redirect URL, or to our confirmation page (a reload there does not
    /// post again).
    fn stored(&self, stored: pb::SubmitToEndpointResponse) -> Response {
        let redirect = stored.redirect_url.filter(|u| !u.is_empty());
        let response = if self.json {
            let data = json!({
                "response_id": stored.response_id,
                "confirmation_message": stored.confirmation_message,
                "redirect_url": redirect,
            });
            (
                StatusCode::CREATED,
                axum::Json(json!({"success": true, "data": data})),
            )
                .into_response()
        } else {
            let to = redirect.unwrap_or_else(|| format!("/f/{}/thanks", self.short_id));
            let mut response = Redirect::to(&to).into_response();
            // The browser's own default, rather than the pages' `same-origin`: a
            // redirect's policy applies to the request it leads to, and the
            // confirmation page needs the owner's page (its `Referer`, the origin
            // only when another site) to offer the way back.
            response.headers_mut().insert(
                header::REFERRER_POLICY,
                HeaderValue::from_static("strict-origin-when-cross-origin"),
            );
            response
        };
        with_cors(response, self.origin, true)
    }

    /// A refusal of the core: the SPEC error envelope for a `fetch` (a
    /// VALIDATION_ERROR also lists the problems by field id, `error.fields`); for a
    /// form post, a page that says what to fix and links back to the form.
    fn refused(&self, status: &tonic::Status) -> Response {
        let allowed = refused_after_origin(status);
        let response = if self.json {
            let fields = field_errors(status, Words::english(), None);
            if fields.is_empty() {
                ApiError::from_status(status, &self.call.request_id).into_response()
            } else {
                let error = json!({
                    "code": ErrorReason::ValidationError.code(),
                    "message": status.message(),
                    "fields": fields,
                });
                let body = json!({"success": false, "error": error});
                (StatusCode::UNPROCESSABLE_ENTITY, axum::Json(body)).into_response()
            }
        } else {
            self.refused_page(status)
        };
        with_cors(response, self.origin, allowed)
    }

    fn refused_page(&self, status: &tonic::Status) -> Response {
        // The way back is offered only to a page of a site the form allows: the core
        // refused for something else than the origin, which it checked first (the
        // page's, `Origin` else the `Referer`'s), and the `Referer` is of that origin.
        let origin = page_origin(self.headers);
        let back = header_str(self.headers, header::REFERER).filter(|referer| {
            refused_after_origin(status) && origin.is_some() && origin_of(referer) == origin
        });
        match reason_of(status) {
            Some(ErrorReason::ValidationError) => {
                let mut problems: Vec<String> = field_errors(status, Words::english(), None)
                    .into_values()
                    .collect();
                problems.sort();
                if problems.is_empty() {
                    problems.push(status.message().to_owned());
                }
                refusal_page(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "Please correct your answers",
                    "The form was not sent:",
                    &problems,
                    back,
                )
            }
            Some(ErrorReason::OriginNotAllowed) => refusal_page(
                StatusCode::FORBIDDEN,
                "This site may not send this form",
                "The form's owner has not listed the site you came from among those allowed to send it. \
                 If you own the form, add the site's address (such as https://www.example.com) to its allowed origins.",
                &[],
                back,
            ),
            _ => error_page(Words::english(), self.call, status),
        }
    }

    /// A body that could not be read. Whether the origin may read the answer is asked
    /// of the core: nothing of the body was needed for that.
    async fn unreadable(&self, unreadable: &Unreadable) -> Response {
        let allowed = match self.origin {
            Some(origin) => {
                let request = self.call.request(pb::CheckEndpointOriginRequest {
                    short_id: self.short_id.to_owned(),
                    origin: origin.to_owned(),
                });
                self.state
                    .hosted()
                    .check_endpoint_origin(request)
                    .await
                    .is_ok()
            }
            None => false,
        };
        let response = if self.json {
            let error = ApiError {
                reason: unreadable.reason,
                message: unreadable.text.clone(),
                retry_after: None,
                headers: HeaderMap::new(),
            };
            error.into_response()
        } else {
            unreadable.page(Words::english())
        };
        with_cors(response, self.origin, allowed)
    }
}

/// `GET /f/{short_id}/thanks`: where a plain form post is sent once stored, when the
/// form has no redirect URL of its own: the form's confirmation message.
pub(crate) async fn thanks(
    State(state): State<AppState>,
    call: Call,
    headers: HeaderMap,
    PathParams(short_id): PathParams<String>,
) -> Response {
    let back = back_to_site(&state, &call, &headers, &short_id).await;
    let back = back.as_deref();
    // No nonce: the page's token is not used here.
    let request = call.request(pb::GetHostedFormRequest {
        short_id,
        ..Default::default()
    });
    match state.hosted().get_hosted_form(request).await {
        Ok(page) => {
            let text = page
                .into_inner()
                .form
                .and_then(|form| form.settings)
                .and_then(|settings| settings.fields.get("confirmation_message").cloned())
                .and_then(|value| match value.kind {
                    Some(prost_types::value::Kind::StringValue(text)) => Some(text),
                    _ => None,
                });
            thanks_page(Words::english(), text.as_deref(), back)
        }
        // The response that closed the form (its last by count or date) is thanked too.
        Err(status) if reason_of(&status) == Some(ErrorReason::FormClosed) => {
            thanks_page(Words::english(), None, back)
        }
        Err(status) => error_page(Words::english(), &call, &status),
    }
}

/// The owner's page a visitor came to the confirmation page from: the `Referer` (a
/// redirect after a post keeps the post's), when it is an `http(s)` page of a site the
/// form allows, as the core answers.
async fn back_to_site(
    state: &AppState,
    call: &Call,
    headers: &HeaderMap,
    short_id: &str,
) -> Option<String> {
    let referer = header_str(headers, header::REFERER)?;
    let origin = origin_of(referer)?;
    let request = call.request(pb::CheckEndpointOriginRequest {
        short_id: short_id.to_owned(),
        origin,
    });
    let allowed = state.hosted().check_endpoint_origin(request).await.is_ok();
    allowed.then(|| referer.to_owned())
}

/// `GET /f/{short_id}/challenge`: a proof-of-work challenge for an owner's own page,
/// for a form that asks for one (`pow.js` fetches it when the page's form carries
/// `data-pow-challenge-url`). `{"success": true, "data": {"challenge": {…} | null}}`,
/// readable by an origin the form allows; never stored by a cache (each is one use).
pub(crate) async fn challenge(
    State(state): State<AppState>,
    call: Call,
    headers: HeaderMap,
    PathParams(short_id): PathParams<String>,
) -> Response {
    let origin = header_str(&headers, header::ORIGIN).map(str::to_owned);
    let caller = pb::EndpointCaller {
        origin: page_origin(&headers).unwrap_or_default(),
        sec_fetch_site: header_str(&headers, "sec-fetch-site")
            .unwrap_or("")
            .to_ascii_lowercase(),
    };
    let request = call.request(pb::GetEndpointChallengeRequest {
        short_id,
        caller: Some(caller),
    });
    let (response, allowed) = match state.hosted().get_endpoint_challenge(request).await {
        Ok(reply) => {
            let challenge = reply.into_inner().challenge.map(|c| {
                json!({
                    "algorithm": c.algorithm,
                    "challenge": c.challenge,
                    "salt": c.salt,
                    "max_number": c.max_number,
                    "signature": c.signature,
                })
            });
            let body = json!({"success": true, "data": {"challenge": challenge}});
            (axum::Json(body).into_response(), true)
        }
        Err(status) => (
            ApiError::from_status(&status, &call.request_id).into_response(),
            refused_after_origin(&status),
        ),
    };
    let mut response = with_cors(response, origin.as_deref(), allowed);
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
