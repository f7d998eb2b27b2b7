//! A form's `theme` (the look of its hosted page) as the API shows and takes it, and
//! `/forms/{id}/logo`: the theme's logo, uploaded as the request's body. Every rule
//! (colours, contrast, fonts, the image's type and size) is the core's.

use crate::http::call::Call;
use crate::http::params::{FormIdOfChild, PathParams};
use crate::http::server::is_body_timeout;
use crate::http::state::AppState;
use crate::rest::form::OneForm;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The look of the form's hosted page; every property is optional (not set: the
/// service's own look). Colours are checked against WCAG AA when saved: the page's text
/// on `background` and the buttons' white text on `accent` need 4.5:1, and a colour that
/// fails is refused with one that passes.
#[derive(Serialize, Deserialize, ToSchema, Default)]
pub(crate) struct Theme {
    /// Buttons, checked options and focus, `#rrggbb`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(pattern = "^#[0-9a-fA-F]{6}$", example = "#2f6fed")]
    accent: Option<String>,
    /// The form's card behind its text, `#rrggbb` (the light appearance's, or the dark
    /// one's when `appearance` is `dark`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(pattern = "^#[0-9a-fA-F]{6}$", example = "#ffffff")]
    background: Option<String>,
    /// A system typeface: `system`, `humanist`, `serif`, `rounded` or `mono`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "system")]
    font: Option<String>,
    /// Corner radius in CSS pixels, 0 to 24 (default 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0, maximum = 24)]
    radius: Option<i32>,
    /// `light` (default), `dark`, or `auto` (the visitor's device chooses).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "auto")]
    appearance: Option<String>,
    /// The logo shown above the form, read only: set with `PUT /forms/{form_id}/logo`.
    #[serde(default, skip_serializing_if = "Option::is_none", skip_deserializing)]
    logo: Option<Logo>,
}

/// A form's logo.
#[derive(Serialize, ToSchema)]
pub(crate) struct Logo {
    /// Changes with every upload.
    #[schema(format = Uuid)]
    id: String,
    /// `image/png`, `image/jpeg`, `image/webp` or `image/svg+xml`.
    content_type: String,
    /// Bytes.
    size: i64,
}

impl From<pb::FormTheme> for Theme {
    fn from(t: pb::FormTheme) -> Self {
        Self {
            accent: t.accent,
            background: t.background,
            font: t.font,
            radius: t.radius,
            appearance: t.appearance,
            logo: t.logo.map(|l| Logo {
                id: l.id,
                content_type: l.content_type,
                size: l.size,
            }),
        }
    }
}

impl From<Theme> for pb::FormTheme {
    fn from(t: Theme) -> Self {
        Self {
            accent: t.accent,
            background: t.background,
            font: t.font,
            radius: t.radius,
            appearance: t.appearance,
            logo: None,
        }
    }
}

/// Set a form's logo
#[utoipa::path(put, path = "/forms/{form_id}/logo", operation_id = "setFormLogo", tag = "forms",
    description = "Scope: write. The request's body is the image: PNG, JPEG, WebP or SVG, \
        at most 512 KB, recognised by its content. It replaces the logo before it.",
    params(FormIdOfChild),
    request_body(content = Vec<u8>, content_type = "image/png"),
    responses((status = 200, description = "The form, its theme naming the logo",
        body = crate::http::call::Success<OneForm>)))]
pub(crate) async fn put_logo(
    State(state): State<AppState>,
    call: Call,
    PathParams(FormIdOfChild(id)): PathParams<FormIdOfChild>,
    req: Request,
) -> Response {
    let content = match axum::body::to_bytes(req.into_body(), state.max_body_bytes).await {
        Ok(bytes) => bytes.to_vec(),
        Err(error) if is_body_timeout(&error) => {
            let message = "the request body did not arrive in time";
            return call
                .reject(&state, pb::ErrorReason::RequestTimeout, message)
                .await;
        }
        Err(_) => {
            let message = format!(
                "the request body is larger than {} bytes",
                state.max_body_bytes
            );
            return call
                .reject(&state, pb::ErrorReason::PayloadTooLarge, message)
                .await;
        }
    };
    let request = call.request(pb::SetFormLogoRequest {
        id,
        content,
        remove: false,
    });
    let result = state.forms().set_form_logo(request).await;
    call.reply(result, StatusCode::OK, |r| OneForm::new(r.form))
}

/// Remove a form's logo
#[utoipa::path(delete, path = "/forms/{form_id}/logo", operation_id = "deleteFormLogo",
    tag = "forms", description = "Scope: write. The page shows no logo any more.",
    params(FormIdOfChild),
    responses((status = 200, description = "The form without a logo",
        body = crate::http::call::Success<OneForm>)))]
pub(crate) async fn delete_logo(
    State(state): State<AppState>,
    call: Call,
    PathParams(FormIdOfChild(id)): PathParams<FormIdOfChild>,
) -> Response {
    let request = call.request(pb::SetFormLogoRequest {
        id,
        content: Vec::new(),
        remove: true,
    });
    let result = state.forms().set_form_logo(request).await;
    call.reply(result, StatusCode::OK, |r| OneForm::new(r.form))
}
