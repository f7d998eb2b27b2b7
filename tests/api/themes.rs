//! A form's theme (issue 32 §3): set over REST and gRPC, its colours checked against
//! WCAG AA when saved (refused with a colour to choose instead), served as the form's
//! style sheet under the page's strict CSP, and its logo uploaded, checked by content
//! and served back from our origin.

use crate::harness::*;
use crate::uploads::PNG;
use ::forms::pb::{self, forms_service_client::FormsServiceClient};
use serde_json::{Value, json};
use tonic::Request;
use tonic::transport::Channel;
use tonic_types::StatusExt;

const THEME: &str = r##"{"accent": "#8A3FFC", "background": "#fff8e7", "font": "serif",
    "radius": 16, "appearance": "auto"}"##;

fn theme() -> Value {
    serde_json::from_str(THEME).expect("theme JSON")
}

fn origin(app: &TestApp) -> String {
    app.http_base.trim_end_matches("/api/v1").to_owned()
}

async fn forms_client(app: &TestApp) -> FormsServiceClient<Channel> {
    let channel = Channel::from_shared(app.grpc_url.clone())
        .expect("gRPC URL")
        .connect()
        .await
        .expect("connecting to the core");
    FormsServiceClient::new(channel)
}

fn with_key<T>(message: T, key: &str) -> Request<T> {
    let mut request = Request::new(message);
    request
        .metadata_mut()
        .insert("x-api-key", key.parse().expect("metadata value"));
    request
}

/// A published form with one question and `theme` (null: none); its id and short id.
async fn themed_form(app: &TestApp, key: &str, theme: Value) -> (String, String) {
    let mut body = json!({"title": "Acme survey",
                          "fields": [{"type": "short_text", "label": "Name"}]});
    if !theme.is_null() {
        body["theme"] = theme;
    }
    let form = app.create_form(key, &body).await;
    let id = form["id"].as_str().expect("id").to_owned();
    let short_id = form["short_id"].as_str().expect("short id").to_owned();
    app.put(
        &format!("/forms/{id}"),
        key,
        &json!({"status": "published"}),
    )
    .await
    .ok(200);
    (id, short_id)
}

#[tokio::test]
async fn a_theme_round_trips_over_rest_and_grpc() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let (id, _) = themed_form(&app, &key, theme()).await;
    let got = app.get(&format!("/forms/{id}"), &key).await;
    let stored = &got.ok(200)["form"]["theme"];
    // Colours come back as the core writes them: lower case.
    assert_eq!(
        *stored,
        json!({"accent": "#8a3ffc", "background": "#fff8e7", "font": "serif",
               "radius": 16, "appearance": "auto"})
    );

    // gRPC reads the same theme, and replaces it through the `theme` path.
    let mut forms = forms_client(&app).await;
    let form = forms
        .get_form(with_key(pb::GetFormRequest { id: id.clone() }, &key))
        .await
        .expect("GetForm")
        .into_inner()
        .form
        .expect("form");
    let theme = form.theme.expect("theme");
    assert_eq!(theme.accent.as_deref(), Some("#8a3ffc"));
    assert_eq!(theme.radius, Some(16));
    let updated = forms
        .update_form(with_key(
            pb::UpdateFormRequest {
                id: id.clone(),
                form: Some(pb::Form {
                    theme: Some(pb::FormTheme {
                        accent: Some("#14532D".into()),
                        appearance: Some("dark".into()),
                        ..Default::default()
                    }),
                    ..Default::default()
                }),
                update_mask: Some(prost_types::FieldMask {
                    paths: vec!["theme".into()],
                }),
            },
            &key,
        ))
        .await
        .expect("UpdateForm")
        .into_inner()
        .form
        .expect("form");
    let theme = updated.theme.expect("theme");
    assert_eq!(theme.accent.as_deref(), Some("#14532d"));
    assert_eq!(theme.background, None);
    let got = app.get(&format!("/forms/{id}"), &key).await;
    assert_eq!(
        got.ok(200)["form"]["theme"],
        json!({"accent": "#14532d", "appearance": "dark"})
    );

    // A REST update that leaves `theme` out keeps it; `theme: null` clears it.
    let kept = app
        .put(&format!("/forms/{id}"), &key, &json!({"title": "Renamed"}))
        .await;
    assert_eq!(kept.ok(200)["form"]["theme"]["accent"], "#14532d");
    let cleared = app
        .put(&format!("/forms/{id}"), &key, &json!({"theme": null}))
        .await;
    assert_eq!(cleared.ok(200)["form"]["theme"], Value::Null);
}

#[tokio::test]
async fn a_colour_that_fails_contrast_is_refused_with_one_to_choose() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let (id, _) = themed_form(&app, &key, json!({})).await;
    let refused = app
        .put(
            &format!("/forms/{id}"),
            &key,
            &json!({"theme": {"accent": "#ffd400"}}),
        )
        .await;
    let error = refused.error(422, "VALIDATION_ERROR");
    let message = error["message"].as_str().expect("message");
    assert!(
        message.contains(
            "the accent #ffd400 is too light for white button text (1.4:1, needs 4.5:1): try #"
        ),
        "{message}"
    );
    assert!(message.ends_with(" or darker"), "{message}");
    // A light background under the dark appearance: the light text would not show.
    let refused = app
        .put(
            &format!("/forms/{id}"),
            &key,
            &json!({"theme": {"background": "#f0f0f0", "appearance": "dark"}}),
        )
        .await;
    let message = refused.error(422, "VALIDATION_ERROR")["message"]
        .as_str()
        .expect("message")
        .to_owned();
    assert!(
        message.contains("theme.background: the background #f0f0f0 is too light"),
        "{message}"
    );
    assert!(message.ends_with(" or darker"), "{message}");
    // Not a colour at all, at create.
    let refused = app
        .post(
            "/forms",
            &key,
            &json!({"title": "T", "theme": {"background": "white"}}),
        )
        .await;
    let message = refused.error(422, "VALIDATION_ERROR")["message"]
        .as_str()
        .expect("message")
        .to_owned();
    assert!(message.contains("write it as #rrggbb"), "{message}");
    // Nothing was stored.
    let got = app.get(&format!("/forms/{id}"), &key).await;
    assert_eq!(got.ok(200)["form"]["theme"], json!({}));

    // gRPC: the same refusal, as VALIDATION_ERROR.
    let mut forms = forms_client(&app).await;
    let status = forms
        .update_form(with_key(
            pb::UpdateFormRequest {
                id,
                form: Some(pb::Form {
                    theme: Some(pb::FormTheme {
                        accent: Some("#ffd400".into()),
                        ..Default::default()
                    }),
                    ..Default::default()
                }),
                update_mask: Some(prost_types::FieldMask {
                    paths: vec!["theme".into()],
                }),
            },
            &key,
        ))
        .await
        .expect_err("a failing accent");
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    let info = status.get_details_error_info().expect("ErrorInfo");
    assert_eq!(info.reason, "VALIDATION_ERROR");
    assert!(status.message().contains("try #"), "{status:?}");
}

#[tokio::test]
async fn the_page_links_its_theme_which_serves_the_variables() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let (_, short_id) = themed_form(&app, &key, theme()).await;
    let origin = origin(&app);
    let page = app
        .client
        .get(format!("{origin}/f/{short_id}"))
        .send()
        .await
        .expect("page");
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(csp.contains("style-src 'self' 'sha256-"), "{csp}");
    assert!(!csp.contains("unsafe"), "{csp}");
    let html = page.text().await.expect("page text");
    let start = html
        .find(&format!("href=\"/f/{short_id}/theme.css?v="))
        .unwrap_or_else(|| panic!("no theme link in {html}"));
    let href = html[start + 6..]
        .split('"')
        .next()
        .expect("href")
        .to_owned();

    let sheet = app
        .client
        .get(format!("{origin}{href}"))
        .send()
        .await
        .expect("theme.css");
    assert_eq!(sheet.status(), 200);
    let headers = sheet.headers().clone();
    assert_eq!(headers["content-type"], "text/css; charset=utf-8");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(
        headers["cache-control"],
        "public, max-age=31536000, immutable"
    );
    let etag = headers["etag"].to_str().expect("etag").to_owned();
    let css = sheet.text().await.expect("css");
    for variable in [
        "--accent:#8a3ffc;",
        "--surface:#fff8e7;",
        "--radius:16px;",
        "--font:Charter",
        "@media (prefers-color-scheme:dark){:root{color-scheme:dark;",
    ] {
        assert!(css.contains(variable), "{variable} not in {css}");
    }
    // A client that has it gets 304; an old link is cached briefly only.
    let again = app
        .client
        .get(format!("{origin}{href}"))
        .header("if-none-match", &etag)
        .send()
        .await
        .expect("theme.css again");
    assert_eq!(again.status(), 304);
    let stale = app
        .client
        .get(format!("{origin}/f/{short_id}/theme.css?v=old"))
        .send()
        .await
        .expect("stale theme.css");
    assert_eq!(stale.headers()["cache-control"], "public, max-age=60");

    // A form without a theme links none: its page is exactly as before.
    let (_, plain) = themed_form(&app, &key, Value::Null).await;
    let html = app
        .client
        .get(format!("{origin}/f/{plain}"))
        .send()
        .await
        .expect("page")
        .text()
        .await
        .expect("text");
    assert!(!html.contains("<link rel=\"stylesheet\""), "{html}");
    // A draft's theme is not served.
    let draft = app
        .create_form(&key, &json!({"title": "Draft", "theme": theme()}))
        .await;
    let draft = draft["short_id"].as_str().expect("short id");
    let hidden = app
        .client
        .get(format!("{origin}/f/{draft}/theme.css"))
        .send()
        .await
        .expect("draft theme");
    assert_eq!(hidden.status(), 404);
}

#[tokio::test]
async fn a_logo_is_uploaded_checked_and_served_back() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let (id, short_id) = themed_form(&app, &key, json!({"accent": "#1d4fb8"})).await;
    let origin = origin(&app);
    let upload = |body: Vec<u8>, content_type: &'static str| {
        app.request(reqwest::Method::PUT, &format!("/forms/{id}/logo"))
            .header("x-api-key", &key)
            .header("content-type", content_type)
            .body(body)
    };
    // Not an image: refused, in plain words.
    let refused = send(upload(b"%PDF-1.7 not a logo".to_vec(), "image/png")).await;
    let message = refused.error(422, "VALIDATION_ERROR")["message"]
        .as_str()
        .expect("message")
        .to_owned();
    assert!(
        message.contains("upload a PNG, JPEG, WebP or SVG image"),
        "{message}"
    );
    let too_big = send(upload([PNG, &vec![0u8; 600 * 1024]].concat(), "image/png")).await;
    too_big.error(422, "VALIDATION_ERROR");

    let stored = send(upload(PNG.to_vec(), "application/octet-stream")).await;
    let theme = stored.ok(200)["form"]["theme"].clone();
    assert_eq!(theme["accent"], "#1d4fb8", "the theme is kept: {theme}");
    assert_eq!(theme["logo"]["content_type"], "image/png");
    assert_eq!(theme["logo"]["size"], PNG.len());
    let logo_id = theme["logo"]["id"].as_str().expect("logo id").to_owned();

    // The page shows it, named by the form's title, from our origin.
    let html = app
        .client
        .get(format!("{origin}/f/{short_id}"))
        .send()
        .await
        .expect("page")
        .text()
        .await
        .expect("text");
    let img =
        format!("<img class=\"logo\" src=\"/f/{short_id}/logo?v={logo_id}\" alt=\"Acme survey\"");
    assert!(html.contains(&img), "{img} not in {html}");
    let served = app
        .client
        .get(format!("{origin}/f/{short_id}/logo?v={logo_id}"))
        .send()
        .await
        .expect("logo");
    assert_eq!(served.status(), 200);
    assert_eq!(served.headers()["content-type"], "image/png");
    assert_eq!(served.headers()["x-content-type-options"], "nosniff");
    assert_eq!(
        served.bytes().await.expect("bytes").as_ref(),
        PNG,
        "the logo comes back as uploaded"
    );

    // An SVG is served under a policy that runs nothing.
    let svg = b"<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><script>alert(1)</script></svg>";
    let stored = send(upload(svg.to_vec(), "image/svg+xml")).await;
    let logo = &stored.ok(200)["form"]["theme"]["logo"];
    assert_eq!(logo["content_type"], "image/svg+xml");
    assert_ne!(logo["id"], logo_id.as_str(), "a new upload, a new id");
    let served = app
        .client
        .get(format!("{origin}/f/{short_id}/logo"))
        .send()
        .await
        .expect("svg logo");
    assert_eq!(served.headers()["content-type"], "image/svg+xml");
    assert_eq!(
        served.headers()["content-security-policy"],
        "default-src 'none'; style-src 'unsafe-inline'"
    );
    // The first upload is gone with its replacement.
    let rows = sqlx::query_scalar::<_, i64>("SELECT count(*) FROM form_logos")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(rows, 1);

    // Removed: the page shows none, the address is not found.
    let removed = app.delete(&format!("/forms/{id}/logo"), &key).await;
    assert_eq!(
        removed.ok(200)["form"]["theme"],
        json!({"accent": "#1d4fb8"})
    );
    let gone = app
        .client
        .get(format!("{origin}/f/{short_id}/logo"))
        .send()
        .await
        .expect("no logo");
    assert_eq!(gone.status(), 404);
}

/// A small logo: a violet mark and a word, as a respondent would see a brand's.
const LOGO_SVG: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" width="180" height="48" viewBox="0 0 180 48"><rect x="2" y="4" width="40" height="40" rx="10" fill="#8a3ffc"/><circle cx="22" cy="24" r="9" fill="#fff"/><text x="52" y="33" font-family="sans-serif" font-size="24" font-weight="700" fill="#5b21b6">Acme</text></svg>"##;

#[tokio::test]
async fn a_themed_page_in_chromium_light_and_dark() {
    if !crate::browser::browser_available() {
        return;
    }
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = app
        .create_form(
            &key,
            &json!({
                "title": "Acme customer survey",
                "description": "Two minutes, five questions.",
                "theme": theme(),
                "fields": [
                    {"type": "single_choice", "label": "How did you hear of us?", "required": true,
                     "options": [{"label": "A friend"}, {"label": "A search"}, {"label": "An advert"}],
                     "allow_other": true},
                    {"type": "rating", "label": "How was your visit?"},
                    {"type": "scale", "label": "How likely are you to recommend us?",
                     "min_label": "Not likely", "max_label": "Very likely"},
                    {"type": "email", "label": "Email", "placeholder": "name@example.com"},
                    {"type": "long_text", "label": "Anything else?"}
                ]
            }),
        )
        .await;
    let id = form["id"].as_str().expect("id");
    let short_id = form["short_id"].as_str().expect("short id");
    app.put(
        &format!("/forms/{id}"),
        &key,
        &json!({"status": "published"}),
    )
    .await
    .ok(200);
    let uploaded = send(
        app.request(reqwest::Method::PUT, &format!("/forms/{id}/logo"))
            .header("x-api-key", &key)
            .body(LOGO_SVG.as_bytes().to_vec()),
    )
    .await;
    uploaded.ok(200);
    let shots = concat!(env!("CARGO_MANIFEST_DIR"), "/target/theme-shots");
    std::fs::create_dir_all(shots).expect("shots dir");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/theme.mjs");
    let url = format!("{}/f/{short_id}", origin(&app));
    let seen = crate::fixtures::run_browser_script(&[&script, &url, &shots]).await;
    eprintln!("{seen:#}");
    assert_eq!(seen["cspViolations"], json!([]), "{seen}");
    let runs = seen["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 4);
    for run in runs {
        assert_eq!(run["status"], 200, "{run}");
        assert_eq!(run["axe"], json!([]), "{run}");
        assert_eq!(run["overflow"], false, "{run}");
        assert_eq!(run["logoLoaded"], true, "{run}");
        assert_eq!(run["logoAlt"], "Acme customer survey", "{run}");
        // The owner's accent under white text, the owner's corners and typeface.
        assert_eq!(run["button"], "rgb(138, 63, 252)", "{run}");
        assert_eq!(run["buttonText"], "rgb(255, 255, 255)", "{run}");
        assert_eq!(run["radius"], "16px", "{run}");
        assert!(
            run["font"]
                .as_str()
                .is_some_and(|f| f.starts_with("Charter")),
            "{run}"
        );
        if run["colorScheme"] == "light" {
            // The owner's background behind dark text.
            assert_eq!(run["card"], "rgb(255, 248, 231)", "{run}");
            assert_eq!(run["text"], "rgb(29, 36, 48)", "{run}");
        } else {
            // The device asks for dark: our dark card, light text.
            assert_eq!(run["card"], "rgb(28, 32, 41)", "{run}");
            assert_eq!(run["text"], "rgb(230, 233, 239)", "{run}");
        }
    }
}

#[tokio::test]
async fn the_builder_sets_the_design_and_shows_a_refused_colour_beside_its_input() {
    use crate::dashboard_session::{dashboard_app, signed_in};
    let app = dashboard_app(&[]).await;
    let d = signed_in(&app, "design-owner").await;
    let id = d.create_form("Brand check").await;
    let page = format!("/app/forms/{id}");
    let design = format!("{page}/design");

    // A yellow accent under white text: refused, beside the accent, what was chosen kept.
    let refused = d
        .post(
            &design,
            &[
                ("accent", "#ffd400"),
                ("background", "#ffffff"),
                ("appearance", "light"),
                ("font", "rounded"),
                ("radius", "12"),
            ],
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    let html = &refused.text;
    let error_at = html
        .find(r#"<p class="error" id="design-accent-error">The accent #ffd400 is too light for white button text (1.4:1, needs 4.5:1): try #"#)
        .unwrap_or_else(|| panic!("no error beside the accent in {html}"));
    let input_at = html
        .find(r#"id="design-accent""#)
        .expect("the accent input");
    assert!(input_at < error_at, "the error follows its input");
    assert!(html.contains(r##"value="#ffd400" aria-invalid="true" aria-describedby="design-accent-error design-hint""##), "{html}");
    assert!(
        html.contains(r#"<details class="fold" id="design" open>"#),
        "{html}"
    );
    assert!(
        html.contains(r#"<option value="rounded" selected>"#),
        "{html}"
    );
    let rest = app.get(&format!("/forms/{id}"), &d.key).await;
    assert_eq!(rest.ok(200)["form"]["theme"], Value::Null, "nothing saved");

    // A passing design is saved, and the fold shows it.
    let saved = d
        .post(
            &design,
            &[
                ("accent", "#8a3ffc"),
                ("background", "#fff8e7"),
                ("appearance", "auto"),
                ("font", "serif"),
                ("radius", "16"),
            ],
        )
        .await;
    assert_eq!(saved.status, 303, "{}", saved.text);
    let rest = app.get(&format!("/forms/{id}"), &d.key).await;
    assert_eq!(
        rest.ok(200)["form"]["theme"],
        json!({"accent": "#8a3ffc", "background": "#fff8e7", "font": "serif",
               "radius": 16, "appearance": "auto"})
    );
    let shown = d.get(&page).await;
    assert!(
        shown
            .text
            .contains(r##"id="design-accent" name="accent" type="color" value="#8a3ffc""##),
        "{}",
        shown.text
    );
    if crate::browser::browser_available() {
        // The builder with its Design fold (and the preview it colours): axe-clean, no
        // CSP violation (the preview's colours are set through the CSSOM).
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/axe_page.mjs");
        let url = format!("{}{page}", d.base);
        let seen = crate::fixtures::run_browser_script(&[&script, &url, &d.cookie]).await;
        assert_eq!(seen["status"], 200, "{seen}");
        assert_eq!(seen["axe"], json!([]), "{seen}");
        assert_eq!(seen["cspViolations"], json!([]), "{seen}");
        // The preview follows the Design fold's inputs as they change (script).
        let shots = concat!(env!("CARGO_MANIFEST_DIR"), "/target/theme-shots");
        std::fs::create_dir_all(shots).expect("shots dir");
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/design.mjs");
        let seen = crate::fixtures::run_browser_script(&[&script, &url, &d.cookie, &shots]).await;
        eprintln!("{seen:#}");
        assert_eq!(seen["cspViolations"], json!([]), "{seen}");
        for run in seen["runs"].as_array().expect("runs") {
            assert_eq!(run["button"], "rgb(15, 118, 110)", "{run}");
            assert_eq!(run["background"], "rgb(16, 33, 58)", "{run}");
            assert_eq!(run["text"], "rgb(230, 233, 239)", "{run}");
            assert_eq!(run["radius"], "20px", "{run}");
        }
    }

    // The logo, uploaded from the page (multipart), then removed.
    let boundary = "----design-logo-boundary";
    let mut body = Vec::new();
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"_csrf\"\r\n\r\n{}\r\n",
            d.csrf
        )
        .as_bytes(),
    );
    body.extend_from_slice(
        format!("--{boundary}\r\nContent-Disposition: form-data; name=\"logo\"; filename=\"logo.png\"\r\nContent-Type: image/png\r\n\r\n").as_bytes(),
    );
    body.extend_from_slice(PNG);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let uploaded = send(
        d.client
            .post(format!("{}{page}/logo", d.base))
            .header("cookie", &d.cookie)
            .header(
                "content-type",
                format!("multipart/form-data; boundary={boundary}"),
            )
            .body(body),
    )
    .await;
    assert_eq!(uploaded.status, 303, "{}", uploaded.text);
    let rest = app.get(&format!("/forms/{id}"), &d.key).await;
    assert_eq!(
        rest.ok(200)["form"]["theme"]["logo"]["content_type"],
        "image/png"
    );
    let removed = d.post(&format!("{page}/logo"), &[("remove", "1")]).await;
    assert_eq!(removed.status, 303, "{}", removed.text);
    let rest = app.get(&format!("/forms/{id}"), &d.key).await;
    assert_eq!(rest.ok(200)["form"]["theme"]["logo"], Value::Null);

    // Back to our look.
    let reset = d.post(&design, &[("reset", "1")]).await;
    assert_eq!(reset.status, 303, "{}", reset.text);
    let rest = app.get(&format!("/forms/{id}"), &d.key).await;
    assert_eq!(rest.ok(200)["form"]["theme"], Value::Null);
}

/// The style sheet of a form's theme, as served.
async fn theme_sheet(app: &TestApp, short_id: &str) -> String {
    app.client
        .get(format!("{}/f/{short_id}/theme.css", origin(app)))
        .send()
        .await
        .expect("theme.css")
        .text()
        .await
        .expect("css")
}

#[tokio::test]
async fn the_account_default_design_dresses_forms_without_their_own() {
    use crate::dashboard_session::{dashboard_app, signed_in};
    let app = dashboard_app(&[]).await;
    let d = signed_in(&app, "default-design").await;
    let (_, plain) = themed_form(&app, &d.key, Value::Null).await;
    let (_, own) = themed_form(&app, &d.key, json!({"accent": "#14532d"})).await;
    let origin = origin(&app);

    // A failing default is refused beside its input, as a form's design is.
    let refused = d
        .post(
            "/app/account/design",
            &[
                ("accent", "#2f6fed"),
                ("background", "#222222"),
                ("appearance", "light"),
            ],
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(
        refused
            .text
            .contains(r#"id="design-background-error">The background #222222 is too dark"#),
        "{}",
        refused.text
    );
    assert!(!theme_sheet(&app, &plain).await.contains("--accent"));

    let saved = d
        .post(
            "/app/account/design",
            &[
                ("accent", "#8a3ffc"),
                ("background", "#fff8e7"),
                ("appearance", "auto"),
            ],
        )
        .await;
    assert_eq!(saved.status, 303, "{}", saved.text);
    let account = d.get("/app/account").await;
    assert!(
        account
            .text
            .contains(r##"name="accent" type="color" value="#8a3ffc""##),
        "{}",
        account.text
    );
    // The form without a theme now links one, the account's; the other keeps its own.
    let html = app
        .client
        .get(format!("{origin}/f/{plain}"))
        .send()
        .await
        .expect("page")
        .text()
        .await
        .expect("text");
    assert!(html.contains(&format!("/f/{plain}/theme.css?v=")), "{html}");
    let css = theme_sheet(&app, &plain).await;
    assert!(
        css.contains("--accent:#8a3ffc;") && css.contains("--surface:#fff8e7;"),
        "{css}"
    );
    let css = theme_sheet(&app, &own).await;
    assert!(
        css.contains("--accent:#14532d;") && !css.contains("#8a3ffc"),
        "{css}"
    );

    // Cleared: back to our look.
    let reset = d.post("/app/account/design", &[("reset", "1")]).await;
    assert_eq!(reset.status, 303, "{}", reset.text);
    assert!(!theme_sheet(&app, &plain).await.contains("--accent"));
}
