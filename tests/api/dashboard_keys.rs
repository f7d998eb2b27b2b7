//! The dashboard's API keys and account pages (`/app/keys`, `/app/account`) and the
//! OwnerService methods behind them: a key created in the page is shown once, works on
//! the REST API with its scopes, is listed with its last use and charted, and once
//! revoked is refused everywhere within a second; the account page's figures and
//! unlinking; CSRF and isolation between accounts.

use crate::dashboard_session::{Dashboard, as_operator, channel, signed_in, spawn};
use crate::fixtures::{contact_answers, contact_fields, eventually, field_ids, published_form};
use crate::harness::*;
use forms::pb;
use forms::pb::owner_service_client::OwnerServiceClient;
use serde_json::Value;
use std::time::{Duration, Instant};
use tonic::Code;

/// The secret shown on the create reply page.
fn shown_secret(page: &str) -> String {
    let at = page
        .find(r#"id="new-key""#)
        .expect("the new key on the page");
    let rest = &page[at..];
    let start = rest.find('>').expect("tag end") + 1;
    let end = rest.find("</code>").expect("code end");
    rest[start..end].trim().to_owned()
}

async fn own_keys(dash: &Dashboard, app: &TestApp) -> Vec<pb::OwnKey> {
    OwnerServiceClient::new(channel(app).await)
        .list_own_keys(dash.grpc(pb::ListOwnKeysRequest {}, false))
        .await
        .expect("ListOwnKeys")
        .into_inner()
        .keys
}

/// The key of `keys` whose prefix begins `secret`.
fn key_of<'a>(keys: &'a [pb::OwnKey], secret: &str) -> &'a pb::ApiKey {
    keys.iter()
        .filter_map(|k| k.key.as_ref())
        .find(|k| secret.starts_with(&k.prefix))
        .expect("the key is listed")
}

/// Creates a key in the page; its secret.
async fn create_in_page(dash: &Dashboard, scopes: &[&str]) -> String {
    let fields: Vec<(&str, &str)> = scopes.iter().map(|s| ("scopes", *s)).collect();
    let page = dash.post("/app/keys", &fields).await;
    assert_eq!(page.status, 200, "{}", page.text);
    shown_secret(&page.text)
}

#[tokio::test]
async fn a_key_made_in_the_dashboard_is_shown_once_works_and_is_revoked_everywhere() {
    let app = spawn(&[]).await;
    // A second instance on the same database: revocation must reach it too.
    let other = TestApp::spawn_on(app.db.clone(), &[]).await;
    let dash = signed_in(&app, "keys-owner").await;

    let page = dash.get("/app/keys").await;
    assert_eq!(page.status, 200);
    assert!(
        page.text.contains("<legend>Scopes</legend>"),
        "{}",
        page.text
    );
    assert!(page.text.contains(r#"for="expires""#));

    let page = dash
        .post("/app/keys", &[("scopes", "read"), ("scopes", "write")])
        .await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert!(page.text.contains("will not be shown again"));
    assert!(page.text.contains(r#"data-copy="new-key""#));
    let secret = shown_secret(&page.text);
    assert!(secret.starts_with("fsk_"), "{secret}");
    assert!(page.text.contains("read, write"));

    // Used on the REST API, with its scopes: read works, a delete (admin) is refused.
    app.get("/forms", &secret).await.ok(200);
    let missing = format!("/forms/{}", uuid::Uuid::new_v4());
    app.delete(&missing, &secret)
        .await
        .error(403, "INSUFFICIENT_SCOPE");
    // The other instance knows it too (and caches it).
    other.get("/forms", &secret).await.ok(200);

    // Listed, never with its secret, with its last use (today) and its scopes.
    let keys = own_keys(&dash, &app).await;
    let key = key_of(&keys, &secret).clone();
    let list = dash.get("/app/keys").await;
    assert!(
        !list.text.contains(&secret),
        "the secret is shown once only"
    );
    assert!(list.text.contains(&key.prefix));
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    let row = &list.text[list.text.find(&key.prefix).expect("row")..];
    let row = &row[..row.find("</tr>").expect("row end")];
    assert!(row.contains(&today), "last used today: {row}");
    assert!(
        row.contains("read, write") && row.contains("active"),
        "{row}"
    );
    let own = keys
        .iter()
        .find(|k| k.key.as_ref().is_some_and(|k| k.id == key.id))
        .expect("own");
    assert_eq!(own.last_used_on.as_deref(), Some(today.as_str()));

    // Its usage chart: 3 requests (one refused), and the plan's rate limit.
    // (The other instance's count arrives with its next flush, within a second.)
    let usage = eventually(
        "the chart counting 3 requests",
        Duration::from_secs(5),
        || async {
            let usage = dash.get(&format!("/app/keys/{}", key.id)).await;
            assert_eq!(usage.status, 200, "{}", usage.text);
            usage
                .text
                .contains("3 requests and 1 error in the last 90 days")
                .then_some(usage)
        },
    )
    .await;
    assert!(
        usage.text.contains("<svg class=\"chart\""),
        "{}",
        usage.text
    );
    assert!(usage.text.contains("requests per minute"));
    assert!(usage.text.contains("<th scope=\"row\">Total</th>"));

    // A revoke without the CSRF token changes nothing.
    let path = format!("/app/keys/{}/revoke", key.id);
    let forged = dash.post_raw(&path, &[]).await;
    assert_eq!(forged.status, 403, "{}", forged.text);
    let forged = dash.post_raw(&path, &[("_csrf", "not-the-token")]).await;
    assert_eq!(forged.status, 403);
    app.get("/forms", &secret).await.ok(200);
    other.get("/forms", &secret).await.ok(200);

    // The confirmation page, then the revoke: refused on both instances within a second.
    let confirm = dash.get(&path).await;
    assert_eq!(confirm.status, 200);
    assert!(confirm.text.contains(&format!(r#"action="{path}""#)));
    let done = dash.post(&path, &[]).await;
    assert_eq!(done.status, 303, "{}", done.text);
    assert_eq!(done.header("location"), "/app/keys?done=revoked");
    let revoked_at = Instant::now();
    for instance in [&app, &other] {
        eventually(
            "the revoked key refused",
            Duration::from_secs(2),
            || async { (instance.get("/forms", &secret).await.status == 401).then_some(()) },
        )
        .await;
    }
    assert!(revoked_at.elapsed() < Duration::from_secs(2));
    let list = dash.get("/app/keys?done=revoked").await;
    assert!(list.text.contains("no longer works"), "the done notice");
    let row = &list.text[list.text.find(&key.prefix).expect("row")..];
    assert!(row[..row.find("</tr>").expect("row end")].contains("revoked"));
}

#[tokio::test]
async fn a_key_can_expire_and_bad_input_says_what_to_fix() {
    let app = spawn(&[]).await;
    let dash = signed_in(&app, "expiry-owner").await;
    let day = (chrono::Utc::now() + chrono::Duration::days(30))
        .format("%Y-%m-%d")
        .to_string();
    let page = dash
        .post("/app/keys", &[("scopes", "read"), ("expires", &day)])
        .await;
    assert_eq!(page.status, 200, "{}", page.text);
    let secret = shown_secret(&page.text);
    let keys = own_keys(&dash, &app).await;
    let expires = key_of(&keys, &secret).expires_at.expect("an expiry");
    let expires = chrono::DateTime::from_timestamp(expires.seconds, 0).expect("time");
    assert_eq!(expires.format("%Y-%m-%d").to_string(), {
        let next =
            chrono::NaiveDate::parse_from_str(&day, "%Y-%m-%d").unwrap() + chrono::Days::new(1);
        next.format("%Y-%m-%d").to_string()
    });
    for (fields, problem) in [
        (vec![("scopes", "root")], "Choose scopes"),
        (vec![("expires", "2001-01-01")], "today or later"),
        (vec![("expires", "soon")], "as a date"),
    ] {
        let page = dash.post("/app/keys", &fields).await;
        assert_eq!(page.status, 422, "{}", page.text);
        assert!(page.text.contains(problem), "{}", page.text);
    }
    assert_eq!(
        own_keys(&dash, &app)
            .await
            .iter()
            .filter(|k| !k.session_key)
            .count(),
        // The one made above, and the REST key `signed_in` gives every test.
        2
    );
}

#[tokio::test]
async fn the_account_page_shows_plan_limits_this_months_responses_and_identities() {
    let app = spawn(&[]).await;
    let dash = signed_in(&app, "account-owner").await;
    let key = app.key_for("account-owner", PRO, ALL).await;
    let form = published_form(&app, &key.key, contact_fields(), Value::Null).await;
    let fields = field_ids(&form);
    let path = format!("/forms/{}/responses", form["id"].as_str().expect("id"));
    for n in 0..3 {
        let body = serde_json::json!({ "answers": contact_answers(&fields, n) });
        app.post(&path, &key.key, &body).await.ok(201);
    }
    let mut admin = pb::admin_service_client::AdminServiceClient::new(channel(&app).await);
    for subject in ["idp|alice", "idp|bob"] {
        admin
            .link_identity(as_operator(pb::LinkIdentityRequest {
                name: "account-owner".into(),
                subject: subject.into(),
                issuer: None,
            }))
            .await
            .expect("LinkIdentity");
    }

    let page = dash.get("/app/account").await;
    assert_eq!(page.status, 200, "{}", page.text);
    let text = &page.text;
    assert!(text.contains("<dd>Pro</dd>"), "{text}");
    assert!(text.contains("requests per minute per key"), "{text}");
    assert!(text.contains("<meter id=\"quota\""), "{text}");
    assert!(text.contains("3 of "), "{text}");
    assert!(text.contains("idp|alice") && text.contains("idp|bob"));

    // Unlink without the CSRF token: nothing changes.
    let forged = dash
        .post_raw("/app/account/unlink", &[("subject", "idp|alice")])
        .await;
    assert_eq!(forged.status, 403);
    assert!(dash.get("/app/account").await.text.contains("idp|alice"));
    // With it: gone, and the page says so.
    let done = dash
        .post("/app/account/unlink", &[("subject", "idp|alice")])
        .await;
    assert_eq!(done.status, 303, "{}", done.text);
    assert_eq!(done.header("location"), "/app/account?done=unlinked");
    let page = dash.get("/app/account?done=unlinked").await;
    assert!(!page.text.contains("idp|alice"));
    assert!(page.text.contains("idp|bob"));
    assert!(page.text.contains("no longer signs in"));
    // Unknown subject: not found, nothing else changes.
    let missing = dash
        .post("/app/account/unlink", &[("subject", "idp|nobody")])
        .await;
    assert_eq!(missing.status, 404);
}

#[tokio::test]
async fn another_accounts_keys_and_identities_are_not_found() {
    let app = spawn(&[]).await;
    let alice = signed_in(&app, "iso-alice").await;
    let bob = signed_in(&app, "iso-bob").await;
    let secret = create_in_page(&alice, &["read"]).await;
    let alice_keys = own_keys(&alice, &app).await;
    let key = key_of(&alice_keys, &secret).clone();
    let mut admin = pb::admin_service_client::AdminServiceClient::new(channel(&app).await);
    admin
        .link_identity(as_operator(pb::LinkIdentityRequest {
            name: "iso-alice".into(),
            subject: "idp|alice".into(),
            issuer: None,
        }))
        .await
        .expect("LinkIdentity");

    // Pages: 404 for the usage, the confirmation and the revoke.
    let usage = format!("/app/keys/{}", key.id);
    let revoke = format!("/app/keys/{}/revoke", key.id);
    assert_eq!(bob.get(&usage).await.status, 404);
    assert_eq!(bob.get(&revoke).await.status, 404);
    assert_eq!(bob.post(&revoke, &[]).await.status, 404);
    assert_eq!(
        bob.post("/app/account/unlink", &[("subject", "idp|alice")])
            .await
            .status,
        404
    );
    assert!(!bob.get("/app/keys").await.text.contains(&key.prefix));
    assert!(!bob.get("/app/account").await.text.contains("idp|alice"));
    app.get("/forms", &secret).await.ok(200);
    assert!(alice.get("/app/account").await.text.contains("idp|alice"));

    // gRPC: the same, method by method.
    let mut owner = OwnerServiceClient::new(channel(&app).await);
    let e = owner
        .get_own_key_usage(bob.grpc(
            pb::GetOwnKeyUsageRequest {
                key_id: key.id.clone(),
                days: None,
            },
            false,
        ))
        .await
        .expect_err("another's key");
    assert_eq!(e.code(), Code::NotFound);
    let e = owner
        .revoke_own_key(bob.grpc(
            pb::RevokeOwnKeyRequest {
                key_id: key.id.clone(),
            },
            true,
        ))
        .await
        .expect_err("another's key");
    assert_eq!(e.code(), Code::NotFound);
    let e = owner
        .unlink_own_identity(bob.grpc(
            pb::UnlinkOwnIdentityRequest {
                subject: "idp|alice".into(),
                issuer: None,
            },
            true,
        ))
        .await
        .expect_err("another's identity");
    assert_eq!(e.code(), Code::NotFound);
    let bobs = own_keys(&bob, &app).await;
    assert!(
        bobs.iter()
            .all(|k| k.key.as_ref().is_some_and(|k| k.id != key.id))
    );
    let account = owner
        .get_own_account(bob.grpc(pb::GetOwnAccountRequest {}, false))
        .await
        .expect("GetOwnAccount")
        .into_inner();
    assert_eq!(account.account.expect("account").name, "iso-bob");
    assert!(account.identities.is_empty());
    // Alice's own usage of her key: the record GetUsage gives the key itself.
    let record = owner
        .get_own_key_usage(alice.grpc(
            pb::GetOwnKeyUsageRequest {
                key_id: key.id.clone(),
                days: Some(7),
            },
            false,
        ))
        .await
        .expect("own key usage")
        .into_inner()
        .usage
        .expect("usage");
    let mut usage = pb::usage_service_client::UsageServiceClient::new(channel(&app).await);
    let itself = usage
        .get_usage(crate::fixtures::grpc_request(
            pb::GetUsageRequest { days: Some(7) },
            &secret,
        ))
        .await
        .expect("GetUsage")
        .into_inner()
        .usage
        .expect("usage");
    assert_eq!(
        (
            record.key_id.as_str(),
            record.period_days,
            record.rate_limit_per_minute
        ),
        (itself.key_id.as_str(), 7, itself.rate_limit_per_minute)
    );
    assert_eq!(record.daily.len(), 7);
    assert!(record.total_requests >= 1);

    // The session key is listed, flagged, and cannot be revoked from here.
    let session = bobs
        .iter()
        .find(|k| k.session_key)
        .expect("the session key is listed");
    let session_id = session.key.as_ref().expect("key").id.clone();
    let e = owner
        .revoke_own_key(bob.grpc(
            pb::RevokeOwnKeyRequest {
                key_id: session_id.clone(),
            },
            true,
        ))
        .await
        .expect_err("the session key");
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_eq!(
        bob.get("/app/keys").await.status,
        200,
        "the session still works"
    );
    assert_eq!(
        bob.get(&format!("/app/keys/{session_id}/revoke"))
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn owner_methods_need_a_session_csrf_for_changes_and_valid_input() {
    let app = spawn(&[]).await;
    let dash = signed_in(&app, "grpc-owner").await;
    let key = app.key_for("grpc-owner", PRO, ALL).await;
    let mut owner = OwnerServiceClient::new(channel(&app).await);

    // An API key, even with every scope, is refused by every method.
    let refused = [
        owner
            .get_own_account(crate::fixtures::grpc_request(
                pb::GetOwnAccountRequest {},
                &key.key,
            ))
            .await
            .map(|_| ()),
        owner
            .list_own_keys(crate::fixtures::grpc_request(
                pb::ListOwnKeysRequest {},
                &key.key,
            ))
            .await
            .map(|_| ()),
        owner
            .create_own_key(crate::fixtures::grpc_request(
                pb::CreateOwnKeyRequest::default(),
                &key.key,
            ))
            .await
            .map(|_| ()),
        owner
            .revoke_own_key(crate::fixtures::grpc_request(
                pb::RevokeOwnKeyRequest {
                    key_id: key.key_id.to_string(),
                },
                &key.key,
            ))
            .await
            .map(|_| ()),
        owner
            .get_own_key_usage(crate::fixtures::grpc_request(
                pb::GetOwnKeyUsageRequest {
                    key_id: key.key_id.to_string(),
                    days: None,
                },
                &key.key,
            ))
            .await
            .map(|_| ()),
        owner
            .unlink_own_identity(crate::fixtures::grpc_request(
                pb::UnlinkOwnIdentityRequest {
                    subject: "x".into(),
                    issuer: None,
                },
                &key.key,
            ))
            .await
            .map(|_| ()),
    ];
    for result in refused {
        assert_eq!(
            result.expect_err("an API key is refused").code(),
            Code::PermissionDenied
        );
    }
    app.get("/forms", &key.key).await.ok(200);

    // Changes need the CSRF token.
    let e = owner
        .create_own_key(dash.grpc(pb::CreateOwnKeyRequest::default(), false))
        .await
        .expect_err("no CSRF token");
    assert_eq!(e.code(), Code::PermissionDenied);
    let e = owner
        .revoke_own_key(dash.grpc(
            pb::RevokeOwnKeyRequest {
                key_id: key.key_id.to_string(),
            },
            false,
        ))
        .await
        .expect_err("no CSRF token");
    assert_eq!(e.code(), Code::PermissionDenied);
    app.get("/forms", &key.key).await.ok(200);

    // Expiry in the past, unknown scopes, bad windows: invalid.
    let past = pb::CreateOwnKeyRequest {
        scopes: vec![pb::Scope::Read as i32],
        expires_at: Some(prost_types::Timestamp {
            seconds: unix_now() - 60,
            nanos: 0,
        }),
        label: None,
    };
    let e = owner
        .create_own_key(dash.grpc(past, true))
        .await
        .expect_err("past");
    assert_eq!(e.code(), Code::InvalidArgument);
    let e = owner
        .create_own_key(dash.grpc(
            pb::CreateOwnKeyRequest {
                scopes: vec![99],
                expires_at: None,
                label: None,
            },
            true,
        ))
        .await
        .expect_err("unknown scope");
    assert_eq!(e.code(), Code::InvalidArgument);
    for days in [0, 91] {
        let e = owner
            .get_own_key_usage(dash.grpc(
                pb::GetOwnKeyUsageRequest {
                    key_id: key.key_id.to_string(),
                    days: Some(days),
                },
                false,
            ))
            .await
            .expect_err("days out of range");
        assert_eq!(e.code(), Code::InvalidArgument);
    }
    // Defaults to 90 days.
    let usage = owner
        .get_own_key_usage(dash.grpc(
            pb::GetOwnKeyUsageRequest {
                key_id: key.key_id.to_string(),
                days: None,
            },
            false,
        ))
        .await
        .expect("usage")
        .into_inner()
        .usage
        .expect("usage");
    assert_eq!(usage.daily.len(), 90);

    // A usage-only key (no scopes) made over gRPC; newest first in the list.
    let made = owner
        .create_own_key(dash.grpc(pb::CreateOwnKeyRequest::default(), true))
        .await
        .expect("created")
        .into_inner();
    assert!(made.secret.starts_with("fsk_"));
    let listed = own_keys(&dash, &app).await;
    assert_eq!(
        listed[0].key.as_ref().expect("key").id,
        made.key.expect("key").id
    );
    assert!(
        listed
            .iter()
            .all(|k| k.key.as_ref().is_some_and(|k| !k.prefix.is_empty()))
    );
    // Revoked over gRPC: refused at once.
    owner
        .revoke_own_key(dash.grpc(
            pb::RevokeOwnKeyRequest {
                key_id: key.key_id.to_string(),
            },
            true,
        ))
        .await
        .expect("revoked");
    app.get("/forms", &key.key).await.error(401, "KEY_INVALID");
}

/// The expiry day is the owner's: typed on a computer in Tokyo, the key stops working at
/// Tokyo's midnight (15:00 UTC), and the page said the day was Tokyo's.
#[tokio::test]
async fn a_key_expires_at_the_end_of_the_day_where_its_owner_is_in_chromium() {
    if !crate::browser::browser_available() {
        return;
    }
    let app = spawn(&[]).await;
    let dash = signed_in(&app, "tokyo-owner").await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/key_zone.mjs");
    let args: [&dyn AsRef<std::ffi::OsStr>; 4] = [&script, &dash.base, &dash.cookie, &"2099-07-01"];
    let seen = crate::fixtures::run_browser_script(&args).await;
    assert_eq!(
        seen["note"], "Days in your computer\u{2019}s time zone, Asia/Tokyo.",
        "{seen}"
    );
    assert_eq!(seen["cspViolations"], serde_json::json!([]), "{seen}");
    let secret = seen["secret"].as_str().expect("the secret shown");
    let keys = own_keys(&dash, &app).await;
    let expires = key_of(&keys, secret).expires_at.expect("an expiry");
    let expected = chrono::DateTime::parse_from_rfc3339("2099-07-01T15:00:00Z").expect("time");
    assert_eq!(expires.seconds, expected.timestamp());
}
