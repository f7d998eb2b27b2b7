//! The logo of the form's design, uploaded from the builder: the one multipart post of
//! the dashboard (a file cannot travel in the others' url-encoded bodies). The image goes
//! to the core as it came; the core judges its type and size, and its refusal comes
//! back on the page in words.

use super::refused;
use crate::dashboard::layout::csrf;
use crate::dashboard::owner::{Owner, see_other};
use crate::http::error::reason_of;
use crate::http::site::Origin;
use axum::body::Bytes;
use axum::extract::{FromRequest, Multipart, Path, Request};
use axum::http::header;
use axum::response::Response;
use forms::pb::{self, ErrorReason};
use maud::{Markup, html};
use serde::Deserialize;

/// The logo's part of the design fold: what is set, a file to choose, and removal.
pub(super) fn section(owner: &Owner, form: &pb::Form, base: &str) -> Markup {
    let logo = form.theme.as_ref().and_then(|t| t.logo.as_ref());
    html! {
        form method="post" action={(base) "/logo"} enctype="multipart/form-data" {
            (csrf(&owner.session))
            label for="design-logo" { "Logo " span class="muted" { "(PNG, JPEG, WebP or SVG, at most 512 KB; shown above the title, named by it)" } }
            @if let Some(logo) = logo {
                p class="muted" id="design-logo-now" { "A logo of " ((logo.size + 1023) / 1024) " KB is shown now. Choose another to replace it." }
            }
            input id="design-logo" name="logo" type="file" accept="image/png,image/jpeg,image/webp,image/svg+xml";
            div class="actions" {
                button type="submit" { "Upload logo" }
                @if logo.is_some() {
                    button type="submit" class="secondary" name="remove" value="1" { "Remove logo" }
                }
            }
        }
    }
}

/// What a post carried: the CSRF token, the image, whether to remove the logo.
#[derive(Default, Deserialize)]
struct Sent {
    #[serde(rename = "_csrf", default)]
    token: String,
    #[serde(skip)]
    content: Vec<u8>,
    remove: Option<String>,
}

/// `POST /app/forms/{id}/logo`: a logo to set (`logo`, a file, multipart) or `remove`
/// (which a url-encoded post may ask too). Another account's form is not found, whatever
/// the body.
pub(crate) async fn logo(
    owner: Owner,
    origin: Origin,
    Path(id): Path<String>,
    req: Request,
) -> Response {
    let form = match owner.form(&id).await {
        Ok(form) => form,
        Err(response) => return response,
    };
    let id = form.id;
    let unread = "The upload could not be read: choose the image again (at most 512 KB).";
    let multipart = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/form-data"));
    let sent = if multipart {
        read_multipart(req).await
    } else {
        match Bytes::from_request(req, &()).await {
            Ok(body) => serde_html_form::from_bytes::<Sent>(&body).ok(),
            Err(_) => None,
        }
    };
    let Some(Sent {
        token,
        content,
        remove,
    }) = sent
    else {
        return refused(&owner, &id, &origin, None, unread).await;
    };
    let remove = remove.is_some();
    if !remove && content.is_empty() {
        let problem = "Choose an image for the logo first.";
        return refused(&owner, &id, &origin, None, problem).await;
    }
    let request = pb::SetFormLogoRequest {
        id: id.clone(),
        content,
        remove,
    };
    let result = owner
        .state
        .forms()
        .set_form_logo(owner.change(request, &token))
        .await;
    match result {
        Ok(_) => {
            let done = if remove { "logo-removed" } else { "logo" };
            see_other(&format!("/app/forms/{id}?done={done}#design"))
        }
        Err(status) if matches!(reason_of(&status), Some(ErrorReason::ValidationError)) => {
            let message = status.message();
            let text = message.strip_prefix("logo: ").unwrap_or(message);
            let problem = format!("Logo: {text}.");
            refused(&owner, &id, &origin, None, &problem).await
        }
        Err(status) => owner.failure(&status),
    }
}

/// The parts of a multipart post; None when it does not read.
async fn read_multipart(req: Request) -> Option<Sent> {
    let mut multipart = Multipart::from_request(req, &()).await.ok()?;
    let mut sent = Sent::default();
    loop {
        match multipart.next_field().await.ok()? {
            None => return Some(sent),
            Some(field) => {
                let name = field.name().unwrap_or_default().to_owned();
                match name.as_str() {
                    "_csrf" => sent.token = field.text().await.ok()?,
                    "remove" => sent.remove = Some(String::new()),
                    "logo" => sent.content = field.bytes().await.ok()?.to_vec(),
                    _ => {}
                }
            }
        }
    }
}
