//! "Email me each new response" can reach someone: the owner sets the notification
//! address on the account page (through OwnerService.UpdateOwnAccount), and the account
//! page and the form's settings say in words when no mail would go out (no mail server
//! set up by the operator, or no address). Against the real binary, with and without
//! `--smtp-url`.

use crate::dashboard_session::{channel, signed_in, spawn};
use crate::fixtures::*;
use forms::pb;
use forms::pb::owner_service_client::OwnerServiceClient;
use serde_json::Value;

const NO_MAIL: &str = "This service sends no email";
const NO_ADDRESS: &str = "No notification address is set";

#[tokio::test]
async fn the_address_is_set_on_the_account_page_and_its_absence_is_said() {
    let sink = crate::smtp_sink::SmtpSink::start().await;
    let app = spawn(&[
        "--smtp-url",
        &sink.url(),
        "--smtp-from",
        "Forms <forms@example.com>",
    ])
    .await;
    let d = signed_in(&app, "notify-owner").await;
    let form = published_form(&app, &d.key, contact_fields(), Value::Null).await;
    let builder = format!("/app/forms/{}", form["id"].as_str().expect("form id"));

    // No address yet: both pages say so, and where to set it.
    let account = d.get("/app/account").await;
    assert!(account.text.contains(NO_ADDRESS), "{}", account.text);
    assert!(!account.text.contains(NO_MAIL), "{}", account.text);
    let page = d.get(&builder).await;
    assert!(page.text.contains(NO_ADDRESS), "{}", page.text);
    assert!(page.text.contains(r##"href="/app/account#notifications""##));

    // A malformed address: shown again as typed, with what to fix (not the label).
    let refused = d
        .post(
            "/app/account/notifications",
            &[("email", "owner at example")],
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(
        refused
            .text
            .contains("Write a whole address, such as you@example.com.")
    );
    assert!(
        refused.text.contains(r#"value="owner at example""#),
        "{}",
        refused.text
    );
    assert!(refused.text.contains(r#"aria-invalid="true""#));

    // A good one: saved through the core, and the warnings go.
    let saved = d
        .post(
            "/app/account/notifications",
            &[("email", " owner@example.com ")],
        )
        .await;
    assert_eq!(saved.status, 303, "{}", saved.text);
    let account = OwnerServiceClient::new(channel(&app).await)
        .get_own_account(d.grpc(pb::GetOwnAccountRequest {}, false))
        .await
        .expect("GetOwnAccount")
        .into_inner();
    assert_eq!(
        account.account.and_then(|a| a.email).as_deref(),
        Some("owner@example.com")
    );
    assert_eq!(account.notifications_mailed, Some(true));
    let page = d.get("/app/account").await;
    assert!(
        page.text.contains(r#"value="owner@example.com""#),
        "{}",
        page.text
    );
    assert!(!page.text.contains(NO_ADDRESS), "{}", page.text);
    assert!(!d.get(&builder).await.text.contains(NO_ADDRESS));

    // Emptied: removed.
    let removed = d.post("/app/account/notifications", &[("email", "")]).await;
    assert_eq!(removed.status, 303, "{}", removed.text);
    assert!(d.get("/app/account").await.text.contains(NO_ADDRESS));
}

#[tokio::test]
async fn without_a_mail_server_the_pages_say_no_mail_goes_out() {
    let app = spawn(&[]).await;
    let d = signed_in(&app, "notify-nomail").await;
    let form = published_form(&app, &d.key, contact_fields(), Value::Null).await;
    let saved = d
        .post(
            "/app/account/notifications",
            &[("email", "owner@example.com")],
        )
        .await;
    assert_eq!(saved.status, 303, "{}", saved.text);
    assert!(d.get("/app/account").await.text.contains(NO_MAIL));
    let page = d
        .get(&format!(
            "/app/forms/{}",
            form["id"].as_str().expect("form id")
        ))
        .await;
    assert!(page.text.contains(NO_MAIL), "{}", page.text);
}
