//! Credentials that formsd hands out and later accepts: dashboard sessions, sign-in
//! links and the resume tokens of partial responses. Each is kept only as its digest
//! (SHA-256), in every table, and none is ever written to the instance's log, even at
//! debug level and even when it travels in a URL (a sign-in link's page, a resume link).

use crate::dashboard_session::{redeem, session_cookie, sign_in_link, token_of};
use crate::fixtures::*;
use crate::harness::*;
use crate::hosted_pages::{Browser, Paged, paged_fields};
use base64::Engine as _;
use serde_json::json;
use sha2::{Digest, Sha256};

/// The forms in which a token's bytes could sit in a row: as text, as the bytes of its
/// text, and as the 32 random bytes it encodes (a `bytea` shows as `\x` and hex).
fn shapes(token: &str) -> Vec<String> {
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(token)
        .expect("a token is base64url");
    assert_eq!(raw.len(), 32, "{token}");
    vec![
        token.to_owned(),
        hex::encode(token.as_bytes()),
        hex::encode(raw),
    ]
}

fn digest_hex(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// The tables of the test's database whose rows, as text, contain `needle`.
async fn tables_holding(app: &TestApp, needle: &str) -> Vec<String> {
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT quote_ident(table_name) FROM information_schema.tables
          WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
    )
    .fetch_all(&app.pool)
    .await
    .expect("tables");
    assert!(tables.len() > 20, "{tables:?}");
    let mut holding = Vec::new();
    for table in tables {
        // Every column, text and bytea alike, in the row's text form (bytea as hex).
        let sql = format!("SELECT count(*) FROM {table} t WHERE strpos(lower(t::text), $1) > 0");
        let n: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(sql.clone()))
            .bind(needle.to_lowercase())
            .fetch_one(&app.pool)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        if n > 0 {
            holding.push(table);
        }
    }
    holding
}

#[tokio::test]
async fn sessions_links_and_resume_tokens_are_kept_as_digests_and_never_logged() {
    // Debug level: what an operator who turns logging up would see.
    let app = TestApp::spawn_env(&[], &[("RUST_LOG", "debug")]).await;
    let account = "token-keeper";
    app.key_for(account, PRO, ALL).await;

    // A sign-in link printed by the command line, its page opened (the token in the
    // URL), then redeemed: a session, used for a page of the dashboard.
    let link = sign_in_link(&app, account).await;
    let link_token = token_of(&link).to_owned();
    let page = send(crate::dashboard_session::browser().get(&link)).await;
    assert_eq!(page.status, 200, "{}", page.text);
    let signed = redeem(&app, &link_token).await;
    assert_eq!(signed.status, 303, "{}", signed.text);
    let cookie = session_cookie(&signed).expect("a session");
    let session = cookie.trim_start_matches("formsd_session=").to_owned();
    let forms = send(
        crate::dashboard_session::browser()
            .get(format!(
                "{}/app/forms",
                crate::dashboard_session::origin(&app)
            ))
            .header("cookie", &cookie),
    )
    .await;
    assert_eq!(forms.status, 200, "{}", forms.text);
    // A second link, never used: it waits in its table.
    let unused = token_of(&sign_in_link(&app, account).await).to_owned();

    // A multi-page hosted form: page 1 saved gives a resume token, which another
    // browser then opens as the resume link carries it (`?resume=`).
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, paged_fields(), json!({})).await;
    let paged = Paged { app, key, form };
    let short_id = paged.short_id();
    let mut visitor = Browser::new(&paged.origin());
    let first = visitor.open(&format!("/f/{short_id}")).await;
    assert_eq!(first.status, 200);
    let car = format!("{}:one", paged.id("Do you own a car?"));
    let yes = paged.option("Do you own a car?", "Yes");
    let saved = visitor
        .post(&first, &[(&car, &yes), (&paged.id("Name"), "Ada")])
        .await;
    assert_eq!(saved.status, 303);
    let resume = visitor.resume_cookie().expect("a resume token").clone();
    let mut elsewhere = Browser::new(&paged.origin());
    let resumed = elsewhere
        .open(&format!("/f/{short_id}?resume={resume}"))
        .await;
    assert_eq!(resumed.status, 200);
    assert_eq!(paged.responses("?status=partial").await.len(), 1);
    let app = &paged.app;

    // Stored: no shape of any token anywhere, and each digest where it belongs (the
    // search finds bytea columns).
    for (token, table) in [
        (&session, "dashboard_sessions"),
        (&link_token, "sign_in_links"),
        (&unused, "sign_in_links"),
        (&resume, "partial_responses"),
    ] {
        for shape in shapes(token) {
            let holding = tables_holding(app, &shape).await;
            assert!(holding.is_empty(), "{shape} (of {token}) in {holding:?}");
        }
        assert_eq!(
            tables_holding(app, &digest_hex(token)).await,
            [table],
            "the digest of {token}"
        );
    }

    // Logged: the requests are (their paths are in the log), the tokens never.
    let mut app = paged.app;
    let logs = app.logs_to_end().await;
    for path in ["/app/sign-in/link", "/app/forms", &format!("/f/{short_id}")] {
        assert!(logs.contains(path), "no request to {path} logged");
    }
    for token in [&session, &link_token, &unused, &resume] {
        for shape in shapes(token) {
            let line = logs.lines().find(|l| l.contains(&shape));
            assert!(line.is_none(), "{shape} (of {token}) logged: {line:?}");
        }
    }
}
