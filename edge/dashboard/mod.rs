//! The owners' dashboard, `/app/…`: HTML rendered on the server from the core's gRPC
//! answers, a third edge beside the REST routes and the hosted pages. It reaches the
//! core only through gRPC, as the owner's session (`owner`); what the REST API must not
//! offer (keys, editing webhooks, delivery logs and retries) is `OwnerService`.
//!
//! Every page works without JavaScript; one small script (copy buttons, typed
//! confirmations, live refresh; it loads the builder's own script on the builder) and
//! one style sheet are served from the binary under a strict CSP (no inline script or
//! style).

mod account;
mod account_design;
pub(crate) mod assets;
mod audit;
mod builder;
mod chart;
mod erasure;
mod form_list;
mod invitation;
mod keys;
mod layout;
mod members;
mod owner;
mod results;
mod roles;
pub(crate) mod share;
mod sign_in;
mod summary;
mod webhooks;

use crate::http::state::AppState;
use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use maud::html;

/// The dashboard's content security policy: nothing inline, nothing from elsewhere;
/// only the hosted page of a form may be framed (its preview), and no one frames us.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
connect-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// The dashboard's routes, to be nested under `/app`.
pub(crate) fn router(state: AppState) -> Router<AppState> {
    Router::new()
        .route("/", get(|| async { Redirect::to("/app/forms") }))
        .route("/assets/{file}", get(assets::serve))
        .route("/sign-in", get(sign_in::page))
        .route(
            "/sign-in/link",
            get(sign_in::link_page).post(sign_in::redeem),
        )
        .route("/sign-in/cookie", post(sign_in::with_cookie))
        .route("/sign-in/mail", post(sign_in::mail))
        .route("/sign-in/oidc", get(sign_in::oidc_begin))
        .route("/sign-in/oidc/callback", get(sign_in::oidc_callback))
        .route("/sign-out", post(sign_in::sign_out))
        .route("/forms", get(form_list::list).post(form_list::create))
        // A form's page: builder, settings, lifecycle, preview, share (builder/).
        .route("/forms/{id}", get(builder::page))
        .route("/forms/{id}/details", post(builder::details))
        .route("/forms/{id}/fields", post(builder::add_field))
        .route("/forms/{id}/order", post(builder::reorder))
        .route("/forms/{id}/fields/{field_id}", post(builder::edit_field))
        .route(
            "/forms/{id}/fields/{field_id}/duplicate",
            post(builder::duplicate_field),
        )
        .route(
            "/forms/{id}/fields/{field_id}/move",
            post(builder::move_field),
        )
        .route(
            "/forms/{id}/fields/{field_id}/remove",
            post(builder::remove_field),
        )
        .route(
            "/forms/{id}/fields/{field_id}/conditions",
            post(builder::edit_conditions),
        )
        .route("/forms/{id}/settings", post(builder::settings))
        .route("/forms/{id}/languages", post(builder::languages))
        .route(
            "/forms/{id}/languages/{lang}",
            get(builder::language_page).post(builder::save_language),
        )
        .route(
            "/forms/{id}/languages/{lang}/remove",
            post(builder::remove_language),
        )
        .route("/forms/{id}/design", post(builder::design))
        .route("/forms/{id}/logo", post(builder::logo))
        .route("/forms/{id}/status", post(builder::status))
        .route("/forms/{id}/delete", post(builder::delete))
        .route("/forms/{id}/responses", get(results::inbox))
        .route("/forms/{id}/summary", get(summary::page))
        .route("/forms/{id}/responses/export.csv", get(results::export_csv))
        .route(
            "/forms/{id}/responses/export.ndjson",
            get(results::export_ndjson),
        )
        .route(
            "/forms/{id}/responses/export.xlsx",
            get(results::export_xlsx),
        )
        .route("/forms/{id}/responses/selection", post(results::selection))
        .route("/forms/{id}/responses/{response_id}", get(results::show))
        .route(
            "/forms/{id}/responses/{response_id}/delete",
            post(results::delete),
        )
        .route(
            "/forms/{id}/responses/{response_id}/files/{file_id}",
            get(results::file),
        )
        .route("/keys", get(keys::list).post(keys::create))
        .route("/keys/{key_id}", get(keys::usage))
        .route(
            "/keys/{key_id}/revoke",
            get(keys::confirm_revoke).post(keys::revoke),
        )
        .route("/account", get(account::page))
        .route("/audit", get(audit::page))
        .route("/members", get(members::page))
        .route("/members/invite", post(members::invite))
        .route("/members/leave", post(members::leave))
        .route("/members/{person_id}/role", post(members::change_role))
        .route("/members/{person_id}/remove", post(members::remove))
        .route("/invitations/{invitation_id}/revoke", post(members::revoke))
        .route(
            "/invitation",
            get(invitation::page).post(invitation::accept),
        )
        .route("/accounts/switch", post(members::switch))
        .route("/account/unlink", post(account::unlink))
        .route("/account/notifications", post(account::set_address))
        .route("/account/design", post(account_design::design))
        .route("/account/erasure", get(erasure::page).post(erasure::erase))
        .route(
            "/forms/{id}/webhooks",
            get(webhooks::list).post(webhooks::create),
        )
        .route(
            "/forms/{id}/webhooks/{webhook_id}",
            get(webhooks::show).post(webhooks::update),
        )
        .route(
            "/forms/{id}/webhooks/{webhook_id}/delete",
            post(webhooks::delete),
        )
        .route(
            "/forms/{id}/webhooks/{webhook_id}/test",
            post(webhooks::test),
        )
        .route(
            "/forms/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry",
            post(webhooks::retry),
        )
        .route(
            "/forms/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/send",
            post(webhooks::send_now),
        )
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(state, same_origin_posts))
        .layer(middleware::from_fn(headers))
}

async fn not_found() -> Response {
    let body = html! {
        h1 { "Not found" }
        p { "There is no dashboard page at this address. " a href="/app/forms" { "Your forms" } }
    };
    layout::reply(
        StatusCode::NOT_FOUND,
        layout::page("Not found", layout::Section::None, None, body),
    )
}

/// The headers of every dashboard reply: the CSP, no framing, no sniffing, no caching
/// of pages that show an account's data, and no referrer to other sites.
async fn headers(req: Request, next: Next) -> Response {
    let mut response = next.run(req).await;
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.entry(header::REFERRER_POLICY)
        .or_insert(HeaderValue::from_static("same-origin"));
    h.entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    response
}

/// A second guard beside the CSRF token: a browser that says a post comes from another
/// site (`Sec-Fetch-Site: cross-site`/`same-site`, which no page can forge) is refused
/// before anything runs. It also covers the sign-in forms, which have no session yet
/// (a forged sign-in post would put the victim's browser in the attacker's account).
/// Older browsers send no `Sec-Fetch-Site`: then the page's `Origin` (or `Referer`)
/// must be this service's own when it is sent. A post with neither is no browser's
/// cross-site post (browsers send `Origin` on every cross-origin post).
async fn same_origin_posts(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    let fetch_site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
    let cross = req.method() == Method::POST
        && match fetch_site {
            Some(site) => !matches!(site, "same-origin" | "none"),
            None => crate::http::origin::page_origin(headers)
                .is_some_and(|origin| !crate::http::origin::is_own(&state, headers, &origin)),
        };
    if cross {
        let body = html! {
            h1 { "Refused" }
            p class="error" role="alert" { "This request came from another site. Nothing was changed." }
        };
        return layout::reply(
            StatusCode::FORBIDDEN,
            layout::page("Refused", layout::Section::None, None, body),
        );
    }
    next.run(req).await.into_response()
}
