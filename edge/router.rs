//! The whole site's router: the REST API under `/api/v1` (`rest`), the hosted pages
//! under `/f` (`hosted`), the dashboard under `/app` (`dashboard`), health checks, and
//! what every request gets: a request id, an access log line, metrics, and the SPEC
//! envelope on unknown routes and methods.

use crate::hosted;
use crate::http::call::{Call, RequestId};
use crate::http::state::AppState;
use crate::rest::{
    audit, docs, erasures, export, form, responses, summary, theme, usage, webhooks,
};
use ::forms::pb;
use axum::Router;
use axum::extract::{MatchedPath, OriginalUri, Request, State};
use axum::http::{HeaderValue, Method};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post, put};
use serde_json::{Value, json};
use std::time::Instant;

/// The whole router.
pub(crate) fn router(state: AppState) -> Router {
    let max_upload_bytes = state.max_upload_bytes;
    let api = Router::new()
        .route("/forms", get(form::list).post(form::create))
        .route(
            "/forms/{id}",
            get(form::get).put(form::update).delete(form::delete),
        )
        .route(
            "/forms/{form_id}/responses",
            get(responses::list).post(responses::create),
        )
        // A static segment: matched before `{id}` below.
        .route("/forms/{form_id}/responses/export", get(export::export))
        .route(
            "/forms/{form_id}/responses/{id}",
            get(responses::get).delete(responses::delete),
        )
        .route(
            "/forms/{form_id}/responses/{id}/files/{file_id}",
            get(responses::file),
        )
        .route(
            "/forms/{form_id}/logo",
            put(theme::put_logo).delete(theme::delete_logo),
        )
        .route("/forms/{form_id}/summary", get(summary::get))
        .route(
            "/forms/{form_id}/webhooks",
            get(webhooks::list).post(webhooks::create),
        )
        .route("/forms/{form_id}/webhooks/{id}", delete(webhooks::delete))
        .route("/usage", get(usage::get))
        .route("/erasures", post(erasures::create))
        .route("/audit", get(audit::list))
        .route("/audit/export", get(audit::export))
        .route("/openapi.json", get(docs::openapi_json))
        .route("/docs", get(docs::to_index))
        .route("/docs/{*file}", get(docs::asset))
        .method_not_allowed_fallback(method_not_allowed);
    Router::new()
        .nest("/api/v1", api)
        .route(
            "/f/{short_id}",
            get(hosted::show)
                .post(hosted::submit)
                // The CORS preflight of an owner's own form posting JSON (endpoint mode).
                .options(hosted::preflight)
                .layer(axum::extract::DefaultBodyLimit::max(max_upload_bytes))
                .layer(middleware::from_fn_with_state(
                    state.clone(),
                    hosted::page_headers,
                )),
        )
        .route("/f/{short_id}/challenge", get(hosted::challenge))
        // The form's theme and logo: cached by the version in the page's links.
        .route("/f/{short_id}/theme.css", get(hosted::theme_css))
        .route("/f/{short_id}/logo", get(hosted::logo))
        .route(
            "/f/{short_id}/thanks",
            get(hosted::thanks).layer(middleware::from_fn_with_state(
                state.clone(),
                hosted::page_headers,
            )),
        )
        // Two segments: never a form's address. (`conditions::SCRIPT_PATH` and
        // `page::SCRIPT_PATH`, written as literals here, so that the isolation matrix
        // reads every route of this file.)
        .route("/f/assets/conditions.js", get(hosted::conditions_script))
        .route("/f/assets/pow.js", get(hosted::script))
        .route("/f/assets/keys.js", get(hosted::keys_script))
        .route("/f/assets/steps.js", get(hosted::steps_script))
        .route("/f/assets/back.js", get(hosted::back_script))
        .nest("/app", crate::dashboard::router(state.clone()))
        // The service's own address and the dashboard's with a slash, as people type
        // them: to the forms (which asks to sign in first).
        // (Other methods there: the SPEC envelope of an unknown route, as before.)
        .route("/", get(to_the_forms).fallback(not_found))
        .route("/app/", get(to_the_forms).fallback(not_found))
        .route(
            "/favicon.ico",
            get(crate::dashboard::assets::favicon).fallback(not_found),
        )
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route_layer(middleware::from_fn(matched_route))
        .fallback(not_found)
        .with_state(state)
        .layer(middleware::from_fn(request_id_and_log))
}

async fn to_the_forms() -> axum::response::Redirect {
    axum::response::Redirect::to("/app/forms")
}

/// Liveness for process supervisors: the edge answers. No key, not accounted.
async fn healthz() -> axum::Json<Value> {
    axum::Json(json!({"status": "ok"}))
}

/// Readiness for load balancers: 200 while the core answers and reaches its database
/// (its `grpc.health.v1` overall status), 503 otherwise. No key, not accounted.
async fn readyz(State(state): State<AppState>) -> Response {
    use tonic_health::pb::{HealthCheckRequest, health_check_response::ServingStatus};
    let checked = state
        .health()
        .check(HealthCheckRequest {
            service: String::new(),
        })
        .await;
    let ready = checked.is_ok_and(|r| r.into_inner().status == ServingStatus::Serving as i32);
    let (status, body) = if ready {
        (axum::http::StatusCode::OK, json!({"status": "ready"}))
    } else {
        (
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            json!({"status": "unavailable"}),
        )
    };
    (status, axum::Json(body)).into_response()
}

async fn not_found(
    State(state): State<AppState>,
    call: Call,
    method: Method,
    OriginalUri(uri): OriginalUri,
) -> Response {
    let message = format!("no route for {method} {}", uri.path());
    call.reject(&state, pb::ErrorReason::NotFound, message)
        .await
}

async fn method_not_allowed(
    State(state): State<AppState>,
    call: Call,
    method: Method,
    OriginalUri(uri): OriginalUri,
) -> Response {
    let message = format!("{method} is not allowed on {}", uri.path());
    call.reject(&state, pb::ErrorReason::MethodNotAllowed, message)
        .await
}

/// A new request id: a random (version 4) UUID from the thread's generator, which
/// costs no system call (`Uuid::new_v4` asks the kernel each time).
fn new_request_id() -> String {
    uuid::Builder::from_random_bytes(rand::random())
        .into_uuid()
        .to_string()
}

/// Assigns the request id, sets `X-Request-Id` on every reply, and logs one line per
/// request (method, path, status, duration; never headers, bodies or query strings,
/// which may carry secrets).
async fn request_id_and_log(mut req: Request, next: Next) -> Response {
    let request_id = new_request_id();
    req.extensions_mut().insert(RequestId(request_id.clone()));
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let started = Instant::now();
    // Every log line of the request carries the id: the core's in its call's span
    // (`telemetry::grpc_span`, from the id sent with the call), the edge's as a field of
    // its own. No span of the request's here: with its fields formatted at its start
    // and entered at every poll, it cost a GET about a tenth of its CPU.
    let mut response = next.run(req).await;
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert("x-request-id", value);
    }
    let elapsed = started.elapsed();
    // The access line, as `tracing::info!(status, duration_ms, "request")` in a span
    // `request{request_id, method, path}` would write it, for less (see `logs`).
    if tracing::enabled!(tracing::Level::INFO) {
        crate::http::logs::access(&crate::http::logs::Access {
            request_id: &request_id,
            method: method.as_str(),
            path: &path,
            status: response.status().as_u16(),
            duration_ms: elapsed.as_millis() as u64,
        });
    }
    // Labelled by route template, never by the path itself (ids would make a series
    // per object).
    let route = response
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    // The methods of the API by name; any other (a client may invent them) is "other",
    // so that no client can make a series per request.
    let method = match method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    };
    let labels = [
        ("method", method.to_owned()),
        ("route", route),
        ("status", response.status().as_u16().to_string()),
    ];
    metrics::counter!("formsd_http_requests_total", &labels).increment(1);
    metrics::histogram!("formsd_http_request_duration_seconds", &labels[..2])
        .record(elapsed.as_secs_f64());
    response
}

/// Hands the matched route template to `request_id_and_log` (which runs before routing
/// and so cannot see it), for the metrics' `route` label.
async fn matched_route(matched: MatchedPath, req: Request, next: Next) -> Response {
    let mut response = next.run(req).await;
    response.extensions_mut().insert(matched);
    response
}
